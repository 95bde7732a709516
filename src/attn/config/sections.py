"""The tables of ``attn.toml``: ``[database]``, ``[server]``, ``[defaults]``, ``[[agents]]``,
``[teams.<name>]``.

Each table is a strict, frozen pydantic model that refuses unknown fields. The
per-agent fields (:class:`AgentFields`) are declared once here: ``[defaults]``
and ``[[agents]]`` take them, and so does the body of ``POST /api/agents``
(:class:`attn.server.schemas_control.AgentConfigBody` derives from them).

Spec: issue 3 (attn.toml), 000 §4, §11, §11.4, §14, §21; issue 13 (teams).
"""

from __future__ import annotations

import ipaddress
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from attn.config.agent import AgentConfig
from attn.tokens import token_problem

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765

#: Agent names: 1-64 letters, digits, ``_ . -``, starting with a letter or digit.
AGENT_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$"


def whole_seconds(value: object) -> object:
    """An integer ``value`` as a float, anything else unchanged (a ``before`` validator).

    TOML writes whole seconds as integers; strict mode would refuse them for a float.

    Raises:
        ValueError: an integer too large for a float (reported as a field problem).
    """
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            raise ValueError("a number this large is not a duration in seconds") from None
    return value


def _heartbeat_or_off(value: object) -> object:
    # ``false`` turns heartbeats off; a number is seconds.
    return None if value is False else whole_seconds(value)


class Section(BaseModel):
    """Base of every table: strict types, unknown fields refused, frozen."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class DatabaseSection(Section):
    """``[database]``: where the store lives.

    Attributes:
        url: ``sqlite:///path/attn.db``, ``postgresql://host/db`` or ``memory://``;
            None means the default (``./attn.db``).
    """

    url: str | None = Field(default=None, min_length=1)


def _check_token(value: object) -> object:
    if isinstance(value, str):
        problem = token_problem(value)
        if problem is not None:
            raise ValueError(f"the API token {problem}")
    return value


class ServerSection(Section):
    """``[server]``: the HTTP bind address and the API token.

    Attributes:
        host: address to bind; anything but loopback requires ``token``.
        port: TCP port, 1..65535.
        token: bearer token every route but ``/health`` requires; None for none.
        header_timeout_s: seconds a client may take to send a request's line
            and headers before it gets 408 and is disconnected (0 < s <= 3600).
        body_timeout_s: seconds a client may take to send a request's body
            after its headers (0 < s <= 3600).
    """

    host: str = Field(default=DEFAULT_HOST, min_length=1)
    port: int = Field(default=DEFAULT_PORT, ge=1, le=65535)
    token: str | None = Field(default=None)
    header_timeout_s: float = Field(default=10.0, gt=0, le=3600, allow_inf_nan=False)
    body_timeout_s: float = Field(default=30.0, gt=0, le=3600, allow_inf_nan=False)

    _seconds = field_validator("header_timeout_s", "body_timeout_s", mode="before")(whole_seconds)

    _token = field_validator("token", mode="after")(_check_token)


def is_loopback(host: str) -> bool:
    """True when ``host`` names only this machine (``127.x``, ``::1``, ``localhost``)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


_AGENT_DEFAULTS = AgentConfig()

#: Fields of ``[defaults]`` and ``[[agents]]`` that are :class:`AgentConfig` fields.
AGENT_CONFIG_FIELDS = (
    "max_queued",
    "backstop_s",
    "approval_backstop_s",
    "max_attempts",
    "max_payload_bytes",
    "dedup",
    "coalesce_window_ms",
    "consolidate",
    "stale_after_s",
    "auto_complete_informational",
    "wake",
    "capacity",
)


class AgentFields(Section):
    """The per-agent settings of :class:`~attn.config.AgentConfig`; None: not set here.

    Attributes:
        max_queued: maximum queued items (human chat is always accepted).
        backstop_s: seconds one processing attempt may run (000 §4).
        approval_backstop_s: the backstop while the brain awaits a person's approval.
        max_attempts: attempts before an item is dropped as poisoned.
        max_payload_bytes: largest JSON payload plus metadata accepted, in bytes.
        dedup: merge comments and channel messages into queued items (000 §14).
        coalesce_window_ms: wait this many milliseconds for the rest of a burst
            before triage; 0 disables (000 §14).
        consolidate: fold queued items about one task into one (000 §21).
        stale_after_s: informational items queued longer are dropped (000 §21).
        auto_complete_informational: complete status updates that ask for
            nothing without a brain call (000 §3.4).
        wake: ``"always"`` (seed 000) or ``"on_mail"`` (seed 002: only live
            mail or an explicit start begins a turn; for the root of a spawn tree).
        capacity: turn slots of the spawn tree the agent is the root of (1 .. 256).
    """

    max_queued: int | None = Field(default=None, ge=1)
    backstop_s: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    approval_backstop_s: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    max_attempts: int | None = Field(default=None, ge=1, le=100)
    max_payload_bytes: int | None = Field(default=None, ge=1)
    dedup: bool | None = None
    coalesce_window_ms: int | None = Field(default=None, ge=0, le=60_000)
    consolidate: bool | None = None
    stale_after_s: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    auto_complete_informational: bool | None = None
    wake: Literal["always", "on_mail"] | None = None
    capacity: int | None = Field(default=None, ge=1, le=256)


#: The duration fields, read with :func:`whole_seconds` from ``attn.toml`` (not from
#: JSON, where a strict float takes an integer and a huge one is "not a finite number").
_SECONDS_FIELDS = ("backstop_s", "approval_backstop_s", "stale_after_s")


class DefaultsSection(AgentFields):
    """``[defaults]``: agent settings applied unless an agent overrides them.

    Every field of :class:`AgentFields` (the :class:`~attn.config.AgentConfig`
    fields) defaults to AgentConfig's own default, plus:

    Attributes:
        heartbeat_interval_s: every agent gets a heartbeat at this interval
            (300 .. 86,400 s; default 6 hours) unless one was set for it live
            (``PATCH /api/agents/{name}/config``, persisted); ``heartbeat_interval_s
            = false`` in attn.toml turns heartbeats off (000 §11.3, §11.4).
    """

    max_queued: int = Field(default=_AGENT_DEFAULTS.max_queued, ge=1)
    backstop_s: float = Field(default=_AGENT_DEFAULTS.backstop_s, gt=0, allow_inf_nan=False)
    approval_backstop_s: float = Field(
        default=_AGENT_DEFAULTS.approval_backstop_s, gt=0, allow_inf_nan=False
    )
    max_attempts: int = Field(default=_AGENT_DEFAULTS.max_attempts, ge=1, le=100)
    max_payload_bytes: int = Field(default=_AGENT_DEFAULTS.max_payload_bytes, ge=1)
    dedup: bool = _AGENT_DEFAULTS.dedup
    coalesce_window_ms: int = Field(default=_AGENT_DEFAULTS.coalesce_window_ms, ge=0, le=60_000)
    consolidate: bool = _AGENT_DEFAULTS.consolidate
    stale_after_s: float = Field(default=_AGENT_DEFAULTS.stale_after_s, gt=0, allow_inf_nan=False)
    auto_complete_informational: bool = _AGENT_DEFAULTS.auto_complete_informational
    wake: Literal["always", "on_mail"] = "always"
    capacity: int = Field(default=_AGENT_DEFAULTS.capacity, ge=1, le=256)
    heartbeat_interval_s: float | None = Field(
        default=6 * 3600.0, ge=300, le=86_400, allow_inf_nan=False
    )

    _seconds = field_validator(*_SECONDS_FIELDS, mode="before")(whole_seconds)
    _heartbeat = field_validator("heartbeat_interval_s", mode="before")(_heartbeat_or_off)


class AgentSection(AgentFields):
    """One ``[[agents]]`` entry.

    Attributes:
        name: the agent's name (letters, digits, ``_ . -``; at most 64).
        brain: a brain name known to :func:`attn.brains.build_brain`, e.g. ``"echo"``.
        description: one line shown in listings.
        options: table passed to the brain factory. In ``attn.toml``, an option
            named ``*_file`` (e.g. ``system_prompt_file``) holding a relative
            path is taken relative to the file's folder.
        max_queued, backstop_s, max_attempts, coalesce_window_ms, ...: per-agent
            overrides of ``[defaults]`` (every :class:`AgentFields` field).
    """

    name: str = Field(pattern=AGENT_NAME_PATTERN)
    brain: str = Field(min_length=1)
    description: str = ""
    options: dict[str, Any] = Field(default_factory=dict)

    _seconds = field_validator(*_SECONDS_FIELDS, mode="before")(whole_seconds)


def _not_blank(value: object) -> object:
    if isinstance(value, str) and not value.strip():
        raise ValueError("must not be blank")
    return value


#: Longest display name of a team, in characters: a channel's longest name
#: (:data:`attn.models.channels.MAX_CHANNEL_NAME_CHARS`; a test holds them equal).
MAX_TEAM_DISPLAY_NAME = 200


class TeamSection(Section):
    """One ``[teams.<name>]`` table: a team, whose agents share the channel ``group:<name>``.

    The team's name is the table's key. What needs the whole file (the name
    rule, members defined in ``[[agents]]``, no repeats, at most 500) is
    checked by :func:`attn.config.team_checks.team_problems` when the file loads.

    Attributes:
        members: the member agents' names, in order.
        name: the display name (1..200 characters, not blank); None: the key.
    """

    members: list[str]
    name: str | None = Field(default=None, min_length=1, max_length=MAX_TEAM_DISPLAY_NAME)

    _name = field_validator("name", mode="after")(_not_blank)


__all__ = [
    "AGENT_CONFIG_FIELDS",
    "AGENT_NAME_PATTERN",
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "MAX_TEAM_DISPLAY_NAME",
    "AgentFields",
    "AgentSection",
    "DatabaseSection",
    "DefaultsSection",
    "Section",
    "ServerSection",
    "TeamSection",
    "is_loopback",
    "whole_seconds",
]
