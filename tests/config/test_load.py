"""attn.toml loading: validation errors with line numbers, env overrides, the demo team."""

from __future__ import annotations

from pathlib import Path

import pytest

from attn.brains.from_config import brain_problem, build_brains
from attn.config import DEFAULT_PORT, AttnConfig, is_loopback, load_config, parse_config
from attn.errors import ConfigError, InvalidInput
from attn.store.url import check_database_url

GOOD = """\
[database]
url = "sqlite:///var/attn.db"

[server]
host = "127.0.0.1"
port = 9000

[defaults]
backstop_s = 30
max_attempts = 5

[[agents]]
name = "alice"
brain = "echo"
description = "echoes"
options = { steps = 2 }

[[agents]]
name = "bob"
brain = "script"
max_queued = 7
backstop_s = 2.5

[agents.options]
steps = [{ say = "hi" }]
"""


def test_full_file_is_parsed_and_defaults_apply() -> None:
    config = parse_config(GOOD, environ={})
    assert config.database.url == "sqlite:///var/attn.db"
    assert (config.server.host, config.server.port, config.server.token) == (
        "127.0.0.1",
        9000,
        None,
    )
    assert [a.name for a in config.agents] == ["alice", "bob"]
    alice, bob = config.agents
    assert alice.options == {"steps": 2}
    assert bob.options == {"steps": [{"say": "hi"}]}
    assert config.agent_settings(alice).backstop_s == 30.0
    assert config.agent_settings(alice).max_attempts == 5
    assert config.agent_settings(alice).max_queued == 10_000
    assert config.agent_settings(bob).backstop_s == 2.5
    assert config.agent_settings(bob).max_queued == 7


def test_env_overrides_file() -> None:
    env = {
        "ATTN_DATABASE_URL": "postgresql://127.0.0.1/test",
        "ATTN_HOST": "0.0.0.0",
        "ATTN_PORT": "9100",
        "ATTN_TOKEN": "s3cret-token",
    }
    config = parse_config(GOOD, environ=env)
    assert config.database.url == "postgresql://127.0.0.1/test"
    assert config.server.host == "0.0.0.0"
    assert config.server.port == 9100
    assert config.server.token == "s3cret-token"


def test_empty_env_values_are_ignored() -> None:
    config = parse_config(GOOD, environ={"ATTN_PORT": "", "ATTN_DATABASE_URL": ""})
    assert config.server.port == 9000
    assert config.database.url == "sqlite:///var/attn.db"


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({"ATTN_PORT": "eighty"}, "ATTN_PORT must be a port number, got 'eighty'"),
        ({"ATTN_PORT": "70000"}, "server.port (from environment variable ATTN_PORT)"),
        ({"ATTN_TOKEN": "short"}, "server.token (from environment variable ATTN_TOKEN)"),
    ],
)
def test_bad_env_values_name_the_variable(env: dict[str, str], needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config("", environ=env)
    assert needle in str(info.value)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[server]\nport = 80\nhots = 'x'\n", "server.hots (line 3): unknown field"),
        ("[server]\n\nport = 'eighty'\n", "server.port (line 3)"),
        ("[server]\nport = 0\n", "server.port (line 2)"),
        ("[defaults]\nbackstop_s = -1\n", "defaults.backstop_s (line 2)"),
        ("[defaults]\nmax_attempts = true\n", "defaults.max_attempts (line 2)"),
        ("[[agents]]\nname = 'a'\n", "agents[0].brain (line 1): Field required"),
        (
            "[[agents]]\nname = 'a'\nbrain = 'echo'\n\n[[agents]]\nname = 'b c'\nbrain = 'echo'\n",
            "agents[1].name (line 6)",
        ),
        (
            "[[agents]]\nname = 'a'\nbrain = 'echo'\n[[agents]]\nname = 'a'\nbrain = 'echo'\n",
            "agents[1].name (line 5): agent name 'a' is used twice",
        ),
        ("[[agents]]\nname = 'a'\nbrain = 'echo'\noptions = 3\n", "agents[0].options (line 4)"),
        ("[datbase]\nurl = 'x'\n", "datbase (line 1): unknown field"),
        ("[server]\nport = \n", "invalid TOML"),
        ("[server]\nport = 1\n[server]\n", "line 3"),
    ],
)
def test_bad_fields_name_field_and_line(text: str, needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, source="team.toml", environ={})
    assert needle in str(info.value)
    assert str(info.value).startswith("team.toml: ")
    assert isinstance(info.value, InvalidInput)
    assert info.value.code == "config_error"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[[agents]]\nname = 'ada'\nbrain = 'echo'\noptions = { stepz = 3 }\n",
            "agents[0].options.stepz (line 4, agent 'ada'): the echo brain has no option "
            "'stepz'; its options: steps, step_s, prefix",
        ),
        (
            "[[agents]]\nname = 'a'\nbrain = 'echo'\n\n[[agents]]\nname = 'bo'\n"
            "brain = 'echo'\n\n[agents.options]\nsteps = 2\nprefx = 'x'\n",
            "agents[1].options.prefx (line 11, agent 'bo'): the echo brain has no option 'prefx'",
        ),
        (
            "[[agents]]\nname = 'ada'\nbrain = 'echo'\noptions = { steps = 0 }\n",
            "agents[0].options.steps (line 4, agent 'ada'): echo brain steps must be an integer "
            "from 1 to 10,000",
        ),
        (
            "[[agents]]\nname = 'cy'\nbrain = 'script'\n",
            "agents[0].options (line 1, agent 'cy'): the script brain needs the option 'steps'",
        ),
        (
            "[[agents]]\nname = 'ada'\nbrain = 'ehco'\n",
            "agents[0].brain (line 3, agent 'ada'): unknown brain 'ehco'; built-in brains: "
            "echo, script",
        ),
    ],
)
def test_brain_option_errors_name_file_agent_and_line(text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, source="team.toml", environ={}, check_agent=brain_problem)
    assert str(info.value).startswith(f"team.toml: {expected}")


def test_brains_are_checked_only_by_the_given_check() -> None:
    # attn.config sits below the brains: without check_agent it reads the entry as written.
    config = parse_config("[[agents]]\nname = 'ada'\nbrain = 'ehco'\n", environ={})
    assert config.agents[0].brain == "ehco"


def test_build_brains_names_the_agent() -> None:
    config = parse_config(GOOD, environ={})
    assert len(build_brains(config)) == 2
    bad = AttnConfig.model_validate(
        {"agents": [{"name": "zed", "brain": "echo", "options": {"steps": -1}}], "source": "x"}
    )
    with pytest.raises(ConfigError, match=r"^x: agents\[0\]\.options \(agent 'zed'\): echo"):
        build_brains(bad)


def test_check_database_url(tmp_path: Path) -> None:
    check_database_url("memory://")
    check_database_url(f"sqlite:///{tmp_path / 'a.db'}")
    check_database_url("postgresql://127.0.0.1/test")
    with pytest.raises(InvalidInput, match=r"the folder '.*nope' does not exist"):
        check_database_url(f"sqlite:///{tmp_path / 'nope' / 'a.db'}")
    with pytest.raises(InvalidInput, match="it is a folder, not a file"):
        check_database_url(f"sqlite:///{tmp_path}")
    with pytest.raises(InvalidInput, match="unsupported database URL 'mysql://x'"):
        check_database_url("mysql://x")
    assert not (tmp_path / "nope").exists()


def test_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.toml", environ={})


def test_file_is_read_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "attn.toml"
    path.write_text(GOOD, encoding="utf-8")
    config = load_config(path, environ={})
    assert config.source == str(path)
    assert [a.name for a in config.agents] == ["alice", "bob"]


def test_default_file_in_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "attn.toml").write_text("[[agents]]\nname = 'solo'\nbrain = 'echo'\n")
    config = load_config(environ={})
    assert [a.name for a in config.agents] == ["solo"]
    assert config.source == "attn.toml"


def test_demo_team_without_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(environ={"ATTN_PORT": "9200"})
    assert config.source == "demo"
    assert [(a.name, a.brain) for a in config.agents] == [
        ("alice", "echo"),
        ("bob", "echo"),
        ("carol", "script"),
    ]
    assert config.server.port == 9200
    assert parse_config("", environ={}).server.port == DEFAULT_PORT


def test_undecodable_file(tmp_path: Path) -> None:
    path = tmp_path / "attn.toml"
    path.write_bytes(b"\xff\xfe[server]\n")
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(path, environ={})


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.4", False),
        ("example.com", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_a_relative_file_option_is_taken_from_the_config_files_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``system_prompt_file = "prompts/lead.md"`` means beside the file, wherever attn runs."""
    from attn.brains.from_config import brain_problem, build_brains

    team = tmp_path / "team"
    (team / "prompts").mkdir(parents=True)
    (team / "prompts" / "lead.md").write_text("Be brief.", encoding="utf-8")
    (team / "attn.toml").write_text(
        '[[agents]]\nname = "lead"\nbrain = "llm"\n[agents.options]\nprovider = "openai"\n'
        'model = "m"\nsystem_prompt_file = "prompts/lead.md"\n',
        encoding="utf-8",
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = load_config(team / "attn.toml", environ={}, check_agent=brain_problem)
    assert config.agents[0].options["system_prompt_file"] == str(team / "prompts" / "lead.md")
    [brain] = build_brains(config)
    assert brain.settings.system_prompt_text == "Be brief."  # type: ignore[attr-defined]
