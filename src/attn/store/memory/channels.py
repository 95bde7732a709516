"""Channels in :class:`~attn.store.memory.MemoryStore`: their writes and reads over its tables.

Records are frozen (tuples inside), so the tables share them with callers
safely. What a database's keys would refuse (an unknown channel, a repeated
message id) is refused by :func:`check_keys` before anything of a call is
applied. Spec: 000 §11.1, §25.2–25.3; acceptance A2A-06, A2A-08.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from attn.errors import StoreError
from attn.models import Channel, ChannelMessage, Delegation
from attn.store._channels import undelivered, unknown_channel
from attn.store.base import InsertChannelMessage, PutChannel, PutDelegation, SetDeliveries, WriteOp
from attn.store.memory.tables import Tables

ChannelOp = PutChannel | InsertChannelMessage | SetDeliveries | PutDelegation


def check_keys(tables: Tables, ops: Sequence[WriteOp]) -> None:
    """Refuse a message on a channel that is neither stored nor put earlier in the
    call, and a message id already stored (or inserted earlier in the call).

    A message whose sender already used its idempotency key inserts nothing,
    so neither is asked of it.

    Raises:
        StoreError: naming the message and the channel or id.
    """
    new_channels: set[str] = set()
    new_ids: set[str] = set()
    new_keys: set[tuple[str, str]] = set()
    for op in ops:
        if isinstance(op, PutChannel):
            new_channels.add(op.channel.key)
        elif isinstance(op, InsertChannelMessage):
            message = op.message
            key = _key(message)
            if key is not None and (key in tables.message_keys or key in new_keys):
                continue
            if (
                message.channel_key not in tables.channels
                and message.channel_key not in new_channels
            ):
                raise StoreError(unknown_channel(message))
            if message.id in tables.messages or message.id in new_ids:
                raise StoreError(f"channel message {message.id!r} already exists")
            new_ids.add(message.id)
            if key is not None:
                new_keys.add(key)


def _key(message: ChannelMessage) -> tuple[str, str] | None:
    key = message.idempotency_key
    return None if key is None else (message.sender_id, key)


def apply(tables: Tables, op: ChannelOp) -> Any:
    """Apply one checked channel op; its result as :mod:`attn.store.ops` defines it."""
    if isinstance(op, PutChannel):
        stored = tables.channels.get(op.channel.key)
        channel = op.channel
        if stored is not None:
            channel = replace(stored, name=channel.name, members=channel.members)
        tables.channels[channel.key] = channel
        return channel
    if isinstance(op, InsertChannelMessage):
        return _insert(tables, op.message)
    if isinstance(op, SetDeliveries):
        found = tables.messages.get(op.message_id)
        if found is None:
            return False
        tables.messages[found.id] = replace(found, deliveries=op.deliveries)
        _index_pending(tables, tables.messages[found.id])
        return True
    tables.delegations[op.delegation.id] = op.delegation
    return op.delegation


def _insert(tables: Tables, message: ChannelMessage) -> tuple[ChannelMessage, bool]:
    key = _key(message)
    if key is not None:
        existing = tables.message_keys.get(key)
        if existing is not None:
            return tables.messages[existing], False
    tables.message_seq += 1
    stored = replace(message, seq=tables.message_seq)
    tables.messages[stored.id] = stored
    tables.by_channel.setdefault(stored.channel_key, []).append(stored.id)
    tables.by_conversation.setdefault(stored.conversation_id, []).append(stored.id)
    if key is not None:
        tables.message_keys[key] = stored.id
    _index_pending(tables, stored)
    return stored, True


def _index_pending(tables: Tables, message: ChannelMessage) -> None:
    if undelivered(message.deliveries):
        tables.undelivered.add(message.id)
    else:
        tables.undelivered.discard(message.id)


# -- reads --------------------------------------------------------------------------


def find_channels(tables: Tables, member: str | None, kinds: list[str] | None) -> list[Channel]:
    """Channels ordered by key: ``member``'s (None: all), of ``kinds`` (None: any)."""
    return [
        tables.channels[key]
        for key in sorted(tables.channels)
        if (member is None or member in tables.channels[key].members)
        and (kinds is None or tables.channels[key].kind in kinds)
    ]


def page(
    tables: Tables,
    ids: list[str],
    before_seq: int | None,
    limit: int,
    channel_key: str | None = None,
) -> list[ChannelMessage]:
    """The newest ``limit`` messages of ``ids`` (in seq order) below ``before_seq``,
    of one channel when given, oldest first."""
    messages = tables.messages
    end = len(ids) if before_seq is None else bisect_left(ids, before_seq, key=_seq(tables))
    found: list[ChannelMessage] = []
    for index in range(end - 1, -1, -1):
        message = messages[ids[index]]
        if channel_key is None or message.channel_key == channel_key:
            found.append(message)
            if len(found) == limit:
                break
    found.reverse()
    return found


def _seq(tables: Tables) -> Any:
    messages = tables.messages
    return lambda message_id: messages[message_id].seq


def find_undelivered(tables: Tables, limit: int) -> list[ChannelMessage]:
    """Messages with a pending delivery, oldest first, at most ``limit``."""
    pending = sorted((tables.messages[i] for i in tables.undelivered), key=lambda m: m.seq)
    return pending[:limit]


def find_delegations(
    tables: Tables, agent_id: str, conversation_id: str | None
) -> list[Delegation]:
    """Delegations ``agent_id`` made or was given, oldest first (then by id)."""
    found = [
        d
        for d in tables.delegations.values()
        if agent_id in (d.delegator, d.delegate)
        and (conversation_id is None or d.conversation_id == conversation_id)
    ]
    found.sort(key=lambda d: (d.created_at, d.id))
    return found
