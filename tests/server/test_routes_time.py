"""The time routes over real HTTP: list pending callbacks and wakeups with their next
fire time, schedule and cancel a wakeup, read and change the heartbeat (issue 5 point 7).
Bad input is a 4xx in the one error shape and changes nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

TEAM = """\
[[agents]]
name = "alice"
brain = "echo"

[[agents]]
name = "bob"
brain = "echo"
"""


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code, error
    return str(error["message"])


def _callbacks(http: httpx.Client, agent: str = "alice") -> list[dict[str, Any]]:
    response = http.get(f"/api/agents/{agent}/callbacks")
    assert response.status_code == 200, response.text
    return list(response.json()["callbacks"])


def test_schedule_list_with_next_fire_time_and_cancel(http: httpx.Client) -> None:
    soon = http.post("/api/agents/alice/wakeups", json={"delayS": 3600, "note": "check CI"})
    assert soon.status_code == 201, soon.text
    wakeup = soon.json()["wakeup"]
    assert wakeup["id"].startswith("cb_") and wakeup["type"] == "wakeup"
    due = datetime.fromisoformat(wakeup["nextFireAt"])
    assert abs((due - datetime.now(UTC)).total_seconds() - 3600) < 60
    at = (datetime.now(UTC) + timedelta(hours=2)).isoformat()
    daily = http.post(
        "/api/agents/alice/wakeups", json={"at": at, "recurringS": 86_400, "note": "daily"}
    ).json()["wakeup"]
    assert daily["recurringS"] == 86_400 and daily["deliveryMode"] == "mailbox"

    listed = _callbacks(http)
    assert [c["id"] for c in listed] == [wakeup["id"], daily["id"]]
    assert all(c["nextFireAt"] and c["expiresAt"] is None for c in listed)
    only = http.get("/api/agents/alice/callbacks", params={"type": "wakeup"}).json()
    assert only["count"] == 2
    assert (
        http.get("/api/agents/alice/callbacks", params={"type": "background_exec"}).json()[
            "callbacks"
        ]
        == []
    )
    assert _callbacks(http, "bob") == []

    cancelled = http.delete(f"/api/agents/alice/callbacks/{wakeup['id']}")
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["cancelled"]["id"] == wakeup["id"]
    assert [c["id"] for c in _callbacks(http)] == [daily["id"]]
    message = _error(
        http.delete(f"/api/agents/alice/callbacks/{wakeup['id']}"), 404, "callback_not_found"
    )
    assert wakeup["id"] in message
    # Another agent cannot cancel it.
    _error(http.delete(f"/api/agents/bob/callbacks/{daily['id']}"), 404, "callback_not_found")
    assert [c["id"] for c in _callbacks(http)] == [daily["id"]]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({}, 422, "invalid_input"),
        ({"delayS": 10, "at": "2030-01-01T00:00:00Z"}, 422, "invalid_input"),
        ({"at": "2001-01-01T00:00:00Z"}, 422, "invalid_input"),
        ({"at": "soon"}, 422, "invalid_input"),
        ({"delayS": -5}, 422, "invalid_input"),
        ({"delayS": 10, "recurringS": 1}, 422, "invalid_input"),
        ({"delayS": "10"}, 422, "validation_error"),
        ({"delayS": 10, "when": "now"}, 422, "validation_error"),
        ({"delayS": 10, "deliveryMode": "email"}, 422, "invalid_input"),
    ],
)
def test_bad_wakeups_are_422_and_change_nothing(
    http: httpx.Client, body: dict[str, Any], status: int, code: str
) -> None:
    message = _error(http.post("/api/agents/alice/wakeups", json=body), status, code)
    python_names = ("delay_s", "recurring_s", "delivery_mode", "schedule_wakeup")
    assert not any(name in message for name in python_names)  # the body's names instead
    assert _callbacks(http) == []


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"delayS": -5}, "body.delayS must be >= 0 seconds"),
        ({"delayS": 1e308}, "got 1e+308 s"),
        ({"delayS": 10, "recurringS": 1}, "body.recurringS must be at least"),
        ({}, "body: give exactly one of body.delayS"),
    ],
)
def test_wakeup_errors_name_the_body_fields(
    http: httpx.Client, body: dict[str, Any], says: str
) -> None:
    message = _error(http.post("/api/agents/alice/wakeups", json=body), 422, "invalid_input")
    assert says in message and len(message) < 300


def test_unknown_agents_types_and_bodies(http: httpx.Client) -> None:
    _error(http.get("/api/agents/nobody/callbacks"), 404, "unknown_agent")
    _error(http.post("/api/agents/nobody/wakeups", json={"delayS": 5}), 404, "unknown_agent")
    _error(http.get("/api/agents/nobody/heartbeat"), 404, "unknown_agent")
    _error(http.get("/api/agents/alice/callbacks", params={"type": "nap"}), 422, "invalid_input")
    _error(http.delete("/api/agents/alice/callbacks/cb_missing"), 404, "callback_not_found")
    _error(
        http.post(
            "/api/agents/alice/wakeups",
            content=b'{"delayS": 5}',
            headers={"Content-Type": "text/plain"},
        ),
        415,
        "unsupported_media_type",
    )
    _error(
        http.post(
            "/api/agents/alice/wakeups", content=b"{", headers={"Content-Type": "application/json"}
        ),
        400,
        "malformed_json",
    )
    assert _callbacks(http) == []


def test_heartbeat_read_and_change_live(http: httpx.Client) -> None:
    default = http.get("/api/agents/alice/heartbeat").json()
    assert default["enabled"] is True and default["intervalS"] == 6 * 3600.0  # issue 5: 6 h
    changed = http.put("/api/agents/alice/heartbeat", json={"intervalS": 60})
    assert changed.status_code == 200, changed.text
    assert changed.json()["intervalS"] == 300.0 and changed.json()["requested"] == 60
    info = http.get("/api/agents/alice/heartbeat").json()
    assert info["enabled"] is True and info["intervalS"] == 300.0
    next_at = datetime.fromisoformat(info["nextAt"])
    assert abs((next_at - datetime.now(UTC)).total_seconds() - 300) < 60
    assert (
        http.put("/api/agents/alice/heartbeat", json={"intervalS": 48 * 3600}).json()["intervalS"]
        == 86_400.0
    )
    assert (
        http.put("/api/agents/alice/heartbeat", json={"intervalS": "hourly"}).json()["intervalS"]
        == 21_600.0
    )
    _error(http.put("/api/agents/alice/heartbeat", json={"interval": 60}), 422, "validation_error")
    bob = http.get("/api/agents/bob/heartbeat").json()  # bob keeps the default
    assert bob["enabled"] is True and bob["intervalS"] == 21_600.0
