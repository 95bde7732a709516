"""The phases of ``mcp_bench.py``, each against a running server at ``url``.

Every loop is bounded in count, and every call in time (``CALL_TIMEOUT_S`` of
:mod:`mcp_wire`). Times are ``time.perf_counter`` differences in one process,
in seconds; CPU figures are the client's own (``time.process_time``) and the
server's (``/proc/PID/stat``), per call.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

from mcp_server import CONCURRENT_TO, MERGER, RECIPIENT, SENDER, WAITER, sender_names
from mcp_wire import RawMCP


class Caller(Protocol):
    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]: ...


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system, all threads) process ``pid`` used so far (Linux; else NaN)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], pct: float) -> float:
    """The ``pct`` percentile of ``values`` (nearest rank); NaN for none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))]


def text(i: int, tag: str) -> str:
    """A message of about the size of a real agent's DM (~200 characters)."""
    return f"[{tag} {i}] {_NOTE}"


_NOTE = (
    "Ran the suite on the branch; two failures left in test_store, both in the retry"
    " path. Looking at the second now, will send the fix for review in a few minutes."
)


class Timed:
    """Per-call wall times and the CPU both sides spent, over any number of chunks."""

    def __init__(self, server_pid: int) -> None:
        self.pid = server_pid
        self.times: list[float] = []
        self.client_cpu = self.server_cpu = 0.0

    async def run(self, calls: int, one: Callable[[int], Awaitable[None]]) -> None:
        """Time ``calls`` sequential calls of ``one(i)``."""
        cpu, server = time.process_time(), cpu_s(self.pid)
        for i in range(calls):
            start = time.perf_counter()
            await one(i)
            self.times.append(time.perf_counter() - start)
        self.client_cpu += time.process_time() - cpu
        self.server_cpu += cpu_s(self.pid) - server

    def figures(self) -> dict[str, float]:
        n = max(1, len(self.times))
        return {
            "p50": percentile(self.times, 50) * 1e3,
            "p99": percentile(self.times, 99) * 1e3,
            "mean": sum(self.times) / n * 1e3,
            "client_cpu": self.client_cpu / n * 1e3,
            "server_cpu": self.server_cpu / n * 1e3,
        }


def checked(answer: tuple[bool, dict[str, Any]], what: str) -> dict[str, Any]:
    """The body of a successful tool answer; RuntimeError for a refusal."""
    error, body = answer
    if error:
        raise RuntimeError(f"{what} refused: {json.dumps(body)[:300]}")
    return body


async def sends(clients: dict[str, Caller], server_pid: int, n: int, rounds: int) -> dict[str, Any]:
    """Sequential ``agent_send_message`` calls from :data:`SENDER` to :data:`RECIPIENT`.

    Each client sends ``n`` messages in ``rounds`` chunks that alternate with the
    other clients' chunks, so a busy moment of the machine falls on all of them.
    """
    timed = {name: Timed(server_pid) for name in clients}
    per = max(1, n // rounds)
    for r in range(rounds):
        for name, client in clients.items():

            async def one(i: int, client: Caller = client, tag: str = f"{name} {r}") -> None:
                body = checked(
                    await client.call(
                        "agent_send_message", {"to": RECIPIENT, "message": text(i, tag)}
                    ),
                    "agent_send_message",
                )
                assert body["deliveries"][0]["outcome"] != "refused", body

            await timed[name].run(per, one)
    return {name: t.figures() for name, t in timed.items()}


def classify(error: str) -> str:
    """``lock`` for an answer or exception that names a lock (SQLite's "database is
    locked", a lock timeout), else ``timeout`` or ``other``."""
    lowered = error.lower()
    if "lock" in lowered:
        return "lock"
    return "timeout" if "timeout" in lowered or "timed out" in lowered else "other"


async def concurrent_sends(
    url: str, clients: int, per_client: int, server_pid: int, *, make: Any = None
) -> dict[str, Any]:
    """``clients`` clients at once, each its own agent on its own connection, each
    sending ``per_client`` messages to :data:`CONCURRENT_TO` one after another.

    Every refusal and every exception is counted (by :func:`classify`); a client
    that fails goes on with its next send on a new connection.
    """
    names = sender_names(clients)
    connect = make or (lambda agent: RawMCP(url, agent).open())
    conns = [await connect(name) for name in names]
    errors: Counter[str] = Counter()
    samples: list[str] = []
    times: list[float] = []

    async def client(c: int) -> None:
        for i in range(per_client):
            start = time.perf_counter()
            try:
                error, body = await conns[c].call(
                    "agent_send_message", {"to": CONCURRENT_TO, "message": text(i, names[c])}
                )
                problem = json.dumps(body)[:300] if error else None
            except Exception as exc:  # every failure counts; the client goes on
                problem = f"{type(exc).__name__}: {exc}"[:300]
                if isinstance(conns[c], RawMCP):
                    await conns[c].close()
                    conns[c] = await connect(names[c])
            times.append(time.perf_counter() - start)
            if problem is not None:
                errors[classify(problem)] += 1
                samples.append(problem)

    started, cpu, server = time.perf_counter(), time.process_time(), cpu_s(server_pid)
    await asyncio.gather(*(client(c) for c in range(clients)))
    elapsed = time.perf_counter() - started
    total = clients * per_client
    for conn in conns:
        if isinstance(conn, RawMCP):
            await conn.close()
    return {
        "rate": total / elapsed,
        "errors": sum(errors.values()),
        "lock_errors": errors["lock"],
        "error_kinds": dict(errors),
        "error_samples": samples[:3],
        "p50": percentile(times, 50) * 1e3,
        "p99": percentile(times, 99) * 1e3,
        "client_cpu_share": (time.process_time() - cpu) / elapsed,
        "server_cpu": (cpu_s(server_pid) - server) / total * 1e3,
    }


async def rest_enqueue(
    conn: tuple[asyncio.StreamReader, asyncio.StreamWriter], host: str, agent: str, content: str
) -> None:
    """``POST /api/agents/{agent}/mailbox`` on a raw keep-alive connection; 202 or RuntimeError."""
    reader, writer = conn
    body = json.dumps(
        {
            "sourceType": "system_event",
            "payload": {"content": content},
            "metadata": {"senderId": "bench"},
        }
    ).encode()
    writer.write(
        f"POST /api/agents/{agent}/mailbox HTTP/1.1\r\nHost: {host}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    data = await reader.readexactly(length)
    if not head.startswith(b"HTTP/1.1 202"):
        raise RuntimeError(f"enqueue answered {head[:40]!r}: {data[:200]!r}")


async def wait_wakeups(
    url: str, waiter: Caller, n: int, *, via: str, after: int
) -> tuple[list[float], int]:
    """Seconds from the start of an enqueue for :data:`WAITER` to its client's
    ``wait_for_mail`` returning with it, ``n`` times; and the last seq it saw.

    The wait is known to be active when its first progress notification
    arrives (sent once it found no mail). Each wait asks for the items after
    the last one it saw (``after_seq``, from ``after`` on: nothing of
    :data:`WAITER` may be stored after it), so every enqueue wakes exactly one
    wait. ``via`` is ``rest`` (``POST /api/agents/w/mailbox``) or ``mcp``
    (``agent_send_message`` from :data:`SENDER`, on its own connection).
    """
    host = url.removeprefix("http://")
    rest = await asyncio.open_connection(*host.rsplit(":", 1)) if via == "rest" else None
    sender = await RawMCP(url, SENDER).open() if via == "mcp" else None
    last = after
    found: list[float] = []
    try:
        for i in range(n):
            active = asyncio.Event()
            call = waiter.call(
                "wait_for_mail", {"timeout_s": 20, "after_seq": last}, on_progress=active.set
            )
            waiting = asyncio.ensure_future(call)
            await asyncio.wait_for(active.wait(), 20)
            start = time.perf_counter()
            if rest is not None:
                await rest_enqueue(rest, host, WAITER, text(i, "wake"))
            else:
                assert sender is not None
                checked(
                    await sender.call(
                        "agent_send_message", {"to": WAITER, "message": text(i, "wake")}
                    ),
                    "agent_send_message",
                )
            body = checked(await waiting, "wait_for_mail")
            found.append(time.perf_counter() - start)
            if body["status"] != "mail":
                raise RuntimeError(f"wait_for_mail missed the enqueue: {json.dumps(body)[:300]}")
            last = body["lastSeq"]
    finally:
        if rest is not None:
            rest[1].close()
        if sender is not None:
            await sender.close()
    return found, last


async def fill(url: str, agent: str, target: int, *, connections: int = 16) -> int:
    """Enqueue over REST until ``agent`` has ``target`` queued items; its depth then."""
    reader = await RawMCP(url, agent).open()
    try:
        depth = checked(await reader.call("check_mailbox", {}), "check_mailbox")["depth"]
        missing = max(0, target - depth)
        host = url.removeprefix("http://")
        conns = [await asyncio.open_connection(*host.rsplit(":", 1)) for _ in range(connections)]

        async def enqueue(c: int) -> None:
            for i in range(c, missing, connections):
                await rest_enqueue(conns[c], host, agent, text(i, "fill"))

        await asyncio.gather(*(enqueue(c) for c in range(connections)))
        for conn in conns:
            conn[1].close()
        return int(checked(await reader.call("check_mailbox", {}), "check_mailbox")["depth"])
    finally:
        await reader.close()


async def peeks(clients: dict[str, Caller], server_pid: int, n: int) -> dict[str, Any]:
    """``peek_inbox`` (the queue in claim order, its default limit of 50) ``n`` times per client."""
    timed = {name: Timed(server_pid) for name in clients}
    for name, client in clients.items():

        async def one(i: int, client: Caller = client) -> None:
            body = checked(await client.call("peek_inbox", {}), "peek_inbox")
            assert len(body["items"]) == 50 and body["more"], body

        await timed[name].run(n, one)
    return {name: t.figures() for name, t in timed.items()}


async def merged_sends(client: Caller, server_pid: int, n: int) -> dict[str, float]:
    """``n`` sequential sends to :data:`MERGER` (dedup on: each merges into one queued
    item): the mean send of the first and of the last tenth, in ms."""
    timed = Timed(server_pid)

    async def one(i: int) -> None:
        checked(
            await client.call("agent_send_message", {"to": MERGER, "message": text(i, "merge")}),
            "agent_send_message",
        )

    await timed.run(n, one)
    tenth = max(1, n // 10)
    return {
        "first": sum(timed.times[:tenth]) / tenth * 1e3,
        "last": sum(timed.times[-tenth:]) / tenth * 1e3,
    }


__all__ = [
    "Timed",
    "concurrent_sends",
    "cpu_s",
    "fill",
    "merged_sends",
    "peeks",
    "percentile",
    "sends",
    "wait_wakeups",
]
