"""How an attempt ends: the write ops for each outcome, and answering callers.

:func:`finish` turns an ended attempt (brain result or
error, backstop timeout, stop, cancel, preempt) into a batch of write ops:
completed, requeued with an attempt counted, dropped after the last attempt,
deferred, or requeued unchanged. Callers waiting on a reply, and
``agent:incomplete`` listeners, are answered only after that batch commits.

Spec: 000 §4 (backstop, stop/pause, cancel), §20 (completion marker,
incomplete events); DESIGN.md invariants 4–6 and the retry choice.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from attn.core.attention.attempt import Attempt, Interrupt
from attn.core.attention.state import ControllerState, decision_context, emit
from attn.core.events import INCOMPLETE
from attn.core.focus import Focus, Reply, YieldAction
from attn.core.item_type import ItemType
from attn.errors import InvalidInput, ModelError, ReplyCancelled
from attn.models import COMPLETION_MARKER, DecisionType, ItemStatus, MailboxItem
from attn.store.base import InsertLogs, UpdateActivity, WriteOp

log = logging.getLogger("attn.attention")
_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL)


@dataclass(slots=True)
class Batch:
    """Write ops not yet committed, and what to do once they are."""

    ops: list[WriteOp] = field(default_factory=list)
    after: list[Callable[[], None]] = field(default_factory=list)
    #: Ops whose result a callback wants once committed (a gate's staged RESULT).
    staged: list[tuple[WriteOp, Callable[[Any], None]]] = field(default_factory=list)
    #: The attempt whose outcome this batch holds (the last one, in a drain).
    attempt: Attempt | None = None


def strip_marker(text: str) -> tuple[str, bool]:
    """Remove the completion marker; report whether it stood outside a think block."""
    found = COMPLETION_MARKER in _THINK.sub("", text)
    return text.replace(COMPLETION_MARKER, "").strip(), found


def finish(
    s: ControllerState,
    attempt: Attempt,
    focus: Focus,
    spec: ItemType,
    result: Any,
    error: BaseException | None,
) -> Batch:
    attempt.live = False
    s.attempt = None
    item = attempt.item
    batch = Batch(attempt=attempt)
    interrupt = attempt.interrupt
    final = attempt.final
    cancelled = interrupt is Interrupt.CANCELLED or (
        final is not None and final.action == YieldAction.CANCEL
    )
    if attempt.parked_on and not cancelled:
        # The brain asked a person (000 §13.2): the question is stored, so the
        # work waits on it whatever else ended the call; only a cancel beats it.
        _park(s, batch, attempt, focus, error)
    elif interrupt is Interrupt.TIMEOUT:
        # The attempt may have done part of its work: the next one is told so.
        reason = f"backstop: no result after {s.config.backstop_s} s"
        _fail(s, batch, attempt, reason, redelivered=True)
    elif interrupt is Interrupt.STOPPED:
        item.session = focus.session
        batch.ops.extend(
            s.mailbox.transitions.requeue_ops(item, failed=False, reason="agent stopped")
        )
        batch.ops.append(
            s.mailbox.transitions.decision_op(
                item, DecisionType.REQUEUE, "Agent stopped or paused: work kept for later"
            )
        )
    elif cancelled:
        reason = attempt.cancel_request or (final.reason if final else "cancelled")
        if interrupt is Interrupt.CANCELLED and (
            final is None or final.action != YieldAction.CANCEL
        ):
            # A hard cancel never reaches a yield point, which records soft ones.
            batch.ops.append(
                s.mailbox.transitions.decision_op(
                    item,
                    DecisionType.CANCEL,
                    f"Cancelled by a person (hard): {reason}",
                    decision_context(s, item),
                )
            )
        attempt.add_log("status", f"cancelled: {reason}", {})
        partial = "".join(attempt.partial)
        reply = Reply(f"{partial}\n[cancelled]".lstrip("\n"), item.id, cancelled=True)
        complete(s, batch, attempt, reply, reason=f"cancelled: {reason}")
    elif final is not None and final.action == YieldAction.PREEMPT:
        item.session = focus.session
        # Due at once: it resurfaces at the top of a coming cycle (CORE-72).
        batch.ops.extend(
            s.mailbox.transitions.defer_ops(item, s.clock.now(), f"preempted: {final.reason}")
        )
    elif error is not None:
        _fail(
            s,
            batch,
            attempt,
            f"brain raised {type(error).__name__}: {error}",
            final=_hopeless(error),
        )
    else:
        _settle(s, batch, attempt, spec, result)
    if attempt.siblings and item.status != ItemStatus.COMPLETED:
        for sibling in attempt.siblings:  # the batch did not finish: all go back
            batch.ops.extend(
                s.mailbox.transitions.requeue_ops(
                    sibling, failed=False, reason=f"batch with {item.id} interrupted"
                )
            )
            batch.ops.append(
                s.mailbox.transitions.decision_op(
                    sibling, DecisionType.REQUEUE, f"batch with {item.id} did not complete"
                )
            )
    if attempt.logs:
        batch.ops.append(InsertLogs(tuple(attempt.take_logs())))
    entry = s.activities.get(item.id)
    if entry is not None:  # the activity goes on (preempt, stop, retry): so does its seq
        s.activities[item.id] = (entry[0], attempt.log_seq)
    return batch


def _park(
    s: ControllerState,
    batch: Batch,
    attempt: Attempt,
    focus: Focus,
    error: BaseException | None,
) -> None:
    item = attempt.item
    item.session = focus.session
    waiting = ", ".join(attempt.parked_on)
    reason = f"parked: waiting on {waiting}"
    if error is not None:
        attempt.add_log("error", f"brain raised {type(error).__name__} after asking: {error}", {})
    attempt.add_log("status", reason, {"waitingOn": list(attempt.parked_on)})
    transitions = s.mailbox.transitions
    batch.ops.extend(transitions.park_ops(item, reason))
    batch.ops.append(
        transitions.decision_op(item, DecisionType.DEFER, reason, decision_context(s, item))
    )


def _settle(
    s: ControllerState, batch: Batch, attempt: Attempt, spec: ItemType, result: Any
) -> None:
    item = attempt.item
    if result is None:
        reply = None
    elif isinstance(result, Reply):
        reply = replace(result, item_id=item.id)
    elif isinstance(result, str):
        reply = Reply(result, item.id)
    else:
        _fail(
            s,
            batch,
            attempt,
            f"brain returned {type(result).__name__}, expected Reply, str or None",
        )
        return
    # The brain's own word (Focus.report_incomplete) wins: one event, no retry.
    incomplete = attempt.incomplete
    if reply is not None and s.uses_marker and spec.invokes_llm:
        text, found = strip_marker(reply.text)
        reply = replace(reply, text=text)
        # Chat (a type a person waits on) is never told to write the marker (000 §20).
        if not found and incomplete is None and spec.preemptable:
            incomplete = "reply lacks the completion marker"
    if (
        attempt.incomplete is None
        and reply is not None
        and spec.invokes_llm
        and not reply.text.strip()
    ):
        if not spec.user_interaction:
            _fail(s, batch, attempt, "empty reply")
            return
        incomplete = "empty reply"
    complete(s, batch, attempt, reply, incomplete=incomplete)


def complete(
    s: ControllerState,
    batch: Batch,
    attempt: Attempt,
    reply: Reply | None,
    *,
    reason: str | None = None,
    incomplete: str | None = None,
) -> None:
    item = attempt.item
    batch.ops.extend(s.mailbox.transitions.complete_ops(item, reason))
    for sibling in attempt.siblings:
        batch.ops.extend(
            s.mailbox.transitions.complete_ops(sibling, f"handled in a batch with {item.id}")
        )
    _end_activity(s, batch, attempt, success=incomplete is None and reason is None)
    if incomplete is not None:
        attempt.add_log("error", f"incomplete: {incomplete}", {})
        batch.after.append(lambda: report_incomplete(s, item, incomplete))
    ids = [item.id, *attempt.merged_ids, *(i.id for i in attempt.siblings)]
    answer = reply if reply is not None else Reply("", item.id)
    attempt.reply = answer.text
    batch.attempt = attempt
    batch.after.append(lambda: resolve(s, ids, reply=answer))


def _hopeless(error: BaseException) -> bool:
    """True for a failure another attempt cannot mend: a provider's refusal (400, 401,
    403, 404: ``ModelError`` not retryable) or bad input such as a missing API key."""
    if isinstance(error, ModelError):
        return not error.retryable
    return isinstance(error, InvalidInput)


def _fail(
    s: ControllerState,
    batch: Batch,
    attempt: Attempt,
    reason: str,
    *,
    final: bool = False,
    redelivered: bool | None = None,
) -> None:
    item = attempt.item
    mailbox = s.mailbox
    if final or item.attempt >= s.config.max_attempts:
        reason = (
            f"{reason}; not retried (another attempt would fail the same way)"
            if final and item.attempt < s.config.max_attempts
            else f"{reason}; gave up after {item.attempt} attempts"
        )
        batch.ops.extend(mailbox.transitions.drop_ops(item, reason))
        batch.ops.append(
            mailbox.transitions.decision_op(
                item, DecisionType.DROP, reason, decision_context(s, item)
            )
        )
        attempt.add_log("error", reason, {})
        _end_activity(s, batch, attempt, success=False)
        ids = [item.id, *attempt.merged_ids]
        batch.after.append(lambda: report_incomplete(s, item, reason))
        batch.after.append(
            lambda: resolve(s, ids, error=ReplyCancelled(f"item {item.id} was dropped: {reason}"))
        )
    else:
        attempt.add_log("error", reason, {})
        batch.ops.extend(
            mailbox.transitions.requeue_ops(
                item, failed=True, reason=reason, redelivered=redelivered
            )
        )
        batch.ops.append(
            mailbox.transitions.decision_op(
                item,
                DecisionType.REQUEUE,
                f"{reason}; retrying (attempt {item.attempt} of {s.config.max_attempts})",
                decision_context(s, item),
            )
        )


def _end_activity(s: ControllerState, batch: Batch, attempt: Attempt, *, success: bool) -> None:
    entry = s.activities.pop(attempt.item.id, None)
    if entry is not None:
        batch.ops.append(
            UpdateActivity(
                entry[0],
                {
                    "ended_at": s.clock.now(),
                    "total_tokens": attempt.tokens,
                    "total_tools": attempt.tools,
                    "success": success,
                },
            )
        )


def report_incomplete(s: ControllerState, item: MailboxItem, reason: str) -> None:
    emit(
        s, INCOMPLETE, {"mailboxItemId": item.id, "sourceType": item.source_type, "reason": reason}
    )


def resolve(
    s: ControllerState,
    item_ids: list[str],
    *,
    reply: Reply | None = None,
    error: BaseException | None = None,
) -> None:
    for item_id in item_ids:
        s.stream_listeners.pop(item_id, None)
        future = s.reply_waiters.pop(item_id, None)
        if future is None or future.done():
            continue
        if error is not None:
            future.set_exception(error)
        elif reply is not None:
            future.set_result(reply)
