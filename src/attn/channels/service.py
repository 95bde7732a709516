"""The channels of one runtime: creating them, sending on them, reading their history.

:class:`Channels` is what the runtime offers as ``runtime.channels``: the one
entry point the Python API, the REST routes, the CLI (through REST) and the
brain tools (:mod:`attn.tools.channels`) all go through, so a send answers the
same receipt on every surface (A2A-06).

Spec: 000 §11.1 (DM channels, history), §11.2 (tools and transport), §25.2
(group chats); acceptance A2A-01..08.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from attn.channels import delegation, history, sending, status
from attn.channels.delivery import redeliver
from attn.channels.directory import ChannelDirectory
from attn.channels.history import HistoryPage
from attn.channels.hosting import ChannelHost
from attn.channels.receipts import SendReceipt
from attn.clock import Clock
from attn.core.events import (
    CHANNEL_DELEGATION,
    CHANNEL_MESSAGE,
    EventBus,
)
from attn.errors import NotAMember
from attn.models import (
    Channel,
    ChannelMessage,
    Delegation,
    Delivery,
)
from attn.store.base import SetDeliveries, Store

if TYPE_CHECKING:
    from attn.time import Timekeeper


class Channels(ChannelDirectory):
    """Channels between the agents of one runtime.

    Args:
        store: where channels, messages and delegations are kept.
        clock: the runtime's clock.
        bus: the runtime's event bus (``channel:*`` events).
        host: the runtime, to find recipients.
        time: the runtime's timekeeper (awaited replies).
    """

    def __init__(
        self, store: Store, clock: Clock, bus: EventBus, host: ChannelHost, time: Timekeeper
    ) -> None:
        self.store = store
        self.clock = clock
        self.bus = bus
        self.host = host
        self.time = time
        # (agent, conversation) -> how many messages the agent posted in it: lets
        # an answer see that the turn already replied there itself (answers.py).
        self.posted: dict[tuple[str, str], int] = {}
        self._known: dict[str, Channel] = {}  # see ChannelDirectory
        self._order: dict[str, asyncio.Lock] = {}

    # ------------------------------------------------------------------ sending

    async def send(
        self,
        sender: str,
        to: object,
        text: object,
        *,
        conversation_id: object = None,
        reply_to: object = None,
        await_reply: object = False,
        timeout_s: object = None,
        origin_session_id: object = None,
        idempotency_key: object = None,
    ) -> SendReceipt:
        """Send ``text`` from agent ``sender`` to agent ``to`` on their DM channel.

        Never waits for an answer (000 §11.5). With ``await_reply=True`` an
        ``a2a_reply`` callback keyed by the conversation id is registered
        first, and the answer comes back as a ``callback_result`` in
        ``origin_session_id`` (default: the DM channel's session).

        Args:
            sender, to: agent names.
            text: 1..100,000 characters.
            conversation_id: continue this conversation (default: a new ``conv_…``).
            reply_to: the message this answers (default: the conversation's
                newest message from someone else).
            await_reply: register an awaited reply.
            timeout_s: seconds the reply is awaited (default 30 min).
            origin_session_id: the session the awaited reply resumes.
            idempotency_key: a repeat with the same key stores nothing and
                answers the first receipt (``duplicate``).

        Returns:
            The :class:`SendReceipt`: channel key, conversation id, the delivery.

        Raises:
            SendRefused: unknown recipient, empty text, sending to oneself
                (nothing is stored). InvalidInput: a bad option.
        """
        options = sending.SendOptions(
            conversation_id=conversation_id,
            reply_to=reply_to,
            await_reply=await_reply,
            timeout_s=timeout_s,
            origin_session_id=origin_session_id,
            idempotency_key=idempotency_key,
        )
        return await sending.send_direct(self, sender, to, text, options)

    async def post(
        self,
        channel_key: object,
        sender: object,
        text: object,
        *,
        mentions: object = None,
        sender_kind: object = None,
        conversation_id: object = None,
        reply_to: object = None,
        await_reply: object = False,
        expects_reply: object = None,
        timeout_s: object = None,
        origin_session_id: object = None,
        idempotency_key: object = None,
        to: Sequence[str] | None = None,
    ) -> SendReceipt:
        """Post ``text`` on a channel, as an agent or a person.

        On a group channel the message reaches every member agent but the
        sender, or only those it @mentions (A2A-02); on a DM channel, the
        other agent. The options are those of :meth:`send`, and:

        Args:
            mentions: member names it addresses (None: the ``@name``s of the text).
            sender_kind: ``agent`` or ``person`` (None: agent when ``sender`` is
                a hosted agent). An agent must be a member; a person may post
                anywhere, under a name no agent has.
            expects_reply: whether the recipients' answers are posted back
                (None: for a person's message and an awaited one).
            to: exactly these agents receive it (an answer reaches its asker
                only); None: as members and mentions say.

        Raises:
            UnknownChannel, SendRefused, NotAMember, InvalidInput; nothing is stored.
        """
        options = sending.SendOptions(
            conversation_id=conversation_id,
            reply_to=reply_to,
            await_reply=await_reply,
            expects_reply=expects_reply,
            timeout_s=timeout_s,
            origin_session_id=origin_session_id,
            idempotency_key=idempotency_key,
            mentions=mentions,
            sender_kind=sender_kind,
            to=None if to is None else tuple(to),
        )
        return await sending.post(self, channel_key, sender, text, options)

    async def broadcast_status(self, sender: str, text: object, to: object = None) -> SendReceipt:
        """Write a status line to colleagues' activity logs, with no model call (000 §11.2).

        Args:
            sender: the agent.
            text: 1..4,000 characters.
            to: agent names (None: every other hosted agent).

        Returns:
            A receipt without a message: each recipient ``logged`` (``activityId``
            is the activity id) or ``refused``; ``partial`` when some were
            refused (A2A-04).

        Raises:
            SendRefused: empty text, or no recipient exists. InvalidInput.
        """
        return await status.broadcast_status(self, sender, text, to)

    async def delegate(
        self,
        delegator: str,
        delegate: object,
        goal: object,
        *,
        conversation_id: object = None,
        timeout_s: object = None,
        origin_session_id: object = None,
    ) -> SendReceipt:
        """Hand ``goal`` to ``delegate`` (``agent_delegate_task``, 000 §11.2).

        Stores a :class:`~attn.models.Delegation`, sends the goal on the
        pair's DM channel and awaits the answer as :meth:`send` does; the
        delegate's reply marks the delegation answered.

        Raises:
            SendRefused, InvalidInput: as :meth:`send`.
        """
        options = sending.SendOptions(
            conversation_id=conversation_id,
            timeout_s=timeout_s,
            origin_session_id=origin_session_id,
        )
        return await delegation.delegate(self, delegator, delegate, goal, options)

    async def delegations(self, agent_id: str) -> list[Delegation]:
        """Delegations the agent made or was given, oldest first."""
        return await self.store.find_delegations(agent_id)

    # ------------------------------------------------------------------ history

    async def history(
        self,
        channel_key: object,
        *,
        before: object = None,
        limit: object = 50,
        conversation_id: object = None,
    ) -> HistoryPage:
        """One page of a channel's history, oldest first (A2A-08).

        Args:
            channel_key: the channel.
            before: a ``seq``: only older messages (``next_before`` of the last page).
            limit: 1..500 messages.
            conversation_id: only this conversation's messages.

        Raises:
            InvalidInput, UnknownChannel.
        """
        channel = await self.get(channel_key)
        return await history.page(self.store, channel, before, limit, conversation_id)

    async def message(self, message_id: object) -> ChannelMessage:
        """One stored message with its deliveries.

        Raises:
            ChannelMessageNotFound: no message has that id.
        """
        return await sending.stored_message(self, message_id)

    # ------------------------------------------------------------------ internals

    async def store_deliveries(
        self, message: ChannelMessage, deliveries: tuple[Delivery, ...]
    ) -> ChannelMessage:
        """Store the deliveries of ``message``; emit ``channel:message``."""
        if deliveries != message.deliveries:
            await self.store.write([SetDeliveries(message.id, deliveries)])
        done = replace(message, deliveries=deliveries)
        self._emit(CHANNEL_MESSAGE, {"message": done.to_dict()})
        return done

    async def redeliver(self, agent_id: str) -> int:
        """Deliver what a crash left pending for ``agent_id`` (called when it is hosted);
        return how many messages were delivered."""
        return await redeliver(self, agent_id)

    def check_member(self, channel: Channel, agent_id: str) -> None:
        """Raise :class:`~attn.errors.NotAMember` unless the agent is a member."""
        if agent_id not in channel.members:
            raise NotAMember(
                f"{agent_id!r} is not a member of {channel.key!r} "
                f"(members: {', '.join(channel.members[:20])})"
            )

    def note_posted(self, agent_id: str, conversation_id: str) -> None:
        """Count a message ``agent_id`` posted in ``conversation_id`` (bounded)."""
        if len(self.posted) >= 100_000:
            self.posted.clear()  # an answer in flight then posts once more, never less
        key = (agent_id, conversation_id)
        self.posted[key] = self.posted.get(key, 0) + 1

    def ordered(self, channel_key: str) -> asyncio.Lock:
        """The lock one channel's sends store and hand over their messages under,
        so recipients get them in the channel's order."""
        lock = self._order.get(channel_key)
        if lock is None:
            if len(self._order) >= 10_000:  # bounded: drop the idle ones
                self._order = {k: v for k, v in self._order.items() if v.locked()}
            lock = self._order[channel_key] = asyncio.Lock()
        return lock

    def emit_delegation(self, delegation: Delegation) -> None:
        """Emit ``channel:delegation`` with the record as stored."""
        self._emit(CHANNEL_DELEGATION, {"delegation": delegation.to_dict()})


__all__ = ["Channels", "HistoryPage"]
