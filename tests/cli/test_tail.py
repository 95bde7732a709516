"""``attn tail`` and ``attn chat`` as real processes against a real server (SRV-20, SRV-21).

``attn tail`` is also run in a real terminal: tmux, read back with capture-pane.
Waiting on another process's terminal or output has no event to await, so
those waits poll with a deadline.
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import httpx
import pytest

from attn.server.testing import LiveServer, team_config

TEAM = """\
[[agents]]
name = "alice"
brain = "script"
options = { steps = [{ say = "Hel" }, { say = "lo" }] }

[[agents]]
name = "bob"
brain = "echo"
"""
TOKEN = "tail-test-token"
DEADLINE_S = 20.0


def _config(tmp_path: Path, token: str | None = None) -> Any:
    return team_config(TEAM, tmp_path / "attn.db", token)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ATTN_URL", "ATTN_TOKEN")}
    env["ATTN_DEBUG"] = ""
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _attn(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "attn", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(),
        check=False,
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _enqueue(url: str, agent: str, text: str, token: str | None = None) -> str:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = httpx.post(
        f"{url}/api/agents/{agent}/mailbox",
        json={"sourceType": "a2a_message", "payload": {"content": text}},
        headers=headers,
        timeout=10.0,
    )
    assert response.status_code == 202, response.text
    item_id: str = response.json()["id"]
    return item_id


def _one_line_error(result: subprocess.CompletedProcess[str], needle: str, code: int = 1) -> None:
    assert result.returncode == code, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("attn: ") and needle in lines[0], lines[0]
    assert "Traceback" not in result.stderr


class _Lines:
    """A process's stdout read line by line on a thread; :meth:`until` waits for a line."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.put(line)

    def until(self, match: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        deadline = time.monotonic() + DEADLINE_S
        while True:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no matching line; saw {self.seen[-10:]}"
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue
            self.seen.append(line)
            message: dict[str, Any] = json.loads(line)
            if match(message):
                return message


def _tail_process(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "attn", "tail", "--json", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )


def _stop(process: subprocess.Popen[str]) -> tuple[int, str]:
    """Ctrl+C the process; return its exit status and stderr."""
    process.send_signal(signal.SIGINT)
    try:
        _, stderr = process.communicate(timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        process.kill()
        raise
    return process.returncode, stderr


def _mailbox(item_id: str) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m.get("event") == "agent:mailbox" and m["data"]["item"]["id"] == item_id


# --------------------------------------------------------------------- attn tail


def test_srv20_tail_json_follows_events_and_reconnects_after_a_restart(tmp_path: Path) -> None:
    port = _free_port()
    config = _config(tmp_path)
    with LiveServer(config, port=port) as first:
        process = _tail_process("--url", first.url)
        try:
            out = _Lines(process.stdout)  # type: ignore[arg-type]
            out.until(lambda m: m["type"] == "subscribed")
            before = _enqueue(first.url, "bob", "before the restart")
            event = out.until(_mailbox(before))
            assert event["type"] == "event" and event["agentId"] == "bob"
            out.until(
                lambda m: (
                    m.get("event") == "agent:item" and m["data"]["item"]["status"] == "completed"
                )
            )
        except BaseException:
            process.kill()
            raise
    try:
        with LiveServer(config, port=port) as second:
            # The new server numbers events from its own start: the tail is told to resync.
            resync = out.until(lambda m: m["type"] in ("resync", "subscribed"))
            assert resync["type"] == "resync"
            out.until(lambda m: m["type"] == "subscribed")
            after = _enqueue(second.url, "bob", "after the restart")
            event = out.until(_mailbox(after))
            assert event["seq"] > resync["seq"] - 1
    finally:
        status, stderr = _stop(process)
    assert status == 0, stderr
    assert "Traceback" not in stderr
    assert "reconnecting" in stderr


def test_srv20_tail_filters_agents(server: LiveServer) -> None:
    process = _tail_process("alice", "--url", server.url)
    try:
        out = _Lines(process.stdout)  # type: ignore[arg-type]
        subscribed = out.until(lambda m: m["type"] == "subscribed")
        assert subscribed["agents"] == ["alice"]
        _enqueue(server.url, "bob", "not shown")
        shown = _enqueue(server.url, "alice", "shown")
        out.until(_mailbox(shown))
    finally:
        status, stderr = _stop(process)
    assert status == 0 and "Traceback" not in stderr
    events = [json.loads(line) for line in out.seen]
    assert {e["agentId"] for e in events if e["type"] == "event"} == {"alice"}


def test_srv21_tail_unknown_agent_is_one_line(server: LiveServer) -> None:
    result = _attn("tail", "nobody", "--url", server.url)
    _one_line_error(result, "unknown agent 'nobody'")


def test_srv21_tail_without_a_server_is_one_line() -> None:
    result = _attn("tail", "--url", f"http://127.0.0.1:{_free_port()}")
    _one_line_error(result, "cannot reach the attn server")


def test_srv21_tail_token(tmp_path: Path) -> None:
    with LiveServer(_config(tmp_path, token=TOKEN)) as live:
        refused = _attn("tail", "--url", live.url)
        _one_line_error(refused, "needs an API token")
        wrong = _attn("tail", "--url", live.url, "--token", "wrong-token")
        _one_line_error(wrong, "check --token")
        process = _tail_process("--url", live.url, "--token", TOKEN)
        try:
            out = _Lines(process.stdout)  # type: ignore[arg-type]
            out.until(lambda m: m["type"] == "subscribed")
        finally:
            status, _ = _stop(process)
        assert status == 0


def test_srv21_tail_bad_url_is_a_usage_error() -> None:
    result = _attn("tail", "--url", "ftp://example.invalid")
    _one_line_error(result, "--url must start with http", code=2)


# ------------------------------------------------------------- attn tail in tmux


def _tmux(socket_name: str, *args: str) -> str:
    # No COLUMNS/LINES: the program must size itself from the terminal, as it would for a person.
    env = {k: v for k, v in _env().items() if k not in ("COLUMNS", "LINES")}
    result = subprocess.run(
        ["tmux", "-L", socket_name, "-f", "/dev/null", *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def _pane_until(socket_name: str, match: Callable[[str], bool], *, colour: bool = False) -> str:
    deadline = time.monotonic() + DEADLINE_S
    while True:
        screen = _tmux(socket_name, "capture-pane", "-p", *(["-e"] if colour else []), "-t", "tail")
        if match(screen):
            return screen
        assert time.monotonic() < deadline, f"the pane never matched; it shows:\n{screen}"
        time.sleep(0.05)


@pytest.mark.skipif(
    shutil.which("tmux") is None or shutil.which("bash") is None,
    reason="needs tmux (.ci/run installs it) and bash",
)
def test_srv20_tail_in_a_real_terminal_shows_an_enqueue_and_its_processing(
    server: LiveServer,
) -> None:
    socket_name = f"attn-test-{uuid.uuid4().hex[:8]}"
    # bash reports the exit status on the screen (tmux does not always reap a pane's process).
    tail = f"{shlex.quote(sys.executable)} -m attn tail --url {server.url}"
    command = f"bash -c {shlex.quote(tail + '; echo attn exited with status $?')}"
    _tmux(
        socket_name,
        "new-session",
        "-d",
        "-s",
        "tail",
        "-x",
        "200",
        "-y",
        "50",
        "-e",
        "ATTN_TOKEN=",
        "-e",
        "ATTN_URL=",
        command,
        ";",
        "set-option",
        "-t",
        "tail",
        "remain-on-exit",
        "on",
    )
    socket_path = _tmux(socket_name, "display-message", "-p", "#{socket_path}").strip()
    try:
        _pane_until(socket_name, lambda s: "following all agents" in s)
        item_id = _enqueue(server.url, "bob", "hello from the test")

        def processed(screen: str) -> bool:
            lines = [line for line in screen.splitlines() if item_id in line]
            return any("agent:item" in line and "completed" in line for line in lines)

        screen = _pane_until(socket_name, processed)
        lines = [line for line in screen.splitlines() if item_id in line]
        mailbox = next(line for line in lines if "agent:mailbox" in line)
        assert " bob " in mailbox and "a2a_message" in mailbox and "hello from the test" in mailbox
        assert any("agent:decision" in line and "pick" in line for line in lines)
        assert any("agent:focus" in line for line in lines)
        order = [
            name
            for line in lines
            for name in ("agent:mailbox", "agent:decision", "agent:item")
            if name in line
        ]
        assert order.index("agent:mailbox") < order.index("agent:decision")
        # Coloured by event name: the mailbox line carries an escape sequence.
        coloured = _pane_until(socket_name, lambda s: item_id in s, colour=True)
        line = next(x for x in coloured.splitlines() if item_id in x and "agent:mailbox" in x)
        assert "\x1b[" in line
        # Ctrl+C ends it cleanly: exit status 0, no traceback.
        _tmux(socket_name, "send-keys", "-t", "tail", "C-c")
        screen = _pane_until(socket_name, lambda s: "attn exited with status" in s)
        assert "attn exited with status 0" in screen, screen
        assert "Traceback" not in screen
    finally:
        subprocess.run(
            ["tmux", "-L", socket_name, "kill-server"], capture_output=True, timeout=30, check=False
        )
        Path(socket_path).unlink(missing_ok=True)


# --------------------------------------------------------------------- attn chat


def test_srv20_chat_streams_each_reply(server: LiveServer) -> None:
    result = _attn("chat", "alice", "--url", server.url, stdin="hi there\n\nsecond\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["Hel lo", "Hel lo"]  # the reply, as streamed
    history = httpx.get(f"{server.url}/api/agents/alice/mailbox", timeout=10.0).json()["history"]
    texts = sorted(item["payload"]["content"] for item in history)
    assert texts == ["hi there", "second"]
    sessions = {item["metadata"]["sessionId"] for item in history}
    assert len(sessions) == 1, "one chat run is one session"


def test_srv20_chat_json_prints_every_event(server: LiveServer) -> None:
    result = _attn("chat", "bob", "--url", server.url, "--json", "--session", "s-9", stdin="ping\n")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["event"] for e in events] == ["item", "delta", "done"]
    assert events[-1]["data"]["reply"] == "echo: ping"
    assert events[-1]["data"]["mailboxItemId"] == events[0]["data"]["mailboxItemId"]


def test_srv21_chat_errors_are_one_line(server: LiveServer) -> None:
    _one_line_error(_attn("chat", "nobody", "--url", server.url, stdin="hi\n"), "nobody")
    _one_line_error(
        _attn("chat", "alice", "--url", f"http://127.0.0.1:{_free_port()}", stdin="hi\n"),
        "cannot reach the attn server",
    )
    _one_line_error(
        _attn("chat", "alice", "--url", server.url, "--timeout", "0", stdin="hi\n"),
        "--timeout must be positive",
        code=2,
    )
    total = httpx.get(f"{server.url}/api/agents/alice/mailbox", timeout=10.0).json()["total"]
    assert total == 0


def test_srv20_help_has_examples() -> None:
    for command in ("tail", "chat"):
        result = _attn(command, "--help")
        assert result.returncode == 0
        assert "Example" in result.stdout and f"attn {command}" in result.stdout


def test_chat_skips_a_line_that_is_not_utf8_and_goes_on(server: LiveServer) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "attn", "chat", "alice", "--url", server.url],
        input=b"\xff\xfe 1+2\nafter the bad line\n",
        capture_output=True,
        timeout=60,
        env=_env(),
        check=False,
    )
    stderr = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 1, stderr
    assert "a line that is not UTF-8 text was skipped" in stderr
    assert "Traceback" not in stderr and "unexpected error" not in stderr
    assert result.stdout.decode().splitlines() == ["Hel lo"]  # the next line was still sent


def test_chat_goes_on_after_a_line_the_server_refuses(server: LiveServer) -> None:
    """A line too large for the server is refused with one line; the next is still sent."""
    huge = "x" * 2_000_000  # over the server's body limit: 413
    result = _attn("chat", "alice", "--url", server.url, stdin=f"{huge}\nsecond\n")
    assert result.returncode == 1, result.stderr
    assert result.stderr.splitlines() == [
        "attn: warning: request body is larger than 1048576 bytes (413 body_too_large)"
    ]
    assert result.stdout.splitlines() == ["Hel lo"]
