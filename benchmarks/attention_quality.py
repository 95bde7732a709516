"""Attention quality: one seeded workload, with coalescing and triage off and on.

Run: ``.venv/bin/python benchmarks/attention_quality.py [--seed 7] [--agents 3]
[--minutes 10]``

The workload (per agent, ``--minutes`` of simulated time): task activity (an
informational status update, three times in four followed within milliseconds
by a burst of 2-6 comments from reviewer agents on that task), channel chatter
(bursts of 2-6 ``a2a_message`` with ``extra.channelKey``, 50-300 ms apart),
a heartbeat every 30 s, a long task execution every 75 s (40 steps of 0.5 s
with a yield point between steps) and one person's chats (one session per
agent), four in five of them arriving during long work.

It is replayed on :class:`attn.testing.FakeClock` (simulated milliseconds, no
real waiting) through a :class:`attn.Runtime` on the in-memory store, once per
mode, in the same process:

* ``off``: plain priority FIFO, one brain call per item: ``AgentConfig(dedup=False,
  coalesce_window_ms=0, consolidate=False, auto_complete_informational=False)``,
  no deliberator, and an interrupt
  judge that turns the heuristics' merges into ``continue`` (so nothing is
  merged at yield points either; preemption for a person stays).
* ``on``: the default ``AgentConfig()``: enqueue-time dedup, the 200 ms burst
  window, entity consolidation, tier 0 triage (informational status updates
  complete without a brain call) and yield-point merges.
* ``on+delib``: ``on`` plus a tier 2 deliberator standing in for the model: it
  costs 0.4 s of simulated time per deliberation, batches conversational items
  (comments, channel messages) into one brain call, and completes
  informational status updates and redundant heartbeats inline. It never
  drops anything. Its calls are counted as model calls.

Figures: brain calls per 100 stimuli (every brain invocation, resumptions
included), model calls per 100 (brain calls plus deliberations), a person's
chat time-to-attention (enqueue to the first brain step that sees the chat:
the brain called for it or with it in its batch, or the chat merged in at a
yield point), items lost (every stored stimulus must be completed or merged,
along its ``merged_into`` chain, into a completed item; dropped items are
counted apart), and wasted work (brain steps executed but not kept: steps of
attempts thrown away by a cancel, a timeout or an interrupted batch, or the
progress of a preempted item later merged into another).

Targets (issue 4): ≥ 3× fewer brain calls with coalescing and triage on; chat
time-to-attention p99 ≤ one yield interval of the longest item (0.5 s) + 10 ms;
0 lost.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rich.console import Console
from rich.table import Table

from attn import AgentConfig, DecisionType, Focus, ItemStatus, MailboxItem, Reply, Runtime
from attn.core.deliberation import DeliberationResult
from attn.core.focus import YieldAction
from attn.core.heuristics import HeuristicJudge, Verdict
from attn.core.registry import TypeRegistry
from attn.store.base import ItemQuery
from attn.testing import FakeClock, MemoryStore

#: Simulated seconds per brain step, and steps per item, by kind.
STEP_S = {"exec": 0.5, "human_chat": 0.3, "a2a_message": 0.4, "task_comment": 0.4,
          "task_status_update": 0.1, "heartbeat": 0.3}
STEPS = {"exec": 40, "human_chat": 2, "a2a_message": 2, "task_comment": 2,
         "task_status_update": 1, "heartbeat": 1}
#: The longest yield interval of any item: the chat time-to-attention target is this + 10 ms.
LONGEST_YIELD_S = max(STEP_S.values())
DELIBERATION_COST_S = 0.4
TASKS = ("T1", "T2", "T3", "T4", "T5", "T6")
CHANNELS = ("group:team1", "group:team2", "dm:a2a:bob")
REVIEWERS = ("rita", "omar", "lin")
MODES = ("off", "on", "on+delib")


# ----------------------------------------------------------------- workload


@dataclass(frozen=True, slots=True)
class Stimulus:
    """One enqueue at ``at_s`` simulated seconds."""

    at_s: float
    agent: str
    source_type: str
    payload: dict[str, Any]
    metadata: dict[str, Any] = field(default_factory=dict)


def _poisson(rng: random.Random, rate_s: float, end_s: float, start_s: float = 0.0
             ) -> Iterable[float]:
    t = start_s
    while True:
        t += rng.expovariate(1 / rate_s)
        if t >= end_s:
            return
        yield t


def generate(seed: int, agents: int, duration_s: float) -> list[Stimulus]:
    """The seeded workload for ``agents`` agents over ``duration_s`` simulated seconds."""
    out: list[Stimulus] = []
    for index in range(agents):
        rng = random.Random(seed * 1000 + index)
        name = f"agent{index}"
        execs = [5.0 + k * 75.0 + rng.uniform(0, 10) for k in range(int(duration_s // 75))]
        for k, at in enumerate(execs):
            out.append(Stimulus(at, name, "task_status_update", {
                "content": f"run task X{k}", "taskId": f"X{index}-{k}",
                "triggerExecution": True, "summary": f"execute X{k}"}))
        chats = [at + rng.uniform(1, 19) for at in execs if rng.random() < 0.8]
        chats += list(_poisson(rng, 40.0, duration_s))
        for at in chats:
            out.append(Stimulus(at, name, "human_chat", {"content": "how is it going?"},
                                {"senderId": "pat", "senderName": "Pat", "senderRole": "user",
                                 "sessionId": f"{name}-main"}))
        # Task activity: a status change, often followed by reviewers' comments on it.
        for at in _poisson(rng, 12.0, duration_s):
            task = rng.choice(TASKS)
            status = rng.choice(("in_review", "blocked", "assigned", "unblocked"))
            out.append(Stimulus(at, name, "task_status_update", {
                "content": f"{task} is now {status}", "taskId": task,
                "summary": f"{task} → {status}"}))
            if rng.random() < 0.25:
                continue
            for j in range(rng.randint(2, 6)):
                at += rng.uniform(0.02, 0.15)
                reviewer = rng.choice(REVIEWERS)
                out.append(Stimulus(at, name, "task_comment", {
                    "content": f"{reviewer}: note {j} on {task}", "taskId": task},
                    {"senderId": reviewer, "senderName": reviewer, "senderRole": "agent"}))
        for at in _poisson(rng, 12.0, duration_s):
            channel = rng.choice(CHANNELS)
            for j in range(rng.randint(2, 6)):
                at += rng.uniform(0.05, 0.3)
                sender = rng.choice(REVIEWERS)
                out.append(Stimulus(at, name, "a2a_message", {
                    "content": f"{sender} on {channel}: message {j}",
                    "extra": {"channelKey": channel}},
                    {"senderId": sender, "senderName": sender, "senderRole": "agent"}))
        for at in range(30, int(duration_s), 30):
            out.append(Stimulus(float(at) + rng.uniform(0, 1), name, "heartbeat", {}))
    out.sort(key=lambda s: s.at_s)
    return out


# -------------------------------------------------------------------- actors


def _kind(item: MailboxItem) -> str:
    return "exec" if item.triggers_execution else item.source_type


def _absorbed(item: MailboxItem) -> list[str]:
    ids = item.payload.get("mergedItemIds")
    return [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


class SimBrain:
    """Steps of simulated work with a yield point between steps; records what it sees."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.calls = 0
        self.executed = 0
        self.kept = 0
        self.first_seen: dict[str, float] = {}
        self.by_kind: dict[str, int] = {}

    def _see(self, items: Iterable[MailboxItem]) -> None:
        now = self.clock.monotonic()
        for item in items:
            for item_id in (item.id, *_absorbed(item)):
                self.first_seen.setdefault(item_id, now)

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | None:
        self.calls += 1
        self._see((item, *focus.batch))
        kind = _kind(item)
        self.by_kind[kind] = self.by_kind.get(kind, 0) + 1
        step_s = STEP_S.get(kind, 0.3)
        plan = STEPS.get(kind, 1) + (1 if focus.batch else 0)
        step = min(int(focus.session.get("step", 0)), plan)
        while step < plan:
            await focus.clock.sleep(step_s)
            step += 1
            self.executed += 1
            focus.session["step"] = step
            if step < plan:
                decision = await focus.yield_point()
                self._see(decision.merged)
                if decision.stop:
                    if decision.action == YieldAction.CANCEL:
                        focus.session["step"] = 0
                    return None
        self.kept += plan
        return Reply(f"done {item.id}")


class NoMergeJudge:
    """The heuristic table with merging turned off (plain FIFO: one call per item)."""

    def __init__(self, registry: TypeRegistry) -> None:
        self._inner = HeuristicJudge(registry)

    async def judge(self, focus: MailboxItem, new: MailboxItem) -> Verdict:
        verdict = await self._inner.judge(focus, new)
        if verdict.decision == DecisionType.MERGE:
            return Verdict(DecisionType.CONTINUE, "merging is off in this run", "off")
        return verdict


_CONVERSATION = ("a2a_message", "task_comment")


class SimDeliberator:
    """Stands in for a model deliberating (tier 2): costs simulated time, batches
    conversational items, completes informational items inline, drops nothing."""

    def __init__(self, clock: FakeClock, max_batch: int = 6) -> None:
        self.clock = clock
        self.calls = 0
        self.max_batch = max_batch

    async def deliberate(self, head: MailboxItem, queued: list[MailboxItem],
                         context: dict[str, Any]) -> DeliberationResult:
        self.calls += 1
        await self.clock.sleep(DELIBERATION_COST_S)
        everyone = [head, *queued]
        free = [i for i in everyone
                if i.source_type != "human_chat" and not i.triggers_execution
                and i.source_type != "mention"]
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
        return DeliberationResult(
            process_item_id=primary.id,
            process_item_ids=tuple(batch) if len(batch) > 1 else None,
            batch_context="answer these together" if len(batch) > 1 else None,
            inline_completed_ids=tuple(i for i in inline if i != primary.id),
            reasoning=f"{len(batch)} conversational item(s) together; "
                      f"{len(inline)} informational acknowledged",
            situational_awareness=f"{len(everyone)} items were waiting")


# ----------------------------------------------------------------------- run


@dataclass(slots=True)
class Outcome:
    mode: str
    stimuli: int
    brain_calls: int
    deliberations: int
    chat_tta_s: list[float]
    unseen_chats: int
    lost: int
    dropped: int
    wasted_steps: int
    finished_at_s: float
    wall_s: float
    calls_by_kind: dict[str, int]


def _config(mode: str) -> AgentConfig:
    if mode == "off":
        return AgentConfig(capacity=100_000, dedup=False, coalesce_window_ms=0,
                           consolidate=False, auto_complete_informational=False)
    return AgentConfig(capacity=100_000)


async def run(mode: str, stimuli: list[Stimulus], agents: int) -> Outcome:
    """Replay ``stimuli`` through a fresh runtime on a fake clock in ``mode``."""
    started = time.perf_counter()
    clock = FakeClock()
    brains: dict[str, SimBrain] = {}
    deliberators: list[SimDeliberator] = []
    chats: dict[str, tuple[str, float]] = {}
    async with Runtime(MemoryStore(), clock=clock) as rt:
        for index in range(agents):
            name = f"agent{index}"
            brains[name] = SimBrain(clock)
            deliberator = SimDeliberator(clock) if mode == "on+delib" else None
            if deliberator is not None:
                deliberators.append(deliberator)
            await rt.add_agent(name, brains[name], _config(mode),
                               judge=NoMergeJudge(rt.registry) if mode == "off" else None,
                               deliberator=deliberator)
        for stimulus in stimuli:
            delta = stimulus.at_s - clock.monotonic()
            if delta > 0:
                await clock.advance(delta)
            agent = rt.get_agent(stimulus.agent)
            item_id = await agent.enqueue(stimulus.source_type, stimulus.payload,
                                          metadata=stimulus.metadata)
            if stimulus.source_type == "human_chat":
                chats[item_id] = (stimulus.agent, clock.monotonic())
        for _ in range(1_000_000):
            if all(a.focus_item is None and a.depth == 0 and a.mailbox.deferred_count == 0
                   and a.controller._task is None for a in rt.agents):
                break
            await clock.advance(0.05)
        finished_at = clock.monotonic()
        lost = dropped = stored = 0
        for agent in rt.agents:
            items: dict[str, MailboxItem] = {}
            offset = 0
            while True:
                page = await rt.store.find_items(ItemQuery(agent.name, limit=1000,
                                                           offset=offset))
                items.update((i.id, i) for i in page)
                offset += len(page)
                if len(page) < 1000:
                    break
            stored += len(items)
            for item in items.values():
                final = item
                while final.status == ItemStatus.MERGED and final.merged_into in items:
                    final = items[final.merged_into]
                if final.status == ItemStatus.DROPPED:
                    dropped += 1
                elif final.status != ItemStatus.COMPLETED:
                    lost += 1
        lost += max(0, len(stimuli) - stored)  # an enqueue that left no row
    tta = []
    unseen = 0
    for chat_id, (name, enqueued_at) in chats.items():
        seen = brains[name].first_seen.get(chat_id)
        if seen is None:
            unseen += 1
        else:
            tta.append(seen - enqueued_at)
    by_kind: dict[str, int] = {}
    for brain in brains.values():
        for kind, count in brain.by_kind.items():
            by_kind[kind] = by_kind.get(kind, 0) + count
    executed = sum(b.executed for b in brains.values())
    kept = sum(b.kept for b in brains.values())
    return Outcome(mode, len(stimuli), sum(b.calls for b in brains.values()),
                   sum(d.calls for d in deliberators), sorted(tta), unseen, lost, dropped,
                   executed - kept, finished_at, time.perf_counter() - started, by_kind)


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile of sorted ``values`` (0 when empty)."""
    if not values:
        return 0.0
    return values[max(0, math.ceil(p / 100 * len(values)) - 1)]


def report(outcomes: list[Outcome], kinds: dict[str, int], console: Console) -> bool:
    """Print the tables and the target checks; True when every target is met."""
    table = Table(title="Attention quality (simulated time on FakeClock)")
    for column in ("mode", "brain calls/100", "model calls/100", "chat TTA p50 ms",
                   "p99 ms", "max ms", "chats", "lost", "dropped", "wasted steps",
                   "drained at s", "wall s"):
        table.add_column(column, justify="left" if column == "mode" else "right")
    for o in outcomes:
        per100 = 100 / o.stimuli
        table.add_row(
            o.mode, f"{o.brain_calls * per100:.1f}",
            f"{(o.brain_calls + o.deliberations) * per100:.1f}",
            f"{percentile(o.chat_tta_s, 50) * 1000:.0f}",
            f"{percentile(o.chat_tta_s, 99) * 1000:.0f}",
            f"{(o.chat_tta_s[-1] if o.chat_tta_s else 0) * 1000:.0f}",
            f"{len(o.chat_tta_s)}" + (f" (+{o.unseen_chats} unseen)" if o.unseen_chats else ""),
            str(o.lost), str(o.dropped), str(o.wasted_steps), f"{o.finished_at_s:.0f}",
            f"{o.wall_s:.1f}")
    console.print(table)
    calls = Table(title="Brain calls by the kind of the item in focus (resumptions included)")
    calls.add_column("kind")
    calls.add_column("stimuli", justify="right")
    for o in outcomes:
        calls.add_column(o.mode, justify="right")
    calls.add_column("deliberations", justify="right")
    for kind in sorted(kinds):
        calls.add_row(kind, str(kinds[kind]), *(str(o.calls_by_kind.get(kind, 0))
                                                 for o in outcomes), "")
    calls.add_row("all", str(sum(kinds.values())), *(str(o.brain_calls) for o in outcomes),
                  " / ".join(str(o.deliberations) for o in outcomes))
    console.print(calls)
    by_mode = {o.mode: o for o in outcomes}
    off = by_mode["off"]
    limit_ms = LONGEST_YIELD_S * 1000 + 10
    ok = True
    for mode in ("on", "on+delib"):
        o = by_mode[mode]
        fewer = off.brain_calls / max(1, o.brain_calls)
        fewer_model = off.brain_calls / max(1, o.brain_calls + o.deliberations)
        p99 = percentile(o.chat_tta_s, 99) * 1000
        checks = [
            (f"brain calls {fewer:.2f}× fewer than off (counting deliberations as model "
             f"calls: {fewer_model:.2f}×); target ≥ 3×", fewer >= 3),
            (f"chat time-to-attention p99 {p99:.0f} ms; target ≤ {limit_ms:.0f} ms",
             p99 <= limit_ms and not o.unseen_chats),
            (f"lost {o.lost}; target 0", o.lost == 0),
        ]
        for text, passed in checks:
            ok &= passed
            console.print(f"  {mode:9} {'PASS' if passed else 'FAIL'}  {text}")
    p99_off = percentile(off.chat_tta_s, 99) * 1000
    console.print(f"  {'off':9} {'PASS' if off.lost == 0 else 'FAIL'}  lost {off.lost}; "
                  f"(chat time-to-attention p99 {p99_off:.0f} ms)")
    return ok and off.lost == 0


async def main_async(args: argparse.Namespace) -> bool:
    stimuli = generate(args.seed, args.agents, args.minutes * 60)
    console = Console(width=max(Console().width, 140))
    kinds: dict[str, int] = {}
    for s in stimuli:
        key = "exec" if s.payload.get("triggerExecution") else s.source_type
        kinds[key] = kinds.get(key, 0) + 1
    console.print(f"seed {args.seed}, {args.agents} agents, {args.minutes} simulated minutes: "
                  + ", ".join(f"{v} {k}" for k, v in sorted(kinds.items())))
    outcomes = [await run(mode, stimuli, args.agents) for mode in MODES]
    return report(outcomes, kinds, console)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--agents", type=int, default=3)
    parser.add_argument("--minutes", type=float, default=10.0)
    ok = asyncio.run(main_async(parser.parse_args()))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
