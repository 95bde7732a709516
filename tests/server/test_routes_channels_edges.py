"""The channel routes' edges over real HTTP: every refused call changes nothing,
repeats with an idempotency key store nothing new, delegations are answered,
and the answers use the glossary's names. On the memory, SQLite and PostgreSQL stores.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from tests.server.channel_api import ChannelApi, api, store_url
from tests.server.test_glossary import RETIRED, WIRE, _keys

__all__ = ["api", "store_url"]

GROUP = "{group}"

SEND = "/api/agents/a/send"
POST = f"/api/channels/{GROUP}/messages"
DELEGATE = "/api/agents/a/delegations"
BROADCAST = "/api/agents/a/broadcast"
V, BAD, R = "validation_error", "invalid_input", "send_refused"
NOT_MEMBER = "not_a_member"

#: (method, path, body or query, status, error code); ``{group}`` is a custom group of a, b, c.
REFUSED: list[tuple[str, str, dict[str, Any] | None, int, str]] = [
    ("POST", "/api/agents/nobody/send", {"to": "b", "text": "hi"}, 404, "unknown_agent"),
    ("POST", SEND, {"to": "nobody", "text": "hi"}, 422, R),
    ("POST", SEND, {"to": "b", "text": ""}, 422, R),
    ("POST", SEND, {"to": "b", "text": "x" * 100_001}, 422, V),
    ("POST", SEND, {"to": "b", "text": "x", "timeoutS": 0}, 422, V),
    ("POST", SEND, {"to": "b", "text": "x", "awaitReply": True, "timeoutS": 1e9}, 422, V),
    ("POST", SEND, {"to": "b", "text": "x", "awaitReply": True, "timeoutS": 86_401}, 422, V),
    ("GET", "/api/channels/dm:a2a:c:d", None, 200, ""),  # an unused DM: read, not stored
    ("POST", SEND, {"to": "b", "text": "x", "awaitReply": "yes"}, 422, V),
    ("POST", SEND, {"to": "b", "text": "x", "typo": 1}, 422, V),
    ("POST", SEND, {"to": "b", "text": "x", "conversationId": "  "}, 422, BAD),
    (
        "POST",
        SEND,
        {"to": "b", "text": "x", "replyTo": "chm_nope"},
        404,
        "channel_message_not_found",
    ),
    ("POST", "/api/channels", {"name": "", "members": ["a"]}, 422, BAD),
    ("POST", "/api/channels", {"name": "x", "members": []}, 422, V),
    ("POST", "/api/channels", {"name": "x", "members": ["a", "nobody"]}, 404, "unknown_agent"),
    ("POST", "/api/channels", {"name": "x", "members": ["a", "a"]}, 422, BAD),
    ("POST", "/api/channels", {"name": "x", "members": ["a"] * 501}, 422, V),
    ("POST", "/api/channels/group:custom:nope/messages", {"text": "x"}, 404, "unknown_channel"),
    ("POST", f"/api/channels/{quote('not a key')}/messages", {"text": "x"}, 422, BAD),
    ("POST", "/api/channels/dm:a2a:b:a/messages", {"text": "x"}, 422, BAD),
    ("POST", POST, {"senderId": "d", "text": "x"}, 422, NOT_MEMBER),
    ("POST", POST, {"text": "x", "mentions": ["d"]}, 422, NOT_MEMBER),
    ("POST", POST, {"senderId": "a", "senderKind": "person", "text": "x"}, 422, BAD),
    ("POST", POST, {"text": "x", "senderKind": "robot"}, 422, BAD),
    ("POST", POST, {"text": "  "}, 422, R),
    ("POST", BROADCAST, {"text": "  "}, 422, R),
    ("POST", BROADCAST, {"text": "x", "to": ["nobody"]}, 422, R),
    ("POST", BROADCAST, {"text": "x", "to": []}, 422, V),
    ("POST", DELEGATE, {"to": "nobody", "goal": "x"}, 422, R),
    ("POST", DELEGATE, {"to": "b", "goal": ""}, 422, R),
    ("POST", DELEGATE, {"to": "a", "goal": "x"}, 422, R),
    ("POST", DELEGATE, {"to": "b", "goal": "x", "timeoutS": -1}, 422, V),
    ("GET", "/api/channels/group:custom:nope", None, 404, "unknown_channel"),
    ("GET", "/api/channels", {"kind": "weird"}, 422, V),
    ("GET", "/api/channels", {"limit": 0}, 422, V),
    ("GET", POST, {"before": 0}, 422, V),
    ("GET", POST, {"limit": 501}, 422, V),
    ("GET", "/api/channel-messages/chm_nope", None, 404, "channel_message_not_found"),
    ("GET", "/api/agents/nobody/delegations", None, 404, "unknown_agent"),
]


async def _group(api: ChannelApi) -> str:
    made = await api.call(
        "POST", "/api/channels", 201, json={"name": "g", "members": ["a", "b", "c"]}
    )
    key: str = made["key"]
    return key


async def test_a_refused_call_changes_nothing_http(api: ChannelApi) -> None:
    group = await _group(api)
    await api.send("a", "b", "a first message")
    await api.rt.run_until_idle()
    before = await api.snapshot()
    for method, path, data, status, code in REFUSED:
        path = path.replace(GROUP, group)
        options = {"json": data} if method == "POST" else {"params": data}
        answer = await api.call(method, path, status, **options)
        if status == 200:
            continue
        assert answer["error"]["code"] == code, (path, data, answer)
        if code == "send_refused":
            assert answer["error"]["outcome"] == "refused" and answer["error"]["reason"]
    await api.rt.run_until_idle()
    assert await api.snapshot() == before


async def test_errors_name_the_request_fields_http(api: ChannelApi) -> None:
    answer = await api.call(
        "POST", "/api/agents/a/send", 422, json={"to": "b", "text": "x", "conversationId": " "}
    )
    assert "conversationId" in answer["error"]["message"]
    assert "conversation_id" not in answer["error"]["message"]


async def test_a_repeated_idempotency_key_stores_nothing_new_http(api: ChannelApi) -> None:
    group = await _group(api)
    body = {"text": "once only", "idempotencyKey": "post-1"}
    first = await api.client.post(f"/api/channels/{group}/messages", json=body)
    again = await api.client.post(f"/api/channels/{group}/messages", json=body)
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.headers["Location"] == f"/api/channel-messages/{first.json()['messageId']}"
    assert again.json()["duplicate"] is True and first.json()["duplicate"] is False
    assert again.json()["messageId"] == first.json()["messageId"]
    assert again.json()["deliveries"] == first.json()["deliveries"]
    sends = [
        await api.client.post(
            "/api/agents/a/send", json={"to": "b", "text": "hi", "idempotencyKey": "send-1"}
        )
        for _ in range(2)
    ]
    assert [s.status_code for s in sends] == [201, 200]
    await api.rt.run_until_idle()
    assert len((await api.history(group))["messages"]) == 1
    assert len((await api.history("dm:a2a:a:b"))["messages"]) == 1
    assert len(await api.items("b", "a2a_message")) == 2


async def test_a_delegation_is_answered_by_the_delegates_reply_http(api: ChannelApi) -> None:
    made = await api.call(
        "POST",
        "/api/agents/a/delegations",
        201,
        json={"to": "e1", "goal": "summarize the logs", "timeoutS": 600},
    )
    delegation = made["delegation"]
    assert delegation["status"] == "open" and delegation["delegate"] == "e1"
    assert made["message"]["kind"] == "delegation" and made["callbackId"]
    assert made["channelKey"] == "dm:a2a:a:e1"
    await api.rt.run_until_idle()
    for agent in ("a", "e1"):
        listed = await api.call("GET", f"/api/agents/{agent}/delegations", 200)
        [done] = listed["delegations"]
        assert listed["count"] == 1 and done["id"] == delegation["id"]
        assert done["status"] == "answered" and done["answerMessageId"]
    answer = await api.call("GET", f"/api/channel-messages/{done['answerMessageId']}", 200)
    assert answer["senderId"] == "e1" and "summarize the logs" in answer["text"]
    [result] = await api.items("a", "callback_result")
    assert result["payload"]["content"] == answer["text"]
    assert await api.call("GET", "/api/agents/b/delegations", 200) == {
        "delegations": [],
        "count": 0,
    }


async def test_listings_are_bounded_http(api: ChannelApi) -> None:
    for _ in range(3):
        await _group(api)
    page = await api.call("GET", "/api/channels", 200, params={"limit": 2, "kind": "custom"})
    assert len(page["channels"]) == 2 and page["count"] == 3
    keys = [c["key"] for c in (await api.call("GET", "/api/channels", 200))["channels"]]
    assert keys == sorted(keys)


async def test_channel_answers_use_glossary_names_http(api: ChannelApi) -> None:
    group = await _group(api)
    answers: list[Any] = [
        await api.post(group, "@b hello", senderId="a"),
        await api.send("a", "b", "hi", awaitReply=True),
        await api.call("POST", "/api/agents/a/broadcast", 201, json={"text": "up"}),
        await api.call("POST", "/api/agents/a/delegations", 201, json={"to": "c", "goal": "g"}),
        await api.call("GET", "/api/channels", 200),
        await api.history(group),
        await api.call("GET", "/api/agents/a/delegations", 200),
        await api.call("GET", "/api/agents/a/callbacks", 200),
    ]
    names = {key for answer in answers for key in _keys(answer)}
    assert names & RETIRED == set()
    assert sorted(names - WIRE) == [], "add these to docs/glossary.md"


@pytest.mark.parametrize("path", ["/api/channels/{channelKey}", "/api/agents/{agentId}/send"])
async def test_the_openapi_document_declares_the_channel_routes(api: ChannelApi, path: str) -> None:
    document = await api.call("GET", "/openapi.json", 200)
    assert path in document["paths"]
    send = document["paths"]["/api/agents/{agentId}/send"]["post"]["responses"]
    assert {"200", "201", "404", "422"} <= set(send)
    assert send["201"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/SendReceiptView"
    }
