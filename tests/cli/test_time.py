"""``attn time``: list, cancel, wakeup and heartbeat against a live server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attn.cli.main import app
from attn.config import parse_config
from attn.server.testing import LiveServer

TEAM = """\
[[agents]]
name = "alice"
brain = "echo"
"""


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    config = parse_config(TEAM, environ={"ATTN_DATABASE_URL": f"sqlite:///{tmp_path / 'a.db'}"})
    with LiveServer(config) as live:
        yield live.url


def test_wakeup_list_cancel_and_heartbeat(runner: CliRunner, url: str) -> None:
    made = runner.invoke(
        app,
        [
            "time",
            "wakeup",
            "alice",
            "--in",
            "3600",
            "--note",
            "check the build",
            "--url",
            url,
            "--json",
        ],
    )
    assert made.exit_code == 0, made.output
    wakeup = json.loads(made.stdout)["wakeup"]
    table = runner.invoke(app, ["time", "list", "alice", "--url", url])
    assert table.exit_code == 0, table.output
    assert wakeup["id"] in table.stdout and "check the build" in table.stdout
    assert wakeup["nextFireAt"][:16] in table.stdout
    listed = json.loads(
        runner.invoke(app, ["time", "list", "alice", "--url", url, "--json"]).stdout
    )
    assert [c["id"] for c in listed["callbacks"]] == [wakeup["id"]]

    cancelled = runner.invoke(app, ["time", "cancel", "alice", wakeup["id"], "--url", url])
    assert cancelled.exit_code == 0, cancelled.output
    assert cancelled.stdout.strip() == f"cancelled wakeup {wakeup['id']} of alice"
    again = runner.invoke(app, ["time", "cancel", "alice", wakeup["id"], "--url", url])
    assert again.exit_code == 1
    assert again.stderr.startswith("attn: ") and "callback_not_found" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1

    shown = runner.invoke(app, ["time", "heartbeat", "alice", "--url", url])
    assert "heartbeat every 21600 s" in shown.stdout  # the default: 6 h
    changed = runner.invoke(app, ["time", "heartbeat", "alice", "--interval", "60", "--url", url])
    assert changed.exit_code == 0, changed.output
    assert "heartbeat every 300 s" in changed.stdout


def test_time_usage_errors_are_one_line(runner: CliRunner, url: str) -> None:
    both = runner.invoke(app, ["time", "wakeup", "alice", "--url", url])
    assert both.exit_code == 2 and "exactly one of --in" in both.stderr
    unknown = runner.invoke(app, ["time", "list", "nobody", "--url", url])
    assert unknown.exit_code == 1 and "unknown_agent" in unknown.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["wakeup", "alice", "--in", "nan"],
        ["wakeup", "alice", "--in", "inf"],
        ["wakeup", "alice", "--in", "60", "--every", "nan"],
        ["heartbeat", "alice", "--interval", "nan"],
    ],
)
def test_non_finite_seconds_are_usage_errors(runner: CliRunner, args: list[str]) -> None:
    done = runner.invoke(app, ["time", *args, "--url", "http://127.0.0.1:1"])
    assert done.exit_code == 2, done.output
    assert "finite number" in done.stderr and len(done.stderr.strip().splitlines()) == 1
