"""Yield points: what to do about mail that arrived while an item is in focus.

At each yield point the brain reaches, the controller judges every arrival
(tier 0 heuristics, then the optional tier 1 classifier) and answers continue,
merge, preempt or cancel; arrivals are merged, deferred or left queued, and
each judgement is stored as a decision. Items that arrived between two focuses
may only merge into the new focus.

Spec: 000 §4 (yield points, interrupt decisions), §21 (tier 1); DESIGN.md
invariant 9 (people first).
"""

from __future__ import annotations

import logging

from attn.core.attempt import Attempt
from attn.core.attention.state import _MAX_EARLY, ControllerState
from attn.core.focus import CONTINUE, STALE, YieldAction, YieldDecision
from attn.core.heuristics import CONTINUE_VERDICT, Verdict
from attn.core.models import AttentionState, DecisionType, ItemStatus, MailboxItem
from attn.store.base import InsertLogs, WriteOp

log = logging.getLogger("attn.attention")
_CLASSIFIER_WORDS = {d.value: d for d in (DecisionType.CONTINUE, DecisionType.PREEMPT,
                                          DecisionType.CANCEL, DecisionType.MERGE,
                                          DecisionType.DEFER)}


class ControllerYields(ControllerState):
    """Interrupt decisions at the yield points of the attempt in focus."""

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

