"""The brain-facing channel tools: each one's happy path, and bad arguments answered as a
structured tool error with nothing changed (no channel, message, callback, delegation,
mailbox item or event).

Spec: 000 §11.1, §11.2, §11.5, §25.2–25.3; acceptance A2A-01..08.
"""

from __future__ import annotations

from typing import Any

import pytest

from attn import Focus, MailboxItem, Reply, Runtime
from attn.core.events import Event
from attn.runtime import Agent
from attn.store.base import ItemQuery
from attn.tools import ChannelToolset
from attn.tools.channels import DELIBERATION_CHANNEL_TOOLS
from tests.time.timehelp import settle_all

BAD = "invalid_input"
TOOLS = (
    "agent_send_message",
    "agent_send_group_message",
    "agent_create_group_chat",
    "agent_list_group_chats",
    "agent_broadcast_status",
    "agent_delegate_task",
    "recall_channel",
)


async def _ok(item: MailboxItem, focus: Focus) -> Reply:
    return Reply("ok")


async def _team(runtime: Runtime, *names: str, start: bool = False) -> list[Agent]:
    return [await runtime.add_agent(n, _ok, start=start) for n in names]


def _tools(runtime: Runtime, agent: str, session_id: str | None = "ses-1") -> ChannelToolset:
    return ChannelToolset(runtime.channels, agent, session_id)


async def _state(runtime: Runtime) -> dict[str, Any]:
    """Everything a channel tool could have changed, as stored."""
    store = runtime.store
    channels = await store.find_channels()
    names = [a.name for a in runtime.agents]
    return {
        "channels": channels,
        "messages": {c.key: await store.find_channel_messages(c.key, limit=500) for c in channels},
        "callbacks": {n: await store.find_callbacks(n) for n in names},
        "delegations": {n: await store.find_delegations(n) for n in names},
        "items": {n: await store.find_items(ItemQuery(n, limit=1000)) for n in names},
    }


class Unchanged:
    """Records the state and the events; :meth:`check` asserts neither moved."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.events: list[Event] = []
        self.before: dict[str, Any] = {}
        self._unsubscribe: Any = None

    async def __aenter__(self) -> Unchanged:
        self.before = await _state(self.runtime)
        self._unsubscribe = self.runtime.bus.subscribe(self.events.append)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._unsubscribe()
        assert await _state(self.runtime) == self.before
        assert [e.type for e in self.events] == []


def _refused(answer: dict[str, Any], error: str, reason: str | None = None) -> None:
    assert answer["ok"] is False, answer
    assert answer["error"] == error, answer
    assert answer["message"]
    if reason is not None:
        assert (answer["outcome"], answer["reason"]) == ("refused", reason), answer


# -- the definitions --------------------------------------------------------------------


def test_the_seeds_tool_names_with_closed_schemas() -> None:
    schemas = [d.to_dict() for d in ChannelToolset.tool_definitions()]
    assert [s["name"] for s in schemas] == list(TOOLS)
    for schema in schemas:
        params = schema["parameters"]
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"])
        assert schema["description"]
    send = schemas[0]["parameters"]
    assert send["required"] == ["to", "message"]
    assert set(send["properties"]) == {
        "to",
        "message",
        "conversation_id",
        "await_reply",
        "timeout_s",
    }
    assert send["properties"]["timeout_s"]["maximum"] == 86_400
    assert "[conversation:" in schemas[0]["description"]


async def test_only_offers_a_subset_and_refuses_an_unknown_name(runtime: Runtime) -> None:
    tools = ChannelToolset(runtime.channels, "alice", only=DELIBERATION_CHANNEL_TOOLS)
    assert tools.names() == DELIBERATION_CHANNEL_TOOLS
    answer = await tools.call("agent_delegate_task", {"to": "bob", "goal": "x"})
    assert answer["ok"] is False and answer["error"] == "invalid_input"
    with pytest.raises(Exception, match="no tool 'nope'"):
        ChannelToolset(runtime.channels, "alice", only=["nope"])


# -- agent_send_message -----------------------------------------------------------------


async def test_send_message_answers_the_receipt_and_delivers_a_tagged_a2a_message(
    runtime: Runtime,
) -> None:
    _alice, bob = await _team(runtime, "alice", "bob")
    answer = await _tools(runtime, "alice").call(
        "agent_send_message", {"to": "bob", "message": "can you review PR 7?"}
    )
    assert answer["ok"] is True, answer
    assert answer["channelKey"] == "dm:a2a:alice:bob"
    assert answer["conversationId"].startswith("conv_")
    assert answer["deliveries"] == [{"recipient": "bob", "outcome": "queued", "reason": "stopped"}]
    assert (answer["partial"], answer["refused"]) == (False, False)
    assert "awaitingReply" not in answer and "delegationId" not in answer
    [item] = bob.queued_items()
    assert item.source_type == "a2a_message"
    assert item.content == f"[conversation:{answer['conversationId']}] can you review PR 7?"
    assert item.metadata["sessionId"] == "channel_dm:a2a:alice:bob_bob"
    # The same key whichever side sends; a reply continues the conversation.
    reply = await _tools(runtime, "bob").call(
        "agent_send_message",
        {"to": "alice", "message": "yes", "conversation_id": answer["conversationId"]},
    )
    assert reply["ok"] is True and reply["channelKey"] == answer["channelKey"]
    [first, second] = await runtime.store.find_channel_messages("dm:a2a:alice:bob")
    assert (first.sender_id, second.sender_id) == ("alice", "bob")
    assert second.reply_to == first.id and second.conversation_id == first.conversation_id


async def test_send_message_to_an_idle_running_agent_starts_its_turn(runtime: Runtime) -> None:
    await _team(runtime, "alice", "bob", start=True)
    answer = await _tools(runtime, "alice").call(
        "agent_send_message", {"to": "bob", "message": "hi"}
    )
    assert answer["deliveries"] == [{"recipient": "bob", "outcome": "started", "reason": None}]


async def test_an_awaited_reply_comes_back_as_a_callback_result_in_the_session(
    runtime: Runtime,
) -> None:
    await _team(runtime, "alice", "bob")
    asked = await _tools(runtime, "alice", "ses-42").call(
        "agent_send_message",
        {"to": "bob", "message": "status?", "await_reply": True, "timeout_s": 600},
    )
    assert asked["ok"] is True and asked["awaitingReply"] is True
    [callback] = await runtime.store.find_callbacks("alice")
    assert callback.id == asked["callbackId"]
    assert (callback.correlation_id, callback.origin_session_id) == (
        asked["conversationId"],
        "ses-42",
    )
    assert callback.timeout_s == 600
    await _tools(runtime, "bob").call(
        "agent_send_message",
        {"to": "alice", "message": "all green", "conversation_id": asked["conversationId"]},
    )
    [result] = runtime.get_agent("alice").queued_items()
    assert result.source_type == "callback_result"
    assert result.payload["extra"]["originSessionId"] == "ses-42"
    assert "all green" in result.content


@pytest.mark.parametrize(
    ("arguments", "error", "reason"),
    [
        ({"to": "ghost", "message": "hi"}, "send_refused", "unknown recipient"),
        ({"to": 7, "message": "hi"}, "invalid_input", None),
        ({"to": "alice", "message": "hi"}, "send_refused", "sent to oneself"),
        ({"to": "bob", "message": "   "}, "send_refused", "empty text"),
        ({"to": "bob", "message": 12}, "invalid_input", None),
        ({"to": "bob", "message": "x" * 100_001}, "invalid_input", None),
        ({"to": "bob", "message": "hi", "conversation_id": ""}, "invalid_input", None),
        ({"to": "bob", "message": "hi", "conversation_id": 5}, "invalid_input", None),
        ({"to": "bob", "message": "hi", "conversation_id": "c" * 201}, "invalid_input", None),
        ({"to": "bob", "message": "hi", "await_reply": "yes"}, "invalid_input", None),
        (
            {"to": "bob", "message": "hi", "await_reply": True, "timeout_s": 0},
            "invalid_input",
            None,
        ),
        (
            {"to": "bob", "message": "hi", "await_reply": True, "timeout_s": -5},
            "invalid_input",
            None,
        ),
        ({"to": "bob", "message": "hi", "timeout_s": 86_401}, "invalid_input", None),
        ({"to": "bob", "message": "hi", "timeout_s": 10**400}, "invalid_input", None),
        ({"to": "bob", "message": "hi", "timeout_s": "soon"}, "invalid_input", None),
        ({"to": "bob"}, "invalid_input", None),
        ({"to": "bob", "message": "hi", "cc": "carol"}, "invalid_input", None),
    ],
)
async def test_send_message_refusals_change_nothing(
    runtime: Runtime, arguments: dict[str, Any], error: str, reason: str | None
) -> None:
    await _team(runtime, "alice", "bob")
    async with Unchanged(runtime):
        answer = await _tools(runtime, "alice").call("agent_send_message", arguments)
    _refused(answer, error, reason)


# -- agent_send_group_message -----------------------------------------------------------


async def test_group_message_reaches_every_other_member_or_only_the_mentioned(
    runtime: Runtime,
) -> None:
    _alice, bob, carol = await _team(runtime, "alice", "bob", "carol")
    await runtime.channels.ensure_team("core", ["alice", "bob", "carol"])
    tools = _tools(runtime, "alice")
    everyone = await tools.call(
        "agent_send_group_message", {"channel_key": "group:core", "message": "standup in 5"}
    )
    assert everyone["ok"] is True and everyone["channelKey"] == "group:core"
    assert [d["recipient"] for d in everyone["deliveries"]] == ["bob", "carol"]
    only = await tools.call(
        "agent_send_group_message",
        {
            "channel_key": "group:core",
            "message": "@carol can you take it?",
            "conversation_id": everyone["conversationId"],
        },
    )
    assert [d["recipient"] for d in only["deliveries"]] == ["carol"]
    assert only["conversationId"] == everyone["conversationId"]
    assert len(bob.queued_items()) == 1
    assert "@carol can you take it?" in carol.queued_items()[-1].content


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"channel_key": "group:nowhere", "message": "hi"}, "unknown_channel"),
        ({"channel_key": "group:other", "message": "hi"}, "not_a_member"),
        # A DM of two others: refused before the lookup would create it.
        ({"channel_key": "dm:a2a:bob:carol", "message": "hi"}, "not_a_member"),
        ({"channel_key": "dm:a2a:bob:alice", "message": "hi"}, "invalid_input"),
        ({"channel_key": "general", "message": "hi"}, "invalid_input"),
        ({"channel_key": ["group:core"], "message": "hi"}, "invalid_input"),
        ({"channel_key": "group:core", "message": ""}, "send_refused"),
        ({"channel_key": "group:core", "message": "hi", "conversation_id": 3}, "invalid_input"),
        # An empty text on a DM not yet stored: refused before the DM is created.
        ({"channel_key": "dm:a2a:alice:bob", "message": " "}, "send_refused"),
    ],
)
async def test_group_message_refusals_change_nothing(
    runtime: Runtime, arguments: dict[str, Any], error: str
) -> None:
    await _team(runtime, "alice", "bob", "carol")
    await runtime.channels.ensure_team("core", ["alice", "bob", "carol"])
    await runtime.channels.ensure_team("other", ["bob", "carol"])
    async with Unchanged(runtime):
        answer = await _tools(runtime, "alice").call("agent_send_group_message", arguments)
    _refused(answer, error)


# -- agent_create_group_chat and agent_list_group_chats ---------------------------------


async def test_create_and_list_group_chats(runtime: Runtime) -> None:
    await _team(runtime, "alice", "bob", "carol")
    await runtime.channels.ensure_team("core", ["alice", "bob", "carol"])
    await runtime.channels.ensure_team("ops", ["bob", "carol"])
    tools = _tools(runtime, "alice")
    await tools.call("agent_send_message", {"to": "bob", "message": "hi"})  # a DM: not listed
    made = await tools.call(
        "agent_create_group_chat", {"name": "Release 2.0", "members": ["bob", "carol"]}
    )
    assert made["ok"] is True, made
    channel = made["channel"]
    assert channel["channelKey"].startswith("group:custom:grp_")
    assert (channel["name"], channel["kind"]) == ("Release 2.0", "custom")
    assert (channel["members"], channel["memberCount"]) == (["alice", "bob", "carol"], 3)
    posted = await tools.call(
        "agent_send_group_message", {"channel_key": channel["channelKey"], "message": "kickoff"}
    )
    assert [d["recipient"] for d in posted["deliveries"]] == ["bob", "carol"]
    listed = await tools.call("agent_list_group_chats")
    assert listed["ok"] is True and listed["more"] is False
    assert sorted(c["channelKey"] for c in listed["channels"]) == sorted(
        ["group:core", channel["channelKey"]]
    )
    nothing = await _tools(runtime, "bob").call("agent_list_group_chats", {})
    assert {c["channelKey"] for c in nothing["channels"]} == {
        "group:core",
        "group:ops",
        channel["channelKey"],
    }


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"name": "x", "members": ["bob", "ghost"]}, "unknown_agent"),
        ({"name": " ", "members": ["bob"]}, "invalid_input"),
        ({"name": "x" * 201, "members": ["bob"]}, "invalid_input"),
        ({"name": "x", "members": []}, "invalid_input"),
        ({"name": "x", "members": "bob"}, "invalid_input"),
        ({"name": "x", "members": ["bob", "bob"]}, "invalid_input"),
        ({"name": "x", "members": [1]}, "invalid_input"),
        ({"name": "x", "members": ["bob"] * 501}, "invalid_input"),
        ({"name": "x"}, "invalid_input"),
    ],
)
async def test_create_group_chat_refusals_change_nothing(
    runtime: Runtime, arguments: dict[str, Any], error: str
) -> None:
    await _team(runtime, "alice", "bob")
    async with Unchanged(runtime):
        answer = await _tools(runtime, "alice").call("agent_create_group_chat", arguments)
    _refused(answer, error)


async def test_list_group_chats_takes_no_arguments(runtime: Runtime) -> None:
    await _team(runtime, "alice")
    async with Unchanged(runtime):
        answer = await _tools(runtime, "alice").call("agent_list_group_chats", {"kind": "dm"})
    _refused(answer, "invalid_input")


# -- agent_broadcast_status -------------------------------------------------------------


async def test_broadcast_status_logs_for_each_recipient_and_reports_partial(
    runtime: Runtime,
) -> None:
    await _team(runtime, "alice", "bob", "carol")
    logged: list[Event] = []
    runtime.bus.subscribe(lambda e: logged.append(e) if e.type == "agent:status-logged" else None)
    tools = _tools(runtime, "alice")
    everyone = await tools.call("agent_broadcast_status", {"status": "deploying 2.0"})
    assert everyone["ok"] is True
    assert [(d["recipient"], d["outcome"]) for d in everyone["deliveries"]] == [
        ("bob", "logged"),
        ("carol", "logged"),
    ]
    assert (everyone["partial"], everyone["refused"]) == (False, False)
    assert "channelKey" not in everyone  # no channel: a status is no message
    some = await tools.call("agent_broadcast_status", {"status": "done", "to": ["bob", "ghost"]})
    assert some["deliveries"] == [
        {"recipient": "bob", "outcome": "logged", "reason": None},
        {"recipient": "ghost", "outcome": "refused", "reason": "unknown recipient"},
    ]
    assert some["partial"] is True  # A2A-04: partial is not success
    assert [e.agent_id for e in logged] == ["bob", "carol", "bob"]
    assert runtime.get_agent("bob").queued_items() == []  # no turn, no model call


@pytest.mark.parametrize(
    ("arguments", "error", "reason"),
    [
        ({"status": " "}, "send_refused", "empty text"),
        ({"status": "x", "to": ["ghost", "alice"]}, "send_refused", "unknown recipient"),
        ({"status": "x", "to": []}, "invalid_input", None),
        ({"status": "x", "to": "bob"}, "invalid_input", None),
        ({"status": "x", "to": [None]}, "invalid_input", None),
        ({"status": "x" * 4_001}, "invalid_input", None),
        ({"status": 3}, "invalid_input", None),
    ],
)
async def test_broadcast_status_refusals_change_nothing(
    runtime: Runtime, arguments: dict[str, Any], error: str, reason: str | None
) -> None:
    await _team(runtime, "alice", "bob")
    async with Unchanged(runtime):
        answer = await _tools(runtime, "alice").call("agent_broadcast_status", arguments)
    _refused(answer, error, reason)


# -- agent_delegate_task ----------------------------------------------------------------


async def test_delegate_task_stores_the_delegation_and_awaits_the_answer(
    runtime: Runtime,
) -> None:
    await _team(runtime, "alice", "bob")
    answer = await _tools(runtime, "alice", "ses-9").call(
        "agent_delegate_task", {"to": "bob", "goal": "write the release notes", "timeout_s": 900}
    )
    assert answer["ok"] is True, answer
    assert answer["delegationId"].startswith("dlg_") and answer["awaitingReply"] is True
    assert answer["channelKey"] == "dm:a2a:alice:bob"
    [delegation] = await runtime.store.find_delegations("alice")
    assert (delegation.id, delegation.delegate, str(delegation.status)) == (
        answer["delegationId"],
        "bob",
        "open",
    )
    [callback] = await runtime.store.find_callbacks("alice")
    assert (callback.origin_session_id, callback.timeout_s) == ("ses-9", 900)
    [item] = runtime.get_agent("bob").queued_items()
    assert "Task delegated to you by alice: write the release notes" in item.content
    # The delegate's turn answers it: its reply is posted back and marks it answered.
    runtime.get_agent("bob").start()
    await settle_all(runtime)
    [delegation] = await runtime.store.find_delegations("alice")
    assert str(delegation.status) == "answered"
    [result] = [i for i in runtime.get_agent("alice").queued_items()]
    assert result.source_type == "callback_result" and "ok" in result.content


@pytest.mark.parametrize(
    ("arguments", "error", "reason"),
    [
        ({"to": "ghost", "goal": "x"}, "send_refused", "unknown recipient"),
        ({"to": "alice", "goal": "x"}, "send_refused", "sent to oneself"),
        ({"to": "bob", "goal": ""}, "send_refused", "empty text"),
        ({"to": "bob", "goal": "x", "timeout_s": 0}, "invalid_input", None),
        ({"to": "bob", "goal": "x", "timeout_s": 1e12}, "invalid_input", None),
        ({"to": "bob", "goal": "x", "timeout_s": True}, "invalid_input", None),
        ({"goal": "x"}, "invalid_input", None),
    ],
)
async def test_delegate_task_refusals_change_nothing(
    runtime: Runtime, arguments: dict[str, Any], error: str, reason: str | None
) -> None:
    await _team(runtime, "alice", "bob")
    async with Unchanged(runtime):
        answer = await _tools(runtime, "alice").call("agent_delegate_task", arguments)
    _refused(answer, error, reason)


# -- recall_channel ---------------------------------------------------------------------


async def test_recall_channel_pages_the_history_oldest_first(runtime: Runtime) -> None:
    await _team(runtime, "alice", "bob")
    alice, bob = _tools(runtime, "alice"), _tools(runtime, "bob")
    first = await alice.call("agent_send_message", {"to": "bob", "message": "one"})
    conversation = first["conversationId"]
    await bob.call(
        "agent_send_message", {"to": "alice", "message": "two", "conversation_id": conversation}
    )
    await alice.call("agent_send_message", {"to": "bob", "message": "x" * 2_500})
    newest = await bob.call("recall_channel", {"channel_key": "dm:a2a:alice:bob", "limit": 2})
    assert newest["ok"] is True
    assert [(m["senderId"], m["text"][:3]) for m in newest["messages"]] == [
        ("bob", "two"),
        ("alice", "xxx"),
    ]
    long = newest["messages"][1]
    assert (len(long["text"]), long["truncated"], long["textChars"]) == (2_000, True, 2_500)
    older = await bob.call(
        "recall_channel", {"channel_key": "dm:a2a:alice:bob", "before": newest["nextBefore"]}
    )
    assert [m["text"] for m in older["messages"]] == ["one"] and older["nextBefore"] is None
    one = await alice.call(
        "recall_channel", {"channel_key": "dm:a2a:alice:bob", "conversation_id": conversation}
    )
    assert [m["text"] for m in one["messages"]] == ["one", "two"]
    assert one["messages"][1]["replyTo"] == first["messageId"]


async def test_recall_of_a_dm_never_used_is_empty_and_creates_nothing(runtime: Runtime) -> None:
    await _team(runtime, "alice", "bob")
    async with Unchanged(runtime):
        answer = await _tools(runtime, "alice").call(
            "recall_channel", {"channel_key": "dm:a2a:alice:bob"}
        )
    assert answer == {
        "ok": True,
        "channelKey": "dm:a2a:alice:bob",
        "messages": [],
        "nextBefore": None,
    }


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"channel_key": "group:other"}, "not_a_member"),
        ({"channel_key": "dm:a2a:bob:carol"}, "not_a_member"),
        ({"channel_key": "dm:a2a:alice:ghost"}, "unknown_channel"),
        ({"channel_key": "group:nowhere"}, "unknown_channel"),
        ({"channel_key": "nope"}, "invalid_input"),
        ({"channel_key": "group:core", "limit": 0}, "invalid_input"),
        ({"channel_key": "group:core", "limit": 51}, "invalid_input"),
        ({"channel_key": "group:core", "limit": "5"}, "invalid_input"),
        ({"channel_key": "group:core", "before": 0}, "invalid_input"),
        ({"channel_key": "group:core", "before": 2**64}, "invalid_input"),
        ({"channel_key": "group:core", "conversation_id": ""}, "invalid_input"),
        ({}, "invalid_input"),
    ],
)
async def test_recall_channel_refusals_change_nothing(
    runtime: Runtime, arguments: dict[str, Any], error: str
) -> None:
    await _team(runtime, "alice", "bob", "carol")
    await runtime.channels.ensure_team("core", ["alice", "bob"])
    await runtime.channels.ensure_team("other", ["bob", "carol"])
    async with Unchanged(runtime):
        answer = await _tools(runtime, "alice").call("recall_channel", arguments)
    _refused(answer, error)


# -- composed into every agent ----------------------------------------------------------


async def test_every_agent_has_the_channel_tools_and_deliberation_the_sending_ones(
    runtime: Runtime,
) -> None:
    [alice] = await _team(runtime, "alice")
    names = alice.tools().names()
    assert all(name in names for name in TOOLS)
    deliberation = alice.deliberation_tools().names()
    assert [n for n in deliberation if n.startswith("agent_")] == list(DELIBERATION_CHANNEL_TOOLS)
    assert "agent_delegate_task" not in deliberation and "recall_channel" not in deliberation
