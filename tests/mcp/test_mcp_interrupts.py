"""MCP-06: a CLI agent's claim is a focus like any other: a person's chat interrupts
it (preempt or merge, told with the next tool call), and a claim abandoned by a dead
connection comes back after the backstop, flagged as redelivered."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from attn import Runtime
from attn.config import AgentConfig
from attn.models import ItemStatus
from attn.testing import FakeClock, eventually
from tests.mcp.support import connected, hosted, server_for


async def test_mcp_06_a_persons_chat_preempts_a_claimed_message(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        agent = rt.get_agent("ada")
        work = await agent.enqueue("a2a_message", {"content": "refactor the parser"})
        assert (await ada.ok("claim"))["claim"]["item"]["id"] == work
        chat = await agent.enqueue("human_chat", {"content": "stop, prod is down"})
        await eventually(lambda: status(rt, work), what="the claimed work is preempted")
        answer = await ada.ok("check_mailbox")
        [notice] = answer["interrupts"]
        assert notice["action"] == "preempt" and notice["mailboxItemId"] == work
        assert [i["id"] for i in notice["items"]] == [chat]
        assert "interrupts" not in await ada.ok("check_mailbox")  # told once
        late = await ada.refused("ack", item_id=work, reply="half done")
        assert late["error"] == "item_not_claimed"
        # People first: the chat is the next focus, then the preempted work resumes.
        assert (await ada.ok("claim", wait_s=10))["claim"]["item"]["id"] == chat
        await ada.ok("ack", item_id=chat, reply="on it")
        # The preempted work is due again at once: a wait sees it, a claim gets it.
        waited = await ada.ok("wait_for_mail", timeout_s=0)
        assert [i["id"] for i in waited["items"]] == [work]
        resumed = await ada.ok("claim")
        assert resumed["claim"]["item"]["id"] == work and resumed["claim"]["resumed"] is True
        await ada.ok("ack", item_id=work, reply="refactored")
        stored = await rt.store.get_item(work)
        assert stored is not None and stored.status == ItemStatus.COMPLETED


async def test_mcp_06_a_second_chat_of_the_same_person_merges_into_the_claimed_one(
    tmp_path: Path,
) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        agent = rt.get_agent("ada")
        meta = {"senderId": "ana", "sessionId": "s1"}
        first = await agent.enqueue("human_chat", {"content": "summarise the logs"}, metadata=meta)
        await ada.ok("claim")
        await agent.enqueue("human_chat", {"content": "only errors please"}, metadata=meta)
        await eventually(lambda: bool(ada_notices(rt)))
        answer = await ada.ok("peek_inbox")
        actions = [n["action"] for n in answer.get("interrupts", [])]
        assert actions == ["merge"], answer
        assert "only errors please" in answer["claim"]["item"]["content"]
        done = await ada.ok("ack", item_id=first, reply="3 errors")
        assert done["status"] == "completed"


async def status(rt: Runtime, item_id: str) -> ItemStatus | None:
    """The stored status of ``item_id``; None while it is still processing."""
    item = await rt.store.get_item(item_id)
    assert item is not None
    return None if item.status == ItemStatus.PROCESSING else item.status


def ada_notices(rt: object) -> bool:
    from attn.brains.external import desk_of

    desk = desk_of(rt.get_agent("ada"))  # type: ignore[attr-defined]
    return desk is not None and bool(desk._notices)


async def test_mcp_06_an_abandoned_claim_returns_after_the_backstop_redelivered(
    tmp_path: Path,
) -> None:
    clock = FakeClock()
    config = AgentConfig(coalesce_window_ms=0, backstop_s=60)
    async with hosted(tmp_path, clock=clock, config=config) as rt:
        agent = rt.get_agent("ada")
        item_id = await agent.enqueue("a2a_message", {"content": "long job"})
        async with connected(server_for(rt)) as dead:
            await dead.ok("claim")
        # The connection is gone; the item stays the focus until the backstop.
        assert await status(rt, item_id) is None  # processing
        await clock.advance(61)
        await eventually(
            lambda: agent.mailbox.find(item_id) is not None, what="the item is queued again"
        )
        async with connected(server_for(rt)) as ada:
            again = await ada.ok("claim", wait_s=10)
            focus = again["claim"]
            assert focus["item"]["id"] == item_id
            assert focus["redelivered"] is True and focus["item"]["attempt"] == 2
            await ada.ok("ack", item_id=item_id)


async def test_mcp_06_a_client_that_calls_tools_keeps_its_claim_past_the_backstop(
    tmp_path: Path,
) -> None:
    clock = FakeClock()
    config = AgentConfig(coalesce_window_ms=0, backstop_s=60)
    async with hosted(tmp_path, clock=clock, config=config) as rt:
        item_id = await rt.get_agent("ada").enqueue("a2a_message", {"content": "long job"})
        async with connected(server_for(rt)) as ada:
            await ada.ok("claim")
            for _ in range(3):  # 120 s of work, a tool call every 40 s
                await clock.advance(40)
                assert (await ada.ok("check_mailbox"))["currentFocus"]["id"] == item_id
            assert await status(rt, item_id) is None  # still processing
            done = await ada.ok("ack", item_id=item_id, reply="finished")
            assert done["status"] == "completed" and done["item"]["attempt"] == 1


async def test_mcp_06_a_persons_cancel_of_a_claim_is_recorded_with_its_reason(
    tmp_path: Path,
) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        agent = rt.get_agent("ada")
        item_id = await agent.enqueue("a2a_message", {"content": "migrate the db"})
        await ada.ok("claim")
        await agent.cancel_processing("wrong repo")
        await eventually(lambda: status(rt, item_id), what="the cancelled claim ends")
        stored = await rt.store.get_item(item_id)
        assert stored is not None and "wrong repo" in (stored.reason or "")
        answer = await ada.ok("check_mailbox")
        [notice] = answer["interrupts"]
        assert notice["action"] == "cancel" and "wrong repo" in notice["reason"]
        late = await ada.refused("ack", item_id=item_id)
        assert "wrong repo" in late["message"]


async def test_mcp_07_an_oversized_ack_changes_nothing(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        item_id = await rt.get_agent("ada").enqueue("a2a_message", {"content": "write it"})
        await ada.ok("claim")
        refused = await ada.refused("ack", item_id=item_id, reply="z" * 100_001)
        assert refused["error"] == "invalid_input"
        assert await status(rt, item_id) is None  # still claimed, still processing
        with pytest.raises(MCPError, match="unknown_agent: no agent 'nosuch'"):
            await ada.client.read_resource("attn://agents/nosuch/mailbox")
