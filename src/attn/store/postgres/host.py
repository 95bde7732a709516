"""The host right on PostgreSQL: a session advisory lock on a dedicated connection.

Advisory locks are scoped to one database; the key adds the schema holding
attn's tables, so it means "the attn host of these tables". The lock lives
exactly as long as its connection: if the process dies, the server releases it.
Cluster mode (several workers on one database) will replace
:meth:`HostLock._try_lock` and nothing else.

Spec: 000 §17 (one runtime recovers a database's agents), DESIGN invariant 3.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeAlias

import asyncpg

from attn.errors import RuntimeLocked
from attn.store.postgres import queries

log = logging.getLogger(__name__)

Connection: TypeAlias = "asyncpg.Connection[asyncpg.Record]"
Connect = Callable[[], Awaitable[Connection]]


class HostLock:
    """Holds (or not) the host advisory lock of one database schema."""

    def __init__(self, connect: Connect) -> None:
        self._connect = connect
        self._conn: Connection | None = None
        self._key = 0

    @property
    def held(self) -> bool:
        """True while this process holds the lock (its connection is alive)."""
        return self._conn is not None and not self._conn.is_closed()

    async def acquire(self) -> None:
        """Take the lock; a no-op when already held.

        Raises:
            RuntimeLocked: another session holds it; the message names the
                database, schema, server and the holder's backend pid.
            asyncpg.PostgresError, OSError: the connection failed.
        """
        if self.held:
            return
        conn = await self._connect()
        try:
            key = int(await conn.fetchval(queries.HOST_KEY))
            if not await self._try_lock(conn, key):
                raise RuntimeLocked(await self._describe_holder(conn, key))
        except BaseException:
            await conn.close()
            raise
        conn.add_termination_listener(self._on_lost)
        self._conn, self._key = conn, key

    async def release(self) -> None:
        """Unlock and close the connection. Idempotent."""
        conn, self._conn = self._conn, None
        if conn is None or conn.is_closed():
            return
        conn.remove_termination_listener(self._on_lost)
        try:
            await conn.fetchval(queries.HOST_UNLOCK, self._key)
        finally:
            # Closing ends the session, which releases the lock in any case.
            await conn.close()

    async def _try_lock(self, conn: Connection, key: int) -> bool:
        """The locking policy: today one host per database schema."""
        return bool(await conn.fetchval(queries.TRY_HOST_LOCK, key))

    @staticmethod
    async def _describe_holder(conn: Connection, key: int) -> str:
        row = await conn.fetchrow(queries.HOST_LOCK_HOLDER, key)
        if row is None:  # pragma: no cover - the query always returns one row
            return "another process already hosts the agents of this PostgreSQL database"
        where = f" on {row['addr']}:{row['port']}" if row["addr"] else ""
        holder = f", held by backend pid {row['pid']}" if row["pid"] is not None else ""
        return (
            f"another process already hosts the agents of PostgreSQL database {row['db']!r}"
            f" (schema {row['schema']!r}){where}{holder}; stop it or use another database"
        )

    def _on_lost(self, conn: object) -> None:
        if conn is self._conn:
            log.error("lost the connection holding the host lock; the host right is gone")
