"""The drain loop: pick items by priority, claim them, run the brain, commit.

Event-driven, no polling: an idle agent has no task and no timer. An enqueue
starts a drain task that picks items until the queue is empty; each item runs
in its own brain task under a backstop. Commits are batched: the outcome of one
item and the claim of the next are written in one transaction, and the brain
starts only after that transaction is committed, so a crash at the brain's first
step finds the item ``processing`` (with its pick decision) and recovery
redelivers it with attempt + 1 and ``redelivered`` set. Outcomes that start no
brain (informational updates, the last item of a drain) stay write-behind.

Due deferred items resurface at the top of every cycle (not only when the
queue is empty), each in its own place; preempted work waits only until the
item that preempted it has been picked.

Spec: 000 §4 (pick, backstop), §22 (resurface), §23 (informational updates);
DESIGN.md invariants 3 and 5 and the backstop choice; acceptance CORE-70, CORE-72.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from typing import Any

from attn.core.attention.attempt import Attempt, Interrupt
from attn.core.attention.ended import Ended, end_ops
from attn.core.attention.gate import TurnGate, settlement_of
from attn.core.attention.merging import merge_candidates, merge_queued
from attn.core.attention.outcomes import Batch, complete, finish, report_incomplete, resolve
from attn.core.attention.preempted import held_back, note_preempted, switch_target
from attn.core.attention.state import (
    ControllerState,
    completes_without_brain,
    decision_context,
    set_state,
)
from attn.core.attention.writes import settle_writes, submit
from attn.core.focus import Focus, Reply
from attn.core.heuristics import is_user_interaction
from attn.core.registry import activity_type_for
from attn.core.triage import Selection
from attn.errors import ReplyCancelled
from attn.ids import new_id
from attn.models import Activity, AttentionState, DecisionType, MailboxItem
from attn.store.base import InsertActivity, WriteOp

log = logging.getLogger("attn.attention")


def on_new_item(s: ControllerState, item: MailboxItem) -> None:
    if s.gate is not None:
        s.gate.arrived(item)
    attempt = s.attempt
    if attempt is not None:
        s.arrivals.append(item)
        attempt.quiet = False
        attempt.mail.set()
        classifying = s.classifying
        if classifying is not None and is_user_interaction(item, s.registry):
            classifying.cancel()  # people first: no waiting on a classifier (CORE-75)
        return
    # Between two focuses: the next focus is offered it through the
    # mailbox's conversation index (see merging.py).
    s.triage.on_arrival(item)
    kick(s)


def kick(s: ControllerState) -> None:
    if s.task is not None:
        s.again = True  # the running drain looks again before it ends
        return
    if s.running and not s.paused:
        cancel_timer(s)
        s.task = asyncio.get_running_loop().create_task(
            _drain(s), name=f"attn:{s.agent_id}:attention"
        )
        s.task.add_done_callback(lambda task: _drain_done(s, task))


def _drain_done(s: ControllerState, task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("attention loop of %s failed", s.agent_id, exc_info=task.exception())


async def _drain(s: ControllerState) -> None:
    mailbox = s.mailbox
    batch = Batch()
    gate = s.gate
    admitted = False
    again = gate is None  # a gated drain asks again only after a turn it ran,
    s.again = False  # or when a kick came while it ran (live mail, a freed slot)
    try:
        while s.running and not s.paused:
            if gate is not None and not admitted:
                # A retained agent: one turn per drain, for waking mail and a slot.
                if not gate.admit():
                    break
                admitted = True
            if mailbox.deferred_count:
                # 000 §22, CORE-72: due items go back at the top of every
                # cycle, to their own priority and place, not only when idle.
                batch.ops.extend(
                    mailbox.transitions.resurface_due_ops(
                        s.clock.now(), idle=False, hold=held_back(s)
                    )
                )
            item = switched = switch_target(s)
            if item is None:
                item = mailbox.queue.pop_nowait()
            if item is None and mailbox.deferred_count:
                batch.ops.extend(mailbox.transitions.resurface_due_ops(s.clock.now()))
                item = mailbox.queue.pop_nowait()
            if item is None:
                break
            if mailbox.depth:
                set_state(s, AttentionState.DECIDING)
            selection = await s.triage.select(item, batch.ops, chosen=switched is not None)
            if selection is not None:
                batch = await _process(s, selection, batch)
                if gate is not None:
                    admitted = False
                    again = True
                    _settle_turn(gate, batch, selection.item)
                    break
        if admitted and gate is not None:
            admitted = False
            gate.release()
        submit(s, batch)
        await settle_writes(s, 0)
    finally:
        if admitted and gate is not None:  # the start failed: the slot goes back
            gate.release()
        s.task = None
        s.attempt = None
        set_state(s, AttentionState.IDLE)
        arm_timer(s)
    # Kicking a gate that admitted nothing at once would spin on unread mail that
    # wakes nobody (self-mail, restored mail); a kick it missed must not be lost.
    if (again or s.again) and mailbox.depth:
        kick(s)


def _settle_turn(gate: TurnGate, batch: Batch, item: MailboxItem) -> None:
    """Hand the ended turn to the gate; its writes join the terminal transaction."""
    settlement = settlement_of(batch.attempt, item)
    gate.settle(settlement)
    batch.ops.extend(settlement.ops)
    batch.staged.extend(settlement.staged)
    batch.after.extend(settlement.after)


async def _process(s: ControllerState, selection: Selection, batch: Batch) -> Batch:
    item = selection.item
    spec = s.registry.get(item.source_type)
    if spec is None:  # stored by a runtime that had registered this type
        reason = f"source type {item.source_type!r} is not registered in this runtime"
        batch.ops.extend(s.mailbox.transitions.drop_ops(item, reason))
        batch.ops.append(s.mailbox.transitions.decision_op(item, DecisionType.DROP, reason))
        batch.after.append(lambda: report_incomplete(s, item, reason))
        batch.after.append(lambda: resolve(s, [item.id], error=ReplyCancelled(reason)))
        if s.end_hooks:
            ended = Ended(item, None, called=False)
            batch.ops.extend(end_ops(s.end_hooks, ended))
            batch.after.extend(ended.after)
        return batch
    now = s.clock.now()
    resumed = item.session is not None
    ops = batch.ops
    ops.extend(s.mailbox.transitions.claim_ops(item, now))
    reason = (
        selection.reasoning
        if selection.decision == DecisionType.TRIAGE
        else _pick_reason(item, resumed, selection.reasoning)
    )
    context = decision_context(s, item)
    context["tier"] = selection.tier
    ops.append(s.mailbox.transitions.decision_op(item, selection.decision, reason, context))
    for sibling in selection.siblings:
        ops.extend(s.mailbox.transitions.claim_ops(sibling, now))
        ops.append(
            s.mailbox.transitions.decision_op(
                sibling, DecisionType.TRIAGE, f"batched with {item.id}: {reason}", context
            )
        )
    activity_id, log_seq = s.activities.get(item.id, (None, 0))
    if activity_id is None:
        activity_id = _open_activity(
            s, item, activity_type_for(spec, item.payload), spec.label, ops, now
        )
    attempt = Attempt(s.host, item, resumed, activity_id, log_seq)
    s.arrivals.clear()
    s.attempt = attempt
    if resumed or selection.siblings:
        # Resumed work, or a batch whose siblings the brain reads after the
        # item: follow-ups join at the first yield point, after all of them
        # (merged into the item now, one would overtake the siblings).
        attempt.early = merge_candidates(s, item)
        attempt.quiet = not attempt.early
    else:
        await merge_queued(s, attempt, ops)
    if completes_without_brain(s, item) and not selection.siblings:
        # 000 §3.4, §23: informational updates are recorded, not sent to the
        # brain; "informational" covers everything merged into the item (CORE-70).
        s.attempt = None
        attempt.live = False
        done = Batch(ops)
        complete(s, done, attempt, None, reason="informational: completed without a model call")
        if s.end_hooks:
            ended = Ended(item, None, called=False)
            done.ops.extend(end_ops(s.end_hooks, ended))
            done.after.extend(ended.after)
        done.after[:0] = batch.after
        done.staged[:0] = batch.staged
        return done
    if attempt.activity_id is None:
        # 000 §6.3: a comment the brain handles as its own item (not injected
        # into running work), or an update that absorbed one, is a chat activity.
        attempt.activity_id = _open_activity(s, item, "chat", spec.label, ops, now)
    attempt.called = True  # a turn from here on, even if it ends before the brain's first step
    attempt.siblings = selection.siblings
    attempt.batch_context = selection.batch_context
    attempt.stream_listener = s.stream_listeners.get(item.id)
    # The claim is durable before the brain's first step (a brain with side
    # effects can rely on ``redelivered`` after a crash); group commit shares
    # the transaction with other agents' writes.
    submit(s, batch, awaited=True)
    await settle_writes(s, 0)
    set_state(s, AttentionState.FOCUSED, new_focus=True)
    focus = Focus(attempt)
    result, error = await _run(s, attempt, focus)
    done = finish(s, attempt, focus, spec, result, error)
    if s.end_hooks:
        ended = Ended(item, attempt.reply, called=True, siblings=tuple(attempt.siblings))
        done.ops.extend(end_ops(s.end_hooks, ended))
        done.after.extend(ended.after)
    note_preempted(s, attempt)
    return done


def _open_activity(
    s: ControllerState,
    item: MailboxItem,
    activity_type: str | None,
    label: str,
    ops: list[WriteOp],
    now: datetime,
) -> str | None:
    """Add the insert of ``item``'s activity to ``ops``; its id, or None for no activity."""
    if activity_type is None:
        return None
    activity_id = new_id("act")
    ops.append(
        InsertActivity(
            Activity(
                id=activity_id,
                agent_id=s.agent_id,
                item_id=item.id,
                type=activity_type,
                label=f"{label}: {item.summary[:60]}",
                started_at=now,
                task_id=_str_or_none(item.extra("taskId")),
            )
        )
    )
    s.activities[item.id] = (activity_id, 0)
    return activity_id


async def _run(
    s: ControllerState, attempt: Attempt, focus: Focus
) -> tuple[Any, BaseException | None]:
    if attempt.interrupt is not None:  # stopped or cancelled while the claim committed
        return None, None
    loop = asyncio.get_running_loop()
    attempt.waiter = loop.create_future()
    task = loop.create_task(
        _call_brain(s, attempt, focus), name=f"attn:{s.agent_id}:brain:{attempt.item.id}"
    )
    attempt.task = task
    # A task cancelled before its first step never runs _call_brain's finally.
    task.add_done_callback(lambda _t: attempt.end())
    arm_backstop(s, attempt, s.config.backstop_s)
    try:
        await attempt.waiter
    except asyncio.CancelledError:
        attempt.end(Interrupt.STOPPED)
        task.cancel()
        raise
    finally:
        if attempt.backstop is not None:
            attempt.backstop.cancel()
    if attempt.interrupt is not None:
        # Generation guard: the attempt is over; whatever it returns later is dropped.
        if not task.done():
            task.cancel()
            s.orphans.add(task)
            task.add_done_callback(s.orphans.discard)
        return None, None
    attempt.live = False
    if task.cancelled():
        return None, asyncio.CancelledError("the brain task was cancelled")
    error = task.exception()
    return (None, error) if error is not None else (task.result(), None)


def arm_backstop(s: ControllerState, attempt: Attempt, backstop_s: float) -> None:
    """(Re)start the backstop of ``attempt``: it times out ``backstop_s`` seconds from now."""
    if attempt.backstop is not None:
        attempt.backstop.cancel()
    attempt.backstop_at = s.clock.monotonic() + backstop_s
    attempt.backstop = s.clock.call_later(backstop_s, lambda: attempt.end(Interrupt.TIMEOUT))


async def _call_brain(s: ControllerState, attempt: Attempt, focus: Focus) -> Reply | str | None:
    try:
        return await s.brain(attempt.item, focus)
    finally:
        # Wake the controller from inside the task's last step: its result is
        # set in this same step, and the controller resumes one loop turn
        # sooner than through the task's done callback.
        attempt.end()


# ------------------------------------------------------- resurface timer


def arm_timer(s: ControllerState) -> None:
    cancel_timer(s)
    due = s.mailbox.deferred.next_resurface_at()
    if due is None or not s.running or s.paused:
        return
    delay_s = (due - s.clock.now()).total_seconds()
    s.timer = s.clock.call_later(max(0.0, delay_s), lambda: kick(s))


def cancel_timer(s: ControllerState) -> None:
    if s.timer is not None:
        s.timer.cancel()
        s.timer = None


def _pick_reason(item: MailboxItem, resumed: bool, default: str) -> str:
    if item.redelivered and item.attempt > 1:
        return f"Redelivered after an interrupted attempt (attempt {item.attempt})"
    if resumed:
        return "Resumed earlier work with its saved session"
    if item.attempt > 1:
        return f"Retry (attempt {item.attempt})"
    return f"{default} (priority {item.priority})"


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None
