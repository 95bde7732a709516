"""The server's figures: HTTP enqueue throughput and WebSocket event latency.

Run: ``.venv/bin/python benchmarks/server_bench.py [--runs 3] [--quick]``

Measured in one run, on loopback only, bounded in count and time:

* **in-process enqueue**: 32 concurrent producers calling ``Agent.enqueue`` on
  an SQLite runtime in this process (the baseline);
* **HTTP enqueue** (the figure with the target, ≥ 0.25× in-process): 32
  concurrent clients, each on its own keep-alive connection (:class:`RawPool`,
  a minimal HTTP/1.1 client, as load generators such as wrk are), posting to
  ``POST /api/agents/{name}/mailbox`` of a real ``attn serve`` process on
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
Every figure is the median over ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

from attn import AgentConfig, Focus, MailboxItem, Runtime
from attn.store.url import open_store

CLIENTS = 32
AGENT = "bench"
TEAM = f"""\
[[agents]]
name = "{AGENT}"
brain = "echo"
capacity = 1000000
"""
START_TIMEOUT_S = 30.0
RUN_TIMEOUT_S = 120.0


async def _noop(item: MailboxItem, focus: Focus) -> None:
    return None


# ------------------------------------------------------------------ in-process


async def in_process_rate(workdir: Path, n: int) -> float:
    """Items/s of ``n`` enqueues from :data:`CLIENTS` concurrent producers, in this process."""
    url = f"sqlite:///{workdir / f'inproc-{time.perf_counter_ns()}.db'}"
    async with Runtime(open_store(url)) as runtime:
        agent = await runtime.add_agent(AGENT, _noop, AgentConfig(capacity=1_000_000),
                                        start=False)
        per = n // CLIENTS

        async def produce(p: int) -> None:
            for i in range(per):
                await agent.enqueue("system_event", {"content": f"item {p}.{i}"},
                                    metadata={"senderId": "bench"})

        start = time.perf_counter()
        await asyncio.gather(*(produce(p) for p in range(CLIENTS)))
        return per * CLIENTS / (time.perf_counter() - start)


# ---------------------------------------------------------------------- server


class Server:
    """``attn serve`` as a child process on a free loopback port."""

    def __init__(self, workdir: Path) -> None:
        config = workdir / "attn.toml"
        config.write_text(TEAM)
        env = {k: v for k, v in os.environ.items() if not k.startswith("ATTN_")}
        env["ATTN_DATABASE_URL"] = f"sqlite:///{workdir / f'server-{time.perf_counter_ns()}.db'}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "attn", "serve", "--config", str(config),
             "--host", "127.0.0.1", "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
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
                    "sourceType": "system_event", "payload": {"content": f"item {c}.{i}"},
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

    It exists to tell the server's capacity apart from the client's: on small
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

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
        data = json.dumps(body).encode()
        reader, writer = await self._idle.get()
        try:
            writer.write(
                f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
                .encode() + data
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


async def raw_rate(url: str, n: int) -> float:
    """Requests/s of ``n`` enqueue POSTs over :data:`CLIENTS` raw keep-alive connections."""
    pool = RawPool(url, CLIENTS)
    await pool.open()
    try:
        per = n // CLIENTS
        path = f"/api/agents/{AGENT}/mailbox"

        async def client(c: int) -> None:
            for i in range(per):
                status, body = await pool.post(path, {
                    "sourceType": "system_event", "payload": {"content": f"raw {c}.{i}"},
                    "metadata": {"senderId": "bench"},
                })
                if status != 202:
                    raise RuntimeError(f"enqueue answered {status}: {body[:200]!r}")

        start = time.perf_counter()
        await asyncio.gather(*(client(c) for c in range(CLIENTS)))
        return per * CLIENTS / (time.perf_counter() - start)
    finally:
        await pool.close()


# ------------------------------------------------------------ websocket latency


def _receiver(url: str, expected: int, conn: Connection) -> None:
    """Child process: subscribe, report ready, record (item id -> receipt, event time)."""
    from websockets.sync.client import connect

    received: dict[str, tuple[float, float]] = {}
    ws_url = url.replace("http://", "ws://") + "/ws"
    with connect(ws_url, max_size=None) as ws:
        ws.send(json.dumps({"type": "subscribe", "agents": [AGENT], "lastSeq": None}))
        while json.loads(ws.recv(timeout=START_TIMEOUT_S))["type"] != "subscribed":
            pass
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
    conn.send(received)


async def ws_latency(url: str, n: int, rate: float) -> dict[str, float]:
    """Latencies (ms) of ``n`` enqueues paced at ``rate`` per second, seen by a WebSocket."""
    parent, child = multiprocessing.Pipe()
    receiver = multiprocessing.get_context("spawn").Process(
        target=_receiver, args=(url, n, child), name="attn-bench-ws", daemon=True
    )
    receiver.start()
    try:
        if not parent.poll(START_TIMEOUT_S) or parent.recv() != "ready":
            raise RuntimeError("the WebSocket receiver did not subscribe in time")
        sent: dict[str, float] = {}
        pool = RawPool(url, CLIENTS)
        await pool.open()
        try:
            path = f"/api/agents/{AGENT}/mailbox"

            async def one(i: int) -> None:
                started = time.time()
                status, body = await pool.post(path, {
                    "sourceType": "system_event", "payload": {"content": f"latency {i}"},
                })
                if status != 202:
                    raise RuntimeError(f"enqueue answered {status}: {body[:200]!r}")
                sent[json.loads(body)["id"]] = started

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
        received: dict[str, tuple[float, float]] = await asyncio.to_thread(
            lambda: parent.recv() if parent.poll(RUN_TIMEOUT_S) else {}
        )
    finally:
        receiver.join(timeout=30)
        if receiver.is_alive():
            receiver.kill()
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    args = parser.parse_args()
    n_rate = 3_200 if args.quick else 9_600
    n_httpx = 640 if args.quick else 1_920
    n_latency = 1_000 if args.quick else 3_000
    rate = 1_000.0

    figures: dict[str, list[float]] = {}

    def keep(name: str, value: float) -> None:
        figures.setdefault(name, []).append(value)

    with tempfile.TemporaryDirectory(prefix="attn-server-bench-") as tmp:
        workdir = Path(tmp)
        for run in range(args.runs):
            keep("in_process", asyncio.run(in_process_rate(workdir, n_rate)))
            server = Server(workdir)
            try:
                _stop_agent(server.url)
                keep("raw", asyncio.run(raw_rate(server.url, n_rate)))
                httpx_rate, httpx_cpu = asyncio.run(http_rate(server.url, n_httpx))
                keep("http", httpx_rate)
                keep("http_cpu", httpx_cpu)
                latency = asyncio.run(ws_latency(server.url, n_latency, rate))
            finally:
                server.stop()
            for key, value in latency.items():
                keep(key, value)
            print(
                f"run {run + 1}/{args.runs}: in-process {figures['in_process'][-1]:,.0f}/s, "
                f"HTTP {figures['raw'][-1]:,.0f}/s (httpx {figures['http'][-1]:,.0f}/s), "
                f"WS p50 {latency['p50']:.2f} ms "
                f"p99 {latency['p99']:.2f} ms at {latency['rate']:,.0f} events/s",
                file=sys.stderr,
            )

    med = {key: statistics.median(values) for key, values in figures.items()}
    ratio = med["http"] / med["in_process"]
    raw_ratio = med["raw"] / med["in_process"]
    table = Table(title=f"attn server, medians of {args.runs} runs (loopback, SQLite)")
    for column in ("figure", "value", "target", "met"):
        table.add_column(column, justify="left" if column == "figure" else "right")
    table.add_row(f"in-process enqueue, {CLIENTS} producers", f"{med['in_process']:,.0f} items/s",
                  "", "")
    table.add_row(f"HTTP enqueue, {CLIENTS} keep-alive clients", f"{med['raw']:,.0f} req/s",
                  "", "")
    table.add_row("  HTTP / in-process", f"{raw_ratio:.2f}×", "≥ 0.25×", _yes(raw_ratio >= 0.25))
    table.add_row(f"for reference: {CLIENTS} httpx clients",
                  f"{med['http']:,.0f} req/s ({ratio:.2f}×)",
                  f"client CPU {med['http_cpu']:.0%} of a core", "")
    table.add_row("paced event rate", f"{med['rate']:,.0f} events/s", "1,000", "")
    table.add_row("WS enqueue→agent:mailbox p50", f"{med['p50']:.2f} ms", "", "")
    table.add_row("WS enqueue→agent:mailbox p99", f"{med['p99']:.2f} ms", "< 20 ms",
                  _yes(med["p99"] < 20))
    table.add_row("WS commit→receipt p50 / p99",
                  f"{med['fan_p50']:.2f} / {med['fan_p99']:.2f} ms", "", "")
    table.add_row("events not received", f"{med['missing']:.0f}", "0", _yes(med["missing"] == 0))
    Console().print(table)
    return 0


def _yes(ok: bool) -> str:
    return "yes" if ok else "NO"


if __name__ == "__main__":
    sys.exit(main())
