"""The PostgreSQL :class:`~attn.store.base.Store`: asyncpg, a pool, one transaction per write.

Several runtimes and API processes may share one database: claims serialize
per agent on a transaction-scoped advisory lock, so an agent never has two
items in ``processing`` (DESIGN invariant 3); inserts ``NOTIFY attn_mailbox``
with the agent id in the same transaction so a runtime in another process can
be woken (:meth:`PostgresStore.listen`). ``write`` calls run concurrently on
the pool; ``submit`` (write-behind) calls are group-committed in call order.
A transaction that inserts items first takes a per-agent advisory lock, so each
agent's items commit in ``seq`` order (catch-up reads, MCP-05).

Spec: 000 §6 (tables, lifecycle), §12.1 (persistence), §17 (recovery reads).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, TypeAlias
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from attn.errors import InvalidInput, StoreClosed, StoreError
from attn.models import MailboxItem, PendingCallback
from attn.store._checks import check_claim, check_instant, check_write
from attn.store.base import StoreStatistics, WriteOp
from attn.store.migrate import HEAD_REVISION, upgrade_async
from attn.store.postgres import codec, queries
from attn.store.postgres.group_commit import GroupCommit
from attn.store.postgres.host import HostLock
from attn.store.postgres.notify import Listener, WakeCallback
from attn.store.postgres.reads import DRIVER_ERRORS, PostgresReads
from attn.store.postgres.writes import Step, apply_step, compile_ops, lock_item_agents

Connection: TypeAlias = "asyncpg.Connection[asyncpg.Record]"
PooledConnection: TypeAlias = "asyncpg.pool.PoolConnectionProxy[asyncpg.Record]"
Pool: TypeAlias = "asyncpg.Pool[asyncpg.Record]"

_OPEN_ERRORS: tuple[type[BaseException], ...] = (*DRIVER_ERRORS, StoreError)
_SCHEMES = ("postgresql", "postgres", "postgresql+asyncpg")


class PostgresStore(PostgresReads):
    """Persistence on PostgreSQL (``postgresql://user@host:port/db``).

    Args:
        url: a ``postgresql://`` (or ``postgres://``, ``postgresql+asyncpg://``) URL.
        min_size: connections the pool keeps open.
        max_size: most connections the pool opens; the LISTEN and host-lock
            connections are extra, one each, opened only when used.

    Raises:
        InvalidInput: the URL is not a PostgreSQL URL or the sizes are inconsistent.
    """

    backend = "postgresql"

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 10) -> None:
        parts = urlsplit(url)
        if parts.scheme not in _SCHEMES:
            raise InvalidInput(f"expected a postgresql:// URL, got {_redact(url)!r}")
        if not 0 <= min_size <= max_size or max_size < 1:
            raise InvalidInput(
                f"expected 0 <= min_size <= max_size and max_size >= 1,"
                f" got min_size={min_size}, max_size={max_size}"
            )
        self._dsn = urlunsplit(parts._replace(scheme="postgresql"))
        self._min_size = min_size
        self._max_size = max_size
        self._pool: Pool | None = None
        self._open_lock = asyncio.Lock()
        self._closed = False
        self._group = GroupCommit(self._commit_batch)
        self._stats = StoreStatistics(backend=self.backend)
        self._host = HostLock(self._connect)
        self._listener = Listener(self._connect)

    @property
    def url(self) -> str:
        """The database URL without its password."""
        return _redact(self._dsn)

    async def _connect(self) -> Connection:
        return await asyncpg.connect(self._dsn, server_settings={"application_name": "attn"})

    # -- lifecycle --------------------------------------------------------------

    async def open(self) -> None:
        """Open the pool and migrate the schema to the newest version. Idempotent.

        Raises:
            StoreClosed: the store was closed.
            StoreError: the server is unreachable or the migration failed.
        """
        async with self._open_lock:
            if self._closed:
                raise StoreClosed(f"the PostgreSQL store for {self.url} was closed")
            if self._pool is not None:
                return
            try:
                pool = await asyncpg.create_pool(
                    self._dsn,
                    min_size=self._min_size,
                    max_size=self._max_size,
                    server_settings={"application_name": "attn"},
                )
            except DRIVER_ERRORS as exc:
                raise StoreError(f"cannot connect to PostgreSQL at {self.url}: {exc}") from exc
            try:
                if await _schema_revision(pool) != HEAD_REVISION:
                    await upgrade_async(self._dsn)
            except _OPEN_ERRORS as exc:
                await pool.close()
                raise StoreError(f"cannot migrate the schema at {self.url}: {exc}") from exc
            except BaseException:
                await pool.close()
                raise
            self._pool = pool

    async def close(self) -> None:
        """Release the host lock, stop listening, wait for in-flight calls, close the pool.

        Idempotent.
        """
        if self._closed:
            return
        self._closed = True
        await self._group.flush()  # submitted writes still commit
        async with self._open_lock:
            try:
                await self._listener.close()
                await self._host.release()
            except DRIVER_ERRORS:
                pass  # their sessions end with their connections anyway
            finally:
                pool, self._pool = self._pool, None
                if pool is not None:
                    await pool.close()

    def _require(self) -> Pool:
        if self._closed:
            raise StoreClosed(f"the PostgreSQL store for {self.url} is closed")
        if self._pool is None:
            raise StoreError("the store is not open; call open() first")
        return self._pool

    @asynccontextmanager
    async def _transaction(
        self, what: str, *, atomic: bool = True, pool: Pool | None = None
    ) -> AsyncIterator[PooledConnection]:
        """A pooled connection, in a transaction unless ``atomic`` is False
        (then each statement commits on its own: right for a single statement).

        ``pool``: the pool captured by :meth:`submit`, usable while closing."""
        pool = pool or self._require()
        try:
            async with pool.acquire() as conn:
                if atomic:
                    async with conn.transaction():
                        yield conn
                else:
                    yield conn
        except DRIVER_ERRORS as exc:
            if self._closed and self._pool is None:
                raise StoreClosed(f"the PostgreSQL store was closed during {what}") from exc
            raise StoreError(f"{what} failed on PostgreSQL: {exc}") from exc
        self._stats.transactions += 1

    # -- writes -------------------------------------------------------------------

    async def write(self, ops: Sequence[WriteOp]) -> list[Any]:
        """Apply ``ops`` in one transaction; one result per op (see :mod:`attn.store.base`).

        Each inserted item also sends ``NOTIFY attn_mailbox, '<agent_id>'``,
        delivered when the transaction commits (once per agent and transaction).

        Raises:
            StoreError: an op is malformed (nothing is sent) or the database
                refused one (the transaction is rolled back); cause chained.
            InvalidInput: a tree node or a people record breaks its rules
                (nothing is sent).
            StoreClosed: the store is closed.
        """
        pool = self._require()
        check_write(ops)
        return await self._write_steps(compile_ops(ops), pool)

    def submit(self, ops: Sequence[WriteOp]) -> asyncio.Future[list[Any]]:
        """Start :meth:`write` without waiting (write-behind); same results and errors.

        Submitted writes commit in call order, those queued meanwhile together
        in one transaction (group commit); each call stays atomic. :meth:`close`
        waits for them. Malformed ops fail the returned future at once.
        Must be called from the running event loop.
        """
        try:
            self._require()
            check_write(ops)
            steps = compile_ops(ops)
        except (StoreError, InvalidInput) as exc:
            failed: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
            failed.set_exception(exc)
            return failed
        return self._group.submit(steps)

    async def _commit_batch(self, batch: list[list[Step]]) -> list[list[Any]]:
        pool = self._pool  # still set while close() flushes the queue
        if pool is None:
            raise StoreClosed(f"the PostgreSQL store for {self.url} is closed")
        if len(batch) == 1:
            return [await self._write_steps(batch[0], pool)]
        what = f"group commit of {len(batch)} writes"
        async with self._transaction(what, pool=pool) as conn:
            await lock_item_agents(conn, [step for steps in batch for step in steps])
            results = [[await apply_step(conn, step) for step in steps] for steps in batch]
        self._stats.write_calls += len(batch)
        self._stats.largest_batch = max(self._stats.largest_batch, len(batch))
        return results

    async def _write_steps(self, steps: list[Step], pool: Pool) -> list[Any]:
        if steps:
            # One statement is atomic by itself: skip the BEGIN/COMMIT round trips.
            atomic = len(steps) > 1 or not steps[0].single
            what = f"write of {len(steps)} op(s)"
            async with self._transaction(what, atomic=atomic, pool=pool) as conn:
                await lock_item_agents(conn, steps)
                results = [await apply_step(conn, step) for step in steps]
            self._stats.largest_batch = max(self._stats.largest_batch, 1)
        else:
            results = []
        self._stats.write_calls += 1
        return results

    async def claim_next(self, agent_id: str, started_at: datetime) -> MailboxItem | None:
        """Move the agent's next queued item to processing, or return None.

        None when the agent has an item in processing (also one claimed by
        another process a moment ago) or nothing queued. Order: priority, then seq.

        Raises:
            StoreError: ``started_at`` is naive, or the database failed.
        """
        check_instant(started_at, "started_at")
        async with self._transaction(f"claim for agent {agent_id!r}") as conn:
            await conn.execute(queries.LOCK_AGENT, agent_id)
            row = await conn.fetchrow(queries.CLAIM_NEXT, agent_id, started_at)
        return codec.decode_item(row) if row is not None else None

    async def claim_due_callbacks(
        self,
        now: datetime,
        claimed_by: str,
        *,
        agent_ids: Sequence[str] | None = None,
        limit: int = 100,
        stale_before: datetime | None = None,
    ) -> list[PendingCallback]:
        """Claim due callbacks in one statement with ``FOR UPDATE SKIP LOCKED`` (see the protocol).

        Raises:
            InvalidInput: ``limit`` < 1. StoreError: a naive datetime; the database failed.
        """
        check_claim(now, claimed_by, limit, stale_before)
        hosted = None if agent_ids is None else [str(a) for a in agent_ids]
        async with self._transaction("claim of due callbacks", atomic=False) as conn:
            rows = await conn.fetch(
                queries.CLAIM_DUE_CALLBACKS, now, stale_before, hosted, limit, claimed_by
            )
        claimed = [codec.decode_callback(row) for row in rows]
        claimed.sort(key=lambda c: (c.due_at or c.registered_at, c.id))
        return claimed

    # -- hosting and wakes ----------------------------------------------------------

    async def acquire_host(self) -> None:
        """Take this database's host advisory lock for this process.

        Raises:
            RuntimeLocked: another session holds it (the message names the database).
            StoreError: the database failed.
        """
        self._require()
        try:
            await self._host.acquire()
        except DRIVER_ERRORS as exc:
            raise StoreError(f"cannot take the host lock on {self.url}: {exc}") from exc

    async def release_host(self) -> None:
        """Unlock the host lock. Idempotent."""
        try:
            await self._host.release()
        except DRIVER_ERRORS as exc:
            raise StoreError(f"cannot release the host lock on {self.url}: {exc}") from exc

    async def listen(self, callback: WakeCallback) -> Callable[[], Awaitable[None]]:
        """Call ``callback(agent_id)`` whenever any process inserts items for that agent.

        The callback runs on the event loop and must not block; exceptions it
        raises are logged. Notifications are wake-up hints, not a queue.

        Returns:
            An idempotent coroutine function that ends this subscription.

        Raises:
            StoreError: the LISTEN connection could not be opened.
        """
        self._require()
        try:
            return await self._listener.subscribe(callback)
        except DRIVER_ERRORS as exc:
            raise StoreError(f"cannot LISTEN on {self.url}: {exc}") from exc

    def statistics(self) -> StoreStatistics:
        pool = self._pool
        extra: dict[str, Any] = {
            "pool_size": pool.get_size() if pool is not None else 0,
            "pool_idle": pool.get_idle_size() if pool is not None else 0,
            "host_locked": self._host.held,
            "listening": self._listener.connected,
            "listen_reconnects": self._listener.reconnects,
            "group_commit_splits": self._group.splits,
        }
        stats = StoreStatistics(
            backend=self.backend,
            transactions=self._stats.transactions,
            write_calls=self._stats.write_calls,
            largest_batch=self._stats.largest_batch,
        )
        stats.extra.update(extra)
        return stats


async def _schema_revision(pool: Pool) -> str | None:
    # Checked with the pool so a current schema never imports Alembic.
    try:
        revision = await pool.fetchval("SELECT version_num FROM alembic_version")
    except asyncpg.UndefinedTableError:
        return None
    return str(revision) if revision is not None else None


def _redact(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))
