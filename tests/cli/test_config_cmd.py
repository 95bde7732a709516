"""``attn config check``: "ok" and exit 0, or every problem with its line and exit 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from attn.cli.main import app

GOOD = """\
[database]
url = "sqlite:///attn.db"

[defaults]
backstop_s = 60
coalesce_window_ms = 50
heartbeat_interval_s = 3600

[[agents]]
name = "alice"
brain = "echo"
dedup = false
"""


def check(
    runner: CliRunner, text: str | None, *args: str, env: dict[str, str] | None = None
) -> Any:
    if text is not None:
        Path("team.toml").write_text(text, encoding="utf-8")
        return runner.invoke(app, ["config", "check", "team.toml", *args], env=env)
    return runner.invoke(app, ["config", "check", *args], env=env)


def test_a_good_file_is_ok(runner: CliRunner) -> None:
    result = check(runner, GOOD)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "ok: team.toml: 1 agent(s) (alice), database sqlite:///attn.db"
    data = json.loads(check(runner, GOOD, "--json").stdout)
    assert data["ok"] is True and data["problems"] == [] and data["agents"] == ["alice"]


def test_without_a_file_the_demo_team_is_ok(runner: CliRunner) -> None:
    result = check(runner, None)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("ok: no attn.toml here; 'attn serve' would host the demo team")
    assert result.stdout.splitlines()[1] == (
        "  team demo: 3 member(s) (alice, bob, carol), channel group:demo"
    )


TEAMS = (
    GOOD
    + """
[[agents]]
name = "bob"
brain = "echo"

[teams.research]
members = ["alice", "bob"]
name = "Research"

[teams.ops]
members = ["bob"]
"""
)


def test_the_teams_are_shown_one_line_each(runner: CliRunner) -> None:
    result = check(runner, TEAMS)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "ok: team.toml: 2 agent(s) (alice, bob), database sqlite:///attn.db",
        "  team research (Research): 2 member(s) (alice, bob), channel group:research",
        "  team ops: 1 member(s) (bob), channel group:ops",
    ]
    data = json.loads(check(runner, TEAMS, "--json").stdout)
    assert data["teams"] == [
        {
            "id": "research",
            "displayName": "Research",
            "members": ["alice", "bob"],
            "channelKey": "group:research",
        },
        {"id": "ops", "displayName": None, "members": ["bob"], "channelKey": "group:ops"},
    ]
    assert json.loads(check(runner, GOOD, "--json").stdout)["teams"] == []


def test_a_large_team_names_its_first_members_on_its_line(runner: CliRunner) -> None:
    names = [f"a{i}" for i in range(25)]
    agents = "".join(f'[[agents]]\nname = "{n}"\nbrain = "echo"\n' for n in names)
    result = check(runner, agents + f"[teams.all]\nmembers = {names!r}\n")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1] == (
        f"  team all: 25 member(s) ({', '.join(names[:20])}, and 5 more), channel group:all"
    )


def test_the_default_file_is_checked(runner: CliRunner) -> None:
    Path("attn.toml").write_text("[server]\nport = 0\n", encoding="utf-8")
    result = runner.invoke(app, ["config", "check"])
    assert result.exit_code == 1
    assert result.stdout.strip() == (
        "attn.toml:2: server.port: Input should be greater than or equal to 1"
    )


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        (
            "[server]\nport = 0\nhots = 'x'\n",
            [
                "team.toml:2: server.port: Input should be greater than or equal to 1",
                "team.toml:3: server.hots: unknown field",
            ],
        ),
        (
            "[defaults]\ncoalesce_window_ms = 70000\nheartbeat_interval_s = 10\n",
            [
                "team.toml:2: defaults.coalesce_window_ms: Input should be less than or equal to "
                "60000",
                "team.toml:3: defaults.heartbeat_interval_s: Input should be greater than or "
                "equal to 300",
            ],
        ),
        (
            "[[agents]]\nname = 'a'\nbrain = 'echo'\noptions = { stepz = 1 }\n\n"
            "[[agents]]\nname = 'a'\nbrain = 'ehco'\n",
            [
                "team.toml:7: agents[1].name: agent name 'a' is used twice",
                "team.toml:4: agents[0].options.stepz (agent 'a'): the echo brain has no option "
                "'stepz'; its options: steps, step_s, prefix",
                "team.toml:8: agents[1].brain (agent 'a'): unknown brain 'ehco'; built-in "
                "brains: echo, script, llm, external",
            ],
        ),
        ("[server]\nport = \n", ["team.toml:2: invalid TOML: Invalid value (at line 2, column 8)"]),
        (
            "[[agents]]\nname = 'a'\nbrain = 'echo'\n\n[teams.ops]\nmembers = ['a', 'b', 'a']\n"
            "\n[teams.'x y']\nmembers = []\n",
            [
                "team.toml:6: teams.ops.members[1]: team 'ops' member 'b' is not an agent of "
                "[[agents]]",
                "team.toml:6: teams.ops.members[2]: team 'ops' lists member 'a' twice",
                "team.toml:8: teams.x y: team name 'x y' must be 1-64 letters, digits, '_', '.' "
                "or '-', starting with a letter or digit",
                "team.toml:9: teams.x y.members: team 'x y' has no members",
            ],
        ),
        (  # C1: brain options are bounded; a TOML integer of any size is a problem, not a crash
            "[defaults]\nbackstop_s = 1" + "0" * 400 + "\n\n[[agents]]\nname = 'a'\n"
            "brain = 'echo'\noptions = { steps = 2000000 }\n\n[[agents]]\nname = 'b'\n"
            "brain = 'echo'\n\n[agents.options]\nstep_s = 1" + "0" * 400 + "\n",
            [
                "team.toml:2: defaults.backstop_s: a number this large is not a "
                "duration in seconds",
                "team.toml:7: agents[0].options.steps (agent 'a'): echo brain steps must be an "
                "integer from 1 to 10,000, got 2000000",
                "team.toml:14: agents[1].options.step_s (agent 'b'): echo brain step_s must be a "
                "number of seconds from 0 to 3600, got an integer of about 401 digits",
            ],
        ),
        (
            "[[agents]]\nname = 'a'\nbrain = 'echo'\noptions = { steps = 2000000 }\n\n"
            "[[agents]]\nname = 'b'\nbrain = 'echo'\n\n[agents.options]\n"
            "step_s = 1" + "0" * 400 + "\n",
            [
                "team.toml:4: agents[0].options.steps (agent 'a'): echo brain steps must be an "
                "integer from 1 to 10,000, got 2000000",
                "team.toml:11: agents[1].options.step_s (agent 'b'): echo brain step_s must be a "
                "number of seconds from 0 to 3600, got an integer of about 401 digits",
            ],
        ),
        (
            "[server]\nhost = '0.0.0.0'\n\n[database]\nurl = 'sqlite:///nowhere/a.db'\n",
            [
                "team.toml:5: database.url: cannot open the SQLite database 'nowhere/a.db': the "
                "folder 'nowhere' does not exist (create it, or use another path)",
                "team.toml:2: server.host: refusing to listen on 0.0.0.0 without an API token; "
                "set ATTN_TOKEN (or token in the [server] table of attn.toml) to at least 8 "
                "characters, or bind 127.0.0.1",
            ],
        ),
    ],
)
def test_every_problem_is_printed_with_its_line(
    runner: CliRunner, text: str, lines: list[str]
) -> None:
    result = check(runner, text)
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines() == lines
    data = json.loads(check(runner, text, "--json").stdout)
    assert data["ok"] is False
    assert len(data["problems"]) == len(lines)


def test_environment_problems_name_the_variable(runner: CliRunner) -> None:
    result = check(runner, GOOD, env={"ATTN_PORT": "99999"})
    assert result.exit_code == 1
    assert result.stdout.strip() == (
        "team.toml: server.port (from environment variable ATTN_PORT): Input should be less "
        "than or equal to 65535"
    )


def test_a_missing_file_is_a_problem(runner: CliRunner) -> None:
    result = runner.invoke(app, ["config", "check", "nope.toml"])
    assert result.exit_code == 1
    assert result.stdout.strip() == "nope.toml: config file 'nope.toml' does not exist"


LLM_TEAM = """\
[[agents]]
name = "lead"
brain = "llm"
[agents.options]
provider = "anthropic"
model = "m"
api_key_env = "TEAM_LEAD_KEY"

[[agents]]
name = "local"
brain = "llm"
[agents.options]
provider = "openai"
model = "m"
base_url = "http://127.0.0.1:11434/v1"
"""


def test_config_check_says_where_each_key_is_read_from_never_its_value(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TEAM_LEAD_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = check(runner, LLM_TEAM)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[1] == (
        "  agent lead reads its API key from TEAM_LEAD_KEY "
        "(NOT SET: its model requests will fail until it is)"
    )
    assert lines[2] == "  agent local reads its API key from OPENAI_API_KEY (NOT SET)"
    secret = "sk-ant-very-secret-value-123"
    shown = check(runner, LLM_TEAM, env={"TEAM_LEAD_KEY": secret})
    assert "TEAM_LEAD_KEY (set)" in shown.stdout and secret not in shown.stdout
    data = json.loads(check(runner, LLM_TEAM, "--json", env={"TEAM_LEAD_KEY": secret}).stdout)
    assert data["keys"][0] == {
        "agent": "lead",
        "variable": "TEAM_LEAD_KEY",
        "set": True,
        "needed": True,
    }
    assert secret not in json.dumps(data)


def test_a_webhook_secret_that_is_not_set_is_a_problem_as_serve_says(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    hook = (
        '\n[notifications.webhook]\nurl = "http://127.0.0.1:9/hook"\nsecret_env = "HOOK_SECRET"\n'
    )
    monkeypatch.delenv("HOOK_SECRET", raising=False)
    result = check(runner, GOOD + hook)
    assert result.exit_code == 1
    assert "notifications.webhook.secret_env" in result.output and "HOOK_SECRET" in result.output
    assert check(runner, GOOD + hook, env={"HOOK_SECRET": "s"}).exit_code == 0
