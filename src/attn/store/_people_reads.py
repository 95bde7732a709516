"""The arguments of the people reads, checked once for every backend.

Every backend calls these before it reads, so memory, SQLite and PostgreSQL
refuse the same arguments with the same :class:`~attn.errors.InvalidInput`.
Every number from outside is bounded: pages, offsets and ``before_seq``.

Spec: 000 §12.4 (list notifications with filters and paging), §13.2, §20;
acceptance PPL-01, PPL-04, PPL-17.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from attn.errors import InvalidInput, shown
from attn.limits import MAX_JSON_INT, check_id, check_int
from attn.store._people import APPROVAL_STATES, check_bool, check_one_of

#: Largest page of :meth:`~attn.store.base.Store.find_notifications`.
MAX_NOTIFICATION_PAGE = 500
#: Largest page of :meth:`~attn.store.base.Store.find_approvals`.
MAX_APPROVAL_PAGE = 1_000
#: Largest page of :meth:`~attn.store.base.Store.find_session_messages`.
MAX_SESSION_PAGE = 500
#: Most notifications :meth:`~attn.store.base.Store.find_webhook_pending` answers.
MAX_WEBHOOK_PAGE = 10_000


def check_lookup(value: Any, what: str) -> str:
    """An id a read looks up: a non-blank string of at most 200 characters.

    Raises:
        InvalidInput: naming ``what``.
    """
    return check_id(value, what)


def check_paging(limit: Any, offset: Any, most: int) -> None:
    """A page's ``limit`` (1..``most``) and ``offset`` (0..2**63-1).

    Raises:
        InvalidInput: either is not an integer in its range.
    """
    check_int(limit, "limit", low=1, high=most)
    check_int(offset, "offset", low=0, high=MAX_JSON_INT)


def check_notification_filter(user_id: Any, type: Any, unread_only: Any) -> None:
    """The filter of ``find_notifications`` and ``count_notifications``.

    Raises:
        InvalidInput: a bad user id or type (None is any), or ``unread_only`` not a bool.
    """
    if user_id is not None:
        check_lookup(user_id, "user id")
    if type is not None:
        check_lookup(type, "type")
    check_bool(unread_only, "unread_only")


def check_approval_filter(agent_id: Any, item_id: Any, states: Any) -> list[str] | None:
    """The filter of ``find_approvals`` and ``count_approvals``; the states' values,
    distinct and sorted (None: any state; ``()`` matches none).

    Raises:
        InvalidInput: a bad agent or item id, or ``states`` is not a sequence of
            approval states.
    """
    if agent_id is not None:
        check_lookup(agent_id, "agent id")
    if item_id is not None:
        check_lookup(item_id, "item id")
    if states is None:
        return None
    if isinstance(states, str | bytes) or not isinstance(states, Sequence):
        raise InvalidInput(f"states must be a tuple of approval states, got {shown(states)}")
    if len(states) > len(APPROVAL_STATES) * 4:
        raise InvalidInput(
            f"states names at most {len(APPROVAL_STATES) * 4} states, got {len(states)}"
        )
    for state in states:
        check_one_of(state, "states", APPROVAL_STATES)
    return sorted({str(s) for s in states})


def check_session_read(
    agent_id: Any, session_id: Any, before_seq: Any, limit: Any, include_activity: Any
) -> None:
    """The arguments of ``find_session_messages``.

    Raises:
        InvalidInput: a bad agent or session id, ``before_seq`` neither None nor
            an integer in 0..2**63-1, ``limit`` outside 1..500, or
            ``include_activity`` not a bool.
    """
    check_lookup(agent_id, "agent id")
    check_lookup(session_id, "session id")
    if before_seq is not None:
        check_int(before_seq, "before_seq", low=0, high=MAX_JSON_INT)
    check_int(limit, "limit", low=1, high=MAX_SESSION_PAGE)
    check_bool(include_activity, "include_activity")


def check_webhook_limit(limit: Any) -> None:
    """``find_webhook_pending``'s limit.

    Raises:
        InvalidInput: not an integer in 1..10,000.
    """
    check_int(limit, "limit", low=1, high=MAX_WEBHOOK_PAGE)
