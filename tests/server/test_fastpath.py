"""The enqueue fast path answers exactly as the FastAPI route does.

Two real servers on free loopback ports, each over its own runtime and SQLite
file: one with the app as built (fast path in front), one with the fast path
taken out, so every request reaches the route. Each request is sent to both;
status, body (item ids aside) and the mailbox afterwards must be the same.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from attn import AgentConfig, Focus, MailboxItem, Runtime
from attn.server.app import create_app
from attn.server.fastpath import EnqueueFastPath
from attn.server.testing import serve_app
from attn.store.sqlite import SQLiteStore

TOKEN = "fast-path-token"
JSON = {"content-type": "application/json"}
PATH = "/api/agents/alice/mailbox"
_ID = re.compile(r"mbx_[0-9a-f]+")


async def _never(item: MailboxItem, focus: Focus) -> None:
    raise AssertionError("the agents are stopped; nothing is processed")


@dataclass
class Served:
    url: str
    runtime: Runtime
    app: Any

    @property
    def fast_path(self) -> EnqueueFastPath | None:
        """The app's fast path middleware (the stack is built at the first request)."""
        if self.app.middleware_stack is None:
            self.app.middleware_stack = self.app.build_middleware_stack()
        return _find_fast_path(self.app.middleware_stack)


@contextlib.asynccontextmanager
async def _serve(db: Path, *, fast: bool, token: str | None) -> AsyncIterator[Served]:
    async with Runtime(SQLiteStore(db)) as runtime:
        config = AgentConfig(max_queued=6, max_payload_bytes=1000)
        await runtime.add_agent("alice", _never, config, start=False)
        app = create_app(runtime, token=token, max_body_bytes=4096)
        if not fast:
            app.user_middleware = [m for m in app.user_middleware if m.cls is not EnqueueFastPath]
        async with serve_app(app) as url:
            yield Served(url, runtime, app)


def _find_fast_path(app: Any) -> EnqueueFastPath | None:
    while app is not None:
        if isinstance(app, EnqueueFastPath):
            return app
        app = getattr(app, "app", None)
    return None


@pytest.fixture
async def pair(tmp_path: Path) -> AsyncIterator[tuple[Served, Served]]:
    async with (
        _serve(tmp_path / "fast.db", fast=True, token=None) as fast,
        _serve(tmp_path / "route.db", fast=False, token=None) as route,
    ):
        assert fast.fast_path is not None and route.fast_path is None
        yield fast, route


async def _chunks(data: bytes) -> AsyncIterator[bytes]:
    yield data[:5]
    yield data[5:]


#: (case, headers, body): bodies are bytes as sent, or a JSON value to encode.
CASES: list[tuple[str, dict[str, str], Any]] = [
    ("minimal", JSON, {"sourceType": "system_event", "payload": {"content": "hi"}}),
    (
        "everything",
        JSON,
        {
            "sourceType": "a2a_message",
            "priority": 0,
            "payload": {"content": "yo", "n": [1, 2.5, None]},
            "metadata": {"senderId": "bob", "senderRole": "user"},
        },
    ),
    (
        "user priority",
        JSON,
        {
            "sourceType": "human_chat",
            "payload": {"content": "q"},
            "metadata": {"senderRole": "user"},
        },
    ),
    (
        "key",
        {**JSON, "idempotency-key": "k-1"},
        {"sourceType": "system_event", "payload": {"content": "once"}},
    ),
    (
        "key again",
        {**JSON, "idempotency-key": "k-1"},
        {"sourceType": "system_event", "payload": {"content": "twice"}},
    ),
    (
        "tab in key",
        {**JSON, "idempotency-key": "a\tb"},
        {"sourceType": "system_event", "payload": {"content": "x"}},
    ),
    (
        "long key",
        {**JSON, "idempotency-key": "k" * 201},
        {"sourceType": "system_event", "payload": {"content": "x"}},
    ),
    ("unknown type", JSON, {"sourceType": "nope", "payload": {"content": "x"}}),
    (
        "priority 7",
        JSON,
        {"sourceType": "system_event", "priority": 7, "payload": {"content": "x"}},
    ),
    (
        "priority text",
        JSON,
        {"sourceType": "system_event", "priority": "1", "payload": {"content": "x"}},
    ),
    (
        "priority float",
        JSON,
        {"sourceType": "system_event", "priority": 1.0, "payload": {"content": "x"}},
    ),
    (
        "priority bool",
        JSON,
        {"sourceType": "system_event", "priority": True, "payload": {"content": "x"}},
    ),
    ("no text", JSON, {"sourceType": "human_chat", "payload": {}}),
    ("payload list", JSON, {"sourceType": "system_event", "payload": [1]}),
    ("extra field", JSON, {"sourceType": "system_event", "payload": {"content": "x"}, "z": 1}),
    ("not an object", JSON, [1, 2]),
    ("empty", JSON, b""),
    ("bad json", JSON, b'{"sourceType": '),
    ("nan", JSON, b'{"sourceType": "system_event", "payload": {"content": "x", "v": NaN}}'),
    (
        "deep",
        JSON,
        {
            "sourceType": "system_event",
            "payload": {"content": "x", "d": json.loads("[" * 40 + "]" * 40)},
        },
    ),
    (
        "too large for the type",
        JSON,
        {"sourceType": "system_event", "payload": {"content": "x" * 3000}},
    ),
    ("lone surrogate", JSON, b'{"sourceType": "system_event", "payload": {"content": "\\ud800"}}'),
    ("bom", JSON, b'\xef\xbb\xbf{"sourceType": "system_event", "payload": {"content": "b"}}'),
    (
        "utf-16",
        JSON,
        '{"sourceType": "system_event", "payload": {"content": "u"}}'.encode("utf-16"),
    ),
    (
        "text/plain",
        {"content-type": "text/plain"},
        {"sourceType": "system_event", "payload": {"content": "x"}},
    ),
    (
        "charset",
        {"content-type": "application/json; charset=utf-8"},
        {"sourceType": "system_event", "payload": {"content": "cs"}},
    ),
    ("no content type", {}, {"sourceType": "system_event", "payload": {"content": "x"}}),
    ("full", JSON, {"sourceType": "system_event", "payload": {"content": "4th"}}),
    ("full, but chat", JSON, {"sourceType": "human_chat", "payload": {"content": "hey"}}),
]


def _encode(body: Any) -> bytes:
    return body if isinstance(body, bytes) else json.dumps(body).encode()


def _normal(response: httpx.Response) -> tuple[int, str, str]:
    return (
        response.status_code,
        response.headers.get("content-type", ""),
        _ID.sub("<id>", response.text),
    )


async def _mailbox(http: httpx.AsyncClient) -> list[tuple[Any, ...]]:
    listing = (await http.get(PATH, params={"limit": 100})).json()
    return [
        (
            i["sourceType"],
            i["priority"],
            i["status"],
            i["payload"],
            i["metadata"],
            i.get("idempotencyKey"),
        )
        for i in listing["history"]
    ]


async def test_every_case_answers_as_the_route_does(pair: tuple[Served, Served]) -> None:
    fast, route = pair
    async with (
        httpx.AsyncClient(base_url=fast.url, timeout=10) as a,
        httpx.AsyncClient(base_url=route.url, timeout=10) as b,
    ):
        for case, headers, body in CASES:
            data = _encode(body)
            got = _normal(await a.post(PATH, content=data, headers=headers))
            want = _normal(await b.post(PATH, content=data, headers=headers))
            assert got == want, case
        assert await _mailbox(a) == await _mailbox(b)
    assert fast.fast_path is not None
    # 202s it served itself: minimal, everything, user priority, key, key again, bom, chat
    # when full. The tab-in-key and charset cases went to the route.
    assert fast.fast_path.served == 7


async def test_streamed_body_and_query_string_go_to_the_route(
    pair: tuple[Served, Served],
) -> None:
    fast, route = pair
    data = _encode({"sourceType": "system_event", "payload": {"content": "chunked"}})
    for served in (fast, route):
        async with httpx.AsyncClient(base_url=served.url, timeout=10) as http:
            chunked = await http.post(PATH, content=_chunks(data), headers=JSON)
            assert chunked.status_code == 202
            queried = await http.post(PATH + "?x=1", content=data, headers=JSON)
            assert queried.status_code == 202
    assert fast.fast_path is not None and fast.fast_path.served == 0


async def test_unknown_and_odd_agent_names_answer_as_the_route_does(
    pair: tuple[Served, Served],
) -> None:
    fast, route = pair
    data = _encode({"sourceType": "system_event", "payload": {"content": "x"}})
    for path in (
        "/api/agents/bob/mailbox",
        "/api/agents/a%2Fb/mailbox",
        "/api/agents//mailbox",
        "/api/agents/" + "n" * 500 + "/mailbox",
    ):
        answers = []
        for served in (fast, route):
            async with httpx.AsyncClient(base_url=served.url, timeout=10) as http:
                answers.append(_normal(await http.post(path, content=data, headers=JSON)))
        assert answers[0] == answers[1], path
        assert answers[0][0] == 404


async def test_the_token_is_checked_before_the_fast_path(tmp_path: Path) -> None:
    data = _encode({"sourceType": "system_event", "payload": {"content": "x"}})
    async with (
        _serve(tmp_path / "t.db", fast=True, token=TOKEN) as served,
        httpx.AsyncClient(base_url=served.url, timeout=10) as http,
    ):
        for auth in ({}, {"authorization": "Bearer wrong"}):
            refused = await http.post(PATH, content=data, headers={**JSON, **auth})
            assert refused.status_code == 401
        assert served.runtime.get_agent("alice").depth == 0
        ok = await http.post(
            PATH, content=data, headers={**JSON, "authorization": f"Bearer {TOKEN}"}
        )
        assert ok.status_code == 202
        assert served.runtime.get_agent("alice").depth == 1
    assert served.fast_path is not None and served.fast_path.served == 1


async def test_a_declared_oversized_body_is_413_and_changes_nothing(
    pair: tuple[Served, Served],
) -> None:
    fast, _route = pair
    data = _encode({"sourceType": "system_event", "payload": {"content": "x" * 5000}})
    async with httpx.AsyncClient(base_url=fast.url, timeout=10) as http:
        refused = await http.post(PATH, content=data, headers=JSON)
    assert refused.status_code == 413
    assert refused.json()["error"]["code"] == "body_too_large"
    assert fast.runtime.get_agent("alice").depth == 0


async def test_srv_04_a_repeated_key_after_a_restart_is_answered_as_a_duplicate(
    tmp_path: Path,
) -> None:
    """B1: the retry of a request whose item crash recovery dropped was answered 202
    with the old id, as if it would be processed. Both paths now answer 200
    ``duplicate`` with the first item's status and reason, and store nothing."""
    from attn.store.base import ItemQuery, UpdateItem

    db = tmp_path / "restart.db"
    body = json.dumps({"sourceType": "heartbeat", "payload": {"content": "patrol"}}).encode()
    headers = {**JSON, "idempotency-key": "beat-1"}
    async with _serve(db, fast=True, token=None) as first:
        async with httpx.AsyncClient(base_url=first.url, timeout=10) as http:
            answer = await http.post(PATH, content=body, headers=headers)
        assert answer.status_code == 202
        accepted = answer.json()
        assert accepted == {
            "id": accepted["id"],
            "duplicate": False,
            "merged": False,
            "status": "queued",
            "reason": None,
        }
        # The process dies while the heartbeat is processing.
        await first.runtime.store.write([UpdateItem(accepted["id"], {"status": "processing"})])
    answers = []
    for fast in (True, False):  # after the restart: the fast path, then the route
        async with _serve(db, fast=fast, token=None) as served:
            assert (served.fast_path is not None) is fast
            async with httpx.AsyncClient(base_url=served.url, timeout=10) as http:
                answer = await http.post(PATH, content=body, headers=headers)
            stored = await served.runtime.store.find_items(ItemQuery("alice"))
        answers.append((answer.status_code, answer.headers["content-type"], answer.content))
        assert answer.status_code == 200
        assert answer.json() == {
            "id": accepted["id"],
            "duplicate": True,
            "merged": False,
            "status": "dropped",
            "reason": "left processing by a crash; this type is not redelivered",
        }
        assert [(i.id, i.status) for i in stored] == [(accepted["id"], "dropped")]
    assert answers[0] == answers[1]  # byte for byte
