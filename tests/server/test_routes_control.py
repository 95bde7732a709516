"""SRV-05 over real HTTP: start, stop, pause, resume, cancel-processing and the live
config (heartbeat interval: clamped, persisted). Every bad input is a 4xx with the
error shape and changes nothing, checked through the API itself.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from attn.config import parse_config
from attn.server.testing import LiveServer

TEAM = """\
[defaults]
coalesce_window_ms = 0

[[agents]]
name = "alice"
brain = "echo"

[[agents]]
name = "slow"
brain = "script"
options = { steps = [{ sleep_s = 30.0 }, { say = "done" }] }
"""


def _config(db: Path) -> Any:
    return parse_config(TEAM, environ={"ATTN_DATABASE_URL": f"sqlite:///{db}"})


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return str(body["error"]["message"])


def _focused(http: httpx.Client, agent: str) -> dict[str, Any]:
    """Wait (by asking, never by sleeping) until ``agent`` works on an item; return it."""
    deadline = time.monotonic() + 10
    while (focus := http.get(f"/api/agents/{agent}").json()["currentFocus"]) is None:
        assert time.monotonic() < deadline, f"{agent} never focused"
    return dict(focus)


def _state(http: httpx.Client, agent: str) -> tuple[bool, bool, int, str]:
    summary = http.get(f"/api/agents/{agent}").json()
    return summary["running"], summary["paused"], summary["queueDepth"], summary["state"]


# --------------------------------------------------------------------------- control


def test_srv05_stop_holds_the_queue_and_start_serves_it(http: httpx.Client) -> None:
    stopped = http.post("/api/agents/alice/control/stop")
    assert stopped.status_code == 200, stopped.text
    assert stopped.json()["agentId"] == "alice"
    assert stopped.json()["running"] is False
    queued = http.post(
        "/api/agents/alice/mailbox",
        json={"sourceType": "a2a_message", "payload": {"content": "later"}},
    )
    assert queued.status_code == 202
    assert _state(http, "alice")[:3] == (False, False, 1)  # stopped: it waits
    started = http.post("/api/agents/alice/control/start")
    assert started.status_code == 200
    assert started.json()["running"] is True
    reply = http.post("/api/agents/alice/chat", json={"text": "after", "sourceType": "a2a_message"})
    assert reply.status_code == 200
    history = http.get("/api/agents/alice/mailbox", params={"status": "completed"}).json()
    assert {item["payload"]["content"] for item in history["history"]} == {"later", "after"}
    # Idempotent: starting a running agent, stopping a stopped one.
    assert http.post("/api/agents/alice/control/start").status_code == 200
    assert http.post("/api/agents/alice/control/stop").status_code == 200
    assert http.post("/api/agents/alice/control/stop").status_code == 200


def test_srv05_pause_requeues_the_work_and_resume_picks_it_again(http: httpx.Client) -> None:
    queued = http.post(
        "/api/agents/slow/mailbox",
        json={"sourceType": "a2a_message", "payload": {"content": "long job"}},
    )
    item_id = queued.json()["id"]
    assert _focused(http, "slow")["id"] == item_id
    paused = http.post("/api/agents/slow/control/pause")
    assert paused.status_code == 200, paused.text
    assert (
        paused.json()["paused"],
        paused.json()["queueDepth"],
        paused.json()["currentFocus"],
    ) == (
        True,
        1,
        None,
    )
    resumed = http.post("/api/agents/slow/control/resume")
    assert resumed.status_code == 200
    assert resumed.json()["paused"] is False
    assert _focused(http, "slow")["id"] == item_id  # the same item, picked again

    def kinds() -> list[str]:
        timeline = http.get("/api/agents/slow/decisions").json()["decisions"]
        return [d["decisionType"] for d in reversed(timeline) if d["mailboxItemId"] == item_id]

    deadline = time.monotonic() + 10
    while len(kinds()) < 3:  # until the second pick is committed
        assert time.monotonic() < deadline, kinds()
    assert kinds() == ["pick", "requeue", "pick"]
    assert http.post("/api/agents/slow/control/stop").json()["running"] is False


def test_srv05_pause_and_resume_of_a_stopped_agent_are_409(http: httpx.Client) -> None:
    http.post("/api/agents/alice/control/stop")
    for action in ("pause", "resume"):
        message = _error(http.post(f"/api/agents/alice/control/{action}"), 409, "agent_not_running")
        assert "control/start" in message
    assert _state(http, "alice")[:2] == (False, False)  # unchanged


def test_srv05_bad_control_requests_change_nothing(http: httpx.Client) -> None:
    before = _state(http, "alice")
    message = _error(http.post("/api/agents/alice/control/restart"), 422, "validation_error")
    assert "path.action" in message and "start" in message
    _error(http.post("/api/agents/nobody/control/stop"), 404, "unknown_agent")
    _error(http.get("/api/agents/alice/control/stop"), 405, "method_not_allowed")
    assert _state(http, "alice") == before


# ---------------------------------------------------------------------------- cancel


def test_srv05_cancel_stops_the_current_work_for_good(http: httpx.Client) -> None:
    item_id = http.post(
        "/api/agents/slow/mailbox",
        json={"sourceType": "a2a_message", "payload": {"content": "never mind"}},
    ).json()["id"]
    assert _focused(http, "slow")["id"] == item_id
    cancelled = http.post("/api/agents/slow/cancel", json={"reason": "wrong request", "hard": True})
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json() == {"mailboxItemId": item_id}

    def stored() -> dict[str, Any]:
        history = http.get("/api/agents/slow/mailbox").json()["history"]
        return dict(next(i for i in history if i["id"] == item_id))

    deadline = time.monotonic() + 10
    while (item := stored())["status"] == "processing":  # until its end is committed
        assert time.monotonic() < deadline, "the cancelled work did not end"
    assert item["status"] == "completed"  # ended for good, not requeued
    assert item["reason"] == "cancelled: wrong request"


def test_srv05_cancel_when_idle_answers_null_and_the_body_may_be_left_out(
    http: httpx.Client,
) -> None:
    assert http.post("/api/agents/alice/cancel").json() == {"mailboxItemId": None}
    assert http.post("/api/agents/alice/cancel", json={}).json() == {"mailboxItemId": None}


def test_srv05_cancel_on_a_stopped_agent_is_409(http: httpx.Client) -> None:
    http.post("/api/agents/alice/control/stop")
    _error(http.post("/api/agents/alice/cancel", json={}), 409, "agent_not_running")


@pytest.mark.parametrize(
    ("body", "headers", "status", "code", "needle"),
    [
        ({"hard": "yes"}, None, 422, "validation_error", "body.hard"),
        ({"reason": ""}, None, 422, "validation_error", "body.reason"),
        ({"reason": "x" * 501}, None, 422, "validation_error", "body.reason"),
        ({"reasn": "typo"}, None, 422, "validation_error", "body.reasn: unknown field"),
        ([1, 2], None, 422, "validation_error", "got an array"),
        ("not json", {"Content-Type": "application/json"}, 400, "malformed_json", "not valid JSON"),
        ('{"hard": true}', {"Content-Type": "text/plain"}, 415, "unsupported_media_type", "text"),
    ],
)
def test_srv06_bad_cancel_bodies_are_4xx_and_cancel_nothing(
    http: httpx.Client,
    body: Any,
    headers: dict[str, str] | None,
    status: int,
    code: str,
    needle: str,
) -> None:
    item_id = http.post(
        "/api/agents/slow/mailbox",
        json={"sourceType": "a2a_message", "payload": {"content": "keep going"}},
    ).json()["id"]
    assert _focused(http, "slow")["id"] == item_id
    if isinstance(body, str):
        response = http.post("/api/agents/slow/cancel", content=body, headers=headers)
    else:
        response = http.post("/api/agents/slow/cancel", json=body)
    assert needle in _error(response, status, code)
    assert _focused(http, "slow")["id"] == item_id  # still at work on it


def test_srv06_cancel_of_an_unknown_agent_is_404(http: httpx.Client) -> None:
    message = _error(http.post("/api/agents/nobody/cancel", json={}), 404, "unknown_agent")
    assert "nobody" in message


# ---------------------------------------------------------------------------- config


def test_srv05_config_shows_every_setting_with_the_defaults(http: httpx.Client) -> None:
    view = http.get("/api/agents/alice/config")
    assert view.status_code == 200, view.text
    config = view.json()["config"]
    assert config["coalesceWindowMs"] == 0  # from [defaults]
    assert config["backstopS"] == 600.0
    assert config["heartbeatIntervalS"] == 6 * 3600.0  # the default heartbeat: 6 h
    assert view.json()["heartbeat"]["enabled"] is True


@pytest.mark.parametrize(("asked", "clamped"), [(60, 300.0), (1800.5, 1800.5), (1e9, 86400.0)])
def test_srv05_patch_heartbeat_interval_is_clamped_and_persisted(
    tmp_path: Path, asked: float, clamped: float
) -> None:
    db = tmp_path / "attn.db"
    with LiveServer(_config(db)) as live, httpx.Client(base_url=live.url) as http:
        patched = http.patch("/api/agents/alice/config", json={"heartbeatIntervalS": asked})
        assert patched.status_code == 200, patched.text
        assert patched.json()["config"]["heartbeatIntervalS"] == clamped
        assert patched.json()["heartbeat"]["enabled"] is True
        assert http.get("/api/agents/alice/heartbeat").json()["intervalS"] == clamped
    # A new server on the same database keeps it.
    with LiveServer(_config(db)) as again, httpx.Client(base_url=again.url) as http:
        assert http.get("/api/agents/alice/config").json()["config"]["heartbeatIntervalS"] == (
            clamped
        )


@pytest.mark.parametrize(
    ("body", "status", "code", "needle"),
    [
        ({}, 422, "validation_error", "nothing to change; changeable live: heartbeatIntervalS"),
        ({"heartbeatIntervalS": None}, 422, "validation_error", "got null"),
        ({"heartbeatIntervalS": "600"}, 422, "validation_error", "body.heartbeatIntervalS"),
        ({"heartbeatIntervalS": True}, 422, "validation_error", "body.heartbeatIntervalS"),
        ({"heartbeatIntervalS": -5}, 422, "validation_error", "greater than 0"),
        ({"heartbeatIntervalS": 0}, 422, "validation_error", "greater than 0"),
        ({"heartbeatIntervalS": 10**400}, 422, "validation_error", "body.heartbeatIntervalS"),
        ({"backstopS": 5}, 422, "validation_error", "backstopS cannot change while the agent"),
        ({"heartbeatIntervalS": 600, "x": 1}, 422, "validation_error", "body.x: unknown field"),
        ([600], 422, "validation_error", "got an array"),
    ],
)
def test_srv06_bad_config_patches_change_nothing(
    http: httpx.Client, body: Any, status: int, code: str, needle: str
) -> None:
    before = http.get("/api/agents/alice/config").json()
    message = _error(http.patch("/api/agents/alice/config", json=body), status, code)
    assert needle in message
    assert http.get("/api/agents/alice/config").json() == before


def test_srv06_config_of_an_unknown_agent_is_404(http: httpx.Client) -> None:
    _error(http.get("/api/agents/nobody/config"), 404, "unknown_agent")
    response = http.patch("/api/agents/nobody/config", json={"heartbeatIntervalS": 600})
    _error(response, 404, "unknown_agent")
