"""Channels on SQLite: the statements, rows ↔ records, the writer's runs and the reads.

A message's ``seq`` is the table's ``INTEGER PRIMARY KEY`` (the rowid), given
inside the writer's ``BEGIN IMMEDIATE`` transaction, so it follows commit
order over all channels, as ``mailbox_items.seq`` does. An insert first looks
for the sender's idempotency key, then for the channel. :class:`ChannelReads`
gives :class:`~attn.store.sqlite.SQLiteStore` the channel reads of the port.

Spec: 000 §11.1 (DM channels, history), §25.2–25.3; acceptance A2A-06, A2A-08.
"""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from functools import lru_cache
from typing import Any, TypeVar

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
from attn.store.sqlite.codec import Row, encode_instant, instant_or_none
from attn.store.sqlite.reads import Read

_T = TypeVar("_T")

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
INSERT INTO channels ({_CHANNEL}) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (key) DO UPDATE SET name = excluded.name, members = excluded.members
RETURNING kind, created_at, created_by
"""
_CHANNEL_EXISTS = "SELECT 1 FROM channels WHERE key = ?"
_INSERT_MESSAGE = """
INSERT INTO channel_messages (id, channel_key, sender_id, sender_kind, text, conversation_id,
  created_at, mentions, reply_to, expects_reply, kind, deliveries, undelivered,
  idempotency_key, callback_id)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
_MESSAGE_BY_KEY = (
    f"SELECT {_MESSAGE} FROM channel_messages WHERE sender_id = ? AND idempotency_key = ?"
)
_SET_DELIVERIES = "UPDATE channel_messages SET deliveries = ?, undelivered = ? WHERE id = ?"
_PUT_DELEGATION = f"""
INSERT INTO delegations ({_DELEGATION}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET delegator = excluded.delegator, delegate = excluded.delegate,
  goal = excluded.goal, channel_key = excluded.channel_key,
  conversation_id = excluded.conversation_id, message_id = excluded.message_id,
  created_at = excluded.created_at, status = excluded.status,
  answer_message_id = excluded.answer_message_id, answered_at = excluded.answered_at
"""

_GET_CHANNEL = f"SELECT {_CHANNEL} FROM channels WHERE key = ?"
_GET_MESSAGE = f"SELECT {_MESSAGE} FROM channel_messages WHERE id = ?"
# Served by idx_channel_messages_undelivered (undelivered, seq).
_UNDELIVERED = f"SELECT {_MESSAGE} FROM channel_messages WHERE undelivered = 1 ORDER BY seq LIMIT ?"
_GET_DELEGATION = f"SELECT {_DELEGATION} FROM delegations WHERE id = ?"
_FIND_DELEGATIONS = f"""
SELECT {_DELEGATION} FROM delegations
WHERE (delegator = ? OR delegate = ?) AND (? IS NULL OR conversation_id = ?)
ORDER BY created_at, id
"""


@lru_cache(maxsize=16)
def _find_channels(n_kinds: int | None) -> str:
    kinds = "" if n_kinds is None else f" AND kind IN ({', '.join('?' * n_kinds)})"
    return (
        f"SELECT {_CHANNEL} FROM channels WHERE (?1 IS NULL OR EXISTS"
        f" (SELECT 1 FROM json_each(channels.members) WHERE value = ?1)){kinds} ORDER BY key"
    )


@lru_cache(maxsize=8)
def _page(where: str, bounded: bool) -> str:
    # The newest rows below the bound, walked down the (…, seq) index, then turned oldest first.
    below = " AND seq < ?" if bounded else ""
    return (
        f"SELECT * FROM (SELECT {_MESSAGE} FROM channel_messages WHERE {where}{below}"
        " ORDER BY seq DESC LIMIT ?) ORDER BY seq"
    )


# -- rows ↔ records -------------------------------------------------------------------


def decode_channel(row: Row) -> Channel:
    """A :class:`~attn.models.Channel` from a row of ``channels``."""
    key, kind, name, members, created_at, created_by = row
    return Channel(
        key,
        ChannelKind(kind),
        name,
        ids_of(members),
        datetime.fromisoformat(created_at),
        created_by,
    )


def decode_message(row: Row) -> ChannelMessage:
    """A :class:`~attn.models.ChannelMessage` from a row of ``channel_messages``."""
    (seq, id_, channel_key, sender_id, sender_kind, text, conversation_id, created_at, mentions,
     reply_to, expects_reply, kind, deliveries, idempotency_key, callback_id) = row  # fmt: skip
    return ChannelMessage(
        id=id_,
        channel_key=channel_key,
        sender_id=sender_id,
        sender_kind=SenderKind(sender_kind),
        text=text,
        conversation_id=conversation_id,
        created_at=datetime.fromisoformat(created_at),
        seq=seq,
        mentions=ids_of(mentions),
        reply_to=reply_to,
        expects_reply=bool(expects_reply),
        kind=MessageKind(kind),
        deliveries=deliveries_of(deliveries),
        idempotency_key=idempotency_key,
        callback_id=callback_id,
    )


def decode_delegation(row: Row) -> Delegation:
    """A :class:`~attn.models.Delegation` from a row of ``delegations``."""
    (id_, delegator, delegate, goal, channel_key, conversation_id, message_id, created_at,
     status, answer_message_id, answered_at) = row  # fmt: skip
    return Delegation(
        id_, delegator, delegate, goal, channel_key, conversation_id, message_id,
        datetime.fromisoformat(created_at), DelegationStatus(status), answer_message_id,
        None if answered_at is None else datetime.fromisoformat(answered_at),
    )  # fmt: skip


# -- the writer's runs ----------------------------------------------------------------


def put_channel(channel: Channel) -> tuple[Any, Any]:
    """The writer's run of a ``PutChannel`` and its finisher (the stored channel)."""
    params = (channel.key, str(channel.kind), channel.name, ids_text(channel.members),
              encode_instant(channel.created_at), channel.created_by)  # fmt: skip

    def run(cur: sqlite3.Cursor) -> Row:
        return tuple(cur.execute(_PUT_CHANNEL, params).fetchone())

    def finish(raw: Row) -> Channel:
        kind, created_at, created_by = raw
        return replace(
            channel,
            kind=ChannelKind(kind),
            created_at=datetime.fromisoformat(created_at),
            created_by=created_by,
        )

    return run, finish


def insert_message(message: ChannelMessage) -> tuple[Any, Any]:
    """The writer's run of an ``InsertChannelMessage`` and its finisher.

    The run raises :class:`~attn.errors.StoreError` for a channel that is not
    stored (the writer rolls the call back); the finisher answers ``(message, created)``.
    """
    params = (
        message.id, message.channel_key, message.sender_id, str(message.sender_kind),
        message.text, message.conversation_id, encode_instant(message.created_at),
        ids_text(message.mentions), message.reply_to, 1 if message.expects_reply else 0,
        str(message.kind), deliveries_text(message.deliveries),
        1 if undelivered(message.deliveries) else 0, message.idempotency_key, message.callback_id,
    )  # fmt: skip
    key = message.idempotency_key

    def run(cur: sqlite3.Cursor) -> int | Row:
        if key is not None:
            found = cur.execute(_MESSAGE_BY_KEY, (message.sender_id, key)).fetchone()
            if found is not None:
                return tuple(found)
        if cur.execute(_CHANNEL_EXISTS, (message.channel_key,)).fetchone() is None:
            raise StoreError(unknown_channel(message))
        return cur.execute(_INSERT_MESSAGE, params).lastrowid or 0

    def finish(raw: int | Row) -> tuple[ChannelMessage, bool]:
        if isinstance(raw, int):
            return replace(message, seq=raw), True
        return decode_message(raw), False

    return run, finish


def set_deliveries(message_id: str, deliveries: tuple[Delivery, ...]) -> Any:
    """The writer's run of a ``SetDeliveries``: True when the message was found."""
    params = (deliveries_text(deliveries), 1 if undelivered(deliveries) else 0, message_id)

    def run(cur: sqlite3.Cursor) -> bool:
        return cur.execute(_SET_DELIVERIES, params).rowcount > 0

    return run


def put_delegation(delegation: Delegation) -> tuple[Any, Any]:
    """The writer's run of a ``PutDelegation`` and its finisher (the delegation)."""
    d = delegation
    params = (d.id, d.delegator, d.delegate, d.goal, d.channel_key, d.conversation_id,
              d.message_id, encode_instant(d.created_at), str(d.status), d.answer_message_id,
              instant_or_none(d.answered_at))  # fmt: skip

    def run(cur: sqlite3.Cursor) -> None:
        cur.execute(_PUT_DELEGATION, params)

    return run, lambda _raw: delegation


# -- reads ----------------------------------------------------------------------------


def _rows(statement: str, params: Sequence[Any]) -> Any:
    def run(cur: sqlite3.Cursor) -> list[Row]:
        return cur.execute(statement, params).fetchall()

    return run


def _first(decode: Any) -> Any:
    return lambda rows: decode(rows[0]) if rows else None


def _messages(rows: list[Row]) -> list[ChannelMessage]:
    return [decode_message(row) for row in rows]


def _page_read(where: str, keys: list[Any], before_seq: int | None, limit: int) -> Read[Any]:
    params = [*keys, *(() if before_seq is None else (before_seq,)), limit]
    return Read(_rows(_page(where, before_seq is not None), params), _messages)


class ChannelReads(ABC):
    """The channel reads of the :class:`~attn.store.base.Store` port (000 §11.1);
    the store supplies :meth:`_read` (the reader thread)."""

    @abstractmethod
    async def _read(self, read: Read[_T]) -> _T:
        """Run ``read`` on the reader thread."""

    async def get_channel(self, key: str) -> Channel | None:
        """The channel with that key, or None."""
        key = check_lookup(key, "channel key")
        return await self._read(Read(_rows(_GET_CHANNEL, (key,)), _first(decode_channel)))

    async def find_channels(
        self, member: str | None = None, kinds: Sequence[str] | None = None
    ) -> list[Channel]:
        """Channels ordered by key: ``member``'s (None: all), of ``kinds`` (None: any)."""
        wanted = check_channel_filter(member, kinds)
        sql = _find_channels(None if wanted is None else len(wanted))
        return await self._read(
            Read(
                _rows(sql, [member, *(wanted or ())]),
                lambda rows: [decode_channel(r) for r in rows],
            )
        )

    async def get_channel_message(self, message_id: str) -> ChannelMessage | None:
        """The message with that id, or None."""
        message_id = check_lookup(message_id, "channel message id")
        return await self._read(Read(_rows(_GET_MESSAGE, (message_id,)), _first(decode_message)))

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
            read = _page_read("channel_key = ?", [channel_key], before_seq, limit)
        else:
            keys = [check_lookup(conversation_id, "conversation id"), channel_key]
            read = _page_read("conversation_id = ? AND channel_key = ?", keys, before_seq, limit)
        result: list[ChannelMessage] = await self._read(read)
        return result

    async def find_conversation(
        self, conversation_id: str, *, before_seq: int | None = None, limit: int = 50
    ) -> list[ChannelMessage]:
        """One page of a conversation on any channel, oldest first (see the protocol).

        Raises:
            InvalidInput: a bad id or ``before_seq``, or ``limit`` outside 1..500.
        """
        check_history(conversation_id, "conversation id", before_seq, limit)
        read = _page_read("conversation_id = ?", [conversation_id], before_seq, limit)
        result: list[ChannelMessage] = await self._read(read)
        return result

    async def find_undelivered_messages(self, limit: int = 1000) -> list[ChannelMessage]:
        """Messages with a pending delivery, oldest first.

        Raises:
            InvalidInput: ``limit`` outside 1..10,000.
        """
        check_undelivered(limit)
        return await self._read(Read(_rows(_UNDELIVERED, (limit,)), _messages))

    async def get_delegation(self, delegation_id: str) -> Delegation | None:
        """The delegation with that id, or None."""
        delegation_id = check_lookup(delegation_id, "delegation id")
        return await self._read(
            Read(_rows(_GET_DELEGATION, (delegation_id,)), _first(decode_delegation))
        )

    async def find_delegations(
        self, agent_id: str, *, conversation_id: str | None = None
    ) -> list[Delegation]:
        """Delegations the agent made or was given, oldest first."""
        check_lookup(agent_id, "agent id")
        if conversation_id is not None:
            check_lookup(conversation_id, "conversation id")
        params = (agent_id, agent_id, conversation_id, conversation_id)
        return await self._read(
            Read(
                _rows(_FIND_DELEGATIONS, params), lambda rows: [decode_delegation(r) for r in rows]
            )
        )
