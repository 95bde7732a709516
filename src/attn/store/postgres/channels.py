"""Channels on PostgreSQL: the statements, rows ↔ records, the writes and the reads.

A message insert first takes a transaction-scoped advisory lock (``atns``,
:data:`~attn.store.postgres.queries.SEQ_LOCK`, also taken by session message inserts),
so inserts commit one at a time and ``seq`` (a bigserial over all channels)
follows commit order: a history page's ``before`` cursor never skips a
message that commits later with a smaller ``seq``. Under the lock it looks for
the sender's idempotency key, then inserts where the channel exists. Keys and
ids order by code point (``COLLATE "C"``), as on the other stores.
:class:`ChannelReads` gives :class:`~attn.store.postgres.PostgresStore` the
channel reads of the port.

Spec: 000 §11.1 (DM channels, history), §25.2–25.3; acceptance A2A-06, A2A-08.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import asyncpg

from attn.errors import StoreError
from attn.models import (
    Channel,
    ChannelKind,
    ChannelMessage,
    Delegation,
    DelegationStatus,
    Delivery,
    MessageKind,
    SenderKind,
)
from attn.store._channels import (
    check_channel_filter,
    check_history,
    check_lookup,
    check_undelivered,
    deliveries_of,
    deliveries_text,
    ids_of,
    ids_text,
    undelivered,
    unknown_channel,
)
from attn.store.postgres.queries import SEQ_LOCK

if TYPE_CHECKING:
    from attn.store.postgres.writes import Connection

#: A write that runs its own statements on the transaction's connection.
Call = Callable[["Connection"], Awaitable[Any]]

_CHANNEL = "key, kind, name, members, created_at, created_by"
_MESSAGE = (
    "seq, id, channel_key, sender_id, sender_kind, text, conversation_id, created_at,"
    " mentions, reply_to, expects_reply, kind, deliveries, idempotency_key, callback_id"
)
_DELEGATION = (
    "id, delegator, delegate, goal, channel_key, conversation_id, message_id, created_at,"
    " status, answer_message_id, answered_at"
)

_PUT_CHANNEL = f"""
INSERT INTO channels ({_CHANNEL}) VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (key) DO UPDATE SET name = EXCLUDED.name, members = EXCLUDED.members
RETURNING kind, created_at, created_by
"""
_MESSAGE_BY_KEY = (
    f"SELECT {_MESSAGE} FROM channel_messages WHERE sender_id = $1 AND idempotency_key = $2"
)
_INSERT_MESSAGE = """
INSERT INTO channel_messages (id, channel_key, sender_id, sender_kind, text, conversation_id,
  created_at, mentions, reply_to, expects_reply, kind, deliveries, undelivered,
  idempotency_key, callback_id)
SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15
WHERE EXISTS (SELECT 1 FROM channels WHERE key = $2)
RETURNING seq
"""
SET_DELIVERIES = "UPDATE channel_messages SET deliveries = $1, undelivered = $2 WHERE id = $3"
_PUT_DELEGATION = f"""
INSERT INTO delegations ({_DELEGATION}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
ON CONFLICT (id) DO UPDATE SET delegator = EXCLUDED.delegator, delegate = EXCLUDED.delegate,
  goal = EXCLUDED.goal, channel_key = EXCLUDED.channel_key,
  conversation_id = EXCLUDED.conversation_id, message_id = EXCLUDED.message_id,
  created_at = EXCLUDED.created_at, status = EXCLUDED.status,
  answer_message_id = EXCLUDED.answer_message_id, answered_at = EXCLUDED.answered_at
"""

_GET_CHANNEL = f"SELECT {_CHANNEL} FROM channels WHERE key = $1"
_FIND_CHANNELS = f"""
SELECT {_CHANNEL} FROM channels
WHERE ($1::text IS NULL OR members::jsonb ? $1) AND ($2::text[] IS NULL OR kind = ANY($2))
ORDER BY key COLLATE "C"
"""
_GET_MESSAGE = f"SELECT {_MESSAGE} FROM channel_messages WHERE id = $1"
# Served by idx_channel_messages_undelivered (undelivered, seq).
_UNDELIVERED = f"SELECT {_MESSAGE} FROM channel_messages WHERE undelivered ORDER BY seq LIMIT $1"
_GET_DELEGATION = f"SELECT {_DELEGATION} FROM delegations WHERE id = $1"
_FIND_DELEGATIONS = f"""
SELECT {_DELEGATION} FROM delegations
WHERE (delegator = $1 OR delegate = $1) AND ($2::text IS NULL OR conversation_id = $2)
ORDER BY created_at, id COLLATE "C"
"""


@lru_cache(maxsize=8)
def _page(where: str, n_keys: int, bounded: bool) -> str:
    # The newest rows below the bound, walked down the (…, seq) index, then turned oldest first.
    below = f" AND seq < ${n_keys + 1}" if bounded else ""
    limit = n_keys + 1 + bounded
    return (
        f"SELECT * FROM (SELECT {_MESSAGE} FROM channel_messages WHERE {where}{below}"
        f" ORDER BY seq DESC LIMIT ${limit}) AS page ORDER BY seq"
    )


# -- rows ↔ records -------------------------------------------------------------------


def decode_channel(row: asyncpg.Record) -> Channel:
    """A :class:`~attn.models.Channel` from a row of ``channels``."""
    return Channel(
        key=row["key"],
        kind=ChannelKind(row["kind"]),
        name=row["name"],
        members=ids_of(row["members"]),
        created_at=row["created_at"],
        created_by=row["created_by"],
    )


def decode_message(row: asyncpg.Record) -> ChannelMessage:
    """A :class:`~attn.models.ChannelMessage` from a row of ``channel_messages``."""
    return ChannelMessage(
        id=row["id"],
        channel_key=row["channel_key"],
        sender_id=row["sender_id"],
        sender_kind=SenderKind(row["sender_kind"]),
        text=row["text"],
        conversation_id=row["conversation_id"],
        created_at=row["created_at"],
        seq=row["seq"],
        mentions=ids_of(row["mentions"]),
        reply_to=row["reply_to"],
        expects_reply=row["expects_reply"],
        kind=MessageKind(row["kind"]),
        deliveries=deliveries_of(row["deliveries"]),
        idempotency_key=row["idempotency_key"],
        callback_id=row["callback_id"],
    )


def decode_delegation(row: asyncpg.Record) -> Delegation:
    """A :class:`~attn.models.Delegation` from a row of ``delegations``."""
    return Delegation(
        id=row["id"],
        delegator=row["delegator"],
        delegate=row["delegate"],
        goal=row["goal"],
        channel_key=row["channel_key"],
        conversation_id=row["conversation_id"],
        message_id=row["message_id"],
        created_at=row["created_at"],
        status=DelegationStatus(row["status"]),
        answer_message_id=row["answer_message_id"],
        answered_at=row["answered_at"],
    )


# -- writes ---------------------------------------------------------------------------


def put_channel(channel: Channel) -> Call:
    """A ``PutChannel`` as a call on the transaction's connection (the stored channel)."""
    args = (channel.key, str(channel.kind), channel.name, ids_text(channel.members),
            channel.created_at, channel.created_by)  # fmt: skip

    async def call(conn: Connection) -> Channel:
        row = await conn.fetchrow(_PUT_CHANNEL, *args)
        if row is None:  # an upsert with RETURNING answers its row; never seen
            raise StoreError(f"channel {channel.key!r}: the upsert returned no row")
        return replace(
            channel,
            kind=ChannelKind(row["kind"]),
            created_at=row["created_at"],
            created_by=row["created_by"],
        )

    return call


def insert_message(message: ChannelMessage) -> Call:
    """An ``InsertChannelMessage`` as a call: ``(message, created)``.

    The call raises :class:`~attn.errors.StoreError` for a channel that is not
    stored, which rolls the write back.
    """
    args = (
        message.id, message.channel_key, message.sender_id, str(message.sender_kind),
        message.text, message.conversation_id, message.created_at, ids_text(message.mentions),
        message.reply_to, message.expects_reply, str(message.kind),
        deliveries_text(message.deliveries), undelivered(message.deliveries),
        message.idempotency_key, message.callback_id,
    )  # fmt: skip
    key = message.idempotency_key

    async def call(conn: Connection) -> tuple[ChannelMessage, bool]:
        await conn.execute(SEQ_LOCK)
        if key is not None:
            row = await conn.fetchrow(_MESSAGE_BY_KEY, message.sender_id, key)
            if row is not None:
                return decode_message(row), False
        seq = await conn.fetchval(_INSERT_MESSAGE, *args)
        if seq is None:
            raise StoreError(unknown_channel(message))
        return replace(message, seq=seq), True

    return call


def set_deliveries_args(message_id: str, deliveries: tuple[Delivery, ...]) -> tuple[Any, ...]:
    """The arguments of :data:`SET_DELIVERIES`."""
    return (deliveries_text(deliveries), undelivered(deliveries), message_id)


def put_delegation(delegation: Delegation) -> Call:
    """A ``PutDelegation`` as a call on the transaction's connection (the delegation)."""
    d = delegation
    args = (d.id, d.delegator, d.delegate, d.goal, d.channel_key, d.conversation_id, d.message_id,
            d.created_at, str(d.status), d.answer_message_id, d.answered_at)  # fmt: skip

    async def call(conn: Connection) -> Delegation:
        await conn.execute(_PUT_DELEGATION, *args)
        return delegation

    return call


# -- reads ----------------------------------------------------------------------------


class ChannelReads(ABC):
    """The channel reads of the :class:`~attn.store.base.Store` port (000 §11.1);
    the store supplies :meth:`_fetch` (one pooled statement)."""

    @abstractmethod
    async def _fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        """The rows of one statement."""

    async def get_channel(self, key: str) -> Channel | None:
        """The channel with that key, or None."""
        rows = await self._fetch(_GET_CHANNEL, check_lookup(key, "channel key"))
        return decode_channel(rows[0]) if rows else None

    async def find_channels(
        self, member: str | None = None, kinds: Sequence[str] | None = None
    ) -> list[Channel]:
        """Channels ordered by key: ``member``'s (None: all), of ``kinds`` (None: any)."""
        wanted = check_channel_filter(member, kinds)
        return [decode_channel(row) for row in await self._fetch(_FIND_CHANNELS, member, wanted)]

    async def get_channel_message(self, message_id: str) -> ChannelMessage | None:
        """The message with that id, or None."""
        rows = await self._fetch(_GET_MESSAGE, check_lookup(message_id, "channel message id"))
        return decode_message(rows[0]) if rows else None

    async def find_channel_messages(
        self,
        channel_key: str,
        *,
        before_seq: int | None = None,
        limit: int = 50,
        conversation_id: str | None = None,
    ) -> list[ChannelMessage]:
        """One page of a channel's history, oldest first (see the protocol).

        Raises:
            InvalidInput: a bad key or ``before_seq``, or ``limit`` outside 1..500.
        """
        check_history(channel_key, "channel key", before_seq, limit)
        if conversation_id is None:
            return await self._history("channel_key = $1", [channel_key], before_seq, limit)
        keys = [check_lookup(conversation_id, "conversation id"), channel_key]
        where = "conversation_id = $1 AND channel_key = $2"
        return await self._history(where, keys, before_seq, limit)

    async def find_conversation(
        self, conversation_id: str, *, before_seq: int | None = None, limit: int = 50
    ) -> list[ChannelMessage]:
        """One page of a conversation on any channel, oldest first (see the protocol).

        Raises:
            InvalidInput: a bad id or ``before_seq``, or ``limit`` outside 1..500.
        """
        check_history(conversation_id, "conversation id", before_seq, limit)
        return await self._history("conversation_id = $1", [conversation_id], before_seq, limit)

    async def _history(
        self, where: str, keys: list[Any], before_seq: int | None, limit: int
    ) -> list[ChannelMessage]:
        sql = _page(where, len(keys), before_seq is not None)
        bound = () if before_seq is None else (before_seq,)
        return [decode_message(row) for row in await self._fetch(sql, *keys, *bound, limit)]

    async def find_undelivered_messages(self, limit: int = 1000) -> list[ChannelMessage]:
        """Messages with a pending delivery, oldest first.

        Raises:
            InvalidInput: ``limit`` outside 1..10,000.
        """
        check_undelivered(limit)
        return [decode_message(row) for row in await self._fetch(_UNDELIVERED, limit)]

    async def get_delegation(self, delegation_id: str) -> Delegation | None:
        """The delegation with that id, or None."""
        rows = await self._fetch(_GET_DELEGATION, check_lookup(delegation_id, "delegation id"))
        return decode_delegation(rows[0]) if rows else None

    async def find_delegations(
        self, agent_id: str, *, conversation_id: str | None = None
    ) -> list[Delegation]:
        """Delegations the agent made or was given, oldest first."""
        check_lookup(agent_id, "agent id")
        if conversation_id is not None:
            check_lookup(conversation_id, "conversation id")
        rows = await self._fetch(_FIND_DELEGATIONS, agent_id, conversation_id)
        return [decode_delegation(row) for row in rows]
