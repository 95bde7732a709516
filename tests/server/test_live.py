"""Live events over a real WebSocket and streamed chat over real SSE (acceptance SRV-10..SRV-13).

Most tests run ``attn serve`` in a thread (:class:`LiveServer`) on a free port
with SQLite on disk; the tests that need a tiny replay buffer or queue limit
host the app on uvicorn in the test's own loop, so they can size the hub and
read its counters.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from attn.brains import ScriptBrain
from attn.runtime import Runtime
from attn.server.app import create_app
from attn.server.hub import EventHub
from attn.server.testing import LiveServer, recv_json, serve_app, team_config
from attn.store import open_store

TEAM = """\
[[agents]]
name = "alice"
brain = "script"
options = { steps = [{ say = "Hel" }, { say = "lo" }] }

[[agents]]
name = "bob"
brain = "echo"

[[agents]]
name = "pausy"
brain = "script"
options = { steps = [{ say = "first part" }, { sleep_s = 0.3 }, { say = "second part" }] }

[[agents]]
name = "slow"
brain = "script"
options = { steps = [{ sleep_s = 30.0 }] }
"""
TOKEN = "live-token-1234"
RECV_TIMEOUT_S = 10.0


def _config(tmp_path: Path, token: str | None = None) -> Any:
    return team_config(TEAM, tmp_path / "attn.db", token)


def _ws(url: str) -> str:
    return url.replace("http://", "ws://") + "/ws"


async def _recv(ws: ClientConnection) -> dict[str, Any]:
    return await recv_json(ws, RECV_TIMEOUT_S)


async def _subscribe(
    ws: ClientConnection, agents: list[str] | str, last_seq: int | None = None
) -> list[dict[str, Any]]:
    """Subscribe; return what came before ``subscribed`` (replay or resync), then it."""
    await ws.send(json.dumps({"type": "subscribe", "agents": agents, "lastSeq": last_seq}))
    before = []
    while True:
        message = await _recv(ws)
        before.append(message)
        if message["type"] == "subscribed":
            return before


async def _until(ws: ClientConnection, match: Any) -> list[dict[str, Any]]:
    """Messages up to and including the first one for which ``match`` is true."""
    seen = []
    while True:
        message = await _recv(ws)
        seen.append(message)
        if match(message):
            return seen


async def _until_all(ws: ClientConnection, item_ids: set[str]) -> list[dict[str, Any]]:
    """Messages until every item of ``item_ids`` completed (any order)."""
    seen, done = [], set()
    while done != item_ids:
        message = await _recv(ws)
        seen.append(message)
        done.update(i for i in item_ids if _completed(i)(message))
    return seen


def _completed(item_id: str) -> Any:
    def match(message: dict[str, Any]) -> bool:
        if message.get("event") != "agent:item":
            return False
        item = message["data"]["item"]
        return bool(item["id"] == item_id and item["status"] == "completed")

    return match


async def _enqueue(http: httpx.AsyncClient, agent: str, text: str) -> str:
    response = await http.post(
        f"/api/agents/{agent}/mailbox",
        json={"sourceType": "a2a_message", "payload": {"content": text}},
    )
    assert response.status_code == 202, response.text
    item_id: str = response.json()["id"]
    return item_id


# -------------------------------------------------------------------- SRV-10 events


async def test_srv10_subscribed_agents_get_events_with_monotonic_seq(server: LiveServer) -> None:
    async with (
        connect(_ws(server.url)) as ws,
        httpx.AsyncClient(base_url=server.url, timeout=10.0) as http,
    ):
        subscribed = (await _subscribe(ws, ["bob"]))[-1]
        assert subscribed == {"type": "subscribed", "agents": ["bob"], "seq": subscribed["seq"]}
        await _enqueue(http, "alice", "not for this socket")
        item_id = await _enqueue(http, "bob", "hello bob")
        events = await _until(ws, _completed(item_id))
    names = [e["event"] for e in events]
    assert names[0] == "agent:mailbox"
    assert events[0]["data"]["item"]["id"] == item_id
    assert events[0]["data"]["item"]["payload"] == {"content": "hello bob"}
    for name in ("agent:decision", "agent:attention", "agent:focus", "agent:item"):
        assert name in names
    assert {e["agentId"] for e in events} == {"bob"}
    assert all(e["type"] == "event" and isinstance(e["at"], str) for e in events)
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert seqs[0] > subscribed["seq"]
    decision = next(e for e in events if e["event"] == "agent:decision")["data"]["decision"]
    assert decision["mailboxItemId"] == item_id and decision["decisionType"]
    focus = next(e for e in events if e["event"] == "agent:focus")["data"]
    assert set(focus) >= {"currentFocus", "queueDepth"}
    attention = next(e for e in events if e["event"] == "agent:attention")["data"]
    assert set(attention) >= {"state", "currentFocus"}


async def test_srv10_star_subscription_sees_every_agent(server: LiveServer) -> None:
    async with (
        connect(_ws(server.url)) as ws,
        httpx.AsyncClient(base_url=server.url, timeout=10.0) as http,
    ):
        subscribed = (await _subscribe(ws, "*"))[-1]
        assert subscribed["agents"] == "*"
        first = await _enqueue(http, "alice", "one")
        second = await _enqueue(http, "bob", "two")
        events = await _until_all(ws, {first, second})
    assert {e["agentId"] for e in events} == {"alice", "bob"}
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(subscribed["seq"] + 1, subscribed["seq"] + 1 + len(seqs))), (
        "a * subscriber misses no seq"
    )


async def test_srv10_subscribe_replaces_the_subscription(server: LiveServer) -> None:
    async with (
        connect(_ws(server.url)) as ws,
        httpx.AsyncClient(base_url=server.url, timeout=10.0) as http,
    ):
        await _subscribe(ws, ["alice"])
        await _subscribe(ws, ["bob"])
        await _enqueue(http, "alice", "ignored")
        item_id = await _enqueue(http, "bob", "seen")
        events = await _until(ws, _completed(item_id))
    assert {e["agentId"] for e in events} == {"bob"}


async def test_srv10_stream_deltas_reach_websocket_subscribers(server: LiveServer) -> None:
    async with (
        connect(_ws(server.url)) as ws,
        httpx.AsyncClient(base_url=server.url, timeout=10.0) as http,
    ):
        await _subscribe(ws, ["alice"])
        reply = await http.post("/api/agents/alice/chat/stream", json={"text": "hi"})
        assert reply.status_code == 200
        item_id = next(
            json.loads(line.removeprefix("data: "))["mailboxItemId"]
            for line in reply.text.splitlines()
            if line.startswith("data: ") and "mailboxItemId" in line
        )
        events = await _until(ws, _completed(item_id))
    streams = [e["data"] for e in events if e["event"] == "agent:stream"]
    # The script brain's reply joins its says with a space, and so does its stream (C9).
    assert streams == [
        {"mailboxItemId": item_id, "text": "Hel"},
        {"mailboxItemId": item_id, "text": " lo"},
    ]


# ---------------------------------------------------------- SRV-11 reconnect, replay


async def test_srv11_reconnect_with_last_seq_replays_missed_events_in_order(
    server: LiveServer,
) -> None:
    async with (
        httpx.AsyncClient(base_url=server.url, timeout=10.0) as http,
        connect(_ws(server.url)) as watcher,
    ):
        await _subscribe(watcher, ["bob"])
        async with connect(_ws(server.url)) as ws:
            await _subscribe(ws, "*")
            first = await _enqueue(http, "bob", "before the gap")
            seen = await _until(ws, _completed(first))
            last_seq = seen[-1]["seq"]
        # Disconnected: these happen while only the watcher listens.
        missed_ids = [await _enqueue(http, "bob", f"in the gap {i}") for i in range(3)]
        await _until(watcher, _completed(missed_ids[-1]))
        async with connect(_ws(server.url)) as ws:
            replay = await _subscribe(ws, "*", last_seq)
    events, subscribed = replay[:-1], replay[-1]
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(last_seq + 1, last_seq + 1 + len(seqs))), "every missed seq"
    assert subscribed["seq"] == seqs[-1]
    mailbox_ids = [e["data"]["item"]["id"] for e in events if e["event"] == "agent:mailbox"]
    assert mailbox_ids == missed_ids
    completed = [
        e["data"]["item"]["id"]
        for e in events
        if e["event"] == "agent:item" and e["data"]["item"]["status"] == "completed"
    ]
    assert completed == missed_ids


async def test_srv11_replay_is_filtered_by_agent(server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=10.0) as http:
        async with connect(_ws(server.url)) as ws:
            subscribed = (await _subscribe(ws, "*"))[-1]
            alice = await _enqueue(http, "alice", "for alice")
            bob = await _enqueue(http, "bob", "for bob")
            await _until_all(ws, {alice, bob})
        async with connect(_ws(server.url)) as ws:
            replay = await _subscribe(ws, ["alice"], subscribed["seq"])
    events = replay[:-1]
    assert events and {e["agentId"] for e in events} == {"alice"}


async def test_srv11_last_seq_from_another_server_run_gets_resync(server: LiveServer) -> None:
    async with connect(_ws(server.url)) as ws:
        current = (await _subscribe(ws, "*"))[-1]["seq"]
        stale = await _subscribe(ws, "*", current + 1_000_000)
        assert [m["type"] for m in stale] == ["resync", "subscribed"]
        assert stale[0]["seq"] == current
        older = await _subscribe(ws, "*", 5)
        assert [m["type"] for m in older] == ["resync", "subscribed"]


# ------------------------------------------------------------ in-process server


@contextlib.asynccontextmanager
async def _serving(
    tmp_path: Path, **hub_sizes: int
) -> AsyncIterator[tuple[str, EventHub, Runtime]]:
    """A runtime with ``quiet`` (not started) and ``alice`` (script), served on a free port."""
    runtime = Runtime(open_store(f"sqlite:///{tmp_path / 'inproc.db'}"))
    await runtime.start()
    await runtime.add_agent("alice", ScriptBrain([{"say": "hi"}]))
    await runtime.add_agent("quiet", ScriptBrain([{"say": "never"}]), start=False)
    app = create_app(runtime)
    hub: EventHub = app.state.hub
    hub.configure(**hub_sizes)
    try:
        async with serve_app(app) as url:
            yield url, hub, runtime
    finally:
        await runtime.close()


async def test_srv11_last_seq_older_than_the_buffer_gets_resync(tmp_path: Path) -> None:
    async with _serving(tmp_path, buffer_size=5) as (url, hub, runtime):
        quiet = runtime.get_agent("quiet")
        async with connect(_ws(url)) as ws:
            last_seq = (await _subscribe(ws, ["quiet"]))[-1]["seq"]
        for i in range(3):
            await quiet.enqueue("a2a_message", {"content": f"small gap {i}"})
        async with connect(_ws(url)) as ws:
            replay = await _subscribe(ws, ["quiet"], last_seq)
            assert [m.get("event") for m in replay[:-1]] == ["agent:mailbox"] * 3
            last_seq = replay[-1]["seq"]
        for i in range(8):
            await quiet.enqueue("a2a_message", {"content": f"big gap {i}"})
        async with connect(_ws(url)) as ws:
            replay = await _subscribe(ws, ["quiet"], last_seq)
            assert [m["type"] for m in replay] == ["resync", "subscribed"]
            assert replay[0]["seq"] == hub.seq
            # Live events go on after the resync.
            item_id = await quiet.enqueue("a2a_message", {"content": "after"})
            event = await _recv(ws)
            assert event["event"] == "agent:mailbox" and event["data"]["item"]["id"] == item_id


# -------------------------------------------------------------- SRV-12 slow client


async def test_srv12_slow_client_gets_bounded_queue_and_resync(tmp_path: Path) -> None:
    queue_size = 20
    async with _serving(tmp_path, queue_size=queue_size) as (url, hub, runtime):
        quiet = runtime.get_agent("quiet")
        host, port = url.removeprefix("http://").split(":")
        raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        raw.setblocking(False)
        await asyncio.get_running_loop().sock_connect(raw, (host, int(port)))
        # max_queue=1: the client stops reading the socket while frames wait, like a
        # stalled browser tab; the server's writes then block on TCP backpressure.
        async with connect(_ws(url), sock=raw, max_queue=1) as slow:
            await _subscribe(slow, ["quiet"])
            enqueued = 0
            payload = {"content": "x" * 400}
            while hub.statistics()["resyncs"] == 0:
                assert enqueued < 20_000, "the slow client never overflowed"
                await asyncio.gather(*(quiet.enqueue("a2a_message", payload) for _ in range(50)))
                enqueued += 50
                stats = hub.statistics()
                assert stats["queued"] <= queue_size + 1, stats
            # The agents were never held up: every enqueue above returned.
            stats = hub.statistics()
            assert stats["peakQueued"] <= queue_size + 1, stats
            assert stats["published"] >= enqueued
            # Reading now: a resync arrives, then the client is live again.
            last = await quiet.enqueue("a2a_message", {"content": "the end"})
            seen = await _until(
                slow,
                lambda m: m.get("event") == "agent:mailbox" and m["data"]["item"]["id"] == last,
            )
        types = [m["type"] for m in seen]
        assert "resync" in types
        assert len(seen) < enqueued, "the backlog was dropped, not delivered in full"
        resync = seen[types.index("resync")]
        after = [m["seq"] for m in seen[types.index("resync") + 1 :] if m["type"] == "event"]
        assert after == sorted(after) and all(seq > resync["seq"] for seq in after)


# ---------------------------------------------------------------- bad messages


async def test_bad_messages_get_errors_and_the_socket_stays_open(server: LiveServer) -> None:
    async with (
        connect(_ws(server.url)) as ws,
        httpx.AsyncClient(base_url=server.url, timeout=10.0) as http,
    ):
        await _subscribe(ws, ["bob"])
        bad: list[str | bytes] = [
            "not json",
            "[1, 2]",
            '{"no": "type"}',
            '{"type": "dance"}',
            '{"type": 7}',
            '{"type": "subscribe"}',
            '{"type": "subscribe", "agents": "bob"}',
            '{"type": "subscribe", "agents": [1]}',
            '{"type": "subscribe", "agents": "*", "lastSeq": -1}',
            '{"type": "subscribe", "agents": "*", "lastSeq": true}',
            '{"type": "subscribe", "agents": "*", "lastSeq": "12"}',
            "[" * 100_000,
            b"\x00binary",
        ]
        for message in bad:
            await ws.send(message)
            reply = await _recv(ws)
            assert reply["type"] == "error", (message, reply)
            assert reply["code"] == "bad_message"
            assert isinstance(reply["message"], str) and reply["message"]
        await ws.send(json.dumps({"type": "subscribe", "agents": ["bob", "nobody"]}))
        unknown = await _recv(ws)
        assert unknown["type"] == "error" and unknown["code"] == "unknown_agent"
        assert "nobody" in unknown["message"]
        await ws.send(json.dumps({"type": "ping"}))
        assert await _recv(ws) == {"type": "pong"}
        # The subscription to bob is unchanged.
        item_id = await _enqueue(http, "bob", "still subscribed")
        event = await _recv(ws)
        assert event["event"] == "agent:mailbox" and event["data"]["item"]["id"] == item_id


async def test_nothing_arrives_before_subscribe(server: LiveServer) -> None:
    async with (
        connect(_ws(server.url)) as ws,
        httpx.AsyncClient(base_url=server.url, timeout=10.0) as http,
    ):
        await _enqueue(http, "bob", "unseen")
        await ws.send(json.dumps({"type": "ping"}))
        assert await _recv(ws) == {"type": "pong"}


# ------------------------------------------------------------------ SRV-07 token


@pytest.fixture
def token_server(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(_config(tmp_path, token=TOKEN)) as live:
        yield live


@pytest.mark.parametrize(
    ("suffix", "headers"),
    [
        ("", None),
        ("?token=wrong-token", None),
        ("", {"Authorization": "Bearer wrong-token"}),
        ("", {"Authorization": f"Basic {TOKEN}"}),
    ],
    ids=["missing", "wrong-query", "wrong-header", "not-bearer"],
)
async def test_srv07_websocket_needs_the_token(
    token_server: LiveServer, suffix: str, headers: dict[str, str] | None
) -> None:
    async with connect(_ws(token_server.url) + suffix, additional_headers=headers) as ws:
        error = await _recv(ws)
        assert error["type"] == "error" and error["code"] == "unauthorized"
        assert "token" in error["message"]
        with pytest.raises(ConnectionClosed) as closed:
            await _recv(ws)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401


@pytest.mark.parametrize("where", ["query", "header"])
async def test_srv07_websocket_with_the_token_works(token_server: LiveServer, where: str) -> None:
    url = _ws(token_server.url) + (f"?token={TOKEN}" if where == "query" else "")
    headers = {"Authorization": f"Bearer {TOKEN}"} if where == "header" else None
    async with connect(url, additional_headers=headers) as ws:
        assert (await _subscribe(ws, ["bob"]))[-1]["type"] == "subscribed"


async def test_srv07_sse_route_needs_the_token(token_server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=token_server.url, timeout=10.0) as http:
        refused = await http.post("/api/agents/bob/chat/stream", json={"text": "hi"})
        assert refused.status_code == 401
        assert refused.json()["error"]["code"] == "unauthorized"
        history = await http.get(
            "/api/agents/bob/mailbox", headers={"Authorization": f"Bearer {TOKEN}"}
        )
        assert history.json()["total"] == 0


# ------------------------------------------------------------ SRV-13 streamed chat


def _parse_sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for block in text.split("\n\n"):
        lines = [line for line in block.splitlines() if line and not line.startswith(":")]
        if not lines:
            continue
        fields = dict(line.split(": ", 1) for line in lines)
        events.append((fields["event"], json.loads(fields["data"])))
    return events


async def test_srv13_streamed_chat_sends_deltas_then_done(server: LiveServer) -> None:
    async with (
        httpx.AsyncClient(base_url=server.url, timeout=10.0) as http,
        http.stream(
            "POST", "/api/agents/alice/chat/stream", json={"text": "hi", "sessionId": "s1"}
        ) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "no-cache"
        text = "".join([chunk async for chunk in response.aiter_text()])
    events = _parse_sse(text)
    assert [name for name, _ in events] == ["item", "delta", "delta", "done"]
    item_id = events[0][1]["mailboxItemId"]
    assert [data for name, data in events if name == "delta"] == [{"text": "Hel"}, {"text": " lo"}]
    done = events[-1][1]
    assert done["mailboxItemId"] == item_id and done["cancelled"] is False
    assert done["reply"] == "Hel lo"  # the deltas add up to the reply (C9)
    async with httpx.AsyncClient(base_url=server.url, timeout=10.0) as http:
        history = (await http.get("/api/agents/alice/mailbox")).json()["history"]
    stored = next(item for item in history if item["id"] == item_id)
    assert stored["status"] == "completed" and stored["payload"]["content"] == "hi"


async def test_srv13_client_gone_mid_stream_the_item_still_completes(server: LiveServer) -> None:
    async with (
        connect(_ws(server.url)) as ws,
        httpx.AsyncClient(base_url=server.url, timeout=10.0) as http,
    ):
        await _subscribe(ws, ["pausy"])
        async with http.stream(
            "POST", "/api/agents/pausy/chat/stream", json={"text": "start and leave"}
        ) as response:
            lines = response.aiter_lines()
            item_id = None
            async for line in lines:
                if line.startswith("data: ") and item_id is None:
                    item_id = json.loads(line.removeprefix("data: "))["mailboxItemId"]
                if line == 'data: {"text":"first part"}':
                    break
        # The response is closed mid-stream; the agent goes on and completes the item.
        assert item_id is not None
        events = await _until(ws, _completed(item_id))
        assert [e["data"]["text"] for e in events if e["event"] == "agent:stream"][-1] == (
            " second part"
        )
        mailbox = (await http.get("/api/agents/pausy/mailbox")).json()
        assert mailbox["queueDepth"] == 0
        stored = next(item for item in mailbox["history"] if item["id"] == item_id)
        assert stored["status"] == "completed"


async def test_srv13_reply_timeout_is_an_error_event(server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=10.0) as http:
        response = await http.post(
            "/api/agents/slow/chat/stream", json={"text": "take your time", "timeoutS": 0.2}
        )
    events = _parse_sse(response.text)
    assert [name for name, _ in events] == ["item", "error"]
    error = events[1][1]["error"]
    assert error["code"] == "reply_timeout"
    assert error["mailboxItemId"] == events[0][1]["mailboxItemId"]


@pytest.mark.parametrize(
    ("path", "content", "headers", "status", "code"),
    [
        ("/api/agents/alice/chat/stream", {"text": "  "}, None, 422, "invalid_input"),
        ("/api/agents/alice/chat/stream", {"text": 5}, None, 422, "validation_error"),
        ("/api/agents/alice/chat/stream", {"text": "x", "oops": 1}, None, 422, "validation_error"),
        (
            "/api/agents/alice/chat/stream",
            {"text": "x", "sourceType": "nope"},
            None,
            422,
            "unknown_item_type",
        ),
        (
            "/api/agents/alice/chat/stream",
            {"text": "x", "timeoutS": -1},
            None,
            422,
            "validation_error",
        ),
        (
            "/api/agents/alice/chat/stream",
            b"{not json",
            {"Content-Type": "application/json"},
            400,
            "malformed_json",
        ),
        (
            "/api/agents/alice/chat/stream",
            b'{"text": "x"}',
            {"Content-Type": "text/plain"},
            415,
            "unsupported_media_type",
        ),
        (
            "/api/agents/alice/chat/stream",
            b"x" * 2_000_000,
            {"Content-Type": "application/json"},
            413,
            "body_too_large",
        ),
        ("/api/agents/nobody/chat/stream", {"text": "x"}, None, 404, "unknown_agent"),
    ],
    ids=[
        "blank",
        "wrong-type",
        "unknown-field",
        "unknown-source-type",
        "negative-timeout",
        "malformed",
        "not-json-type",
        "oversized",
        "unknown-agent",
    ],
)
async def test_srv13_bad_input_is_a_json_error_and_enqueues_nothing(
    server: LiveServer,
    path: str,
    content: Any,
    headers: dict[str, str] | None,
    status: int,
    code: str,
) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=10.0) as http:
        before = (await http.get("/api/agents/alice/mailbox")).json()["total"]
        if isinstance(content, bytes):
            response = await http.post(path, content=content, headers=headers)
        else:
            response = await http.post(path, json=content)
        assert response.status_code == status, response.text
        assert response.headers["content-type"].startswith("application/json")
        body = response.json()
        assert body["error"]["code"] == code and body["error"]["message"]
        after = (await http.get("/api/agents/alice/mailbox")).json()["total"]
    assert after == before


def test_openapi_documents_the_stream_route(server: LiveServer) -> None:
    schema = httpx.get(f"{server.url}/openapi.json", timeout=10.0).json()
    route = schema["paths"]["/api/agents/{agentId}/chat/stream"]["post"]
    assert "text/event-stream" in route["responses"]["200"]["content"]
