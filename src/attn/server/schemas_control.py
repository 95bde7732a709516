"""Bodies of the control, agent and config routes, and the shapes they answer with.

Request models are strict and refuse unknown fields (like :mod:`attn.server.schemas`);
their fields are snake_case in Python and camelCase on the wire. Response
models document the answers in the OpenAPI document; the routes return plain
dicts of the same shape.

Spec: 000 §5; acceptance SRV-05, SRV-06.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from attn.config import AGENT_CONFIG_FIELDS, AGENT_NAME_PATTERN, AgentFields
from attn.server.schemas import check_json

#: The one setting ``PATCH /api/agents/{agentId}/config`` changes live (clamped by the
#: time subsystem to 300 .. 86,400 s).
HEARTBEAT_FIELD = "heartbeatIntervalS"
#: AgentConfig fields as they are spelled on the wire.
AGENT_CONFIG_KEYS = tuple(to_camel(name) for name in AGENT_CONFIG_FIELDS)


def check_utf8_strings(value: Any) -> Any:
    """Return ``value`` unchanged unless a string in it (key or value) cannot be UTF-8.

    JSON may carry lone surrogates (``"\\ud800"``); they cannot be stored or
    sent back, so they are refused here instead of failing later.

    Raises:
        ValueError: a string holds a lone surrogate.
    """
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("text must not contain lone surrogates (\\ud800-\\udfff)") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            check_utf8_strings(key)
            check_utf8_strings(item)
    elif isinstance(value, list):
        for item in value:
            check_utf8_strings(item)
    return value


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, alias_generator=to_camel)


class CancelBody(_Body):
    """``POST /api/agents/{agentId}/cancel`` (the body may be left out).

    Attributes:
        reason: why, recorded with the cancel decision.
        hard: cancel the brain's task at once instead of at its next yield point.
    """

    reason: str = Field(default="cancelled by user", min_length=1, max_length=500)
    hard: bool = False

    _text = field_validator("reason")(check_utf8_strings)


class AgentConfigBody(AgentFields):
    """Per-agent settings (:class:`~attn.config.AgentConfig`) in ``POST /api/agents``.

    Every field is optional; a missing one takes the server's ``[defaults]``.
    The fields, their bounds and their meaning are those of ``attn.toml``
    (:class:`attn.config.AgentFields`), spelled in camelCase.

    Attributes:
        max_queued (``maxQueued``), backstop_s (``backstopS``), approval_backstop_s,
            max_attempts, max_payload_bytes, dedup, coalesce_window_ms
            (``coalesceWindowMs``), consolidate, stale_after_s,
            auto_complete_informational: as in ``attn.toml``.
        heartbeat_interval_s (``heartbeatIntervalS``): give the agent a heartbeat
            at this interval in seconds, clamped to 300 .. 86,400 and persisted.
    """

    model_config = ConfigDict(alias_generator=to_camel, frozen=False)

    heartbeat_interval_s: float | None = Field(default=None, gt=0, allow_inf_nan=False)


class CreateAgentBody(_Body):
    """``POST /api/agents``: host a new agent, checked like an ``[[agents]]`` entry.

    Attributes:
        agent_id (``agentId``): the new agent's id (its ``name`` in ``attn.toml``):
            1-64 letters, digits, ``_ . -``, starting with a letter or digit.
        brain: a built-in brain (``echo``, ``script``).
        options: the brain's options, as in ``attn.toml``.
        description: one line shown in listings.
        config: per-agent settings; missing ones come from ``[defaults]``.
    """

    agent_id: str = Field(pattern=AGENT_NAME_PATTERN, examples=["dora"])
    brain: str = Field(min_length=1, max_length=64, examples=["echo"])
    options: dict[str, Any] = Field(default_factory=dict)
    description: str = Field(default="", max_length=500)
    config: AgentConfigBody | None = None

    _text = field_validator("brain", "description", "options")(check_utf8_strings)
    _json = field_validator("options")(check_json)


class ConfigPatch(_Body):
    """``PATCH /api/agents/{agentId}/config``: settings that can change while the agent runs.

    Attributes:
        heartbeat_interval_s (``heartbeatIntervalS``): seconds between heartbeats;
            clamped to 300 .. 86,400, persisted, and the next heartbeat is one
            interval from now (000 §11.3, TIME-09).
    """

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    heartbeat_interval_s: float | None = Field(default=None, gt=0, allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _live_fields_only(cls, data: Any) -> Any:
        if isinstance(data, dict):
            fixed = [key for key in data if key in AGENT_CONFIG_KEYS]
            if fixed:
                raise ValueError(
                    f"{', '.join(fixed)} cannot change while the agent runs; set it in "
                    f"attn.toml or when creating the agent (POST /api/agents). "
                    f"Changeable live: {HEARTBEAT_FIELD}"
                )
            if not data:
                raise ValueError(f"nothing to change; changeable live: {HEARTBEAT_FIELD}")
            if HEARTBEAT_FIELD in data and data[HEARTBEAT_FIELD] is None:
                raise ValueError(f"{HEARTBEAT_FIELD} must be a number of seconds, got null")
        return data


# ------------------------------------------------------------------- responses


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class FocusView(_Out):
    """The item an agent works on (``currentFocus``), in listings: the item's own fields,
    a few of them."""

    id: str
    sourceType: str
    priority: int
    summary: str
    startedAt: str | None


class AgentSummaryView(_Out):
    """One agent in listings and control answers."""

    agentId: str
    description: str
    state: str = Field(description="idle, focused or deciding")
    running: bool
    paused: bool
    queueDepth: int = Field(description="queued items")
    external: bool = Field(
        default=False, description='brain = "external": its turns run in an MCP client'
    )
    currentFocus: FocusView | None


class HeartbeatView(_Out):
    """An agent's heartbeat (see ``GET /api/agents/{agentId}/heartbeat``)."""

    agentId: str
    enabled: bool
    intervalS: float | None
    nextAt: str | None
    lastAt: str | None


class AgentConfigView(_Out):
    """An agent's settings: every AgentConfig field (camelCase) and ``heartbeatIntervalS``."""

    agentId: str
    config: dict[str, Any]
    heartbeat: HeartbeatView


class CreatedAgentView(AgentSummaryView):
    """The answer to ``POST /api/agents``: the summary and the effective settings."""

    config: dict[str, Any]


class CancelView(_Out):
    """The answer to a cancel: the item being cancelled, or null when the agent was idle."""

    mailboxItemId: str | None


__all__ = [
    "AGENT_CONFIG_KEYS",
    "AgentConfigBody",
    "AgentConfigView",
    "AgentSummaryView",
    "CancelBody",
    "CancelView",
    "ConfigPatch",
    "CreateAgentBody",
    "CreatedAgentView",
    "FocusView",
    "HeartbeatView",
    "check_utf8_strings",
]
