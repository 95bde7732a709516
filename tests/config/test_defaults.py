"""``[defaults]`` and per-agent overrides reach each agent's AgentConfig; the heartbeat
default reaches the runtime's TimeConfig; ConfigError lists every problem; the package
sits below core."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from attn.config import AGENT_CONFIG_FIELDS, AgentConfig, parse_config
from attn.errors import ConfigError

EVERYTHING = """\
[defaults]
max_queued = 50
backstop_s = 30
approval_backstop_s = 3600
max_attempts = 5
max_payload_bytes = 4096
dedup = false
coalesce_window_ms = 0
consolidate = false
stale_after_s = 60
auto_complete_informational = false
heartbeat_interval_s = 1800

[[agents]]
name = "alice"
brain = "echo"

[[agents]]
name = "bob"
brain = "echo"
coalesce_window_ms = 500
dedup = true
backstop_s = 7
"""


def test_every_agent_config_field_has_a_default_and_an_override() -> None:
    assert set(AGENT_CONFIG_FIELDS) == set(AgentConfig.__dataclass_fields__)
    config = parse_config(EVERYTHING, environ={})
    alice, bob = (config.agent_settings(a).agent_config() for a in config.agents)
    assert alice == AgentConfig(
        max_queued=50,
        backstop_s=30.0,
        approval_backstop_s=3600.0,
        max_attempts=5,
        max_payload_bytes=4096,
        dedup=False,
        coalesce_window_ms=0,
        consolidate=False,
        stale_after_s=60.0,
        auto_complete_informational=False,
    )
    assert (bob.coalesce_window_ms, bob.dedup, bob.backstop_s, bob.max_queued) == (
        500,
        True,
        7.0,
        50,
    )


def test_without_defaults_agents_get_agent_configs_own() -> None:
    config = parse_config('[[agents]]\nname = "a"\nbrain = "echo"\n', environ={})
    assert config.agent_settings(config.agents[0]).agent_config() == AgentConfig()
    time = config.time_config()
    assert (time.heartbeats, time.heartbeat_default_s) == (True, 6 * 3600.0)  # issue 5: 6 h


def test_heartbeats_can_be_turned_off() -> None:
    config = parse_config("[defaults]\nheartbeat_interval_s = false\n", environ={})
    assert config.time_config().heartbeats is False


def test_the_heartbeat_default_gives_every_agent_a_heartbeat() -> None:
    time = parse_config(EVERYTHING, environ={}).time_config()
    assert (time.heartbeats, time.heartbeat_default_s) == (True, 1800.0)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[defaults]\ncoalesce_window_ms = -1\n", "defaults.coalesce_window_ms (line 2)"),
        ("[defaults]\ndedup = 'yes'\n", "defaults.dedup (line 2)"),
        ("[defaults]\nheartbeat_interval_s = 100000\n", "defaults.heartbeat_interval_s (line 2)"),
        (
            "[[agents]]\nname = 'a'\nbrain = 'echo'\nstale_after_s = 0\n",
            "agents[0].stale_after_s (line 4)",
        ),
        (
            "[[agents]]\nname = 'a'\nbrain = 'echo'\nheartbeat_interval_s = 600\n",
            "agents[0].heartbeat_interval_s (line 4): unknown field",
        ),
    ],
)
def test_bad_settings_name_field_and_line(text: str, needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, source="team.toml", environ={})
    assert needle in str(info.value)


def test_config_error_lists_each_problem() -> None:
    text = "[defaults]\nbackstop_s = 0\nmax_attempts = 0\n"
    with pytest.raises(ConfigError) as info:
        parse_config(text, source="team.toml", environ={})
    problems = info.value.problems
    assert [(p.field, p.line) for p in problems] == [
        ("defaults.backstop_s", 2),
        ("defaults.max_attempts", 3),
    ]
    assert str(info.value) == "team.toml: " + "; ".join(p.describe() for p in problems)


def test_config_imports_only_the_bottom_layer() -> None:
    # core consumes AgentConfig, so attn.config must not import anything above it.
    import ast

    import attn.config

    allowed = {"config", "errors", "limits", "tokens", "types", "models"}
    folder = Path(attn.config.__file__).parent
    used = set()
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                used.add(node.module)
            elif isinstance(node, ast.Import):
                used.update(alias.name for alias in node.names)
    above = {m for m in used if m.startswith("attn.") and m.split(".")[1] not in allowed}
    assert not above


def test_import_attn_does_not_load_pydantic() -> None:
    # The file schema is imported on first use (attn.config's __getattr__).
    code = "import sys, attn, attn.config; print('pydantic' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
