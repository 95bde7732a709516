"""A mailbox message as stored in the JSONL files (seed 003, "Message structure").

One line per message, camelCase keys::

    {"id": "fbm_…", "runId": "r1", "direction": "inbox", "box": "inbox",
     "kind": "message", "from": "leader", "to": "build", "taskId": "build",
     "body": "…", "status": "queued", "priority": "normal",
     "createdAt": "2026-12-02T03:00:00.000000+00:00", "data": {…}}

The line never changes. ``status`` on the line is the status it was written
with; later changes (delivered, acknowledged) live in ``delivery.json`` with
their times, and :func:`with_delivery` merges the two.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal, cast

from attn.echo import shown
from attn.errors import InvalidInput
from attn.filebox.paths import BOXES, Box
from attn.limits import check_json, check_text

Direction = Literal["inbox", "outbox"]
Status = Literal["queued", "delivered", "acknowledged"]
Priority = Literal["low", "normal", "high"]
#: What a message is for: a plain message, a leader's response to a question,
#: a steer, a follow-up, a nudge, or a worker's supervisor contact.
Kind = Literal["message", "response", "steer", "follow_up", "nudge", "contact"]

DIRECTIONS: tuple[Direction, ...] = ("inbox", "outbox")
STATUSES: tuple[Status, ...] = ("queued", "delivered", "acknowledged")
PRIORITIES: tuple[Priority, ...] = ("low", "normal", "high")
KINDS: tuple[Kind, ...] = ("message", "response", "steer", "follow_up", "nudge", "contact")
#: The order statuses only move forward in.
STATUS_RANK: dict[str, int] = {status: rank for rank, status in enumerate(STATUSES)}

#: Longest message body (characters).
MAX_BODY_CHARS = 65_536
#: Who a message is from or to when it is not a task: the run's leader.
LEADER = "leader"


def check_choice(value: object, what: str, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices``.

    Raises:
        InvalidInput: ``"priority must be one of low, normal, high, got 'urgent'"``.
    """
    if not isinstance(value, str) or value not in choices:
        raise InvalidInput(f"{what} must be one of {', '.join(choices)}, got {shown(value)}")
    return value


@dataclass(slots=True)  # not frozen: a mailbox makes 100,000 of these in a read
class FileboxMessage:
    """One message of a run's mailbox files (read-only by convention: change one
    with :func:`dataclasses.replace`).

    Attributes:
        id: ``fbm_…``, unique across processes.
        run_id: the run.
        box: the file it is in: ``inbox``, ``outbox`` or ``steering``.
        direction: ``inbox`` (to a worker: inbox and steering) or ``outbox`` (from one).
        kind: see :data:`Kind`.
        sender, to: a task id or ``"leader"`` (``from`` and ``to`` on the line).
        body: the text, 1..65,536 characters.
        status: queued, delivered or acknowledged (with the delivery record merged).
        priority: low, normal or high.
        created_at, delivered_at, acknowledged_at: UTC times (ISO 8601 on the line).
        task_id: the task whose own mailbox holds it, else None (the run's).
        data: JSON object: ``source``, ``questionId``, ``correlationId``, …
    """

    id: str
    run_id: str
    box: Box
    direction: Direction
    kind: Kind
    sender: str
    to: str
    body: str
    status: Status
    priority: Priority
    created_at: str
    delivered_at: str | None = None
    acknowledged_at: str | None = None
    task_id: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The message as it is stored and served (camelCase keys)."""
        out: dict[str, Any] = {
            "id": self.id,
            "runId": self.run_id,
            "box": self.box,
            "direction": self.direction,
            "kind": self.kind,
            "from": self.sender,
            "to": self.to,
            "body": self.body,
            "status": self.status,
            "priority": self.priority,
            "createdAt": self.created_at,
        }
        if self.delivered_at is not None:
            out["deliveredAt"] = self.delivered_at
        if self.acknowledged_at is not None:
            out["acknowledgedAt"] = self.acknowledged_at
        if self.task_id is not None:
            out["taskId"] = self.task_id
        if self.data:
            out["data"] = self.data
        return out


def message_problem(raw: dict[str, Any]) -> str:
    """Why a parsed line is not a message, or "" when it is one."""
    for key in ("id", "runId", "from", "to", "body", "createdAt"):
        if not isinstance(raw.get(key), str):
            return f"{key} is missing or not a string"
    if raw.get("direction") not in DIRECTIONS:
        return "direction is not inbox or outbox"
    if raw.get("status") not in STATUSES:
        return "status is not queued, delivered or acknowledged"
    if raw.get("priority", "normal") not in PRIORITIES:
        return "priority is not low, normal or high"
    if raw.get("kind", "message") not in KINDS:
        return "kind is not a known kind"
    if raw.get("box", raw["direction"]) not in BOXES:
        return "box is not inbox, outbox or steering"
    if not isinstance(raw.get("data", {}), dict):
        return "data is not an object"
    task = raw.get("taskId")
    if task is not None and not isinstance(task, str):
        return "taskId is not a string"
    return ""


def message_of(raw: dict[str, Any]) -> FileboxMessage:
    """A line that passed :func:`message_problem` as a :class:`FileboxMessage`."""
    return FileboxMessage(
        id=raw["id"],
        run_id=raw["runId"],
        box=cast(Box, raw.get("box", raw["direction"])),
        direction=raw["direction"],
        kind=raw.get("kind", "message"),
        sender=raw["from"],
        to=raw["to"],
        body=raw["body"],
        status=raw["status"],
        priority=raw.get("priority", "normal"),
        created_at=raw["createdAt"],
        delivered_at=raw.get("deliveredAt") if isinstance(raw.get("deliveredAt"), str) else None,
        acknowledged_at=raw.get("acknowledgedAt")
        if isinstance(raw.get("acknowledgedAt"), str)
        else None,
        task_id=raw.get("taskId"),
        data=raw.get("data") or {},
    )


def with_delivery(message: FileboxMessage, entry: dict[str, Any] | None) -> FileboxMessage:
    """``message`` with its delivery record entry merged (status only moves forward)."""
    if not entry:
        return message
    status = entry.get("status")
    if status not in STATUS_RANK or STATUS_RANK[status] <= STATUS_RANK[message.status]:
        return message
    return replace(
        message,
        status=cast(Status, status),
        delivered_at=entry.get("deliveredAt") or message.delivered_at,
        acknowledged_at=entry.get("acknowledgedAt") or message.acknowledged_at,
    )


def check_body(value: object) -> str:
    """A message body: a non-blank string of at most 65,536 characters.

    Raises:
        InvalidInput: naming the rule broken.
    """
    return check_text(value, "body", max_len=MAX_BODY_CHARS)


def check_data(value: object) -> dict[str, Any]:
    """A message's ``data``: None or a JSON object within attn's JSON limits.

    Raises:
        InvalidInput: not an object, or too deep, a non-finite number, …
    """
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInput(f"data must be a JSON object, got {shown(value)}")
    check_json(value, "data")
    return dict(value)


def iso(at: datetime) -> str:
    """``at`` as ISO 8601 with microseconds, so times sort as text."""
    return at.isoformat(timespec="microseconds")


__all__ = [
    "DIRECTIONS",
    "KINDS",
    "LEADER",
    "MAX_BODY_CHARS",
    "PRIORITIES",
    "STATUSES",
    "Direction",
    "FileboxMessage",
    "Kind",
    "Priority",
    "Status",
    "check_body",
    "check_choice",
    "check_data",
    "iso",
    "message_of",
    "message_problem",
    "with_delivery",
]
