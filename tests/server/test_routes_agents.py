"""Creating and removing agents over real HTTP (issue 3: agents create from config,
remove), and the config defaults reaching every agent's settings.

A new agent is checked like an ``attn.toml`` agent; every refused body leaves the
list of agents as it was.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from attn.config import parse_config
from attn.server.testing import LiveServer

TEAM = """\
[defaults]
backstop_s = 42
coalesce_window_ms = 10
dedup = false
heartbeat_interval_s = 900

[[agents]]
name = "alice"
brain = "echo"
description = "the first"

[[agents]]
name = "bob"
brain = "echo"
backstop_s = 7
consolidate = false
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("agents") / "attn.db"
    config = parse_config(TEAM, environ={"ATTN_DATABASE_URL": f"sqlite:///{db}"})
    with LiveServer(config) as live:
        yield live


@pytest.fixture
def http(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=10.0) as client:
        yield client


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    return str(body["error"]["message"])


def _names(http: httpx.Client) -> list[str]:
    return [agent["agentId"] for agent in http.get("/api/agents").json()["agents"]]


def test_config_defaults_and_overrides_reach_each_agent(http: httpx.Client) -> None:
    alice = http.get("/api/agents/alice/config").json()
    assert alice["config"]["backstopS"] == 42.0
    assert alice["config"]["coalesceWindowMs"] == 10
    assert alice["config"]["dedup"] is False
    assert alice["config"]["consolidate"] is True  # AgentConfig's own default
    assert alice["config"]["heartbeatIntervalS"] == 900.0  # [defaults] heartbeat
    assert alice["heartbeat"]["enabled"] is True
    bob = http.get("/api/agents/bob/config").json()["config"]
    assert (bob["backstopS"], bob["consolidate"], bob["coalesceWindowMs"]) == (7.0, False, 10)


def test_create_use_and_remove_an_agent(http: httpx.Client) -> None:
    body = {
        "agentId": "dora",
        "brain": "echo",
        "options": {"prefix": "dora: "},
        "description": "made over HTTP",
        "config": {"backstopS": 30, "maxAttempts": 2, "heartbeatIntervalS": 60},
    }
    created = http.post("/api/agents", json=body)
    assert created.status_code == 201, created.text
    assert created.headers["location"] == "/api/agents/dora"
    data = created.json()
    assert (data["agentId"], data["description"], data["running"]) == (
        "dora",
        "made over HTTP",
        True,
    )
    assert data["config"]["backstopS"] == 30.0
    assert data["config"]["maxAttempts"] == 2
    assert data["config"]["coalesceWindowMs"] == 10  # from the server's [defaults]
    assert data["config"]["heartbeatIntervalS"] == 300.0  # clamped
    assert "dora" in _names(http)
    reply = http.post("/api/agents/dora/chat", json={"text": "hi"})
    assert reply.json()["reply"] == "dora: hi"

    removed = http.delete("/api/agents/dora")
    assert removed.status_code == 204
    assert removed.content == b""
    assert "dora" not in _names(http)
    _error(http.get("/api/agents/dora"), 404, "unknown_agent")
    _error(http.delete("/api/agents/dora"), 404, "unknown_agent")

    # Hosting the name again recovers its stored mailbox.
    again = http.post("/api/agents", json={"agentId": "dora", "brain": "echo"})
    assert again.status_code == 201
    history = http.get("/api/agents/dora/mailbox").json()["history"]
    assert [item["payload"]["content"] for item in history] == ["hi"]
    assert http.delete("/api/agents/dora").status_code == 204


def test_a_taken_name_is_409_and_changes_nothing(http: httpx.Client) -> None:
    before = http.get("/api/agents/alice").json()
    body = {"agentId": "alice", "brain": "echo", "description": "impostor"}
    message = _error(http.post("/api/agents", json=body), 409, "agent_exists")
    assert "alice" in message
    after = http.get("/api/agents/alice").json()
    assert after["description"] == before["description"] == "the first"


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"agentId": "eve", "brain": "ehco"}, "body.brain: unknown brain 'ehco'; built-in brains"),
        (
            {"agentId": "eve", "brain": "echo", "options": {"stepz": 3}},
            "body.options.stepz: the echo brain has no option 'stepz'",
        ),
        (
            {"agentId": "eve", "brain": "echo", "options": {"steps": 0}},
            "body.options.steps: echo brain steps must be an integer",
        ),
        # C1: bounded options; integers of any size are a clean 422, never a 500
        (
            {"agentId": "eve", "brain": "echo", "options": {"steps": 2_000_000}},
            "body.options.steps: echo brain steps must be an integer from 1 to 10,000",
        ),
        (
            {"agentId": "eve", "brain": "echo", "options": {"steps": 10**400}},
            "integers must fit in 64 bits (-2**63 .. 2**63-1) (at steps)",
        ),
        (
            {"agentId": "eve", "brain": "echo", "options": {"step_s": 10**400}},
            "integers must fit in 64 bits (-2**63 .. 2**63-1) (at step_s)",
        ),
        (
            {"agentId": "eve", "brain": "script", "options": {"steps": [{"sleep_s": 10**400}]}},
            "integers must fit in 64 bits (-2**63 .. 2**63-1) (at steps[0].sleep_s)",
        ),
        (
            {"agentId": "eve", "brain": "script", "options": {"steps": [{"say": "x"}] * 1001}},
            "script brain needs a list of 1 to 1,000 steps",
        ),
        (
            {"agentId": "eve", "brain": "echo", "config": {"maxQueued": 10**400}},
            "max_queued must be",
        ),
        ({"agentId": "eve", "brain": "echo", "config": {"backstopS": 10**400}}, "backstopS"),
        ({"agentId": "eve", "brain": "echo", "config": {"backstopS": 1e30}}, "at most 604,800"),
        ({"agentId": "eve", "brain": "script"}, "the script brain needs the option 'steps'"),
        ({"agentId": "e v e", "brain": "echo"}, "body.agentId"),
        ({"agentId": "", "brain": "echo"}, "body.agentId"),
        ({"agentId": "x" * 65, "brain": "echo"}, "body.agentId"),
        ({"brain": "echo"}, "body.agentId: field required"),
        ({"agentId": "eve"}, "body.brain: field required"),
        ({"agentId": "eve", "brain": "echo", "options": 3}, "body.options"),
        ({"agentId": "eve", "brain": "echo", "options": []}, "body.options"),
        ({"agentId": "eve", "brain": "echo", "colour": "red"}, "body.colour: unknown field"),
        ({"agentId": "eve", "brain": "echo", "config": {"maxQueued": 0}}, "body.config.maxQueued"),
        ({"agentId": "eve", "brain": "echo", "config": {"backstopS": -1}}, "body.config.backstopS"),
        (
            {"agentId": "eve", "brain": "echo", "config": {"coalesceWindowMs": 60001}},
            "body.config.coalesceWindowMs",
        ),
        ({"agentId": "eve", "brain": "echo", "config": {"dedup": "yes"}}, "body.config.dedup"),
        ({"agentId": "eve", "brain": "echo", "config": {"backstop": 5}}, "unknown field"),
        (
            {"agentId": "eve", "brain": "echo", "config": {"heartbeatIntervalS": 0}},
            "body.config.heartbeatIntervalS",
        ),
        ({"agentId": "eve", "brain": "echo", "description": "\ud800"}, "body.description"),
        ({"agentId": "eve", "brain": "echo", "options": {"prefix": "\udfff"}}, "lone surrogates"),
        ({"agentId": "eve", "brain": "echo", "options": {"prefix": float("nan")}}, "finite"),
    ],
)
def test_bad_agent_bodies_are_422_and_create_nothing(
    http: httpx.Client, body: dict[str, Any], needle: str
) -> None:
    before = _names(http)
    # json.dumps writes NaN and escapes lone surrogates, as some clients do.
    raw = json.dumps(body).encode()
    response = http.post("/api/agents", content=raw, headers={"Content-Type": "application/json"})
    message = _error(response, 422, "validation_error")
    assert needle in message
    assert _names(http) == before


@pytest.mark.parametrize(
    ("content", "content_type", "status", "code"),
    [
        (b"", "application/json", 400, "malformed_json"),
        (b"{nope", "application/json", 400, "malformed_json"),
        (b'{"agentId": "eve", "brain": "echo"}', "text/plain", 415, "unsupported_media_type"),
    ],
)
def test_bad_agent_requests_are_4xx_and_create_nothing(
    http: httpx.Client, content: bytes, content_type: str, status: int, code: str
) -> None:
    before = _names(http)
    response = http.post("/api/agents", content=content, headers={"Content-Type": content_type})
    _error(response, status, code)
    assert _names(http) == before


def test_removing_needs_the_token_when_one_is_set(tmp_path: Path) -> None:
    env = {"ATTN_DATABASE_URL": f"sqlite:///{tmp_path / 'a.db'}", "ATTN_TOKEN": "remove-token-1"}
    with (
        LiveServer(parse_config(TEAM, environ=env)) as live,
        httpx.Client(base_url=live.url) as http,
    ):
        _error(http.delete("/api/agents/alice"), 401, "unauthorized")
        _error(
            http.post("/api/agents", json={"agentId": "eve", "brain": "echo"}), 401, "unauthorized"
        )
        auth = {"Authorization": "Bearer remove-token-1"}
        names = [a["agentId"] for a in http.get("/api/agents", headers=auth).json()["agents"]]
        assert names == ["alice", "bob"]  # nothing changed
        assert http.delete("/api/agents/alice", headers=auth).status_code == 204
