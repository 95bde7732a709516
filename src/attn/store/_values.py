"""The value rules of the store's input: one :class:`Rule` per kind of field, one table per record.

A rule is a cheap predicate plus the refusal it raises
(:class:`~attn.errors.StoreError` naming the field), so checking a valid
record builds no message. Used by :mod:`attn.store._checks`, which applies
them to whole write ops. Spec: DESIGN.md invariant 10; 000 §6.2 (columns).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from enum import StrEnum
from operator import attrgetter
from typing import Any, NoReturn

from attn.errors import StoreError, shown
from attn.jsontext import dumps
from attn.limits import json_problem
from attn.models import (
    CallbackStatus,
    CallbackType,
    DecisionType,
    DeliveryMode,
    ItemStatus,
    LogType,
    MailboxItem,
)
from attn.models.memories import MAX_MEMORY_CHARS, MAX_MEMORY_KEY_CHARS
from attn.store.base import ACTIVITY_UPDATE_FIELDS, CALLBACK_UPDATE_FIELDS, ITEM_UPDATE_FIELDS


def json_text(value: Any, what: str) -> str:
    """``value`` as compact JSON text (:func:`attn.jsontext.dumps`).

    Raises:
        StoreError: ``value`` is not JSON-serializable (``what`` names the field).
    """
    try:
        return dumps(value)
    except (TypeError, ValueError, RecursionError) as exc:
        raise StoreError(f"{what} is not JSON-serializable: {exc}") from exc


class Rule:
    """What a field must hold: ``ok(value)`` says whether it does.

    Args:
        ok: the predicate.
        says: the rule in words, as in ``"must be an integer"``.
        nullable: whether None is allowed too.
    """

    __slots__ = ("nullable", "ok", "says")

    def __init__(self, ok: Callable[[Any], bool], says: str, *, nullable: bool = False) -> None:
        self.says = says
        self.nullable = nullable
        self.ok: Callable[[Any], bool] = (lambda v: v is None or ok(v)) if nullable else ok

    def check(self, value: Any, what: str) -> None:
        """Raise :meth:`refuse` unless ``value`` keeps the rule."""
        if not self.ok(value):
            self.refuse(value, what)

    def refuse(self, value: Any, what: str) -> NoReturn:
        """Raise the refusal of ``value`` for the field ``what``.

        Raises:
            StoreError: always, e.g. ``"mailbox item 'm'.priority must be an integer, got 'x'"``.
        """
        raise StoreError(f"{what} {self.says}{' or None' if self.nullable else ''}, got {value!r}")


class _Json(Rule):
    """A JSON value within :mod:`attn.limits`; a JSON object (a dict) when ``is_object``."""

    __slots__ = ("is_object",)

    def __init__(self, *, is_object: bool, nullable: bool = False) -> None:
        def ok(value: Any) -> bool:
            return (not is_object or isinstance(value, dict)) and json_problem(value) is None

        super().__init__(ok, "", nullable=nullable)
        self.is_object = is_object

    def refuse(self, value: Any, what: str) -> NoReturn:
        if self.is_object and not isinstance(value, dict):
            raise StoreError(f"{what} must be a JSON object, got {type(value).__name__}")
        raise StoreError(f"{what}: {json_problem(value)}")


class OneOf(Rule):
    """One of the values of a :class:`~enum.StrEnum`."""

    __slots__ = ("values",)

    def __init__(self, cls: type[StrEnum]) -> None:
        values = frozenset(member.value for member in cls)
        super().__init__(lambda v: isinstance(v, str) and v in values, "")
        self.values = values

    def refuse(self, value: Any, what: str) -> NoReturn:
        expected = sorted(self.values)
        raise StoreError(f"{what}: unknown value {value!r}; expected one of {expected}")


def _aware(value: Any) -> bool:
    return isinstance(value, datetime) and value.utcoffset() is not None


def _seconds(value: Any) -> bool:
    return (
        not isinstance(value, bool) and isinstance(value, int | float) and not json_problem(value)
    )


TEXT = Rule(lambda v: isinstance(v, str), "must be text")
TEXT_OR_NONE = Rule(lambda v: isinstance(v, str), "must be text", nullable=True)
INT = Rule(lambda v: type(v) is int, "must be an integer")
BOOL = Rule(lambda v: type(v) is bool, "must be a bool")
INSTANT = Rule(_aware, "must be a timezone-aware datetime")
INSTANT_OR_NONE = Rule(_aware, "must be a timezone-aware datetime", nullable=True)
SECONDS_OR_NONE = Rule(_seconds, "must be a finite number of seconds", nullable=True)
JSON = _Json(is_object=False)
OBJECT = _Json(is_object=True)
OBJECT_OR_NONE = _Json(is_object=True, nullable=True)
ITEM_STATUS = OneOf(ItemStatus)
CALLBACK_STATUS = OneOf(CallbackStatus)

#: The rule of each column an update may set.
ITEM_COLUMNS: dict[str, Rule] = {
    "priority": INT,
    "status": ITEM_STATUS,
    "payload": OBJECT,
    "metadata": OBJECT,
    "started_at": INSTANT_OR_NONE,
    "completed_at": INSTANT_OR_NONE,
    "deferred_until": INSTANT_OR_NONE,
    "merged_into": TEXT_OR_NONE,
    "attempt": INT,
    "redelivered": BOOL,
    "session": OBJECT_OR_NONE,
    "reason": TEXT_OR_NONE,
}
ACTIVITY_COLUMNS: dict[str, Rule] = {
    "ended_at": INSTANT_OR_NONE,
    "total_tokens": INT,
    "total_tools": INT,
    "success": BOOL,
    "label": TEXT,
}
CALLBACK_COLUMNS: dict[str, Rule] = {
    "due_at": INSTANT_OR_NONE,
    "status": CALLBACK_STATUS,
    "claimed_by": TEXT_OR_NONE,
    "claimed_at": INSTANT_OR_NONE,
    "data": OBJECT,
}
assert ITEM_COLUMNS.keys() == ITEM_UPDATE_FIELDS
assert ACTIVITY_COLUMNS.keys() == ACTIVITY_UPDATE_FIELDS
assert CALLBACK_COLUMNS.keys() == CALLBACK_UPDATE_FIELDS

#: The rule of each field of each record a write op inserts.
Fields = tuple[tuple[str, Rule], ...]
ITEM_FIELDS: Fields = (
    ("id", TEXT),
    ("agent_id", TEXT),
    ("source_type", TEXT),
    ("idempotency_key", TEXT_OR_NONE),
    ("queued_at", INSTANT),
    *((name, rule) for name, rule in ITEM_COLUMNS.items() if rule not in (OBJECT,)),
)
DECISION_FIELDS: Fields = (
    ("id", TEXT),
    ("agent_id", TEXT),
    ("decision_type", OneOf(DecisionType)),
    ("item_id", TEXT),
    ("reasoning", TEXT),
    ("created_at", INSTANT),
    ("context", OBJECT),
    ("outcome", TEXT_OR_NONE),
)
ACTIVITY_FIELDS: Fields = (
    ("id", TEXT),
    ("agent_id", TEXT),
    ("item_id", TEXT_OR_NONE),
    ("type", TEXT),
    ("started_at", INSTANT),
    ("task_id", TEXT_OR_NONE),
    *ACTIVITY_COLUMNS.items(),
)


def _encodable(value: str) -> bool:
    try:
        value.encode()
    except UnicodeEncodeError:
        return False
    return True


class Text(Rule):
    """Text of 1..``most`` characters, not blank; a refusal shows the value cut short."""

    __slots__ = ()

    def __init__(self, most: int, *, nullable: bool = False) -> None:
        def ok(v: Any) -> bool:
            return (
                isinstance(v, str)
                and 0 < len(v) <= most
                and not v.isspace()
                and "\x00" not in v
                and (v.isascii() or _encodable(v))
            )

        says = f"must be 1..{most} characters of Unicode text, not blank, without NUL"
        super().__init__(ok, says, nullable=nullable)

    def refuse(self, value: Any, what: str) -> NoReturn:
        size = f" ({len(value)} characters)" if isinstance(value, str) else ""
        raise StoreError(f"{what} {self.says}, got {shown(value)}{size}")


MEMORY_FIELDS: Fields = (
    ("id", TEXT),
    ("agent_id", TEXT),
    ("content", Text(MAX_MEMORY_CHARS)),
    ("key", Text(MAX_MEMORY_KEY_CHARS, nullable=True)),
    ("created_at", INSTANT),
    ("updated_at", INSTANT),
)
LOG_FIELDS: Fields = (
    ("activity_id", TEXT),
    ("seq", INT),
    ("type", OneOf(LogType)),
    ("content", TEXT),
    ("created_at", INSTANT),
    ("metadata", OBJECT),
)
CALLBACK_FIELDS: Fields = (
    ("id", TEXT),
    ("agent_id", TEXT),
    ("type", OneOf(CallbackType)),
    ("delivery_mode", OneOf(DeliveryMode)),
    ("registered_at", INSTANT),
    ("origin_session_id", TEXT_OR_NONE),
    ("command", TEXT_OR_NONE),
    ("note", TEXT_OR_NONE),
    ("correlation_id", TEXT_OR_NONE),
    ("recurring_s", SECONDS_OR_NONE),
    ("timeout_s", SECONDS_OR_NONE),
    *CALLBACK_COLUMNS.items(),
)


def check_fields(record: Any, fields: Fields, label: Callable[[Any], str]) -> None:
    """Check each field of ``record`` against its rule.

    Args:
        record: the record (a dataclass instance).
        fields: its field table, e.g. :data:`DECISION_FIELDS`.
        label: names the record in a refusal, e.g. ``"decision 'dec_1'"``
            (called only then).

    Raises:
        StoreError: the first field that breaks its rule, named ``label.field``.
    """
    compiled = _COMPILED.get(id(fields))
    if compiled is None:
        names = [name for name, _ in fields]
        # attrgetter of one name returns the value itself, of several a tuple.
        getter = attrgetter(*names) if len(names) > 1 else (lambda r: (getattr(r, names[0]),))
        compiled = _COMPILED[id(fields)] = (getter, tuple(rule.ok for _, rule in fields))
    getter, oks = compiled
    # Every write checks its records, so the valid case reads all fields at once
    # and names nothing; only a refusal walks the table again to name the field.
    for ok, value in zip(oks, getter(record), strict=True):
        if not ok(value):
            break
    else:
        return
    for name, rule in fields:
        value = getattr(record, name)
        if not rule.ok(value):
            rule.refuse(value, f"{label(record)}.{name}")


#: Per field table (the module's constants, by id): one getter and the rules' predicates.
_COMPILED: dict[
    int, tuple[Callable[[Any], tuple[Any, ...]], tuple[Callable[[Any], bool], ...]]
] = {}


def check_key(kind: str, key: Any) -> None:
    """Refuse a record key (an id) that is not text.

    Raises:
        StoreError: ``"<kind> <key> id must be text, got ..."``.
    """
    if not isinstance(key, str):
        TEXT.refuse(key, f"{kind} {key!r} id")


def check_columns(values: Any, rules: dict[str, Rule], kind: str, key: Any) -> None:
    """Refuse columns an update may not set, and values that break their column's rule.

    Args:
        values: the update's column values.
        rules: the rule of each column it may set, e.g. :data:`ITEM_COLUMNS`.
        kind: the record kind, e.g. ``"mailbox item"``.
        key: the record's id.

    Raises:
        StoreError: ``"cannot update <kind> <key> columns [...]; allowed: [...]"``,
            or the refusal of the first bad value.
    """
    if not isinstance(values, dict):
        raise StoreError(
            f"{kind} {key!r}: expected a dict of column values, got {type(values).__name__}"
        )
    for name, value in values.items():
        rule = rules.get(name)
        if rule is None:
            bad = sorted(str(n) for n in values if n not in rules)
            raise StoreError(
                f"cannot update {kind} {key!r} columns {bad}; allowed: {sorted(rules)}"
            )
        if not rule.ok(value):
            rule.refuse(value, f"{kind} {key!r}.{name}")


def check_guard(statuses: Any, rule: Rule, kind: str, key: Any) -> None:
    """Refuse unknown statuses in a status guard (``only_if_status``).

    Raises:
        StoreError: naming the record, the guard and the unknown status.
    """
    if statuses is not None:
        for status in statuses:
            if not rule.ok(status):
                rule.refuse(status, f"{kind} {key!r} status guard")


def item_label(item: Any) -> str:
    """``"mailbox item '<id>'"``."""
    return f"mailbox item {item.id!r}"


def check_item(item: MailboxItem, json_checked: bool) -> None:
    """Check every field of a mailbox item; payload and metadata unless ``json_checked``.

    The common item (plain str ids, UTC instants) passes one quick test; any
    other goes through :data:`ITEM_FIELDS`, which decides and names the field.

    Raises:
        StoreError: naming the item and the field.
    """
    if not (
        type(item.id) is str
        and type(item.agent_id) is str
        and type(item.source_type) is str
        and type(item.priority) is int
        and type(item.status) is ItemStatus
        and type(item.queued_at) is datetime
        and item.queued_at.tzinfo is UTC
        and item.started_at is None
        and item.completed_at is None
        and item.deferred_until is None
        and item.merged_into is None
        and type(item.attempt) is int
        and type(item.redelivered) is bool
        and (item.idempotency_key is None or type(item.idempotency_key) is str)
        and item.reason is None
    ):
        check_fields(item, ITEM_FIELDS, item_label)
    if not (json_checked and type(item.payload) is dict and type(item.metadata) is dict):
        for name in ("payload", "metadata"):
            value = getattr(item, name)
            if not OBJECT.ok(value):
                OBJECT.refuse(value, f"{item_label(item)}.{name}")
    if item.session is not None and not OBJECT.ok(item.session):
        OBJECT.refuse(item.session, f"{item_label(item)}.session")
