"""An in-memory :class:`~attn.store.base.Store`: same contract, no persistence.

For unit tests and for users who want no durability. Writes are atomic per
call (every op is checked before any is applied) and objects handed in or
out are copies, so callers never share state with the store.

Spec: 000 §6 (tables, lifecycle); the contract suite in ``tests/store``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from attn.errors import StoreClosed, StoreError
from attn.models import (
    Activity,
    ActivityLog,
    Channel,
    ChannelMessage,
    Decision,
    Delegation,
    ItemStatus,
    MailboxItem,
    Memory,
    PendingCallback,
    TreeAgent,
)
from attn.store._channels import (
    check_channel_filter,
    check_history,
    check_lookup,
    check_undelivered,
)
from attn.store._checks import (
    check_claim,
    check_cursors,
    check_instant,
    check_page,
    check_query,
    check_statuses,
    check_write,
)
from attn.store._memories import check_search
from attn.store._tree import check_tree_lookup
from attn.store.base import ItemQuery, StoreStatistics, Timeline, WriteOp
from attn.store.memory import channels, reads, tree, writes
from attn.store.memory.people import PeopleReads
from attn.store.memory.tables import Tables


class MemoryStore(PeopleReads):
    """Keeps everything in dicts; lost when the process ends."""

    backend = "memory"

    def __init__(self) -> None:
        self._tables = Tables()
        self._open = False
        self._closed = False
        self._stats = StoreStatistics(backend=self.backend)

    async def open(self) -> None:
        """Make the store usable. Idempotent.

        Raises:
            StoreClosed: the store was closed; create a new one.
        """
        if self._closed:
            raise StoreClosed("the memory store was closed; create a new one")
        self._open = True

    async def close(self) -> None:
        """Refuse every later call. Idempotent."""
        self._closed = True

    async def acquire_host(self) -> None:
        """Nothing to lock: a memory store belongs to one process."""
        self._check()

    async def release_host(self) -> None:
        """Nothing to unlock."""
        return None

    def _check(self) -> None:
        if self._closed:
            raise StoreClosed("the store is closed")
        if not self._open:
            raise StoreError("the store is not open; call open() first")

    # -- writes ---------------------------------------------------------------------

    async def write(self, ops: Sequence[WriteOp]) -> list[Any]:
        """Apply ``ops`` atomically; one result per op (see :mod:`attn.store.base`).

        Raises:
            StoreError: an op breaks a rule (nothing is applied).
            InvalidInput: a tree node or a people record breaks its rules
                (nothing is applied).
            StoreClosed: the store is closed.
        """
        self._check()
        check_write(ops, serializable=True)
        writes.check_keys(self._tables, ops)
        self._stats.largest_batch = max(self._stats.largest_batch, 1)
        return self._apply(ops)

    def submit(self, ops: Sequence[WriteOp]) -> asyncio.Future[list[Any]]:
        """Like :meth:`write`, answered through a future that is already resolved."""
        future: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        try:
            self._check()
            check_write(ops, serializable=True)
            writes.check_keys(self._tables, ops)
        except Exception as exc:
            future.set_exception(exc)
            return future
        future.set_result(self._apply(ops))
        return future

    def _apply(self, ops: Sequence[WriteOp]) -> list[Any]:
        self._stats.write_calls += 1
        self._stats.transactions += 1
        return [writes.apply(self._tables, op) for op in ops]

    async def claim_next(self, agent_id: str, started_at: datetime) -> MailboxItem | None:
        """Move the agent's next queued item to processing (none while one is)."""
        self._check()
        check_instant(started_at, "started_at")
        mine = [i for i in self._tables.items.values() if i.agent_id == agent_id]
        if any(i.status == ItemStatus.PROCESSING for i in mine):
            return None
        queued = [i for i in mine if i.status == ItemStatus.QUEUED]
        if not queued:
            return None
        head = min(queued, key=lambda i: (i.priority, i.seq))
        head.status = ItemStatus.PROCESSING
        head.started_at = started_at
        await asyncio.sleep(0)
        return head.copy()

    async def claim_due_callbacks(
        self,
        now: datetime,
        claimed_by: str,
        *,
        agent_ids: Sequence[str] | None = None,
        limit: int = 100,
        stale_before: datetime | None = None,
    ) -> list[PendingCallback]:
        """Claim due callbacks, earliest due first (see the protocol).

        Raises:
            InvalidInput: ``limit`` < 1. StoreError: a naive datetime.
        """
        self._check()
        check_claim(now, claimed_by, limit, stale_before)
        return writes.claim_callbacks(self._tables, now, claimed_by, agent_ids, limit, stale_before)

    # -- reads ----------------------------------------------------------------------

    async def get_item(self, item_id: str) -> MailboxItem | None:
        """The item with that id, or None."""
        self._check()
        return reads.get_item(self._tables, item_id)

    async def get_item_by_key(self, agent_id: str, idempotency_key: str) -> MailboxItem | None:
        """The agent's item enqueued with that idempotency key, or None."""
        self._check()
        return reads.get_item_by_key(self._tables, agent_id, idempotency_key)

    async def find_items(self, query: ItemQuery) -> list[MailboxItem]:
        """Items matching ``query`` ordered by seq, newest first unless ``oldest_first``."""
        self._check()
        check_query(query)
        return reads.find_items(self._tables, query)

    async def count_items(self, query: ItemQuery) -> int:
        """How many items match ``query`` (limit, offset and cursors ignored)."""
        self._check()
        check_statuses(query.statuses)
        check_cursors(query)
        return reads.count_items(self._tables, query)

    async def load_queue(self, agent_id: str) -> list[MailboxItem]:
        """The agent's queued items in claim order: priority, then seq."""
        self._check()
        return reads.load_queue(self._tables, agent_id)

    async def read_timeline(self, query: ItemQuery, queue_limit: int) -> Timeline:
        """Queue, a page of items, their decisions and activities, and counts (one view)."""
        self._check()
        check_query(query)
        check_page(queue_limit, 0)
        return reads.read_timeline(self._tables, query, queue_limit)

    async def find_decisions(
        self,
        agent_id: str,
        item_id: str | None = None,
        limit: int = 100,
        offset: int = 0,
        before: int | None = None,
    ) -> list[Decision]:
        """Decisions newest commit first (see the protocol)."""
        self._check()
        check_page(limit, offset)
        return reads.find_decisions(self._tables, agent_id, item_id, limit, offset, before)

    async def find_activities(self, agent_id: str, item_ids: Sequence[str]) -> list[Activity]:
        """The agent's activities linked to any of ``item_ids``."""
        self._check()
        return reads.find_activities(self._tables, agent_id, item_ids)

    async def get_activity(self, activity_id: str) -> Activity | None:
        """The activity with that id, or None."""
        self._check()
        return reads.get_activity(self._tables, activity_id)

    async def find_activity_logs(
        self, activity_id: str, after_seq: int | None = None, limit: int | None = None
    ) -> list[ActivityLog]:
        """Log entries of one activity in seq order (after ``after_seq``, at most ``limit``)."""
        self._check()
        return reads.find_activity_logs(self._tables, activity_id, after_seq, limit)

    async def count_by_status(self, agent_id: str) -> dict[str, int]:
        """Number of the agent's items per status."""
        self._check()
        return reads.count_by_status(self._tables, agent_id)

    async def agent_ids(self) -> list[str]:
        """Every agent id that has items, sorted."""
        self._check()
        return reads.agent_ids(self._tables)

    def statistics(self) -> StoreStatistics:
        """Counters since creation: transactions and write calls (one per call)."""
        return replace(self._stats)

    async def get_callback(self, agent_id: str, callback_id: str) -> PendingCallback | None:
        """The agent's callback with that id, or None."""
        self._check()
        return reads.get_callback(self._tables, agent_id, callback_id)

    async def find_callbacks(
        self, agent_id: str, types: Sequence[str] | None = None
    ) -> list[PendingCallback]:
        """The agent's callbacks, oldest registration first; only ``types`` when given."""
        self._check()
        return reads.find_callbacks(self._tables, agent_id, types)

    async def get_agent_settings(self, agent_id: str) -> dict[str, Any]:
        """Every stored setting of the agent, by name."""
        self._check()
        return reads.agent_settings(self._tables, agent_id)

    async def search_memories(self, agent_id: str, query: str, limit: int = 5) -> list[Memory]:
        """The agent's memory entries sharing words with ``query``, best first.

        Raises:
            InvalidInput: a query over 1,000 characters or a limit outside 1..50.
        """
        self._check()
        return reads.search_memories(self._tables, agent_id, check_search(query, limit), limit)

    async def count_memories(self, agent_id: str) -> int:
        """How many memory entries the agent keeps."""
        self._check()
        return len(self._tables.memories.get(agent_id, {}))

    # -- channels (000 §11.1) ---------------------------------------------------------

    async def get_channel(self, key: str) -> Channel | None:
        """The channel with that key, or None."""
        self._check()
        return self._tables.channels.get(check_lookup(key, "channel key"))

    async def find_channels(
        self, member: str | None = None, kinds: Sequence[str] | None = None
    ) -> list[Channel]:
        """Channels ordered by key: ``member``'s (None: all), of ``kinds`` (None: any)."""
        self._check()
        wanted = check_channel_filter(member, kinds)
        return channels.find_channels(self._tables, member, wanted)

    async def get_channel_message(self, message_id: str) -> ChannelMessage | None:
        """The message with that id, or None."""
        self._check()
        return self._tables.messages.get(check_lookup(message_id, "channel message id"))

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
        self._check()
        check_history(channel_key, "channel key", before_seq, limit)
        tables = self._tables
        if conversation_id is None:
            ids = tables.by_channel.get(channel_key, [])
            return channels.page(tables, ids, before_seq, limit)
        ids = tables.by_conversation.get(check_lookup(conversation_id, "conversation id"), [])
        return channels.page(tables, ids, before_seq, limit, channel_key)

    async def find_conversation(
        self, conversation_id: str, *, before_seq: int | None = None, limit: int = 50
    ) -> list[ChannelMessage]:
        """One page of a conversation on any channel, oldest first (see the protocol).

        Raises:
            InvalidInput: a bad id or ``before_seq``, or ``limit`` outside 1..500.
        """
        self._check()
        check_history(conversation_id, "conversation id", before_seq, limit)
        ids = self._tables.by_conversation.get(conversation_id, [])
        return channels.page(self._tables, ids, before_seq, limit)

    async def find_undelivered_messages(self, limit: int = 1000) -> list[ChannelMessage]:
        """Messages with a pending delivery, oldest first.

        Raises:
            InvalidInput: ``limit`` outside 1..10,000.
        """
        self._check()
        check_undelivered(limit)
        return channels.find_undelivered(self._tables, limit)

    async def get_delegation(self, delegation_id: str) -> Delegation | None:
        """The delegation with that id, or None."""
        self._check()
        return self._tables.delegations.get(check_lookup(delegation_id, "delegation id"))

    async def find_delegations(
        self, agent_id: str, *, conversation_id: str | None = None
    ) -> list[Delegation]:
        """Delegations the agent made or was given, oldest first."""
        self._check()
        check_lookup(agent_id, "agent id")
        if conversation_id is not None:
            check_lookup(conversation_id, "conversation id")
        return channels.find_delegations(self._tables, agent_id, conversation_id)

    # -- spawn trees (seed 002) -------------------------------------------------------

    async def get_tree_agent(self, agent_id: str) -> TreeAgent | None:
        """The stored node with that agent id (whatever its state), or None.

        Raises:
            InvalidInput: ``agent_id`` is not a non-blank string of at most 200 characters.
        """
        self._check()
        return tree.get(self._tables, check_tree_lookup(agent_id, "agent id"))

    async def find_tree_agents(self, tree_id: str | None = None) -> list[TreeAgent]:
        """Stored nodes of one tree (None: of all trees), ordered by ``created_at`` then id.

        Raises:
            InvalidInput: ``tree_id`` is neither None nor a non-blank string of at
                most 200 characters.
        """
        self._check()
        if tree_id is not None:
            check_tree_lookup(tree_id, "tree id")
        return tree.find(self._tables, tree_id)
