"""The attention controller: one agent's loop, one item at a time.

Event-driven, no polling: an idle agent has no task and no timer. An enqueue
starts a drain task that picks items by priority until the queue is empty.
Each item runs in its own brain task under a backstop; new mail raises an
interrupt signal that the brain sees at its next yield point.

Commits are batched: the completion of one item and the claim of the next are
written in one transaction, and the claim is committed before the brain starts.

Spec: 000 §4 (states, decisions, yield points, backstop, stop/pause), §20
(completion marker, incomplete events), §22 (resurface); DESIGN.md invariants
3–6, 9 and the retry and backstop choices.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from attn.clock import Clock, TimerHandle
from attn.core.attempt import Attempt, Interrupt
from attn.core.config import AgentConfig
from attn.core.deliberation import Deliberator
from attn.core.events import FOCUS_CHANGED, INCOMPLETE, STATE_CHANGED, Event, EventBus
from attn.core.focus import CONTINUE, STALE, Brain, Focus, Reply, YieldAction, YieldDecision
from attn.core.heuristics import CONTINUE_VERDICT, HeuristicJudge, Verdict
from attn.core.mailbox import Mailbox
from attn.core.models import (
    COMPLETION_MARKER,
    Activity,
    AttentionState,
    DecisionType,
    ItemStatus,
    MailboxItem,
)
from attn.core.registry import ItemType, TypeRegistry, activity_type_for
from attn.core.triage import Selection, Triage
from attn.errors import ReplyCancelled
from attn.ids import new_id
from attn.store.base import InsertActivity, InsertLogs, UpdateActivity, WriteOp

log = logging.getLogger("attn.attention")
#: Most write-behind commits one agent may have in flight before it waits.
_MAX_IN_FLIGHT = 64
#: Most items remembered as arrived between two focuses.
_MAX_EARLY = 1000
_CLASSIFIER_WORDS = {d.value: d for d in (DecisionType.CONTINUE, DecisionType.PREEMPT,
                                          DecisionType.CANCEL, DecisionType.MERGE,
                                          DecisionType.DEFER)}
_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL)


class InterruptJudge(Protocol):
    """Decides about an arrival while another item is in focus (the heuristic table)."""

    async def judge(self, focus: MailboxItem, new: MailboxItem) -> Verdict: ...


class InterruptClassifier(Protocol):
    """Tier 1 (000 §21): a one-word judgement when the heuristics say continue.

    Receives the focus, the new item, the queue and the last decisions; returns
    one of ``continue``, ``preempt``, ``cancel``, ``merge`` or ``defer``. Any
    other answer, or an exception, means continue.
    """

    async def classify(self, focus: MailboxItem, new: MailboxItem, queue: list[MailboxItem],
                       recent: list[dict[str, Any]]) -> str: ...


@dataclass(slots=True)
class _Batch:
    """Write ops not yet committed, and what to do once they are."""

    ops: list[WriteOp] = field(default_factory=list)
    after: list[Callable[[], None]] = field(default_factory=list)


def strip_marker(text: str) -> tuple[str, bool]:
    """Remove the completion marker; report whether it stood outside a think block."""
    found = COMPLETION_MARKER in _THINK.sub("", text)
    return text.replace(COMPLETION_MARKER, "").strip(), found


class AttentionController:
    """Runs one agent's attention loop over its :class:`Mailbox`.

    Args:
        mailbox: the agent's mailbox (the controller subscribes to its arrivals).
        brain: the agent's work, called once per attempt.
        registry, clock, bus, config: shared services and settings.
        judge: interrupt judge; defaults to the heuristic table.
    """

    def __init__(self, mailbox: Mailbox, brain: Brain, registry: TypeRegistry, clock: Clock,
                 bus: EventBus, config: AgentConfig, judge: InterruptJudge | None = None,
                 deliberator: Deliberator | None = None,
                 classifier: InterruptClassifier | None = None) -> None:
        self.agent_id = mailbox.agent_id
        self.mailbox = mailbox
        self.brain = brain
        self.registry = registry
        self.clock = clock
        self.bus = bus
        self.config = config
        self.judge: InterruptJudge = judge or HeuristicJudge(registry)
        #: Tier 1: asked when the heuristics say continue (000 §21).
        self.classifier = classifier
        self.triage = Triage(mailbox, registry, clock, config, deliberator)
        self.state = AttentionState.IDLE
        self.running = False
        self.paused = False
        self._task: asyncio.Task[None] | None = None
        self._attempt: Attempt | None = None
        self._arrivals: list[MailboxItem] = []
        self._early: list[MailboxItem] = []
        self._orphans: set[asyncio.Task[Any]] = set()
        self._reply_waiters: dict[str, asyncio.Future[Reply]] = {}
        self._stream_listeners: dict[str, Callable[[str], None]] = {}
        self._activities: dict[str, tuple[str, int]] = {}
        self._timer: TimerHandle | None = None
        self._pending: deque[asyncio.Future[list[Any]]] = deque()
        self._announced_focus: str | None = None
        self._uses_marker = bool(getattr(brain, "uses_completion_marker", False))
        mailbox.on_new_item = self._on_new_item
        mailbox.focus_id = self._focus_id

    # ------------------------------------------------------------ public API

    @property
    def focus_item(self) -> MailboxItem | None:
        """The item being processed, or None when idle."""
        attempt = self._attempt
        return attempt.item if attempt is not None else None

    def start(self) -> None:
        """Run the loop (again); deferred and queued items are served."""
        self.running = True
        self.paused = False
        self._kick()

    async def stop(self, *, pause: bool = False) -> None:
        """Stop (or pause) the loop; the in-flight item goes back to queued (invariant 6)."""
        if pause:
            self.paused = True
        else:
            self.running = False
        attempt = self._attempt
        if attempt is not None:
            attempt.end(Interrupt.STOPPED)
        await self.wait_idle()
        self._cancel_timer()

    def resume(self) -> None:
        """Undo :meth:`stop` with ``pause=True``."""
        self.start()

    def cancel_processing(self, reason: str, *, hard: bool = False) -> str | None:
        """Ask the current work to stop for good (a person's cancel).

        The next yield point answers cancel (also for human chat); with
        ``hard`` the brain task is cancelled at once. The request is bound to
        the current item and never leaks onto the next one (CORE-30).

        Returns:
            The id of the item being cancelled, or None when idle.
        """
        attempt = self._attempt
        if attempt is None:
            return None
        attempt.cancel_request = reason
        attempt.quiet = False
        if hard:
            attempt.end(Interrupt.CANCELLED)
        return attempt.item.id

    def expect_reply(self, item_id: str, listener: Callable[[str], None] | None = None
                     ) -> asyncio.Future[Reply]:
        """A future resolved with the reply to ``item_id`` (or ReplyCancelled)."""
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._reply_waiters[item_id] = future
        if listener is not None:
            self._stream_listeners[item_id] = listener
        return future

    def forget_reply(self, item_id: str) -> None:
        self._reply_waiters.pop(item_id, None)
        self._stream_listeners.pop(item_id, None)

    async def wait_idle(self) -> None:
        """Return once no drain task runs (the queue is empty or the loop stopped)."""
        while (task := self._task) is not None:
            await asyncio.wait({task})

    async def close(self) -> None:
        """Stop, cancel orphaned attempts and fail every waiting caller (CORE-51)."""
        await self.stop()
        for task in list(self._orphans):
            task.cancel()
        self._orphans.clear()
        self._resolve(list(self._reply_waiters), error=ReplyCancelled(
            f"agent {self.agent_id!r} stopped before replying"))

    # ----------------------------------------------------------------- loop

    def _on_new_item(self, item: MailboxItem) -> None:
        attempt = self._attempt
        if attempt is not None:
            self._arrivals.append(item)
            attempt.quiet = False
            return
        self.triage.on_arrival(item)
        if self.running and not self.paused and len(self._early) < _MAX_EARLY:
            # Between two focuses: the next focus may merge it (a follow-up
            # chat must not be answered after later follow-ups were merged).
            self._early.append(item)
        if self._task is None:
            self._kick()

    def _kick(self) -> None:
        if self.running and not self.paused and self._task is None:
            self._cancel_timer()
            self._task = asyncio.get_running_loop().create_task(
                self._drain(), name=f"attn:{self.agent_id}:attention"
            )
            self._task.add_done_callback(self._drain_done)

    def _drain_done(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("attention loop of %s failed", self.agent_id, exc_info=task.exception())

    async def _drain(self) -> None:
        mailbox = self.mailbox
        batch = _Batch()
        try:
            while self.running and not self.paused:
                item = mailbox.pop_nowait()
                if item is None and mailbox.deferred_count:
                    batch.ops.extend(mailbox.resurface_due_ops(self.clock.now()))
                    item = mailbox.pop_nowait()
                if item is None:
                    break
                if mailbox.depth:
                    self._set_state(AttentionState.DECIDING)
                selection = await self.triage.select(item, batch.ops)
                if selection is not None:
                    batch = await self._process(selection, batch)
            self._submit(batch)
            await self._settle_writes(0)
        finally:
            self._task = None
            self._attempt = None
            self._set_state(AttentionState.IDLE)
            self._arm_timer()
        if mailbox.depth:
            self._kick()

    def _submit(self, batch: _Batch) -> None:
        """Write-behind: start the commit; run ``after`` callbacks once it is durable.

        Successive submissions commit in order, so the store never shows two
        items of this agent processing. Callers waiting on a reply are answered
        only after the commit that completed their item.
        """
        if not batch.ops:
            for callback in batch.after:
                callback()
            return
        future = self.mailbox.submit(batch.ops)
        after = batch.after
        future.add_done_callback(lambda f: self._committed(f, after))
        self._pending.append(future)

    def _committed(self, future: asyncio.Future[list[Any]], after: list[Callable[[], None]]
                   ) -> None:
        if future.cancelled() or future.exception() is not None:
            log.error("write of agent %s failed", self.agent_id,
                      exc_info=None if future.cancelled() else future.exception())
        for callback in after:
            callback()

    async def _settle_writes(self, keep: int) -> None:
        """Wait until at most ``keep`` submitted writes are still in flight."""
        pending = self._pending
        while pending and pending[0].done():
            pending.popleft()
        while len(pending) > keep:
            await asyncio.wait({pending.popleft()})

    async def _process(self, selection: Selection, batch: _Batch) -> _Batch:
        item = selection.item
        spec = self.registry.get(item.source_type)
        if spec is None:  # stored by a runtime that had registered this type
            reason = f"source type {item.source_type!r} is not registered in this runtime"
            batch.ops.extend(self.mailbox.drop_ops(item, reason))
            batch.ops.append(self.mailbox.decision_op(item, DecisionType.DROP, reason))
            batch.after.append(lambda: self._incomplete(item, reason))
            batch.after.append(lambda: self._resolve([item.id], error=ReplyCancelled(reason)))
            return batch
        now = self.clock.now()
        resumed = item.session is not None
        ops = batch.ops
        ops.extend(self.mailbox.claim_ops(item, now))
        reason = (selection.reasoning if selection.decision == DecisionType.TRIAGE
                  else _pick_reason(item, resumed, selection.reasoning))
        context = self._context(item)
        context["tier"] = selection.tier
        ops.append(self.mailbox.decision_op(item, selection.decision, reason, context))
        for sibling in selection.siblings:
            ops.extend(self.mailbox.claim_ops(sibling, now))
            ops.append(self.mailbox.decision_op(
                sibling, DecisionType.TRIAGE, f"batched with {item.id}: {reason}", context))
        activity_id, log_seq = self._activities.get(item.id, (None, 0))
        if activity_id is None:
            activity_type = activity_type_for(spec, item.payload)
            if activity_type is not None:
                activity_id = new_id("act")
                ops.append(InsertActivity(Activity(
                    id=activity_id, agent_id=self.agent_id, item_id=item.id, type=activity_type,
                    label=f"{spec.label}: {item.summary[:60]}", started_at=now,
                    task_id=_str_or_none(item.extra("taskId")))))
                self._activities[item.id] = (activity_id, 0)
        attempt = Attempt(self, item, resumed, activity_id, log_seq)
        if self._informational(spec, item) and not selection.siblings:
            # 000 §3.4, §23: informational updates are recorded, not sent to the brain.
            self._arrivals.clear()
            attempt.live = False
            done = _Batch(ops)
            self._complete(done, attempt, None, reason="informational: completed without a "
                           "model call")
            done.after[:0] = batch.after
            return done
        attempt.siblings = selection.siblings
        attempt.batch_context = selection.batch_context
        attempt.stream_listener = self._stream_listeners.get(item.id)
        if self._early:
            attempt.early = [i for i in self._early if i is not item]
            attempt.quiet = not attempt.early
            self._early = []
        self._arrivals.clear()
        self._attempt = attempt
        self._submit(batch)
        await self._settle_writes(_MAX_IN_FLIGHT)
        self._set_state(AttentionState.FOCUSED, new_focus=True)
        focus = Focus(attempt)
        result, error = await self._run(attempt, focus)
        return self._finish(attempt, focus, spec, result, error)

    async def _run(self, attempt: Attempt, focus: Focus) -> tuple[Any, BaseException | None]:
        if attempt.interrupt is not None:  # stopped or cancelled while the claim committed
            return None, None
        loop = asyncio.get_running_loop()
        attempt.waiter = loop.create_future()
        task = loop.create_task(self._call_brain(attempt, focus),
                                name=f"attn:{self.agent_id}:brain:{attempt.item.id}")
        attempt.task = task
        # A task cancelled before its first step never runs _call_brain's finally.
        task.add_done_callback(lambda _t: attempt.end())
        self.arm_backstop(attempt, self.config.backstop_s)
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
                self._orphans.add(task)
                task.add_done_callback(self._orphans.discard)
            return None, None
        attempt.live = False
        if task.cancelled():
            return None, asyncio.CancelledError("the brain task was cancelled")
        error = task.exception()
        return (None, error) if error is not None else (task.result(), None)

    def _informational(self, spec: ItemType, item: MailboxItem) -> bool:
        """True for an item the brain need not see: an informational type
        (no model call, no text) that neither triggers execution nor asks for action."""
        return (self.config.auto_complete_informational and not spec.invokes_llm
                and not spec.requires_text and not item.triggers_execution
                and not item.extra("actionRequired"))

    def arm_backstop(self, attempt: Attempt, backstop_s: float) -> None:
        """(Re)start the backstop of ``attempt``: it times out ``backstop_s`` seconds from now."""
        if attempt.backstop is not None:
            attempt.backstop.cancel()
        attempt.backstop = self.clock.call_later(backstop_s,
                                                 lambda: attempt.end(Interrupt.TIMEOUT))

    async def _call_brain(self, attempt: Attempt, focus: Focus) -> Reply | str | None:
        try:
            return await self.brain(attempt.item, focus)
        finally:
            # Wake the controller from inside the task's last step: its result is
            # set in this same step, and the controller resumes one loop turn
            # sooner than through the task's done callback.
            attempt.end()

    # ------------------------------------------------------------ outcomes

    def _finish(self, attempt: Attempt, focus: Focus, spec: ItemType, result: Any,
                error: BaseException | None) -> _Batch:
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
            batch.ops.append(self.mailbox.decision_op(
                item, DecisionType.REQUEUE, "Agent stopped or paused: work kept for later"))
        elif interrupt is Interrupt.CANCELLED or (
            final is not None and final.action == YieldAction.CANCEL
        ):
            reason = attempt.cancel_request or (final.reason if final else "cancelled")
            partial = "".join(attempt.partial)
            reply = Reply(f"{partial}\n[cancelled]".lstrip("\n"), item.id, cancelled=True)
            self._complete(batch, attempt, reply, reason=f"cancelled: {reason}")
        elif final is not None and final.action == YieldAction.PREEMPT:
            item.session = focus.session
            batch.ops.extend(self.mailbox.defer_ops(item, None, f"preempted: {final.reason}"))
        elif error is not None:
            self._fail(batch, attempt, f"brain raised {type(error).__name__}: {error}")
        else:
            self._settle(batch, attempt, spec, result)
        if attempt.siblings and item.status != ItemStatus.COMPLETED:
            for sibling in attempt.siblings:  # the batch did not finish: all go back
                batch.ops.extend(self.mailbox.requeue_ops(
                    sibling, failed=False, reason=f"batch with {item.id} interrupted"))
                batch.ops.append(self.mailbox.decision_op(
                    sibling, DecisionType.REQUEUE, f"batch with {item.id} did not complete"))
        if attempt.logs:
            batch.ops.append(InsertLogs(tuple(attempt.take_logs())))
        return batch

    def _settle(self, batch: _Batch, attempt: Attempt, spec: ItemType, result: Any) -> None:
        item = attempt.item
        if result is None:
            reply = None
        elif isinstance(result, Reply):
            reply = replace(result, item_id=item.id)
        elif isinstance(result, str):
            reply = Reply(result, item.id)
        else:
            self._fail(batch, attempt, f"brain returned {type(result).__name__}, "
                                       "expected Reply, str or None")
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

    def _complete(self, batch: _Batch, attempt: Attempt, reply: Reply | None, *,
                  reason: str | None = None, incomplete: str | None = None) -> None:
        item = attempt.item
        batch.ops.extend(self.mailbox.complete_ops(item, reason))
        for sibling in attempt.siblings:
            batch.ops.extend(self.mailbox.complete_ops(
                sibling, f"handled in a batch with {item.id}"))
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
            batch.ops.append(mailbox.decision_op(item, DecisionType.DROP, reason,
                                                 self._context(item)))
            attempt.add_log("error", reason, {})
            self._end_activity(batch, attempt, success=False)
            ids = [item.id, *attempt.merged_ids]
            batch.after.append(lambda: self._incomplete(item, reason))
            batch.after.append(lambda: self._resolve(ids, error=ReplyCancelled(
                f"item {item.id} was dropped: {reason}")))
        else:
            attempt.add_log("error", reason, {})
            batch.ops.extend(mailbox.requeue_ops(item, failed=True, reason=reason))
            batch.ops.append(mailbox.decision_op(
                item, DecisionType.REQUEUE, f"{reason}; retrying (attempt {item.attempt} of "
                f"{self.config.max_attempts})", self._context(item)))

    def _end_activity(self, batch: _Batch, attempt: Attempt, *, success: bool) -> None:
        entry = self._activities.pop(attempt.item.id, None)
        if entry is not None:
            batch.ops.append(UpdateActivity(entry[0], {
                "ended_at": self.clock.now(), "total_tokens": attempt.tokens,
                "total_tools": attempt.tools, "success": success}))

    def _incomplete(self, item: MailboxItem, reason: str) -> None:
        self._emit(INCOMPLETE, {"itemId": item.id, "sourceType": item.source_type,
                                "reason": reason})

    def _resolve(self, item_ids: list[str], *, reply: Reply | None = None,
                 error: BaseException | None = None) -> None:
        for item_id in item_ids:
            self._stream_listeners.pop(item_id, None)
            future = self._reply_waiters.pop(item_id, None)
            if future is None or future.done():
                continue
            if error is not None:
                future.set_exception(error)
            elif reply is not None:
                future.set_result(reply)

    # ---------------------------------------------------------- yield points

    async def yield_point(self, attempt: Attempt) -> YieldDecision:
        """Evaluate pending mail for ``attempt`` (called through :meth:`Focus.yield_point`)."""
        if not attempt.live:
            return STALE
        if attempt.final is not None:
            return attempt.final  # type: ignore[no-any-return]
        mailbox = self.mailbox
        item = attempt.item
        ops: list[WriteOp] = []
        if attempt.cancel_request is not None:
            decision = YieldDecision(YieldAction.CANCEL, reason=attempt.cancel_request)
            attempt.final = decision
            attempt.stream_closed = True
            ops.append(mailbox.decision_op(item, DecisionType.CANCEL,
                                           f"Cancelled by a person: {attempt.cancel_request}",
                                           self._context(item)))
            await mailbox.commit(ops)
            return decision
        early = [i for i in attempt.early
                 if i.status == ItemStatus.QUEUED and mailbox.find(i.id) is i]
        attempt.early = []
        arrivals = [i for i in self._arrivals
                    if i.status == ItemStatus.QUEUED and mailbox.find(i.id) is i]
        self._arrivals.clear()
        attempt.quiet = True
        if not arrivals and not early:
            return CONTINUE
        self._set_state(AttentionState.DECIDING)
        preemptable = self.registry.get_type(item.source_type).preemptable
        merged: list[MailboxItem] = []
        stopper: tuple[MailboxItem, Verdict] | None = None
        reasons: list[str] = []
        for new in early:  # queued before this focus began: merge or leave alone
            verdict = await self.judge.judge(item, new)
            if verdict.decision == DecisionType.MERGE and not new.triggers_execution:
                ops.extend(mailbox.merge_ops(new, item))
                ops.append(mailbox.decision_op(new, DecisionType.MERGE, verdict.reason,
                                               self._context(item, arrival=new,
                                                             rule=verdict.rule)))
                merged.append(new)
                attempt.merged_ids.append(new.id)
                reasons.append(verdict.reason)
        evaluated = [*merged, *arrivals]
        for new in arrivals:
            verdict = await self.judge.judge(item, new)
            if verdict.decision == DecisionType.CONTINUE and self.classifier is not None:
                verdict = await self._classify(item, new)
            context = self._context(item, arrival=new, rule=verdict.rule)
            if verdict.decision == DecisionType.DEFER:
                ops.extend(mailbox.defer_ops(new, None, verdict.reason))
                ops.append(mailbox.decision_op(new, DecisionType.DEFER, verdict.reason, context))
            elif verdict.decision == DecisionType.MERGE and not new.triggers_execution:
                ops.extend(mailbox.merge_ops(new, item))
                ops.append(mailbox.decision_op(new, DecisionType.MERGE, verdict.reason, context))
                merged.append(new)
                attempt.merged_ids.append(new.id)
            elif verdict.decision in (DecisionType.PREEMPT, DecisionType.CANCEL) and (
                stopper is None
            ):
                if preemptable:
                    stopper = (new, verdict)
                else:
                    attempt.held.append(new.id)
                    ops.append(mailbox.decision_op(
                        new, DecisionType.CONTINUE,
                        f"{verdict.reason}; the {item.source_type} in focus is not "
                        "preemptable, so this item runs right after it", context))
            else:
                ops.append(mailbox.decision_op(new, DecisionType.CONTINUE, verdict.reason,
                                               context))
            reasons.append(verdict.reason)
        if stopper is not None:
            new, verdict = stopper
            action = (YieldAction.CANCEL if verdict.decision == DecisionType.CANCEL
                      else YieldAction.PREEMPT)
            decision = YieldDecision(action, tuple(merged), tuple(evaluated), verdict.reason)
            attempt.final = decision
            ops.append(mailbox.decision_op(
                item, DecisionType(action.value), f"{verdict.reason} ({new.source_type} {new.id})",
                self._context(item, arrival=new, rule=verdict.rule)))
        else:
            action = YieldAction.MERGE if merged else YieldAction.CONTINUE
            decision = YieldDecision(action, tuple(merged), tuple(evaluated), "; ".join(reasons))
        # What stays queued may still merge into the next focus (a second chat
        # from the person whose first chat preempts this work, say).
        room = _MAX_EARLY - len(self._early)
        self._early.extend([i for i in arrivals if i.status == ItemStatus.QUEUED][:room])
        if attempt.logs:
            ops.append(InsertLogs(tuple(attempt.take_logs())))
        await mailbox.commit(ops)
        if attempt.live:
            self._set_state(AttentionState.FOCUSED)
        return decision

    async def _classify(self, focus: MailboxItem, new: MailboxItem) -> Verdict:
        """Tier 1: ask the interrupt classifier; anything odd means continue."""
        assert self.classifier is not None
        try:
            recent = await self.mailbox.recent_decisions(10)
            word = await self.classifier.classify(focus, new, self.mailbox.queued_items(), recent)
        except Exception:
            log.exception("interrupt classifier of %s failed; continuing", self.agent_id)
            return CONTINUE_VERDICT
        decision = _CLASSIFIER_WORDS.get(str(word).strip().lower())
        if decision is None:
            log.warning("interrupt classifier of %s answered %r; continuing", self.agent_id, word)
            return CONTINUE_VERDICT
        return Verdict(decision, f"interrupt judge (tier 1) answered {decision.value}", "tier1")

    # --------------------------------------------------------------- helpers

    def _focus_id(self) -> str | None:
        return self._attempt.item.id if self._attempt is not None else None

    def _context(self, item: MailboxItem, arrival: MailboxItem | None = None,
                 rule: str | None = None) -> dict[str, Any]:
        context: dict[str, Any] = {
            "currentFocus": self._focus_id(), "itemPriority": item.priority,
            "queueDepth": self.mailbox.depth, "queuedTypes": self.mailbox.queued_types()}
        if arrival is not None:
            context["arrivalId"] = arrival.id
            context["arrivalType"] = arrival.source_type
        if rule is not None:
            context["rule"] = rule
        return context

    def _set_state(self, state: AttentionState, *, new_focus: bool = False) -> None:
        """Change state; ``new_focus`` announces a new focus even when the state
        stays focused (a chat picked right after the work it preempted)."""
        if state == self.state and not new_focus:
            return
        self.state = state
        if self.bus.active:
            focus = self.focus_item
            focus_dict = focus.to_dict() if focus is not None else None
            self._emit(STATE_CHANGED, {"state": str(state), "currentFocus": focus_dict})
            focus_id = focus.id if focus is not None else None
            if state != AttentionState.DECIDING and focus_id != self._announced_focus:
                self._announced_focus = focus_id
                self._emit(FOCUS_CHANGED, {"focus": focus_dict,
                                           "mailboxDepth": self.mailbox.depth})

    def _emit(self, event_type: str, data: dict[str, Any]) -> None:
        self.bus.emit(Event(event_type, self.agent_id, data, self.clock.now()))

    def _arm_timer(self) -> None:
        self._cancel_timer()
        due = self.mailbox.next_resurface_at()
        if due is None or not self.running or self.paused:
            return
        delay_s = (due - self.clock.now()).total_seconds()
        self._timer = self.clock.call_later(max(0.0, delay_s), self._kick)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


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
