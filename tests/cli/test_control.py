"""``attn cancel`` and ``attn control`` against a live server (SRV-20, SRV-21)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from attn.cli.main import app
from attn.config import parse_config
from attn.server.testing import LiveServer

TEAM = """\
[[agents]]
name = "alice"
brain = "echo"

[[agents]]
name = "slow"
brain = "script"
options = { steps = [{ sleep_s = 30.0 }] }
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    config = parse_config(TEAM, environ={"ATTN_DATABASE_URL": f"sqlite:///{tmp_path / 'a.db'}"})
    with LiveServer(config) as live:
        yield live


def attn(runner: CliRunner, *args: str) -> Any:
    return runner.invoke(app, list(args))


def _one_line_error(result: Any, needle: str, exit_code: int = 1) -> None:
    assert result.exit_code == exit_code, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("attn: ")
    assert needle in lines[0]
    assert "Traceback" not in result.output


def _busy(url: str) -> str:
    """Give the slow agent an item and wait (by asking) until it works on it."""
    with httpx.Client(base_url=url) as http:
        item_id = http.post(
            "/api/agents/slow/mailbox",
            json={"sourceType": "a2a_message", "payload": {"content": "long job"}},
        ).json()["id"]
        deadline = time.monotonic() + 10
        while http.get("/api/agents/slow").json()["currentFocus"] is None:
            assert time.monotonic() < deadline
    return str(item_id)


def test_cancel_the_current_work(runner: CliRunner, server: LiveServer) -> None:
    item_id = _busy(server.url)
    result = attn(runner, "cancel", "slow", "--reason", "not needed", "--hard", "--url", server.url)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"cancelling {item_id} of slow (now)"
    with httpx.Client(base_url=server.url) as http:
        deadline = time.monotonic() + 10
        while (item := http.get("/api/agents/slow/mailbox").json()["history"][0])[
            "status"
        ] == "processing":
            assert time.monotonic() < deadline
    assert item["reason"] == "cancelled: not needed"


def test_cancel_when_idle_and_json(runner: CliRunner, server: LiveServer) -> None:
    result = attn(runner, "cancel", "alice", "--url", server.url)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "alice is idle; nothing to cancel"
    data = json.loads(attn(runner, "cancel", "alice", "--url", server.url, "--json").stdout)
    assert data == {"mailboxItemId": None}


def test_srv21_cancel_errors_are_one_line(runner: CliRunner, server: LiveServer) -> None:
    _one_line_error(attn(runner, "cancel", "nobody", "--url", server.url), "(404 unknown_agent)")
    _one_line_error(
        attn(runner, "cancel", "alice", "--reason", " ", "--url", server.url),
        "--reason must be 1 to 500 characters",
        exit_code=2,
    )
    attn(runner, "control", "alice", "stop", "--url", server.url)
    _one_line_error(attn(runner, "cancel", "alice", "--url", server.url), "(409 agent_not_running)")


def test_control_pause_resume_stop_start(runner: CliRunner, server: LiveServer) -> None:
    url = server.url
    assert attn(runner, "control", "alice", "pause", "--url", url).stdout.strip() == (
        "alice: paused"
    )
    assert attn(runner, "control", "alice", "resume", "--url", url).stdout.strip() == (
        "alice: running (idle, 0 queued)"
    )
    assert attn(runner, "control", "alice", "STOP", "--url", url).stdout.strip() == (
        "alice: stopped"
    )
    data = json.loads(attn(runner, "control", "alice", "start", "--url", url, "--json").stdout)
    assert (data["agentId"], data["running"], data["paused"]) == ("alice", True, False)


def test_srv21_control_errors_are_one_line(runner: CliRunner, server: LiveServer) -> None:
    _one_line_error(
        attn(runner, "control", "alice", "reboot", "--url", server.url), "ACTION", exit_code=2
    )
    _one_line_error(attn(runner, "control", "nobody", "stop", "--url", server.url), "unknown_agent")
    attn(runner, "control", "alice", "stop", "--url", server.url)
    _one_line_error(
        attn(runner, "control", "alice", "pause", "--url", server.url), "(409 agent_not_running)"
    )


def test_srv21_no_server_is_one_line(runner: CliRunner) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        _one_line_error(
            attn(runner, "cancel", "alice", "--url", url), "cannot reach the attn server"
        )
        _one_line_error(attn(runner, "control", "alice", "stop", "--url", url), "is `attn serve`")
