"""Traces: recorded mailbox traffic as a JSONL file, replayable through a runtime.

A trace file is UTF-8 JSON Lines. The first line is the header::

    {"format": "attn-trace", "version": 1, "createdAt": "...", "origin": {...},
     "types": [<item type>...], "agents": [{"name": ..., "description": ...}]}

``types`` lists the user item types the events need (registered before
replay, in the form of :meth:`ItemType.to_dict`); ``agents`` names the recipients. Every
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

from attn.core.item_type import ItemType
from attn.types import JSON

TRACE_FORMAT = "attn-trace"
TRACE_VERSION = 1


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
            "types": [t.to_dict() for t in self.types],
            "agents": [{"name": a.name, "description": a.description} for a in self.agents],
        }
