"""The spawn-tree tools (seed 002): each tool's result shape, its refusals answered as
structured tool errors with nothing changed, and no id ever shown to the model.

Real parts: the runtime and its tree on the in-memory store and a fake clock (the
stores that outlive a restart: test_tree_tools_stores.py), scripted brains that make
child brains like themselves.

Spec: seed 002; acceptance A2A-11, A2A-12, A2A-14, A2A-16, A2A-20, A2A-21, A2A-22.
"""

from __future__ import annotations

import asyncio

import pytest

from attn import EchoBrain, Runtime
from attn.models import RESULT_TYPE, ItemStatus
from attn.store.base import ItemQuery
from attn.testing import FakeClock, settle
from attn.tools import TreeToolset
from attn.tools.tree import DELIBERATION_TREE_TOOLS, MAX_WAIT_AGENT_S
from tests.tools.treehelp import (
    FAST,
    Unchanged,
    body,
    host_lead,
    no_ids,
    refused,
    settled,
    spawned,
    tools,
)

TOOLS = ("Agent", "SendMessage", "WaitAgent", "ListAgents", "InspectAgent", "InterruptAgent")
READ_ONLY = {"SendMessage", "WaitAgent", "ListAgents", "InspectAgent"}


def test_the_seeds_tool_names_closed_schemas_and_read_only_marks() -> None:
    definitions = TreeToolset.tool_definitions()
    assert tuple(d.name for d in definitions) == TOOLS
    for definition in definitions:
        params = definition.parameters
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert definition.description
        assert "read_only" not in definition.to_dict()  # not shown to the model
    assert {d.name for d in definitions if d.read_only} == READ_ONLY
    by_name = {d.name: d for d in definitions}
    assert by_name["Agent"].required == ("name", "task")
    assert by_name["SendMessage"].required == ("to", "message")
    assert by_name["WaitAgent"].parameters["properties"]["timeout_s"]["maximum"] == 600
    assert set(DELIBERATION_TREE_TOOLS) <= READ_ONLY  # no spawning while deliberating


async def test_only_offers_a_subset_and_refuses_an_unknown_name(runtime: Runtime) -> None:
    subset = TreeToolset(runtime.tree, "lead", only=DELIBERATION_TREE_TOOLS)
    assert subset.names() == DELIBERATION_TREE_TOOLS
    refused(await subset.call("Agent", {"name": "ada", "task": "x"}), "invalid_input", "unknown")
    with pytest.raises(Exception, match="no tool 'nope'"):
        TreeToolset(runtime.tree, "lead", only=["nope"])


# -- Agent ---------------------------------------------------------------------------


async def test_a2a_20_agent_answers_the_canonical_child_path_and_nothing_else(
    runtime: Runtime,
) -> None:
    lead = await host_lead(runtime)
    answer = await tools(runtime).call("Agent", {"name": "ada", "task": "count to three"})
    assert answer == {"ok": True, "path": "/root/ada"}
    await settled(runtime)
    # The child is hosted, did its task, and its RESULT woke the root.
    [child] = lead.children
    assert [i.content for i in child.items] == ["[mail from /root]\ncount to three"]
    [result] = [i for i in lead.items if i.source_type == RESULT_TYPE]
    assert result.content == "[result from /root/ada: completed]\ndone: count to three"
    # A grandchild's path continues the child's.
    deeper = await tools(runtime, "lead.ada").call(
        "Agent", {"name": "probe", "task": "look", "description": "a probe"}
    )
    assert deeper == {"ok": True, "path": "/root/ada/probe"}
    assert runtime.tree.node("lead.ada.probe").description == "a probe"


@pytest.mark.parametrize(
    ("arguments", "error", "words"),
    [
        ({"name": "Ada", "task": "x"}, "invalid_input", "a child's name"),
        ({"name": "root", "task": "x"}, "invalid_input", "not 'root'"),
        ({"name": "a/b", "task": "x"}, "invalid_input", "a child's name"),
        ({"name": "", "task": "x"}, "invalid_input", "Agent(name) must be at least 1 character"),
        ({"name": 7, "task": "x"}, "invalid_input", "Agent(name) must be a string"),
        ({"name": "ada", "task": ""}, "invalid_input", "Agent(task) must be at least 1"),
        ({"name": "ada", "task": "   "}, "invalid_input", "task must be nonempty"),
        ({"name": "ada", "task": "a\x00b"}, "invalid_input", "NUL"),
        ({"name": "ada", "task": "x" * 100_001}, "invalid_input", "at most 100,000"),
        ({"name": "ada", "task": "x", "description": "d" * 2_001}, "invalid_input", "2,000"),
        ({"name": "ada"}, "invalid_input", "needs the argument 'task'"),
        ({"name": "ada", "task": "x", "extra": 1}, "invalid_input", "no argument"),
    ],
)
async def test_agent_refuses_bad_arguments_and_changes_nothing(
    runtime: Runtime, arguments: dict[str, object], error: str, words: str
) -> None:
    await host_lead(runtime)
    # The caller is in no tree yet: a refused spawn does not make it a root either.
    async with Unchanged(runtime):
        refused(await tools(runtime).call("Agent", arguments), error, words)
    assert runtime.tree.nodes == {}


async def test_agent_refuses_a_taken_name_and_a_brain_that_cannot_make_children(
    runtime: Runtime,
) -> None:
    await host_lead(runtime)
    await spawned(runtime, "ada")
    await settled(runtime)
    async with Unchanged(runtime):
        refused(
            await tools(runtime).call("Agent", {"name": "ada", "task": "again"}),
            "agent_exists",
            "/root/ada exists already",
        )

    async def plain(item: object, focus: object) -> str:  # a brain with no child_brain()
        return "ok"

    await runtime.add_agent("plain", plain, FAST)
    async with Unchanged(runtime):
        refused(
            await tools(runtime, "plain").call("Agent", {"name": "kid", "task": "x"}),
            "invalid_input",
            "cannot make a child's brain",
        )


# -- SendMessage ---------------------------------------------------------------------


async def test_send_message_is_empty_when_started_steered_or_queued_for_a_busy_agent(
    runtime: Runtime,
) -> None:
    hold = asyncio.Event()
    await host_lead(runtime, child_hold=hold)
    await spawned(runtime, "ada")  # its first turn holds
    await settle()
    send = tools(runtime)
    # ada is in a turn of tree mail: the message joins it at its next safe boundary.
    assert await send.call("SendMessage", {"to": "/root/ada", "message": "also this"}) == {
        "ok": True
    }
    hold.set()
    await settled(runtime)
    # ada is idle now: the message starts a turn (by path, or by agent id).
    assert await send.call("SendMessage", {"to": "/root/ada", "message": "next"}) == {"ok": True}
    await settled(runtime)
    assert await send.call("SendMessage", {"to": "lead.ada", "message": "more"}) == {"ok": True}
    await settled(runtime)
    node = runtime.tree.node("lead.ada")
    mail = await runtime.store.find_items(ItemQuery(node.id, source_types=("agent_mail",)))
    assert sorted(body(i.content) for i in mail) == ["also this", "more", "next", "start"]
    assert all(i.status in (ItemStatus.COMPLETED, ItemStatus.MERGED) for i in mail)


async def test_a2a_11_send_message_to_yourself_is_queued_and_starts_no_turn(
    runtime: Runtime,
) -> None:
    lead = await host_lead(runtime)
    await spawned(runtime, "ada")
    await settled(runtime)
    [child] = lead.children
    turns = len(child.items)
    answer = await tools(runtime, "lead.ada").call(
        "SendMessage", {"to": "/root/ada", "message": "note to self"}
    )
    note = "queued: self-mail: read at your next safe boundary or turn; it starts none"
    assert answer == {"ok": True, "note": note}
    await settled(runtime)
    assert len(child.items) == turns  # no turn started
    assert runtime.tree.gates["lead.ada"].unread() == 1
    # The next live mail starts a turn, which reads the note first.
    await tools(runtime).call("SendMessage", {"to": "/root/ada", "message": "go on"})
    await settled(runtime)
    assert body(child.items[turns].content).startswith("note to self")  # FIFO: the note first


async def test_a2a_11_self_mail_of_a_root_starts_no_turn(runtime: Runtime) -> None:
    lead = await host_lead(runtime)
    await spawned(runtime, "ada")
    await settled(runtime)
    turns = len(lead.items)
    await tools(runtime).call("SendMessage", {"to": "/root", "message": "note to self"})
    await settled(runtime)
    assert len(lead.items) == turns


async def test_a2a_12_at_capacity_the_answer_says_it_starts_when_a_slot_frees(
    runtime: Runtime,
) -> None:
    hold = asyncio.Event()
    lead = await host_lead(runtime, child_hold=hold)
    await runtime.tree.make_root("lead", capacity=1)
    await spawned(runtime, "ada")  # holds the only slot
    await settle()
    hold_b = asyncio.Event()
    lead.child_hold = hold_b
    answer = await tools(runtime).call("Agent", {"name": "ben", "task": "wait for a slot"})
    assert answer == {"ok": True, "path": "/root/ben"}  # spawned; its task waits
    await settle()
    assert str(runtime.tree.gates["lead.ben"].state) == "waiting"
    note = await tools(runtime).call("SendMessage", {"to": "/root/ben", "message": "and this"})
    assert note == {
        "ok": True,
        "note": "queued: at capacity: 1 of 1 turn slots in use (held by /root/ada); "
        "it starts when a slot frees",
    }
    listing = await tools(runtime).call("ListAgents")
    assert listing["slots"] == {
        "capacity": 1,
        "inUse": 1,
        "heldBy": ["/root/ada"],
        "waiting": ["/root/ben"],
    }
    hold.set()
    hold_b.set()
    await settled(runtime)
    [_ada, ben] = lead.children
    # It started once a slot freed, with its task and the mail, oldest first.
    assert body(ben.items[0].content).split("\n\n---\n\n") == ["wait for a slot", "and this"]


async def test_send_message_refusals_are_tool_errors_and_change_nothing(
    runtime: Runtime,
) -> None:
    await host_lead(runtime)
    await runtime.add_agent("loner", EchoBrain(), FAST)
    async with Unchanged(runtime):
        refused(
            await tools(runtime, "loner").call("SendMessage", {"to": "/root", "message": "hi"}),
            "invalid_input",
            "in no spawn tree",
        )
    await spawned(runtime, "ada")
    await settled(runtime)
    send = tools(runtime)
    for arguments, error, words in [
        ({"to": "/root/nobody", "message": "hi"}, "unknown_agent", "no agent at '/root/nobody'"),
        ({"to": "/root/Ada", "message": "hi"}, "invalid_input", "not a canonical path"),
        ({"to": "/root/ada", "message": ""}, "invalid_input", "SendMessage(message) must be at"),
        ({"to": "/root/ada", "message": " \n"}, "invalid_input", "message must be nonempty"),
        ({"to": "", "message": "hi"}, "invalid_input", "SendMessage(to) must be at least"),
        ({"to": "/root/ada"}, "invalid_input", "needs the argument 'message'"),
        ({"to": "nobody", "message": "hi"}, "unknown_agent", "nobody"),
    ]:
        async with Unchanged(runtime):
            refused(await send.call("SendMessage", arguments), error, words)


# -- WaitAgent -----------------------------------------------------------------------


async def test_a2a_22_wait_agent_reads_the_result_which_then_wakes_nobody(
    runtime: Runtime,
) -> None:
    hold = asyncio.Event()
    lead = await host_lead(runtime, child_hold=hold)
    await spawned(runtime, "ada", "write the plan")
    await settle()
    turns = len(lead.items)
    waiting = asyncio.ensure_future(tools(runtime).call("WaitAgent", {"path": "/root/ada"}))
    await settle()
    assert not waiting.done()
    hold.set()
    answer = await waiting
    assert answer == {
        "ok": True,
        "path": "/root/ada",
        "outcome": "completed",
        "result": "[result from /root/ada: completed]\ndone: write the plan",
    }
    no_ids(answer, "lead", "lead.ada")
    await settled(runtime)
    assert len(lead.items) == turns  # the RESULT taken by the wait woke no turn
    [stored] = await runtime.store.find_items(ItemQuery("lead", source_types=(RESULT_TYPE,)))
    assert stored.status == ItemStatus.COMPLETED


async def test_wait_agent_reads_a_queued_result_at_once_and_times_out_saying_so(
    runtime: Runtime, clock: FakeClock
) -> None:
    hold = asyncio.Event()
    lead = await host_lead(runtime, child_hold=hold)
    await runtime.get_agent("lead").stop()  # the RESULT stays queued at the parent
    await spawned(runtime, "ada", "first")
    hold.set()
    await settled(runtime)
    answer = await tools(runtime).call("WaitAgent", {"path": "/root/ada", "timeout_s": 5})
    assert answer["outcome"] == "completed" and answer["result"].endswith("done: first")
    [child] = lead.children
    child.hold = asyncio.Event()  # its next turn holds
    await tools(runtime).call("SendMessage", {"to": "/root/ada", "message": "second"})
    await settle()
    waiting = asyncio.ensure_future(
        tools(runtime).call("WaitAgent", {"path": "/root/ada", "timeout_s": 30})
    )
    await settle()
    await clock.advance(30)
    answer = await waiting
    assert answer == {
        "ok": True,
        "path": "/root/ada",
        "state": "running",
        "note": "no result within 30 s (/root/ada is running); "
        "its result comes to you as mail when its turn ends",
    }
    child.hold.set()
    await settled(runtime)


async def test_wait_agent_refusals(runtime: Runtime) -> None:
    await host_lead(runtime)
    await spawned(runtime, "ada")
    await spawned(runtime, "ben")
    await settled(runtime)
    for agent, arguments, error, words in [
        ("lead", {"path": "/root/ada", "timeout_s": 0}, "invalid_input", "more than 0"),
        ("lead", {"path": "/root/ada", "timeout_s": MAX_WAIT_AGENT_S + 1}, "invalid_input", ""),
        ("lead", {"path": "/root/ada", "timeout_s": "soon"}, "invalid_input", "timeout_s"),
        ("lead", {"path": "/root/zed"}, "unknown_agent", "no agent at"),
        ("lead", {"path": "/root"}, "invalid_input", "not your child"),
        ("lead.ben", {"path": "/root/ada"}, "invalid_input", "its results go to /root"),
    ]:
        async with Unchanged(runtime):
            refused(await tools(runtime, agent).call("WaitAgent", arguments), error, words)


# -- ListAgents, InspectAgent ----------------------------------------------------------


async def test_list_and_inspect_show_paths_states_unread_and_the_last_result(
    runtime: Runtime,
) -> None:
    await host_lead(runtime)
    assert await tools(runtime).call("ListAgents") == {
        "ok": True,
        "you": None,
        "agents": [],
        "slots": None,
        "more": 0,
    }
    await tools(runtime).call(
        "Agent", {"name": "ada", "task": "research", "description": "researcher"}
    )
    await settled(runtime)
    await runtime.tree.stop("lead.ada")
    await tools(runtime).call("SendMessage", {"to": "/root/ada", "message": "later"})
    listing = await tools(runtime, "lead.ada").call("ListAgents")
    assert listing == {
        "ok": True,
        "you": "/root/ada",
        "agents": [
            {"path": "/root", "parent": None, "state": "idle", "unread": 0, "description": ""},
            {
                "path": "/root/ada",
                "parent": "/root",
                "state": "stopped",
                "unread": 1,
                "description": "researcher",
            },
        ],
        "slots": {"capacity": 3, "inUse": 0, "heldBy": [], "waiting": []},
        "more": 0,
    }
    seen = await tools(runtime).call("InspectAgent", {"path": "/root/ada"})
    assert seen == {
        "ok": True,
        "path": "/root/ada",
        "parent": "/root",
        "children": [],
        "description": "researcher",
        "state": "stopped",
        "unread": 1,
        "readOnly": False,
        "turns": 1,
        "lastResult": {
            "outcome": "completed",
            "preview": "[result from /root/ada: completed]\ndone: research",
            "unread": False,
            "queuedAt": seen["lastResult"]["queuedAt"],
        },
    }
    root = await tools(runtime).call("InspectAgent", {"path": "/root"})
    assert root["children"] == ["/root/ada"] and root["lastResult"] is None
    for answer in (listing, seen, root):
        no_ids(answer, "lead", "lead.ada")


async def test_inspect_refuses_agents_outside_your_tree(runtime: Runtime) -> None:
    await host_lead(runtime)
    await spawned(runtime, "ada")
    await host_lead(runtime, "boss")
    await spawned(runtime, "kid", parent="boss")
    await runtime.add_agent("echo", EchoBrain(), FAST)
    await settled(runtime)
    for agent, target, words in [
        ("lead", "boss.kid", "no agent of your tree"),
        ("lead", "/root/kid", "no agent at '/root/kid'"),
        ("lead", "root/ada", "no agent of a spawn tree"),
        ("echo", "/root", "in no spawn tree"),
    ]:
        async with Unchanged(runtime):
            answer = await tools(runtime, agent).call("InspectAgent", {"path": target})
            refused(answer, "unknown_agent", words)


# -- InterruptAgent ------------------------------------------------------------------


async def test_a2a_16_interrupt_ends_the_turn_with_an_interrupted_result(
    runtime: Runtime,
) -> None:
    hold = asyncio.Event()
    lead = await host_lead(runtime, child_hold=hold)
    await runtime.get_agent("lead").stop()  # keep the RESULT queued to read it
    await spawned(runtime, "ada", "long job")
    [child] = lead.children
    await asyncio.wait_for(child.busy.wait(), 5)
    answer = await tools(runtime).call(
        "InterruptAgent", {"path": "/root/ada", "reason": "plans changed"}
    )
    assert answer == {"ok": True, "path": "/root/ada", "interrupted": True}
    await settled(runtime)
    [result] = [i for i in runtime.get_agent("lead").queued_items() if i.source_type == RESULT_TYPE]
    assert result.extra("outcome") == "interrupted"
    assert result.content == "[result from /root/ada: interrupted: plans changed]\npartial work"
    # Idle now: interrupting again ends nothing and says so.
    again = await tools(runtime).call("InterruptAgent", {"path": "/root/ada", "reason": "again"})
    assert again == {"ok": True, "path": "/root/ada", "interrupted": False}


async def test_interrupt_refuses_non_descendants_and_a_blank_reason(runtime: Runtime) -> None:
    await host_lead(runtime)
    await spawned(runtime, "ada")
    await spawned(runtime, "ben")
    await settled(runtime)
    for agent, arguments, error, words in [
        ("lead.ada", {"path": "/root/ben", "reason": "x"}, "invalid_input", "descendants"),
        ("lead.ada", {"path": "/root", "reason": "x"}, "invalid_input", "descendants"),
        ("lead", {"path": "/root", "reason": "x"}, "invalid_input", "descendants"),
        ("lead", {"path": "/root/ada", "reason": "  "}, "invalid_input", "reason"),
        ("lead", {"path": "/root/ada", "reason": "r" * 501}, "invalid_input", "reason"),
    ]:
        async with Unchanged(runtime):
            refused(await tools(runtime, agent).call("InterruptAgent", arguments), error, words)
