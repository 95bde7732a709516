"""The collector of a running server: a growing backlog is not walked whole again and again.

Each case runs in a fresh interpreter (a real subprocess), so the collector's
state of the test process does not matter and the test process keeps its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

#: Runs a runtime with the server's event hub on an SQLite file, optionally calls
#: freeze_startup_heap() as ``attn serve`` does once ready, then queues N items
#: (agent stopped) and prints how many collections of each generation ran.
SCRIPT = """
import asyncio, gc, json, sys

from attn import AgentConfig, Runtime
from attn.server.app import create_app
from attn.server.serve import freeze_startup_heap
from attn.store.sqlite import SQLiteStore


async def noop(item, focus):
    return None


async def main(path, n, settle):
    async with Runtime(SQLiteStore(path)) as runtime:
        agent = await runtime.add_agent("a", noop, AgentConfig(max_queued=1_000_000), start=False)
        app = create_app(runtime)
        if settle:
            freeze_startup_heap()
        else:
            gc.collect()
            gc.freeze()
        runs = [0, 0, 0]
        gc.callbacks.append(
            lambda phase, info: runs.__setitem__(info["generation"], runs[info["generation"]] + 1)
            if phase == "start" else None
        )
        async def produce(p):
            for i in range(n // 32):
                await agent.enqueue("system_event", {"content": f"item {p}.{i}"},
                                    metadata={"senderId": "test"})

        await asyncio.gather(*(produce(p) for p in range(32)))
        assert agent.mailbox.depth == n
        print(json.dumps({"runs": runs, "buffered": app.state.hub.published}))


asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3] == "settle"))
"""

ITEMS = 20_000


def _collections(tmp_path: Path, *, settle: bool) -> list[int]:
    """Collections of generations 0, 1 and 2 while ITEMS items are queued."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            SCRIPT,
            str(tmp_path / f"heap-{settle}.db"),
            str(ITEMS),
            "settle" if settle else "freeze-only",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["buffered"] == ITEMS  # every enqueue went through the hub's buffer
    runs: list[int] = result["runs"]
    return runs


def test_a_growing_backlog_runs_no_full_collection_after_freeze_startup_heap(
    tmp_path: Path,
) -> None:
    # Only a freeze (the server before COLLECTOR_THRESHOLDS): Python's default
    # thresholds walk the whole backlog again as it grows.
    default_young, _, default_full = _collections(tmp_path, settle=False)
    assert default_full >= 1
    # What attn serve does once ready: no full collection for the same backlog,
    # and far fewer young ones (each bounded by the 2,000 threshold).
    young, middle, full = _collections(tmp_path, settle=True)
    assert full == 0
    assert 0 < young * 2 < default_young
    # Middle collections every third young one: each walks at most 6,000 objects.
    assert middle <= young // 3 + 1
