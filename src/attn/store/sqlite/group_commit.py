"""How calls reach the SQLite store's threads: one hand-over per loop turn, group commit.

Calls made in one turn of an event loop reach a thread together, at the next
turn: one wake-up per burst. While the loop has other callbacks ready, a write
waits a few turns for more writes to join its transaction (up to 64 turns
while every write waiting is write-behind); with ``synchronous=NORMAL`` an
idle writer thread is skipped and the batch commits inline on the loop's
thread. Awaited plain inserts may overtake earlier write-behind calls.

Spec: 000 §6; DESIGN.md "Choices already made" (group commit).
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from typing import Any

from attn.errors import StoreClosed, StoreError
from attn.store.base import StoreStatistics
from attn.store.sqlite.worker import CHECKPOINT, Busy, Reader, Request, Writer, settle

#: Inline commits between two passive WAL checkpoints by the writer thread.
_CHECKPOINT_EVERY = 256
#: Loop turns an inline commit may wait for more writes to join it.
_MAX_DEFERRALS = 4
#: The same while every write waiting is write-behind (:meth:`SQLiteStore.submit`):
#: nobody is blocked on the commit, so a draining agent puts dozens of items
#: in one transaction instead of two or three.
_MAX_BEHIND_DEFERRALS = 64

_Key = tuple[Writer | Reader, asyncio.AbstractEventLoop]


def _loop_busy(loop: asyncio.AbstractEventLoop) -> bool:
    """True while other callbacks are ready to run on ``loop`` (CPython loops only)."""
    ready = getattr(loop, "_ready", None)
    return bool(ready)


class GroupCommit:
    """The outboxes of one SQLite store: calls waiting to be handed to a thread.

    Args:
        where: the database file, quoted, for messages.
        max_batch: most calls handed over (and committed) together.

    :meth:`start` makes :attr:`writer`, :attr:`reader` and :attr:`inline`
    when the store opens; :meth:`stop` ends them. :attr:`lock` guards
    :attr:`closed` and the outboxes against calls from other threads' event loops.
    """

    def __init__(self, where: str, max_batch: int) -> None:
        self.where = where
        self.max_batch = max_batch
        self.lock = threading.Lock()
        self.closed = False
        self.writer: Writer | None = None
        self.reader: Reader | None = None
        self.inline: Writer | None = None
        self._inline_commits = 0
        self._outbox: dict[_Key, list[Request]] = {}
        # Outboxes holding a call that someone awaits (write, reads), not only write-behind.
        self._awaited: set[_Key] = set()
        #: Outboxes with an awaited write that may not overtake write-behind calls.
        self._ordered: set[_Key] = set()

    def queue(
        self,
        worker: Writer | Reader | None,
        work: Any,
        finish: Callable[[Any], Any] | None,
        *,
        behind: bool = False,
        overtakes: bool = False,
    ) -> asyncio.Future[Any]:
        """Queue one call for ``worker``; the future resolves with its result.

        Raises:
            StoreClosed: the store is closed.
            StoreError: the store is not open, or the thread has stopped.
        """
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        request = Request(work, future, loop, finish)
        request.behind, request.overtakes = behind, overtakes
        with self.lock:
            if self.closed:
                raise StoreClosed(f"the store of {self.where} is closed")
            if worker is None:
                raise StoreError(f"the store of {self.where} is not open; call open() first")
            if not worker.accepting:
                raise StoreError(f"the {worker.name} thread of {self.where} has stopped")
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

    def start(
        self,
        writer: sqlite3.Connection,
        reader: sqlite3.Connection,
        inline: sqlite3.Connection | None,
    ) -> None:
        """Start the writer and reader threads on their connections (see
        :func:`~attn.store.sqlite.connect.open_connections`)."""
        where, lock, size = self.where, self.lock, self.max_batch
        self.writer = Writer(writer, size, lock, where)
        if inline is not None:
            self.inline = Writer(inline, size, lock, where, inline=True)
        self.reader = Reader(reader, size, lock, where)
        self.writer.start()
        self.reader.start()

    async def stop(self) -> bool:
        """Refuse new calls, let the threads finish what is queued, close the connections.

        Returns:
            False when it was already stopped (nothing done), else True.
        """
        if self.close():
            return False
        threads = [t for t in (self.writer, self.reader) if t is not None]
        for thread in threads:
            thread.stop()
        for thread in threads:
            await asyncio.to_thread(thread.join)
        if self.inline is not None:
            self.inline.conn.close()
            self.inline = None
        return True

    def statistics(self, backend: str) -> StoreStatistics:
        """Counters of both writers (the thread and the inline one) since start.

        ``extra`` holds ``batches``, ``mean_batch`` (write calls per group
        commit), ``retried_calls``, ``inline_batches``; and of the writer
        thread's WAL checkpoints: ``checkpoints``, ``wal_rewinds`` (those that
        restarted the log) and ``wal_frames`` (the log's length in frames at
        the last checkpoint).
        """
        stats = StoreStatistics(backend=backend)
        writer, inline = self.writer, self.inline
        writers = [w for w in (writer, inline) if w is not None]
        batches = sum(w.batches for w in writers)
        stats.transactions = sum(w.transactions for w in writers)
        stats.write_calls = sum(w.write_calls for w in writers)
        stats.largest_batch = max((w.largest_batch for w in writers), default=0)
        stats.extra["batches"] = batches
        stats.extra["mean_batch"] = stats.write_calls / max(batches, 1)
        stats.extra["retried_calls"] = sum(w.retried_calls for w in writers)
        stats.extra["inline_batches"] = inline.batches if inline else 0
        if writer is not None:
            stats.extra["checkpoints"] = writer.checkpoints
            stats.extra["wal_rewinds"] = writer.rewinds
            stats.extra["wal_frames"] = writer.log_frames
        return stats

    def close(self) -> bool:
        """Refuse new calls and hand every queued one to its thread.

        Returns:
            True when it was already closed.
        """
        with self.lock:
            already = self.closed
            self.closed = True
            if not already:
                for (worker, _loop), outbox in self._outbox.items():
                    worker.put(outbox)
                self._outbox.clear()
                self._awaited.clear()
                self._ordered.clear()
        return already

    def _hand_over(
        self, worker: Writer | Reader, loop: asyncio.AbstractEventLoop, deferred: int = 0
    ) -> None:
        key = (worker, loop)
        waiting = (
            worker is self.writer
            and self.inline is not None
            and deferred < _MAX_BEHIND_DEFERRALS
            and _loop_busy(loop)
            and len(self._outbox.get(key, ())) < self.max_batch
        )
        if waiting and (deferred < _MAX_DEFERRALS or key not in self._awaited):
            # Group commit on the loop: while other callbacks are ready (a
            # brain finishing, producers enqueueing), let them add their writes
            # to this transaction; commit once the loop is about to wait.
            loop.call_soon(self._hand_over, worker, loop, deferred + 1)
            return
        with self.lock:
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
            if worker is self.writer and worker.inflight == 0 and self._write_inline(outbox):
                return
            if worker.accepting:
                worker.put(outbox)
                return
        for request in outbox:
            if not request.future.done():
                request.future.set_exception(StoreClosed("the store closed before this call ran"))

    def _overtake(self, key: _Key) -> bool:
        """Commit the awaited requests of ``key``'s outbox ahead of its write-behind ones.

        Called with the lock held when every awaited request may overtake.
        Returns False (nothing done) when there is nothing to overtake or the
        writer thread is busy.
        """
        outbox = self._outbox.get(key)
        if not outbox or self.writer is None or self.writer.inflight:
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

        Called with the lock held and the writer thread idle, so the call
        order of writes is kept. Returns False when another process holds the
        write lock: the writer thread then waits for it instead.
        """
        inline = self.inline
        if inline is None or self.writer is None or not self.writer.accepting:
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
        if self._inline_commits % _CHECKPOINT_EVERY == 0:
            self.writer.queue.put(CHECKPOINT)
        settle(outbox)
        return True
