"""People records on PostgreSQL: the statements, rows ↔ records, the writes and the reads.

A session message insert first takes the transaction-scoped advisory lock that
channel message inserts take (:data:`~attn.store.postgres.queries.SEQ_LOCK`),
so inserts commit one at a time and ``seq`` (a bigserial over all sessions)
follows commit order: a page's ``before_seq`` never skips a message that
commits later with a smaller ``seq``. One lock for both tables, so no two
transactions wait for each other in opposite orders. A repeated id is refused
by the primary key (a :class:`~attn.errors.StoreError`, the write rolled back).
Ids order by code point (``COLLATE "C"``), as on the other stores.
:class:`PeopleReads` gives :class:`~attn.store.postgres.PostgresStore` the
people reads of the port.

Spec: 000 §12.1, §13.2, §20; acceptance PPL-01..09, PPL-17.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import asyncpg

from attn.models.people import (
    ActionType,
    Approval,
    ApprovalState,
    Notification,
    NotificationPriority,
    SessionMessage,
    SessionRole,
)
from attn.store._people import PeopleOp
from attn.store._people_columns import (
    json_column,
    object_of,
    options_of,
    options_text,
    stored_approval,
    stored_message,
    stored_notification,
    target_of,
)
from attn.store._people_reads import (
    MAX_APPROVAL_PAGE,
    MAX_NOTIFICATION_PAGE,
    check_approval_filter,
    check_lookup,
    check_notification_filter,
    check_paging,
    check_session_read,
    check_webhook_limit,
)
from attn.store.base import (
    InsertApproval,
    InsertNotification,
    MarkNotificationsRead,
    SetNotificationWebhook,
    UpdateApproval,
)
from attn.store.postgres.queries import SEQ_LOCK

if TYPE_CHECKING:
    from attn.store.postgres.writes import Connection

#: A write that runs its own statements on the transaction's connection.
Call = Callable[["Connection"], Awaitable[Any]]

_NOTIFICATION = (
    "id, user_id, type, title, body, priority, read, action_type, action_target, metadata,"
    " created_at, webhook"
)
_APPROVAL = (
    "id, agent_id, item_id, user_id, title, description, options, allow_freeform, priority,"
    " created_at, expires_at, related_task_id, state, selected_option, comment, answered_by,"
    " answered_at, notification_id, context"
)
_MESSAGE = "seq, id, agent_id, session_id, role, content, metadata, created_at"


def _placeholders(n: int) -> str:
    return ", ".join(f"${i}" for i in range(1, n + 1))


_INSERT_NOTIFICATION = (
    f"INSERT INTO user_notifications ({_NOTIFICATION}) VALUES ({_placeholders(12)})"
)
_MARK_READ = "UPDATE user_notifications SET read = true WHERE user_id = $1 AND NOT read"
_MARK_READ_IDS = f"{_MARK_READ} AND id = ANY($2::text[])"
_SET_WEBHOOK = "UPDATE user_notifications SET webhook = $1 WHERE id = $2"
_INSERT_APPROVAL = f"INSERT INTO approvals ({_APPROVAL}) VALUES ({_placeholders(19)})"
_INSERT_MESSAGE = """
INSERT INTO session_messages (id, agent_id, session_id, role, content, metadata, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING seq
"""

_GET_NOTIFICATION = f"SELECT {_NOTIFICATION} FROM user_notifications WHERE id = $1"
# Served by idx_notifications_webhook (webhook, created_at).
_WEBHOOK_PENDING = (
    f"SELECT {_NOTIFICATION} FROM user_notifications WHERE webhook = 'pending'"
    ' ORDER BY created_at, id COLLATE "C" LIMIT $1'
)
_GET_APPROVAL = f"SELECT {_APPROVAL} FROM approvals WHERE id = $1"


@lru_cache(maxsize=8)
def _session_page(bounded: bool, include_activity: bool) -> str:
    # The newest rows below the bound, walked down idx_session_messages_session, then oldest first.
    below = " AND seq < $3" if bounded else ""
    chat = "" if include_activity else " AND role <> 'activity'"
    return (
        f"SELECT * FROM (SELECT {_MESSAGE} FROM session_messages"
        f" WHERE agent_id = $1 AND session_id = $2{below}{chat}"
        f" ORDER BY seq DESC LIMIT ${4 if bounded else 3}) AS page ORDER BY seq"
    )


@lru_cache(maxsize=64)
def _update_approval(names: tuple[str, ...], guarded: bool) -> str:
    sets = ", ".join(f"{name} = ${n}" for n, name in enumerate(names, start=2))
    guard = f" AND state = ANY(${len(names) + 2}::text[])" if guarded else ""
    return f"UPDATE approvals SET {sets} WHERE id = $1{guard}"


# -- rows ↔ records -------------------------------------------------------------------


def decode_notification(row: asyncpg.Record) -> Notification:
    """A :class:`~attn.models.people.Notification` from a row of ``user_notifications``."""
    (id_, user_id, type_, title, body, priority, read, action_type, action_target, metadata,
     created_at, webhook) = row  # fmt: skip
    return Notification(
        id_, user_id, type_, title, body, NotificationPriority(priority), created_at, read,
        ActionType(action_type), target_of(action_target), object_of(metadata), webhook,
    )  # fmt: skip


def decode_approval(row: asyncpg.Record) -> Approval:
    """An :class:`~attn.models.people.Approval` from a row of ``approvals``."""
    (id_, agent_id, item_id, user_id, title, description, options, allow_freeform, priority,
     created_at, expires_at, related_task_id, state, selected_option, comment, answered_by,
     answered_at, notification_id, context) = row  # fmt: skip
    return Approval(
        id_, agent_id, item_id, user_id, title, description, options_of(options), created_at,
        allow_freeform, NotificationPriority(priority), expires_at, related_task_id,
        ApprovalState(state), selected_option, comment, answered_by, answered_at,
        notification_id, object_of(context),
    )  # fmt: skip


def decode_message(row: asyncpg.Record) -> SessionMessage:
    """A :class:`~attn.models.people.SessionMessage` from a row of ``session_messages``."""
    seq, id_, agent_id, session_id, role, content, metadata, created_at = row
    return SessionMessage(
        id_, agent_id, session_id, SessionRole(role), content, created_at, object_of(metadata), seq
    )


def _column(name: str, value: Any) -> Any:
    """One :class:`~attn.store.ops.UpdateApproval` value as its column holds it."""
    if name == "context":
        return json_column(value)
    if name == "answered_at" or value is None:
        return value
    return str(value)


# -- writes ---------------------------------------------------------------------------


def _changed(status: str) -> int:
    return int(status.rsplit(" ", 1)[-1])  # "UPDATE n": how many rows changed


def _execute(sql: str, args: Sequence[Any], result: Callable[[str], Any]) -> Call:
    async def call(conn: Connection) -> Any:
        return result(await conn.execute(sql, *args))

    return call


def compile_op(op: PeopleOp) -> tuple[Call, bool]:
    """One checked people op as a call on the transaction's connection (its result),
    and whether it is a single statement (atomic without a transaction).

    The call of an insert whose id is stored raises asyncpg's unique violation,
    which the store answers as a :class:`~attn.errors.StoreError`.
    """
    args: tuple[Any, ...]
    if isinstance(op, InsertNotification):
        n = op.notification
        args = (n.id, n.user_id, n.type, n.title, n.body, str(n.priority), n.read,
                str(n.action_type), json_column(n.action_target), json_column(n.metadata),
                n.created_at, n.webhook)  # fmt: skip
        return _execute(_INSERT_NOTIFICATION, args, lambda _s: stored_notification(n)), True
    if isinstance(op, MarkNotificationsRead):
        if op.ids is None:
            return _execute(_MARK_READ, (op.user_id,), _changed), True
        return _execute(_MARK_READ_IDS, (op.user_id, list(op.ids)), _changed), True
    if isinstance(op, SetNotificationWebhook):
        args = (op.webhook, op.notification_id)
        return _execute(_SET_WEBHOOK, args, lambda s: _changed(s) > 0), True
    if isinstance(op, InsertApproval):
        a = op.approval
        args = (a.id, a.agent_id, a.item_id, a.user_id, a.title, a.description,
                options_text(a.options), a.allow_freeform, str(a.priority), a.created_at,
                a.expires_at, a.related_task_id, str(a.state), a.selected_option,
                a.comment, a.answered_by, a.answered_at, a.notification_id,
                json_column(a.context))  # fmt: skip
        return _execute(_INSERT_APPROVAL, args, lambda _s: stored_approval(a)), True
    if isinstance(op, UpdateApproval):
        names = tuple(sorted(op.values))
        guard = op.only_if_state
        args = (op.approval_id, *(_column(name, op.values[name]) for name in names),
                *(() if guard is None else ([str(s) for s in guard],)))  # fmt: skip
        sql = _update_approval(names, guard is not None)
        return _execute(sql, args, lambda s: _changed(s) > 0), True
    m = op.message
    args = (m.id, m.agent_id, m.session_id, str(m.role), m.content, json_column(m.metadata),
            m.created_at)  # fmt: skip

    async def insert_message(conn: Connection) -> SessionMessage:
        await conn.execute(SEQ_LOCK)
        return stored_message(m, await conn.fetchval(_INSERT_MESSAGE, *args))

    return insert_message, False  # two statements: the lock, then the insert


# -- reads ----------------------------------------------------------------------------


def _where(pairs: Sequence[tuple[str, Any]], *flags: str) -> tuple[str, list[Any]]:
    """The WHERE clause of the ``(clause, value)`` pairs whose value is not None (each
    clause's ``{}`` becomes its placeholder), and their values."""
    parts: list[str] = []
    args: list[Any] = []
    for clause, value in pairs:
        if value is not None:
            args.append(value)
            parts.append(clause.format(f"${len(args)}"))
    parts += flags
    return (f" WHERE {' AND '.join(parts)}" if parts else ""), args


def _notification_filter(user_id: Any, type: Any, unread_only: Any) -> tuple[str, list[Any]]:
    check_notification_filter(user_id, type, unread_only)
    flags = ("NOT read",) if unread_only else ()
    return _where((("user_id = {}", user_id), ("type = {}", type)), *flags)


def _approval_filter(agent_id: Any, item_id: Any, states: Any) -> tuple[str, list[Any]]:
    wanted = check_approval_filter(agent_id, item_id, states)
    # An empty array matches no state: no state asked for, nothing matches.
    pairs = (("agent_id = {}", agent_id), ("item_id = {}", item_id),
             ("state = ANY({}::text[])", wanted))  # fmt: skip
    return _where(pairs)


def _page(args: list[Any]) -> str:
    return f" LIMIT ${len(args) + 1} OFFSET ${len(args) + 2}"


class PeopleReads(ABC):
    """The people reads of the :class:`~attn.store.base.Store` port (000 §12, §13, §20);
    the store supplies :meth:`_fetch` (one pooled statement)."""

    @abstractmethod
    async def _fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        """The rows of one statement."""

    async def get_notification(self, notification_id: str) -> Notification | None:
        """The notification with that id, or None."""
        key = check_lookup(notification_id, "notification id")
        rows = await self._fetch(_GET_NOTIFICATION, key)
        return decode_notification(rows[0]) if rows else None

    async def find_notifications(
        self,
        user_id: str | None = None,
        *,
        type: str | None = None,
        unread_only: bool = False,
        limit: int = 50,
        offset: int = 0,
    ) -> list[Notification]:
        """Notifications newest first (``created_at``, then id; see the protocol).

        Raises:
            InvalidInput: a bad filter, ``limit`` not in 1..500 or ``offset`` negative.
        """
        where, args = _notification_filter(user_id, type, unread_only)
        check_paging(limit, offset, MAX_NOTIFICATION_PAGE)
        sql = (
            f"SELECT {_NOTIFICATION} FROM user_notifications{where}"
            f' ORDER BY created_at DESC, id COLLATE "C" DESC{_page(args)}'
        )
        return [decode_notification(row) for row in await self._fetch(sql, *args, limit, offset)]

    async def count_notifications(
        self, user_id: str | None = None, *, type: str | None = None, unread_only: bool = False
    ) -> int:
        """How many notifications :meth:`find_notifications` would page through."""
        where, args = _notification_filter(user_id, type, unread_only)
        rows = await self._fetch(f"SELECT count(*) FROM user_notifications{where}", *args)
        return int(rows[0][0])

    async def find_webhook_pending(self, limit: int = 100) -> list[Notification]:
        """Notifications whose webhook delivery is ``pending``, oldest first.

        Raises:
            InvalidInput: ``limit`` not in 1..10,000.
        """
        check_webhook_limit(limit)
        return [decode_notification(row) for row in await self._fetch(_WEBHOOK_PENDING, limit)]

    async def get_approval(self, approval_id: str) -> Approval | None:
        """The approval with that id, or None."""
        rows = await self._fetch(_GET_APPROVAL, check_lookup(approval_id, "approval id"))
        return decode_approval(rows[0]) if rows else None

    async def find_approvals(
        self,
        *,
        agent_id: str | None = None,
        item_id: str | None = None,
        states: tuple[ApprovalState, ...] | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Approval]:
        """Approvals oldest first (``created_at``, then id; see the protocol).

        Raises:
            InvalidInput: a bad filter, ``limit`` not in 1..1000 or ``offset`` negative.
        """
        where, args = _approval_filter(agent_id, item_id, states)
        check_paging(limit, offset, MAX_APPROVAL_PAGE)
        sql = (
            f"SELECT {_APPROVAL} FROM approvals{where}"
            f' ORDER BY created_at, id COLLATE "C"{_page(args)}'
        )
        return [decode_approval(row) for row in await self._fetch(sql, *args, limit, offset)]

    async def count_approvals(
        self,
        *,
        agent_id: str | None = None,
        item_id: str | None = None,
        states: tuple[ApprovalState, ...] | None = None,
    ) -> int:
        """How many approvals :meth:`find_approvals` would page through."""
        where, args = _approval_filter(agent_id, item_id, states)
        rows = await self._fetch(f"SELECT count(*) FROM approvals{where}", *args)
        return int(rows[0][0])

    async def find_session_messages(
        self,
        agent_id: str,
        session_id: str = "main",
        *,
        before_seq: int | None = None,
        limit: int = 50,
        include_activity: bool = True,
    ) -> list[SessionMessage]:
        """The newest ``limit`` messages below ``before_seq``, oldest first (see the protocol).

        Raises:
            InvalidInput: bad ids or ``before_seq``, ``limit`` not in 1..500, or
                ``include_activity`` not a bool.
        """
        check_session_read(agent_id, session_id, before_seq, limit, include_activity)
        sql = _session_page(before_seq is not None, include_activity)
        bound = () if before_seq is None else (before_seq,)
        rows = await self._fetch(sql, agent_id, session_id, *bound, limit)
        return [decode_message(row) for row in rows]
