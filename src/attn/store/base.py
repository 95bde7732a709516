"""The store interface: every byte attn persists goes through a :class:`Store`.

Writes are lists of :data:`WriteOp` (defined in :mod:`attn.store.ops`, named
here too) applied in one transaction by
:meth:`Store.write`; it returns only after the transaction is committed.
Every backend first checks them with :func:`attn.store._checks.check_write`,
the one home of their rules.
Backends may commit several concurrent ``write`` calls in one transaction
(group commit), but each call stays atomic and each caller is answered after
its own commit.

Spec: 000 §6 (tables, lifecycle), §17 (recovery reads), §8 (memories). Implementations:
:class:`~attn.store.memory.MemoryStore`, :class:`~attn.store.sqlite.SQLiteStore`,
:class:`~attn.store.postgres.PostgresStore`; one contract suite tests all three.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from attn.models import (
    Activity,
    ActivityLog,
    Decision,
    ItemStatus,
    MailboxItem,
    Memory,
    TreeAgent,
)
from attn.store.ops import (
    ACTIVITY_UPDATE_FIELDS,
    APPROVAL_UPDATE_FIELDS,
    CALLBACK_UPDATE_FIELDS,
    ITEM_UPDATE_FIELDS,
    DeleteCallback,
    DeleteMemory,
    InsertActivity,
    InsertApproval,
    InsertCallback,
    InsertChannelMessage,
    InsertDecision,
    InsertItem,
    InsertLogs,
    InsertNotification,
    InsertSessionMessage,
    MarkNotificationsRead,
    PutAgentSetting,
    PutChannel,
    PutDelegation,
    PutTreeAgent,
    SaveMemory,
    SetDeliveries,
    SetNotificationWebhook,
    UpdateActivity,
    UpdateApproval,
    UpdateCallback,
    UpdateItem,
    WriteOp,
)
from attn.store.ports import ChannelPort, PeoplePort

if TYPE_CHECKING:
    from attn.models import PendingCallback


@dataclass(frozen=True, slots=True)
class ItemQuery:
    """A filter over one agent's mailbox items, newest first unless ``oldest_first``.

    ``statuses``/``source_types`` of None mean any. ``limit`` and ``offset`` page;
    ``before_seq`` pages by key instead (only items with a smaller ``seq``), so a
    page never repeats an item when others are added or change status meanwhile.
    ``after_seq`` keeps only items with a larger ``seq``: with ``oldest_first``, a
    page is the next items after a cursor (catch-up reads, MCP-05). ``seq`` is
    the agent's commit order on every backend: once an item is visible, no item
    of that agent with a smaller ``seq`` becomes visible later, so paging on with
    ``after_seq`` set to the last ``seq`` read misses and repeats nothing.
    (Filters apply when read: an item that later changes into a filtered-for
    status below the cursor is not read again.) The cursors bound ``limit``
    and ``offset``, never :meth:`Store.count_items`.

    Both cursors are None or an int (not a bool): ``after_seq`` 0 .. 2**63-1,
    ``before_seq`` -2**63 .. 2**63-1; anything else is
    :class:`~attn.errors.InvalidInput`.
    """

    agent_id: str
    statuses: tuple[ItemStatus, ...] | None = None
    source_types: tuple[str, ...] | None = None
    limit: int = 100
    offset: int = 0
    oldest_first: bool = False
    before_seq: int | None = None
    after_seq: int | None = None


@dataclass(frozen=True, slots=True)
class Timeline:
    """One agent's mailbox as of one instant: what :meth:`Store.read_timeline` returns.

    Every part comes from the same snapshot, so an item is in exactly one of
    ``queued`` (status queued) and the history it belongs to, whatever the agent
    does meanwhile.

    Attributes:
        queued: queued items in claim order (priority, then ``seq``), at most the
            ``queue_limit`` asked for.
        history: the page of items matching the query, ordered by ``seq``.
        total: how many items match the query (ignoring paging).
        counts_by_status: the agent's items per status.
        counts_by_type: the agent's items per source type.
        decisions: the decisions of the ``history`` items, oldest first.
        activities: the activities of the ``history`` items, oldest first.
    """

    queued: list[MailboxItem]
    history: list[MailboxItem]
    total: int
    counts_by_status: dict[str, int]
    counts_by_type: dict[str, int]
    decisions: list[Decision]
    activities: list[Activity]


@dataclass(slots=True)
class StoreStatistics:
    """What a store reports about itself (counts since open)."""

    backend: str
    transactions: int = 0
    write_calls: int = 0
    largest_batch: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Store(ChannelPort, PeoplePort, Protocol):
    """Persistence for mailbox items, decisions, activities and logs.

    All methods are coroutines except :meth:`statistics`. After :meth:`close`
    every call raises :class:`~attn.errors.StoreClosed`. Driver errors are
    raised as :class:`~attn.errors.StoreError` with the cause chained.
    """

    backend: str

    async def open(self) -> None:
        """Connect, create or migrate the schema. Idempotent."""

    async def close(self) -> None:
        """Finish pending writes and release every resource. Idempotent."""

    async def write(self, ops: Sequence[WriteOp]) -> list[Any]:
        """Apply ``ops`` in one transaction; return one result per op, in order.

        Returns after commit. If any op fails nothing of this call is applied
        and :class:`~attn.errors.StoreError` is raised.
        """

    def submit(self, ops: Sequence[WriteOp]) -> asyncio.Future[list[Any]]:
        """Start :meth:`write` without waiting for it (write-behind).

        The returned future resolves with the results after commit (or fails
        with :class:`~attn.errors.StoreError`). Successive ``submit`` calls are
        applied in call order. Must be called from the running event loop.
        """

    async def get_item(self, item_id: str) -> MailboxItem | None:
        """The item with that id, or None."""

    async def get_item_by_key(self, agent_id: str, idempotency_key: str) -> MailboxItem | None:
        """The agent's item enqueued with that idempotency key, or None."""

    async def find_items(self, query: ItemQuery) -> list[MailboxItem]:
        """Items matching ``query``, ordered by ``seq`` (newest first by default)."""

    async def count_items(self, query: ItemQuery) -> int:
        """How many items match ``query`` (ignores limit and offset)."""

    async def load_queue(self, agent_id: str) -> list[MailboxItem]:
        """The agent's queued items in claim order: priority, then ``seq``."""

    async def claim_next(self, agent_id: str, started_at: datetime) -> MailboxItem | None:
        """Atomically move the agent's next queued item to processing.

        Claims nothing (returns None) when the agent already has an item in
        processing or has none queued. Sets ``started_at``; served by the
        ``(agent_id, status, priority, seq)`` index.
        """

    async def read_timeline(self, query: ItemQuery, queue_limit: int) -> Timeline:
        """The agent's queue, one page of its items and their decisions and
        activities, and its counts, all read in one snapshot (one read transaction).

        Args:
            query: the page of items for ``history``.
            queue_limit: most queued items returned (>= 0).

        Raises:
            InvalidInput: a negative limit, offset or queue limit, or an unknown status.
        """

    async def find_decisions(
        self,
        agent_id: str,
        item_id: str | None = None,
        limit: int = 100,
        offset: int = 0,
        before: int | None = None,
    ) -> list[Decision]:
        """Decisions, newest commit first (the store's ``seq``, never the wall-clock
        ``created_at``, which jumps with the clock); only those for ``item_id`` when
        given; only those committed before the decision of seq ``before`` when given."""

    async def find_activities(self, agent_id: str, item_ids: Sequence[str]) -> list[Activity]:
        """Activities linked to the given items."""

    async def get_activity(self, activity_id: str) -> Activity | None:
        """The activity with that id, or None."""

    async def find_activity_logs(
        self, activity_id: str, after_seq: int | None = None, limit: int | None = None
    ) -> list[ActivityLog]:
        """Log entries of one activity in ``seq`` order.

        Args:
            activity_id: the activity.
            after_seq: only entries with a larger ``seq`` (a page's cursor).
            limit: most entries returned; None for all.
        """

    async def count_by_status(self, agent_id: str) -> dict[str, int]:
        """Number of the agent's items per status."""

    async def agent_ids(self) -> list[str]:
        """Every agent id that has items, sorted."""

    async def acquire_host(self) -> None:
        """Claim the right to host this database's agents for this process.

        Raises:
            RuntimeLocked: another live process holds it (SQLite: a file lock
                beside the database; PostgreSQL: an advisory lock).
        """

    async def release_host(self) -> None:
        """Give up the host right. Idempotent; also done by :meth:`close`."""

    def statistics(self) -> StoreStatistics:
        """Counters: transactions, write calls, largest group-commit batch."""

    # -- time: pending callbacks and agent settings (000 §11.3, §11.4) ------------

    async def get_callback(self, agent_id: str, callback_id: str) -> PendingCallback | None:
        """The agent's callback with that id, or None (another agent's is None too)."""

    async def find_callbacks(
        self, agent_id: str, types: Sequence[str] | None = None
    ) -> list[PendingCallback]:
        """The agent's stored callbacks (any status), oldest registration first.

        ``types``: only these callback types; None means any.
        """

    async def claim_due_callbacks(
        self,
        now: datetime,
        claimed_by: str,
        *,
        agent_ids: Sequence[str] | None = None,
        limit: int = 100,
        stale_before: datetime | None = None,
    ) -> list[PendingCallback]:
        """Atomically claim due callbacks for one runtime, earliest due first.

        Claims (sets ``status`` to ``claimed``, ``claimed_by`` and
        ``claimed_at = now``) at most ``limit`` callbacks with a ``due_at`` that
        are either ``pending`` and due (``due_at <= now``) or ``claimed`` before
        ``stale_before`` (their claimer died). Concurrent calls, also from other
        processes on the same database, never claim the same callback twice.

        Args:
            now: the claim instant (UTC).
            claimed_by: the claiming runtime's id.
            agent_ids: only these agents' callbacks; None means every agent's.
            limit: most callbacks claimed by this call (>= 1).
            stale_before: reclaim claims older than this; None never reclaims.

        Returns:
            The claimed callbacks as stored after the claim, earliest due first.

        Raises:
            InvalidInput: ``limit`` < 1. StoreError: naive datetimes, driver errors.
        """

    async def get_agent_settings(self, agent_id: str) -> dict[str, Any]:
        """Every stored setting of the agent, by name (JSON values)."""

    # -- long-term memory (000 §8) ---------------------------------------------------

    async def search_memories(self, agent_id: str, query: str, limit: int = 5) -> list[Memory]:
        """The agent's memory entries that share words with ``query``, best first.

        Words are the lower-case word tokens (``\\w+``) of the content and key;
        entries are ranked by how many distinct words of the query they hold,
        then newest ``updated_at`` first, then id (descending). Entries sharing
        no word are left out; a query with no words finds nothing.

        Args:
            agent_id: whose memory is searched.
            query: text of at most 1,000 characters.
            limit: most entries answered, 1..50.

        Raises:
            InvalidInput: ``query`` is not text or too long, or ``limit`` is
                not an integer in 1..50.
        """

    async def count_memories(self, agent_id: str) -> int:
        """How many memory entries the agent keeps."""

    # -- spawn trees (seed 002) ------------------------------------------------------

    async def get_tree_agent(self, agent_id: str) -> TreeAgent | None:
        """The stored node with that agent id (whatever its state), or None."""

    async def find_tree_agents(self, tree_id: str | None = None) -> list[TreeAgent]:
        """Stored nodes (every state) of one tree, or of all trees when ``tree_id``
        is None, ordered by ``created_at`` then id."""


__all__ = [
    "ACTIVITY_UPDATE_FIELDS",
    "APPROVAL_UPDATE_FIELDS",
    "CALLBACK_UPDATE_FIELDS",
    "ITEM_UPDATE_FIELDS",
    "DeleteCallback",
    "DeleteMemory",
    "InsertActivity",
    "InsertApproval",
    "InsertCallback",
    "InsertChannelMessage",
    "InsertDecision",
    "InsertItem",
    "InsertLogs",
    "InsertNotification",
    "InsertSessionMessage",
    "ItemQuery",
    "MarkNotificationsRead",
    "PutAgentSetting",
    "PutChannel",
    "PutDelegation",
    "PutTreeAgent",
    "SaveMemory",
    "SetDeliveries",
    "SetNotificationWebhook",
    "Store",
    "StoreStatistics",
    "Timeline",
    "UpdateActivity",
    "UpdateApproval",
    "UpdateCallback",
    "UpdateItem",
    "WriteOp",
]
