"""Figures and targets of ``attention_quality.py``, computed from a :class:`RunRecord`.

* brain calls per 100 stimuli: every brain invocation (resumptions included);
  model calls add the deliberations.
* texts lost: stored stimuli whose text never reached a brain input (a call's
  item or batch, a yield-point merge, a deliberation's inline completion),
  leaving out stimuli with no text, informational ones (they would complete
  without a model call on their own), those whose own item was dropped with a
  reason, and notices a newer one superseded (CORE-76); the last two are counted
  apart. A text merged into an item that was then dropped counts as lost.
* order violations: one sender's texts on one channel at one priority (CORE-71)
  where a later text first reached a brain before an earlier one (its position
  within one input counts too); the figure over all priorities is shown beside.
* items lost: a stored item that is neither completed nor merged, along its
  ``merged_into`` chain, into a completed item (dropped items counted apart),
  plus stimuli that left no row.
* chat time-to-attention: enqueue to the first brain input holding the chat's
  text; the target leaves out chats whose wait overlapped a brain call for
  another person's chat (CORE-75 "unless another person's chat is being answered").
* preemptions for work that needed no model call: the preempting item (read
  from the stored preempt decision) completed without any brain call (CORE-73).
* restart merges with dedup off: what recovery merged in the ``off`` run (CORE-74).
* preempted-work wait: from the yield point that preempted work to the brain
  call that resumed it (no target: work also waits, by priority, behind more
  urgent items; ``--explain`` lists the longest waits and what ran meanwhile).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from attention_record import Enqueued, RunRecord, first_seen, order_violations

from attn import ItemStatus, MailboxItem

CALLS_TARGET = 2.5
CHAT_SLACK_S = 0.010


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile of ``values`` (0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


@dataclass(slots=True)
class Figures:
    """The figures of one run."""

    record: RunRecord
    texts: int = 0
    lost_texts: list[Enqueued] = field(default_factory=list)
    dropped_texts: int = 0
    superseded_texts: int = 0
    violations: list[tuple[Enqueued, Enqueued]] = field(default_factory=list)
    violations_any_priority: int = 0
    items_lost: int = 0
    items_dropped: int = 0
    chat_tta_s: list[float] = field(default_factory=list)
    chats_behind_other: int = 0
    chat_tta_all_s: list[float] = field(default_factory=list)
    chats_unseen: int = 0
    #: Preemptions whose preempting item then completed without any brain call
    #: (an informational update: CORE-73), as (agent, preempted id, preemptor id, type).
    idle_preemptions: list[tuple[str, str, str, str]] = field(default_factory=list)
    #: Chats (outside another person's chat) over the time-to-attention budget.
    slow_chats: list[tuple[Enqueued, float]] = field(default_factory=list)

    @property
    def per100(self) -> float:
        return 100 / max(1, len(self.record.workload.stimuli))

    @property
    def wasted_steps(self) -> int:
        return self.record.executed_steps - self.record.kept_steps


def _chain_end(item_id: str, rec: RunRecord) -> ItemStatus | None:
    item = rec.items.get(item_id)
    hops = 0
    while (
        item is not None
        and item.status == ItemStatus.MERGED
        and item.merged_into
        and (hops < 10_000)
    ):
        item, hops = rec.items.get(item.merged_into), hops + 1
    return item.status if item is not None else None


def _superseded(item: MailboxItem, rec: RunRecord) -> bool:
    """True when a newer notice superseded ``item`` (CORE-76: it lists it in
    ``supersededItemIds``; the row keeps the text, the brain is not shown it)."""
    into = rec.items.get(item.merged_into or "")
    ids = into.payload.get("supersededItemIds") if into is not None else None
    return item.status == ItemStatus.MERGED and isinstance(ids, list) and item.id in ids


def compute(rec: RunRecord) -> Figures:
    """All figures of ``rec``."""
    fig = Figures(rec)
    seen = first_seen(rec)
    rows = rec.rows()
    for e in rec.enqueued:
        if not e.text or e.informational:
            continue
        fig.texts += 1
        if e.index in seen:
            continue
        own = rows.get(e.index)
        if own is not None and own.status == ItemStatus.DROPPED:
            fig.dropped_texts += 1
        elif own is not None and _superseded(own, rec):
            fig.superseded_texts += 1
        else:
            fig.lost_texts.append(e)
    called = {i.item_id for i in rec.intervals}
    for preemption in rec.preemptions:
        stopper = rec.items.get(preemption[2])
        if (
            stopper is not None
            and stopper.status == ItemStatus.COMPLETED
            and stopper.id not in called
        ):
            fig.idle_preemptions.append(preemption)
    fig.violations = order_violations(rec, seen)
    fig.violations_any_priority = len(order_violations(rec, seen, same_priority=False))
    for item in rec.items.values():
        end = _chain_end(item.id, rec)
        if end == ItemStatus.DROPPED:
            fig.items_dropped += 1
        elif end != ItemStatus.COMPLETED:
            fig.items_lost += 1
    fig.items_lost += max(0, len(rec.enqueued) - rec.stored)
    deliveries = rec.deliveries
    budget_s = rec.workload.yield_interval_s + CHAT_SLACK_S
    for e in rec.enqueued:
        if e.stimulus.source_type != "human_chat" or e.informational:
            continue
        got = seen.get(e.index)
        if got is None:
            fig.chats_unseen += 1
            continue
        wait = (e.at_s, deliveries[got[0]].at_s)
        fig.chat_tta_all_s.append(wait[1] - wait[0])
        busy = any(
            i.agent == e.stimulus.agent
            and i.kind == "human_chat"
            and i.sender != e.sender
            and i.start_s < wait[1]
            and (math.isnan(i.end_s) or i.end_s > wait[0])
            for i in rec.intervals
        )
        if busy:
            fig.chats_behind_other += 1
        else:
            fig.chat_tta_s.append(wait[1] - wait[0])
            if wait[1] - wait[0] > budget_s:
                fig.slow_chats.append((e, wait[1] - wait[0]))
    return fig


@dataclass(frozen=True, slots=True)
class Check:
    """One target check: ``met`` is None for a figure shown without a target."""

    workload: str
    mode: str
    figure: str
    value: str
    target: str
    met: bool | None


def checks(figures: dict[str, Figures]) -> list[Check]:
    """The target checks of one workload's runs (keyed by mode)."""
    out: list[Check] = []
    off = figures.get("off")
    for mode, fig in figures.items():
        rec = fig.record
        name = rec.workload.name
        budget_s = rec.workload.yield_interval_s + CHAT_SLACK_S

        def add(
            figure: str,
            value: str,
            target: str,
            met: bool | None,
            mode: str = mode,
            name: str = name,
        ) -> None:
            out.append(Check(name, mode, figure, value, target, met))

        apart = [
            f"{n} {what}"
            for n, what in ((fig.dropped_texts, "dropped"), (fig.superseded_texts, "superseded"))
            if n
        ]
        add(
            "texts lost",
            f"{len(fig.lost_texts)} of {fig.texts}" + (f" ({', '.join(apart)})" if apart else ""),
            "0",
            not fig.lost_texts,
        )
        add("order violations (sender+channel)", str(len(fig.violations)), "0", not fig.violations)
        add(
            "items lost",
            str(fig.items_lost) + ("" if rec.drained else " (not drained)"),
            "0",
            fig.items_lost == 0 and rec.drained,
        )
        if mode == "off" and rec.restarts:
            merged = rec.recovery.get("merged", 0)
            add("restart merges with dedup off (CORE-74)", str(merged), "0", merged == 0)
        if mode == "off" or off is None:
            continue
        fewer = off.record.brain_calls / max(1, rec.brain_calls)
        add(
            "brain calls: times fewer than off",
            f"{fewer:.2f}x",
            f">= {CALLS_TARGET}x",
            fewer >= CALLS_TARGET,
        )
        p99 = percentile(fig.chat_tta_s, 99)
        add(
            "chat time-to-attention p99",
            f"{p99 * 1000:.0f} ms" + (f" ({fig.chats_unseen} unseen)" if fig.chats_unseen else ""),
            f"<= {budget_s * 1000:.0f} ms",
            p99 <= budget_s and not fig.chats_unseen,
        )
        add(
            "preemptions for work that needed no model call (CORE-73)",
            f"{len(fig.idle_preemptions)} of {len(rec.preemptions)}",
            "0",
            not fig.idle_preemptions,
        )
        waits = rec.preempt_waits_s
        add(
            "preempted-work wait p99",
            f"{percentile(waits, 99):.1f} s (n={len(waits)}, {len(rec.preempted)} never resumed)",
            "-",
            None,
        )
    return out
