"""Acceptance A2A-14, 15, 20 and 22 over the Python API, on every store: one RESULT per
settled child turn, bounded previews, spawning, and a RESULT consumed exactly once.
"""

from __future__ import annotations

import asyncio

import pytest

from attn import Runtime
from attn.core.focus import Focus, Reply
from attn.errors import AgentExists, InvalidInput, UnknownAgent
from attn.models import RESULT_PREVIEW_CHARS, RESULT_TYPE, ItemStatus, MailboxItem
from attn.testing import eventually
from tests.tree.conftest import FAST, Worker, items_of, settled, tree_of


async def test_a2a_14_every_settled_child_turn_sends_one_result_to_its_spawn_parent(
    rt: Runtime,
) -> None:
    root, ada = Worker(), Worker(answer="ada's answer {n}")
    ids = await tree_of(rt, root=root, ada=ada)
    ben = await rt.tree.spawn(ids["ada"], "ben", brain=Worker(), config=FAST)

    await rt.tree.send("lead", "/root/ada", "first")
    await settled(rt)
    await rt.tree.send(ben.id, "/root/ada", "a peer asks ada")  # a peer starts this turn
    await settled(rt)

    results = await items_of(rt, "lead", RESULT_TYPE)
    assert [r.extra("outcome") for r in results] == ["completed", "completed"]
    assert [r.metadata["senderId"] for r in results] == [ids["ada"]] * 2  # to the spawn parent
    assert "ada's answer 1" in results[0].content and "ada's answer 2" in results[1].content
    assert await items_of(rt, ben.id, RESULT_TYPE) == []  # never broadcast to the peer
    assert len(root.turns) == 2  # each RESULT woke the idle parent once


async def test_a2a_14_errored_and_interrupted_turns_report_a_failure_or_partial_text(
    rt: Runtime,
) -> None:
    failing, slow = Worker(), Worker()
    failing.fail = True
    slow.hold = asyncio.Event()
    ids = await tree_of(rt, failing=failing, slow=slow)
    await rt.tree.send("lead", "/root/failing", "fail please")
    await rt.tree.send("lead", "/root/slow", "work slowly")
    await eventually(lambda: slow.started.is_set())
    await rt.tree.interrupt(ids["slow"], "the plan changed")
    slow.hold.set()
    await settled(rt)

    by_child = {r.metadata["senderId"]: r for r in await items_of(rt, "lead", RESULT_TYPE)}
    errored = by_child[ids["failing"]]
    assert errored.extra("outcome") == "errored"
    assert "failed on purpose" in errored.content
    interrupted = by_child[ids["slow"]]
    assert interrupted.extra("outcome") == "interrupted"
    assert "the plan changed" in interrupted.content


async def test_a2a_14_an_interrupt_racing_a_completion_gives_exactly_one_result(
    rt: Runtime,
) -> None:
    ada = Worker(boundaries=0)
    ada.hold = asyncio.Event()
    ids = await tree_of(rt, ada=ada)
    await rt.tree.send("lead", "/root/ada", "finish now")
    await eventually(lambda: ada.started.is_set())

    ada.hold.set()  # the completion and the interrupt in the same loop turn
    await rt.tree.interrupt(ids["ada"], "too late")
    await settled(rt)

    results = await items_of(rt, "lead", RESULT_TYPE)
    assert len(results) == 1
    assert results[0].extra("outcome") in ("completed", "interrupted")


async def test_a2a_15_a_long_result_is_previewed_head_and_tail_with_a_pointer(
    rt: Runtime,
) -> None:
    long_text = "HEAD " + "x" * 50_000 + " TAIL"

    async def verbose(item: MailboxItem, focus: Focus) -> Reply:
        return Reply(long_text)

    ids = await tree_of(rt, ada=verbose)  # type: ignore[arg-type]
    await rt.tree.send("lead", "/root/ada", "write a lot")
    await settled(rt)

    (result,) = await items_of(rt, "lead", RESULT_TYPE)
    body = result.content.split("\n", 1)[1]
    assert len(body) <= RESULT_PREVIEW_CHARS
    assert body.startswith("HEAD ") and body.endswith(" TAIL")
    assert result.extra("truncated") is True and result.extra("fullChars") == len(long_text)
    pointer = result.extra("transcript")
    assert pointer == f"/api/agents/{ids['ada']}/turns/{result.extra('turnItemId')}"
    assert "transcript of /root/ada" in body and result.extra("turnItemId") not in body
    turn = await rt.store.get_item(result.extra("turnItemId"))
    assert turn is not None and turn.status == ItemStatus.COMPLETED  # the whole turn is kept


async def test_a2a_20_spawning_returns_the_canonical_path_and_bad_input_changes_nothing(
    rt: Runtime,
) -> None:
    await rt.add_agent("lead", Worker(), FAST)
    node = await rt.tree.spawn("lead", "ada", "start here", brain=Worker(), config=FAST)
    assert (node.path, node.id, node.parent_id) == ("/root/ada", "lead.ada", "lead")
    deeper = await rt.tree.spawn(node.id, "probe", brain=Worker(), config=FAST)
    assert deeper.path == "/root/ada/probe" and deeper.id == "lead.ada.probe"
    await settled(rt)
    before = sorted(rt.tree.nodes), len(await rt.store.find_tree_agents("lead"))

    for name in ("", "Ada", "a/b", "root", "x" * 33, None):
        with pytest.raises(InvalidInput):
            await rt.tree.spawn("lead", name, brain=Worker())  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        await rt.tree.spawn("lead", "bob", "   ", brain=Worker())
    with pytest.raises(AgentExists):
        await rt.tree.spawn("lead", "ada", brain=Worker())
    with pytest.raises(InvalidInput):
        await rt.tree.spawn("lead", "nobrain")  # the scripted root cannot make a child brain
    for target in ("/root/nobody", "nobody", 42, "/root/Bad"):
        with pytest.raises((UnknownAgent, InvalidInput)):
            await rt.tree.send("lead", target, "hello")
    for text in ("", "   ", None, "a\x00b", "x" * 100_001):
        with pytest.raises(InvalidInput):
            await rt.tree.send("lead", "/root/ada", text)

    assert (sorted(rt.tree.nodes), len(await rt.store.find_tree_agents("lead"))) == before
    assert [m.content for m in await items_of(rt, node.id, "agent_mail")] == [
        "[mail from /root]\nstart here"
    ]


async def test_a2a_22_a_result_taken_by_a_waiting_call_never_wakes_the_parent(
    rt: Runtime,
) -> None:
    root, ada = Worker(), Worker()
    ada.hold = asyncio.Event()
    ids = await tree_of(rt, root=root, ada=ada)
    await rt.tree.send("lead", "/root/ada", "work")
    waiting = asyncio.ensure_future(rt.tree.results.wait(ids["ada"], 60))
    await asyncio.sleep(0)
    ada.hold.set()
    result = await waiting
    await settled(rt)

    assert result is not None and result.extra("outcome") == "completed"
    assert root.turns == []  # consumed by the wait: no parent turn for it
    stored = await items_of(rt, "lead", RESULT_TYPE)
    assert [r.status for r in stored] == [ItemStatus.COMPLETED]
    assert await rt.tree.results.take("lead") is None  # nothing left to fetch


async def test_a2a_22_a_fetch_takes_a_queued_result_once(rt: Runtime) -> None:
    ids = await tree_of(rt, ada=Worker())
    await rt.find_agent("lead").stop()  # the parent is stopped: the RESULT stays queued
    await rt.tree.send("lead", "/root/ada", "work")
    await settled(rt)

    taken = await rt.tree.results.take("lead", ids["ada"])
    again = await rt.tree.results.take("lead", ids["ada"])
    rt.find_agent("lead").start()
    await settled(rt)

    assert taken is not None and again is None
    assert [r.status for r in await items_of(rt, "lead", RESULT_TYPE)] == [ItemStatus.COMPLETED]


async def test_a2a_22_a_result_handler_consumes_the_record_and_a_failing_one_falls_back(
    rt: Runtime,
) -> None:
    root = Worker()
    ids = await tree_of(rt, root=root, ada=Worker(), ben=Worker())
    handled: list[str] = []

    async def handler(item: MailboxItem) -> None:
        handled.append(item.id)

    def broken(item: MailboxItem) -> None:
        raise RuntimeError("the workflow broke")

    rt.tree.results.on_result(ids["ada"], handler)
    rt.tree.results.on_result(ids["ben"], broken)
    await rt.tree.send("lead", "/root/ada", "for the workflow")
    await settled(rt)
    assert len(handled) == 1 and root.turns == []

    await rt.tree.send("lead", "/root/ben", "for the broken workflow")
    await settled(rt)
    assert len(root.turns) == 1  # the failed handler left it as ordinary waking mail
    assert "/root/ben" in root.turns[0][0]
    statuses = [r.status for r in await items_of(rt, "lead", RESULT_TYPE)]
    assert statuses == [ItemStatus.COMPLETED, ItemStatus.COMPLETED]


async def test_a2a_22_one_settled_child_turn_causes_at_most_one_parent_turn(
    rt: Runtime,
) -> None:
    root = Worker()
    root.hold = asyncio.Event()
    await tree_of(rt, root=root, ada=Worker(), ben=Worker())
    await rt.tree.send("user", "lead", "keep the root busy")
    await eventually(lambda: root.started.is_set())
    await rt.tree.send("lead", "/root/ada", "one")
    await rt.tree.send("lead", "/root/ben", "two")
    await eventually(lambda: rt.tree.gates["lead"].unread() == 2)  # both RESULTs came
    root.hold.set()
    await settled(rt)

    texts = root.texts()
    assert sum("/root/ada" in t for t in texts) == 1
    assert sum("/root/ben" in t for t in texts) == 1
    # Both were read at the busy turn's safe boundary; no later wake delivers them again.
    assert len(root.turns) == 1
    assert rt.tree.gates["lead"].unread() == 0


async def test_a2a_20_a_child_spawned_from_a_brain_spec_is_rebuilt_after_a_restart(
    backend: str,
    make_store,
    clock,  # type: ignore[no-untyped-def]
) -> None:
    echo = {"kind": "echo", "options": {}}
    async with Runtime(make_store(), clock=clock) as rt:
        await rt.add_agent("lead", Worker(), FAST)
        before = len(await rt.store.find_tree_agents())
        for bad in ({"kind": "nope"}, {"kind": "echo", "options": []}, "echo", {"x": 1}):
            with pytest.raises(InvalidInput):
                await rt.tree.spawn("lead", "bad", brain_spec=bad)  # type: ignore[arg-type]
        assert len(await rt.store.find_tree_agents()) == before
        node = await rt.tree.spawn("lead", "echoer", "say hi", brain_spec=echo, config=FAST)
        await settled(rt)
        assert (await rt.store.get_tree_agent(node.id)).brain == echo  # type: ignore[union-attr]
    if backend == "memory":
        return
    async with Runtime(make_store(), clock=clock) as rt:
        await rt.add_agent("lead", Worker(), FAST)
        assert rt.find_agent(node.id) is not None  # rebuilt from its stored spec
        await rt.tree.send("lead", "/root/echoer", "again")
        await settled(rt)
        results = await items_of(rt, "lead", RESULT_TYPE)
        assert len(results) == 2 and "again" in results[-1].content
