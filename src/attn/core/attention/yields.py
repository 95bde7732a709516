"""Yield points: what to do about mail that arrived while an item is in focus.

At each yield point the brain reaches, the controller judges every arrival
(tier 0 heuristics, then the optional tier 1 classifier) and answers continue,
merge, preempt or cancel; arrivals are merged, deferred or left queued, and
each judgement is stored as a decision. Items queued before resumed work began
may only merge into it (merging.py). A person comes first: once a person's
item stops the work, or arrives meanwhile, no classifier is waited for; an
item that completes without a model call never stops the work; and no merge
overtakes an earlier queued message of the same sender in that conversation.

Spec: 000 §4 (yield points, interrupt decisions), §21 (tier 1); DESIGN.md
invariant 9 (people first); acceptance CORE-71, CORE-73, CORE-75.
"""

from __future__ import annotations

import asyncio
import logging

from attn.core.attention.attempt import Attempt
from attn.core.attention.merging import (
    FULL_VERDICT,
    ORDER_VERDICT,
    ConversationOrder,
    absorb,
    conversation_items,
    has_room_for,
    queued_now,
)
from attn.core.attention.state import (
    ControllerState,
    completes_without_brain,
    decision_context,
    set_state,
)
from attn.core.focus import CONTINUE, STALE, YieldAction, YieldDecision
from attn.core.heuristics import CONTINUE_VERDICT, Verdict, is_user_interaction
from attn.models import AttentionState, DecisionType, ItemStatus, MailboxItem
from attn.store.base import InsertLogs, WriteOp

log = logging.getLogger("attn.attention")
_CLASSIFIER_WORDS = {
    d.value: d
    for d in (
        DecisionType.CONTINUE,
        DecisionType.PREEMPT,
        DecisionType.CANCEL,
        DecisionType.MERGE,
        DecisionType.DEFER,
    )
}


_STOPS = (DecisionType.PREEMPT, DecisionType.CANCEL)
#: An item that would complete without a model call never stops the focus (CORE-73).
_INFORMATIONAL_VERDICT = Verdict(
    DecisionType.CONTINUE,
    "Completes without a model call: never interrupts the focus, waits for the next pick",
    "informational",
)


async def yield_point(s: ControllerState, attempt: Attempt) -> YieldDecision:
    """Evaluate pending mail for ``attempt`` (called through :meth:`Focus.yield_point`)."""
    if not attempt.live:
        return STALE
    if attempt.final is not None:
        return attempt.final
    mailbox = s.mailbox
    item = attempt.item
    ops: list[WriteOp] = []
    if attempt.cancel_request is not None:
        decision = YieldDecision(YieldAction.CANCEL, reason=attempt.cancel_request)
        attempt.final = decision
        attempt.stream_closed = True
        ops.append(
            mailbox.transitions.decision_op(
                item,
                DecisionType.CANCEL,
                f"Cancelled by a person: {attempt.cancel_request}",
                decision_context(s, item),
            )
        )
        await mailbox.commit(ops)
        return decision
    early = {i.id: i for i in attempt.early if queued_now(s, i)}
    attempt.early = []
    arrivals = {i.id: i for i in s.arrivals if queued_now(s, i)}
    s.arrivals.clear()
    attempt.quiet = True
    attempt.mail.clear()
    if not arrivals and not early:
        return CONTINUE
    set_state(s, AttentionState.DECIDING)
    preemptable = s.registry.get_type(item.source_type).preemptable
    verdicts = {i.id: await s.rules.decide(item, i) for i in arrivals.values()}
    # People first (CORE-75): when a person's item already stops this work,
    # no model-backed classifier is asked about the other arrivals.
    person_waiting = preemptable and any(
        v.decision in _STOPS and is_user_interaction(arrivals[i], s.registry)
        for i, v in verdicts.items()
    )
    merged: list[MailboxItem] = []
    evaluated: list[MailboxItem] = []
    stopper: tuple[MailboxItem, Verdict] | None = None
    reasons: list[str] = []
    order = ConversationOrder(item)
    # Commit order over everything queued in the focus's conversations, so
    # that no later message of a sender is merged ahead of an earlier one.
    walk = {i.id: i for i in conversation_items(s, item)}
    walk.update(early)
    walk.update(arrivals)
    for new in sorted(walk.values(), key=lambda i: i.seq):
        if new.id not in arrivals:
            # Queued before this (resumed) work began: merge or leave alone.
            # Anything else queued here was judged before: later ones wait behind it.
            verdict = await s.rules.decide(item, new) if new.id in early else None
            if (
                verdict is not None
                and verdict.decision == DecisionType.MERGE
                and not new.triggers_execution
                and not order.blocks(new)
                and queued_now(s, new)
                and has_room_for(s, item, new)
            ):
                absorb(s, attempt, new, verdict, ops)
                merged.append(new)
                evaluated.append(new)
                reasons.append(verdict.reason)
            else:
                order.keep(new)
            continue
        evaluated.append(new)
        verdict = verdicts[new.id]
        if (
            verdict.decision == DecisionType.CONTINUE
            and s.classifier is not None
            and not person_waiting
        ):
            verdict = await _classify_unless_person(s, item, new)
            person_waiting = preemptable and _person_arrived(s)
        verdict = _guard(s, item, new, verdict, order)
        context = decision_context(s, item, arrival=new, rule=verdict.rule)
        if verdict.decision == DecisionType.DEFER:
            ops.extend(mailbox.transitions.defer_ops(new, None, verdict.reason))
            ops.append(
                mailbox.transitions.decision_op(new, DecisionType.DEFER, verdict.reason, context)
            )
        elif verdict.decision == DecisionType.MERGE and not new.triggers_execution:
            absorb(s, attempt, new, verdict, ops)
            merged.append(new)
        elif verdict.decision in _STOPS and stopper is None:
            if preemptable:
                stopper = (new, verdict)
            else:
                attempt.held.append(new.id)
                ops.append(
                    mailbox.transitions.decision_op(
                        new,
                        DecisionType.CONTINUE,
                        f"{verdict.reason}; the {item.source_type} in focus is not "
                        "preemptable, so this item runs right after it",
                        context,
                    )
                )
        else:
            ops.append(
                mailbox.transitions.decision_op(new, DecisionType.CONTINUE, verdict.reason, context)
            )
        if new.status != ItemStatus.MERGED:
            order.keep(new)
        reasons.append(verdict.reason)
    if stopper is None and preemptable and _person_arrived(s):
        stopper = await _late_person(s, item)
        if stopper is not None:
            evaluated.append(stopper[0])
    if stopper is not None:
        new, verdict = stopper
        action = (
            YieldAction.CANCEL if verdict.decision == DecisionType.CANCEL else YieldAction.PREEMPT
        )
        decision = YieldDecision(action, tuple(merged), tuple(evaluated), verdict.reason)
        attempt.final = decision
        attempt.stopper = new
        if action == YieldAction.CANCEL:
            attempt.cancelled.set()  # the tier 1 judge's cancel: nothing more streams
        ops.append(
            mailbox.transitions.decision_op(
                item,
                DecisionType(action.value),
                f"{verdict.reason} ({new.source_type} {new.id})",
                decision_context(s, item, arrival=new, rule=verdict.rule),
            )
        )
    else:
        action = YieldAction.MERGE if merged else YieldAction.CONTINUE
        decision = YieldDecision(action, tuple(merged), tuple(evaluated), "; ".join(reasons))
    if attempt.logs:
        ops.append(InsertLogs(tuple(attempt.take_logs())))
    await mailbox.commit(ops)
    if attempt.live:
        set_state(s, AttentionState.FOCUSED)
    return decision


def _guard(
    s: ControllerState,
    focus: MailboxItem,
    new: MailboxItem,
    verdict: Verdict,
    order: ConversationOrder,
) -> Verdict:
    """What the rules may not decide: an item that completes without a model
    call never stops the focus (CORE-73); no merge overtakes a sender's earlier
    queued message (CORE-71); no merge grows the focus past one item's size."""
    if verdict.decision in _STOPS and completes_without_brain(s, new):
        return _INFORMATIONAL_VERDICT
    if verdict.decision == DecisionType.MERGE and order.blocks(new):
        return ORDER_VERDICT
    if verdict.decision == DecisionType.MERGE and not has_room_for(s, focus, new):
        return FULL_VERDICT
    return verdict


async def _late_person(s: ControllerState, item: MailboxItem) -> tuple[MailboxItem, Verdict] | None:
    """A person's item that arrived while this yield point was deciding (a slow
    classifier, say) is judged now, not one step later (CORE-75)."""
    for new in [i for i in s.arrivals if queued_now(s, i)]:
        if is_user_interaction(new, s.registry):
            verdict = await s.rules.decide(item, new)
            if verdict.decision in _STOPS:
                s.arrivals.remove(new)
                return new, verdict
    return None


def _person_arrived(s: ControllerState) -> bool:
    return any(is_user_interaction(i, s.registry) for i in s.arrivals)


async def _classify_unless_person(
    s: ControllerState, focus: MailboxItem, new: MailboxItem
) -> Verdict:
    """Tier 1 for one arrival; a person's arrival meanwhile cuts it short (continue)."""
    task = asyncio.get_running_loop().create_task(
        _classify(s, focus, new), name=f"attn:{s.agent_id}:classify"
    )
    s.classifying = task
    try:
        return await task
    except asyncio.CancelledError:
        if task.cancelled() and _person_arrived(s) and not _cancelling():
            return CONTINUE_VERDICT
        raise
    finally:
        s.classifying = None


async def _classify(s: ControllerState, focus: MailboxItem, new: MailboxItem) -> Verdict:
    """Tier 1: ask the interrupt classifier; anything odd means continue."""
    assert s.classifier is not None
    try:
        recent = await s.mailbox.recent_decisions(10)
        word = await s.classifier.classify(focus, new, s.mailbox.queued_items(), recent)
    except Exception:
        log.exception("interrupt classifier of %s failed; continuing", s.agent_id)
        return CONTINUE_VERDICT
    decision = _CLASSIFIER_WORDS.get(str(word).strip().lower())
    if decision is None:
        log.warning("interrupt classifier of %s answered %r; continuing", s.agent_id, word)
        return CONTINUE_VERDICT
    return Verdict(decision, f"interrupt judge (tier 1) answered {decision.value}", "tier1")


def _cancelling() -> bool:
    """True when the current task itself is being cancelled (not just what it awaited)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
