"""The time subsystem's figures: the wakeup sweep with 100,000 scheduled wakeups, and
the idle cost of 10,000 agents holding heartbeats.

Run: ``.venv/bin/python benchmarks/time_bench.py [--wakeups 100000] [--agents 10000]
[--idle-s 5] [--postgres URL]``

What is measured:

* **scheduler**: the runtime's one heap. Time to schedule every wakeup, memory
  per entry (tracemalloc), the cost of a timer fire with nothing due, and per
  wakeup popped when 1,000 are due.
* **store claim** (memory, SQLite, optionally PostgreSQL): ``claim_due_callbacks``
  over a table of 100,000 pending wakeups, with nothing due and with a batch
  of 500 due (one transaction each).
* **end to end** (SQLite, fake clock): a runtime restores 100,000 stored wakeups
  on start, then its timer fires with 1,000 due: claim, enqueue one system_event
  each, delete, all committed.
* **idle**: 10,000 agents with heartbeats on the real clock, doing nothing for
  ``--idle-s`` seconds: loop timers, tasks, CPU used, memory.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psutil
from rich.console import Console
from rich.table import Table

from attn import AgentConfig, Focus, MailboxItem, Runtime
from attn.config import TimeConfig
from attn.ids import new_id
from attn.models import CallbackType, DeliveryMode, PendingCallback
from attn.store.base import InsertCallback, Store
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeClock, MemoryStore
from attn.time.scheduler import Scheduler

T0 = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)
Row = tuple[str, str, str]


async def _noop(item: MailboxItem, focus: Focus) -> None:
    return None


def _wakeups(agent: str, n: int, due_now: int) -> list[PendingCallback]:
    """``n`` wakeups of ``agent``: the first ``due_now`` due at T0, the rest spread over a year."""
    out = []
    for i in range(n):
        due = T0 if i < due_now else T0 + timedelta(seconds=60 + i * 300)
        out.append(
            PendingCallback(
                id=new_id("cb"),
                agent_id=agent,
                type=CallbackType.WAKEUP,
                delivery_mode=DeliveryMode.MAILBOX,
                registered_at=T0 - timedelta(days=1),
                due_at=due,
                note=f"wakeup {i}",
            )
        )
    return out


async def _fill(store: Store, callbacks: list[PendingCallback]) -> None:
    for start in range(0, len(callbacks), 2000):
        await store.write([InsertCallback(c) for c in callbacks[start : start + 2000]])


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} µs"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.2f} ms"


# ------------------------------------------------------------------------- scheduler


async def bench_scheduler(n: int) -> list[Row]:
    clock = FakeClock(T0)
    fired: list[int] = []
    scheduler = Scheduler(clock, lambda: fired.append(1), max_delay_s=3600)
    base = T0.timestamp()
    keys = [("wakeup", f"cb_{i:012d}") for i in range(n)]
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for i, key in enumerate(keys):
        scheduler.schedule(key, base + 60 + i * 0.5)
    size = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    scheduler = Scheduler(clock, lambda: fired.append(1), max_delay_s=3600)
    start = time.perf_counter()
    for i, key in enumerate(keys):
        scheduler.schedule(key, base + 60 + i * 0.5)
    build_s = time.perf_counter() - start
    idle = []
    for _ in range(10_000):
        t = time.perf_counter()
        scheduler.pop_due(base)  # a timer fire with nothing due
        idle.append(time.perf_counter() - t)
    t = time.perf_counter()
    due = scheduler.pop_due(base + 60 + 999 * 0.5)
    pop_s = time.perf_counter() - t
    assert len(due) == 1000
    return [
        ("scheduler", f"schedule {n:,} wakeups", f"{_ms(build_s)} ({_us(build_s / n)} each)"),
        (
            "scheduler",
            f"memory of {n:,} entries",
            f"{size / 1e6:,.1f} MB ({size / n:,.0f} B per entry)",
        ),
        ("scheduler", "timer fire, nothing due", _us(statistics.median(idle))),
        ("scheduler", "pop 1,000 due", f"{_ms(pop_s)} ({_us(pop_s / 1000)} per wakeup)"),
        ("scheduler", "timers armed on the clock", str(clock.pending() - 1)),
    ]


# ----------------------------------------------------------------------- store claims


async def bench_claims(name: str, store: Store, n: int) -> list[Row]:
    await store.open()
    try:
        await _fill(store, _wakeups("alice", n, due_now=2500))
        idle = []
        for _ in range(30):
            t = time.perf_counter()
            got = await store.claim_due_callbacks(
                T0 - timedelta(seconds=1), "rt_bench", agent_ids=["alice"], limit=500
            )
            idle.append(time.perf_counter() - t)
            assert got == []
        batches = []
        for _ in range(5):
            t = time.perf_counter()
            got = await store.claim_due_callbacks(
                T0,
                "rt_bench",
                agent_ids=["alice"],
                limit=500,
                stale_before=T0 - timedelta(minutes=5),
            )
            batches.append(time.perf_counter() - t)
            assert len(got) == 500
        per = statistics.median(batches)
        return [
            (f"claim ({name})", f"nothing due, {n:,} pending", _ms(statistics.median(idle))),
            (f"claim ({name})", "500 due, one transaction", f"{_ms(per)} ({_us(per / 500)} each)"),
        ]
    finally:
        await store.close()


# ------------------------------------------------------------------------- end to end


async def bench_end_to_end(workdir: Path, n: int) -> list[Row]:
    db = workdir / "e2e.db"
    seed = SQLiteStore(db)
    await seed.open()
    await _fill(seed, _wakeups("alice", n, due_now=0))
    await seed.close()

    clock = FakeClock(T0)
    runtime = Runtime(SQLiteStore(db), clock=clock)
    await runtime.start()
    try:
        gc.collect()
        rss0 = psutil.Process().memory_info().rss
        t = time.perf_counter()
        await runtime.add_agent("alice", _noop, AgentConfig(max_queued=1_000_000), start=False)
        restore_s = time.perf_counter() - t
        rss = psutil.Process().memory_info().rss - rss0
        assert len(runtime.time.scheduler) == n
        # Wakeup i is due at 60 + 300 i s: advancing 300,000 s makes the first 1,000 due.
        target = 60 + 999 * 300
        t = time.perf_counter()
        await clock.advance(target)
        await runtime.time.drain()
        sweep_s = time.perf_counter() - t
        fired = runtime.time.wakeups.fired
        depth = runtime.get_agent("alice").depth
        return [
            (
                "end to end (SQLite)",
                f"restore {n:,} wakeups on start",
                f"{_ms(restore_s)} (+{rss / 1e6:,.0f} MB RSS)",
            ),
            (
                "end to end (SQLite)",
                f"sweep firing {fired:,} (claim, enqueue, delete)",
                f"{_ms(sweep_s)} ({_us(sweep_s / max(fired, 1))} per wakeup)",
            ),
            (
                "end to end (SQLite)",
                "items queued / timer fires / sweeps",
                f"{depth:,} / {runtime.time.scheduler.fired:,} / {runtime.time.sweeps:,}",
            ),
        ]
    finally:
        await runtime.close()


# ------------------------------------------------------------------------------- idle


def _cpu_s(process: psutil.Process) -> float:
    times = process.cpu_times()
    return float(times.user + times.system)


async def _idle_cpu(process: psutil.Process, idle_s: float) -> tuple[float, float]:
    """(CPU seconds used, wall seconds) over ``idle_s`` seconds of waiting."""
    cpu0, wall0 = _cpu_s(process), time.perf_counter()
    await asyncio.sleep(idle_s)
    return _cpu_s(process) - cpu0, time.perf_counter() - wall0


async def bench_idle(agents: int, idle_s: float) -> list[Row]:
    process = psutil.Process()
    base_cpu, base_wall = await _idle_cpu(process, idle_s)
    runtime = Runtime(MemoryStore(), time=TimeConfig(heartbeats=True))
    await runtime.start()
    try:
        gc.collect()
        rss0 = process.memory_info().rss
        t = time.perf_counter()
        for i in range(agents):
            await runtime.add_agent(f"agent-{i:05d}", _noop)
        add_s = time.perf_counter() - t
        rss = process.memory_info().rss - rss0
        loop = asyncio.get_running_loop()
        await asyncio.sleep(0)
        timers = len(getattr(loop, "_scheduled", []))
        tasks = len(asyncio.all_tasks()) - 1
        # Let the one-off work of adding agents settle (collection of its garbage)
        # before measuring: the same happens without heartbeats.
        gc.collect()
        await asyncio.sleep(1.0)
        fires0 = runtime.time.scheduler.fired
        cpu, wall = await _idle_cpu(process, idle_s)
        fires = runtime.time.scheduler.fired - fires0
        return [
            (
                "idle",
                f"baseline: empty process, {base_wall:.1f} s idle",
                f"{base_cpu * 1e3:.1f} ms CPU",
            ),
            ("idle", f"{agents:,} agents with heartbeats added", _ms(add_s)),
            (
                "idle",
                "heartbeat entries / loop timers / tasks",
                f"{len(runtime.time.scheduler):,} / {timers} / {tasks}",
            ),
            (
                "idle",
                f"CPU over {wall:.1f} s idle (after 1 s to settle)",
                f"{cpu * 1e3:.1f} ms ({100 * cpu / wall:.2f} % of one core), {fires} timer fires",
            ),
            (
                "idle",
                "memory",
                f"+{rss / 1e6:,.0f} MB RSS ({rss / agents / 1e3:,.1f} kB per agent)",
            ),
        ]
    finally:
        await runtime.close()


# ------------------------------------------------------------------------------- main


async def run(args: argparse.Namespace) -> list[Row]:
    rows: list[Row] = []
    rows += await bench_idle(args.agents, args.idle_s)  # first: no threads of earlier parts
    if args.only_idle:
        return rows
    rows += await bench_scheduler(args.wakeups)
    with tempfile.TemporaryDirectory(prefix="attn-time-bench-") as tmp:
        workdir = Path(tmp)
        rows += await bench_claims("memory", MemoryStore(), args.wakeups)
        rows += await bench_claims("SQLite", SQLiteStore(workdir / "claims.db"), args.wakeups)
        if args.postgres:
            from attn.store import open_store

            rows += await bench_claims("PostgreSQL", open_store(args.postgres), args.wakeups)
        rows += await bench_end_to_end(workdir, args.wakeups)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--wakeups", type=int, default=100_000)
    parser.add_argument("--agents", type=int, default=10_000)
    parser.add_argument("--idle-s", type=float, default=5.0)
    parser.add_argument("--only-idle", action="store_true", help="measure the idle part only")
    parser.add_argument(
        "--postgres",
        metavar="URL",
        help="also claim on PostgreSQL (an empty schema: the table is filled)",
    )
    args = parser.parse_args()
    rows = asyncio.run(run(args))
    table = Table(title="attn time: wakeup sweep and idle heartbeats")
    for column in ("part", "measure", "result"):
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    console = Console()
    console.print(table)
    console.print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
