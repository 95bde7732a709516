"""``attn channel``: lists, history, posts, sends, broadcasts, delegations and the live
view, against a live server; and how ``attn tail`` shows channel events.

``watch`` runs as a real process; waiting on another process's output has no
event to await, so that wait polls with a deadline.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
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
name = "alice"
brain = "echo"

[[agents]]
name = "bob"
brain = "echo"

[[agents]]
name = "carol"
brain = "echo"
"""
DEADLINE_S = 20.0


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    with LiveServer(team_config(TEAM, tmp_path / "attn.db")) as live:
        yield live.url


def _run(runner: CliRunner, url: str, *args: str, code: int = 0) -> Any:
    result = runner.invoke(app, ["channel", *args, "--url", url])
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


def test_create_post_history_and_list(runner: CliRunner, url: str) -> None:
    made = _run(runner, url, "create", "Launch", "--member", "alice", "--member", "bob")
    assert made.stdout.startswith("created group:custom:grp_") and "(alice, bob)" in made.stdout
    key = made.stdout.split()[1]

    posted = _run(runner, url, "post", key, "ready, @bob?", "--as", "dana")
    lines = posted.stdout.splitlines()
    assert lines[0].startswith("posted chm_") and f"on {key}" in lines[0]
    assert len(lines) == 2 and lines[1].split()[:1] == ["bob"]  # only the mentioned member
    assert lines[1].split()[1] in ("started", "queued")
    receipt = _json(runner, url, "post", key, "everyone", "--mention", "alice")
    assert [d["recipient"] for d in receipt["deliveries"]] == ["alice"]

    # bob and alice answer the person on the channel.
    page = _until(lambda: (p := _json(runner, url, "history", key))["messages"][3:] and p)
    senders = [m["senderId"] for m in page["messages"]]
    assert senders[0] == "dana" and senders.index("user") > 0
    assert {"alice", "bob"} <= set(senders)  # the answers
    shown = _run(runner, url, "history", key, "--limit", "2").stdout
    assert shown.count("\n") >= 3 and "older: attn channel history" in shown
    first = _run(runner, url, "history", key, "--limit", "1", "--before", "2").stdout
    assert "dana" in first and "ready, @bob?" in first and "bob started" in first

    table = _run(runner, url, "list").stdout
    assert key in table and "custom" in table and "Launch" in table
    listed = _json(runner, url, "list", "--member", "carol")
    assert listed["channels"] == []


def test_send_awaits_and_shows_each_outcome(runner: CliRunner, url: str) -> None:
    sent = _run(runner, url, "send", "alice", "bob", "ping", "--await", "--timeout", "60")
    text = sent.stdout
    assert "sent chm_" in text and "on dm:a2a:alice:bob" in text
    assert "the answer is awaited (callback cb_" in text
    assert "bob started" in text or "bob queued" in text

    status = _run(
        runner, url, "broadcast", "alice", "deploying", "--to", "bob", "--to", "nobody", code=1
    )
    assert "bob logged" in status.stdout
    assert "nobody refused (unknown recipient)" in status.stdout
    assert "partial: 1 of 2 refused" in status.stdout

    delegated = _run(runner, url, "delegate", "alice", "carol", "summarize the logs")
    assert "delegated chm_" in delegated.stdout and "is open" in delegated.stdout
    answered = _until(
        lambda: _json(runner, url, "delegations", "alice")["delegations"][0]["status"] == "answered"
    )
    assert answered
    table = _run(runner, url, "delegations", "carol").stdout
    assert "answered" in table and "summarize the logs" in table


@pytest.mark.parametrize(
    ("args", "needle", "code"),
    [
        (("send", "alice", "nobody", "hi"), "(422 send_refused)", 1),
        (("send", "alice", "bob", "  "), "TEXT is empty", 2),
        (("send", "nobody", "bob", "hi"), "(404 unknown_agent)", 1),
        (("post", "group:custom:nope", "hi"), "(404 unknown_channel)", 1),
        (("post", "dm:a2a:bob:alice", "hi"), "path.channelKey", 1),
        (("create", "x", "--member", "nobody"), "(404 unknown_agent)", 1),
        (("history", "group:custom:nope"), "(404 unknown_channel)", 1),
        (("history", "k", "--limit", "0"), "--limit", 2),
        (("send", "alice", "bob", "hi", "--timeout", "nan"), "--timeout", 2),
        (("send", "alice", "bob", "hi", "--timeout", "1e9"), "--timeout", 2),
        (("list", "--kind", "weird"), "'weird' is not one of", 2),
    ],
)
def test_errors_are_one_line(
    runner: CliRunner, url: str, args: tuple[str, ...], needle: str, code: int
) -> None:
    result = _run(runner, url, *args, code=code)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("attn: ") and needle in lines[0], result.stderr


def test_every_channel_command_has_help(runner: CliRunner) -> None:
    names = ["list", "history", "post", "create", "send", "broadcast", "delegate", "delegations"]
    for name in [*names, "watch"]:
        result = runner.invoke(app, ["channel", name, "--help"])
        assert result.exit_code == 0 and "Example" in result.stdout, name
    top = runner.invoke(app, ["channel", "--help"])
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
        [sys.executable, "-m", "attn", "channel", "watch", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _stop(process: subprocess.Popen[str]) -> tuple[int, str]:
    process.send_signal(signal.SIGINT)
    try:
        _, stderr = process.communicate(timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        process.kill()
        raise
    return process.returncode, stderr


def test_watch_shows_a_channels_messages_live(url: str) -> None:
    made = httpx.post(f"{url}/api/channels", json={"name": "g", "members": ["alice", "bob"]})
    key = made.json()["key"]
    process = _watch(key, "--url", url)
    try:
        out = _Lines(process.stdout)  # type: ignore[arg-type]
        assert f"following {key}" in out.until(lambda line: "following" in line)
        httpx.post(f"{url}/api/agents/alice/send", json={"to": "bob", "text": "not here"})
        posted = httpx.post(f"{url}/api/channels/{key}/messages", json={"text": "hi @alice"})
        assert posted.status_code == 201
        line = out.until(lambda line: "hi @alice" in line)
        assert "user: hi @alice" in line and "alice started" in line
        answer = out.until(lambda line: "alice:" in line)  # alice's echo, posted back
        assert "echo:" in answer
    finally:
        status, stderr = _stop(process)
    assert status == 0 and "Traceback" not in stderr, stderr
    assert not any("not here" in line for line in out.seen)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _dm(base: str, text: str) -> None:
    """alice -> bob on dm:a2a:alice:bob (an agent's message: no answer is posted)."""
    sent = httpx.post(f"{base}/api/agents/alice/send", json={"to": "bob", "text": text})
    assert sent.status_code == 201, sent.text


def test_watch_reads_what_it_missed_across_a_restart_from_the_history(tmp_path: Path) -> None:
    config = team_config(TEAM, tmp_path / "attn.db")
    port = _free_port()
    key = "dm:a2a:alice:bob"
    with LiveServer(config, port=port) as first:
        _dm(first.url, "older, not shown")
        process = _watch(key, "--url", first.url)
        out = _Lines(process.stdout)  # type: ignore[arg-type]
        try:
            first_line = out.until(lambda line: "following" in line)
            assert first_line.startswith(f"following {key} at {first.url} (Ctrl+C stops)")
            _dm(first.url, "before the restart")
            out.until(lambda line: "before the restart" in line)
        except BaseException:
            process.kill()
            raise
    try:
        # Posted while the watch cannot connect: the same database, another port.
        with LiveServer(config, port=_free_port()) as away:
            _dm(away.url, "while away 1")
            _dm(away.url, "while away 2")
        with LiveServer(config, port=port) as second:
            again = out.until(lambda line: line.startswith("following"))
            assert again.startswith(f"following {key} at {second.url} again (Ctrl+C stops)")
            assert f"{key}: 2 messages missed after #2, read from its history" in out.until(
                lambda line: "missed after" in line
            )
            assert "#3 alice: while away 1" in out.until(lambda line: "while away 1" in line)
            assert "#4 alice: while away 2" in out.until(lambda line: "while away 2" in line)
            _dm(second.url, "after the restart")
            assert "#5 alice: after the restart" in out.until(lambda line: "after the" in line)
    finally:
        status, stderr = _stop(process)
    assert status == 0 and "Traceback" not in stderr, stderr
    assert "connection lost" in stderr
    texts = ["before the restart", "while away 1", "while away 2", "after the restart"]
    assert [sum(text in line for line in out.seen) for text in texts] == [1, 1, 1, 1]
    assert not any("older, not shown" in line for line in out.seen)


def test_watch_json_prints_what_it_missed_as_history_lines(tmp_path: Path) -> None:
    config = team_config(TEAM, tmp_path / "attn.db")
    port = _free_port()
    key = "dm:a2a:alice:bob"
    with LiveServer(config, port=port) as first:
        process = _watch(key, "--url", first.url, "--json")
        out = _Lines(process.stdout)  # type: ignore[arg-type]
        try:
            out.until(lambda line: json.loads(line)["type"] == "subscribed")
            _dm(first.url, "before")
            out.until(lambda line: "before" in line)
        except BaseException:
            process.kill()
            raise
    try:
        with LiveServer(config, port=_free_port()) as away:
            _dm(away.url, "while away")
        with LiveServer(config, port=port) as second:
            missed = json.loads(out.until(lambda line: "while away" in line))
            assert missed["type"] == "history" and missed["channelKey"] == key
            assert (missed["message"]["seq"], missed["message"]["text"]) == (2, "while away")
            _dm(second.url, "after")
            live = json.loads(out.until(lambda line: '"after"' in line))
            assert live["type"] == "event" and live["data"]["message"]["seq"] == 3
    finally:
        status, stderr = _stop(process)
    assert status == 0 and "Traceback" not in stderr, stderr
    assert sum("while away" in line for line in out.seen) == 1


def test_watch_of_an_unknown_channel_is_one_line(url: str) -> None:
    process = _watch("group:custom:nope", "--url", url)
    _, stderr = process.communicate(timeout=DEADLINE_S)
    assert process.returncode == 1
    assert stderr.strip().startswith("attn: no channel has the key 'group:custom:nope'")
    assert "(unknown_channel)" in stderr and len(stderr.strip().splitlines()) == 1


def _frame(event: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "event", "seq": 1, "event": event, "agentId": None, "at": "x", "data": data}


def test_tail_renders_channel_events_readably() -> None:
    message = {
        "seq": 7,
        "channelKey": "group:research",
        "senderId": "lead",
        "senderKind": "agent",
        "kind": "message",
        "text": "status @alice?",
        "deliveries": [
            {"recipient": "alice", "outcome": "started", "reason": None},
            {"recipient": "bob", "outcome": "refused", "reason": "recipient removed"},
        ],
    }
    line = render_event(_frame("channel:message", {"message": message})).plain
    assert "channel:message" in line and "group:research #7 lead: status @alice?" in line
    assert "alice started, bob refused (recipient removed)  partial" in line
    channel = {"key": "group:custom:grp_1", "name": "Launch", "members": ["a", "b"]}
    created = render_event(_frame("channel:created", {"channel": channel})).plain
    assert "group:custom:grp_1 'Launch' (2 members: a, b)" in created
    delegation = {"delegator": "lead", "delegate": "alice", "status": "open", "goal": "do it"}
    shown = render_event(_frame("channel:delegation", {"delegation": delegation})).plain
    assert "lead → alice open  'do it'" in shown
    log = {"content": "deploying", "metadata": {"senderId": "lead"}}
    status = render_event(_frame("agent:status-logged", {"log": log})).plain
    assert "status from lead: deploying" in status
    odd = render_event(_frame("channel:message", {"message": None})).plain
    assert "channel:message" in odd  # a frame of another shape does not break the tail
