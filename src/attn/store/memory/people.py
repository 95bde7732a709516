"""People records in :class:`~attn.store.memory.MemoryStore`: their writes and reads.

Notifications, approvals and main-session messages are kept as the records
every backend answers (:mod:`attn.store._people_columns`); their JSON fields go
out as copies, so a caller never changes what is stored. A repeated id, which
a primary key would refuse, is refused by :func:`check_keys` before anything
of a call is applied. A session message's ``seq`` is one counter over all
sessions, like the SQL backends' table key. :class:`PeopleReads` gives the
store the people reads of the port.

Spec: 000 §12.1, §13.2, §20; acceptance PPL-01..09, PPL-17.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from attn.errors import StoreError
from attn.models.people import (
    Approval,
    ApprovalState,
    Notification,
    SessionMessage,
    SessionRole,
)
from attn.store._people import PeopleOp
from attn.store._people_columns import stored_approval, stored_message, stored_notification
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
    WriteOp,
)
from attn.store.memory.tables import Tables


def check_keys(tables: Tables, ops: Sequence[WriteOp]) -> None:
    """Refuse an insert whose id is stored, or inserted earlier in the call.

    Raises:
        StoreError: naming the record and its id, as a primary key would.
    """
    new: set[tuple[str, str]] = set()
    for op in ops:
        if isinstance(op, InsertNotification):
            kind, key = "notification", op.notification.id
            taken = key in tables.notifications
        elif isinstance(op, InsertApproval):
            kind, key = "approval", op.approval.id
            taken = key in tables.approvals
        elif isinstance(op, InsertSessionMessage):
            kind, key = "session message", op.message.id
            taken = key in tables.session_ids
        else:
            continue
        if taken or (kind, key) in new:
            raise StoreError(f"{kind} {key!r} already exists")
        new.add((kind, key))


def apply(tables: Tables, op: PeopleOp) -> Any:
    """Apply one checked people op; its result as :mod:`attn.store.ops` defines it."""
    if isinstance(op, InsertNotification):
        notification = stored_notification(op.notification)
        tables.notifications[notification.id] = notification
        return _notification(notification)
    if isinstance(op, MarkNotificationsRead):
        return _mark_read(tables, op.user_id, op.ids)
    if isinstance(op, SetNotificationWebhook):
        found = tables.notifications.get(op.notification_id)
        if found is None:
            return False
        tables.notifications[found.id] = replace(found, webhook=op.webhook)
        return True
    if isinstance(op, InsertApproval):
        approval = stored_approval(op.approval)
        tables.approvals[approval.id] = approval
        return _approval(approval)
    if isinstance(op, UpdateApproval):
        return _update_approval(tables, op)
    tables.session_seq += 1
    message = stored_message(op.message, tables.session_seq)
    tables.sessions.setdefault((message.agent_id, message.session_id), []).append(message)
    tables.session_ids.add(message.id)
    return _message(message)


def _mark_read(tables: Tables, user_id: str, ids: tuple[str, ...] | None) -> int:
    notifications = tables.notifications
    if ids is None:
        wanted = [n for n in notifications.values() if n.user_id == user_id and not n.read]
    else:
        found = (notifications.get(i) for i in set(ids))
        wanted = [n for n in found if n is not None and n.user_id == user_id and not n.read]
    for notification in wanted:
        notifications[notification.id] = replace(notification, read=True)
    return len(wanted)


def _update_approval(tables: Tables, op: UpdateApproval) -> bool:
    found = tables.approvals.get(op.approval_id)
    if found is None:
        return False
    if op.only_if_state is not None and found.state not in op.only_if_state:
        return False
    values = dict(op.values)
    if "state" in values:
        values["state"] = ApprovalState(values["state"])
    changed = replace(found, **values)
    if "context" in values:
        changed = stored_approval(changed)  # the context as a database keeps it
    tables.approvals[changed.id] = changed
    return True


# -- copies out -----------------------------------------------------------------------


def _notification(n: Notification) -> Notification:
    return replace(
        n, action_target=copy.deepcopy(n.action_target), metadata=copy.deepcopy(n.metadata)
    )


def _approval(a: Approval) -> Approval:
    return replace(a, context=copy.deepcopy(a.context))


def _message(m: SessionMessage) -> SessionMessage:
    return replace(m, metadata=copy.deepcopy(m.metadata))


# -- reads ----------------------------------------------------------------------------


class PeopleReads(ABC):
    """The people reads of the :class:`~attn.store.base.Store` port (000 §12, §13, §20);
    the store supplies its :class:`Tables` and :meth:`_check` (open, not closed)."""

    _tables: Tables

    @abstractmethod
    def _check(self) -> None:
        """Raise unless the store is open."""

    def _notifications(
        self, user_id: str | None, type: str | None, unread_only: bool
    ) -> list[Notification]:
        self._check()
        check_notification_filter(user_id, type, unread_only)
        return [
            n
            for n in self._tables.notifications.values()
            if (user_id is None or n.user_id == user_id)
            and (type is None or n.type == type)
            and not (unread_only and n.read)
        ]

    async def get_notification(self, notification_id: str) -> Notification | None:
        """The notification with that id, or None."""
        self._check()
        found = self._tables.notifications.get(check_lookup(notification_id, "notification id"))
        return None if found is None else _notification(found)

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
        found = self._notifications(user_id, type, unread_only)
        check_paging(limit, offset, MAX_NOTIFICATION_PAGE)
        found.sort(key=lambda n: (n.created_at, n.id), reverse=True)
        return [_notification(n) for n in found[offset : offset + limit]]

    async def count_notifications(
        self, user_id: str | None = None, *, type: str | None = None, unread_only: bool = False
    ) -> int:
        """How many notifications :meth:`find_notifications` would page through."""
        return len(self._notifications(user_id, type, unread_only))

    async def find_webhook_pending(self, limit: int = 100) -> list[Notification]:
        """Notifications whose webhook delivery is ``pending``, oldest first.

        Raises:
            InvalidInput: ``limit`` not in 1..10,000.
        """
        self._check()
        check_webhook_limit(limit)
        found = [n for n in self._tables.notifications.values() if n.webhook == "pending"]
        found.sort(key=lambda n: (n.created_at, n.id))
        return [_notification(n) for n in found[:limit]]

    async def get_approval(self, approval_id: str) -> Approval | None:
        """The approval with that id, or None."""
        self._check()
        found = self._tables.approvals.get(check_lookup(approval_id, "approval id"))
        return None if found is None else _approval(found)

    def _approvals(self, agent_id: str | None, item_id: str | None, states: Any) -> list[Approval]:
        self._check()
        wanted = check_approval_filter(agent_id, item_id, states)
        return [
            a
            for a in self._tables.approvals.values()
            if (agent_id is None or a.agent_id == agent_id)
            and (item_id is None or a.item_id == item_id)
            and (wanted is None or a.state in wanted)
        ]

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
        found = self._approvals(agent_id, item_id, states)
        check_paging(limit, offset, MAX_APPROVAL_PAGE)
        found.sort(key=lambda a: (a.created_at, a.id))
        return [_approval(a) for a in found[offset : offset + limit]]

    async def count_approvals(
        self,
        *,
        agent_id: str | None = None,
        item_id: str | None = None,
        states: tuple[ApprovalState, ...] | None = None,
    ) -> int:
        """How many approvals :meth:`find_approvals` would page through."""
        return len(self._approvals(agent_id, item_id, states))

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
        self._check()
        check_session_read(agent_id, session_id, before_seq, limit, include_activity)
        messages = self._tables.sessions.get((agent_id, session_id), [])
        end = len(messages)
        if before_seq is not None:
            end = bisect_left(messages, before_seq, key=lambda m: m.seq)
        found: list[SessionMessage] = []
        for index in range(end - 1, -1, -1):
            message = messages[index]
            if include_activity or message.role is not SessionRole.ACTIVITY:
                found.append(_message(message))
                if len(found) == limit:
                    break
        found.reverse()
        return found
