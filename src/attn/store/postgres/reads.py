"""The read side of :class:`~attn.store.postgres.PostgresStore`: plain pooled queries.

Reads take no transaction: each is one statement on its own snapshot.
Spec: 000 §6 (queries over the tables), §17 (recovery reads).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, TypeAlias

import asyncpg

from attn.errors import StoreError
from attn.limits import load_stored
from attn.models import Activity, ActivityLog, Decision, MailboxItem, Memory, PendingCallback
from attn.store._checks import check_cursors, check_page, check_query, check_statuses
from attn.store._memories import check_search
from attn.store.base import ItemQuery, Timeline
from attn.store.postgres import codec, memories, queries
from attn.store.postgres.channels import ChannelReads
from attn.store.postgres.people import PeopleReads
from attn.store.postgres.tree import TreeReads

Pool: TypeAlias = "asyncpg.Pool[asyncpg.Record]"

#: What the driver raises when the server or the network fails.
DRIVER_ERRORS: tuple[type[BaseException], ...] = (
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    OSError,
    TimeoutError,
)


class PostgresReads(ChannelReads, TreeReads, PeopleReads, ABC):
    """Queries of the :class:`~attn.store.base.Store` protocol; the store supplies the pool."""

    @abstractmethod
    def _require(self) -> Pool:
        """The open pool (raises StoreClosed / StoreError otherwise)."""

    async def _fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        pool = self._require()
        try:
            return await pool.fetch(sql, *args)
        except DRIVER_ERRORS as exc:
            raise StoreError(f"read failed on PostgreSQL: {exc}") from exc

    async def get_item(self, item_id: str) -> MailboxItem | None:
        rows = await self._fetch(queries.GET_ITEM, item_id)
        return codec.decode_item(rows[0]) if rows else None

    async def get_item_by_key(self, agent_id: str, idempotency_key: str) -> MailboxItem | None:
        """The agent's item enqueued with that idempotency key, or None."""
        rows = await self._fetch(queries.SELECT_BY_IDEMPOTENCY_KEY, agent_id, idempotency_key)
        return codec.decode_item(rows[0]) if rows else None

    @staticmethod
    def _filter_args(query: ItemQuery) -> tuple[Any, ...]:
        check_statuses(query.statuses)
        statuses = [str(s) for s in query.statuses] if query.statuses is not None else None
        types = list(query.source_types) if query.source_types is not None else None
        return (query.agent_id, statuses, types)

    async def find_items(self, query: ItemQuery) -> list[MailboxItem]:
        rows = await self._fetch(*self._page(query))
        return [codec.decode_item(row) for row in rows]

    def _page(self, query: ItemQuery) -> tuple[Any, ...]:
        check_query(query)
        sql = queries.FIND_ITEMS_OLDEST if query.oldest_first else queries.FIND_ITEMS_NEWEST
        cursors = (query.before_seq, query.after_seq)
        return (sql, *self._filter_args(query), query.limit, query.offset, *cursors)

    async def read_timeline(self, query: ItemQuery, queue_limit: int) -> Timeline:
        """Everything in one read-only REPEATABLE READ transaction: one snapshot."""
        page_sql, *page_args = self._page(query)
        check_page(queue_limit, 0)
        agent_id = query.agent_id
        pool = self._require()
        try:
            async with (
                pool.acquire() as conn,
                conn.transaction(isolation="repeatable_read", readonly=True),
            ):
                queued = await conn.fetch(queries.LOAD_QUEUE_PAGE, agent_id, queue_limit)
                page = await conn.fetch(page_sql, *page_args)
                total = await conn.fetchval(queries.COUNT_ITEMS, *self._filter_args(query))
                by_status = await conn.fetch(queries.COUNT_BY_STATUS, agent_id)
                by_type = await conn.fetch(queries.COUNT_BY_TYPE, agent_id)
                ids = [row["id"] for row in page]
                decisions = await conn.fetch(queries.FIND_ITEM_DECISIONS, agent_id, ids)
                activities = await conn.fetch(queries.FIND_ACTIVITIES, agent_id, ids)
        except DRIVER_ERRORS as exc:
            raise StoreError(f"read failed on PostgreSQL: {exc}") from exc
        return Timeline(
            [codec.decode_item(row) for row in queued],
            [codec.decode_item(row) for row in page],
            int(total),
            {row[0]: int(row[1]) for row in by_status},
            {row[0]: int(row[1]) for row in by_type},
            [codec.decode_decision(row) for row in decisions],
            [codec.decode_activity(row) for row in activities],
        )

    async def count_items(self, query: ItemQuery) -> int:
        check_cursors(query)
        rows = await self._fetch(queries.COUNT_ITEMS, *self._filter_args(query))
        return int(rows[0][0])

    async def load_queue(self, agent_id: str) -> list[MailboxItem]:
        return [codec.decode_item(row) for row in await self._fetch(queries.LOAD_QUEUE, agent_id)]

    async def find_decisions(
        self,
        agent_id: str,
        item_id: str | None = None,
        limit: int = 100,
        offset: int = 0,
        before: int | None = None,
    ) -> list[Decision]:
        check_page(limit, offset)
        rows = await self._fetch(queries.FIND_DECISIONS, agent_id, item_id, limit, offset, before)
        return [codec.decode_decision(row) for row in rows]

    async def find_activities(self, agent_id: str, item_ids: Sequence[str]) -> list[Activity]:
        rows = await self._fetch(queries.FIND_ACTIVITIES, agent_id, list(item_ids))
        return [codec.decode_activity(row) for row in rows]

    async def get_activity(self, activity_id: str) -> Activity | None:
        rows = await self._fetch(queries.GET_ACTIVITY, activity_id)
        return codec.decode_activity(rows[0]) if rows else None

    async def find_activity_logs(
        self, activity_id: str, after_seq: int | None = None, limit: int | None = None
    ) -> list[ActivityLog]:
        rows = await self._fetch(queries.FIND_ACTIVITY_LOGS, activity_id, after_seq, limit)
        return [codec.decode_log(row) for row in rows]

    async def count_by_status(self, agent_id: str) -> dict[str, int]:
        rows = await self._fetch(queries.COUNT_BY_STATUS, agent_id)
        return {row[0]: int(row[1]) for row in rows}

    async def agent_ids(self) -> list[str]:
        return sorted(row[0] for row in await self._fetch(queries.AGENT_IDS))

    # -- time ---------------------------------------------------------------------

    async def get_callback(self, agent_id: str, callback_id: str) -> PendingCallback | None:
        rows = await self._fetch(queries.GET_CALLBACK, callback_id, agent_id)
        return codec.decode_callback(rows[0]) if rows else None

    async def find_callbacks(
        self, agent_id: str, types: Sequence[str] | None = None
    ) -> list[PendingCallback]:
        wanted = None if types is None else [str(t) for t in types]
        rows = await self._fetch(queries.FIND_CALLBACKS, agent_id, wanted)
        return [codec.decode_callback(row) for row in rows]

    async def get_agent_settings(self, agent_id: str) -> dict[str, Any]:
        rows = await self._fetch(queries.GET_SETTINGS, agent_id)
        return {row["name"]: load_stored(row["value"]) for row in rows}

    async def search_memories(self, agent_id: str, query: str, limit: int = 5) -> list[Memory]:
        """The agent's memory entries sharing words with ``query``, best first.

        Raises:
            InvalidInput: a query over 1,000 characters or a limit outside 1..50.
        """
        found = check_search(query, limit)
        if not found:
            self._require()
            return []
        sql = memories.search_statement(len(found))
        rows = await self._fetch(sql, *memories.search_args(agent_id, found, limit))
        return [memories.decode(row) for row in rows]

    async def count_memories(self, agent_id: str) -> int:
        """How many memory entries the agent keeps."""
        rows = await self._fetch(memories.COUNT, agent_id)
        return int(rows[0][0])
