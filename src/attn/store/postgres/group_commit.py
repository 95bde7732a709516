"""Write-behind with group commit for :meth:`PostgresStore.submit`.

Submitted writes queue up; one drain task owned by the store commits whatever
has queued in a single transaction, in call order, so many agents' write-behind
share one WAL flush instead of waiting for each other's. Each call stays atomic:
when a shared transaction fails, its calls are retried one transaction each,
so only the faulty call fails. Spec: 000 §12.1; DESIGN "Choices already made".
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from attn.errors import StoreError
from attn.store.postgres.writes import Step

#: Commits the write calls of one batch in one transaction; one result list per call.
CommitBatch = Callable[[list[list[Step]]], Awaitable[list[list[Any]]]]

#: Most write calls committed in one transaction.
MAX_BATCH = 256


class GroupCommit:
    """A queue of submitted write calls and the task that drains it."""

    def __init__(self, commit: CommitBatch) -> None:
        self._commit = commit
        self._queue: deque[tuple[list[Step], asyncio.Future[list[Any]]]] = deque()
        self._drainer: asyncio.Task[None] | None = None
        #: Shared transactions that failed and were split into one per call.
        self.splits = 0

    def submit(self, steps: list[Step]) -> asyncio.Future[list[Any]]:
        """Queue one write call; the future resolves after its commit."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[list[Any]] = loop.create_future()
        self._queue.append((steps, future))
        if self._drainer is None:
            self._drainer = loop.create_task(self._drain(), name="attn-postgres-group-commit")
        return future

    async def flush(self) -> None:
        """Wait until every write submitted so far is committed or failed."""
        while self._drainer is not None:
            await asyncio.wait({self._drainer})

    async def _drain(self) -> None:
        try:
            while self._queue:
                count = min(len(self._queue), MAX_BATCH)
                batch = [self._queue.popleft() for _ in range(count)]
                await self._commit_in_order(batch)
        finally:
            self._drainer = None
            while self._queue:  # only after a bug or cancellation: never leave callers waiting
                _, future = self._queue.popleft()
                if not future.done():
                    future.set_exception(StoreError("the write-behind queue stopped"))

    async def _commit_in_order(
        self, batch: list[tuple[list[Step], asyncio.Future[list[Any]]]]
    ) -> None:
        try:
            results = await self._commit([steps for steps, _ in batch])
        except StoreError as exc:
            if len(batch) == 1:
                _settle(batch[0][1], exc)
                return
            # Find the faulty call(s): one transaction per call, still in order.
            self.splits += 1
            for entry in batch:
                await self._commit_in_order([entry])
            return
        except BaseException as exc:
            for _, future in batch:
                _settle(future, StoreError(f"write-behind failed: {exc!r}"))
            raise
        for (_, future), result in zip(batch, results, strict=True):
            _settle(future, result)


def _settle(future: asyncio.Future[list[Any]], outcome: list[Any] | BaseException) -> None:
    if future.done():  # the caller cancelled it; the write was applied anyway
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)
