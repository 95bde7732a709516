"""Issue 10 D: what the README says about edge behaviour, each statement pinned by a test.

The README's "Rules worth knowing" section states these; a change of behaviour
must change the README with it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from attn import AgentConfig, Focus, ItemStatus, MailboxItem, Reply, Runtime
from attn.cli.main import app as cli_app
from attn.cli.time import example_at
from attn.errors import InvalidInput, UnknownAgent
from attn.server.app import create_app
from attn.server.testing import LiveServer, serve_app
from attn.testing import FakeClock

README = Path(__file__).resolve().parents[2] / "README.md"


class _Brain:
    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.calls: list[tuple[str, int, float]] = []

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply:
        self.calls.append((item.id, item.attempt, focus.clock.monotonic()))
        if self.fail:
            raise RuntimeError("the tool is down")
        return Reply("ok")


def test_d_the_readme_states_the_rules() -> None:
    text = README.read_text(encoding="utf-8")
    for needle in (
        "an idle agent's first item",
        "the survivor's id",
        "no backoff",
        "next heartbeat",
        "case-sensitive",
        "misdirected_host",
        "request_timeout",
        "header_timeout_s",
        "event: reset",
    ):
        assert needle in text, needle


async def test_d_the_burst_window_does_not_hold_an_idle_agents_first_item(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = _Brain()
    agent = await runtime.add_agent("a", brain, AgentConfig(coalesce_window_ms=60_000))
    start = clock.monotonic()
    first = await agent.enqueue("task_comment", {"taskId": "T", "content": "one"})
    await runtime.run_until_idle()
    assert [c[0] for c in brain.calls] == [first] and brain.calls[0][2] == start
    assert (await runtime.store.get_item(first)).status == ItemStatus.COMPLETED  # type: ignore[union-attr]


async def test_d_a_merged_enqueue_answers_with_the_survivors_id(runtime: Runtime) -> None:
    agent = await runtime.add_agent("a", _Brain(), start=False)
    async with serve_app(create_app(runtime)) as url, httpx.AsyncClient(base_url=url) as http:
        one = await http.post(
            "/api/agents/a/mailbox",
            json={"sourceType": "task_comment", "payload": {"taskId": "T", "content": "one"}},
        )
        two = await http.post(
            "/api/agents/a/mailbox",
            json={"sourceType": "task_comment", "payload": {"taskId": "T", "content": "two"}},
        )
    assert one.status_code == two.status_code == 202
    assert two.json()["id"] == one.json()["id"] and agent.depth == 1
    assert (one.json()["merged"], two.json()["merged"]) == (False, True)
    (survivor,) = agent.mailbox.queued_items()
    assert "one" in survivor.content and "two" in survivor.content


async def test_d_retries_have_no_backoff(runtime: Runtime, clock: FakeClock) -> None:
    brain = _Brain(fail=True)
    agent = await runtime.add_agent("a", brain, AgentConfig(max_attempts=3))
    start = clock.monotonic()
    item_id = await agent.enqueue("a2a_message", {"content": "poison"})
    await runtime.run_until_idle()
    assert [(c[1], c[2]) for c in brain.calls] == [(1, start), (2, start), (3, start)]
    dropped = await runtime.store.get_item(item_id)
    assert dropped is not None and dropped.status == ItemStatus.DROPPED


async def test_d_agent_names_are_case_sensitive(runtime: Runtime) -> None:
    await runtime.add_agent("alice", _Brain(), start=False)
    await runtime.add_agent("Alice", _Brain(), start=False)  # another agent
    assert runtime.get_agent("alice") is not runtime.get_agent("Alice")
    for wrong in ("ALICE", " alice", "alice "):
        with pytest.raises(UnknownAgent):
            runtime.get_agent(wrong)
    for bad in ("", "-alice", "al ice", "a" * 65, "ålice", "alice/bob"):
        with pytest.raises(InvalidInput, match="agent name must be 1-64"):
            await runtime.add_agent(bad, _Brain(), start=False)
    await runtime.add_agent("a" * 64, _Brain(), start=False)
    await runtime.add_agent("9.lives_-x", _Brain(), start=False)


# -- the CLI -----------------------------------------------------------------------------

TEAM = """\
[[agents]]
name = "alice"
brain = "echo"
"""


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_d_attn_send_with_empty_text_is_a_usage_error_and_sends_nothing(
    runner: CliRunner, server: LiveServer, text: str
) -> None:
    for extra in ([], ["--no-wait"], ["--type", "a2a_message"]):
        result = runner.invoke(cli_app, ["send", "alice", text, "--url", server.url, *extra])
        assert result.exit_code == 2, result.output
        lines = result.stderr.strip().splitlines()
        assert lines == [
            "attn: TEXT is empty: say what to send, e.g. attn send alice 'hello' (nothing was sent)"
        ]
        assert "payload.content" not in result.output
    history = httpx.get(f"{server.url}/api/agents/alice/mailbox", timeout=10).json()["history"]
    assert history == []


def test_d_the_wakeup_help_example_is_in_the_future(runner: CliRunner) -> None:
    result = runner.invoke(cli_app, ["time", "wakeup", "--help"], terminal_width=200)
    assert result.exit_code == 0
    (at,) = re.findall(r"--at (\S+)", result.stdout.split("Examples")[1])
    assert datetime.fromisoformat(at) > datetime.now(UTC)
    assert example_at(datetime(2026, 12, 31, 23, 59, tzinfo=UTC)) == "2027-01-01T08:00:00Z"


def test_d_config_check_reports_every_kind_of_problem(runner: CliRunner) -> None:
    Path("team.toml").write_text(
        "[server]\nhost = '0.0.0.0'\nport = 0\n\n[database]\nurl = 'sqlite:///nowhere/a.db'\n\n"
        "[[agents]]\nname = 'a'\nbrain = 'ehco'\nbackstop_s = -1\n\n"
        "[[agents]]\nname = 'b'\nbrain = 'echo'\noptions = { stepz = 2 }\n",
        encoding="utf-8",
    )
    result = runner.invoke(cli_app, ["config", "check", "team.toml"])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[:2] == [
        "team.toml:3: server.port: Input should be greater than or equal to 1",
        "team.toml:11: agents[0].backstop_s: Input should be greater than 0",
    ]
    assert lines[2].startswith("team.toml:10: agents[0].brain (agent 'a'): unknown brain 'ehco'")
    assert lines[3].startswith("team.toml:16: agents[1].options.stepz (agent 'b'): ")
    assert lines[4].startswith("team.toml:6: database.url: cannot open the SQLite database")
    assert lines[5].startswith("team.toml:2: server.host: refusing to listen on 0.0.0.0")
    assert len(lines) == 6
    # A problem already reported for a field is not reported twice.
    Path("team.toml").write_text("[[agents]]\nname = 'a'\nbrain = 7\n", encoding="utf-8")
    again = runner.invoke(cli_app, ["config", "check", "team.toml"]).stdout.splitlines()
    assert len(again) == 1 and again[0].startswith("team.toml:3: agents[0].brain:")
