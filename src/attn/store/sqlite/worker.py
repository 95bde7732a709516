"""The two threads of the SQLite store: one writer with group commit, one reader.

Each thread owns one ``sqlite3`` connection and blocks on a queue of lists
of :class:`Request`\\ s (the store hands over every call made in one turn of
an event loop as one list). When it wakes it drains everything pending and
handles it as one batch, then answers the whole batch with one
``loop.call_soon_threadsafe`` per event loop, so a burst of concurrent calls
costs one thread hop each way, not one per call.

The writer runs a batch in one ``BEGIN IMMEDIATE`` … ``COMMIT`` (group
commit). When any call of the batch fails it rolls back and runs each call in
a transaction of its own, so only the bad call fails. The reader runs each
request on its own; in WAL mode reads never wait for the writer.

The threads only run SQL; encoding happens before a request is queued and
decoding (a request's ``finish``) on the caller's event loop, so the threads
hold the GIL as little as possible while SQLite works without it.
Spec: 000 §6 (persistence); DESIGN.md "Choices already made" (group commit).
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from attn.errors import StoreClosed, StoreError
from attn.store.sqlite.checkpoint import checkpoint
from attn.store.sqlite.codec import Row
from attn.store.sqlite.writes import InsertRow, insert_rows

#: Work for a thread: a function of its cursor.
Work = Callable[[sqlite3.Cursor], Any]
#: Queued to the writer thread to run a passive WAL checkpoint.
CHECKPOINT: Any = []


class Request:
    """One call waiting for a thread: what to run and whom to answer.

    ``finish`` (optional) turns the thread's raw result into the caller's
    result; it runs on the caller's loop. ``ok``/``value`` are filled in by the thread.
    ``behind``: a write-behind call (nobody awaits it). ``overtakes``: an awaited
    write of plain item inserts only, which may commit before write-behind calls
    queued earlier (it touches none of their rows).
    """

    __slots__ = ("behind", "finish", "future", "loop", "ok", "overtakes", "value", "work")

    def __init__(
        self,
        work: Any,
        future: asyncio.Future[Any],
        loop: asyncio.AbstractEventLoop,
        finish: Callable[[Any], Any] | None,
    ) -> None:
        self.work = work
        self.future = future
        self.loop = loop
        self.finish = finish
        self.ok = False
        self.value: Any = None
        self.behind = False
        self.overtakes = False


def settle(requests: list[Request]) -> None:
    # Runs on the caller's event loop; a caller may have been cancelled meanwhile.
    for request in requests:
        future = request.future
        if future.done():
            continue
        if not request.ok:
            future.set_exception(request.value)
        elif request.finish is None:
            future.set_result(request.value)
        else:
            try:
                future.set_result(request.finish(request.value))
            except Exception as exc:
                error = StoreError(f"cannot decode what the database returned: {exc}")
                error.__cause__ = exc
                future.set_exception(error)


class _Worker(threading.Thread, ABC):
    """A thread that owns one connection and handles queued requests in batches."""

    def __init__(
        self, name: str, conn: sqlite3.Connection, max_batch: int, lock: threading.Lock
    ) -> None:
        super().__init__(name=name, daemon=True)
        self.conn = conn
        self.queue: queue.SimpleQueue[list[Request] | None] = queue.SimpleQueue()
        #: False once the thread is ending; read and cleared under ``lock``,
        #: the lock submitters hold while they queue, so no request is stranded.
        self.accepting = True
        #: Request lists queued or being handled; changed under ``lock``. The
        #: store runs a write on the event loop thread only while this is 0,
        #: so writes keep their call order.
        self.inflight = 0
        self._lock = lock
        self._max_batch = max_batch

    def stop(self) -> None:
        """Ask the thread to finish what is queued, close its connection and exit."""
        self.queue.put(None)

    def put(self, requests: list[Request]) -> None:
        """Queue a list of requests; call with ``lock`` held."""
        self.inflight += 1
        self.queue.put(requests)

    def run(self) -> None:
        get, get_nowait, limit = self.queue.get, self.queue.get_nowait, self._max_batch
        stopping = False
        try:
            while not stopping:
                first = get()
                if first is None:
                    break
                if first is CHECKPOINT:
                    self.checkpoint()
                    continue
                batch, taken = list(first), 1
                while len(batch) < limit:
                    try:
                        more = get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        stopping = True
                        break
                    if more is CHECKPOINT:
                        self.checkpoint()
                        continue
                    batch += more
                    taken += 1
                try:
                    self.handle(batch)
                except BaseException as exc:  # a bug or SystemExit: nobody may wait forever
                    with self._lock:
                        self.accepting = False
                    for request in batch:
                        request.ok, request.value = (
                            False,
                            _wrap(
                                RuntimeError(f"the {self.name} thread failed: {exc!r}"), "stopped"
                            ),
                        )
                    self._answer(batch)
                    raise
                with self._lock:
                    self.inflight -= taken
                self._answer(batch)
        finally:
            with self._lock:
                self.accepting = False
            self.conn.close()
            self._refuse_rest()

    @abstractmethod
    def handle(self, batch: list[Request]) -> None:
        """Handle one batch: set ``ok`` and ``value`` of every request."""

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the database file (writer only)."""

    def _answer(self, batch: list[Request]) -> None:
        loop = batch[0].loop
        if all(request.loop is loop for request in batch):
            self._post(loop, batch)
            return
        by_loop: dict[asyncio.AbstractEventLoop, list[Request]] = {}
        for request in batch:
            by_loop.setdefault(request.loop, []).append(request)
        for each, requests in by_loop.items():
            self._post(each, requests)

    @staticmethod
    def _post(loop: asyncio.AbstractEventLoop, requests: list[Request]) -> None:
        # RuntimeError: that loop is closed, so nobody is waiting any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, requests)

    def _refuse_rest(self) -> None:
        rest: list[Request] = []
        while True:
            try:
                requests = self.queue.get_nowait()
            except queue.Empty:
                break
            for request in requests or ():
                request.ok, request.value = (
                    False,
                    StoreClosed("the store closed before this call ran"),
                )
                rest.append(request)
        if rest:
            self._answer(rest)


def _wrap(exc: Exception, what: str) -> Exception:
    if isinstance(exc, StoreError):
        return exc
    error = StoreError(f"{what}: {exc}")
    error.__cause__ = exc
    return error


_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})


class Busy(Exception):
    """BEGIN IMMEDIATE found another connection holding the write lock (inline only)."""


class _CallFailed(Exception):
    """A step of some call raised inside a batch transaction (rolled back)."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))
        self.cause = cause


class Writer(_Worker):
    """The single writer: group commit of every pending write call.

    A request's ``work`` is the list of steps of one call; its value is the
    list of their results. Counters (read by ``statistics()``):
    ``transactions`` begun, ``write_calls`` answered, ``batches`` and
    ``largest_batch`` (calls per group commit), ``retried_calls`` (calls re-run
    alone after their batch failed), ``checkpoints`` run, ``rewinds`` (those
    that restarted the log) and ``log_frames`` (its length at the last one).
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        max_batch: int,
        lock: threading.Lock,
        where: str,
        *,
        inline: bool = False,
    ) -> None:
        super().__init__("attn-sqlite-writer", conn, max_batch, lock)
        self._cur = conn.cursor()
        self._where = where
        self._busy_timeout_ms = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
        #: Runs on the event loop thread, never started as a thread: BEGIN
        #: does not wait for another connection's lock but raises :class:`Busy`.
        self.inline = inline
        self.transactions = 0
        self.write_calls = 0
        self.batches = 0
        self.largest_batch = 0
        self.retried_calls = 0
        self.checkpoints = 0
        self.rewinds = 0
        self.log_frames = 0

    def handle(self, batch: list[Request]) -> None:
        """Commit the batch in one transaction (see the class docstring).

        Raises:
            Busy: inline writers only, when the lock is taken; nothing was done.
        """
        try:
            results = self._transaction([request.work for request in batch])
        except Busy:
            raise
        except _CallFailed as failed:
            if len(batch) == 1:
                self._count(batch)
                self._fail(batch[0], failed.cause)
                return
        except Exception as exc:
            # BEGIN or COMMIT failed (locked past the busy timeout, I/O error):
            # running the calls one by one would fail the same way, slower.
            self._count(batch)
            for request in batch:
                self._fail(request, exc)
            return
        else:
            self._count(batch)
            for request, result in zip(batch, results, strict=True):
                request.ok, request.value = True, result
            return
        self._count(batch)
        # One call spoiled the batch: run each alone so only the bad one fails.
        self.retried_calls += len(batch)
        for request in batch:
            try:
                request.value = self._transaction([request.work])[0]
                request.ok = True
            except _CallFailed as failed:
                self._fail(request, failed.cause)
            except Exception as exc:
                self._fail(request, exc)

    def _count(self, batch: list[Request]) -> None:
        self.batches += 1
        self.write_calls += len(batch)
        self.largest_batch = max(self.largest_batch, len(batch))

    def checkpoint(self) -> None:
        self.checkpoints += 1
        self.log_frames, rewound = checkpoint(self._cur, self._busy_timeout_ms)
        self.rewinds += rewound

    def _fail(self, request: Request, exc: Exception) -> None:
        request.ok, request.value = False, _wrap(exc, f"write to {self._where} failed")

    def _transaction(self, calls: list[list[Work | InsertRow]]) -> list[list[Any]]:
        cur = self._cur
        try:
            cur.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if self.inline and exc.sqlite_errorcode in _BUSY_CODES:
                raise Busy(str(exc)) from exc
            raise
        self.transactions += 1
        try:
            results = self._run_calls(cur, calls)
        except Exception as exc:
            self._rollback()
            raise _CallFailed(exc) from exc
        try:
            cur.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        return results

    @staticmethod
    def _run_calls(cur: sqlite3.Cursor, calls: list[list[Work | InsertRow]]) -> list[list[Any]]:
        results: list[list[Any]] = []
        # Plain item inserts wait here, to go in one statement, until another
        # kind of step needs to see them or the calls end.
        slots: list[tuple[list[Any], int]] = []
        rows: list[Row] = []
        for steps in calls:
            out: list[Any] = []
            for step in steps:
                if type(step) is InsertRow:
                    slots.append((out, len(out)))
                    rows.append(step.params)
                    out.append(None)
                    continue
                if rows:
                    for (into, at), seq in zip(slots, insert_rows(cur, rows), strict=True):
                        into[at] = seq
                    slots, rows = [], []
                out.append(step(cur))  # type: ignore[operator]
            results.append(out)
        if rows:
            for (into, at), seq in zip(slots, insert_rows(cur, rows), strict=True):
                into[at] = seq
        return results

    def _rollback(self) -> None:
        if self.conn.in_transaction:
            self.conn.rollback()


class Reader(_Worker):
    """The reader: runs each queued read on its own read-only connection."""

    def __init__(
        self, conn: sqlite3.Connection, max_batch: int, lock: threading.Lock, where: str
    ) -> None:
        super().__init__("attn-sqlite-reader", conn, max_batch, lock)
        self._cur = conn.cursor()
        self._where = where

    def handle(self, batch: list[Request]) -> None:
        cur = self._cur
        for request in batch:
            try:
                request.value = request.work(cur)
                request.ok = True
            except Exception as exc:
                request.ok, request.value = False, _wrap(exc, f"read from {self._where} failed")
