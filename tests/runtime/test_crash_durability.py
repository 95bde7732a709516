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
                                  AgentConfig(capacity=100_000), start=False)
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
