"""People records on SQLite: the statements, rows ↔ records, the writer's runs and the reads.

A session message's ``seq`` is the table's ``INTEGER PRIMARY KEY`` (the
rowid), given inside the writer's ``BEGIN IMMEDIATE`` transaction, so it
follows commit order over all sessions, as ``channel_messages.seq`` does. A
repeated notification, approval or message id is refused by the primary key
(a :class:`~attn.errors.StoreError`; the writer rolls the call back). Update
statements are built from the column allow-list, never from caller text.
:class:`PeopleReads` gives :class:`~attn.store.sqlite.SQLiteStore` the people
reads of the port.

Spec: 000 §12.1, §13.2, §20; acceptance PPL-01..09, PPL-17.
"""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Callable
from datetime import datetime
from functools import lru_cache
from typing import Any, TypeVar

from attn.jsontext import dumps
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
    InsertSessionMessage,
    MarkNotificationsRead,
    SetNotificationWebhook,
    UpdateApproval,
)
from attn.store.sqlite.codec import Row, encode_instant, instant_or_none
from attn.store.sqlite.reads import Read

_T = TypeVar("_T")
_R = TypeVar("_R")

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

_INSERT_NOTIFICATION = (
    f"INSERT INTO user_notifications ({_NOTIFICATION}) VALUES ({', '.join('?' * 12)})"
)
_MARK_READ = "UPDATE user_notifications SET read = 1 WHERE user_id = ? AND read = 0"
_MARK_READ_IDS = f"{_MARK_READ} AND id IN (SELECT value FROM json_each(?))"
_SET_WEBHOOK = "UPDATE user_notifications SET webhook = ? WHERE id = ?"
_INSERT_APPROVAL = f"INSERT INTO approvals ({_APPROVAL}) VALUES ({', '.join('?' * 19)})"
_INSERT_MESSAGE = (
    "INSERT INTO session_messages (id, agent_id, session_id, role, content, metadata,"
    " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
)

_GET_NOTIFICATION = f"SELECT {_NOTIFICATION} FROM user_notifications WHERE id = ?"
# Served by idx_notifications_webhook (webhook, created_at).
_WEBHOOK_PENDING = (
    f"SELECT {_NOTIFICATION} FROM user_notifications WHERE webhook = 'pending'"
    " ORDER BY created_at, id LIMIT ?"
)
_GET_APPROVAL = f"SELECT {_APPROVAL} FROM approvals WHERE id = ?"


def _where(*parts: str | None) -> str:
    given = [part for part in parts if part is not None]
    return f" WHERE {' AND '.join(given)}" if given else ""


@lru_cache(maxsize=8)
def _session_page(bounded: bool, include_activity: bool) -> str:
    # The newest rows below the bound, walked down idx_session_messages_session, then oldest first.
    below = " AND seq < ?" if bounded else ""
    chat = "" if include_activity else " AND role <> 'activity'"
    return (
        f"SELECT * FROM (SELECT {_MESSAGE} FROM session_messages"
        f" WHERE agent_id = ? AND session_id = ?{below}{chat} ORDER BY seq DESC LIMIT ?)"
        " ORDER BY seq"
    )


@lru_cache(maxsize=64)
def _update_approval(names: tuple[str, ...], n_guard: int | None) -> str:
    sets = ", ".join(f"{name} = ?" for name in names)
    guard = "" if n_guard is None else f" AND state IN ({', '.join('?' * n_guard)})"
    return f"UPDATE approvals SET {sets} WHERE id = ?{guard}"


# -- rows ↔ records -------------------------------------------------------------------


def _instant(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def decode_notification(row: Row) -> Notification:
    """A :class:`~attn.models.people.Notification` from a row of ``user_notifications``."""
    (id_, user_id, type_, title, body, priority, read, action_type, action_target, metadata,
     created_at, webhook) = row  # fmt: skip
    return Notification(
        id_, user_id, type_, title, body, NotificationPriority(priority),
        datetime.fromisoformat(created_at), bool(read), ActionType(action_type),
        target_of(action_target), object_of(metadata), webhook,
    )  # fmt: skip


def decode_approval(row: Row) -> Approval:
    """An :class:`~attn.models.people.Approval` from a row of ``approvals``."""
    (id_, agent_id, item_id, user_id, title, description, options, allow_freeform, priority,
     created_at, expires_at, related_task_id, state, selected_option, comment, answered_by,
     answered_at, notification_id, context) = row  # fmt: skip
    return Approval(
        id_, agent_id, item_id, user_id, title, description, options_of(options),
        datetime.fromisoformat(created_at), bool(allow_freeform), NotificationPriority(priority),
        _instant(expires_at), related_task_id, ApprovalState(state), selected_option, comment,
        answered_by, _instant(answered_at), notification_id, object_of(context),
    )  # fmt: skip


def decode_message(row: Row) -> SessionMessage:
    """A :class:`~attn.models.people.SessionMessage` from a row of ``session_messages``."""
    seq, id_, agent_id, session_id, role, content, metadata, created_at = row
    return SessionMessage(
        id_, agent_id, session_id, SessionRole(role), content,
        datetime.fromisoformat(created_at), object_of(metadata), seq,
    )  # fmt: skip


def _approval_params(a: Approval) -> Row:
    return (a.id, a.agent_id, a.item_id, a.user_id, a.title, a.description,
            options_text(a.options), 1 if a.allow_freeform else 0, str(a.priority),
            encode_instant(a.created_at), instant_or_none(a.expires_at), a.related_task_id,
            str(a.state), a.selected_option, a.comment, a.answered_by,
            instant_or_none(a.answered_at), a.notification_id, json_column(a.context))  # fmt: skip


def _column(name: str, value: Any) -> Any:
    """One :class:`~attn.store.ops.UpdateApproval` value as its column holds it."""
    if name == "answered_at":
        return instant_or_none(value)
    if name == "context":
        return json_column(value)
    return None if value is None else str(value)


# -- the writer's runs ----------------------------------------------------------------


def _count(statement: str, params: Row) -> Any:
    """A run that answers how many rows ``statement`` changed."""

    def run(cur: sqlite3.Cursor) -> int:
        return cur.execute(statement, params).rowcount

    return run


def compile_op(op: PeopleOp) -> tuple[Any, Any]:
    """The writer's run of one checked people op and its finisher (None: the run's
    value is the op's result).

    The run of an insert whose id is stored raises :class:`sqlite3.IntegrityError`,
    which the writer answers as a :class:`~attn.errors.StoreError`.
    """
    if isinstance(op, InsertNotification):
        n = op.notification
        params = (n.id, n.user_id, n.type, n.title, n.body, str(n.priority), 1 if n.read else 0,
                  str(n.action_type), json_column(n.action_target), json_column(n.metadata),
                  encode_instant(n.created_at), n.webhook)  # fmt: skip
        return _count(_INSERT_NOTIFICATION, params), lambda _raw: stored_notification(n)
    if isinstance(op, MarkNotificationsRead):
        if op.ids is None:
            return _count(_MARK_READ, (op.user_id,)), None
        return _count(_MARK_READ_IDS, (op.user_id, dumps(list(op.ids)))), None
    if isinstance(op, SetNotificationWebhook):
        run = _count(_SET_WEBHOOK, (op.webhook, op.notification_id))
        return run, lambda changed: changed > 0
    if isinstance(op, InsertApproval):
        a = op.approval
        return _count(_INSERT_APPROVAL, _approval_params(a)), lambda _raw: stored_approval(a)
    if isinstance(op, UpdateApproval):
        names = tuple(sorted(op.values))
        guard = op.only_if_state
        params = (*(_column(name, op.values[name]) for name in names), op.approval_id,
                  *(str(s) for s in guard or ()))  # fmt: skip
        statement = _update_approval(names, None if guard is None else len(guard))
        return _count(statement, params), lambda changed: changed > 0
    return _insert_message(op)


def _insert_message(op: InsertSessionMessage) -> tuple[Any, Any]:
    m = op.message
    params = (m.id, m.agent_id, m.session_id, str(m.role), m.content, json_column(m.metadata),
              encode_instant(m.created_at))  # fmt: skip

    def run(cur: sqlite3.Cursor) -> int:
        return cur.execute(_INSERT_MESSAGE, params).lastrowid or 0

    return run, lambda seq: stored_message(m, seq)


# -- reads ----------------------------------------------------------------------------


def _rows(statement: str, params: Row) -> Any:
    def run(cur: sqlite3.Cursor) -> list[Row]:
        return cur.execute(statement, params).fetchall()

    return run


def _first(decode: Callable[[Row], _T]) -> Callable[[list[Row]], _T | None]:
    return lambda rows: decode(rows[0]) if rows else None


def _all(decode: Callable[[Row], _T]) -> Callable[[list[Row]], list[_T]]:
    return lambda rows: [decode(row) for row in rows]


def _count_of(rows: list[Row]) -> int:
    return int(rows[0][0])


def _notification_filter(user_id: Any, type: Any, unread_only: Any) -> tuple[str, Row]:
    check_notification_filter(user_id, type, unread_only)
    # Only the filters given, so idx_notifications_user serves a person's bell.
    user = None if user_id is None else "user_id = ?"
    where = _where(user, None if type is None else "type = ?", "read = 0" if unread_only else None)
    return where, tuple(v for v in (user_id, type) if v is not None)


def _approval_filter(agent_id: Any, item_id: Any, states: Any) -> tuple[str, Row]:
    wanted = check_approval_filter(agent_id, item_id, states)
    # SQLite takes an empty IN list: no state asked for, nothing matches.
    in_states = None if wanted is None else f"state IN ({', '.join('?' * len(wanted))})"
    agent = None if agent_id is None else "agent_id = ?"
    item = None if item_id is None else "item_id = ?"
    params = (*(v for v in (agent_id, item_id) if v is not None), *(wanted or ()))
    return _where(agent, item, in_states), params


class PeopleReads(ABC):
    """The people reads of the :class:`~attn.store.base.Store` port (000 §12, §13, §20);
    the store supplies :meth:`_read` (the reader thread)."""

    @abstractmethod
    async def _read(self, read: Read[_T]) -> _T:
        """Run ``read`` on the reader thread."""

    async def _query(self, statement: str, params: Row, finish: Callable[[list[Row]], _R]) -> _R:
        return await self._read(Read(_rows(statement, params), finish))

    async def get_notification(self, notification_id: str) -> Notification | None:
        """The notification with that id, or None."""
        key = check_lookup(notification_id, "notification id")
        return await self._query(_GET_NOTIFICATION, (key,), _first(decode_notification))

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
        where, params = _notification_filter(user_id, type, unread_only)
        check_paging(limit, offset, MAX_NOTIFICATION_PAGE)
        sql = (
            f"SELECT {_NOTIFICATION} FROM user_notifications{where}"
            " ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?"
        )
        return await self._query(sql, (*params, limit, offset), _all(decode_notification))

    async def count_notifications(
        self, user_id: str | None = None, *, type: str | None = None, unread_only: bool = False
    ) -> int:
        """How many notifications :meth:`find_notifications` would page through."""
        where, params = _notification_filter(user_id, type, unread_only)
        sql = f"SELECT count(*) FROM user_notifications{where}"
        return await self._query(sql, params, _count_of)

    async def find_webhook_pending(self, limit: int = 100) -> list[Notification]:
        """Notifications whose webhook delivery is ``pending``, oldest first.

        Raises:
            InvalidInput: ``limit`` not in 1..10,000.
        """
        check_webhook_limit(limit)
        return await self._query(_WEBHOOK_PENDING, (limit,), _all(decode_notification))

    async def get_approval(self, approval_id: str) -> Approval | None:
        """The approval with that id, or None."""
        key = check_lookup(approval_id, "approval id")
        return await self._query(_GET_APPROVAL, (key,), _first(decode_approval))

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
        where, params = _approval_filter(agent_id, item_id, states)
        check_paging(limit, offset, MAX_APPROVAL_PAGE)
        sql = f"SELECT {_APPROVAL} FROM approvals{where} ORDER BY created_at, id LIMIT ? OFFSET ?"
        return await self._query(sql, (*params, limit, offset), _all(decode_approval))

    async def count_approvals(
        self,
        *,
        agent_id: str | None = None,
        item_id: str | None = None,
        states: tuple[ApprovalState, ...] | None = None,
    ) -> int:
        """How many approvals :meth:`find_approvals` would page through."""
        where, params = _approval_filter(agent_id, item_id, states)
        return await self._query(f"SELECT count(*) FROM approvals{where}", params, _count_of)

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
        params = (agent_id, session_id, *bound, limit)
        return await self._query(sql, params, _all(decode_message))
