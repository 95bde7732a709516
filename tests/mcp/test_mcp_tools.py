"""MCP-02, MCP-03: the tools a CLI agent needs, under stable names, over one mailbox.

Two external agents on a SQLite file, reached through the MCP SDK's in-memory
client: they send each other mail, peek (nothing consumed), claim and
acknowledge, reply into a person's chat, notify a person, ask for an approval
and wait for its answer, schedule a wakeup.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from attn.brains.external import ClaimDesk, desk_of
from attn.models import ItemStatus
from attn.runtime import Runtime
from attn.store.base import ItemQuery
from attn.testing import eventually
from tests.mcp.support import connected, hosted, server_for

STABLE = {
    "register",
    "wait_for_mail",
    "peek_inbox",
    "claim",
    "ack",
    "reply",
    "check_approval",
    "check_mailbox",
    "defer_mailbox_item",
    "drop_mailbox_item",
    "prioritize_mailbox_item",
    "schedule_wakeup",
    "cancel_wakeup",
    "memory_save",
    "memory_search",
    "recall_activity",
    "agent_send_message",
    "agent_send_group_message",
    "agent_create_group_chat",
    "agent_list_group_chats",
    "agent_broadcast_status",
    "agent_delegate_task",
    "recall_channel",
    "notify_user",
    "request_user_approval",
}


async def test_mcp_02_the_tools_are_listed_under_stable_names(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        listed = await ada.client.list_tools()
        names = [t.name for t in listed.tools]
        assert set(names) == STABLE
        assert len(names) == len(STABLE)
        for tool in listed.tools:
            assert tool.description and tool.input_schema["type"] == "object"
        assert "background_exec" not in names  # nothing runs commands on the server


async def test_mcp_02_send_to_an_agent_and_to_a_channel_with_the_delivery_outcome(
    tmp_path: Path,
) -> None:
    async with (
        hosted(tmp_path, ("ada", "bob", "cy")) as rt,
        connected(server_for(rt, "ada")) as ada,
        connected(server_for(rt, "bob")) as bob,
    ):
        receipt = await ada.ok("agent_send_message", to="bob", message="review PR 12?")
        assert [d["recipient"] for d in receipt["deliveries"]] == ["bob"]
        assert receipt["deliveries"][0]["outcome"] == "queued"
        inbox = await bob.ok("peek_inbox")
        assert len(inbox["items"]) == 1
        assert inbox["items"][0]["sourceType"] == "a2a_message"
        assert "review PR 12?" in inbox["items"][0]["content"]
        group = await ada.ok("agent_create_group_chat", name="release", members=["bob", "cy"])
        sent = await ada.ok(
            "agent_send_group_message",
            channel_key=group["channel"]["channelKey"],
            message="ship at 5",
        )
        assert sorted(d["recipient"] for d in sent["deliveries"]) == ["bob", "cy"]
        refused = await ada.refused("agent_send_message", to="nobody", message="hi")
        assert refused["outcome"] == "refused"


async def test_mcp_03_peeking_never_consumes_and_only_ack_completes(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        agent = rt.get_agent("ada")
        first = await agent.enqueue("a2a_message", {"content": "one"})
        await agent.enqueue("a2a_message", {"content": "two"})
        peeks = [await ada.ok("peek_inbox") for _ in range(2)]
        assert peeks[0]["items"] == peeks[1]["items"]
        assert [i["content"] for i in peeks[0]["items"]] == ["one", "two"]
        mailbox = await ada.ok("check_mailbox")
        assert mailbox["depth"] == 2
        claimed = await ada.ok("claim")
        assert claimed["claim"]["item"]["id"] == first
        # Claimed is not done: the store says processing, REST's view says the same.
        stored = await rt.store.get_item(first)
        assert stored is not None and stored.status == ItemStatus.PROCESSING
        timeline = await agent.mailbox_timeline(limit=10)
        assert [i["id"] for i in timeline["queued"]] != [first]
        assert (await ada.ok("peek_inbox"))["claim"]["item"]["id"] == first
        done = await ada.ok("ack", item_id=first, reply="done", tokens=120, tool_calls=3)
        assert done["status"] == "completed"
        stored = await rt.store.get_item(first)
        assert stored is not None and stored.status == ItemStatus.COMPLETED
        left = await ada.ok("peek_inbox")
        assert [i["content"] for i in left["items"]] == ["two"] and left["claim"] is None
        activities = await rt.store.find_activities("ada", [first])
        assert any(a.total_tokens == 120 and a.total_tools == 3 for a in activities)


async def test_mcp_02_a_chat_is_answered_by_reply_and_ack(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        agent = rt.get_agent("ada")
        deltas: list[str] = []
        asked = asyncio.ensure_future(
            agent.send_message("how is the build?", timeout_s=20, on_delta=deltas.append)
        )
        claimed = await ada.ok("claim", wait_s=10)
        item_id = claimed["claim"]["item"]["id"]
        assert claimed["claim"]["item"]["sourceType"] == "human_chat"
        await ada.ok("reply", item_id=item_id, text="checking… ")
        await ada.ok("ack", item_id=item_id, reply="green")
        reply = await asyncio.wait_for(asked, 10)
        assert reply.text == "green"
        assert deltas[0] == "checking… "


async def test_mcp_02_notify_a_person_and_ask_for_an_approval(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        agent = rt.get_agent("ada")
        note = await ada.ok("notify_user", title="Report ready", body="Q3 is in.")
        assert note["status"] == "ok"
        item_id = await agent.enqueue("a2a_message", {"content": "deploy when approved"})
        refused = await ada.refused("request_user_approval", title="Deploy?", description="v2")
        assert "claim" in refused["message"]
        await ada.ok("claim")
        asked = await ada.ok("request_user_approval", title="Deploy?", description="v2 is ready")
        approval_id = asked["approvalId"]
        stored = await rt.store.get_item(item_id)
        assert stored is not None and stored.status == ItemStatus.PARKED
        pending = await ada.ok("check_approval", approval_id=approval_id)
        assert pending["state"] == "pending"
        gone = await ada.refused("ack", item_id=item_id)
        assert gone["error"] == "item_not_claimed" and "parked" in gone["message"]

        waited = asyncio.ensure_future(ada.ok("check_approval", approval_id=approval_id, wait_s=20))
        await rt.people.approvals.answer(approval_id, option="approve", comment="go")
        answered = await asyncio.wait_for(waited, 20)
        assert answered["state"] == "approved"
        resumed = await ada.ok("claim", wait_s=10)
        assert resumed["claim"]["item"]["id"] == item_id
        assert resumed["claim"]["resumed"] is True
        assert resumed["claim"]["approvals"][approval_id]["approved"] is True
        await ada.ok("ack", item_id=item_id, reply="deployed")


async def test_mcp_02_schedule_a_wakeup(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        scheduled = await ada.ok("schedule_wakeup", delay_s=300, note="check the build")
        assert scheduled["note"] == "check the build" and scheduled["dueAt"]
        cancelled = await ada.ok("cancel_wakeup", wakeup_id=scheduled["wakeupId"])
        assert cancelled
        items = await rt.store.find_items(ItemQuery("ada"))
        assert items == []


async def test_mcp_03_an_ack_without_a_reply_completes_the_item(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        item_id = await rt.get_agent("ada").enqueue("a2a_message", {"content": "fyi: deployed"})
        await ada.ok("claim")
        done = await ada.ok("ack", item_id=item_id)
        assert done["status"] == "completed" and done["item"]["attempt"] == 1
        again = await ada.refused("ack", item_id=item_id)
        assert again["error"] == "item_not_claimed" and "completed" in again["message"]


async def test_mcp_02_a_claim_by_id_follows_the_attention_rules(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        agent = rt.get_agent("ada")
        later = await agent.enqueue("a2a_message", {"content": "refactor"})
        chat = await agent.enqueue("human_chat", {"content": "a person asks"})
        refused = await ada.refused("claim", item_id=later)
        assert refused["error"] == "not_next" and chat in refused["message"]
        claimed = await ada.ok("claim", item_id=chat)
        assert claimed["claim"]["item"]["id"] == chat  # people first
        again = await ada.ok("claim")  # one focus at a time: the same item
        assert again["claim"]["item"]["id"] == chat
        busy = await ada.refused("claim", item_id=later)
        assert busy["error"] == "not_next" and "acknowledge" in busy["message"]
        await ada.ok("ack", item_id=chat, reply="hello")
        await agent.pause()
        paused = await ada.refused("claim")
        assert paused["error"] == "agent_not_running"
        await agent.resume()
        assert (await ada.ok("claim", item_id=later))["claim"]["item"]["id"] == later


async def test_mcp_02_claims_waiting_at_once_in_two_sessions_get_the_one_focus(
    tmp_path: Path,
) -> None:
    # Two clients of one agent share its focus: a claim waiting beside another is
    # answered with the same item, not left to time out "empty" while one is held.
    async with (
        hosted(tmp_path) as rt,
        connected(server_for(rt)) as one,
        connected(server_for(rt)) as two,
    ):
        waits = [asyncio.ensure_future(c.ok("claim", wait_s=20)) for c in (one, two)]
        await eventually(lambda: _desk(rt).waiting == 2, what="both claims waiting")
        item_id = await rt.get_agent("ada").enqueue("a2a_message", {"content": "review"})
        claimed = await asyncio.wait_for(asyncio.gather(*waits), 10)
        assert [c["status"] for c in claimed] == ["claimed", "claimed"], claimed
        assert [c["claim"]["item"]["id"] for c in claimed] == [item_id, item_id]
        await two.ok("ack", item_id=item_id)


def _desk(rt: Runtime) -> ClaimDesk:
    desk = desk_of(rt.get_agent("ada"))
    assert desk is not None
    return desk
