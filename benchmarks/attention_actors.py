"""The simulated brain, deliberator and FIFO interrupt rules of ``attention_quality.py``.

:class:`SimBrain` works in steps of simulated time with a yield point between
steps and records, in the run's :class:`~attention_record.RunRecord`, what each
call and each yield-point merge delivered, when work was preempted and when it
resumed. :class:`SimDeliberator` stands in for a model deliberating (tier 2).
"""

from __future__ import annotations

from typing import Any

from attention_record import Interval, RunRecord, kind_of

from attn import DecisionType, Focus, MailboxItem, Reply
from attn.core.deliberation import DeliberationResult
from attn.core.focus import YieldAction
from attn.core.heuristics import HeuristicRules, Verdict
from attn.core.registry import TypeRegistry
from attn.testing import FakeClock

DELIBERATION_COST_S = 0.4


class SimBrain:
    """Steps of simulated work with a yield point between steps; records its inputs."""

    def __init__(self, name: str, record: RunRecord, clock: FakeClock) -> None:
        self.name = name
        self.record = record
        self.clock = clock

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | None:
        rec, clock, workload = self.record, self.clock, self.record.workload
        now = clock.monotonic()
        rec.brain_calls += 1
        kind = kind_of(item)
        rec.calls_by_kind[kind] = rec.calls_by_kind.get(kind, 0) + 1
        rec.deliver(
            now,
            self.name,
            "call",
            item.id,
            [item.content, *(b.content for b in focus.batch), focus.batch_context or ""],
        )
        waited = rec.preempted.pop((self.name, item.id), None)
        if waited is not None:
            rec.preempt_waits_s.append(now - waited)
            rec.resumptions.append((self.name, item.id, kind, waited, now - waited))
        interval = Interval(self.name, item.id, kind, str(item.metadata.get("senderId", "")), now)
        rec.intervals.append(interval)
        step_s = workload.step_s.get(kind, 0.3)
        plan = int(focus.session.get("plan") or workload.steps(kind, len(item.content)))
        plan += 1 if focus.batch and "plan" not in focus.session else 0
        focus.session["plan"] = plan
        step = min(int(focus.session.get("step", 0)), plan)
        try:
            while step < plan:
                await clock.sleep(step_s)
                step += 1
                rec.executed_steps += 1
                focus.session["step"] = step
                if step < plan:
                    decision = await focus.yield_point()
                    if decision.merged:
                        rec.deliver(
                            clock.monotonic(),
                            self.name,
                            "merge",
                            item.id,
                            [m.content for m in decision.merged],
                        )
                    if decision.stop:
                        if decision.action == YieldAction.CANCEL:
                            focus.session["step"] = 0
                        else:
                            rec.preempted[(self.name, item.id)] = clock.monotonic()
                            rec.preempted_items.add((self.name, item.id))
                        return None
            rec.kept_steps += plan
            return Reply(f"done {item.id}")
        finally:
            interval.end_s = clock.monotonic()


class NoMergeRules:
    """The heuristic table with merging turned off (plain FIFO: one call per item)."""

    def __init__(self, registry: TypeRegistry) -> None:
        self._inner = HeuristicRules(registry)

    async def decide(self, focus: MailboxItem, new: MailboxItem) -> Verdict:
        verdict = await self._inner.decide(focus, new)
        if verdict.decision == DecisionType.MERGE:
            return Verdict(DecisionType.CONTINUE, "merging is off in this run", "off")
        return verdict


_CONVERSATION = ("a2a_message", "task_comment")


class SimDeliberator:
    """Stands in for a model deliberating (tier 2): costs simulated time, batches
    conversational items, completes informational items inline, drops nothing."""

    def __init__(self, name: str, record: RunRecord, clock: FakeClock, max_batch: int = 6) -> None:
        self.name = name
        self.record = record
        self.clock = clock
        self.max_batch = max_batch

    async def deliberate(
        self, head: MailboxItem, queued: list[MailboxItem], context: dict[str, Any]
    ) -> DeliberationResult:
        self.record.deliberations += 1
        await self.clock.sleep(DELIBERATION_COST_S)
        everyone = [head, *queued]
        free = [
            i
            for i in everyone
            if i.source_type not in ("human_chat", "mention") and not i.triggers_execution
        ]
        informational = [i for i in free if i.source_type == "task_status_update"]
        beats = [i for i in free if i.source_type == "heartbeat"]
        inline = [i.id for i in informational] + [i.id for i in beats[:-1]]
        talk = [i for i in free if i.source_type in _CONVERSATION]
        if head.id not in inline:
            primary = head
        elif talk:
            primary = talk[0]
        else:
            primary = next((i for i in everyone if i.id not in inline), head)
            if primary is head:
                inline.remove(head.id)
        batch = [primary.id]
        if primary.source_type in _CONVERSATION:
            batch += [i.id for i in talk if i is not primary][: self.max_batch - 1]
        done = [i for i in everyone if i.id in inline and i.id != primary.id]
        self.record.deliver(
            self.clock.monotonic(), self.name, "deliberation", head.id, [i.content for i in done]
        )
        return DeliberationResult(
            process_item_id=primary.id,
            process_item_ids=tuple(batch) if len(batch) > 1 else None,
            batch_context="answer these together" if len(batch) > 1 else None,
            inline_completed_ids=tuple(i.id for i in done),
            reasoning=f"{len(batch)} conversational item(s) together; "
            f"{len(inline)} informational acknowledged",
            situational_awareness=f"{len(everyone)} items were waiting",
        )
