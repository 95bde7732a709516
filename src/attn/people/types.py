"""The notification type registry: every kind of notification a person can get.

The counterpart of the mailbox's item type registry (000 §12.2): each type
has a label, an icon, a default priority, a default action and a category.
Users add their own with :meth:`NotificationTypes.register`.

Spec: 000 §12.2 (the type table), §12.3 (actions).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from attn.errors import InvalidInput
from attn.models.people import ActionType, NotificationPriority
from attn.types import JSON

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_P, _A = NotificationPriority, ActionType


@dataclass(frozen=True, slots=True)
class NotificationType:
    """One kind of notification (000 §12.2).

    Attributes:
        name: 1-64 lowercase letters, digits and ``_``, starting with a letter.
        label: what the bell shows as its kind.
        icon: one short glyph.
        priority: the default priority of its notifications.
        action: the default action (``navigate``, ``open_chat``, ``none``).
        category: ``approval``, ``task``, ``agent``, ``system`` or a user's own.
    """

    name: str
    label: str
    icon: str
    priority: NotificationPriority
    action: ActionType
    category: str

    def to_dict(self) -> JSON:
        return {
            "name": self.name,
            "label": self.label,
            "icon": self.icon,
            "defaultPriority": str(self.priority),
            "defaultAction": str(self.action),
            "category": self.category,
        }


BUILTIN_NOTIFICATION_TYPES: tuple[NotificationType, ...] = (
    NotificationType(
        "approval_request", "Approval Request", "🔐", _P.HIGH, _A.NAVIGATE, "approval"
    ),
    NotificationType("task_created", "Task Created", "📋", _P.NORMAL, _A.NAVIGATE, "task"),
    NotificationType("task_completed", "Task Completed", "✅", _P.NORMAL, _A.NAVIGATE, "task"),
    NotificationType("task_review", "Task Review", "👁️", _P.NORMAL, _A.NAVIGATE, "task"),
    NotificationType("task_failed", "Task Failed", "❌", _P.HIGH, _A.NAVIGATE, "task"),
    NotificationType(
        "requirement_created", "Requirement Proposed", "📝", _P.HIGH, _A.NAVIGATE, "task"
    ),
    NotificationType(
        "requirement_decision", "Requirement Decision", "⚖️", _P.NORMAL, _A.NAVIGATE, "task"
    ),
    NotificationType("agent_report", "Agent Report", "📊", _P.NORMAL, _A.NONE, "agent"),
    NotificationType("worker_contact", "Worker Question", "❓", _P.HIGH, _A.NAVIGATE, "worker"),
    NotificationType("system", "System", "⚙️", _P.NORMAL, _A.NONE, "system"),
)


class NotificationTypes(Mapping[str, NotificationType]):
    """The notification types of one runtime, by name; the built-in ones first."""

    def __init__(self, types: tuple[NotificationType, ...] = BUILTIN_NOTIFICATION_TYPES) -> None:
        self._types = {t.name: t for t in types}

    def __getitem__(self, name: str) -> NotificationType:
        return self._types[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._types)

    def __len__(self) -> int:
        return len(self._types)

    def get_type(self, name: object) -> NotificationType:
        """The type called ``name``.

        Raises:
            InvalidInput: no such type (the message lists the known ones).
        """
        found = self._types.get(name) if isinstance(name, str) else None
        if found is None:
            known = ", ".join(self._types)
            raise InvalidInput(f"unknown notification type {name!r} (known: {known})")
        return found

    def register(self, spec: NotificationType, *, replace_existing: bool = False) -> None:
        """Add a type (or replace one with ``replace_existing``).

        Raises:
            InvalidInput: a bad name, label, icon or category, or a name taken.
        """
        if not isinstance(spec, NotificationType):
            raise InvalidInput(f"expected a NotificationType, got {type(spec).__name__}")
        if not _NAME.match(spec.name):
            raise InvalidInput(f"notification type name {spec.name!r} breaks {_NAME.pattern}")
        for label, value, most in (("label", spec.label, 100), ("icon", spec.icon, 8)):
            if not isinstance(value, str) or not value.strip() or len(value) > most:
                raise InvalidInput(f"notification type {label} must be 1..{most} characters")
        if not _NAME.match(spec.category):
            raise InvalidInput(f"notification category {spec.category!r} breaks {_NAME.pattern}")
        if spec.name in self._types and not replace_existing:
            raise InvalidInput(f"notification type {spec.name!r} exists")
        self._types[spec.name] = NotificationType(
            spec.name,
            spec.label,
            spec.icon,
            NotificationPriority(spec.priority),
            ActionType(spec.action),
            spec.category,
        )

    def to_list(self) -> list[JSON]:
        return [t.to_dict() for t in self._types.values()]


__all__ = ["BUILTIN_NOTIFICATION_TYPES", "NotificationType", "NotificationTypes"]
