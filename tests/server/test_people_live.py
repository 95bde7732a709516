"""People's events over a real WebSocket (SRV-10, SRV-11, PPL-09's bell, issue 15).

``notification``, ``notification:read``, ``approval:requested`` and
``approval:answered`` reach every subscribed connection, whatever agents it
named; ``session:message`` reaches the subscribers of its agent. All carry the
hub's sequence numbers and are replayed after a reconnect; a client that fell
too far behind gets ``resync`` and finds pending approvals and notifications
over REST.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from attn.server.hub import EventHub
from attn.server.testing import recv_json
from tests.server.people_api import PeopleApi, api

__all__ = ["api"]

PEOPLE = {"notification", "notification:read", "approval:requested", "approval:answered"}


@pytest.fixture
def store_url() -> str:
    """The live protocol does not depend on the store: memory only."""
    return "memory://"


def _ws_url(api: PeopleApi) -> str:
    return api.url.replace("http://", "ws://").rstrip("/") + "/ws"


async def _subscribe(ws: ClientConnection, **fields: Any) -> list[dict[str, Any]]:
    """Subscribe; what came before ``subscribed`` (a replay or a resync), then it."""
    await ws.send(json.dumps({"type": "subscribe", **fields}))
    seen = []
    while True:
        message = await recv_json(ws)
        seen.append(message)
        if message["type"] in ("subscribed", "error"):
            return seen


async def _events_until(ws: ClientConnection, name: str) -> list[dict[str, Any]]:
    """Every event frame up to and including the first ``name`` one."""
    seen = []
    while True:
        message = await recv_json(ws)
        if message.get("type") == "event":
            seen.append(message)
            if message["event"] == name:
                return seen


def _people(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f for f in frames if f.get("event") in PEOPLE]


async def test_srv_10_notification_events_reach_every_subscriber_with_sequence_numbers(
    api: PeopleApi,
) -> None:
    async with (
        connect(_ws_url(api)) as helper_ws,
        connect(_ws_url(api)) as bell_ws,
        connect(_ws_url(api)) as all_ws,
    ):
        await _subscribe(helper_ws, agents=["helper"])  # not ops: still gets the bell
        start = (await _subscribe(bell_ws, agents=[]))[-1]["seq"]
        await _subscribe(all_ws, agents="*")
        made = await api.call("POST", "/api/agents/ops/notify", 201, json={"title": "hi"})
        from_outside = await api.call(
            "POST", "/api/notifications", 201, json={"type": "system", "title": "disk full"}
        )
        read = await api.call("POST", f"/api/notifications/{made['notification']['id']}/read", 200)
        assert read["notification"]["read"] is True
        for ws in (helper_ws, bell_ws, all_ws):
            seen = await _events_until(ws, "notification:read")
            sessions = [f["agentId"] for f in seen if f["event"] == "session:message"]
            assert sessions == (["ops"] if ws is all_ws else [])  # the notify message
            frames = _people(seen)
            assert [f["event"] for f in frames] == [
                "notification",
                "notification",
                "notification:read",
            ]
            first, second, marked = frames
            assert first["agentId"] == "ops"
            assert first["data"]["notification"] == made["notification"]
            assert second["agentId"] is None  # made by no agent
            assert second["data"]["notification"]["id"] == from_outside["notification"]["id"]
            assert marked["agentId"] is None
            assert marked["data"] == {
                "userId": "ann",
                "ids": [made["notification"]["id"]],
                "unreadCount": 1,
            }
            seqs = [f["seq"] for f in frames]
            assert seqs == sorted(set(seqs)) and seqs[0] > start


async def test_approval_events_reach_every_subscriber_and_session_messages_their_agent(
    api: PeopleApi,
) -> None:
    async with connect(_ws_url(api)) as helper_ws, connect(_ws_url(api)) as ops_ws:
        await _subscribe(helper_ws, agents=["helper"])
        await _subscribe(ops_ws, agents=["ops"])
        (approval_id,) = await api.ask()
        await api.call(
            "POST", f"/api/approvals/{approval_id}/answer", 200, json={"option": "approve"}
        )
        await api.settled()
        await api.call("POST", "/api/agents/ops/notify", 201, json={"title": "done"})
        for ws in (helper_ws, ops_ws):
            frames = await _events_until(ws, "notification")
            frames = frames + await _events_until(ws, "notification")  # the report's
            # (Answering marks the approval's notification read in the store; whether a
            # notification:read goes out for it is the people service's business.)
            people = [f for f in _people(frames) if f["event"] != "notification:read"]
            assert [f["event"] for f in people] == [
                "approval:requested",
                "notification",  # the approval_request in the bell
                "approval:answered",
                "notification",  # the report
            ]
            requested, asked, answered, _ = people
            assert requested["agentId"] == "ops"
            assert requested["data"]["approval"]["id"] == approval_id
            assert requested["data"]["approval"]["state"] == "pending"
            assert asked["data"]["notification"]["type"] == "approval_request"
            assert answered["data"]["approval"]["state"] == "approved"
            assert answered["data"]["resumed"] is True
            sessions = [f for f in frames if f["event"] == "session:message"]
            if ws is ops_ws:
                # The parked line, the resumed work's outcome, the notify message.
                assert sessions and {f["agentId"] for f in sessions} == {"ops"}
                assert sessions[-1]["data"]["message"]["content"].startswith("**done**")
            else:
                assert sessions == []
            assert all(f["agentId"] in ("ops", None) for f in people)


async def test_srv_11_a_reconnect_replays_the_missed_people_events_in_order(
    api: PeopleApi,
) -> None:
    async with connect(_ws_url(api)) as ws:
        last_seq = (await _subscribe(ws, agents=[]))[-1]["seq"]
    # Disconnected: an approval is asked and answered, a notification made.
    (approval_id,) = await api.ask()
    await api.call("POST", f"/api/approvals/{approval_id}/answer", 200, json={"option": "reject"})
    await api.settled()
    await api.call("POST", "/api/notifications", 201, json={"type": "system", "title": "later"})
    async with connect(_ws_url(api)) as ws:
        replay = await _subscribe(ws, agents=[], lastSeq=last_seq)
    events, subscribed = replay[:-1], replay[-1]
    assert subscribed["type"] == "subscribed"
    assert {e["event"] for e in events} <= PEOPLE  # agents []: people's events only
    events = [e for e in events if e["event"] != "notification:read"]
    assert [e["event"] for e in events] == [
        "approval:requested",
        "notification",
        "approval:answered",
        "notification",
    ]
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(set(seqs)) and seqs[0] > last_seq
    assert subscribed["seq"] >= seqs[-1]
    assert events[0]["data"]["approval"]["id"] == approval_id
    assert events[2]["data"]["approval"]["state"] == "rejected"
    assert events[-1]["data"]["notification"]["title"] == "later"


async def test_srv_11_a_client_too_far_behind_gets_resync_and_finds_them_over_rest(
    api: PeopleApi,
) -> None:
    hub: EventHub = api.app.state.hub
    hub.configure(buffer_size=3)
    async with connect(_ws_url(api)) as ws:
        last_seq = (await _subscribe(ws, agents=["ops"]))[-1]["seq"]
    (approval_id,) = await api.ask()
    for n in range(5):
        await api.call("POST", "/api/notifications", 201, json={"type": "system", "title": f"{n}"})
    async with connect(_ws_url(api)) as ws:
        replay = await _subscribe(ws, agents=["ops"], lastSeq=last_seq)
    assert [m["type"] for m in replay] == ["resync", "subscribed"]
    pending = await api.approvals(state="pending")
    assert [a["id"] for a in pending["approvals"]] == [approval_id]
    page = await api.notifications()
    assert page["unreadCount"] == 6 and page["totalCount"] == 6
