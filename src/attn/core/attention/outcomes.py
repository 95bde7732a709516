"""How an attempt ends: the write ops for each outcome, and answering callers.

:meth:`ControllerOutcomes._finish` turns an ended attempt (brain result or
error, backstop timeout, stop, cancel, preempt) into a batch of write ops:
completed, requeued with an attempt counted, dropped after the last attempt,
deferred, or requeued unchanged. Callers waiting on a reply, and
``agent:incomplete`` listeners, are answered only after that batch commits.

Spec: 000 §4 (backstop, stop/pause, cancel), §20 (completion marker,
incomplete events); DESIGN.md invariants 4–6 and the retry choice.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from attn.core.attempt import Attempt, Interrupt
from attn.core.attention.state import ControllerState
from attn.core.events import INCOMPLETE
from attn.core.focus import Focus, Reply, YieldAction
from attn.core.registry import ItemType
from attn.errors import ReplyCancelled
from attn.models import COMPLETION_MARKER, DecisionType, ItemStatus, MailboxItem
from attn.store.base import InsertLogs, UpdateActivity, WriteOp

log = logging.getLogger("attn.attention")
_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL)


@dataclass(slots=True)
class _Batch:
    """Write ops not yet committed, and what to do once they are."""

    ops: list[WriteOp] = field(default_factory=list)
    after: list[Callable[[], None]] = field(default_factory=list)


def _log_failure(future: asyncio.Future[list[Any]]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("writing activity logs failed", exc_info=future.exception())


def strip_marker(text: str) -> tuple[str, bool]:
    """Remove the completion marker; report whether it stood outside a think block."""
    found = COMPLETION_MARKER in _THINK.sub("", text)
    return text.replace(COMPLETION_MARKER, "").strip(), found


class ControllerOutcomes(ControllerState):
    """The end of each attempt: its outcome as write ops, then its callers answered."""

    def _finish(
        self,
        attempt: Attempt,
        focus: Focus,
        spec: ItemType,
        result: Any,
        error: BaseException | None,
    ) -> _Batch:
        attempt.live = False
        self._attempt = None
        item = attempt.item
        batch = _Batch()
        interrupt = attempt.interrupt
        final = attempt.final
        if interrupt is Interrupt.TIMEOUT:
            self._fail(batch, attempt, f"backstop: no result after {self.config.backstop_s} s")
        elif interrupt is Interrupt.STOPPED:
            item.session = focus.session
            batch.ops.extend(self.mailbox.requeue_ops(item, failed=False, reason="agent stopped"))
            batch.ops.append(
                self.mailbox.decision_op(
                    item, DecisionType.REQUEUE, "Agent stopped or paused: work kept for later"
                )
            )
        elif interrupt is Interrupt.CANCELLED or (
            final is not None and final.action == YieldAction.CANCEL
        ):
            reason = attempt.cancel_request or (final.reason if final else "cancelled")
            if interrupt is Interrupt.CANCELLED and (
                final is None or final.action != YieldAction.CANCEL
            ):
                # A hard cancel never reaches a yield point, which records soft ones.
                batch.ops.append(
                    self.mailbox.decision_op(
                        item,
                        DecisionType.CANCEL,
                        f"Cancelled by a person (hard): {reason}",
                        self._context(item),
                    )
                )
            attempt.add_log("status", f"cancelled: {reason}", {})
            partial = "".join(attempt.partial)
            reply = Reply(f"{partial}\n[cancelled]".lstrip("\n"), item.id, cancelled=True)
            self._complete(batch, attempt, reply, reason=f"cancelled: {reason}")
        elif final is not None and final.action == YieldAction.PREEMPT:
            item.session = focus.session
            # Due at once: it resurfaces at the top of a coming cycle (CORE-72).
            batch.ops.extend(
                self.mailbox.defer_ops(item, self.clock.now(), f"preempted: {final.reason}")
            )
        elif error is not None:
            self._fail(batch, attempt, f"brain raised {type(error).__name__}: {error}")
        else:
            self._settle(batch, attempt, spec, result)
        if attempt.siblings and item.status != ItemStatus.COMPLETED:
            for sibling in attempt.siblings:  # the batch did not finish: all go back
                batch.ops.extend(
                    self.mailbox.requeue_ops(
                        sibling, failed=False, reason=f"batch with {item.id} interrupted"
                    )
                )
                batch.ops.append(
                    self.mailbox.decision_op(
                        sibling, DecisionType.REQUEUE, f"batch with {item.id} did not complete"
                    )
                )
        if attempt.logs:
            batch.ops.append(InsertLogs(tuple(attempt.take_logs())))
        entry = self._activities.get(item.id)
        if entry is not None:  # the activity goes on (preempt, stop, retry): so does its seq
            self._activities[item.id] = (entry[0], attempt.log_seq)
        return batch

    def flush_logs(self, attempt: Attempt) -> None:
        """Write ``attempt``'s buffered log lines now, write-behind (in commit order)."""
        future = self.mailbox.submit([InsertLogs(tuple(attempt.take_logs()))])
        future.add_done_callback(_log_failure)
        self._pending.append(future)

    def _settle(self, batch: _Batch, attempt: Attempt, spec: ItemType, result: Any) -> None:
        item = attempt.item
        if result is None:
            reply = None
        elif isinstance(result, Reply):
            reply = replace(result, item_id=item.id)
        elif isinstance(result, str):
            reply = Reply(result, item.id)
        else:
            self._fail(
                batch,
                attempt,
                f"brain returned {type(result).__name__}, expected Reply, str or None",
            )
            return
        incomplete = None
        if reply is not None and self._uses_marker and spec.invokes_llm:
            text, found = strip_marker(reply.text)
            reply = replace(reply, text=text)
            if not found:
                incomplete = "reply lacks the completion marker"
        if reply is not None and spec.invokes_llm and not reply.text.strip():
            if not spec.user_interaction:
                self._fail(batch, attempt, "empty reply")
                return
            incomplete = "empty reply"
        self._complete(batch, attempt, reply, incomplete=incomplete)

    def _complete(
        self,
        batch: _Batch,
        attempt: Attempt,
        reply: Reply | None,
        *,
        reason: str | None = None,
        incomplete: str | None = None,
    ) -> None:
        item = attempt.item
        batch.ops.extend(self.mailbox.complete_ops(item, reason))
        for sibling in attempt.siblings:
            batch.ops.extend(
                self.mailbox.complete_ops(sibling, f"handled in a batch with {item.id}")
            )
        self._end_activity(batch, attempt, success=incomplete is None and reason is None)
        if incomplete is not None:
            attempt.add_log("error", f"incomplete: {incomplete}", {})
            batch.after.append(lambda: self._incomplete(item, incomplete))
        ids = [item.id, *attempt.merged_ids, *(i.id for i in attempt.siblings)]
        answer = reply if reply is not None else Reply("", item.id)
        batch.after.append(lambda: self._resolve(ids, reply=answer))

    def _fail(self, batch: _Batch, attempt: Attempt, reason: str) -> None:
        item = attempt.item
        mailbox = self.mailbox
        if item.attempt >= self.config.max_attempts:
            reason = f"{reason}; gave up after {item.attempt} attempts"
            batch.ops.extend(mailbox.drop_ops(item, reason))
            batch.ops.append(
                mailbox.decision_op(item, DecisionType.DROP, reason, self._context(item))
            )
            attempt.add_log("error", reason, {})
            self._end_activity(batch, attempt, success=False)
            ids = [item.id, *attempt.merged_ids]
            batch.after.append(lambda: self._incomplete(item, reason))
            batch.after.append(
                lambda: self._resolve(
                    ids, error=ReplyCancelled(f"item {item.id} was dropped: {reason}")
                )
            )
        else:
            attempt.add_log("error", reason, {})
            batch.ops.extend(mailbox.requeue_ops(item, failed=True, reason=reason))
            batch.ops.append(
                mailbox.decision_op(
                    item,
                    DecisionType.REQUEUE,
                    f"{reason}; retrying (attempt {item.attempt} of {self.config.max_attempts})",
                    self._context(item),
                )
            )

    def _end_activity(self, batch: _Batch, attempt: Attempt, *, success: bool) -> None:
        entry = self._activities.pop(attempt.item.id, None)
        if entry is not None:
            batch.ops.append(
                UpdateActivity(
                    entry[0],
                    {
                        "ended_at": self.clock.now(),
                        "total_tokens": attempt.tokens,
                        "total_tools": attempt.tools,
                        "success": success,
                    },
                )
            )

    def _incomplete(self, item: MailboxItem, reason: str) -> None:
        self._emit(
            INCOMPLETE, {"mailboxItemId": item.id, "sourceType": item.source_type, "reason": reason}
        )

    def _resolve(
        self, item_ids: list[str], *, reply: Reply | None = None, error: BaseException | None = None
    ) -> None:
        for item_id in item_ids:
            self._stream_listeners.pop(item_id, None)
            future = self._reply_waiters.pop(item_id, None)
            if future is None or future.done():
                continue
            if error is not None:
                future.set_exception(error)
            elif reply is not None:
                future.set_result(reply)
