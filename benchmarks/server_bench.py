"""The server's figures: HTTP enqueue throughput and WebSocket event latency.

Run: ``.venv/bin/python benchmarks/server_bench.py [--runs 5] [--quick] [--trace]``

Measured in one run, on loopback only, bounded in count and time:

* **in-process enqueue**: 32 concurrent producers calling ``Agent.enqueue`` on
  an SQLite runtime in this process (the baseline), in chunks alternating
  with the HTTP ones (:func:`paired_rates`), so the ratio compares like with like;
* **HTTP enqueue** (the figure with the target, ≥ 0.25× in-process): 32
  concurrent clients, each on its own keep-alive connection (:class:`RawPool`,
  a minimal HTTP/1.1 client, as load generators such as wrk are), posting to
  ``POST /api/agents/{agentId}/mailbox`` of a real ``attn serve`` process on
  127.0.0.1 with SQLite;
* the same with one ``httpx.AsyncClient`` over 32 connections, for reference:
  httpx spends about 1 ms of CPU per request, so with 32 connections this
  figure measures the client (its CPU use is printed), not the server;
* **WebSocket latency** at a paced 1,000 events/s: from the moment a client
  starts its enqueue POST (raw pool) to the moment a WebSocket client in *another
  process* receives the item's ``agent:mailbox`` event (p50, p99; target p99
  < 20 ms), and from the event's own timestamp (commit) to receipt.

The agents are stopped during the measurements (``control/stop``), so each
enqueue is exactly one event and processing does not compete for the CPU.
The table shows each figure's min, median and max over ``--runs`` runs (the
ratio is taken per run) and whether every run met its target.

Run to run, the figures moved with collections, not with the server's code
(``--trace`` shows them): of the benchmark process itself (a full collection
of its 108,000 objects stopped the paced client for 120-230 ms; the client
phases now run with its collector off, see :func:`quiet_client`), of the
in-process baseline (its heap held the imports and leftovers of earlier runs;
it now has a warm-up and the collector ``attn serve`` has), and of the server
(see ``attn.server.serve.freeze_startup_heap``).

``--trace`` runs the server under ``server_trace.py`` and prints, per run, what
overlapped each cluster of slow WebSocket events (collections of the three
processes, the SQLite writer's checkpoints and long commits, waits for a pool
connection) and the server's collections and checkpoints per phase.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table
from server_trace import Pauses, attribute, by_phase

from attn import AgentConfig, Focus, MailboxItem, Runtime
from attn.server.serve import freeze_startup_heap
from attn.store import open_store

CLIENTS = 32
#: Alternating chunks of in-process and HTTP enqueues per run (:func:`paired_rates`).
ROUNDS = 4
AGENT = "bench"
TEAM = f"""\
[[agents]]
name = "{AGENT}"
brain = "echo"
max_queued = 1000000
"""
START_TIMEOUT_S = 30.0
RUN_TIMEOUT_S = 120.0


async def _noop(item: MailboxItem, focus: Focus) -> None:
    return None


# ------------------------------------------------------------------ in-process


async def in_process_rate(workdir: Path, n: int, cpu: list[float] | None = None) -> float:
    """Items/s of ``n`` enqueues from :data:`CLIENTS` concurrent producers, in this process.

    With ``cpu``, the CPU time of this process per item (s, all threads) is appended to it.
    """
    url = f"sqlite:///{workdir / f'inproc-{time.perf_counter_ns()}.db'}"
    async with Runtime(open_store(url)) as runtime:
        agent = await runtime.add_agent(
            AGENT, _noop, AgentConfig(max_queued=1_000_000), start=False
        )
        per = n // CLIENTS

        async def produce(p: int) -> None:
            for i in range(per):
                await agent.enqueue(
                    "system_event", {"content": f"item {p}.{i}"}, metadata={"senderId": "bench"}
                )

        start, used = time.perf_counter(), time.process_time()
        await asyncio.gather(*(produce(p) for p in range(CLIENTS)))
        elapsed = time.perf_counter() - start
        if cpu is not None:
            cpu.append((time.process_time() - used) / (per * CLIENTS))
        return per * CLIENTS / elapsed


# ---------------------------------------------------------------------- server


class Server:
    """``attn serve`` as a child process on a free loopback port."""

    def __init__(
        self, workdir: Path, trace: Path | None = None, thresholds: str | None = None
    ) -> None:
        config = workdir / "attn.toml"
        config.write_text(TEAM)
        env = {k: v for k, v in os.environ.items() if not k.startswith("ATTN_")}
        env["ATTN_DATABASE_URL"] = f"sqlite:///{workdir / f'server-{time.perf_counter_ns()}.db'}"
        self.trace = trace
        launcher = (
            ["-m", "attn"]
            if trace is None
            else [
                str(Path(__file__).with_name("server_trace.py")),
                str(trace),
                *([thresholds] if thresholds else []),
                "--",
            ]
        )
        self.process = subprocess.Popen(
            [
                sys.executable,
                *launcher,
                "serve",
                "--config",
                str(config),
                "--host",
                "127.0.0.1",
                "--port",
                "0",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.url = self._wait_for_url()

    def _wait_for_url(self) -> str:
        assert self.process.stdout is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            found = re.search(r"at (http://127\.0\.0\.1:\d+)", line)
            if found:
                return found.group(1)
        self.stop()
        raise RuntimeError(f"attn serve did not start: {self.process.stderr}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


async def http_rate(url: str, n: int) -> tuple[float, float]:
    """Requests/s of ``n`` enqueue POSTs from :data:`CLIENTS` concurrent httpx clients,
    and the share of one core the client process used meanwhile."""
    limits = httpx.Limits(max_connections=CLIENTS, max_keepalive_connections=CLIENTS)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30.0) as http:
        per = n // CLIENTS
        path = f"/api/agents/{AGENT}/mailbox"

        async def client(c: int) -> None:
            for i in range(per):
                body = {
                    "sourceType": "system_event",
                    "payload": {"content": f"item {c}.{i}"},
                    "metadata": {"senderId": "bench"},
                }
                try:
                    response = await http.post(path, json=body)
                except httpx.TransportError:
                    # A keep-alive connection the server closed just then: retry once.
                    response = await http.post(path, json=body)
                if response.status_code != 202:
                    raise RuntimeError(f"enqueue answered {response.status_code}: {response.text}")

        # Warm the connections first: the figure is the steady state.
        await asyncio.gather(*(http.get("/health") for _ in range(CLIENTS)))
        start, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(client(c) for c in range(CLIENTS)))
        elapsed = time.perf_counter() - start
        return per * CLIENTS / elapsed, (time.process_time() - cpu) / elapsed


class RawPool:
    """Minimal HTTP/1.1 keep-alive client: ``size`` connections, one request each at a time.

    It exists to tell the server's throughput apart from the client's: on small
    machines httpx's own per-request cost caps what one client process can send.
    """

    def __init__(self, url: str, size: int) -> None:
        host, port = url.removeprefix("http://").split(":")
        self.host, self.port, self.size = host, int(port), size
        self._idle: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = (
            asyncio.Queue()
        )
        self._all: list[asyncio.StreamWriter] = []

    async def open(self) -> None:
        for _ in range(self.size):
            reader, writer = await asyncio.open_connection(self.host, self.port)
            self._all.append(writer)
            self._idle.put_nowait((reader, writer))

    async def close(self) -> None:
        for writer in self._all:
            writer.close()
        for writer in self._all:
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async def post(
        self, path: str, body: dict[str, Any], stamps: list[float] | None = None
    ) -> tuple[int, bytes]:
        """POST ``body``; append to ``stamps`` when a connection was free (wall s)."""
        data = json.dumps(body).encode()
        reader, writer = await self._idle.get()
        if stamps is not None:
            stamps.append(time.time())
        try:
            writer.write(
                f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n".encode()
                + data
            )
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            length = 0
            for line in head.split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            return status, await reader.readexactly(length)
        finally:
            self._idle.put_nowait((reader, writer))


async def raw_rate(url: str, n: int, tag: str = "") -> float:
    """Requests/s of ``n`` enqueue POSTs over :data:`CLIENTS` raw keep-alive connections."""
    pool = RawPool(url, CLIENTS)
    await pool.open()
    try:
        per = n // CLIENTS
        path = f"/api/agents/{AGENT}/mailbox"

        async def client(c: int) -> None:
            for i in range(per):
                status, body = await pool.post(
                    path,
                    {
                        "sourceType": "system_event",
                        "payload": {"content": f"raw {tag}{c}.{i}"},
                        "metadata": {"senderId": "bench"},
                    },
                )
                if status != 202:
                    raise RuntimeError(f"enqueue answered {status}: {body[:200]!r}")

        start = time.perf_counter()
        await asyncio.gather(*(client(c) for c in range(CLIENTS)))
        return per * CLIENTS / (time.perf_counter() - start)
    finally:
        await pool.close()


async def paired_rates(
    workdir: Path, url: str, n: int, rounds: int, server_pid: int
) -> tuple[float, float, float, float]:
    """In-process and HTTP enqueue rates, measured in alternating chunks.

    This VM's CPU speed drifts by tens of percent within seconds (the same
    9,600 in-process enqueues took 60-84 µs of CPU each, run after run, with
    the same commits, checkpoints and collections), so a ratio of two figures
    taken at different moments moved with the machine. Here each round runs
    ``n / rounds`` enqueues in this process, then as many over HTTP, so the
    drift hits both alike. The in-process runtime keeps its queue across
    rounds, as the server does; this process's collector is on for it and
    off while it is only the HTTP client.

    Returns:
        In-process items/s, HTTP requests/s, and CPU seconds per enqueue of
        this process (in-process chunks) and of the server (HTTP chunks).
    """
    db = f"sqlite:///{workdir / f'inproc-{time.perf_counter_ns()}.db'}"
    per_round = n // rounds // CLIENTS * CLIENTS
    spent = {"in": 0.0, "http": 0.0, "in_cpu": 0.0, "server_cpu": 0.0}
    async with Runtime(open_store(db)) as runtime:
        agent = await runtime.add_agent(
            AGENT, _noop, AgentConfig(max_queued=1_000_000), start=False
        )

        async def produce(r: int, p: int) -> None:
            for i in range(per_round // CLIENTS):
                await agent.enqueue(
                    "system_event", {"content": f"item {r}.{p}.{i}"}, metadata={"senderId": "bench"}
                )

        for r in range(rounds):
            start, used = time.perf_counter(), time.process_time()
            await asyncio.gather(*(produce(r, p) for p in range(CLIENTS)))
            spent["in"] += time.perf_counter() - start
            spent["in_cpu"] += time.process_time() - used
            used = cpu_s(server_pid)
            gc.disable()
            try:
                spent["http"] += per_round / await raw_rate(url, per_round, f"{r}.")
            finally:
                gc.enable()
            spent["server_cpu"] += cpu_s(server_pid) - used
    total = per_round * rounds
    return (
        total / spent["in"],
        total / spent["http"],
        spent["in_cpu"] / total,
        spent["server_cpu"] / total,
    )


# ------------------------------------------------------------ websocket latency


def _receiver(url: str, expected: int, conn: Connection, trace: bool) -> None:
    """Child process: subscribe, report ready, record (item id -> receipt, event time)."""
    from server_trace import Pauses
    from websockets.sync.client import connect

    pauses = Pauses().install() if trace else None
    received: dict[str, tuple[float, float]] = {}
    ws_url = url.replace("http://", "ws://") + "/ws"
    with connect(ws_url, max_size=None) as ws:
        ws.send(json.dumps({"type": "subscribe", "agents": [AGENT], "lastSeq": None}))
        while json.loads(ws.recv(timeout=START_TIMEOUT_S))["type"] != "subscribed":
            pass
        # A client too: its collector must not delay the receipts it stamps.
        gc.collect()
        gc.freeze()
        gc.disable()
        conn.send("ready")
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while len(received) < expected and time.monotonic() < deadline:
            try:
                raw = ws.recv(timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                break
            now = time.time()
            message = json.loads(raw)
            if message.get("event") == "agent:mailbox":
                at = datetime.fromisoformat(message["at"]).timestamp()
                received[message["data"]["item"]["id"]] = (now, at)
    conn.send((received, pauses.events if pauses is not None else []))


async def ws_latency(
    url: str, n: int, rate: float, trace: dict[str, Any] | None = None
) -> dict[str, float]:
    """Latencies (ms) of ``n`` enqueues paced at ``rate`` per second, seen by a WebSocket.

    With ``trace`` (a dict), per-event stamps and the collections of this
    process and of the receiver are stored in it, for :func:`server_trace.attribute`.
    """
    parent, child = multiprocessing.Pipe()
    receiver = multiprocessing.get_context("spawn").Process(
        target=_receiver,
        args=(url, n, child, trace is not None),
        name="attn-bench-ws",
        daemon=True,
    )
    receiver.start()
    try:
        if not parent.poll(START_TIMEOUT_S) or parent.recv() != "ready":
            raise RuntimeError("the WebSocket receiver did not subscribe in time")
        sent: dict[str, float] = {}
        stamps: dict[str, tuple[float, float, float]] = {}
        pauses = Pauses().install() if trace is not None else None
        pool = RawPool(url, CLIENTS)
        await pool.open()
        try:
            path = f"/api/agents/{AGENT}/mailbox"

            async def one(i: int) -> None:
                started = time.time()
                pooled: list[float] = []
                status, body = await pool.post(
                    path,
                    {
                        "sourceType": "system_event",
                        "payload": {"content": f"latency {i}"},
                    },
                    pooled,
                )
                if status != 202:
                    raise RuntimeError(f"enqueue answered {status}: {body[:200]!r}")
                item_id = json.loads(body)["id"]
                sent[item_id] = started
                if trace is not None:
                    stamps[item_id] = (started, pooled[0], time.time())

            loop = asyncio.get_running_loop()
            begin = loop.time()
            tasks = []
            for i in range(n):
                delay = begin + i / rate - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
                tasks.append(asyncio.create_task(one(i), name=f"bench-enqueue-{i}"))
            await asyncio.gather(*tasks)
            elapsed = loop.time() - begin
        finally:
            await pool.close()
            if pauses is not None:
                pauses.uninstall()
        received, receiver_pauses = await asyncio.to_thread(
            lambda: parent.recv() if parent.poll(RUN_TIMEOUT_S) else ({}, [])
        )
    finally:
        receiver.join(timeout=30)
        if receiver.is_alive():
            receiver.kill()
    if trace is not None and pauses is not None:
        trace["requests"] = [(*stamps[i], received[i][0]) for i in stamps if i in received]
        trace["bench"], trace["receiver"] = pauses.events, receiver_pauses
    missing = len(set(sent) - set(received))
    end_to_end = sorted((received[i][0] - sent[i]) * 1000 for i in sent if i in received)
    fan_out = sorted((received[i][0] - received[i][1]) * 1000 for i in sent if i in received)
    return {
        "rate": n / elapsed,
        "p50": _percentile(end_to_end, 50),
        "p99": _percentile(end_to_end, 99),
        "fan_p50": _percentile(fan_out, 50),
        "fan_p99": _percentile(fan_out, 99),
        "missing": float(missing),
    }


def _percentile(values: list[float], pct: float) -> float:
    if not values:
        return float("nan")
    index = min(len(values) - 1, max(0, round(pct / 100 * (len(values) - 1))))
    return values[index]


def _stop_agent(url: str) -> None:
    response = httpx.post(f"{url}/api/agents/{AGENT}/control/stop", timeout=10.0)
    if response.status_code != 200:
        raise RuntimeError(f"could not stop the agent: {response.status_code} {response.text}")


# ------------------------------------------------------------------------ main


@contextlib.contextmanager
def quiet_client() -> Iterator[None]:
    """No collections in this process while it is only the client.

    The benchmark process holds about 108,000 objects of its own (imports,
    the in-process baseline's leftovers); a full collection of them stopped
    the paced client for 120-230 ms in the middle of the WebSocket phase
    (``--trace``), after which the late events left in one burst and queued
    for a pool connection: the client measured itself. The server is not
    touched, so its pauses stay in the figures.
    """
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system, all threads) process ``pid`` used so far (Linux; else NaN)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def phase(
    phases: list[tuple[str, float, float, float]],
    name: str,
    coro: Any,
    server_pid: int,
    *,
    client: bool = True,
) -> Any:
    """``asyncio.run(coro)``, as a client only (:func:`quiet_client`) unless ``client`` is False.

    Its span (wall s) and the server's CPU seconds meanwhile are appended to ``phases``.
    """
    began, used = time.time(), cpu_s(server_pid)
    try:
        with quiet_client() if client else contextlib.nullcontext():
            return asyncio.run(coro)
    finally:
        phases.append((name, began, time.time(), cpu_s(server_pid) - used))


#: Figure -> (label, unit format, target text, predicate every run must meet).
FIGURES: dict[str, tuple[str, str, str, Callable[[float], bool] | None]] = {
    "in_process": (f"in-process enqueue, {CLIENTS} producers", "{:,.0f} items/s", "", None),
    "raw": (f"HTTP enqueue, {CLIENTS} keep-alive clients", "{:,.0f} req/s", "", None),
    "raw_ratio": ("  HTTP / in-process (same run)", "{:.2f}×", "≥ 0.25×", lambda v: v >= 0.25),
    "http": (f"for reference: {CLIENTS} httpx clients", "{:,.0f} req/s", "", None),
    "http_cpu": ("  httpx client CPU", "{:.0%} of a core", "", None),
    "rate": ("paced event rate", "{:,.0f} events/s", "1,000", None),
    "p50": ("WS enqueue→agent:mailbox p50", "{:.2f} ms", "", None),
    "p99": ("WS enqueue→agent:mailbox p99", "{:.2f} ms", "< 20 ms", lambda v: v < 20),
    "fan_p50": ("WS commit→receipt p50", "{:.2f} ms", "", None),
    "fan_p99": ("WS commit→receipt p99", "{:.2f} ms", "", None),
    "missing": ("events not received", "{:.0f}", "0", lambda v: v == 0),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument(
        "--trace",
        action="store_true",
        help="time collections and checkpoints; print what overlapped slow events",
    )
    parser.add_argument(
        "--server-gc",
        metavar="T0,T1,T2",
        help="with --trace: the server's collector thresholds, to compare",
    )
    args = parser.parse_args()
    if args.server_gc and not args.trace:
        parser.error("--server-gc needs --trace")
    n_rate = 3_200 if args.quick else 9_600
    n_httpx = 640 if args.quick else 1_920
    n_latency = 1_000 if args.quick else 3_000
    rate = 1_000.0

    figures: dict[str, list[float]] = {}

    def keep(name: str, value: float) -> None:
        figures.setdefault(name, []).append(value)

    with tempfile.TemporaryDirectory(prefix="attn-server-bench-") as tmp:
        workdir = Path(tmp)
        # Not measured: the first runtime imports Alembic and SQLAlchemy
        # (about 50,000 objects) and pays first-use costs.
        asyncio.run(in_process_rate(workdir, CLIENTS * 10))
        for run in range(args.runs):
            # The baseline runs the product in this process: give it the
            # collector attn serve has (and the README advises for hosts).
            freeze_startup_heap()
            trace_file = workdir / f"trace-{run}.json" if args.trace else None
            trace: dict[str, Any] | None = {} if args.trace else None
            phases: list[tuple[str, float, float, float]] = []
            server = Server(workdir, trace_file, args.server_gc)
            pid = server.process.pid
            try:
                _stop_agent(server.url)
                in_rate, http_rate_, in_cpu, server_cpu = phase(
                    phases,
                    "raw",
                    paired_rates(workdir, server.url, n_rate, ROUNDS, pid),
                    pid,
                    client=False,
                )
                keep("in_process", in_rate)
                keep("raw", http_rate_)
                httpx_rate, httpx_cpu = phase(phases, "httpx", http_rate(server.url, n_httpx), pid)
                keep("http", httpx_rate)
                keep("http_cpu", httpx_cpu)
                latency = phase(phases, "ws", ws_latency(server.url, n_latency, rate, trace), pid)
            finally:
                server.stop()
            keep("raw_ratio", figures["raw"][-1] / figures["in_process"][-1])
            if trace is not None and trace_file is not None:
                traced = json.loads(trace_file.read_text())
                found = attribute(
                    trace["requests"], traced, trace["bench"], trace["receiver"], slow_ms=20.0
                )
                found["server, by phase"] = by_phase(traced, [p[:3] for p in phases])
                found["CPU per enqueue, µs"] = {
                    "in-process (its whole process)": round(in_cpu * 1e6, 1),
                    "server, HTTP phase": round(server_cpu * 1e6, 1),
                    "ratio if each had a core of its own": round(in_cpu / server_cpu, 3),
                }
                print(json.dumps(found, indent=1), file=sys.stderr)
            for key, value in latency.items():
                keep(key, value)
            print(
                f"run {run + 1}/{args.runs}: in-process {figures['in_process'][-1]:,.0f}/s, "
                f"HTTP {figures['raw'][-1]:,.0f}/s ({figures['raw_ratio'][-1]:.2f}×; "
                f"httpx {figures['http'][-1]:,.0f}/s), "
                f"WS p50 {latency['p50']:.2f} ms "
                f"p99 {latency['p99']:.2f} ms at {latency['rate']:,.0f} events/s "
                f"(load average {os.getloadavg()[0]:.2f})",
                file=sys.stderr,
            )

    table = Table(title=f"attn server, {args.runs} runs (loopback, SQLite)")
    for column in ("figure", "min", "median", "max", "target", "every run"):
        table.add_column(column, justify="left" if column == "figure" else "right")
    for key, (label, unit, target, holds) in FIGURES.items():
        values = figures[key]
        table.add_row(
            label,
            *(unit.format(v) for v in (min(values), statistics.median(values), max(values))),
            target,
            "" if holds is None else _yes(all(holds(v) for v in values)),
        )
    Console(width=120).print(table)
    return 0


def _yes(ok: bool) -> str:
    return "yes" if ok else "NO"


if __name__ == "__main__":
    sys.exit(main())
