"""Write-behind commits of one agent's attention loop, in commit order.

Outcomes that start no brain are written behind: the loop goes on while they
commit, and what must wait for durability (answering a caller) runs once its
batch is committed. Successive submissions commit in order, so the store
never shows two items of this agent processing.

Spec: DESIGN.md invariant 5 (commit before answering) and the group-commit choice.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

from attn.core.attention.attempt import Attempt
from attn.core.attention.outcomes import Batch
from attn.core.attention.state import ControllerState
from attn.errors import InvalidInput
from attn.jsontext import dumps
from attn.models import ItemStatus
from attn.store.base import InsertLogs, UpdateItem, WriteOp

log = logging.getLogger("attn.attention")


def submit(s: ControllerState, batch: Batch, *, awaited: bool = False) -> None:
    """Write-behind: start the commit; run ``after`` callbacks once it is durable.

    Successive submissions commit in order, so the store never shows two
    items of this agent processing. Callers waiting on a reply are answered
    only after the commit that completed their item. ``awaited``: the
    caller waits for this commit (a claim), so the store commits it at once
    instead of letting more write-behind calls join it first.
    """
    if not batch.ops:
        for callback in batch.after:
            callback()
        return
    future: asyncio.Future[Any] = (
        asyncio.ensure_future(s.mailbox.commit(batch.ops))
        if awaited
        else s.mailbox.submit(batch.ops)
    )
    after = batch.after
    if batch.staged:
        after = [_results_to(future, batch.ops, batch.staged), *after]
    future.add_done_callback(lambda f: _committed(s, f, after))
    s.pending.append(future)


def _committed(
    s: ControllerState, future: asyncio.Future[Any], after: list[Callable[[], None]]
) -> None:
    if future.cancelled() or future.exception() is not None:
        log.error(
            "write of agent %s failed",
            s.agent_id,
            exc_info=None if future.cancelled() else future.exception(),
        )
    for callback in after:
        callback()


def _results_to(
    future: asyncio.Future[Any],
    ops: list[WriteOp],
    staged: list[tuple[WriteOp, Callable[[Any], None]]],
) -> Callable[[], None]:
    """A callback handing each staged op its result once ``future`` committed."""

    def hand_over() -> None:
        if future.cancelled() or future.exception() is not None:
            return
        results = future.result()
        for op, callback in staged:
            index = next(i for i, candidate in enumerate(ops) if candidate is op)
            callback(results[index])

    return hand_over


async def settle_writes(s: ControllerState, keep: int) -> None:
    """Wait until at most ``keep`` submitted writes are still in flight."""
    pending = s.pending
    while pending and pending[0].done():
        pending.popleft()
    while len(pending) > keep:
        await asyncio.wait({pending.popleft()})


def flush_logs(s: ControllerState, attempt: Attempt) -> None:
    """Write ``attempt``'s buffered log lines now, write-behind (in commit order)."""
    future = s.mailbox.submit([InsertLogs(tuple(attempt.take_logs()))])
    future.add_done_callback(_log_failure)
    s.pending.append(future)


def _log_failure(future: asyncio.Future[list[Any]]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("writing activity logs failed", exc_info=future.exception())


async def checkpoint(s: ControllerState, attempt: Attempt, session: dict[str, Any]) -> None:
    """Store ``session`` in the item row now, with the buffered log lines (LLM-05).

    Only while ``attempt`` is live and its item processing (the write is
    guarded by the stored status), so a crash later loses at most the work
    since this call; the item keeps a copy, which a requeue writes again.
    """
    if not attempt.live:
        return
    item = attempt.item
    # A snapshot the brain's later changes cannot reach; a JSON round trip takes
    # half the time of copy.deepcopy and proves the session is JSON.
    try:
        saved = json.loads(dumps(session))
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidInput(f"the session cannot be saved as JSON: {exc}") from None
    item.session = saved
    ops: list[WriteOp] = [
        UpdateItem(item.id, {"session": saved}, only_if_status=(ItemStatus.PROCESSING,))
    ]
    if attempt.logs:
        ops.append(InsertLogs(tuple(attempt.take_logs())))
    await s.mailbox.commit(ops)
