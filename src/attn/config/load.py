"""Reading ``attn.toml``: TOML, environment overrides, validation, the demo team.

The file is read with :mod:`tomllib` and validated with pydantic; every error
becomes a :class:`~attn.errors.ConfigError` naming the field and, where it can
be found, the line. Environment variables override the file (:data:`ENV_OVERRIDES`).
Without a file, a demo team of three agents (:data:`DEMO_AGENTS`, one team
:data:`DEMO_TEAM` of them all) is used so that ``attn serve`` works on a fresh clone.

Brains live above this package, so the caller passes ``check_agent`` (the
entry points pass :func:`attn.brains.from_config.brain_problem`): then each
agent's brain and options are checked while the file is loaded, and an unknown
brain or a misspelt option is reported with the file, the agent and the line,
before anything starts.

Spec: issue 3 (attn.toml, environment overrides, the demo team); issue 13 (teams).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from attn.config.file import AttnConfig
from attn.config.problems import describe_errors, dotted, key_lines, line_in
from attn.config.sections import AgentSection
from attn.config.team_checks import team_problems
from attn.errors import ConfigError, ConfigProblem, InvalidInput

DEFAULT_CONFIG_PATH = Path("attn.toml")

#: Environment variables that override the file, and the field each one sets.
ENV_OVERRIDES: Mapping[str, tuple[str, str]] = {
    "ATTN_DATABASE_URL": ("database", "url"),
    "ATTN_HOST": ("server", "host"),
    "ATTN_PORT": ("server", "port"),
    "ATTN_TOKEN": ("server", "token"),
}

#: What is wrong with one agent entry: None, or (location under the agent,
#: e.g. ``("options", "stepz")``, and the message).
AgentCheck = Callable[[AgentSection], tuple[tuple[str, ...], str] | None]

#: The team ``attn serve`` hosts when there is no ``attn.toml``.
DEMO_AGENTS: tuple[dict[str, Any], ...] = (
    {
        "name": "alice",
        "brain": "echo",
        "description": "echoes your message back, in three steps with yield points between",
        "options": {"steps": 3, "step_s": 0.2},
    },
    {
        "name": "bob",
        "brain": "echo",
        "description": "echoes your message back at once",
        "options": {},
    },
    {
        "name": "carol",
        "brain": "script",
        "description": "follows a short script: says hello, thinks, answers",
        "options": {
            "steps": [
                {"say": "hello, carol here"},
                {"sleep_s": 0.2},
                {"say": "done thinking"},
            ]
        },
    },
)

#: The name of the demo team's one team, which holds every agent of :data:`DEMO_AGENTS`.
DEMO_TEAM = "demo"


def load_config(
    path: str | os.PathLike[str] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    check_agent: AgentCheck | None = None,
) -> AttnConfig:
    """Load the configuration.

    Args:
        path: the file to read. None means ``./attn.toml`` when it exists, else
            the demo team. An explicit path that does not exist is an error.
        environ: environment to read overrides from (default ``os.environ``).
        check_agent: also check each agent entry with this (its brain and options).

    Returns:
        The validated configuration with environment overrides applied.

    Raises:
        ConfigError: unreadable file, TOML syntax error, unknown or invalid
            field, bad environment value, a problem ``check_agent`` found, a
            team whose name or members break the rules of ``[teams.*]``
            (:func:`~attn.config.team_checks.team_problems`). The
            message names the file, the field and the line where it can be found.
    """
    env = os.environ if environ is None else environ
    if path is None and not DEFAULT_CONFIG_PATH.is_file():
        members = [agent["name"] for agent in DEMO_AGENTS]
        data = {"agents": list(DEMO_AGENTS), "teams": {DEMO_TEAM: {"members": members}}}
        return _validate(data, env, source="demo", text=None, check_agent=check_agent)
    file = Path(path) if path is not None else DEFAULT_CONFIG_PATH
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file {str(file)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {str(file)!r}: {exc}") from exc
    return parse_config(text, source=str(file), environ=env, check_agent=check_agent)


def parse_config(
    text: str,
    *,
    source: str = "attn.toml",
    environ: Mapping[str, str] | None = None,
    check_agent: AgentCheck | None = None,
) -> AttnConfig:
    """Parse and validate TOML text (see :func:`load_config`).

    Args:
        text: the TOML document.
        source: name used in error messages (usually the file path).
        environ: environment to read overrides from (default ``os.environ``).
        check_agent: also check each agent entry with this (its brain and options).

    Raises:
        ConfigError: see :func:`load_config`.
    """
    env = os.environ if environ is None else environ
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: invalid TOML: {exc}") from None
    return _validate(data, env, source=source, text=text, check_agent=check_agent)


def _validate(
    data: dict[str, Any],
    env: Mapping[str, str],
    *,
    source: str,
    text: str | None,
    check_agent: AgentCheck | None,
) -> AttnConfig:
    data = {**data}
    env_fields: dict[tuple[str, str], str] = {}
    for var, (section, key) in ENV_OVERRIDES.items():
        raw = env.get(var)
        if raw is None or raw == "":
            continue
        value: object = raw
        if key == "port":
            try:
                value = int(raw)
            except ValueError:
                raise ConfigError(
                    f"environment variable {var} must be a port number, got {raw!r}"
                ) from None
        table = data.get(section)
        data[section] = {**table, key: value} if isinstance(table, dict) else {key: value}
        env_fields[(section, key)] = var
    data["source"] = source
    head = source if source != "demo" else "built-in demo config"
    try:
        config = AttnConfig.model_validate(data)
    except ValidationError as exc:
        problems = describe_errors(exc, text, env_fields)
        raise ConfigError(_joined(head, problems), problems) from None
    if text is not None:
        _resolve_files(config, Path(source).parent)
    lines = key_lines(text) if text is not None else {}
    found: list[ConfigProblem] = []
    seen: set[str] = set()
    for i, agent in enumerate(config.agents):
        if agent.name in seen:
            found.append(
                ConfigProblem(
                    f"agents[{i}].name",
                    f"agent name {agent.name!r} is used twice",
                    line_in(lines, ("agents", i, "name")) if lines else None,
                )
            )
        seen.add(agent.name)
    for i, agent in enumerate(config.agents):
        problem = check_agent(agent) if check_agent is not None else None
        if problem is None:
            problem = _settings_problem(config, agent)
        if problem is not None:
            loc, message = problem
            line = line_in(lines, ("agents", i, *loc)) if lines else None
            found.append(
                ConfigProblem(dotted(("agents", i, *loc)), message, line, agent=agent.name)
            )
    found += team_problems(config.team_sections, seen, lines)
    if found:
        raise ConfigError(_joined(head, found), tuple(found))
    return config


def _resolve_files(config: AttnConfig, folder: Path) -> None:
    """Make a relative path in an option named ``*_file`` relative to the config
    file's folder (as a person reading the file expects), not to where attn runs."""
    for agent in config.agents:
        for key, value in agent.options.items():
            if key.endswith("_file") and isinstance(value, str) and value.strip():
                path = Path(value).expanduser()
                if not path.is_absolute():
                    agent.options[key] = str(folder / path)


def _joined(head: str, problems: tuple[ConfigProblem, ...] | list[ConfigProblem]) -> str:
    return f"{head}: " + "; ".join(p.describe() for p in problems)


def _settings_problem(
    config: AttnConfig, agent: AgentSection
) -> tuple[tuple[str, ...], str] | None:
    """What AgentConfig refuses in the agent's effective settings (its own and ``[defaults]``)."""
    try:
        config.agent_settings(agent).agent_config()
    except InvalidInput as exc:
        return (), exc.message
    return None


__all__ = [
    "DEFAULT_CONFIG_PATH",
    "DEMO_AGENTS",
    "DEMO_TEAM",
    "ENV_OVERRIDES",
    "AgentCheck",
    "load_config",
    "parse_config",
]
