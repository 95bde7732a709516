"""Acceptance A2A-10, 11, 13, 16, 17 over the Python API (``runtime.tree``), on every store:
waking an idle retained agent, steering a busy one, self-mail, late mail, marks, restarts.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from attn import Runtime
from attn.config import AgentConfig
from attn.models import MAIL_TYPE, DeliveryOutcome, ItemStatus
from attn.store.base import Store
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeClock, eventually
from tests.tree.conftest import FAST, Worker, items_of, settled, tree_of


async def test_a2a_10_mail_to_an_idle_agent_starts_its_turn_with_unread_mail_first(
    rt: Runtime,
) -> None:
    ada = Worker()
    ids = await tree_of(rt, ada=ada)

    delivery = await rt.tree.send("lead", "/root/ada", "first task")
    await settled(rt)

    assert delivery.outcome == DeliveryOutcome.STARTED
    assert delivery.recipient == ids["ada"]
    assert ada.turns == [["first task"]]
    mail = await items_of(rt, ids["ada"], MAIL_TYPE)
    assert [m.status for m in mail] == [ItemStatus.COMPLETED]  # read: no longer unread


async def test_a2a_10_mail_to_a_busy_agent_is_read_at_its_next_safe_boundary(
    rt: Runtime,
) -> None:
    ada = Worker()
    ada.hold = asyncio.Event()
    ids = await tree_of(rt, ada=ada)
    await rt.tree.send("lead", "/root/ada", "long task")
    await eventually(lambda: ada.started.is_set())

    first = await rt.tree.send("lead", "/root/ada", "steer one")
    second = await rt.tree.send("lead", "/root/ada", "steer two")
    ada.hold.set()
    await settled(rt)

    assert [first.outcome, second.outcome] == [DeliveryOutcome.STEERED] * 2
    assert len(ada.turns) == 1  # no second turn: the mail joined the running one
    assert ada.turns[0][0] == "long task"
    merged = "\n".join(ada.turns[0][1:])
    assert merged.index("steer one") < merged.index("steer two")  # FIFO
    assert rt.tree.gates[ids["ada"]].unread() == 0


async def test_a2a_11_mail_to_yourself_is_queued_and_starts_no_turn(rt: Runtime) -> None:
    ada = Worker()
    ids = await tree_of(rt, ada=ada)

    delivery = await rt.tree.send(ids["ada"], "/root/ada", "note to self")
    await settled(rt)

    assert delivery.outcome == DeliveryOutcome.QUEUED
    assert delivery.reason is not None and "self" in delivery.reason
    assert ada.turns == []
    assert [m.status for m in await items_of(rt, ids["ada"], MAIL_TYPE)] == [ItemStatus.QUEUED]

    await rt.tree.send("lead", "/root/ada", "now work")  # live mail: the note is read first
    await settled(rt)
    assert len(ada.turns) == 1
    read = "\n".join(ada.turns[0])
    assert read.index("note to self") < read.index("now work")


async def test_a2a_13_two_messages_to_an_idle_agent_start_one_turn_that_reads_both(
    rt: Runtime,
) -> None:
    ada = Worker()
    ada.hold = asyncio.Event()  # its first model request waits until both are sent
    await tree_of(rt, ada=ada)

    await asyncio.gather(
        rt.tree.send("lead", "/root/ada", "message one"),
        rt.tree.send("lead", "/root/ada", "message two"),
    )
    ada.hold.set()
    await settled(rt)

    assert len(ada.turns) == 1
    read = "\n".join(ada.turns[0])
    assert read.index("message one") < read.index("message two")


async def test_a2a_13_mail_after_the_last_sample_wakes_the_agent_after_settlement(
    rt: Runtime,
) -> None:
    """The race the seed names: mail that arrives after the turn's last model request
    (its last safe boundary) but before the turn settles is never stranded."""
    ada = Worker(boundaries=0)  # no safe boundary after the hold: like a final answer
    ada.hold = asyncio.Event()
    ids = await tree_of(rt, ada=ada)
    await rt.tree.send("lead", "/root/ada", "task")
    await eventually(lambda: ada.started.is_set())

    late = await rt.tree.send("lead", "/root/ada", "late mail")
    ada.hold.set()
    await settled(rt)

    assert late.outcome == DeliveryOutcome.STEERED  # it was busy when the mail came
    assert len(ada.turns) == 2 and ada.turns[1] == ["late mail"]
    assert rt.tree.gates[ids["ada"]].unread() == 0


async def test_a2a_16_interrupt_clears_wake_marks_and_later_mail_wakes_again(
    rt: Runtime,
) -> None:
    ada, ben = Worker(), Worker()
    ada.hold = asyncio.Event()
    ids = await tree_of(rt, ada=ada, ben=ben)
    await rt.tree.make_root("lead", capacity=1)
    await rt.tree.send("lead", "/root/ada", "hold the slot")
    await eventually(lambda: ada.started.is_set())
    waiting = await rt.tree.send("lead", "/root/ben", "wait for a slot")
    assert waiting.outcome == DeliveryOutcome.QUEUED
    assert "at capacity" in (waiting.reason or "")

    await rt.tree.interrupt(ids["ben"], "not now")  # idle, waiting for capacity
    ada.hold.set()
    await settled(rt)
    assert ben.turns == []  # its mark is gone: it did not start when the slot freed
    assert rt.tree.gates[ids["ben"]].unread() == 1  # the mail is kept

    await rt.tree.send("lead", "/root/ben", "now go")
    await settled(rt)
    assert len(ben.turns) == 1
    assert "wait for a slot" in ben.turns[0][0]


async def test_a2a_16_a_turn_that_errors_clears_its_marks(rt: Runtime) -> None:
    ada = Worker(boundaries=0)
    ada.hold = asyncio.Event()
    ada.fail = True
    ids = await tree_of(rt, ada=ada)
    await rt.tree.send("lead", "/root/ada", "will fail")
    await eventually(lambda: ada.started.is_set())
    await rt.tree.send("lead", "/root/ada", "arrives during the failing turn")
    ada.hold.set()
    await settled(rt)

    assert len(ada.turns) == 1  # no automatic retry, no wake for the mail it left
    # The failed mail and the mail it left stay unread, without a wake mark.
    assert rt.tree.gates[ids["ada"]].unread() == 2
    assert not rt.tree.gates[ids["ada"]].has_waking()
    ada.fail = False
    await rt.tree.send("lead", "/root/ada", "try again")
    await settled(rt)
    assert len(ada.turns) == 2


async def test_a2a_17_after_a_restart_unread_mail_waits_in_order_until_live_mail(
    backend: str, make_store: Callable[[], Store], clock: FakeClock
) -> None:
    if backend == "memory":
        pytest.skip("the memory store keeps nothing across a restart")
    busy = Worker(boundaries=0)
    busy.hold = asyncio.Event()
    async with Runtime(make_store(), clock=clock) as rt:
        await rt.add_agent("lead", Worker(), FAST)
        node = await rt.tree.spawn("lead", "ada", brain=busy, config=FAST)
        await rt.tree.send("lead", "/root/ada", "one")
        await eventually(lambda: busy.started.is_set())
        for text in ("two", "three"):
            await rt.tree.send("lead", "/root/ada", text)
    # closed mid-turn: "one" goes back to queued, "two" and "three" were never read

    ada = Worker()
    async with Runtime(make_store(), clock=clock) as rt:
        rt.tree.brain_factory = lambda n: ada if n.id == node.id else None
        await rt.add_agent("lead", Worker(), FAST)
        assert rt.tree.nodes[node.id].path == "/root/ada"  # the tree is hosted again
        await settled(rt)
        assert ada.turns == []  # no turn started by itself
        assert rt.tree.gates[node.id].unread() == 3

        await rt.tree.send("lead", "/root/ada", "four")  # live mail wakes it
        await settled(rt)
        assert len(ada.turns) == 1
        read = "\n".join(ada.turns[0])
        positions = [read.index(t) for t in ("one", "two", "three", "four")]
        assert positions == sorted(positions)


async def test_a2a_17_an_explicit_start_delivers_restored_mail(
    backend: str, make_store: Callable[[], Store], clock: FakeClock
) -> None:
    if backend == "memory":
        pytest.skip("the memory store keeps nothing across a restart")
    async with Runtime(make_store(), clock=clock) as rt:
        await rt.add_agent("lead", Worker(), FAST)
        node = await rt.tree.spawn("lead", "ada", brain=Worker(), config=FAST)
        await rt.tree.stop(node.id)
        await rt.tree.send("lead", "/root/ada", "kept")

    ada = Worker()
    async with Runtime(make_store(), clock=clock) as rt:
        rt.tree.brain_factory = lambda n: ada
        await rt.add_agent("lead", Worker(), FAST)
        await settled(rt)
        assert ada.turns == [] and not rt.find_agent(node.id).running  # still stopped
        assert await rt.tree.start(node.id) == 1
        await settled(rt)
        assert ada.turns == [["kept"]]


async def test_a2a_17_on_mail_and_always_agents_coexist_across_a_restart(
    backend: str, make_store: Callable[[], Store], clock: FakeClock
) -> None:
    if backend == "memory":
        pytest.skip("the memory store keeps nothing across a restart")
    on_mail = AgentConfig(coalesce_window_ms=0, wake="on_mail")
    async with Runtime(make_store(), clock=clock) as rt:
        for name, config in (("retained", on_mail), ("attentive", FAST)):
            agent = await rt.add_agent(name, Worker(), config)
            await agent.stop()
            await agent.enqueue("agent_mail", {"content": "left for later"})

    retained, attentive = Worker(), Worker()
    async with Runtime(make_store(), clock=clock) as rt:
        await rt.add_agent("retained", retained, on_mail)
        await rt.add_agent("attentive", attentive, FAST)
        await settled(rt)
        assert retained.turns == []  # on_mail: restored mail waits (seed 002)
        assert attentive.turns == [["left for later"]]  # always: served on start (seed 000)
        assert rt.tree.nodes["retained"].path == "/root"
        await rt.tree.send("user", "retained", "live mail")
        await settled(rt)
        assert len(retained.turns) == 1


def test_a2a_14_a_turn_killed_by_a_crash_gets_one_result_and_its_mail_is_read_again(
    tmp_path: Path,
) -> None:
    """A real SIGKILL mid-turn: after the restart the parent holds one RESULT
    (interrupted, killed) that woke nobody, and the child's mail waits unread."""
    db = tmp_path / "attn.db"
    script = f"""
import asyncio, os, signal
from attn import Runtime, SQLiteStore
from attn.config import AgentConfig
async def main():
    rt = Runtime(SQLiteStore({str(db)!r}))
    await rt.start()
    async def lead(item, focus): return "ok"
    async def child(item, focus):
        os.kill(os.getpid(), signal.SIGKILL)
    await rt.add_agent("lead", lead, AgentConfig(coalesce_window_ms=0))
    await rt.tree.spawn("lead", "ada", "die mid-turn", brain=child)
    await asyncio.sleep(30)
asyncio.run(main())
"""
    done = subprocess.run([sys.executable, "-c", script], timeout=60, check=False)
    assert done.returncode == -9

    async def after() -> None:
        ada = Worker()
        root = Worker()
        async with Runtime(SQLiteStore(db)) as rt:
            rt.tree.brain_factory = lambda node: ada
            await rt.add_agent("lead", root, FAST)
            await settled(rt)
            (result,) = await items_of(rt, "lead", "agent_result")
            assert result.extra("outcome") == "interrupted" and "killed" in result.content
            assert root.turns == [] and ada.turns == []  # recovery wakes nobody
            await rt.tree.send("lead", "/root/ada", "you are back")
            await settled(rt)
            assert "die mid-turn" in "\n".join(ada.turns[0])  # its mail was not lost
            again = await items_of(rt, "lead", "agent_result")
            assert len(again) == 2  # one RESULT for the killed turn, one for this one

    asyncio.run(after())
