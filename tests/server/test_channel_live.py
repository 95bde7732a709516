"""A channel's messages live over a real WebSocket (issue 13 point 5).

``channel:*`` events carry no agent; they reach ``/ws`` subscribers of every
agent, of their channel (``channels`` in a subscribe) or of an agent they
concern. Unknown or malformed channels are refused and the subscription stays.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from attn.core.events import Event
from attn.server.hub import EventHub
from attn.server.testing import recv_json
from tests.server.channel_api import ChannelApi, api

__all__ = ["api"]


@pytest.fixture
def store_url() -> str:
    """The live protocol does not depend on the store: memory only."""
    return "memory://"


def _ws_url(api: ChannelApi) -> str:
    return str(api.client.base_url).replace("http://", "ws://").rstrip("/") + "/ws"


async def _subscribe(ws: ClientConnection, **fields: Any) -> list[dict[str, Any]]:
    await ws.send(json.dumps({"type": "subscribe", **fields}))
    seen = []
    while True:
        message = await recv_json(ws)
        seen.append(message)
        if message["type"] in ("subscribed", "error"):
            return seen


async def _next_event(ws: ClientConnection, name: str) -> dict[str, Any]:
    while True:
        message = await recv_json(ws)
        if message.get("event") == name:
            return message


async def _group(api: ChannelApi, members: list[str]) -> str:
    made = await api.call("POST", "/api/channels", 201, json={"name": "g", "members": members})
    key: str = made["key"]
    return key


async def test_a_channel_subscription_sees_that_channels_messages_only(api: ChannelApi) -> None:
    watched = await _group(api, ["a", "b"])
    other = await _group(api, ["a", "c"])
    async with connect(_ws_url(api)) as ws:
        [subscribed] = await _subscribe(ws, channels=[watched])
        assert subscribed["type"] == "subscribed"
        assert subscribed["agents"] == [] and subscribed["channels"] == [watched]
        await api.post(other, "not for the watcher", senderId="a")
        sent = await api.post(watched, "hello b", senderId="a")
        frame = await recv_json(ws)  # the first frame is the watched channel's, no agent events
        assert frame["event"] == "channel:message" and frame["agentId"] is None
        message = frame["data"]["message"]
        assert message["id"] == sent["messageId"] and message["channelKey"] == watched
        assert message["deliveries"] == sent["deliveries"]  # each outcome, live
        by_person = await api.post(watched, "and from a person")
        frame = await recv_json(ws)
        assert frame["data"]["message"]["id"] == by_person["messageId"]


async def test_an_agent_subscription_sees_the_channel_events_that_concern_it(
    api: ChannelApi,
) -> None:
    async with connect(_ws_url(api)) as ws:
        await _subscribe(ws, agents=["b"])
        await api.send("a", "c", "between a and c")
        group = await _group(api, ["a", "b"])
        created = await _next_event(ws, "channel:created")
        assert created["data"]["channel"]["key"] == group
        sent = await api.send("a", "b", "to b")
        frame = await _next_event(ws, "channel:message")
        assert frame["data"]["message"]["id"] == sent["messageId"]  # not the a-c message


async def test_every_agent_subscription_sees_all_channel_events(api: ChannelApi) -> None:
    async with connect(_ws_url(api)) as ws:
        await _subscribe(ws, agents="*")
        delegated = await api.call(
            "POST", "/api/agents/a/delegations", 201, json={"to": "b", "goal": "check"}
        )
        frame = await _next_event(ws, "channel:delegation")
        assert frame["data"]["delegation"]["id"] == delegated["delegation"]["id"]


async def test_a_replay_after_reconnect_includes_the_channels_messages(api: ChannelApi) -> None:
    key = await _group(api, ["a", "b"])
    async with connect(_ws_url(api)) as ws:
        [subscribed] = await _subscribe(ws, channels=[key])
    missed = await api.post(key, "while away", senderId="b")
    async with connect(_ws_url(api)) as ws:
        seen = await _subscribe(ws, channels=[key], lastSeq=subscribed["seq"])
    replayed = [m["data"]["message"]["id"] for m in seen if m.get("event") == "channel:message"]
    assert replayed == [missed["messageId"]]
    assert seen[-1]["type"] == "subscribed"


async def test_a_dm_of_hosted_agents_can_be_watched_before_its_first_message(
    api: ChannelApi,
) -> None:
    async with connect(_ws_url(api)) as ws:
        [subscribed] = await _subscribe(ws, channels=["dm:a2a:a:b"])
        assert subscribed["type"] == "subscribed"
        listed = await api.call("GET", "/api/channels", 200)
        assert listed["channels"] == []  # watching created nothing
        await api.send("b", "a", "first")
        frame = await _next_event(ws, "channel:message")
        assert frame["data"]["message"]["channelKey"] == "dm:a2a:a:b"


@pytest.mark.parametrize(
    ("subscribe", "code"),
    [
        ({"channels": ["group:custom:nope"]}, "unknown_channel"),
        ({"channels": ["dm:a2a:a:nobody"]}, "unknown_channel"),
        ({"channels": ["not a key"]}, "bad_message"),
        ({"channels": "group:x"}, "bad_message"),
        ({"channels": [1]}, "bad_message"),
        ({"channels": ["group:x"] * 1001}, "bad_message"),
        ({"agents": ["nobody"], "channels": ["dm:a2a:a:b"]}, "unknown_agent"),
    ],
)
async def test_a_bad_channel_subscription_is_refused_and_changes_nothing(
    api: ChannelApi, subscribe: dict[str, Any], code: str
) -> None:
    key = await _group(api, ["a", "b"])
    async with connect(_ws_url(api)) as ws:
        await _subscribe(ws, channels=[key])
        [error] = await _subscribe(ws, **subscribe)
        assert error["type"] == "error" and error["code"] == code, error
        sent = await api.post(key, "still watched", senderId="a")
        frame = await _next_event(ws, "channel:message")  # the old subscription holds
        assert frame["data"]["message"]["id"] == sent["messageId"]


async def test_agentless_events_of_any_shape_do_not_break_the_hub(api: ChannelApi) -> None:
    hub: EventHub = api.app.state.hub
    async with connect(_ws_url(api)) as ws:
        await _subscribe(ws, agents=["a"], channels=["dm:a2a:a:b"])
        published = hub.statistics()["published"]
        odd: list[dict[str, Any]] = [{}, {"message": "x"}, {"channel": {"members": "x"}}]
        for data in odd:
            for name in ("channel:message", "channel:created", "channel:delegation", "other"):
                api.rt.bus.emit(Event(name, None, data, api.clock.now()))
        assert hub.statistics()["published"] == published + 12
        sent = await api.send("a", "b", "after the odd ones")
        created = await recv_json(ws)  # none of the odd ones concerned this subscription
        assert created["event"] == "channel:created"
        assert created["data"]["channel"]["key"] == "dm:a2a:a:b"
        frame = await recv_json(ws)
        assert frame["data"]["message"]["id"] == sent["messageId"]
