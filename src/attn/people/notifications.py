"""People's notification bell: store, list, mark read, and tell live listeners.

A notification is stored before anyone hears of it; then a ``notification``
event goes out on the runtime's bus (the server forwards it to every
WebSocket client, SRV-10) and the webhook sink, when one is configured, is
told to push it (PPL-09).

Spec: 000 §12 (storage, type registry, actions, REST, real-time delivery);
acceptance PPL-01, PPL-09.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from attn.clock import Clock
from attn.config.people import Users
from attn.core.events import NOTIFICATION, NOTIFICATIONS_READ, Event, EventBus
from attn.errors import InvalidInput, NotificationNotFound, shown
from attn.ids import new_id
from attn.limits import check_int
from attn.models.people import ActionType, Notification
from attn.people import checks
from attn.people.types import NotificationTypes
from attn.store.base import InsertNotification, MarkNotificationsRead, Store
from attn.types import JSON

#: Most notifications one page lists.
MAX_PAGE = 500
#: Highest offset a listing takes.
MAX_OFFSET = 1_000_000


@dataclass(frozen=True, slots=True)
class NotificationPage:
    """One page of a person's notifications (000 §12.4).

    Attributes:
        notifications: newest first.
        total_count: how many match the filters (every page).
        unread_count: how many of the person's notifications are unread (all types).
    """

    notifications: list[Notification]
    total_count: int
    unread_count: int

    def to_dict(self) -> JSON:
        return {
            "notifications": [n.to_dict() for n in self.notifications],
            "totalCount": self.total_count,
            "unreadCount": self.unread_count,
        }


class Notifications:
    """The notifications of one runtime's people.

    Args:
        store, clock, bus: the runtime's.
        users: the people (notifications go to one of them).
        types: the notification type registry.
    """

    def __init__(
        self, store: Store, clock: Clock, bus: EventBus, users: Users, types: NotificationTypes
    ) -> None:
        self._store = store
        self._clock = clock
        self._bus = bus
        self.users = users
        self.types = types
        #: Called with each stored notification (the webhook sink's kick).
        self.listeners: list[Callable[[Notification], None]] = []
        #: True when a webhook will push notifications: they are stored ``pending``.
        self.webhook_types: tuple[str, ...] | None = None

    def build(
        self,
        user_id: object,
        type: object,
        title: object,
        body: object = "",
        *,
        priority: object = None,
        action_type: object = None,
        action_target: object = None,
        metadata: object = None,
    ) -> Notification:
        """A checked notification, not stored yet (:meth:`insert_op`, then :meth:`published`).

        Args:
            user_id: a known person, or None for the owner.
            type: a registered notification type.
            title, body: one line; the full text.
            priority: ``low``/``normal``/``high``/``urgent``; None: the type's default.
            action_type: ``navigate``/``open_chat``/``none``; None: the type's default.
            action_target: ``{"path"}`` (navigate) or ``{"agentId", "sessionId"}``
                (open_chat); None for none.
            metadata: a JSON object kept with it.

        Raises:
            InvalidInput: any bad argument (UnknownUser for an unknown person).
        """
        spec = self.types.get_type(type)
        person = self.users.owner.id if user_id is None else checks.user(self.users, user_id)
        action = _action(action_type, spec.action)
        target = _target(action, action_target)
        webhook = None
        if self.webhook_types is not None and (
            not self.webhook_types or spec.name in self.webhook_types
        ):
            webhook = "pending"
        return Notification(
            id=new_id("ntf"),
            user_id=person,
            type=spec.name,
            title=checks.title(title),
            body=checks.body(body),
            priority=checks.priority(priority, spec.priority),
            created_at=self._clock.now(),
            action_type=action,
            action_target=target,
            metadata=checks.metadata(metadata),
            webhook=webhook,
        )

    @staticmethod
    def insert_op(notification: Notification) -> InsertNotification:
        return InsertNotification(notification)

    def published(self, notification: Notification) -> None:
        """Tell live listeners about a committed notification."""
        if self._bus.active:
            agent = notification.metadata.get("agentId")
            self._bus.emit(
                Event(
                    NOTIFICATION,
                    agent if isinstance(agent, str) else "",
                    {"notification": notification.to_dict()},
                    self._clock.now(),
                )
            )
        for listener in self.listeners:
            listener(notification)

    async def notify(
        self, user_id: object, type: object, title: object, body: object = "", **kw: Any
    ) -> Notification:
        """Store a notification and tell listeners; arguments as :meth:`build`.

        Raises:
            InvalidInput, UnknownUser: nothing is stored. StoreError.
        """
        notification = self.build(user_id, type, title, body, **kw)
        await self._store.write([InsertNotification(notification)])
        self.published(notification)
        return notification

    async def page(
        self,
        user_id: object = None,
        *,
        type: object = None,
        unread_only: object = False,
        limit: object = 50,
        offset: object = 0,
    ) -> NotificationPage:
        """A page of one person's notifications (None: the owner's), newest first.

        Raises:
            InvalidInput: a bad filter, limit (1..500) or offset (0..1,000,000).
        """
        person = self.users.owner.id if user_id is None else checks.user(self.users, user_id)
        if type is not None:
            type = self.types.get_type(type).name
        unread = checks.flag(unread_only, "unread_only")
        size = check_int(limit, "limit", low=1, high=MAX_PAGE)
        skip = check_int(offset, "offset", low=0, high=MAX_OFFSET)
        store = self._store
        found = await store.find_notifications(
            person, type=type, unread_only=unread, limit=size, offset=skip
        )
        total = await store.count_notifications(person, type=type, unread_only=unread)
        unread_count = await store.count_notifications(person, unread_only=True)
        return NotificationPage(found, total, unread_count)

    async def get(self, notification_id: object) -> Notification:
        """The notification with that id.

        Raises:
            NotificationNotFound: none has it.
        """
        found = None
        if isinstance(notification_id, str) and 0 < len(notification_id) <= 200:
            found = await self._store.get_notification(notification_id)
        if found is None:
            raise NotificationNotFound(f"no notification has id {shown(notification_id)}")
        return found

    async def mark_read(self, notification_id: object) -> Notification:
        """Mark one notification read; marking a read one again changes nothing.

        Raises:
            NotificationNotFound.
        """
        found = await self.get(notification_id)
        if not found.read:
            await self._store.write([MarkNotificationsRead(found.user_id, (found.id,))])
            await self.told_read(found.user_id, [found.id])
        return await self.get(found.id)

    async def mark_all_read(self, user_id: object = None) -> int:
        """Mark every notification of one person (None: the owner) read; returns how many changed.

        Raises:
            UnknownUser.
        """
        person = self.users.owner.id if user_id is None else checks.user(self.users, user_id)
        changed = await self._store.write([MarkNotificationsRead(person, None)])
        count = int(changed[0])
        if count:
            await self.told_read(person, None)
        return count

    async def told_read(self, user_id: str, ids: list[str] | None) -> None:
        """Emit ``notification:read`` for notifications of ``user_id`` just marked read."""
        if self._bus.active:
            unread = await self._store.count_notifications(user_id, unread_only=True)
            data = {"userId": user_id, "ids": ids, "unreadCount": unread}
            self._bus.emit(Event(NOTIFICATIONS_READ, "", data, self._clock.now()))


def _action(value: object, default: ActionType) -> ActionType:
    if value is None:
        return default
    allowed = [a.value for a in ActionType]
    if not isinstance(value, str) or value not in allowed:
        raise InvalidInput(f"action_type must be one of {', '.join(allowed)}, got {shown(value)}")
    return ActionType(value)


def _target(action: ActionType, value: object) -> JSON | None:
    if action is ActionType.NONE:
        if value not in (None, {}):
            raise InvalidInput("action_target must be empty when action_type is none")
        return None
    if not isinstance(value, dict):
        raise InvalidInput(f"action_target must be a JSON object for {action}, got {shown(value)}")
    keys = ("path",) if action is ActionType.NAVIGATE else ("agentId", "sessionId")
    if set(value) != set(keys):
        raise InvalidInput(f"action_target for {action} must have exactly {', '.join(keys)}")
    for key in keys:
        part = value[key]
        if not isinstance(part, str) or not part.strip() or len(part) > 1000:
            raise InvalidInput(f"action_target.{key} must be 1..1,000 characters")
    if action is ActionType.NAVIGATE and not str(value["path"]).startswith("/"):
        raise InvalidInput("action_target.path must start with /")
    return dict(value)


__all__ = ["MAX_PAGE", "NotificationPage", "Notifications"]
