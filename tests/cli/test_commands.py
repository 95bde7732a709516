"""The ``attn`` command line: client commands against a live server, help, errors,
and the end-to-end "fresh clone" path with ``attn serve`` as a real process.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from attn.cli.main import app
from attn.config import parse_config
from attn.server.testing import LiveServer

TEAM = """\
[[agents]]
name = "alice"
brain = "echo"
description = "echoes"

[[agents]]
name = "bob"
brain = "echo"
options = { prefix = "bob: " }
"""
TOKEN = "cli-test-token"


def attn(runner: CliRunner, *args: str, env: dict[str, str] | None = None) -> Any:
    return runner.invoke(app, list(args), env=env)


def _one_line_error(result: Any, needle: str, exit_code: int = 1) -> None:
    assert result.exit_code == exit_code, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("attn: ")
    assert needle in lines[0]
    assert "Traceback" not in result.output


# ------------------------------------------------------------------------------- help


COMMANDS = [
    [],
    ["serve"],
    ["agents"],
    ["send"],
    ["mailbox"],
    ["version"],
    ["replay"],
    ["import"],
    ["import", "claude-team"],
    ["time"],
    ["time", "list"],
    ["time", "cancel"],
    ["time", "wakeup"],
    ["time", "heartbeat"],
    ["cancel"],
    ["control"],
    ["db"],
    ["db", "upgrade"],
    ["db", "status"],
    ["mcp"],
    ["mcp", "install"],
    ["config"],
    ["config", "check"],
    ["tail"],
    ["chat"],
    ["channel"],
    ["channel", "list"],
    ["channel", "history"],
    ["channel", "post"],
    ["channel", "create"],
    ["channel", "send"],
    ["channel", "broadcast"],
    ["channel", "delegate"],
    ["channel", "delegations"],
    ["channel", "watch"],
    ["tree"],
    *(
        ["tree", name]
        for name in (
            "list",
            "show",
            "root",
            "spawn",
            "mail",
            "interrupt",
            "start",
            "stop",
            "remove",
            "plan",
            "results",
            "take",
            "turn",
            "watch",
        )
    ),
    ["notifications"],
    *(["notifications", name] for name in ("list", "read", "read-all")),
    ["approvals"],
    *(["approvals", name] for name in ("list", "show", "answer", "cancel")),
    ["session"],
    ["filebox"],
    *(
        ["filebox", name]
        for name in (
            "list",
            "show",
            "read",
            "send",
            "ack",
            "respond",
            "steer",
            "follow-up",
            "nudge",
            "cancel",
            "validate",
            "events",
        )
    ),
    ["worker"],
    *(
        ["worker", name]
        for name in ("run", "stop", "ask", "inbox", "steering", "ack", "send", "heartbeat")
    ),
]


# SRV-20: every command and subcommand explains itself with an example
@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(runner: CliRunner, command: list[str]) -> None:
    result = attn(runner, *command, "--help")
    assert result.exit_code == 0, result.output
    assert "Usage" in result.stdout
    examples = result.stdout.split("Example", 1)[1].splitlines()[1:]
    assert any(line.strip().startswith("attn ") for line in examples), result.stdout
    assert "<bool>" not in result.stdout
    assert "╭" not in result.stdout  # plain help, no boxes


def test_every_command_is_in_the_help_test() -> None:
    from typer.main import get_command

    root = get_command(app)
    names = {command[0] for command in COMMANDS if command}
    assert names == set(root.commands)  # type: ignore[attr-defined]


def test_version(runner: CliRunner) -> None:
    result = attn(runner, "version")
    assert result.exit_code == 0
    assert result.stdout.startswith("attn ")


# ---------------------------------------------------------------------- client commands


# SRV-20: attn agents lists agents with their attention state and depth
def test_agents_table_and_json(runner: CliRunner, server: LiveServer) -> None:
    table = attn(runner, "agents", "--url", server.url)
    assert table.exit_code == 0, table.output
    assert "alice" in table.stdout and "bob" in table.stdout and "idle" in table.stdout
    assert "state" in table.stdout and "queued" in table.stdout  # the columns
    data = json.loads(attn(runner, "agents", "--url", server.url, "--json").stdout)
    assert [a["agentId"] for a in data["agents"]] == ["alice", "bob"]
    assert [(a["state"], a["queueDepth"]) for a in data["agents"]] == [("idle", 0), ("idle", 0)]


# SRV-20: attn send enqueues (and waits for the reply)
def test_send_chat_prints_the_reply(runner: CliRunner, server: LiveServer) -> None:
    result = attn(runner, "send", "alice", "hello there", "--url", server.url)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "echo: hello there"
    data = json.loads(attn(runner, "send", "bob", "hi", "--url", server.url, "--json").stdout)
    assert data["reply"] == "bob: hi"
    assert data["mailboxItemId"].startswith("mbx_")
    assert result.stderr == ""  # a running agent: no warning


def test_send_to_a_stopped_agent_says_so_before_waiting(
    runner: CliRunner, server: LiveServer
) -> None:
    assert attn(runner, "control", "alice", "stop", "--url", server.url).exit_code == 0
    result = attn(runner, "send", "alice", "anyone?", "--timeout", "0.3", "--url", server.url)
    assert result.exit_code != 0  # the reply did not come in time
    warning, error = result.stderr.strip().splitlines()
    assert warning.startswith("attn: warning: alice is stopped: the message waits")
    assert "attn control alice start|resume" in warning
    assert "reply" in error and "Traceback" not in result.output


# SRV-20: attn send --no-wait, then attn mailbox prints queue and history as a table
def test_send_no_wait_then_mailbox_shows_it_completed(
    runner: CliRunner, server: LiveServer
) -> None:
    queued = attn(
        runner, "send", "alice", "fyi", "--type", "a2a_message", "--priority", "2",
        "--no-wait", "--url", server.url, "--json",
    )  # fmt: skip
    assert queued.exit_code == 0, queued.output
    item_id = json.loads(queued.stdout)["id"]
    # A waited a2a message queues behind it (same priority, FIFO), so once its
    # reply is printed the first item has been processed.
    barrier = attn(runner, "send", "alice", "after", "--type", "a2a_message", "--wait",
                   "--url", server.url)  # fmt: skip
    assert barrier.stdout.strip() == "echo: after"
    data = json.loads(attn(runner, "mailbox", "alice", "--url", server.url, "--json").stdout)
    item = next(i for i in data["history"] if i["id"] == item_id)
    assert item["status"] == "completed"
    assert item["metadata"]["senderRole"] == "user"
    table = attn(runner, "mailbox", "alice", "--url", server.url)
    assert table.exit_code == 0
    row = next(line for line in table.stdout.splitlines() if item_id in line)
    assert "a2a_message" in row and "completed" in row and "pick" in row
    plain = attn(runner, "send", "alice", "x", "--type", "a2a_message", "--no-wait",
                 "--url", server.url)  # fmt: skip
    assert plain.stdout.startswith("queued mbx_") and "for alice" in plain.stdout


def test_mailbox_filters(runner: CliRunner, server: LiveServer) -> None:
    attn(runner, "send", "alice", "one", "--url", server.url)
    result = attn(
        runner, "mailbox", "alice", "--status", "dropped", "--type", "human_chat",
        "--url", server.url, "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["history"] == []


def test_c7_mailbox_pages_on_with_the_cursor_it_prints(
    runner: CliRunner, server: LiveServer
) -> None:
    """Issue 10 C7: ``attn mailbox`` pages by cursor (offsets repeat items)."""
    for text in ("one", "two", "three"):
        attn(runner, "send", "alice", text, "--url", server.url)
    first = attn(runner, "mailbox", "alice", "--limit", "2", "--url", server.url)
    assert first.exit_code == 0, first.output
    (hint,) = [line for line in first.stdout.splitlines() if "--cursor" in line]
    cursor = hint.split("--cursor")[1].strip()
    assert hint.startswith("more history: attn mailbox alice --cursor ")
    rest = attn(
        runner,
        "mailbox",
        "alice",
        "--limit",
        "2",
        "--cursor",
        cursor,
        "--url",
        server.url,
        "--json",
    )
    assert rest.exit_code == 0, rest.output
    page = json.loads(rest.stdout)
    assert [i["payload"]["content"] for i in page["history"]] == ["one"]
    assert page["nextCursor"] is None
    _one_line_error(
        attn(runner, "mailbox", "alice", "--cursor", "x", "--url", server.url),
        "cursor must be a nextCursor value",
    )


def test_url_from_environment(runner: CliRunner, server: LiveServer) -> None:
    result = attn(runner, "agents", "--json", env={"ATTN_URL": server.url})
    assert result.exit_code == 0, result.output


# ------------------------------------------------------------------------------ errors


# SRV-21: unknown agent is one clear line, non-zero exit
def test_unknown_agent_is_one_line(runner: CliRunner, server: LiveServer) -> None:
    _one_line_error(attn(runner, "send", "zed", "hi", "--url", server.url), "unknown recipient")
    _one_line_error(attn(runner, "mailbox", "zed", "--url", server.url), "404 unknown_agent")


# SRV-21
def test_bad_input_is_one_line(runner: CliRunner, server: LiveServer) -> None:
    for wait in ("--no-wait", "--wait"):
        result = attn(runner, "send", "alice", "x", "--priority", "9", wait, "--url", server.url)
        _one_line_error(result, "--priority must be from 0 (critical) to 4 (background), got 9", 2)
    result = attn(runner, "send", "alice", "x", "--priority", "-1", "--url", server.url)
    _one_line_error(result, "--priority must be from 0 (critical) to 4 (background), got -1", 2)
    result = attn(runner, "send", "alice", "x", "--priority", "1", "--url", server.url)
    _one_line_error(result, "--priority applies to a queued message: add --no-wait", 2)
    result = attn(runner, "send", "alice", "x", "--timeout", "0", "--url", server.url)
    _one_line_error(result, "--timeout must be positive seconds, got 0", 2)
    _one_line_error(
        attn(runner, "send", "alice", "  ", "--url", server.url), "TEXT is empty", exit_code=2
    )  # the CLI's own usage error (issue 10 D)
    result = attn(runner, "send", "alice", "x", "--type", "nope", "--no-wait", "--url", server.url)
    _one_line_error(result, "unknown source type 'nope'")
    _one_line_error(attn(runner, "mailbox", "alice", "--status", "done", "--url", server.url),
                    "status must be among")  # fmt: skip
    _one_line_error(attn(runner, "send", "", "x", "--url", server.url), "empty", exit_code=2)
    mailbox = json.loads(attn(runner, "mailbox", "alice", "--url", server.url, "--json").stdout)
    assert mailbox["total"] == 0


@pytest.mark.parametrize(
    ("args", "needle", "where"),
    [
        (["mailbox", "alice", "--limit", "0"], "Invalid value for '--limit'", "attn mailbox"),
        (["mailbox", "alice", "--limit", "1001"], "Invalid value for '--limit'", "attn mailbox"),
        (["mailbox", "alice", "--limit", "ten"], "Invalid value for '--limit'", "attn mailbox"),
        (["send", "alice"], "Missing argument 'TEXT'", "attn send"),
        (["send", "alice", "hi", "--bogus"], "No such option: --bogus", "attn send"),
        (["no-such-command"], "No such command 'no-such-command'", "attn"),
        (["--bogus"], "No such option: --bogus", "attn"),
        (["import", "nope"], "No such command 'nope'", "attn import"),
        (["replay"], "Missing argument 'TRACE'", "attn replay"),
    ],
)
def test_usage_errors_are_one_line_exit_2(
    runner: CliRunner, args: list[str], needle: str, where: str
) -> None:
    result = attn(runner, *args)
    _one_line_error(result, needle, exit_code=2)
    assert result.stderr.strip().endswith(f"(see '{where} --help')")
    assert "Usage:" not in result.output


@pytest.mark.parametrize("command", [[], ["import"]])
def test_a_group_without_a_command_prints_its_help(runner: CliRunner, command: list[str]) -> None:
    result = attn(runner, *command)
    assert result.exit_code == 2
    assert "Usage:" in result.output and "Commands:" in result.output


def test_mailbox_limit_allows_what_the_api_allows(runner: CliRunner, server: LiveServer) -> None:
    from attn.cli.commands import MAX_LIMIT
    from attn.server.params import MAX_PAGE

    assert MAX_LIMIT == MAX_PAGE == 1000
    result = attn(runner, "mailbox", "alice", "--limit", "1000", "--url", server.url, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["history"] == []


# SRV-21: server not running
def test_server_down_is_one_line(runner: CliRunner) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    for args in (["agents"], ["send", "alice", "hi"], ["mailbox", "alice"]):
        _one_line_error(attn(runner, *args, "--url", url), f"cannot reach the attn server at {url}")


# SRV-21: a traceback only with --debug
def test_debug_shows_the_traceback(runner: CliRunner) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = attn(runner, "--debug", "agents", "--url", f"http://127.0.0.1:{port}")
    assert result.exit_code != 0
    assert result.exception is not None


# SRV-07: a missing or wrong token is refused
def test_token(runner: CliRunner, tmp_path: Path) -> None:
    env = {"ATTN_DATABASE_URL": f"sqlite:///{tmp_path / 't.db'}", "ATTN_TOKEN": TOKEN}
    with LiveServer(parse_config(TEAM, environ=env)) as live:
        missing = attn(runner, "agents", "--url", live.url)
        _one_line_error(missing, "401 unauthorized")
        assert f"the server at {live.url} needs an API token (missing bearer token)" in (
            missing.stderr
        )
        assert "pass --token TOKEN or set ATTN_TOKEN" in missing.stderr
        wrong = attn(runner, "agents", "--url", live.url, "--token", "wrong-token")
        _one_line_error(wrong, "refused the API token (wrong bearer token)")
        assert "check --token or ATTN_TOKEN" in wrong.stderr
        wrong_env = attn(runner, "mailbox", "alice", "--url", live.url, env={"ATTN_TOKEN": "x"})
        _one_line_error(wrong_env, "check --token or ATTN_TOKEN")
        assert attn(runner, "agents", "--url", live.url, "--token", TOKEN).exit_code == 0
        by_env = attn(runner, "send", "alice", "hi", "--url", live.url, env={"ATTN_TOKEN": TOKEN})
        assert by_env.stdout.strip() == "echo: hi"


# SRV-07: a non-loopback bind without a token refuses to start and says how to set one
def test_serve_refuses_public_host_without_token(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = attn(runner, "serve", "--host", "0.0.0.0", env={"ATTN_TOKEN": ""})
    _one_line_error(result, "refusing to listen on 0.0.0.0 without an API token", exit_code=2)
    assert "ATTN_TOKEN" in result.stderr
    assert not (tmp_path / "attn.db").exists()


# SRV-21: bad config
def test_serve_reports_bad_config_with_its_line(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "attn.toml").write_text(
        "[server]\nport = 8765\n\n[[agents]]\nname = 'a'\nbrian = 'echo'\n"
    )
    result = attn(runner, "serve")
    _one_line_error(result, "agents[0].brian (line 6): unknown field", exit_code=2)
    missing = attn(runner, "serve", "--config", str(tmp_path / "nope.toml"))
    _one_line_error(missing, "does not exist", exit_code=2)
    (tmp_path / "attn.toml").write_text("[[agents]]\nname = 'a'\nbrain = 'nope'\n")
    _one_line_error(attn(runner, "serve"), "unknown brain 'nope'", exit_code=2)
    (tmp_path / "attn.toml").write_text(
        "[[agents]]\nname = 'ada'\nbrain = 'echo'\noptions = { stepz = 3 }\n"
    )
    _one_line_error(
        attn(runner, "serve"),
        "attn.toml: agents[0].options.stepz (line 4, agent 'ada'): "
        "the echo brain has no option 'stepz'; its options: steps, step_s, prefix",
        exit_code=2,
    )
    assert not (tmp_path / "attn.db").exists()


def test_serve_reports_a_missing_database_folder(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = attn(runner, "serve", "--port", "0", env={"ATTN_DATABASE_URL": "sqlite:///nope/x.db"})
    _one_line_error(
        result,
        "cannot open the SQLite database 'nope/x.db': the folder 'nope' does not exist",
        exit_code=2,
    )
    assert not (tmp_path / "nope").exists()


def test_serve_reports_a_busy_port(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = attn(runner, "serve", "--port", str(port))
    _one_line_error(result, f"cannot listen on 127.0.0.1:{port}: address already in use")
    assert not (tmp_path / "attn.db").exists()


# -------------------------------------------------------------------------- end to end


def _attn_command() -> list[str]:
    script = Path(sys.executable).with_name("attn")
    if script.exists():
        return [str(script)]
    found = shutil.which("attn")
    return [found] if found else [sys.executable, "-m", "attn"]


class ServeProcess:
    """``attn serve`` as a child process; its first stdout line gives the URL."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [*_attn_command(), "serve", "--port", "0"],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.stderr = ""
        first = self.lines.get(timeout=30)
        if first is None or " at http://" not in first:
            self.proc.kill()
            self._close()
            raise AssertionError(f"attn serve did not start: {first!r} {self.stderr}")
        self.banner = first
        self.url = first.rsplit(" at ", 1)[1].strip()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def interrupt(self) -> int:
        """Ctrl+C: the exit status once the server has shut down."""
        self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout=30)
        finally:
            self._close()

    def _close(self) -> None:
        self.proc.wait(timeout=30)
        self._reader.join(timeout=30)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()
        self.proc.stdout.close()
        self.proc.stderr.close()


def _run(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*_attn_command(), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


# SRV-20: attn serve from defaults on SQLite, send, mailbox
def test_fresh_clone_path_serve_send_mailbox(tmp_path: Path) -> None:
    """Done-when: `attn serve` on SQLite with the demo team; `attn send` in a second
    terminal is processed; `attn mailbox` shows the item completed with its decision."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTN_")}
    env["ATTN_DATABASE_URL"] = f"sqlite:///{tmp_path / 'attn.db'}"
    env["COLUMNS"] = "200"
    server = ServeProcess(tmp_path, env)
    try:
        assert "3 agents (alice, bob, carol)" in server.banner
        client_env = {**env, "ATTN_URL": server.url}
        sent = _run(client_env, tmp_path, "send", "alice", "hello from the test")
        assert sent.returncode == 0, sent.stderr
        assert sent.stdout.strip() == "echo: hello from the test"
        listed = _run(client_env, tmp_path, "mailbox", "alice")
        assert listed.returncode == 0, listed.stderr
        rows = [line for line in listed.stdout.splitlines() if "mbx_" in line]
        assert len(rows) == 1
        assert "human_chat" in rows[0] and "completed" in rows[0] and "pick" in rows[0]
        as_json = json.loads(_run(client_env, tmp_path, "mailbox", "alice", "--json").stdout)
        (item,) = as_json["history"]
        assert item["status"] == "completed"
        assert [d["decisionType"] for d in item["decisions"]] == ["pick"]
        item_id = item["id"]
    finally:
        code = server.interrupt()
    assert code == 0, server.stderr

    # The item is on disk: a new server on the same file still lists it, completed.
    again = ServeProcess(tmp_path, env)
    try:
        listed = _run({**env, "ATTN_URL": again.url}, tmp_path, "mailbox", "alice", "--json")
        (item,) = json.loads(listed.stdout)["history"]
        assert (item["id"], item["status"]) == (item_id, "completed")
    finally:
        assert again.interrupt() == 0


# SRV-20: attn serve reads attn.toml
def test_serve_warns_when_attn_toml_has_no_agents(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTN_")}
    env["ATTN_DATABASE_URL"] = "memory://"
    (tmp_path / "attn.toml").write_text("[defaults]\nbackstop_s = 60\n")
    server = ServeProcess(tmp_path, env)
    assert "serving 0 agents (none)" in server.banner
    assert server.interrupt() == 0
    assert server.stderr.splitlines() == [
        "attn: warning: attn.toml defines no agents ([[agents]] tables); serving none"
    ]


def test_second_server_on_the_same_database_is_refused(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTN_")}
    env["ATTN_DATABASE_URL"] = f"sqlite:///{tmp_path / 'attn.db'}"
    first = ServeProcess(tmp_path, env)
    try:
        second = _run(env, tmp_path, "serve", "--port", "0")
        assert second.returncode == 1
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("attn: "), second.stderr
    finally:
        assert first.interrupt() == 0


def test_mailbox_table_names_merge_targets_and_reasons(runner: CliRunner, tmp_path: Path) -> None:
    import httpx

    busy = (
        TEAM + '\n[[agents]]\nname = "busy"\nbrain = "script"\n'
        "options = { steps = [{ sleep_s = 60 }] }\n"
    )
    config = parse_config(busy, environ={"ATTN_DATABASE_URL": f"sqlite:///{tmp_path / 'm.db'}"})
    with LiveServer(config) as live:
        post = f"{live.url}/api/agents/busy/mailbox"
        httpx.post(post, json={"sourceType": "a2a_message", "payload": {"content": "long"}})
        ids = [
            httpx.post(
                post,
                json={"sourceType": "task_comment", "payload": {"taskId": "T", "content": text}},
            ).json()["id"]
            for text in ("one", "two")
        ]
        assert ids[0] == ids[1]  # merged at enqueue time into the queued comment
        table = attn(runner, "mailbox", "busy", "--url", live.url, "--limit", "50")
    assert table.exit_code == 0, table.output
    merged_row = next(line for line in table.stdout.splitlines() if "merged →" in line)
    assert ids[0] in merged_row and "merge" in merged_row and "dedup" in merged_row
    survivor_row = next(
        line for line in table.stdout.splitlines() if line.count(ids[0]) and "queued" in line
    )
    assert "(+1)" in survivor_row and "merged:" in survivor_row
