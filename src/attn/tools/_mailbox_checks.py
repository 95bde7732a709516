"""Argument checks of the mailbox tools: ids, reasons, delays, priorities, memory updates.

Each check raises :class:`~attn.errors.InvalidInput` (or
:class:`~attn.errors.InvalidPriority`) naming the argument, before a tool
changes anything. Text goes through :func:`attn.limits.check_text`.

Spec: 000 §21; DESIGN.md invariant 10 (bad input changes nothing).
"""

from __future__ import annotations

import math
from typing import Literal, NotRequired, TypedDict

from attn.core.deliberation import MemoryUpdate
from attn.core.working_memory import WorkingMemory
from attn.errors import InvalidInput, InvalidPriority
from attn.limits import check_optional_text, check_text, is_finite_number

#: Longest accepted defer delay: 30 days, in minutes.
MAX_DELAY_MINUTES = 30 * 24 * 60
#: Longest item id accepted, in characters.
MAX_ID_CHARS = 200
#: Longest reason (or deliberation reasoning) accepted, in characters.
MAX_REASON_CHARS = 2000
#: Longest batch context or situational awareness accepted, in characters.
MAX_CONTEXT_CHARS = 16_384
#: Most ids in one list argument.
MAX_IDS = 1000
#: Most memory updates in one deliberation.
MAX_MEMORY_UPDATES = 64


class MemoryUpdateArgument(TypedDict):
    """One working-memory write of ``complete_deliberation``, as the model sends it."""

    key: str
    content: str
    type: NotRequired[Literal["working", "longterm"]]


def check_id(value: object, name: str = "item_id") -> str:
    """``value`` stripped, if it is a non-blank id of at most :data:`MAX_ID_CHARS`."""
    return check_text(value, name, max_len=MAX_ID_CHARS).strip()


def check_reason(value: object, name: str = "reason") -> str:
    """``value`` stripped, if it is non-blank text of at most :data:`MAX_REASON_CHARS`."""
    return check_text(value, name, max_len=MAX_REASON_CHARS).strip()


def check_context(value: object, name: str) -> str | None:
    """``value`` as is, if it is None or text of at most :data:`MAX_CONTEXT_CHARS`."""
    return check_optional_text(value, name, max_len=MAX_CONTEXT_CHARS)


def check_ids(value: object, name: str) -> list[str]:
    """A list of item ids, duplicates removed in order; None is an empty list."""
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise InvalidInput(f"{name} must be a list of item ids, got {type(value).__name__}")
    if len(value) > MAX_IDS:
        raise InvalidInput(f"{name} lists {len(value)} ids; the limit is {MAX_IDS}")
    seen: dict[str, None] = {}
    for index, item_id in enumerate(value):
        seen.setdefault(check_id(item_id, f"{name}[{index}]"), None)
    return list(seen)


def check_delay(value: object) -> float | None:
    """A defer delay in minutes: None, or a number in (0, :data:`MAX_DELAY_MINUTES`]."""
    if value is None:
        return None
    if not is_finite_number(value):
        raise InvalidInput(f"delay_minutes must be a number of minutes or null, got {value!r}")
    if not 0 < value <= MAX_DELAY_MINUTES:
        raise InvalidInput(
            f"delay_minutes must be more than 0 and at most "
            f"{MAX_DELAY_MINUTES} (30 days), got {value!r}"
        )
    return float(value)


def round_priority(value: object) -> int:
    """A number in 0..4 rounded half up; anything else is InvalidPriority."""
    if not is_finite_number(value) or not 0 <= value <= 4:
        raise InvalidPriority(
            f"priority must be a number from 0 (critical) to 4 (background), got {value!r}"
        )
    return math.floor(value + 0.5)


def check_memory_updates(value: object, memory: WorkingMemory) -> tuple[MemoryUpdate, ...]:
    """The model's memory updates, each checked as ``memory`` would store it."""
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise InvalidInput(f"memory_updates must be a list, got {type(value).__name__}")
    if len(value) > MAX_MEMORY_UPDATES:
        raise InvalidInput(
            f"memory_updates lists {len(value)} updates; the limit is {MAX_MEMORY_UPDATES}"
        )
    updates = []
    for index, raw in enumerate(value):
        where = f"memory_updates[{index}]"
        if not isinstance(raw, dict):
            raise InvalidInput(
                f"{where} must be an object with key and content, got {type(raw).__name__}"
            )
        extra = sorted(set(raw) - {"key", "content", "type"})
        if extra:
            raise InvalidInput(f"{where} has unknown fields {', '.join(map(repr, extra))}")
        kind = raw.get("type", "working")
        if kind not in ("working", "longterm"):
            raise InvalidInput(f"{where}.type must be 'working' or 'longterm', got {kind!r}")
        try:
            key, content = memory.check(raw.get("key"), raw.get("content"))
        except InvalidInput as exc:
            raise InvalidInput(f"{where}: {exc.message}") from None
        memory_type: Literal["working", "longterm"] = "working" if kind == "working" else "longterm"
        updates.append(MemoryUpdate(key, content, memory_type))
    return tuple(updates)
