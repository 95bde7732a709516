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
import sqlite3
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from attn.errors import InvalidInput, StoreClosed, StoreError
from attn.models import Activity, ActivityLog, Decision, MailboxItem, PendingCallback
from attn.store import migrate
from attn.store.base import ItemQuery, StoreStatistics, Timeline, WriteOp
from attn.store.sqlite import codec, reads
from attn.store.sqlite.checkpoint import REWIND_FRAMES
from attn.store.sqlite.host import HostLock
from attn.store.sqlite.worker import CHECKPOINT, Busy, Reader, Request, Writer, settle

_SYNCHRONOUS = ("NORMAL", "FULL")
#: Inline commits between two passive WAL checkpoints by the writer thread.
_CHECKPOINT_EVERY = 256
#: Loop turns an inline commit may wait for more writes to join it.
_MAX_DEFERRALS = 4
#: The same while every write waiting is write-behind (:meth:`SQLiteStore.submit`):
#: nobody is blocked on the commit, so a draining agent puts dozens of items
#: in one transaction instead of two or three.
_MAX_BEHIND_DEFERRALS = 64


def _loop_busy(loop: asyncio.AbstractEventLoop) -> bool:
    """True while other callbacks are ready to run on ``loop`` (CPython loops only)."""
    ready = getattr(loop, "_ready", None)
    return bool(ready)


_T = TypeVar("_T")


class SQLiteStore:
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
        self._writer: Writer | None = None
        self._reader: Reader | None = None
        self._host_lock = HostLock(self._path)
        self._open_lock = asyncio.Lock()
        # Guards the closed flag against submissions from other threads' loops.
        self._submit_lock = threading.Lock()
        self._closed = False
        self._inline: Writer | None = None
        self._inline_commits = 0
        self._outbox: dict[tuple[Writer | Reader, asyncio.AbstractEventLoop], list[Request]] = {}
        # Outboxes holding a call that someone awaits (write, reads), not only write-behind.
        self._awaited: set[tuple[Writer | Reader, asyncio.AbstractEventLoop]] = set()
        #: Outboxes with an awaited write that may not overtake write-behind calls.
        self._ordered: set[tuple[Writer | Reader, asyncio.AbstractEventLoop]] = set()

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
            if self._closed:
                raise StoreClosed(f"the store of {str(self._path)!r} was closed; make a new one")
            if self._writer is not None:
                return
            writer_conn, reader_conn, inline_conn = await asyncio.to_thread(self._prepare)
            where = repr(str(self._path))
            self._writer = Writer(writer_conn, self._max_batch, self._submit_lock, where)
            if inline_conn is not None:
                self._inline = Writer(
                    inline_conn, self._max_batch, self._submit_lock, where, inline=True
                )
            self._reader = Reader(reader_conn, self._max_batch, self._submit_lock, where)
            self._writer.start()
            self._reader.start()

    def _prepare(
        self,
    ) -> tuple[sqlite3.Connection, sqlite3.Connection, sqlite3.Connection | None]:
        try:
            if migrate.sqlite_current(self._path) != migrate.HEAD_REVISION:
                migrate.upgrade_sqlite(self._path, busy_timeout_s=self._busy_timeout_s)
            writer = self._connect()
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the SQLite database {str(self._path)!r}: {exc}") from exc
        try:
            writer.execute("PRAGMA journal_mode=WAL")
            writer.execute(f"PRAGMA synchronous={self._synchronous}")
            writer.execute("PRAGMA foreign_keys=ON")
            reader = self._connect()
            reader.execute("PRAGMA query_only=ON")
            inline = None
            if self._synchronous == "NORMAL":
                # Commits without fsync run on the event loop thread when the
                # writer thread is idle: no thread hand-off. It never waits for
                # a lock (busy timeout 0) and never checkpoints (the writer
                # thread does), so it cannot stall the loop.
                inline = self._connect(busy_timeout_s=0.0)
                inline.execute("PRAGMA synchronous=NORMAL")
                inline.execute("PRAGMA foreign_keys=ON")
                inline.execute("PRAGMA wal_autocheckpoint=0")
                # The writer thread's own commits would run SQLite's automatic
                # checkpoint inside the commit once the log passes 1,000 frames,
                # which it now mostly has (it is rewound at REWIND_FRAMES).
                writer.execute(f"PRAGMA wal_autocheckpoint={REWIND_FRAMES}")
        except sqlite3.Error as exc:
            writer.close()
            raise StoreError(f"cannot open the SQLite database {str(self._path)!r}: {exc}") from exc
        return writer, reader, inline

    def _connect(self, busy_timeout_s: float | None = None) -> sqlite3.Connection:
        timeout_s = self._busy_timeout_s if busy_timeout_s is None else busy_timeout_s
        conn = sqlite3.connect(
            self._path,
            timeout=timeout_s,
            isolation_level=None,  # every transaction is begun explicitly
            check_same_thread=False,  # made here, used only by its own thread
            cached_statements=256,
        )
        conn.execute(f"PRAGMA busy_timeout={int(timeout_s * 1000)}")
        return conn

    async def close(self) -> None:
        """Commit what is queued, stop the threads, close the connections, release the host lock.

        Idempotent. Later calls raise :class:`~attn.errors.StoreClosed`.
        """
        async with self._open_lock:
            with self._submit_lock:
                already = self._closed
                self._closed = True
            if already:
                return
            self._hand_over_all()
            threads = [t for t in (self._writer, self._reader) if t is not None]
            for thread in threads:
                thread.stop()
            for thread in threads:
                await asyncio.to_thread(thread.join)
            if self._inline is not None:
                self._inline.conn.close()
                self._inline = None
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
        if self._closed:
            raise StoreClosed(f"the store of {str(self._path)!r} is closed")
        if self._writer is None:
            raise StoreError(f"the store of {str(self._path)!r} is not open; call open() first")

    def _queue(
        self,
        worker: Writer | Reader | None,
        work: Any,
        finish: Callable[[Any], Any] | None,
        *,
        behind: bool = False,
        overtakes: bool = False,
    ) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        request = Request(work, future, loop, finish)
        request.behind, request.overtakes = behind, overtakes
        with self._submit_lock:
            if self._closed:
                raise StoreClosed(f"the store of {str(self._path)!r} is closed")
            if worker is None:
                raise StoreError(f"the store of {str(self._path)!r} is not open; call open() first")
            if not worker.accepting:
                raise StoreError(f"the {worker.name} thread of {str(self._path)!r} has stopped")
            # Calls made in one turn of the event loop reach the thread together,
            # at the next turn: one wake-up per burst, and the thread does not
            # compete for the GIL while the loop is still producing the burst.
            key = (worker, loop)
            outbox = self._outbox.get(key)
            if outbox is None:
                self._outbox[key] = [request]
                loop.call_soon(self._hand_over, worker, loop, 0)
            else:
                outbox.append(request)
            if not behind:
                self._awaited.add(key)
                if not overtakes:
                    self._ordered.add(key)
        return future

    def _hand_over(
        self, worker: Writer | Reader, loop: asyncio.AbstractEventLoop, deferred: int = 0
    ) -> None:
        key = (worker, loop)
        waiting = (
            worker is self._writer
            and self._inline is not None
            and deferred < _MAX_BEHIND_DEFERRALS
            and _loop_busy(loop)
            and len(self._outbox.get(key, ())) < self._max_batch
        )
        if waiting and (deferred < _MAX_DEFERRALS or key not in self._awaited):
            # Group commit on the loop: while other callbacks are ready (a
            # brain finishing, producers enqueueing), let them add their writes
            # to this transaction; commit once the loop is about to wait.
            loop.call_soon(self._hand_over, worker, loop, deferred + 1)
            return
        with self._submit_lock:
            if waiting and key not in self._ordered and self._overtake(key):
                # Awaited plain inserts commit now; the write-behind calls before
                # them keep waiting for company (one larger commit, later).
                loop.call_soon(self._hand_over, worker, loop, deferred + 1)
                return
            outbox = self._outbox.pop(key, None)
            self._awaited.discard(key)
            self._ordered.discard(key)
            if not outbox:
                return
            if worker is self._writer and worker.inflight == 0 and self._write_inline(outbox):
                return
            if worker.accepting:
                worker.put(outbox)
                return
        for request in outbox:
            if not request.future.done():
                request.future.set_exception(StoreClosed("the store closed before this call ran"))

    def _overtake(self, key: tuple[Writer | Reader, asyncio.AbstractEventLoop]) -> bool:
        """Commit the awaited requests of ``key``'s outbox ahead of its write-behind ones.

        Called with the submit lock held when every awaited request may
        overtake. Returns False (nothing done) when there is nothing to
        overtake or the writer thread is busy.
        """
        outbox = self._outbox.get(key)
        if not outbox or self._writer is None or self._writer.inflight:
            return False
        ahead = [r for r in outbox if not r.behind]
        if not ahead or len(ahead) == len(outbox):
            return False
        if not self._write_inline(ahead):
            return False
        self._outbox[key] = [r for r in outbox if r.behind]
        self._awaited.discard(key)
        return True

    def _write_inline(self, outbox: list[Request]) -> bool:
        """Commit ``outbox`` on this (the event loop's) thread; False to hand it over.

        Called with the submit lock held and the writer thread idle, so the
        call order of writes is kept. Returns False when another process
        holds the write lock: the writer thread then waits for it instead.
        """
        inline = self._inline
        if inline is None or not self._writer_accepting():
            return False
        try:
            inline.handle(outbox)
        except Busy:
            return False
        except BaseException as exc:  # SystemExit, KeyboardInterrupt: answer, then let it go
            failure = StoreError(f"the inline write failed: {exc!r}")
            for request in outbox:
                request.ok, request.value = False, failure
            settle(outbox)
            raise
        self._inline_commits += 1
        if self._inline_commits % _CHECKPOINT_EVERY == 0 and self._writer is not None:
            self._writer.queue.put(CHECKPOINT)
        settle(outbox)
        return True

    def _writer_accepting(self) -> bool:
        return self._writer is not None and self._writer.accepting

    def _hand_over_all(self) -> None:
        with self._submit_lock:
            for (worker, _loop), outbox in self._outbox.items():
                worker.put(outbox)
            self._outbox.clear()
            self._awaited.clear()
            self._ordered.clear()

    async def _read(self, read: reads.Read[_T]) -> _T:
        result: _T = await self._queue(self._reader, read.run, read.finish)
        return result

    # -- writes --------------------------------------------------------------------

    async def write(self, ops: Sequence[WriteOp]) -> list[Any]:
        """Apply ``ops`` in one transaction; return one result per op, after commit.

        Concurrent calls share a transaction (group commit) but stay atomic each.

        Raises:
            StoreError: an op is invalid or the database refused it; nothing of
                this call is applied (cause chained).
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
            :class:`~attn.errors.StoreError` (or ``StoreClosed``) instead of
            raising here.
        """
        try:
            return self._submit_write(ops, behind=True)
        except StoreError as exc:
            failed: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
            failed.set_exception(exc)
            return failed

    def _submit_write(
        self, ops: Sequence[WriteOp], *, behind: bool = False
    ) -> asyncio.Future[list[Any]]:
        if isinstance(ops, str | bytes) or not isinstance(ops, Sequence):
            raise StoreError(f"write expects a sequence of write ops, got {type(ops).__name__}")
        runs, finishers = codec.compile_ops(ops)
        if not runs:
            self._check()
            done: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
            done.set_result([])
            return done
        # Plain item inserts touch only their new rows, so none of them can
        # change what an earlier write-behind call writes: they may go first.
        overtakes = not behind and all(type(run) is codec.InsertRow for run in runs)
        if not any(finishers):
            return self._queue(self._writer, runs, None, behind=behind, overtakes=overtakes)

        def finish(raw: list[Any]) -> list[Any]:
            return [r if f is None else f(r) for f, r in zip(finishers, raw, strict=True)]

        return self._queue(self._writer, runs, finish, behind=behind, overtakes=overtakes)

    async def claim_next(self, agent_id: str, started_at: datetime) -> MailboxItem | None:
        """Move the agent's next queued item (priority, then seq) to processing.

        One ``UPDATE … RETURNING`` in a write transaction, served by
        ``idx_mailbox_claim``. Claims nothing while the agent has an item in processing.

        Returns:
            The claimed item with ``started_at`` set, or None.
        """
        run, finish = codec.claim(agent_id, started_at)
        claimed: MailboxItem | None = await self._queue(
            self._writer, [run], lambda raw: finish(raw[0])
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
        """How many items match ``query`` (limit and offset ignored)."""
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

    async def count_by_type(self, agent_id: str) -> dict[str, int]:
        """Number of the agent's items per source type (types with none are absent)."""
        return await self._read(reads.count_by_type(agent_id))

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
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidInput(f"limit must be a positive integer, got {limit!r}")
        try:
            run, finish = codec.claim_callbacks(now, claimed_by, agent_ids, limit, stale_before)
        except TypeError as exc:
            raise StoreError(f"cannot claim callbacks: {exc}") from exc
        claimed: list[PendingCallback] = await self._queue(
            self._writer, [run], lambda raw: finish(raw[0])
        )
        return claimed

    async def get_agent_settings(self, agent_id: str) -> dict[str, Any]:
        """Every stored setting of the agent, by name."""
        return await self._read(reads.agent_settings(agent_id))

    def statistics(self) -> StoreStatistics:
        """Counters since open: transactions, write calls, largest group-commit batch.

        Counts cover both the writer thread and writes committed inline on the
        event loop thread. ``extra`` holds ``batches``, ``mean_batch`` (write
        calls per group commit), ``retried_calls``, ``inline_batches`` and
        ``synchronous``; and of the writer thread's WAL checkpoints:
        ``checkpoints``, ``wal_rewinds`` (those that restarted the log) and
        ``wal_frames`` (the log's length in frames at the last checkpoint).
        """
        stats = StoreStatistics(backend=self.backend)
        stats.extra["synchronous"] = self._synchronous
        writers = [w for w in (self._writer, self._inline) if w is not None]
        batches = sum(w.batches for w in writers)
        stats.transactions = sum(w.transactions for w in writers)
        stats.write_calls = sum(w.write_calls for w in writers)
        stats.largest_batch = max((w.largest_batch for w in writers), default=0)
        stats.extra["batches"] = batches
        stats.extra["mean_batch"] = stats.write_calls / max(batches, 1)
        stats.extra["retried_calls"] = sum(w.retried_calls for w in writers)
        stats.extra["inline_batches"] = self._inline.batches if self._inline else 0
        if self._writer is not None:
            stats.extra["checkpoints"] = self._writer.checkpoints
            stats.extra["wal_rewinds"] = self._writer.rewinds
            stats.extra["wal_frames"] = self._writer.log_frames
        return stats
