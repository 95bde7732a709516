"""The SQLite :class:`~attn.store.base.Store`: embedded, durable, the default.

The hot path talks to the stdlib ``sqlite3`` module directly. One writer
thread owns the only write connection and commits every pending ``write`` call
in one ``BEGIN IMMEDIATE`` transaction (group commit); a reader thread with its
own read-only connection serves queries, which in WAL mode never wait for the
writer. Every write transaction begins immediate, so several processes on one
file wait for the lock (``busy_timeout_s``) instead of failing with
"database is locked" (acceptance CORE-13).

Spec: 000 §6 (tables, lifecycle), §17 (recovery reads); DESIGN.md "Choices
already made" (WAL, group commit, ``synchronous=NORMAL`` default, ``FULL`` option).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from attn.errors import InvalidInput, StoreClosed, StoreError
from attn.models import Activity, ActivityLog, Decision, MailboxItem, Memory, PendingCallback
from attn.store._checks import check_claim, check_write
from attn.store._memories import check_search
from attn.store.base import ItemQuery, StoreStatistics, Timeline, WriteOp
from attn.store.sqlite import memories, reads, writes
from attn.store.sqlite.channels import ChannelReads
from attn.store.sqlite.connect import open_connections
from attn.store.sqlite.group_commit import GroupCommit
from attn.store.sqlite.host import HostLock
from attn.store.sqlite.people import PeopleReads
from attn.store.sqlite.tree import TreeReads

_SYNCHRONOUS = ("NORMAL", "FULL")
_T = TypeVar("_T")


class SQLiteStore(ChannelReads, TreeReads, PeopleReads):
    """Mailbox items, decisions, activities and logs in one SQLite file.

    Args:
        path: the database file; created (with its schema) by :meth:`open`.
        synchronous: ``"NORMAL"`` (default: a committed write survives a crash
            of the process; a power loss may lose the last commits) or
            ``"FULL"`` (fsync on every commit: survives power loss, slower).
        busy_timeout_s: how long a transaction waits for another process's
            lock before failing, in seconds.
        max_batch: most ``write`` calls committed in one transaction.

    Raises:
        InvalidInput: ``synchronous`` is not NORMAL or FULL, or a number is out of range.

    Writes are answered after their commit. A caller cancelled while waiting
    may still have been committed.
    """

    backend = "sqlite"

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        synchronous: str = "NORMAL",
        busy_timeout_s: float = 30.0,
        max_batch: int = 256,
    ) -> None:
        if str(synchronous).upper() not in _SYNCHRONOUS:
            raise InvalidInput(f"synchronous must be NORMAL or FULL, got {synchronous!r}")
        if not busy_timeout_s >= 0:
            raise InvalidInput(f"busy_timeout_s must be >= 0 seconds, got {busy_timeout_s!r}")
        if max_batch < 1:
            raise InvalidInput(f"max_batch must be at least 1, got {max_batch!r}")
        self._path = Path(path)
        self._synchronous = str(synchronous).upper()
        self._busy_timeout_s = float(busy_timeout_s)
        self._max_batch = max_batch
        self._host_lock = HostLock(self._path)
        self._open_lock = asyncio.Lock()
        self._commits = GroupCommit(repr(str(self._path)), max_batch)

    @property
    def path(self) -> Path:
        """The database file."""
        return self._path

    @property
    def synchronous(self) -> str:
        """``"NORMAL"`` or ``"FULL"``."""
        return self._synchronous

    # -- lifecycle -----------------------------------------------------------------

    async def open(self) -> None:
        """Create or migrate the schema (Alembic) when not at head, then start the threads.

        Idempotent.

        Raises:
            StoreClosed: the store was closed; make a new one.
            StoreError: the file cannot be opened or migrated (cause chained).
        """
        async with self._open_lock:
            commits = self._commits
            if commits.closed:
                raise StoreClosed(f"the store of {str(self._path)!r} was closed; make a new one")
            if commits.writer is not None:
                return
            connections = await asyncio.to_thread(
                open_connections, self._path, self._synchronous, self._busy_timeout_s
            )
            commits.start(*connections)

    async def close(self) -> None:
        """Commit what is queued, stop the threads, close the connections, release the host lock.

        Idempotent. Later calls raise :class:`~attn.errors.StoreClosed`.
        """
        async with self._open_lock:
            if await self._commits.stop():
                self._release_lock()

    # -- host lock -----------------------------------------------------------------

    async def acquire_host(self) -> None:
        """Take the host lock of the database file without waiting (see
        :mod:`attn.store.sqlite.host`). Idempotent within this store.

        Raises:
            RuntimeLocked: another process (or another store in this process)
                holds it, through any name of the file; the message names it.
            StoreError: the file has more than one hard link, or the lock file
                cannot be created.
            StoreClosed: the store is closed.
        """
        self._check()
        self._host_lock.acquire()

    async def release_host(self) -> None:
        """Release the host lock if this store holds it. Idempotent."""
        self._release_lock()

    def _release_lock(self) -> None:
        self._host_lock.release()

    # -- plumbing ------------------------------------------------------------------

    def _check(self) -> None:
        if self._commits.closed:
            raise StoreClosed(f"the store of {str(self._path)!r} is closed")
        if self._commits.writer is None:
            raise StoreError(f"the store of {str(self._path)!r} is not open; call open() first")

    async def _read(self, read: reads.Read[_T]) -> _T:
        result: _T = await self._commits.queue(self._commits.reader, read.run, read.finish)
        return result

    # -- writes --------------------------------------------------------------------

    async def write(self, ops: Sequence[WriteOp]) -> list[Any]:
        """Apply ``ops`` in one transaction; return one result per op, after commit.

        Concurrent calls share a transaction (group commit) but stay atomic each.

        Raises:
            StoreError: an op is invalid or the database refused it; nothing of
                this call is applied (cause chained).
            InvalidInput: a tree node or a people record breaks its rules;
                nothing is applied.
            StoreClosed: the store is closed.
        """
        result: list[Any] = await self._submit_write(ops)
        return result

    def submit(self, ops: Sequence[WriteOp]) -> asyncio.Future[list[Any]]:
        """Queue a :meth:`write` without waiting for it (write-behind).

        Submitted writes are applied in call order (the writer's queue is FIFO).
        While only write-behind calls wait and the loop has other work ready,
        the commit waits up to 64 loop turns for more writes to join it.
        Must be called from a running event loop.

        Returns:
            A future of the results, resolved after commit; it fails with
            :class:`~attn.errors.StoreError` (or ``StoreClosed``, or
            ``InvalidInput`` for a bad tree node or people record) instead of
            raising here.
        """
        try:
            return self._submit_write(ops, behind=True)
        except (StoreError, InvalidInput) as exc:
            failed: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
            failed.set_exception(exc)
            return failed

    def _submit_write(
        self, ops: Sequence[WriteOp], *, behind: bool = False
    ) -> asyncio.Future[list[Any]]:
        check_write(ops)
        runs, finishers = writes.compile_ops(ops)
        if not runs:
            self._check()
            done: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
            done.set_result([])
            return done
        # Plain item inserts touch only their new rows, so none of them can
        # change what an earlier write-behind call writes: they may go first.
        overtakes = not behind and all(type(run) is writes.InsertRow for run in runs)
        queue, writer = self._commits.queue, self._commits.writer
        if not any(finishers):
            return queue(writer, runs, None, behind=behind, overtakes=overtakes)

        def finish(raw: list[Any]) -> list[Any]:
            return [r if f is None else f(r) for f, r in zip(finishers, raw, strict=True)]

        return queue(writer, runs, finish, behind=behind, overtakes=overtakes)

    async def claim_next(self, agent_id: str, started_at: datetime) -> MailboxItem | None:
        """Move the agent's next queued item (priority, then seq) to processing.

        One ``UPDATE … RETURNING`` in a write transaction, served by
        ``idx_mailbox_claim``. Claims nothing while the agent has an item in processing.

        Returns:
            The claimed item with ``started_at`` set, or None.
        """
        run, finish = writes.claim_next(agent_id, started_at)
        claimed: MailboxItem | None = await self._commits.queue(
            self._commits.writer, [run], lambda raw: finish(raw[0])
        )
        return claimed

    # -- reads ---------------------------------------------------------------------

    async def get_item(self, item_id: str) -> MailboxItem | None:
        """The item with that id, or None."""
        return await self._read(reads.get_item(item_id))

    async def get_item_by_key(self, agent_id: str, idempotency_key: str) -> MailboxItem | None:
        """The agent's item enqueued with that idempotency key, or None (unique index)."""
        return await self._read(reads.get_item_by_key(agent_id, idempotency_key))

    async def find_items(self, query: ItemQuery) -> list[MailboxItem]:
        """Items matching ``query`` ordered by seq, newest first unless ``oldest_first``.

        Raises:
            InvalidInput: a negative limit or offset, or an unknown status.
        """
        return await self._read(reads.find_items(query))

    async def count_items(self, query: ItemQuery) -> int:
        """How many items match ``query`` (limit, offset and cursors ignored)."""
        return await self._read(reads.count_items(query))

    async def load_queue(self, agent_id: str) -> list[MailboxItem]:
        """The agent's queued items in claim order: priority, then seq."""
        return await self._read(reads.load_queue(agent_id))

    async def read_timeline(self, query: ItemQuery, queue_limit: int) -> Timeline:
        """Queue, a page of items, their decisions and activities, and counts, in one
        read transaction (see the protocol)."""
        return await self._read(reads.read_timeline(query, queue_limit))

    async def find_decisions(
        self,
        agent_id: str,
        item_id: str | None = None,
        limit: int = 100,
        offset: int = 0,
        before: int | None = None,
    ) -> list[Decision]:
        """Decisions newest commit first (by ``seq``, whatever the wall clock said).

        Only those of ``item_id`` when given; only those committed before the
        decision whose ``seq`` is ``before`` when given.

        Raises:
            InvalidInput: a negative limit or offset.
        """
        return await self._read(reads.find_decisions(agent_id, item_id, limit, offset, before))

    async def find_activities(self, agent_id: str, item_ids: Sequence[str]) -> list[Activity]:
        """Activities of the agent linked to any of ``item_ids``, oldest first."""
        if not item_ids:
            self._check()
            return []
        return await self._read(reads.find_activities(agent_id, item_ids))

    async def get_activity(self, activity_id: str) -> Activity | None:
        """The activity with that id, or None."""
        return await self._read(reads.get_activity(activity_id))

    async def find_activity_logs(
        self, activity_id: str, after_seq: int | None = None, limit: int | None = None
    ) -> list[ActivityLog]:
        """Log entries of one activity in seq order (a page: after ``after_seq``, at
        most ``limit``)."""
        return await self._read(reads.find_activity_logs(activity_id, after_seq, limit))

    async def count_by_status(self, agent_id: str) -> dict[str, int]:
        """Number of the agent's items per status value (statuses with none are absent)."""
        return await self._read(reads.count_by_status(agent_id))

    async def agent_ids(self) -> list[str]:
        """Every agent id that has items, sorted."""
        return await self._read(reads.agent_ids())

    # -- time: pending callbacks and agent settings --------------------------------

    async def get_callback(self, agent_id: str, callback_id: str) -> PendingCallback | None:
        """The agent's callback with that id, or None."""
        return await self._read(reads.get_callback(agent_id, callback_id))

    async def find_callbacks(
        self, agent_id: str, types: Sequence[str] | None = None
    ) -> list[PendingCallback]:
        """The agent's callbacks, oldest registration first; only ``types`` when given."""
        return await self._read(reads.find_callbacks(agent_id, types))

    async def claim_due_callbacks(
        self,
        now: datetime,
        claimed_by: str,
        *,
        agent_ids: Sequence[str] | None = None,
        limit: int = 100,
        stale_before: datetime | None = None,
    ) -> list[PendingCallback]:
        """Claim due callbacks in one ``UPDATE … RETURNING`` on the writer (see the protocol).

        The writer's ``BEGIN IMMEDIATE`` serializes it with every other write,
        also those of other processes, so a callback is claimed once.

        Raises:
            InvalidInput: ``limit`` < 1. StoreError: a naive datetime; a failed write.
        """
        check_claim(now, claimed_by, limit, stale_before)
        run, finish = writes.claim_due_callbacks(now, claimed_by, agent_ids, limit, stale_before)
        claimed: list[PendingCallback] = await self._commits.queue(
            self._commits.writer, [run], lambda raw: finish(raw[0])
        )
        return claimed

    async def get_agent_settings(self, agent_id: str) -> dict[str, Any]:
        """Every stored setting of the agent, by name."""
        return await self._read(reads.get_agent_settings(agent_id))

    def statistics(self) -> StoreStatistics:
        """Counters since open: transactions, write calls, largest group-commit batch.

        Counts cover both the writer thread and writes committed inline on the
        event loop thread. ``extra`` holds ``batches``, ``mean_batch`` (write
        calls per group commit), ``retried_calls``, ``inline_batches`` and
        ``synchronous``; and of the writer thread's WAL checkpoints:
        ``checkpoints``, ``wal_rewinds`` (those that restarted the log) and
        ``wal_frames`` (the log's length in frames at the last checkpoint).
        """
        stats = self._commits.statistics(self.backend)
        stats.extra["synchronous"] = self._synchronous
        return stats

    # -- long-term memory (000 §8) ----------------------------------------------------

    async def search_memories(self, agent_id: str, query: str, limit: int = 5) -> list[Memory]:
        """The agent's memory entries sharing words with ``query``, best first.

        Raises:
            InvalidInput: a query over 1,000 characters or a limit outside 1..50.
        """
        return await self._read(memories.search(agent_id, check_search(query, limit), limit))

    async def count_memories(self, agent_id: str) -> int:
        """How many memory entries the agent keeps."""
        return await self._read(memories.count(agent_id))
