"""Read-only turns (A2A-19): a retained agent's turn that reads mail sent under Plan is
offered only the tools marked ``read_only``; one that turns read-only while it runs
refuses the others from then on; user tools count only when registered read-only.

Real parts: the runtime, its tree and the agents' composed tools (``agent.tools_for``,
as the LLM brain asks for them) on the in-memory store and a fake clock.

Spec: seed 002 ("MAIL sent under Plan additionally retains a runtime read-only stamp
for any non-root activation that will read it"); acceptance A2A-19.
"""

from __future__ import annotations

import asyncio

import pytest

from attn import Focus, InvalidInput, MailboxItem, Reply, Runtime
from attn.tools import ReadOnlyTools, Tools, Toolset
from tests.tools.treehelp import FAST, host_lead, refused, settled, spawned, tools

#: The read-only tools of a retained child (it has channels and the tree), in order.
READ_ONLY = (
    "check_mailbox",
    "update_working_memory",
    "clear_working_memory",
    "memory_search",
    "recall_activity",
    "agent_list_group_chats",
    "recall_channel",
    "SendMessage",
    "WaitAgent",
    "ListAgents",
    "InspectAgent",
    "list_workers",
)


async def test_a2a_19_plan_mail_wakes_a_read_only_turn_with_read_only_tools(
    runtime: Runtime,
) -> None:
    lead = await host_lead(runtime)
    await spawned(runtime, "ada", "first, not under Plan")
    await settled(runtime)
    [child] = lead.children
    assert child.read_only == [False]
    assert "Agent" in child.offered[0] and "background_exec" in child.offered[0]

    runtime.tree.set_plan("lead", True)
    sent = await tools(runtime).call("SendMessage", {"to": "/root/ada", "message": "review only"})
    assert sent == {"ok": True}
    await settled(runtime)
    assert child.read_only == [False, True]
    assert child.offered[1] == READ_ONLY
    # RESULT records carry no stamp: the root's turns reading them are not read-only.
    assert lead.read_only and not any(lead.read_only)

    runtime.tree.set_plan("lead", False)
    await tools(runtime).call("SendMessage", {"to": "/root/ada", "message": "now act"})
    await settled(runtime)
    assert child.read_only[-1] is False and "Agent" in child.offered[-1]


async def test_a_read_only_turn_refuses_the_other_tools_and_runs_nothing(
    runtime: Runtime,
) -> None:
    lead = await host_lead(runtime)
    await spawned(runtime, "ada")
    await settled(runtime)
    agent = runtime.get_agent("lead.ada")
    limited = ReadOnlyTools(agent.tools())
    assert limited.names() == READ_ONLY
    nodes = dict(runtime.tree.nodes)
    answer = await limited.call("Agent", {"name": "probe", "task": "look"})
    refused(answer, "invalid_input", "'Agent' is not offered in a read-only turn")
    assert "SendMessage" in answer["message"]  # it says what is offered
    refused(await limited.call("memory_save", {"content": "x"}), "invalid_input", "read-only")
    refused(await limited.call("nope"), "invalid_input", "unknown tool")
    assert runtime.tree.nodes == nodes and len(lead.children[0].children) == 0
    listed = await limited.call("ListAgents")
    assert listed["ok"] is True and listed["you"] == "/root/ada"


async def test_plan_mail_steered_into_a_running_turn_makes_it_read_only_from_then_on(
    runtime: Runtime,
) -> None:
    hold = asyncio.Event()
    lead = await host_lead(runtime, child_hold=hold)
    await spawned(runtime, "ada", "long job")
    [child] = lead.children
    await asyncio.wait_for(child.busy.wait(), 5)
    [turn_tools] = child.toolsets  # as the turn got them
    assert "Agent" in turn_tools.names()
    runtime.tree.set_plan("lead", True)
    await tools(runtime).call("SendMessage", {"to": "/root/ada", "message": "stop changing"})
    assert runtime.tree.gates["lead.ada"].read_only is True
    refused(
        await turn_tools.call("Agent", {"name": "probe", "task": "x"}), "invalid_input", "read-only"
    )
    assert turn_tools.names() == READ_ONLY
    hold.set()
    await settled(runtime)


async def test_user_tools_are_offered_in_a_read_only_turn_only_when_marked(
    runtime: Runtime,
) -> None:
    user = Tools()

    @user.tool(read_only=True)
    def lookup(key: str) -> str:
        """Look a key up.

        Args:
            key: The key.
        """
        return key.upper()

    @user.tool
    def deploy() -> str:
        """Deploy the service."""
        return "deployed"

    seen: list[tuple[tuple[str, ...], Toolset]] = []

    async def brain(item: MailboxItem, focus: Focus) -> Reply:
        focus.session["readOnly"] = item.content == "plan"
        offered = runtime.get_agent("alice").tools_for(focus)
        seen.append((offered.names(), offered))
        return Reply("ok")

    alice = await runtime.add_agent("alice", brain, FAST, tools=[user])
    await alice.send_message("plan")
    await alice.send_message("act")
    (planned, planning), (acting, _) = seen
    assert "lookup" in planned and "deploy" not in planned
    assert "lookup" in acting and "deploy" in acting
    assert await planning.call("lookup", {"key": "a"}) == {"ok": True, "result": "A"}
    refused(await planning.call("deploy"), "invalid_input", "read-only")
    with pytest.raises(InvalidInput, match="read_only must be true or false"):
        user.tool(read_only="yes")  # type: ignore[call-overload]
