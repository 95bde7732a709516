"""Catch-up reads of one agent's mailbox: the items after a mailbox sequence.

A client that reconnects (an MCP client, issue 17) asks for the items whose
``seq`` is above the last one it saw, oldest first, and pages on from the
last ``seq`` of each answer. ``seq`` is the agent's commit order on every
store (see :class:`attn.store.base.ItemQuery`), so nothing is missed or
repeated. This module checks the caller's arguments and builds the store
query; :meth:`attn.runtime.Agent.items_after` runs it.

Spec: issue 17, acceptance MCP-05.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from attn.errors import InvalidInput, shown
from attn.limits import MAX_JSON_INT, check_int
from attn.models import ItemStatus
from attn.store.base import ItemQuery

if TYPE_CHECKING:
    from attn.core.registry import TypeRegistry

#: Default page of a catch-up read (items).
DEFAULT_CATCH_UP_PAGE = 100
#: Largest page of a catch-up read (items).
MAX_CATCH_UP_PAGE = 1000
#: Most entries in one filter list (statuses or source types).
MAX_FILTER_ENTRIES = 100


def catch_up_query(
    registry: TypeRegistry,
    agent_id: str,
    after_seq: object,
    limit: object = DEFAULT_CATCH_UP_PAGE,
    statuses: object = None,
    source_types: object = None,
) -> ItemQuery:
    """The store query of :meth:`attn.runtime.Agent.items_after`, its arguments checked.

    Args:
        registry: the runtime's item types (``source_types`` must name them).
        agent_id: whose items.
        after_seq: only items with a larger ``seq``; 0 .. 2**63-1 (0: from the start).
        limit: most items, 1 .. :data:`MAX_CATCH_UP_PAGE`.
        statuses: item status values to keep (None or empty: any).
        source_types: source types to keep (None or empty: any).

    Raises:
        InvalidInput: ``after_seq`` or ``limit`` not an int (bools refused) in
            range, a filter that is not a list of text (a lone string is refused)
            or holds more than :data:`MAX_FILTER_ENTRIES` entries, or an unknown
            status. UnknownItemType (an InvalidInput): an unknown source type.
    """
    after = check_int(after_seq, "after_seq", low=0, high=MAX_JSON_INT)
    size = check_int(limit, "limit", low=1, high=MAX_CATCH_UP_PAGE)
    wanted_statuses: tuple[ItemStatus, ...] | None = None
    status_names = _names(statuses, "statuses")
    if status_names:
        allowed = {s.value for s in ItemStatus}
        unknown = [s for s in status_names if s not in allowed]
        if unknown:
            raise InvalidInput(
                f"statuses must be among {', '.join(sorted(allowed))}, got {shown(unknown[0])}"
            )
        wanted_statuses = tuple(ItemStatus(s) for s in status_names)
    wanted_types: tuple[str, ...] | None = None
    type_names = _names(source_types, "source_types")
    if type_names:
        wanted_types = tuple(registry.get_type(t).name for t in type_names)
    return ItemQuery(
        agent_id,
        statuses=wanted_statuses,
        source_types=wanted_types,
        limit=size,
        oldest_first=True,
        after_seq=after,
    )


def _names(value: object, what: str) -> tuple[str, ...]:
    """``value``'s distinct entries in order (None: none); refuses anything but a
    list or tuple of strings of at most :data:`MAX_FILTER_ENTRIES` entries."""
    if value is None:
        return ()
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise InvalidInput(f"{what} must be a list of names, got {shown(value)}")
    if len(value) > MAX_FILTER_ENTRIES:
        raise InvalidInput(
            f"{what} must hold at most {MAX_FILTER_ENTRIES} entries, got {len(value):,}"
        )
    for entry in value:
        if not isinstance(entry, str):
            raise InvalidInput(f"{what} must be a list of names, got an entry {shown(entry)}")
    return tuple(dict.fromkeys(value))


__all__ = ["DEFAULT_CATCH_UP_PAGE", "MAX_CATCH_UP_PAGE", "MAX_FILTER_ENTRIES", "catch_up_query"]
