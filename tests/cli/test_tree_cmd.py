"""``attn tree``: roots, children, mail, RESULTs, turns, controls and the live view,
against a live server (SQLite); and how ``attn agents`` and ``attn tail`` show trees.

The live server runs on real time, so waiting for a child's RESULT polls the API
with a deadline (there is no event to await across the thread).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import httpx
import pytest
from typer.testing import CliRunner

from attn.cli.events import render_event
from attn.cli.main import app
from attn.server.testing import LiveServer, team_config

TEAM = """\
[[agents]]
name = "lead"
brain = "echo"

[[agents]]
name = "peer"
brain = "echo"
"""
DEADLINE_S = 20.0


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    with LiveServer(team_config(TEAM, tmp_path / "attn.db")) as live:
        yield live.url


def _run(runner: CliRunner, url: str, *args: str, code: int = 0) -> Any:
    result = runner.invoke(app, ["tree", *args, "--url", url])
    assert result.exit_code == code, (args, result.output)
    return result


def _json(runner: CliRunner, url: str, *args: str) -> Any:
    return json.loads(_run(runner, url, *args, "--json").stdout)


def _until(check: Callable[[], Any]) -> Any:
    deadline = time.monotonic() + DEADLINE_S
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.02)


def test_root_spawn_mail_show_results_and_turn(runner: CliRunner, url: str) -> None:
    made = _run(runner, url, "root", "lead", "--capacity", "2")
    assert made.stdout.strip() == "lead is /root of tree lead (2 slots)"
    spawned = _run(runner, url, "spawn", "lead", "ada", "say hi", "--description", "researcher")
    lines = spawned.stdout.splitlines()
    assert lines[0] == "spawned /root/ada (lead.ada) in tree lead"
    assert lines[1].startswith("task: lead.ada ") and lines[1].split()[2] in ("started", "queued")
    _run(runner, url, "spawn", "lead.ada", "probe", "--brain", "echo", "--options", '{"steps": 2}')

    results = _until(lambda: _json(runner, url, "results", "lead")["results"])
    assert results[0]["from"] == "lead.ada" and results[0]["outcome"] == "completed"
    shown = _run(runner, url, "results", "lead").stdout
    assert "lead.ada completed" in shown and "[result from /root/ada: completed]" in shown

    mailed = _run(runner, url, "mail", "lead.ada.probe", "ping").stdout
    assert mailed.startswith("lead.ada.probe started") or "queued" in mailed
    _until(lambda: _json(runner, url, "results", "lead.ada")["results"])

    listed = _run(runner, url, "list").stdout
    assert "lead  3 agents  slots 0/2" in listed
    tree = _run(runner, url, "show", "lead").stdout
    assert "tree lead  slots 0/2" in tree
    assert "/root/ada" in tree and "/root/ada/probe" in tree and "researcher" in tree
    assert tree.index("/root/ada ") < tree.index("/root/ada/probe")

    turn_id = results[0]["item"]["payload"]["extra"]["turnItemId"]
    turn = _run(runner, url, "turn", "lead.ada", turn_id).stdout
    assert turn.startswith(f"{turn_id} agent_mail completed") and "say hi" in turn
    assert "text" in turn and "echo:" in turn  # its log lines

    agents = runner.invoke(app, ["agents", "--url", url])
    assert agents.exit_code == 0
    assert "tree" in agents.stdout and "lead /root/ada idle" in agents.stdout


def test_controls_take_and_plan(runner: CliRunner, url: str) -> None:
    _run(runner, url, "spawn", "lead", "mid")
    _run(runner, url, "spawn", "lead.mid", "leaf")
    assert _run(runner, url, "stop", "lead.mid").stdout.strip() == "lead.mid: stopped"
    _run(runner, url, "mail", "lead.mid.leaf", "report")
    _until(lambda: _json(runner, url, "results", "lead.mid")["results"])
    took = _run(runner, url, "take", "lead.mid", "--child", "lead.mid.leaf").stdout
    assert took.startswith("took mbx_") and "from lead.mid.leaf" in took
    assert _run(runner, url, "take", "lead.mid").stdout.strip() == "lead.mid: no unread RESULT"
    assert _run(runner, url, "start", "lead.mid").stdout.strip() == "lead.mid: started"

    idle = _run(runner, url, "interrupt", "lead.mid", "--reason", "enough").stdout
    assert idle.strip() == "lead.mid was in no turn; its wake marks are cleared"
    assert _run(runner, url, "plan", "lead.mid", "on").stdout.strip() == "lead.mid: plan on"
    assert _json(runner, url, "show", "lead")["agents"][1]["plan"] is True
    _run(runner, url, "plan", "lead.mid", "off")

    removed = _run(runner, url, "remove", "lead.mid").stdout
    assert removed.strip() == "removed /root/mid (lead.mid) and its subtree"
    assert [n["path"] for n in _json(runner, url, "show", "lead")["agents"]] == ["/root"]


@pytest.mark.parametrize(
    ("args", "needle", "code"),
    [
        (("mail", "lead.ada", "  "), "TEXT is empty", 2),
        (("mail", "lead.nobody", "hi"), "(404 unknown_agent)", 1),
        (("spawn", "lead", "Bad Name"), "(422 invalid_input)", 1),
        (("spawn", "nobody", "ada"), "(404 unknown_agent)", 1),
        (("spawn", "lead", "ada", " "), "TASK is empty", 2),
        (("spawn", "lead", "x", "--options", "{}"), "--options needs --brain", 2),
        (("spawn", "lead", "x", "--brain", "echo", "--options", "[1]"), "JSON object", 2),
        (("spawn", "lead", "x", "--brain", "echo", "--options", "{"), "not JSON", 2),
        (("spawn", "lead", "x", "--brain", "nope"), "unknown brain", 1),
        (("show", "nobody"), "(404 unknown_agent)", 1),
        (("root", "lead", "--capacity", "0"), "--capacity", 2),
        (("remove", "lead"), "is the root of tree lead", 2),
        (("remove", "peer"), "peer is in no spawn tree", 2),
        (("plan", "lead", "maybe"), "'on' or 'off'", 2),
        (("turn", "lead", "mbx_nope"), "(404 item_not_found)", 1),
        (("results", "lead", "--limit", "0"), "--limit", 2),
    ],
)
def test_errors_are_one_line(
    runner: CliRunner, url: str, args: tuple[str, ...], needle: str, code: int
) -> None:
    _run(runner, url, "root", "lead")
    before = httpx.get(f"{url}/api/trees/lead").json()
    result = _run(runner, url, *args, code=code)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("attn: ") and needle in lines[0], result.stderr
    assert httpx.get(f"{url}/api/trees/lead").json() == before  # nothing changed


def test_every_tree_command_has_help(runner: CliRunner) -> None:
    names = ["list", "show", "root", "spawn", "mail", "interrupt", "start", "stop", "remove"]
    names += ["plan", "results", "take", "turn", "watch"]
    for name in names:
        result = runner.invoke(app, ["tree", name, "--help"])
        assert result.exit_code == 0 and "Example" in result.stdout, name
    top = runner.invoke(app, ["tree", "--help"])
    assert all(name in top.stdout for name in names)


# ------------------------------------------------------------------- watch and tail


class _Lines:
    """A process's stdout lines, read on a thread."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.put(line)

    def until(self, match: Callable[[str], bool]) -> str:
        deadline = time.monotonic() + DEADLINE_S
        while True:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no matching line; saw {self.seen[-10:]}"
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue
            self.seen.append(line)
            if match(line):
                return line


def _watch(*args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ATTN_URL", "ATTN_TOKEN")}
    env |= {"ATTN_DEBUG": "", "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}
    return subprocess.Popen(
        [sys.executable, "-m", "attn", "tree", "watch", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_watch_shows_a_trees_states_and_results_live(url: str) -> None:
    assert httpx.post(f"{url}/api/trees", json={"agentId": "lead"}).status_code == 201
    assert httpx.post(f"{url}/api/trees", json={"agentId": "peer"}).status_code == 201
    process = _watch("lead", "--url", url)
    try:
        out = _Lines(process.stdout)  # type: ignore[arg-type]
        assert "following tree lead" in out.until(lambda line: "following" in line)
        httpx.post(f"{url}/api/agents/peer/children", json={"name": "other", "task": "no"})
        spawn = {"name": "ada", "task": "hello"}
        assert httpx.post(f"{url}/api/agents/lead/children", json=spawn).status_code == 201
        spawned = out.until(lambda line: "tree:spawned" in line)
        assert "/root/ada in tree lead" in spawned
        running = out.until(lambda line: "tree:agent-state" in line and " running" in line)
        assert "/root/ada running" in running and "slots 1/3" in running
        result = out.until(lambda line: "tree:result" in line)
        assert "lead.ada → lead completed (mail)" in result
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=DEADLINE_S)
    assert process.returncode == 0 and "Traceback" not in stderr, stderr
    assert not any("peer" in line for line in out.seen)


def test_watch_of_an_unknown_tree_is_one_line(url: str) -> None:
    process = _watch("nobody", "--url", url)
    _, stderr = process.communicate(timeout=DEADLINE_S)
    assert process.returncode == 1
    assert stderr.strip().startswith("attn: no spawn tree has the id 'nobody'"), stderr


def test_tail_renders_tree_events() -> None:
    base = {"type": "event", "seq": 1, "at": "2026-01-01T00:00:00+00:00"}
    state = render_event(
        {
            **base,
            "event": "tree:agent-state",
            "agentId": "lead.ada",
            "data": {"path": "/root/ada", "state": "waiting", "unread": 2, "slotsInUse": 3},
        }
    ).plain
    assert "/root/ada waiting  unread 2  slots 3/?" in state
    result = render_event(
        {
            **base,
            "event": "tree:result",
            "agentId": "lead",
            "data": {"from": "lead.ada", "to": "lead", "outcome": "errored", "consumedBy": "wait"},
        }
    ).plain
    assert "lead.ada → lead errored (wait)" in result
    removed = render_event(
        {
            **base,
            "event": "tree:removed",
            "agentId": "lead.ada",
            "data": {"node": {"path": "/root/ada", "treeId": "lead"}},
        }
    ).plain
    assert "tree:removed" in removed and "/root/ada in tree lead" in removed
