"""The type registry: the one table of mailbox item types.

Every module reads type facts (label, default priority, category, icon,
activity type, flags) from here; no other module hard-codes a type name's
behaviour. Users add their own types with :meth:`TypeRegistry.register`.

Spec: 000 §3.1–3.3, §6.3. The recovery, time-to-live and text rules are
attn's (DESIGN.md, "Where the seeds are silent").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from enum import IntEnum, StrEnum
from typing import Any

from attn.errors import InvalidInput, InvalidPriority, UnknownItemType


class Priority(IntEnum):
    """Mailbox priority: a lower number is served first."""

    CRITICAL = 0
    HIGH = 1
    NORMAL = 2
    LOW = 3
    BACKGROUND = 4


class Category(StrEnum):
    """Filter group of a type (000 §3.3)."""

    INTERACTION = "interaction"
    TASK = "task"
    NOTIFICATION = "notification"
    SYSTEM = "system"


class Recovery(StrEnum):
    """What restart recovery does with an item of this type left ``processing``."""

    REQUEUE = "requeue"
    DROP = "drop"


class Supersede(StrEnum):
    """Which queued items of a superseding type a newer one replaces (CORE-76).

    A superseding notice only restates a state (a worker's "I am idle" ping, a
    status heartbeat): the newest one is all the agent needs to see.
    """

    #: The newest item from the same sender (``metadata.senderId``) replaces older ones.
    SENDER = "sender"
    #: The newest item of the type replaces older ones, whoever sent them (heartbeats).
    TYPE = "type"


HOUR_S = 3600.0
DAY_S = 24 * HOUR_S
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


@dataclass(frozen=True, slots=True)
class ItemType:
    """Everything attn knows about one source type.

    Attributes:
        name: the source type string stored with each item, e.g. ``"human_chat"``.
        label: human-readable name for UIs.
        default_priority: priority used when the enqueuer gives none (0..4).
        category: filter group.
        icon: a short glyph for UIs.
        activity_type: the derived activity type, or None when it depends on
            the processing mode (000 §6.3).
        creates_activity: whether processing normally creates an activity row.
        invokes_llm: whether processing normally calls a model; LLM brains
            apply the completion-marker rule (000 §20) only to these.
        requires_text: ``payload["content"]`` must be a non-empty string.
        user_priority: priority when a person authored it (sender role ``user``);
            None when the type has no such rule.
        preemptable: False for types a person waits on (human chat): only
            merge is honoured at their yield points (000 §4).
        protected: agents' mailbox tools may not defer, drop or reprioritize it.
        user_interaction: always counts as a user interaction (000 §4 R1).
        recovery: restart policy when found ``processing`` after a crash.
        ttl_s: queued items older than this (seconds) are dropped as expired
            on restart; None means never.
        informational: queued longer than the agent's ``stale_after_s`` (4 h by
            default), it is dropped before triage (000 §21 stale purge);
            execution triggers never are.
        merge_key: payload key (top level or under ``extra``) whose equal values
            merge queued items of this type into one: task comments by task,
            requirement comments by requirement, agent messages by channel
            (000 §14, §17); None for no merging.
        supersedes: None, or which queued items of this type a newer one
            replaces: the older one is stored as merged into the newer (its
            text kept in its row), and a newer one that restates the item being
            processed is stored as merged into that one (CORE-76, TIME-11).
            A single item opts in with ``payload["extra"]["supersedeKey"]``
            (sender scope; items with equal keys supersede each other).
    """

    name: str
    label: str
    default_priority: int
    category: Category
    icon: str
    activity_type: str | None = None
    creates_activity: bool = True
    invokes_llm: bool = True
    requires_text: bool = False
    user_priority: int | None = None
    preemptable: bool = True
    protected: bool = False
    user_interaction: bool = False
    recovery: Recovery = Recovery.REQUEUE
    ttl_s: float | None = 3 * DAY_S
    informational: bool = False
    merge_key: str | None = None
    supersedes: Supersede | None = None
    description: str = field(default="", compare=False)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description of this type, for APIs and UIs."""
        return {
            "name": self.name,
            "label": self.label,
            "defaultPriority": self.default_priority,
            "category": str(self.category),
            "icon": self.icon,
            "activityType": self.activity_type,
            "createsActivity": self.creates_activity,
            "invokesLLM": self.invokes_llm,
            "requiresText": self.requires_text,
            "preemptable": self.preemptable,
            "protected": self.protected,
            "recovery": str(self.recovery),
            "ttlS": self.ttl_s,
            "supersedes": str(self.supersedes) if self.supersedes is not None else None,
        }


def validate_priority(priority: object) -> int:
    """Return ``priority`` as an int in 0..4.

    Raises:
        InvalidPriority: for anything else (bools, strings, floats, out of range).
    """
    if isinstance(priority, bool) or not isinstance(priority, int) or not 0 <= priority <= 4:
        raise InvalidPriority(
            f"priority must be an integer from 0 (critical) to 4 (background), got {priority!r}"
        )
    return priority


_I, _T, _N, _S = Category.INTERACTION, Category.TASK, Category.NOTIFICATION, Category.SYSTEM
_4H = 4 * HOUR_S

BUILTIN_TYPES: tuple[ItemType, ...] = (
    ItemType("system_event", "System Event", 1, _S, "⚙", "internal"),
    ItemType(
        "human_chat",
        "Chat",
        0,
        _I,
        "💬",
        "chat",
        requires_text=True,
        preemptable=False,
        protected=True,
        user_interaction=True,
        ttl_s=None,
    ),
    ItemType(
        "task_comment",
        "Task Comment",
        2,
        _T,
        "💬",
        None,
        creates_activity=False,
        invokes_llm=False,
        requires_text=True,
        user_priority=0,
        merge_key="taskId",
    ),
    ItemType("mention", "Mention", 1, _I, "@", "chat", requires_text=True),
    ItemType(
        "session_reply", "Session Reply", 1, _T, "↩", "respond_in_session", requires_text=True
    ),
    ItemType(
        "task_status_update",
        "Task Status",
        1,
        _T,
        "📋",
        None,
        invokes_llm=False,
        recovery=Recovery.DROP,
        ttl_s=_4H,
        informational=True,
    ),
    ItemType(
        "a2a_message",
        "Agent Message",
        2,
        _I,
        "🔗",
        "a2a",
        requires_text=True,
        merge_key="channelKey",
    ),
    ItemType("review_request", "Review Request", 1, _T, "👀", "chat"),
    ItemType(
        "requirement_comment",
        "Requirement Comment",
        2,
        _T,
        "💬",
        None,
        creates_activity=False,
        invokes_llm=False,
        requires_text=True,
        user_priority=0,
        merge_key="requirementId",
    ),
    ItemType(
        "requirement_update",
        "Requirement Update",
        1,
        _N,
        "📝",
        "internal",
        invokes_llm=False,
        recovery=Recovery.DROP,
        ttl_s=_4H,
    ),
    ItemType(
        "daily_report",
        "Daily Report",
        2,
        _S,
        "📊",
        "internal",
        recovery=Recovery.DROP,
        informational=True,
    ),
    ItemType(
        "heartbeat",
        "Heartbeat",
        3,
        _S,
        "♡",
        "heartbeat",
        recovery=Recovery.DROP,
        informational=True,
        supersedes=Supersede.TYPE,
    ),
    ItemType(
        "memory_consolidation",
        "Memory Consolidation",
        4,
        _S,
        "🧠",
        "internal",
        recovery=Recovery.DROP,
        informational=True,
    ),
    ItemType(
        "callback_result", "Callback Result", 1, _S, "↩", "internal", ttl_s=_4H, informational=True
    ),
)


def activity_type_for(spec: ItemType, extra: Mapping[str, Any]) -> str | None:
    """The activity type an item of ``spec`` creates, or None for no activity (000 §6.3).

    ``extra`` is the item's payload: execution triggers (``triggerExecution``)
    create a ``task`` activity; informational types create one only when
    ``actionRequired`` is set.
    """
    nested = extra.get("extra")
    flags = nested if isinstance(nested, Mapping) else {}
    if extra.get("triggerExecution") or flags.get("triggerExecution"):
        return "task"
    if not spec.creates_activity or spec.activity_type is None:
        return None
    if not spec.invokes_llm and not (extra.get("actionRequired") or flags.get("actionRequired")):
        return None
    return spec.activity_type


class TypeRegistry(Mapping[str, ItemType]):
    """The set of known source types: the 14 built-ins plus registered ones.

    A registry is a read-mostly mapping from type name to :class:`ItemType`.
    """

    def __init__(self, types: tuple[ItemType, ...] = BUILTIN_TYPES) -> None:
        self._types: dict[str, ItemType] = {t.name: t for t in types}

    def __getitem__(self, name: str) -> ItemType:
        return self._types[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._types)

    def __len__(self) -> int:
        return len(self._types)

    def get_type(self, name: object) -> ItemType:
        """Return the type called ``name``.

        Raises:
            UnknownItemType: when no type has that name; the message lists the known ones.
        """
        spec = self._types.get(name) if isinstance(name, str) else None
        if spec is None:
            known = ", ".join(sorted(self._types))
            raise UnknownItemType(f"unknown source type {name!r}; known types: {known}")
        return spec

    def register(self, spec: ItemType, *, replace_existing: bool = False) -> ItemType:
        """Add a user-defined type.

        Args:
            spec: the new type. Its name must match ``[a-z][a-z0-9_]*`` (at most 64
                characters), its priorities must be 0..4 and its label non-empty.
            replace_existing: allow replacing a type of the same name (never a built-in).

        Returns:
            The registered type.

        Raises:
            InvalidInput: when the spec is malformed or the name is taken.
        """
        if not isinstance(spec, ItemType):
            raise InvalidInput(f"expected an ItemType, got {type(spec).__name__}")
        if not _NAME_RE.match(spec.name):
            raise InvalidInput(
                f"type name must match [a-z][a-z0-9_]* (at most 64 characters), got {spec.name!r}"
            )
        validate_priority(spec.default_priority)
        if spec.user_priority is not None:
            validate_priority(spec.user_priority)
        if not spec.label.strip():
            raise InvalidInput(f"type {spec.name!r} needs a non-empty label")
        category = Category(spec.category) if spec.category in set(Category) else None
        if category is None:
            allowed = ", ".join(c.value for c in Category)
            raise InvalidInput(f"category must be one of {allowed}, got {spec.category!r}")
        if spec.ttl_s is not None and spec.ttl_s <= 0:
            raise InvalidInput(f"ttl_s must be positive seconds or None, got {spec.ttl_s!r}")
        if spec.supersedes is not None and not (
            isinstance(spec.supersedes, str) and spec.supersedes in {s.value for s in Supersede}
        ):
            allowed = ", ".join(s.value for s in Supersede)
            raise InvalidInput(
                f"supersedes must be None or one of {allowed}, got {spec.supersedes!r}"
            )
        if spec.supersedes is not None and (spec.user_interaction or spec.protected):
            raise InvalidInput(
                f"type {spec.name!r} is a protected user interaction; it cannot be superseding"
            )
        builtin = {t.name for t in BUILTIN_TYPES}
        if spec.name in self._types and (not replace_existing or spec.name in builtin):
            raise InvalidInput(f"type {spec.name!r} is already registered")
        supersedes = Supersede(spec.supersedes) if spec.supersedes is not None else None
        spec = replace(spec, category=category, supersedes=supersedes)
        self._types[spec.name] = spec
        return spec

    def by_category(self, category: Category | str) -> list[ItemType]:
        """The types in one category, in registration order."""
        return [t for t in self._types.values() if t.category == category]

    def to_list(self) -> list[dict[str, Any]]:
        """Every type as a JSON-ready dict, for the registry endpoint."""
        return [t.to_dict() for t in self._types.values()]


#: The process-wide default registry. Runtimes use it unless given their own.
DEFAULT_REGISTRY = TypeRegistry()
