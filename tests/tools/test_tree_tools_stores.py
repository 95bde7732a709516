"""The spawn-tree tools on the stores that outlive a restart (a SQLite file, PostgreSQL):
a spawned child, its last RESULT and its unread mail are there after a restart, and a
refused call leaves the database as it was (test_tree_tools.py covers the memory store).

Spec: seed 002 (durable unread mail; the tree is stored); acceptance A2A-17, A2A-20.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from attn import Runtime
from attn.store.base import Store
from attn.testing import FakeClock, settle
from tests.tools.treehelp import Unchanged, Worker, host_lead, refused, settled, spawned, tools


async def test_spawned_children_their_results_and_unread_mail_outlive_a_restart(
    make_store: Callable[[], Store], clock: FakeClock, backend: str
) -> None:
    if backend == "memory":
        pytest.skip("the memory store does not outlive its process")
    async with Runtime(make_store(), clock=clock) as first:
        await host_lead(first)
        assert await spawned(first, "ada", "research the market") == "/root/ada"
        await settled(first)
        async with Unchanged(first):
            taken = await tools(first).call("Agent", {"name": "ada", "task": "again"})
        refused(taken, "agent_exists", "exists already")
        await first.tree.stop("lead.ada")
        note = await tools(first).call("SendMessage", {"to": "/root/ada", "message": "later"})
        assert note == {"ok": True, "note": "queued: stopped: read when it is started again"}

    async with Runtime(make_store(), clock=clock) as second:
        second.tree.brain_factory = lambda node: Worker()
        await host_lead(second)  # hosts the stored tree again
        listing = await tools(second).call("ListAgents")
        assert [(a["path"], a["state"], a["unread"]) for a in listing["agents"]] == [
            ("/root", "idle", 0),
            ("/root/ada", "stopped", 1),
        ]
        seen = await tools(second).call("InspectAgent", {"path": "/root/ada"})
        assert seen["lastResult"]["outcome"] == "completed"
        assert seen["lastResult"]["preview"] == (
            "[result from /root/ada: completed]\ndone: research the market"
        )


async def test_a2a_17_restored_unread_mail_starts_no_turn_until_live_mail(
    make_store: Callable[[], Store], clock: FakeClock, backend: str
) -> None:
    if backend == "memory":
        pytest.skip("the memory store does not outlive its process")
    hold = asyncio.Event()
    async with Runtime(make_store(), clock=clock) as first:
        await host_lead(first, child_hold=hold)
        await spawned(first, "ada", "first job")
        await settle()
        busy = await tools(first).call("SendMessage", {"to": "/root/ada", "message": "second"})
        assert busy == {"ok": True}  # steered into the running turn, which never ends here
    # Closed mid-turn: the turn's items are requeued, unread.

    restored: list[Worker] = []

    def rebuild(node: object) -> Worker:
        restored.append(Worker())
        return restored[-1]

    async with Runtime(make_store(), clock=clock) as second:
        second.tree.brain_factory = rebuild
        await host_lead(second)
        await settled(second)  # returns: nothing spins, nothing starts
        [ada] = restored
        assert ada.items == []
        listing = await tools(second).call("ListAgents")
        assert [(a["path"], a["state"]) for a in listing["agents"]] == [
            ("/root", "idle"),
            ("/root/ada", "idle"),
        ]
        assert listing["agents"][1]["unread"] >= 1
        await tools(second).call("SendMessage", {"to": "/root/ada", "message": "third"})
        await settled(second)
        # One turn reads the restored mail first, then the live one.
        read = "\n\n---\n\n".join(i.content for i in ada.items)
        assert read.index("first job") < read.index("third")
        assert "second" in read
