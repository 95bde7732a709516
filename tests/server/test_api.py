"""The HTTP API over real HTTP: a uvicorn server on a free port, a runtime on an SQLite file.

Bad input must answer 4xx with the one error shape and leave the mailbox as it was;
that is checked through the API itself.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from attn.server.testing import LiveServer, team_config

TEAM = """\
[[agents]]
name = "alice"
brain = "echo"
description = "echoes in two steps"
options = { steps = 2 }

[[agents]]
name = "slow"
brain = "script"
options = { steps = [{ sleep_s = 30.0 }] }
"""
TOKEN = "test-token-1234"


def _config(tmp_path: Path, token: str | None = None) -> Any:
    return team_config(TEAM, tmp_path / "attn.db", token)


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=10.0) as http:
        yield http


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server for the many bad-input cases; each compares before and after itself."""
    with LiveServer(_config(tmp_path_factory.mktemp("shared"))) as live:
        yield live


@pytest.fixture
def shared(shared_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=shared_server.url, timeout=10.0) as http:
        yield http


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    message = body["error"]["message"]
    assert isinstance(message, str) and message
    return message


def _snapshot(client: httpx.Client, agent: str = "alice") -> tuple[int, int, int]:
    """(items in history, queue depth, decisions) of one agent, read over the API."""
    mailbox = client.get(f"/api/agents/{agent}/mailbox", params={"limit": 1000}).json()
    decisions = client.get(f"/api/agents/{agent}/decisions", params={"limit": 1000}).json()
    return mailbox["total"], mailbox["queueDepth"], len(decisions["decisions"])


def _barrier(client: httpx.Client, agent: str = "alice") -> None:
    """Return once the agent has handled everything queued before this call.

    A chat of the same priority (an a2a message, P2) queues behind earlier P2
    items, and the agent serves one item at a time, so its reply comes last.
    """
    reply = client.post(
        f"/api/agents/{agent}/chat", json={"text": "barrier", "sourceType": "a2a_message"}
    )
    assert reply.status_code == 200, reply.text


# ----------------------------------------------------------------------------- routes


def test_health(client: httpx.Client) -> None:
    response = client.get("/health")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


def test_list_and_get_agents(client: httpx.Client) -> None:
    agents = client.get("/api/agents").json()["agents"]
    assert [a["agentId"] for a in agents] == ["alice", "slow"]
    alice = agents[0]
    assert alice["state"] == "idle"
    assert alice["queueDepth"] == 0
    assert alice["currentFocus"] is None
    assert alice["description"] == "echoes in two steps"
    detail = client.get("/api/agents/alice").json()
    assert detail["agentId"] == "alice"
    assert detail["statistics"]["queueDepth"] == 0


def test_types(client: httpx.Client) -> None:
    types = client.get("/api/types").json()["types"]
    by_name = {t["name"]: t for t in types}
    assert by_name["human_chat"]["defaultPriority"] == 0
    assert "heartbeat" in by_name


# SRV-04 (chat waits for the reply), SRV-03 (activity logs in sequence order)
def test_chat_returns_reply_and_records_the_pick(client: httpx.Client) -> None:
    response = client.post("/api/agents/alice/chat", json={"text": "hello", "sessionId": "s1"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["reply"] == "echo: hello"
    item_id = body["mailboxItemId"]
    history = client.get("/api/agents/alice/mailbox").json()["history"]
    item = next(i for i in history if i["id"] == item_id)
    assert item["status"] == "completed"
    assert item["sourceType"] == "human_chat"
    assert item["metadata"]["sessionId"] == "s1"
    assert [d["decisionType"] for d in item["decisions"]] == ["pick"]
    decisions = client.get("/api/agents/alice/decisions").json()["decisions"]
    assert any(d["mailboxItemId"] == item_id and d["decisionType"] == "pick" for d in decisions)
    activity = item["activity"]
    logs = client.get("/api/agents/alice/activity-logs", params={"activityId": activity["id"]})
    assert logs.status_code == 200
    contents = [entry["content"] for entry in logs.json()["logs"]]
    assert contents[-1] == "echo: hello"
    assert [entry["seq"] for entry in logs.json()["logs"]] == sorted(
        entry["seq"] for entry in logs.json()["logs"]
    )


# SRV-04: fire-and-forget enqueue is 202 with the item id, through the mailbox
def test_enqueue_is_202_and_gets_processed(client: httpx.Client) -> None:
    response = client.post(
        "/api/agents/alice/mailbox",
        json={
            "sourceType": "a2a_message",
            "payload": {"content": "from bob"},
            "priority": 2,
            "metadata": {"senderId": "bob"},
        },
    )
    assert response.status_code == 202, response.text
    item_id = response.json()["id"]
    assert item_id.startswith("mbx_")
    _barrier(client)
    history = client.get("/api/agents/alice/mailbox", params={"type": "a2a_message"}).json()
    item = next(i for i in history["history"] if i["id"] == item_id)
    assert item["status"] == "completed"
    assert item["metadata"]["senderId"] == "bob"
    assert "pick" in [d["decisionType"] for d in item["decisions"]]


# SRV-04: a repeated idempotency key returns the same item
def test_idempotency_key_returns_the_same_item(client: httpx.Client) -> None:
    before = _snapshot(client)
    body = {"sourceType": "a2a_message", "payload": {"content": "once"}}
    first = client.post("/api/agents/alice/mailbox", json=body, headers={"Idempotency-Key": "k1"})
    again = client.post("/api/agents/alice/mailbox", json=body, headers={"Idempotency-Key": "k1"})
    assert (first.status_code, again.status_code) == (202, 200)
    assert first.json() == {
        "id": first.json()["id"],
        "duplicate": False,
        "merged": False,
        "status": "queued",
        "reason": None,
    }
    assert again.json()["id"] == first.json()["id"] and again.json()["duplicate"] is True
    _barrier(client)
    after = _snapshot(client)
    assert after[0] == before[0] + 2  # the item and the barrier chat, not a duplicate


# SRV-02
def test_mailbox_filters_and_paging(client: httpx.Client) -> None:
    client.post(
        "/api/agents/alice/mailbox", json={"sourceType": "mention", "payload": {"content": "m"}}
    )
    _barrier(client)
    mentions = client.get("/api/agents/alice/mailbox", params={"type": "mention,heartbeat"}).json()
    assert {i["sourceType"] for i in mentions["history"]} == {"mention"}
    done = client.get("/api/agents/alice/mailbox", params={"status": "completed"}).json()
    assert {i["status"] for i in done["history"]} == {"completed"}
    assert done["total"] == 2
    page = client.get("/api/agents/alice/mailbox", params={"limit": 1, "offset": 1}).json()
    assert len(page["history"]) == 1
    assert page["total"] == 2
    interaction = client.get("/api/agents/alice/mailbox", params={"category": "interaction"})
    assert interaction.status_code == 200


def test_mind(client: httpx.Client) -> None:
    # SRV-01
    mind = client.get("/api/agents/alice/mind").json()
    assert mind["agentId"] == "alice"
    assert mind["state"] == "idle"
    assert mind["queueDepth"] == 0
    assert mind["currentFocus"] is None
    assert mind["recentDecisions"] == [] and mind["lastTriage"] is None
    client.post("/api/agents/alice/chat", json={"text": "hi"}).raise_for_status()
    mind = client.get("/api/agents/alice/mind").json()
    [decision] = mind["recentDecisions"]
    assert decision["decisionType"] == "pick"
    missing = client.get("/api/agents/zed/mind")
    assert missing.status_code == 404 and "'zed'" in missing.json()["error"]["message"]


def test_mind_focus_has_label_start_and_task_id(client: httpx.Client) -> None:
    # SRV-01: the focus names the item, its type, a label, its start and its task
    client.post(
        "/api/agents/slow/mailbox",
        json={
            "sourceType": "task_status_update",
            "payload": {
                "content": "Implement feature X",
                "extra": {"taskId": "tsk_9", "triggerExecution": True},
            },
        },
    ).raise_for_status()
    focus = None
    for _ in range(500):
        focus = client.get("/api/agents/slow/mind").json()["currentFocus"]
        if focus is not None:
            break
    assert focus is not None
    assert focus["sourceType"] == "task_status_update" and focus["taskId"] == "tsk_9"
    assert focus["label"].endswith("Implement feature X") and focus["startedAt"]


def test_mailbox_counts_by_status_and_type(client: httpx.Client) -> None:
    # SRV-02: counts cover every item of the agent, whatever the page
    client.post(
        "/api/agents/alice/mailbox", json={"sourceType": "mention", "payload": {"content": "m"}}
    ).raise_for_status()
    _barrier(client)
    page = client.get("/api/agents/alice/mailbox", params={"limit": 1}).json()
    assert page["countsByType"] == {"mention": 1, "a2a_message": 1}
    assert page["countsByStatus"] == {"completed": 2}
    assert len(page["history"]) == 1


def test_chat_timeout_is_504_naming_the_item_that_stays(client: httpx.Client) -> None:
    response = client.post(
        "/api/agents/slow/chat", json={"text": "take your time", "timeoutS": 0.2}
    )
    message = _error(response, 504, "reply_timeout")
    item_id = response.json()["error"]["mailboxItemId"]
    assert item_id.startswith("mbx_")
    assert item_id in message
    mind = client.get("/api/agents/slow/mind").json()
    focus = mind["currentFocus"]
    assert focus is not None and focus["payload"]["content"] == "take your time"
    assert focus["id"] == item_id


def test_openapi_document_lists_the_routes(client: httpx.Client) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in (
        "/health",
        "/api/types",
        "/api/agents",
        "/api/agents/{agentId}",
        "/api/agents/{agentId}/mailbox",
        "/api/agents/{agentId}/chat",
        "/api/agents/{agentId}/mind",
        "/api/agents/{agentId}/decisions",
        "/api/agents/{agentId}/activity-logs",
    ):
        assert path in paths


# -------------------------------------------------------------------------- bad input

UNKNOWN_AGENT_ROUTES = [
    ("GET", "/api/agents/zed", None),
    ("GET", "/api/agents/zed/mind", None),
    ("GET", "/api/agents/zed/mailbox", None),
    ("GET", "/api/agents/zed/decisions", None),
    ("GET", "/api/agents/zed/activity-logs?activityId=act_x", None),
    ("POST", "/api/agents/zed/chat", {"text": "hi"}),
    ("POST", "/api/agents/zed/mailbox", {"sourceType": "human_chat", "payload": {"content": "x"}}),
    (
        "POST",
        "/api/agents/Alice/mailbox",
        {"sourceType": "human_chat", "payload": {"content": "x"}},
    ),
    ("POST", "/api/agents/alice%20/chat", {"text": "hi"}),
]


# SRV-01, SRV-06: unknown agent is 404 naming it, nothing changes
@pytest.mark.parametrize(("method", "path", "body"), UNKNOWN_AGENT_ROUTES)
def test_unknown_agent_is_404_naming_it(
    shared: httpx.Client, method: str, path: str, body: dict[str, Any] | None
) -> None:
    before = _snapshot(shared)
    message = _error(shared.request(method, path, json=body), 404, "unknown_agent")
    assert "unknown recipient" in message
    assert _snapshot(shared) == before
    assert [a["agentId"] for a in shared.get("/api/agents").json()["agents"]] == ["alice", "slow"]


def _post_raw(client: httpx.Client, path: str, content: bytes) -> httpx.Response:
    return client.post(path, content=content, headers={"Content-Type": "application/json"})


BAD_ENQUEUES: list[tuple[Any, int, str]] = [
    ({"sourceType": "no_such_type", "payload": {"content": "x"}}, 422, "unknown_item_type"),
    (
        {"sourceType": "a2a_message", "payload": {"content": "x"}, "priority": 9},
        422,
        "invalid_priority",
    ),
    (
        {"sourceType": "a2a_message", "payload": {"content": "x"}, "priority": -1},
        422,
        "invalid_priority",
    ),
    (
        {"sourceType": "a2a_message", "payload": {"content": "x"}, "priority": "high"},
        422,
        "validation_error",
    ),
    (
        {"sourceType": "a2a_message", "payload": {"content": "x"}, "priority": 1.5},
        422,
        "validation_error",
    ),
    (
        {"sourceType": "a2a_message", "payload": {"content": "x"}, "priority": True},
        422,
        "validation_error",
    ),
    ({"sourceType": "human_chat", "payload": {"content": ""}}, 422, "invalid_input"),
    ({"sourceType": "human_chat", "payload": {"content": "   "}}, 422, "invalid_input"),
    ({"sourceType": "human_chat", "payload": {}}, 422, "invalid_input"),
    ({"sourceType": "a2a_message", "payload": "text"}, 422, "validation_error"),
    ({"sourceType": "a2a_message"}, 422, "validation_error"),
    ({"payload": {"content": "x"}}, 422, "validation_error"),
    (
        {"sourceType": "a2a_message", "payload": {"content": "x"}, "priorty": 1},
        422,
        "validation_error",
    ),
    ({"source_type": "a2a_message", "payload": {"content": "x"}}, 422, "validation_error"),
    ([1, 2, 3], 422, "validation_error"),
    ("just a string", 422, "validation_error"),
]


# SRV-06
@pytest.mark.parametrize(("body", "status", "code"), BAD_ENQUEUES)
def test_bad_enqueue_is_rejected_and_changes_nothing(
    shared: httpx.Client, body: Any, status: int, code: str
) -> None:
    before = _snapshot(shared)
    _error(shared.post("/api/agents/alice/mailbox", json=body), status, code)
    assert _snapshot(shared) == before


def test_non_finite_numbers_are_refused(shared: httpx.Client) -> None:
    before = _snapshot(shared)
    raw = b'{"sourceType": "a2a_message", "payload": {"content": "x", "score": NaN}}'
    message = _error(_post_raw(shared, "/api/agents/alice/mailbox", raw), 422, "validation_error")
    assert "finite" in message
    deep: Any = "x"
    for _ in range(40):
        deep = [deep]
    body = {"sourceType": "a2a_message", "payload": {"content": "x", "deep": deep}}
    _error(shared.post("/api/agents/alice/mailbox", json=body), 422, "validation_error")
    assert _snapshot(shared) == before


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"text": ""}, "invalid_input"),
        ({"text": " \n\t "}, "invalid_input"),
        ({"text": 5}, "validation_error"),
        ({}, "validation_error"),
        ({"text": "hi", "sourceType": "nope"}, "unknown_item_type"),
        ({"text": "hi", "timeoutS": 0}, "validation_error"),
        ({"text": "hi", "timeoutS": "soon"}, "validation_error"),
        ({"text": "hi", "bogus": 1}, "validation_error"),
    ],
)
# SRV-06
def test_bad_chat_is_rejected_and_changes_nothing(
    shared: httpx.Client, body: dict[str, Any], code: str
) -> None:
    before = _snapshot(shared)
    response = shared.post("/api/agents/alice/chat", json=body)
    _error(response, 422, code)
    assert _snapshot(shared) == before


@pytest.mark.parametrize(
    ("params", "code", "needle"),
    [
        ({"status": "done"}, "invalid_input", "queued"),
        ({"type": "nope"}, "unknown_item_type", "human_chat"),
        ({"category": "misc"}, "invalid_input", "interaction"),
        ({"limit": 0}, "validation_error", "limit"),
        ({"limit": "ten"}, "validation_error", "limit"),
        ({"offset": -1}, "validation_error", "offset"),
    ],
)
# SRV-02: invalid filters are 422 listing the allowed values
def test_bad_mailbox_filters_list_allowed_values(
    shared: httpx.Client, params: dict[str, Any], code: str, needle: str
) -> None:
    message = _error(shared.get("/api/agents/alice/mailbox", params=params), 422, code)
    assert needle in message


def test_activity_logs_needs_an_activity_id(shared: httpx.Client) -> None:
    message = _error(shared.get("/api/agents/alice/activity-logs"), 422, "validation_error")
    assert "activityId" in message


def test_unknown_route_and_method(shared: httpx.Client) -> None:
    _error(shared.get("/api/nothing"), 404, "not_found")
    _error(shared.delete("/api/agents"), 405, "method_not_allowed")


# SRV-06
def test_oversized_body_is_413(shared: httpx.Client) -> None:
    before = _snapshot(shared)
    big = {"sourceType": "a2a_message", "payload": {"content": "x" * 2_000_000}}
    _error(shared.post("/api/agents/alice/mailbox", json=big), 413, "body_too_large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while streaming
        yield b'{"sourceType": "a2a_message", "payload": {"content": "'
        for _ in range(40):
            yield b"y" * 65_536
        yield b'"}}'

    streamed = shared.post(
        "/api/agents/alice/mailbox", content=chunks(), headers={"Content-Type": "application/json"}
    )
    _error(streamed, 413, "body_too_large")
    # The rest of that body must never be read as the next request's head (it was, under
    # load: the next request got 431): the connection is closed after the answer.
    assert streamed.headers.get("connection") == "close"
    # Under the HTTP limit but over the agent's payload limit (256 KiB).
    payload = {"sourceType": "a2a_message", "payload": {"content": "z" * 300_000}}
    _error(shared.post("/api/agents/alice/mailbox", json=payload), 413, "payload_too_large")
    chat = shared.post("/api/agents/alice/chat", json={"text": "z" * 300_000})
    _error(chat, 413, "payload_too_large")
    assert _snapshot(shared) == before


def test_error_bodies_are_json_with_the_content_type(shared: httpx.Client) -> None:
    response = shared.get("/api/agents/zed")
    assert response.headers["content-type"].startswith("application/json")
    json.loads(response.text)


# ------------------------------------------------------------------------------ token


# SRV-07: without the token or with a wrong one: 401, nothing changes
def test_token_is_required_except_for_health(tmp_path: Path) -> None:
    with LiveServer(_config(tmp_path, TOKEN)) as live, httpx.Client(base_url=live.url) as http:
        assert http.get("/health").status_code == 200
        good = {"Authorization": f"Bearer {TOKEN}"}
        body = {"sourceType": "a2a_message", "payload": {"content": "x"}}
        for headers in ({}, {"Authorization": "Bearer wrong-token"}, {"Authorization": TOKEN}):
            for method, path in (
                ("GET", "/api/agents"),
                ("GET", "/api/agents/alice/mailbox"),
                ("POST", "/api/agents/alice/mailbox"),
                ("POST", "/api/agents/alice/chat"),
                ("GET", "/openapi.json"),
                ("GET", "/api/nothing"),
            ):
                response = http.request(method, path, headers=headers, json=body)
                _error(response, 401, "unauthorized")
                assert response.headers["www-authenticate"] == "Bearer"
        mailbox = http.get("/api/agents/alice/mailbox", headers=good)
        assert mailbox.status_code == 200
        assert mailbox.json()["total"] == 0  # nothing was enqueued by the refused calls
        accepted = http.post("/api/agents/alice/mailbox", headers=good, json=body)
        assert accepted.status_code == 202


# ---------------------------------------------------------------------------- shutdown


def test_shutdown_answers_a_waiting_chat_and_keeps_its_item(tmp_path: Path) -> None:
    """Stopping the server while a chat waits: the caller gets 409 reply_cancelled at
    once (not a hang, not a dropped connection) and the item survives for the next run."""
    config = _config(tmp_path)
    live = LiveServer(config)
    live.start()
    http = httpx.Client(base_url=live.url, timeout=30.0)
    results: list[httpx.Response] = []
    waiting = threading.Thread(
        target=lambda: results.append(
            http.post("/api/agents/slow/chat", json={"text": "still there?"})
        )
    )
    try:
        waiting.start()
        deadline = time.monotonic() + 10
        while http.get("/api/agents/slow/mind").json()["currentFocus"] is None:
            assert time.monotonic() < deadline, "the chat never became the focus"
        started = time.monotonic()
        live.stop()
        waiting.join(timeout=10)
        assert time.monotonic() - started < 5
    finally:
        http.close()
        live.stop()
    (response,) = results
    _error(response, 409, "reply_cancelled")
    with LiveServer(config) as again, httpx.Client(base_url=again.url) as client:
        history = client.get("/api/agents/slow/mailbox").json()["history"]
        (item,) = history
        assert item["payload"]["content"] == "still there?"
        # Stopped mid-work, it was requeued (not lost); the new run picks it again.
        kinds = [d["decisionType"] for d in item["decisions"]]
        assert kinds[:2] == ["pick", "requeue"], kinds
        assert item["status"] != "dropped"
