"""An agent's effective settings: its own fields, else ``[defaults]``.

Spec: issue 3 (``[defaults]`` and per-agent overrides in attn.toml).
"""

from __future__ import annotations

from dataclasses import dataclass

from attn.config.agent import AgentConfig
from attn.config.sections import AGENT_CONFIG_FIELDS, AgentFields, DefaultsSection

_AGENT_DEFAULTS = AgentConfig()


@dataclass(frozen=True, slots=True)
class AgentSettings:
    """Effective per-agent settings: the keyword arguments of ``AgentConfig``."""

    backstop_s: float
    max_attempts: int
    max_queued: int
    approval_backstop_s: float = _AGENT_DEFAULTS.approval_backstop_s
    max_payload_bytes: int = _AGENT_DEFAULTS.max_payload_bytes
    dedup: bool = _AGENT_DEFAULTS.dedup
    coalesce_window_ms: int = _AGENT_DEFAULTS.coalesce_window_ms
    consolidate: bool = _AGENT_DEFAULTS.consolidate
    stale_after_s: float = _AGENT_DEFAULTS.stale_after_s
    auto_complete_informational: bool = _AGENT_DEFAULTS.auto_complete_informational
    wake: str = _AGENT_DEFAULTS.wake
    capacity: int = _AGENT_DEFAULTS.capacity

    def agent_config(self) -> AgentConfig:
        """These settings as an :class:`~attn.config.AgentConfig`.

        Raises:
            InvalidInput: a value AgentConfig refuses.
        """
        return AgentConfig(**{name: getattr(self, name) for name in AGENT_CONFIG_FIELDS})


def resolve_settings(defaults: DefaultsSection, overrides: AgentFields) -> AgentSettings:
    """Each AgentConfig field from ``overrides`` when set there, else from ``defaults``.

    Args:
        defaults: the ``[defaults]`` section.
        overrides: an ``[[agents]]`` entry (or any set of per-agent fields).

    Returns:
        The effective settings; :meth:`AgentSettings.agent_config` makes the AgentConfig.
    """
    values = {}
    for name in AGENT_CONFIG_FIELDS:
        own = getattr(overrides, name)
        values[name] = own if own is not None else getattr(defaults, name)
    return AgentSettings(**values)


__all__ = ["AgentSettings", "resolve_settings"]
