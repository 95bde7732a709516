"""Where the server benchmark's slow events come from: collector pauses and WAL checkpoints.

``server_bench.py --trace`` uses this module in its three processes:

* the server runs as ``python server_trace.py OUT -- <attn serve arguments>``:
  the garbage collector's pauses (``gc.callbacks``) and the SQLite writer's
  checkpoints and inline commits are timed, and written to ``OUT`` (JSON) when
  the server exits;
* the benchmark process and the WebSocket receiver time their own collections
  with :class:`Pauses`.

:func:`attribute` then tells, for every event slower than the target, which
of those overlapped it. Timestamps are ``time.time()`` (all processes share the
clock). The instruments cost a few microseconds per collection or commit, not
per request, so the traced figures stay close to untraced ones.
"""

from __future__ import annotations

import atexit
import gc
import json
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

#: (start wall time s, duration s, generation, objects tracked before a full
#: collection, CPU time s of the collection: what it would take on an idle machine)
Pause = tuple[float, float, int, int, float]
#: (start wall time s, duration s, what)
Span = tuple[float, float, str]


class Pauses:
    """Times every collection of this process's garbage collector."""

    def __init__(self, kinds: bool = False) -> None:
        self.events: list[Pause] = []
        self._started = (0.0, 0.0, 0, 0.0)
        self._kinds = kinds
        #: The most common types the latest full collection walked (with ``kinds``).
        self.top_kinds: list[tuple[str, int]] = []

    def install(self) -> Pauses:
        gc.callbacks.append(self._callback)
        return self

    def uninstall(self) -> None:
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            generation = info["generation"]
            # Count only for full collections (rare): what the collector walks.
            size = 0
            if generation == 2:
                walked = gc.get_objects()
                size = len(walked)
                if self._kinds:
                    counts: dict[str, int] = {}
                    for obj in walked:
                        name = type(obj).__qualname__
                        counts[name] = counts.get(name, 0) + 1
                    self.top_kinds = sorted(counts.items(), key=lambda kv: -kv[1])[:12]
                del walked
            self._started = (time.time(), time.perf_counter(), size, time.thread_time())
        else:
            wall, t0, size, cpu = self._started
            self.events.append(
                (wall, time.perf_counter() - t0, info["generation"], size, time.thread_time() - cpu)
            )


def _timed(spans: list[Span], what: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        wall, t0 = time.time(), time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            took = time.perf_counter() - t0
            if took >= 0.001 or what == "checkpoint":
                spans.append((wall, took, what))

    return wrapper


def run_server(out: str, argv: list[str], thresholds: tuple[int, ...] = ()) -> None:
    """Run ``attn <argv>`` with the instruments installed; write them to ``out`` on exit.

    ``thresholds`` (optional) replace the server's collector thresholds once it is ready.
    """
    from attn.store.sqlite import worker

    pauses = Pauses(kinds=True).install()
    spans: list[Span] = []
    original_checkpoint = worker.Writer.checkpoint
    original_handle = worker.Writer.handle

    def checkpoint(self: worker.Writer) -> None:
        _timed(spans, "checkpoint", original_checkpoint)(self)

    commits: dict[str, int] = {}

    def handle(self: worker.Writer, batch: list[worker.Request]) -> None:
        what = "inline commit" if self.inline else "writer commit"
        try:
            _timed(spans, what, original_handle)(self, batch)
        except worker.Busy:
            what = "inline commit found the lock taken"
            raise
        finally:
            commits[what] = commits.get(what, 0) + 1

    worker.Writer.checkpoint = checkpoint  # type: ignore[method-assign]
    worker.Writer.handle = handle  # type: ignore[method-assign]

    def dump() -> None:
        pauses.uninstall()
        with open(out, "w") as file:
            json.dump(
                {
                    "gc": pauses.events,
                    "spans": spans,
                    "frozen": gc.get_freeze_count(),
                    "commits": commits,
                    "top kinds": pauses.top_kinds,
                    "threads": threading.active_count(),
                },
                file,
            )

    atexit.register(dump)
    if thresholds:
        # An experiment: the server with other collector thresholds than its own.
        import attn.server.serve as serve_module

        original_freeze = serve_module.freeze_startup_heap

        def freeze() -> None:
            original_freeze()
            gc.set_threshold(*thresholds)

        serve_module.freeze_startup_heap = freeze  # type: ignore[assignment]
    from attn.cli.main import app

    app(args=argv, prog_name="attn")


# -------------------------------------------------------------------- analysis


def attribute(
    requests: list[tuple[float, float, float, float]],
    server: dict[str, Any],
    bench: list[Pause],
    receiver: list[Pause],
    slow_ms: float,
) -> dict[str, Any]:
    """What overlapped the events slower than ``slow_ms``, cluster by cluster.

    Slow events that started within 50 ms of each other form a cluster; for
    each cluster, every pause or span of 2 ms or more in any process from
    50 ms before it to its end is listed.

    Args:
        requests: per event (started, got a connection, answered, received), wall s.
        server: what :func:`run_server` wrote.
        bench, receiver: the collections of those processes.
        slow_ms: the latency from which an event counts as slow, in ms.

    Returns:
        The clusters and pause statistics over the measured window.
    """
    if not requests:
        return {}
    requests = sorted(requests)
    begin, end = requests[0][0], max(r[3] for r in requests)
    sources: list[tuple[str, float, float]] = []
    for name, pauses in (
        ("server", server.get("gc", [])),
        ("bench", bench),
        ("receiver", receiver),
    ):
        for wall, took, gen, walked, cpu in pauses:
            what = f"{name} gc{gen}" + (
                f" ({walked} objects, CPU {cpu * 1000:.1f} ms)" if walked else ""
            )
            sources.append((what, wall, took))
    for wall, took, what in server.get("spans", []):
        sources.append((f"server {what}", wall, took))
    window = [s for s in sources if begin - 0.05 <= s[1] <= end]

    clusters: list[list[tuple[float, float, float, float]]] = []
    for r in requests:
        if (r[3] - r[0]) * 1000 < slow_ms:
            continue
        if clusters and r[0] - clusters[-1][-1][0] < 0.05:
            clusters[-1].append(r)
        else:
            clusters.append([r])
    report = []
    for group in clusters:
        c0, c1 = group[0][0], max(r[3] for r in group)
        found = sorted(
            (round((wall - begin) * 1000, 1), what, round(took * 1000, 1))
            for what, wall, took in window
            if took >= 0.002 and wall < c1 and wall + took > c0 - 0.05
        )
        report.append(
            {
                "at_ms": round((c0 - begin) * 1000, 1),
                "events": len(group),
                "worst_ms": round(max(r[3] - r[0] for r in group) * 1000, 1),
                "worst pool wait ms": round(max(r[1] - r[0] for r in group) * 1000, 1),
                "worst server ms": round(max(r[2] - r[1] for r in group) * 1000, 1),
                "overlapping (at ms, what, took ms)": found,
            }
        )

    def summary(prefix: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for what, _, took in window:
            if what.startswith(prefix):
                key = what.split(" (")[0]
                n, worst, total = out.get(key, (0, 0.0, 0.0))
                out[key] = (n + 1, round(max(worst, took * 1000), 2), round(total + took * 1000, 1))
        return out

    buckets: dict[int, list[float]] = {}
    for r in requests:
        buckets.setdefault(int((r[0] - begin) / 0.25), []).append((r[3] - r[0]) * 1000)
    return {
        "events": len(requests),
        "slow": sum(len(g) for g in clusters),
        "worst ms per 250 ms of sending": [round(max(v), 1) for _, v in sorted(buckets.items())],
        "clusters": report,
        "pauses in the window (n, max ms, sum ms)": summary(""),
        "server frozen objects": server.get("frozen"),
        "server commits, whole run": server.get("commits"),
        "server heap at its last full collection": server.get("top kinds"),
    }


def by_phase(server: dict[str, Any], phases: list[tuple[str, float, float]]) -> dict[str, Any]:
    """The server's collections and checkpoints per benchmark phase: n, wall ms, CPU ms."""
    out: dict[str, Any] = {}
    for name, began, ended in phases:
        row: dict[str, list[float]] = {}
        for wall, took, gen, walked, cpu in server.get("gc", []):
            if began <= wall <= ended:
                n, total, total_cpu, worst_cpu, most = row.get(f"gc{gen}", [0, 0.0, 0.0, 0.0, 0])
                row[f"gc{gen}"] = [
                    n + 1,
                    round(total + took * 1000, 1),
                    round(total_cpu + cpu * 1000, 1),
                    round(max(worst_cpu, cpu * 1000), 2),
                    max(most, walked),
                ]
        for wall, took, what in server.get("spans", []):
            if began <= wall <= ended and what == "checkpoint":
                n, total, worst = row.get(what, [0, 0.0, 0.0])[:3]
                row[what] = [
                    n + 1,
                    round(total + took * 1000, 1),
                    round(max(worst, took * 1000), 1),
                ]
        out[f"{name} ({ended - began:.2f} s)"] = row
    return out


if __name__ == "__main__":
    # server_trace.py OUT [T0,T1,T2] -- attn arguments
    split = sys.argv.index("--")
    given = sys.argv[2:split]
    run_server(
        sys.argv[1],
        sys.argv[split + 1 :],
        tuple(int(t) for t in given[0].split(",")) if given else (),
    )
