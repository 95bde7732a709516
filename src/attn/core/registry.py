"""The type registry: the one table of mailbox item types.

Every module reads type facts (label, default priority, category, icon,
activity type, flags) from here; no other module hard-codes a type name's
behaviour. Users add their own types with :meth:`TypeRegistry.register`; the
rules a type keeps are :func:`attn.core.item_type.check_item_type`.

Spec: 000 §3.1–3.3, §6.3.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from attn.core.item_type import HOUR_S, Category, ItemType, Recovery, Supersede, check_item_type
from attn.errors import InvalidInput, UnknownItemType

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
    # Seed 002: the communication records of a spawn tree. Unread mail never expires.
    ItemType("agent_mail", "Agent Mail", 2, _I, "✉", "a2a", requires_text=True, ttl_s=None),
    ItemType("agent_result", "Agent Result", 2, _I, "⮐", "a2a", requires_text=True, ttl_s=None),
    ItemType(
        "agent_execution", "Agent Execution", 2, _S, "⚙", "a2a", requires_text=True, ttl_s=None
    ),
    # Seed 003: a command-line worker asked its leader for a decision (supervisor
    # contact), or reported to it (an outbox message, its exit). A question never expires.
    ItemType(
        "worker_contact", "Worker Question", 1, _I, "❓", "a2a", requires_text=True, ttl_s=None
    ),
    ItemType("worker_message", "Worker Message", 2, _I, "🛠", "a2a", requires_text=True, ttl_s=None),
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
        spec = check_item_type(spec)
        builtin = {t.name for t in BUILTIN_TYPES}
        if spec.name in self._types and (not replace_existing or spec.name in builtin):
            raise InvalidInput(f"type {spec.name!r} is already registered")
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
