"""The state of a :class:`~attn.store.memory.MemoryStore`: a dict or two per table."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from attn.models import (
    Activity,
    ActivityLog,
    CallbackStatus,
    Channel,
    ChannelMessage,
    Decision,
    Delegation,
    MailboxItem,
    Memory,
    PendingCallback,
    TreeAgent,
)
from attn.models.people import Approval, Notification, SessionMessage


@dataclass(slots=True)
class Tables:
    """Every row a memory store holds, keyed as the SQL schema keys them.

    Attributes:
        items: mailbox items by id.
        by_key: item id by ``(agent_id, idempotency_key)`` (the unique index).
        decisions: decisions in commit order (their ``seq`` is position + 1).
        activities: activities by id.
        logs: activity log entries by activity id.
        seq: the last item ``seq`` assigned.
        callbacks: pending callbacks by id.
        due: ``(due_at, id)`` of callbacks that were pending with that due
            time, a heap; entries that no longer match the stored callback are
            skipped when popped (lazy deletion).
        settings: agent settings by ``(agent_id, name)``.
        memories: each agent's long-term memory entries, by agent id, then id.
        memory_agents: the agent of each memory id (the primary key).
        memory_keys: memory id by ``(agent_id, key)`` (the unique index).
        memory_words: the words of each memory id (the ``words`` column).
        channels: channels by key.
        messages: channel messages by id, in ``seq`` order (a dict keeps the
            order of insertion, and a message's ``seq`` never changes).
        message_keys: message id by ``(sender_id, idempotency_key)`` (the unique index).
        message_seq: the last message ``seq`` assigned (one counter over all channels).
        by_channel: each channel's message ids in ``seq`` order (the
            ``(channel_key, seq)`` index).
        by_conversation: each conversation's message ids in ``seq`` order.
        undelivered: ids of the messages with a pending delivery.
        delegations: delegations by id.
        tree_agents: spawn-tree nodes by id.
        tree_paths: node id by ``(tree_id, path)`` (the unique index).
        notifications: user notifications by id.
        approvals: approvals by id.
        sessions: each ``(agent_id, session_id)``'s messages in ``seq`` order
            (the ``(agent_id, session_id, seq)`` index).
        session_ids: the ids of every session message (the unique ``id``).
        session_seq: the last session message ``seq`` assigned (one counter
            over all sessions).
    """

    items: dict[str, MailboxItem] = field(default_factory=dict)
    by_key: dict[tuple[str, str], str] = field(default_factory=dict)
    decisions: list[Decision] = field(default_factory=list)
    activities: dict[str, Activity] = field(default_factory=dict)
    logs: dict[str, list[ActivityLog]] = field(default_factory=dict)
    seq: int = 0
    callbacks: dict[str, PendingCallback] = field(default_factory=dict)
    due: list[tuple[datetime, str]] = field(default_factory=list)
    settings: dict[tuple[str, str], Any] = field(default_factory=dict)
    memories: dict[str, dict[str, Memory]] = field(default_factory=dict)
    memory_agents: dict[str, str] = field(default_factory=dict)
    memory_keys: dict[tuple[str, str], str] = field(default_factory=dict)
    memory_words: dict[str, frozenset[str]] = field(default_factory=dict)
    channels: dict[str, Channel] = field(default_factory=dict)
    messages: dict[str, ChannelMessage] = field(default_factory=dict)
    message_keys: dict[tuple[str, str], str] = field(default_factory=dict)
    message_seq: int = 0
    by_channel: dict[str, list[str]] = field(default_factory=dict)
    by_conversation: dict[str, list[str]] = field(default_factory=dict)
    undelivered: set[str] = field(default_factory=set)
    delegations: dict[str, Delegation] = field(default_factory=dict)
    tree_agents: dict[str, TreeAgent] = field(default_factory=dict)
    tree_paths: dict[tuple[str, str], str] = field(default_factory=dict)
    notifications: dict[str, Notification] = field(default_factory=dict)
    approvals: dict[str, Approval] = field(default_factory=dict)
    sessions: dict[tuple[str, str], list[SessionMessage]] = field(default_factory=dict)
    session_ids: set[str] = field(default_factory=set)
    session_seq: int = 0

    def index_due(self, callback: PendingCallback) -> None:
        """Remember ``callback``'s due time if it is pending with one."""
        if callback.due_at is not None and callback.status == CallbackStatus.PENDING:
            heapq.heappush(self.due, (callback.due_at, callback.id))
