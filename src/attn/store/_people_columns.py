"""People records as every backend answers them, and their JSON columns on the SQL backends.

A write answers the record as it was stored: :func:`stored_notification`,
:func:`stored_approval` and :func:`stored_message` type the enums and give the
JSON values back as a database would (tuples as lists, keys as text), so
memory, SQLite and PostgreSQL answer equal records. The SQL backends keep
``action_target``, ``metadata``, ``options`` and ``context`` as JSON text.

Spec: 000 §12.1 (``action_target`` and ``metadata`` as JSON text), §13.2; acceptance PPL-01..09.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from attn.jsontext import dumps
from attn.limits import load_stored
from attn.models.people import (
    ActionType,
    Approval,
    ApprovalOption,
    ApprovalState,
    Notification,
    NotificationPriority,
    SessionMessage,
    SessionRole,
)
from attn.types import JSON


def _json_copy(value: Any) -> Any:
    return None if value is None else json.loads(dumps(value))


def stored_notification(n: Notification) -> Notification:
    """``n`` as every backend answers it: enums typed, JSON as a database gives it back."""
    return replace(
        n,
        priority=NotificationPriority(n.priority),
        action_type=ActionType(n.action_type),
        action_target=_json_copy(n.action_target),
        metadata=_json_copy(n.metadata),
    )


def stored_approval(a: Approval) -> Approval:
    """``a`` as every backend answers it (see :func:`stored_notification`)."""
    return replace(
        a,
        priority=NotificationPriority(a.priority),
        state=ApprovalState(a.state),
        context=_json_copy(a.context),
    )


def stored_message(m: SessionMessage, seq: int) -> SessionMessage:
    """``m`` as every backend answers it, with the ``seq`` the store assigned."""
    return replace(m, role=SessionRole(m.role), metadata=_json_copy(m.metadata), seq=seq)


def json_column(value: JSON | None) -> str | None:
    """A checked JSON column's text (NULL for None)."""
    return None if value is None else dumps(value)


def object_of(text: str | None) -> JSON:
    """The object of a JSON object column (``{}`` for NULL; a stored non-object is
    kept as ``{"value": ...}``)."""
    if text is None:
        return {}
    value = load_stored(text)
    return value if isinstance(value, dict) else {"value": value}


def target_of(text: str | None) -> JSON | None:
    """The ``action_target`` of its column (None for NULL)."""
    return None if text is None else object_of(text)


def options_text(options: tuple[ApprovalOption, ...]) -> str:
    """The ``options`` column: a JSON list of the options' wire forms."""
    return dumps([o.to_dict() for o in options])


def options_of(text: str) -> tuple[ApprovalOption, ...]:
    """The options of an ``options`` column (entries that are not objects are skipped)."""
    return tuple(
        ApprovalOption(str(d.get("id")), str(d.get("label")), str(d.get("description") or ""))
        for d in load_stored(text)
        if isinstance(d, dict)
    )
