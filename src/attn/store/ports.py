"""Parts of the store port, by subject: the reads of channels and of people.

:class:`~attn.store.base.Store` inherits both protocols, so a store is one
object; they live here so the port's module stays short. Write ops are in
:mod:`attn.store.ops`.

Spec: 000 §11.1 (channels), §12 (user notifications), §13.2 (approvals),
§20 (main session).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from attn.models import Channel, ChannelMessage, Delegation
from attn.models.people import Approval, ApprovalState, Notification, SessionMessage


class ChannelPort(Protocol):
    """Reads of channels, their messages and delegations (000 §11.1)."""

    async def get_channel(self, key: str) -> Channel | None:
        """The channel with that key, or None."""

    async def find_channels(
        self, member: str | None = None, kinds: Sequence[str] | None = None
    ) -> list[Channel]:
        """Stored channels ordered by key: those ``member`` belongs to (None: all),
        of the given kinds (None: any)."""

    async def get_channel_message(self, message_id: str) -> ChannelMessage | None:
        """The message with that id, or None."""

    async def find_channel_messages(
        self,
        channel_key: str,
        *,
        before_seq: int | None = None,
        limit: int = 50,
        conversation_id: str | None = None,
    ) -> list[ChannelMessage]:
        """One page of a channel's history, oldest first (A2A-08).

        The page holds the newest ``limit`` messages of the channel with a
        ``seq`` below ``before_seq`` (None: no bound), of one conversation when
        ``conversation_id`` is given, ordered by ``seq`` ascending. The next
        older page is asked with ``before_seq`` set to the first ``seq`` answered.

        Raises:
            InvalidInput: ``limit`` is not an integer in 1..500.
        """

    async def find_conversation(
        self, conversation_id: str, *, before_seq: int | None = None, limit: int = 50
    ) -> list[ChannelMessage]:
        """The newest ``limit`` messages of one conversation (on any channel) with a
        ``seq`` below ``before_seq``, oldest first.

        Raises:
            InvalidInput: ``limit`` is not an integer in 1..500.
        """

    async def find_undelivered_messages(self, limit: int = 1000) -> list[ChannelMessage]:
        """Messages with a delivery still pending (restart recovery), oldest first."""

    async def get_delegation(self, delegation_id: str) -> Delegation | None:
        """The delegation with that id, or None."""

    async def find_delegations(
        self, agent_id: str, *, conversation_id: str | None = None
    ) -> list[Delegation]:
        """Delegations the agent made or was given, oldest first; of one
        conversation when ``conversation_id`` is given."""


class PeoplePort(Protocol):
    """Reads of notifications, approvals and main-session messages (000 §12, §13, §20)."""

    async def get_notification(self, notification_id: str) -> Notification | None:
        """The notification with that id, or None."""

    async def find_notifications(
        self,
        user_id: str | None = None,
        *,
        type: str | None = None,
        unread_only: bool = False,
        limit: int = 50,
        offset: int = 0,
    ) -> list[Notification]:
        """Notifications of one person (every person's when ``user_id`` is None),
        newest first (``created_at``, then id), of one ``type`` when given,
        only unread ones when ``unread_only``.

        Raises:
            InvalidInput: ``limit`` not in 1..500 or ``offset`` negative.
        """

    async def count_notifications(
        self, user_id: str | None = None, *, type: str | None = None, unread_only: bool = False
    ) -> int:
        """How many notifications :meth:`find_notifications` would page through."""

    async def find_webhook_pending(self, limit: int = 100) -> list[Notification]:
        """Notifications whose webhook delivery is ``pending``, oldest first."""

    async def get_approval(self, approval_id: str) -> Approval | None:
        """The approval with that id, or None."""

    async def find_approvals(
        self,
        *,
        agent_id: str | None = None,
        item_id: str | None = None,
        states: tuple[ApprovalState, ...] | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Approval]:
        """Approvals, oldest first (``created_at``, then id), filtered by asking
        agent, parked item and states (None: any).

        Raises:
            InvalidInput: ``limit`` not in 1..1000 or ``offset`` negative.
        """

    async def count_approvals(
        self,
        *,
        agent_id: str | None = None,
        item_id: str | None = None,
        states: tuple[ApprovalState, ...] | None = None,
    ) -> int:
        """How many approvals :meth:`find_approvals` would page through."""

    async def find_session_messages(
        self,
        agent_id: str,
        session_id: str = "main",
        *,
        before_seq: int | None = None,
        limit: int = 50,
        include_activity: bool = True,
    ) -> list[SessionMessage]:
        """The newest ``limit`` messages of one agent's session with a ``seq``
        below ``before_seq``, oldest first; without activity lines when
        ``include_activity`` is False (the chat view).

        Raises:
            InvalidInput: ``limit`` not in 1..500.
        """


__all__ = ["ChannelPort", "PeoplePort"]
