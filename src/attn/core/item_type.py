"""Mailbox item types: what attn knows about one source type, and its one JSON form.

An :class:`ItemType` holds a type's facts (label, default priority, category,
icon, activity type, flags); :func:`check_item_type` holds the rules a type
must keep to be registered. ``GET /api/types`` and trace file headers both use
:meth:`ItemType.to_dict` / :meth:`ItemType.from_dict`. The table of types is
:mod:`attn.core.registry`.

Spec: 000 §3.1–3.3. The recovery, time-to-live and text rules are attn's
(DESIGN.md, "Where the seeds are silent").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import IntEnum, StrEnum
from typing import Any

from attn.errors import InvalidInput, InvalidPriority
from attn.limits import json_kind


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
        """Every field as a JSON object (camelCase keys), readable by :meth:`from_dict`.

        The one JSON form of a type: ``GET /api/types`` serves it and trace
        file headers store it.
        """
        return {key: _json_value(getattr(self, attr)) for key, (attr, _) in _JSON_FIELDS.items()}

    @classmethod
    def from_dict(cls, data: object) -> ItemType:
        """The type :meth:`to_dict` wrote, checked by :func:`check_item_type`.

        Only ``name``, ``label``, ``defaultPriority`` and ``category`` are
        required; a missing field takes its default (``icon`` is ``"•"``).

        Raises:
            InvalidInput: not an object, a missing or unknown field, a field of
                the wrong JSON type, or a type the registry would refuse.
        """
        if not isinstance(data, dict):
            raise InvalidInput(f"an item type must be a JSON object, got {json_kind(data)}")
        unknown = sorted(str(key) for key in set(data) - set(_JSON_FIELDS))
        if unknown:
            raise InvalidInput(f"item type has unknown fields: {', '.join(unknown)}")
        kwargs: dict[str, Any] = {"icon": "•"}
        for key, (attr, kinds) in _JSON_FIELDS.items():
            if key not in data:
                if key in _REQUIRED_JSON_FIELDS:
                    raise InvalidInput(f"item type is missing {key!r}")
                continue
            value = data[key]
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
                raise InvalidInput(f"item type field {key!r} has the wrong type: {value!r}")
            kwargs[attr] = value
        recovery = kwargs.get("recovery", Recovery.REQUEUE)
        if recovery not in {r.value for r in Recovery}:
            raise InvalidInput(f"recovery must be requeue or drop, got {recovery!r}")
        kwargs["recovery"] = Recovery(recovery)
        return check_item_type(cls(**kwargs))  # checks and normalizes the category


_NULLABLE_STR = (str, type(None))
#: JSON key -> (ItemType field, accepted JSON types), in field order.
_JSON_FIELDS: dict[str, tuple[str, tuple[type, ...]]] = {
    "name": ("name", (str,)),
    "label": ("label", (str,)),
    "defaultPriority": ("default_priority", (int,)),
    "category": ("category", (str,)),
    "icon": ("icon", (str,)),
    "activityType": ("activity_type", _NULLABLE_STR),
    "createsActivity": ("creates_activity", (bool,)),
    "invokesLLM": ("invokes_llm", (bool,)),
    "requiresText": ("requires_text", (bool,)),
    "userPriority": ("user_priority", (int, type(None))),
    "preemptable": ("preemptable", (bool,)),
    "protected": ("protected", (bool,)),
    "userInteraction": ("user_interaction", (bool,)),
    "recovery": ("recovery", (str,)),
    "ttlS": ("ttl_s", (int, float, type(None))),
    "informational": ("informational", (bool,)),
    "mergeKey": ("merge_key", _NULLABLE_STR),
    "supersedes": ("supersedes", _NULLABLE_STR),
    "description": ("description", (str,)),
}
_REQUIRED_JSON_FIELDS = frozenset({"name", "label", "defaultPriority", "category"})


def _json_value(value: object) -> object:
    return str(value) if isinstance(value, StrEnum) else value


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


def check_item_type(spec: object) -> ItemType:
    """``spec`` with its enums normalized, if the registry accepts it.

    Args:
        spec: the type to check. Its name must match ``[a-z][a-z0-9_]*`` (at most
            64 characters), its priorities must be 0..4, its label non-empty,
            its ``ttl_s`` positive seconds or None, and a superseding type may
            not be a protected user interaction.

    Returns:
        A copy with ``category`` and ``supersedes`` as enum members.

    Raises:
        InvalidInput: naming the field that breaks a rule.
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
        raise InvalidInput(f"supersedes must be None or one of {allowed}, got {spec.supersedes!r}")
    if spec.supersedes is not None and (spec.user_interaction or spec.protected):
        raise InvalidInput(
            f"type {spec.name!r} is a protected user interaction; it cannot be superseding"
        )
    supersedes = Supersede(spec.supersedes) if spec.supersedes is not None else None
    return replace(spec, category=category, supersedes=supersedes)
