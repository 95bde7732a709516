"""Configuration: the one home of every setting attn reads.

Import from ``attn.config``; its modules are the implementation, one concept each:

- ``agent``: :class:`AgentConfig`, how one agent's mailbox and attention loop
  behave (pure dataclass; core consumes it).
- ``time``: :class:`TimeConfig` and :class:`CatchUp`, how the timekeeper
  behaves, and the heartbeat interval rule (pure dataclass).
- ``team``: :class:`Team`, a team of agents that share the channel
  ``group:<name>`` (pure dataclass).
- ``sections``: the tables of ``attn.toml`` (:class:`DatabaseSection`,
  :class:`ServerSection`, :class:`DefaultsSection`, :class:`AgentSection`,
  :class:`TeamSection`) and
  :class:`AgentFields`, the per-agent fields declared once for the file and
  for ``POST /api/agents``.
- ``settings``: :class:`AgentSettings`, an agent's effective settings.
- ``file``: :class:`AttnConfig`, the whole configuration.
- ``problems``: where a configuration is wrong (:func:`find_line`).
- ``team_checks``: the rules of ``[teams.*]`` that need the whole file.
- ``load``: :func:`load_config` and :func:`parse_config`, environment
  overrides (:data:`ENV_OVERRIDES`) and the demo team (:data:`DEMO_AGENTS`,
  in the one team :data:`DEMO_TEAM`).

The errors are :class:`attn.errors.ConfigError` and :class:`attn.errors.ConfigProblem`.
This package imports only the bottom layer (errors, tokens, limits), because
core consumes :class:`AgentConfig`; what builds objects from a configuration
lives with what it builds (:mod:`attn.brains.from_config`,
:func:`attn.store.url.check_database_url`).

The file schema needs pydantic, so its names are imported on first use: ``import
attn`` (which needs only the two dataclasses) does not pay for pydantic.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from attn.config.agent import AgentConfig
from attn.config.filebox import FileboxConfig
from attn.config.team import MAX_TEAM_MEMBERS, Team
from attn.config.time import (
    DEFAULT_HEARTBEAT_S,
    MAX_HEARTBEAT_S,
    MIN_HEARTBEAT_S,
    CatchUp,
    TimeConfig,
)

if TYPE_CHECKING:
    from attn.config.file import AttnConfig
    from attn.config.load import (
        DEFAULT_CONFIG_PATH,
        DEMO_AGENTS,
        DEMO_TEAM,
        ENV_OVERRIDES,
        AgentCheck,
        load_config,
        parse_config,
    )
    from attn.config.problems import find_line
    from attn.config.sections import (
        AGENT_CONFIG_FIELDS,
        AGENT_NAME_PATTERN,
        DEFAULT_HOST,
        DEFAULT_PORT,
        MAX_TEAM_DISPLAY_NAME,
        AgentFields,
        AgentSection,
        DatabaseSection,
        DefaultsSection,
        ServerSection,
        TeamSection,
        is_loopback,
    )
    from attn.config.settings import AgentSettings, resolve_settings

#: The names imported on first use, and the module of each.
_LAZY = {
    "AttnConfig": "file",
    "DEFAULT_CONFIG_PATH": "load",
    "DEMO_AGENTS": "load",
    "DEMO_TEAM": "load",
    "ENV_OVERRIDES": "load",
    "AgentCheck": "load",
    "load_config": "load",
    "parse_config": "load",
    "find_line": "problems",
    "AGENT_CONFIG_FIELDS": "sections",
    "AGENT_NAME_PATTERN": "sections",
    "DEFAULT_HOST": "sections",
    "DEFAULT_PORT": "sections",
    "MAX_TEAM_DISPLAY_NAME": "sections",
    "AgentFields": "sections",
    "AgentSection": "sections",
    "DatabaseSection": "sections",
    "DefaultsSection": "sections",
    "ServerSection": "sections",
    "TeamSection": "sections",
    "is_loopback": "sections",
    "AgentSettings": "settings",
    "resolve_settings": "settings",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'attn.config' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"attn.config.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "AGENT_CONFIG_FIELDS",
    "AGENT_NAME_PATTERN",
    "DEFAULT_CONFIG_PATH",
    "DEFAULT_HEARTBEAT_S",
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "DEMO_AGENTS",
    "DEMO_TEAM",
    "ENV_OVERRIDES",
    "MAX_HEARTBEAT_S",
    "MAX_TEAM_DISPLAY_NAME",
    "MAX_TEAM_MEMBERS",
    "MIN_HEARTBEAT_S",
    "AgentCheck",
    "AgentConfig",
    "AgentFields",
    "AgentSection",
    "AgentSettings",
    "AttnConfig",
    "CatchUp",
    "DatabaseSection",
    "DefaultsSection",
    "FileboxConfig",
    "ServerSection",
    "Team",
    "TeamSection",
    "TimeConfig",
    "find_line",
    "is_loopback",
    "load_config",
    "parse_config",
    "resolve_settings",
]
