"""Durability under SIGKILL (invariant 2; acceptance CORE-10): every acknowledged enqueue survives.

A child process enqueues 1,000 items with 50 concurrent producers on a SQLite
file and prints each id after its enqueue returned. The parent kills it with
SIGKILL after a random number of acknowledgements, 20 times, then checks that
every acknowledged item is stored, and that nothing is stored twice.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from attn.store.base import ItemQuery
from attn.store.sqlite import SQLiteStore

CHILD = r"""
import asyncio, sys
from attn import AgentConfig, Runtime
from attn.store.sqlite import SQLiteStore

async def main(path: str, run: int) -> None:
    async with Runtime(SQLiteStore(path)) as rt:
        agent = await rt.add_agent("crash", lambda item, focus: None,
                                  AgentConfig(max_queued=100_000), start=False)
        todo = iter(range(1000))
        print("ready", flush=True)

        async def producer() -> None:
            for i in todo:
                item_id = await agent.enqueue(
                    "a2a_message", {"content": f"{run}:{i}"}, idempotency_key=f"{run}:{i}")
                sys.stdout.write(item_id + "\n")
                sys.stdout.flush()

        await asyncio.gather(*(producer() for _ in range(50)))
        print("done", flush=True)

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


def _run_and_kill(path: Path, run: int, kill_after: int) -> list[str]:
    acked: list[str] = []
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), str(run)],
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    ) as child:
        assert child.stdout is not None
        try:
            assert child.stdout.readline().strip() == "ready"
            while len(acked) < kill_after:
                line = child.stdout.readline()
                if not line or line.strip() == "done":
                    break
                acked.append(line.strip())
            child.send_signal(signal.SIGKILL)
        finally:
            child.wait(timeout=30)
    return acked


@pytest.mark.slow
@pytest.mark.timeout(300)
async def test_acknowledged_enqueues_survive_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    rng = random.Random(20261130)
    acked_all: list[str] = []
    for run in range(20):
        kill_after = rng.randrange(0, 1000)
        acked = await asyncio.to_thread(_run_and_kill, path, run, kill_after)
        acked_all.extend(acked)
    store = SQLiteStore(path)
    await store.open()
    try:
        stored = await store.find_items(ItemQuery("crash", limit=1_000_000))
    finally:
        await store.close()
    stored_ids = {item.id for item in stored}
    missing = [item_id for item_id in acked_all if item_id not in stored_ids]
    assert missing == [], f"{len(missing)} acknowledged items lost"
    contents = Counter(item.content for item in stored)
    assert [c for c, n in contents.items() if n > 1] == []
    assert len(acked_all) > 0


BRAIN_CHILD = r"""
import asyncio, sys
from attn import AgentConfig, Runtime
from attn.store.sqlite import SQLiteStore

async def brain(item, focus):
    # The brain's first step: report, then do "side effects" forever.
    print("started", item.id, item.attempt, item.redelivered, flush=True)
    await asyncio.Event().wait()

async def main(path: str) -> None:
    async with Runtime(SQLiteStore(path)) as rt:
        agent = await rt.add_agent("crash", brain, AgentConfig())
        await agent.enqueue("a2a_message", {"content": "do the side effect"})
        await asyncio.Event().wait()

asyncio.run(main(sys.argv[1]))
"""


def _kill_at_first_brain_step(path: Path) -> list[str]:
    with subprocess.Popen(
        [sys.executable, "-c", BRAIN_CHILD, str(path)],
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    ) as child:
        assert child.stdout is not None
        try:
            line = child.stdout.readline().split()
            # SIGKILL the moment the brain has taken its first step.
            child.send_signal(signal.SIGKILL)
        finally:
            child.wait(timeout=30)
    return line


@pytest.mark.timeout(120)
async def test_core_53_claim_is_durable_before_the_brain_starts(tmp_path: Path) -> None:
    """B2: a SIGKILL at the brain's first step finds the claim (and its pick) on disk,
    so the restart redelivers the item with attempt 2 and the redelivered flag."""
    from attn import Runtime

    path = tmp_path / "claim.db"
    line = await asyncio.to_thread(_kill_at_first_brain_step, path)
    assert line[0] == "started" and line[2:] == ["1", "False"]
    item_id = line[1]
    store = SQLiteStore(path)
    await store.open()
    try:
        stored = await store.get_item(item_id)
        decisions = await store.find_decisions("crash", item_id)
    finally:
        await store.close()
    assert stored is not None
    assert (stored.status, stored.attempt) == ("processing", 1)
    assert [str(d.decision_type) for d in decisions] == ["pick"]

    seen: list[tuple[str, int, bool]] = []
    done = asyncio.Event()

    async def brain(item, focus):  # type: ignore[no-untyped-def]
        seen.append((item.id, item.attempt, item.redelivered))
        done.set()

    async with Runtime(SQLiteStore(path)) as rt:
        await rt.add_agent("crash", brain)
        await asyncio.wait_for(done.wait(), 30)
    assert seen == [(item_id, 2, True)]
