"""mcp_agent_mail, run on this machine: the peer beside attn's MCP figures (issue 17).

mcp_agent_mail (PyPI ``mcp-agent-mail`` 0.1.0) is the most used MCP mailbox; its
published figures are 8.4 sends/s and a 118 ms mean send. This module starts it
from its own virtualenv, in a temporary directory, on a free 127.0.0.1 port
(streamable HTTP at ``/mcp/``), and measures it with the official ``mcp`` SDK
client (``mcp.Client``), the one ``benchmarks/mcp_bench.py`` uses for attn:

* **sequential**: one client sends ``n_sends`` messages one at a time
  (``send_message`` to one recipient): p50, p99 and mean milliseconds, sends/s;
* **fetch**: the recipient's inbox topped up to ``inbox_size`` messages by the
  same client (the mean of its last 100 sends is the send at that size), then
  ``fetch_inbox`` timed with its default ``limit`` (20) and with a limit that
  takes the whole inbox;
* **archive**: git commits in its archive per message sent, and its size;
* **concurrent** (last, as it can wedge the peer): ``clients`` clients, each on
  its own session, each sending up to ``per_client`` messages as fast as it can
  for at most ``concurrent_budget_s``: sends/s over the wall time, per-send
  p50/p99, failed sends by kind (``lock``: the peer's ARCHIVE_LOCK_TIMEOUT after
  its 60 s wait; ``timeout``: no answer in ``CALL_TIMEOUT_S``; ``other``), client
  sessions lost (each timed-out call ends its session; the client opens another)
  and the sends never tried before the budget ran out (``unsent``).

Beside this file: ``agent_mail_process.py`` starts and stops the peer,
``agent_mail_calls.py`` holds the client session and the tool calls (names and
arguments), ``agent_mail_table.py`` the printed table.

Set-up (the peer gets its own venv, never attn's ``.venv``)::

    python3 -m venv .venv-agent-mail && .venv-agent-mail/bin/pip install mcp-agent-mail==0.1.0

(at the repository root; or anywhere, named by ``AGENT_MAIL_VENV=/path/to/venv``).
Without it :func:`run_peer` returns ``None`` and :func:`peer_unavailable` says why.

Run (from attn's venv, which has ``mcp`` and ``rich``)::

    .venv/bin/python benchmarks/peers/agent_mail_peer.py [--runs 3] [--n-sends 200]
        [--clients 30] [--per-client 10] [--inbox 1000] [--quiet-logs] [--json]

Offline: the peer is started with its LLM features off (``LLM_ENABLED=false``),
LiteLLM's price list read from the package (``LITELLM_LOCAL_MODEL_COST_MAP``),
no OpenTelemetry, JWT, rate limiter or Redis, its SQLite file and git archive in
the temporary directory and ``HOME`` pointed there. Its console logging stays as
shipped (a Rich panel per tool call, written to ``peer.log``) unless
``quiet_logs``. Every loop is bounded in count and in time (``budget_s``,
``concurrent_budget_s``); the peer's process group is ended on the way out, on
error too. Progress goes to stderr. (Without ``LITELLM_LOCAL_MODEL_COST_MAP``,
importing LiteLLM tries to fetch its price list from the network.)

What 0.1.0 does, read in its source and seen here: each send is one git commit
(its message the Rich panel of the call) and three copies of the message (canonical,
sender's outbox, recipient's inbox), about 29 MB of archive for 1,000 messages; sends
to one project queue on one archive lock (an asyncio lock and a file lock polled from
worker threads, 60 s timeout), and from 8 concurrent clients on the peer stalls in
60 s steps, most sends failing with ARCHIVE_LOCK_TIMEOUT or not answering (with
filelock 3.20.0, current at its release, as with 4.3.1); ``fetch_inbox`` marks
nothing read but returns only the newest ``limit`` (20), so a ``since_ts`` cursor
passes over whatever else arrived since the last poll.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules, as a script too

from agent_mail_calls import PROJECT, RECIPIENT, call, connect, fetch, send_args
from agent_mail_process import (
    PeerFailed,
    git_commits,
    peer_unavailable,
    peer_version,
    running_peer,
    venv_path,
)
from agent_mail_table import PUBLISHED, print_table
from mcp import Client

__all__ = ["PUBLISHED", "PeerFailed", "peer_unavailable", "run_peer"]

LIMITS = {"n_sends": 2000, "clients": 100, "per_client": 200, "inbox_size": 5000}


def note(text: str) -> None:
    print(f"[agent_mail_peer {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile ``q`` (0-100) of ``values``; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


async def send_loop(
    client: Client, sender: str, count: int, deadline: float, part: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Up to ``count`` sends one after another until ``deadline``; adds to ``part`` if given."""
    part = part if part is not None else {"ms": [], "errors": Counter(), "sample": None, "tried": 0}
    while part["tried"] < count and time.monotonic() < deadline:
        took, err, detail = await call(client, "send_message", send_args(sender, part["tried"]))
        part["tried"] += 1
        if err is None:
            part["ms"].append(took)
        else:
            part["errors"][err] += 1
            part["sample"] = part["sample"] or str(detail)[:300]
    return part


def send_figures(part: dict[str, Any], wall_s: float, count: int) -> dict[str, Any]:
    ms = part["ms"]
    return {
        "ok": len(ms),
        "p50_ms": pct(ms, 50),
        "p99_ms": pct(ms, 99),
        "mean_ms": statistics.fmean(ms) if ms else float("nan"),
        "sends_per_s": len(ms) / wall_s if wall_s > 0 else float("nan"),
        "wall_s": wall_s,
        "errors": dict(part["errors"]),
        "unsent": count - part["tried"],
        "error_sample": part["sample"],
    }


async def concurrent_sends(
    url: str, senders: list[str], per: int, budget_s: float
) -> dict[str, Any]:
    """Each sender on its own session, all starting together once all are connected; a session
    that dies is counted (``sessions_lost``) and opened again while the budget lasts."""
    go = asyncio.Event()
    all_ready = asyncio.Event()
    ready: list[str] = []

    def mark_ready(sender: str) -> None:
        ready.append(sender)
        if len(ready) == len(senders):
            all_ready.set()

    deadline = time.monotonic() + budget_s + 60.0  # until ``go`` sets the real one

    async def worker(sender: str) -> dict[str, Any]:
        part: dict[str, Any] = {
            "ms": [],
            "errors": Counter(),
            "sample": None,
            "tried": 0,
            "sessions_lost": 0,
        }
        while part["tried"] < per and time.monotonic() < deadline:
            try:
                async with connect(url) as client:
                    if sender not in ready:
                        mark_ready(sender)
                        await go.wait()
                    await send_loop(client, sender, per, deadline, part)
            except Exception as exc:  # the session ended (after a timed-out call): open another
                part["sessions_lost"] += 1
                part["sample"] = part["sample"] or f"{type(exc).__name__}: {exc}"[:300]
            if sender not in ready:
                mark_ready(sender)
                await go.wait()
        return part

    async def start() -> float:
        nonlocal deadline
        async with asyncio.timeout(60.0):
            await all_ready.wait()
        deadline = time.monotonic() + budget_s
        go.set()
        return time.perf_counter()

    async with asyncio.TaskGroup() as tg:
        tasks = [tg.create_task(worker(s), name=f"peer-sender-{s}") for s in senders]
        started = tg.create_task(start(), name="peer-start")
    wall = time.perf_counter() - started.result()
    parts = [t.result() for t in tasks]
    merged: dict[str, Any] = {
        "ms": [m for p in parts for m in p["ms"]],
        "errors": sum((p["errors"] for p in parts), Counter()),
        "sample": next((p["sample"] for p in parts if p["sample"]), None),
        "tried": sum(p["tried"] for p in parts),
    }
    lost = sum(p["sessions_lost"] for p in parts)
    return send_figures(merged, wall, per * len(senders)) | {"sessions_lost": lost}


async def timed_fetches(client: Client, limit: int, reads: int) -> dict[str, Any]:
    ms: list[float] = []
    returned = 0
    for _ in range(reads):
        took, items = await fetch(client, limit=limit)
        ms.append(took)
        returned = len(items)
    return {"limit": limit, "returned": returned, "p50_ms": pct(ms, 50), "p99_ms": pct(ms, 99)}


async def polled_reach(client: Client, since: str | None, rounds: int = 100) -> int:
    """Messages a poller reaches the way the tool's docstring suggests (``since_ts`` = the
    newest ``created_ts`` it has seen, default ``limit``) when the top-up arrived since its
    last poll: the tool returns the newest ``limit``, so the cursor passes over the rest."""
    seen: set[int] = set()
    for _ in range(rounds):
        _, items = await fetch(client, since_ts=since) if since else await fetch(client)
        if not items:
            break
        seen.update(int(m["id"]) for m in items)
        since = max(str(m["created_ts"]) for m in items)
    return len(seen)


def archive_figures(home: Path, messages: int, sent: int, commits_before: int) -> dict[str, Any]:
    """Git commits the sends added (``sent`` of them), and the archive's size with ``messages``."""
    added = git_commits(home) - commits_before
    size = sum(p.stat().st_size for p in (home / "archive").rglob("*") if p.is_file())
    return {
        "messages": messages,
        "commits_by_sends": added,
        "commits_per_send": added / sent if sent else float("nan"),
        "archive_mb": size / 1e6,
    }


async def measure(url: str, home: Path, cfg: dict[str, Any]) -> dict[str, Any]:
    """The phases against the peer at ``url``; the concurrent one last, as it can wedge the peer."""
    senders = [f"Sender{i}" for i in range(cfg["clients"])]
    budget_s = cfg["budget_s"]
    async with connect(url) as client:
        for name in [RECIPIENT, *senders]:
            args = {"project_key": PROJECT, "program": "bench", "model": "none", "name": name}
            _, err, detail = await call(client, "register_agent", args)
            if err is not None:
                raise PeerFailed(f"register_agent {name} failed: {detail}")
        await send_loop(client, senders[0], 3, time.monotonic() + budget_s)  # warm-up
        commits_before = git_commits(home)
        start = time.perf_counter()
        seq = await send_loop(client, senders[0], cfg["n_sends"], time.monotonic() + budget_s)
        sequential = send_figures(seq, time.perf_counter() - start, cfg["n_sends"])
        held = (await timed_fetches(client, LIMITS["inbox_size"] * 2, 1))["returned"]
        top_up = max(0, cfg["inbox_size"] - held)
        cursor = (await fetch(client, limit=1))[1][0]["created_ts"]
        start = time.perf_counter()
        seed = await send_loop(
            client, senders[1 % len(senders)], top_up, time.monotonic() + 3 * budget_s
        )
        seeding = send_figures(seed, time.perf_counter() - start, top_up)
        whole = await timed_fetches(client, LIMITS["inbox_size"] * 2, cfg["fetch_reads"])
        default = await timed_fetches(client, 20, cfg["fetch_reads"])
        reached = await polled_reach(client, cursor)
    note(f"sequential {sequential['ok']} ok, seeded {seeding['ok']}, inbox {whole['returned']}")
    sent = sequential["ok"] + seeding["ok"]
    archive = archive_figures(home, whole["returned"], sent, commits_before)
    concurrent = await concurrent_sends(url, senders, cfg["per_client"], cfg["concurrent_budget_s"])
    note(f"concurrent {concurrent['ok']} ok, errors {concurrent['errors']}")
    tail = seed["ms"][-100:]
    return {
        "sequential": sequential,
        "concurrent": concurrent | {"clients": cfg["clients"], "per_client": cfg["per_client"]},
        "fetch": {
            "inbox_messages": whole["returned"],
            "default_limit": default,
            "whole": whole,
            "polling": {"arrived_since_last_poll": seeding["ok"], "reached": reached},
        },
        "send_at_size": {
            "messages": whole["returned"],
            "mean_ms": statistics.fmean(tail) if tail else float("nan"),
        },
        "seeding": seeding,
        "archive": archive,
    }


def run_peer(
    n_sends: int = 200,
    clients: int = 30,
    per_client: int = 10,
    inbox_size: int = 1000,
    *,
    fetch_reads: int = 20,
    budget_s: float = 300.0,
    concurrent_budget_s: float = 120.0,
    quiet_logs: bool = False,
    venv: str | Path | None = None,
) -> dict[str, Any] | None:
    """One run against a fresh mcp_agent_mail; ``None`` (reason on stderr) when it is not installed.

    Args: counts as named (bounded by ``LIMITS``); ``budget_s`` seconds for the sequential
    sends (three times that for topping up the inbox), ``concurrent_budget_s`` for the
    clients' sends (calls in flight then still end, within ``CALL_TIMEOUT_S``); ``venv`` as
    in :func:`venv_path`. Returns ``{"peer", "version", "sequential", "concurrent",
    "fetch", "send_at_size", "seeding", "archive", "published", "config"}``; send figures in
    ms and sends/s, errors as ``{kind: count}``. Raises :class:`PeerFailed` when the peer
    is installed but does not start or answer, ``ValueError`` for counts out of bounds.
    """
    cfg = {
        "n_sends": n_sends,
        "clients": clients,
        "per_client": per_client,
        "inbox_size": inbox_size,
        "fetch_reads": fetch_reads,
        "budget_s": budget_s,
        "concurrent_budget_s": concurrent_budget_s,
    }
    for key, top in LIMITS.items():
        if not 1 <= cfg[key] <= top:
            raise ValueError(f"{key} must be in 1..{top}, got {cfg[key]}")
    for key, low, top in (
        ("fetch_reads", 1, 200),
        ("budget_s", 1, 1800),
        ("concurrent_budget_s", 1, 1800),
    ):
        if not low <= cfg[key] <= top:
            raise ValueError(f"{key} must be in {low}..{top}, got {cfg[key]}")
    reason = peer_unavailable(venv)
    if reason is not None:
        print(f"mcp_agent_mail skipped: {reason}", file=sys.stderr)
        return None
    path = venv_path(venv)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="agent-mail-peer-") as tmp:
        home = Path(tmp)
        with running_peer(path, home, quiet_logs=quiet_logs) as url:
            figures = asyncio.run(measure(url, home, cfg))
    return {
        "peer": "mcp_agent_mail",
        "version": peer_version(path),
        **figures,
        "published": PUBLISHED,
        "config": cfg | {"quiet_logs": quiet_logs},
        "load_avg_1m": {"before": load_before, "after": os.getloadavg()[0]},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--n-sends", type=int, default=200)
    parser.add_argument("--clients", type=int, default=30)
    parser.add_argument("--per-client", type=int, default=10)
    parser.add_argument("--inbox", type=int, default=1000)
    parser.add_argument("--concurrent-budget", type=float, default=120.0, help="seconds")
    parser.add_argument("--quiet-logs", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the runs as JSON too")
    args = parser.parse_args()
    runs: list[dict[str, Any]] = []
    for _ in range(max(1, min(args.runs, 10))):
        run = run_peer(
            args.n_sends,
            args.clients,
            args.per_client,
            args.inbox,
            concurrent_budget_s=args.concurrent_budget,
            quiet_logs=args.quiet_logs,
        )
        if run is None:
            sys.exit(0)
        runs.append(run)
    print_table(runs)
    if args.json:
        print(json.dumps(runs, indent=2, default=str))


if __name__ == "__main__":
    main()
