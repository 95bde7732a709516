"""Traces: recorded mailbox traffic as a JSONL file, replayable through a runtime.

A trace file is UTF-8 JSON Lines. The first line is the header::

    {"format": "attn-trace", "version": 1, "createdAt": "...", "origin": {...},
     "types": [<item type>...], "agents": [{"name": ..., "description": ...}]}

``types`` lists the user item types the events need (registered before
replay, see :func:`type_to_json`); ``agents`` names the recipients. Every
further non-blank line is one event::

    {"at": "2026-02-09T15:08:17.410+00:00", "agent": "team.alice",
     "sourceType": "a2a_message", "payload": {...}, "metadata": {...},
     "priority": null, "key": "ct1-..."}

``key`` is the item's idempotency key: stable across re-imports, unique per
agent within the trace, so replaying a trace twice into one database never
duplicates an item. Reading and writing the file is :mod:`attn.trace.files`:
reading validates every line and raises :class:`InvalidTrace` naming the first
bad line; nothing is half-read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from attn.core.registry import Category, ItemType, Recovery, TypeRegistry
from attn.errors import InvalidInput
from attn.types import JSON

TRACE_FORMAT = "attn-trace"
TRACE_VERSION = 1


class InvalidTrace(InvalidInput):
    """The trace file is not a valid attn trace."""

    code = "invalid_trace"


@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One recorded enqueue.

    Attributes:
        at: when it happened (timezone-aware UTC).
        agent: the recipient agent's name.
        source_type: a registry type name (built-in or listed in the header).
        payload: the item payload (JSON object).
        metadata: the item metadata (JSON object); ``senderId`` names the sender.
        priority: 0..4, or None for the type's default.
        key: idempotency key, unique per agent within the trace.
    """

    at: datetime
    agent: str
    source_type: str
    payload: JSON
    metadata: JSON
    priority: int | None
    key: str

    @property
    def sender(self) -> str:
        """``metadata["senderId"]`` (or ``senderName``), else ``"unknown"``."""
        for name in ("senderId", "senderName"):
            value = self.metadata.get(name)
            if isinstance(value, str) and value:
                return value
        return "unknown"

    def to_json(self) -> JSON:
        """The event as its JSONL object."""
        return {
            "at": self.at.isoformat(),
            "agent": self.agent,
            "sourceType": self.source_type,
            "payload": self.payload,
            "metadata": self.metadata,
            "priority": self.priority,
            "key": self.key,
        }


@dataclass(frozen=True, slots=True)
class TraceAgent:
    """A recipient named in the header, with a description for UIs."""

    name: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class Trace:
    """A whole trace: header facts and events in file order.

    Attributes:
        origin: where the events came from (free-form JSON object).
        types: user item types to register before replay.
        agents: recipients (every event's agent is listed here).
        events: the events, in file order.
        created_at: when the trace was written.
    """

    origin: JSON
    types: tuple[ItemType, ...]
    agents: tuple[TraceAgent, ...]
    events: tuple[TraceEvent, ...]
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))

    def header_json(self) -> JSON:
        """The header line's object."""
        return {
            "format": TRACE_FORMAT,
            "version": TRACE_VERSION,
            "createdAt": self.created_at.isoformat(),
            "origin": self.origin,
            "types": [type_to_json(t) for t in self.types],
            "agents": [{"name": a.name, "description": a.description} for a in self.agents],
        }


def type_to_json(spec: ItemType) -> JSON:
    """Every field of ``spec`` as a JSON object (camelCase), readable by :func:`type_from_json`."""
    return {
        "name": spec.name,
        "label": spec.label,
        "defaultPriority": spec.default_priority,
        "category": str(spec.category),
        "icon": spec.icon,
        "activityType": spec.activity_type,
        "createsActivity": spec.creates_activity,
        "invokesLLM": spec.invokes_llm,
        "requiresText": spec.requires_text,
        "userPriority": spec.user_priority,
        "preemptable": spec.preemptable,
        "protected": spec.protected,
        "userInteraction": spec.user_interaction,
        "recovery": str(spec.recovery),
        "ttlS": spec.ttl_s,
        "mergeKey": spec.merge_key,
        "supersedes": str(spec.supersedes) if spec.supersedes is not None else None,
        "description": spec.description,
    }


# JSON key -> (ItemType field, accepted JSON types, required)
_TYPE_FIELDS: tuple[tuple[str, str, tuple[type, ...], bool], ...] = (
    ("name", "name", (str,), True),
    ("label", "label", (str,), True),
    ("defaultPriority", "default_priority", (int,), True),
    ("category", "category", (str,), True),
    ("icon", "icon", (str,), False),
    ("activityType", "activity_type", (str, type(None)), False),
    ("createsActivity", "creates_activity", (bool,), False),
    ("invokesLLM", "invokes_llm", (bool,), False),
    ("requiresText", "requires_text", (bool,), False),
    ("userPriority", "user_priority", (int, type(None)), False),
    ("preemptable", "preemptable", (bool,), False),
    ("protected", "protected", (bool,), False),
    ("userInteraction", "user_interaction", (bool,), False),
    ("recovery", "recovery", (str,), False),
    ("ttlS", "ttl_s", (int, float, type(None)), False),
    ("mergeKey", "merge_key", (str, type(None)), False),
    ("supersedes", "supersedes", (str, type(None)), False),
    ("description", "description", (str,), False),
)


def type_from_json(data: object) -> ItemType:
    """Build an :class:`ItemType` from :func:`type_to_json` output, validating it.

    Raises:
        InvalidInput: when a field is missing or has the wrong type, or the type
            would be rejected by :meth:`TypeRegistry.register`.
    """
    if not isinstance(data, dict):
        raise InvalidInput(f"an item type must be a JSON object, got {_kind(data)}")
    kwargs: dict[str, Any] = {"icon": "•"}
    for key, attr, kinds, required in _TYPE_FIELDS:
        if key not in data:
            if required:
                raise InvalidInput(f"item type is missing {key!r}")
            continue
        value = data[key]
        if isinstance(value, bool) and bool not in kinds:
            raise InvalidInput(f"item type field {key!r} has the wrong type: {value!r}")
        if not isinstance(value, kinds):
            raise InvalidInput(f"item type field {key!r} has the wrong type: {value!r}")
        kwargs[attr] = value
    unknown = sorted(set(data) - {k for k, *_ in _TYPE_FIELDS})
    if unknown:
        raise InvalidInput(f"item type has unknown fields: {', '.join(unknown)}")
    if kwargs["category"] not in {c.value for c in Category}:
        allowed = ", ".join(c.value for c in Category)
        raise InvalidInput(f"category must be one of {allowed}, got {kwargs['category']!r}")
    kwargs["category"] = Category(kwargs["category"])
    recovery = kwargs.get("recovery", Recovery.REQUEUE)
    if recovery not in {r.value for r in Recovery}:
        raise InvalidInput(f"recovery must be requeue or drop, got {recovery!r}")
    kwargs["recovery"] = Recovery(recovery)
    # The registry owns the rules for names, priorities, labels and
    # ``supersedes``: reuse them (it returns the type with enums normalized).
    return TypeRegistry(()).register(ItemType(**kwargs))


def _kind(value: object) -> str:
    return {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        type(None): "null",
    }.get(type(value), type(value).__name__)
