"""Replay a workload through real attn runtimes on simulated time, recording
what every brain invocation and every yield-point merge delivered.

Used by ``attention_quality.py``. The instruments sit at the brain (what a
model would read), never in the store: a brain call delivers its item's
content, its batch's contents and the batch context; a yield point delivers the
contents of the items it merged; a deliberation delivers the contents of the
items it completed inline (the model read them to decide that). The figures
module matches each stimulus's text against these deliveries.

Time is simulated (:class:`SimClock`, a FakeClock that also waits for store
threads), so SQLite on disk gives the same figures run after run. A workload
may ask for a restart: the runtime is closed and a new one opened on the same
SQLite file, so recovery runs (requeue of stopped work, post-recovery dedup).
"""

from __future__ import annotations

import asyncio
import heapq
import inspect
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from attn import AgentConfig, DecisionType, Focus, ItemStatus, MailboxItem, Reply, Runtime
from attn.core.deliberation import DeliberationResult
from attn.core.focus import YieldAction
from attn.core.heuristics import HeuristicJudge, Verdict
from attn.core.registry import ItemType, TypeRegistry
from attn.store.base import ItemQuery
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeClock, MemoryStore, settle

MODES = ("off", "on", "on+delib")
DELIBERATION_COST_S = 0.4
#: Longest simulated drain after the last stimulus before the run counts as stuck.
MAX_DRAIN_S = 3600.0
#: Metadata key of every enqueue: the stimulus's index in its workload.
STIMULUS_KEY = "benchStimulus"


@dataclass(frozen=True, slots=True)
class Stimulus:
    """One enqueue at ``at_s`` simulated seconds (``key`` is its idempotency key)."""

    at_s: float
    agent: str
    source_type: str
    payload: dict[str, Any]
    metadata: dict[str, Any] = field(default_factory=dict)
    key: str = ""
    origin: str = "synthetic"


@dataclass(frozen=True, slots=True)
class Workload:
    """Stimuli, the agents that receive them and how long their work takes.

    Attributes:
        step_s: simulated seconds per brain step by kind (``exec`` for execution triggers).
        steps: brain steps of an item: ``steps(kind, text_length)``.
        yield_interval_s: the longest step (the chat time-to-attention budget).
        restart_at_s: close and reopen the runtime at this simulated time (SQLite only).

    Every enqueue carries ``metadata[STIMULUS_KEY]``, the stimulus's index, so
    its own stored row can be found (merged rows keep their own metadata).
    """

    name: str
    stimuli: list[Stimulus]
    agents: tuple[str, ...]
    step_s: Mapping[str, float]
    steps: Callable[[str, int], int]
    types: tuple[ItemType, ...] = ()
    restart_at_s: float | None = None
    sqlite: bool = False
    summary: str = ""
    #: Enqueue with the stimuli's idempotency keys (keyed items never merge at enqueue).
    keys: bool = False

    @property
    def yield_interval_s(self) -> float:
        return max(self.step_s.values())


def kind_of(item: MailboxItem) -> str:
    return "exec" if item.triggers_execution else item.source_type


@dataclass(slots=True)
class Delivery:
    """What one brain input carried: ``how`` is call, merge or deliberation."""

    seq: int
    at_s: float
    agent: str
    how: str
    item_id: str
    text: str


@dataclass(slots=True)
class Interval:
    """One brain invocation: from its start to its return."""

    agent: str
    item_id: str
    source_type: str
    sender: str
    start_s: float
    end_s: float = float("nan")


@dataclass(slots=True)
class Enqueued:
    """A stimulus as it was enqueued, with the facts the figures need."""

    index: int
    stimulus: Stimulus
    at_s: float
    text: str
    informational: bool
    priority: int
    sender: str
    channel: str


@dataclass(slots=True)
class RunRecord:
    """Everything one run of one mode recorded."""

    mode: str
    workload: Workload
    enqueued: list[Enqueued] = field(default_factory=list)
    deliveries: list[Delivery] = field(default_factory=list)
    intervals: list[Interval] = field(default_factory=list)
    preempt_waits_s: list[float] = field(default_factory=list)
    preempted: dict[tuple[str, str], float] = field(default_factory=dict)
    calls_by_kind: dict[str, int] = field(default_factory=dict)
    brain_calls: int = 0
    deliberations: int = 0
    executed_steps: int = 0
    kept_steps: int = 0
    items: dict[str, MailboxItem] = field(default_factory=dict)
    stored: int = 0
    restarts: int = 0
    drained: bool = True
    finished_at_s: float = 0.0
    wall_s: float = 0.0
    #: item id → [(simulated s, decision type, reasoning)], oldest first, for the
    #: items of lost or misordered texts (and the items they were merged into).
    explained: dict[str, list[tuple[float, str, str]]] = field(default_factory=dict)

    def rows(self) -> dict[int, MailboxItem]:
        """Stimulus index → the stored row its enqueue created."""
        out = {}
        for item in self.items.values():
            index = item.metadata.get(STIMULUS_KEY)
            if isinstance(index, int):
                out[index] = item
        return out

    def deliver(self, at_s: float, agent: str, how: str, item_id: str,
                texts: Iterable[str]) -> None:
        text = "\n".join(t for t in texts if t)
        if text:
            self.deliveries.append(Delivery(len(self.deliveries), at_s, agent, how, item_id, text))


# ----------------------------------------------------------------- actors


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
        rec.deliver(now, self.name, "call", item.id, [
            item.content, *(b.content for b in focus.batch), focus.batch_context or ""])
        waited = rec.preempted.pop((self.name, item.id), None)
        if waited is not None:
            rec.preempt_waits_s.append(now - waited)
        interval = Interval(self.name, item.id, item.source_type,
                            str(item.metadata.get("senderId", "")), now)
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
                        rec.deliver(clock.monotonic(), self.name, "merge", item.id,
                                    [m.content for m in decision.merged])
                    if decision.stop:
                        if decision.action == YieldAction.CANCEL:
                            focus.session["step"] = 0
                        else:
                            rec.preempted[(self.name, item.id)] = clock.monotonic()
                        return None
            rec.kept_steps += plan
            return Reply(f"done {item.id}")
        finally:
            interval.end_s = clock.monotonic()


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

    def __init__(self, name: str, record: RunRecord, clock: FakeClock, max_batch: int = 6) -> None:
        self.name = name
        self.record = record
        self.clock = clock
        self.max_batch = max_batch

    async def deliberate(self, head: MailboxItem, queued: list[MailboxItem],
                         context: dict[str, Any]) -> DeliberationResult:
        self.record.deliberations += 1
        await self.clock.sleep(DELIBERATION_COST_S)
        everyone = [head, *queued]
        free = [i for i in everyone
                if i.source_type not in ("human_chat", "mention") and not i.triggers_execution]
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
        self.record.deliver(self.clock.monotonic(), self.name, "deliberation", head.id,
                            [i.content for i in done])
        return DeliberationResult(
            process_item_id=primary.id,
            process_item_ids=tuple(batch) if len(batch) > 1 else None,
            batch_context="answer these together" if len(batch) > 1 else None,
            inline_completed_ids=tuple(i.id for i in done),
            reasoning=f"{len(batch)} conversational item(s) together; "
                      f"{len(inline)} informational acknowledged",
            situational_awareness=f"{len(everyone)} items were waiting")


# ------------------------------------------------------- deterministic time


class TrackedStore:
    """A store wrapper that counts calls and commits still in flight (SQLite threads)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.inflight = 0

    def _done(self, _future: object) -> None:
        self.inflight -= 1

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.inner, name)
        if name == "submit":
            def submit(ops: Any) -> asyncio.Future[Any]:
                future: asyncio.Future[Any] = value(ops)
                self.inflight += 1
                future.add_done_callback(self._done)
                return future
            return submit
        if inspect.iscoroutinefunction(value):
            async def call(*args: Any, **kwargs: Any) -> Any:
                self.inflight += 1
                try:
                    return await value(*args, **kwargs)
                finally:
                    self.inflight -= 1
            return call
        return value


class SimClock(FakeClock):
    """A FakeClock whose timers fire only once every store call has landed, so
    simulated time never runs ahead of a commit made on a store thread."""

    def __init__(self) -> None:
        super().__init__()
        self.stores: list[TrackedStore] = []

    async def quiesce(self) -> None:
        while True:
            await settle()
            if not any(s.inflight for s in self.stores):
                return
            await asyncio.sleep(0.0002)  # real time: a store thread is committing

    async def advance(self, delta_s: float) -> None:
        target = self._offset_s + delta_s
        await self.quiesce()
        while self._timers and self._timers[0][0] <= target:
            due, _, timer = heapq.heappop(self._timers)
            if timer.cancelled:
                continue
            self._offset_s = max(self._offset_s, due)
            timer.callback()
            await self.quiesce()
        self._offset_s = max(self._offset_s, target)
        await self.quiesce()


# ----------------------------------------------------------------------- run


def mode_config(mode: str) -> AgentConfig:
    """``off`` is plain priority FIFO; the other modes use attn's defaults."""
    if mode == "off":
        return AgentConfig(capacity=100_000, dedup=False, coalesce_window_ms=0,
                           consolidate=False, auto_complete_informational=False)
    return AgentConfig(capacity=100_000)


def _facts(index: int, s: Stimulus, at_s: float, registry: TypeRegistry) -> Enqueued:
    spec = registry.get_type(s.source_type)
    extra = s.payload.get("extra") if isinstance(s.payload.get("extra"), dict) else {}
    flags = {**extra, **s.payload}
    informational = (not spec.invokes_llm and not spec.requires_text
                     and not flags.get("triggerExecution") and not flags.get("actionRequired"))
    user = s.metadata.get("senderRole") == "user" and spec.user_priority is not None
    priority = spec.user_priority if user else spec.default_priority
    channel = (flags.get("channelKey") or s.metadata.get("sessionId") or flags.get("taskId")
               or "-")
    text = s.payload.get("content")
    return Enqueued(index, s, at_s, text if isinstance(text, str) else "", informational,
                    int(priority or 0), str(s.metadata.get("senderId", "-")), str(channel))


class _Run:
    def __init__(self, mode: str, workload: Workload, db: Path) -> None:
        self.mode, self.workload, self.db = mode, workload, db
        self.clock = SimClock()
        self.record = RunRecord(mode, workload)
        self.rt: Runtime | None = None

    async def open(self) -> Runtime:
        store = TrackedStore(SQLiteStore(self.db) if self.workload.sqlite else MemoryStore())
        self.clock.stores = [store]
        registry = TypeRegistry()
        for spec in self.workload.types:
            registry.register(spec)
        rt = Runtime(store, clock=self.clock, registry=registry)  # type: ignore[arg-type]
        await rt.start()
        for name in self.workload.agents:
            deliberator = (SimDeliberator(name, self.record, self.clock)
                           if self.mode == "on+delib" else None)
            await rt.add_agent(name, SimBrain(name, self.record, self.clock),
                               mode_config(self.mode),
                               judge=NoMergeJudge(rt.registry) if self.mode == "off" else None,
                               deliberator=deliberator)
        self.rt = rt
        return rt

    async def advance_to(self, at_s: float) -> None:
        delta = at_s - self.clock.monotonic()
        if delta > 0:
            await self.clock.advance(delta)

    async def restart(self) -> None:
        assert self.rt is not None
        await self.rt.close()
        self.record.restarts += 1
        await self.open()

    def idle(self, rt: Runtime) -> bool:
        return all(a.focus_item is None and a.depth == 0 and a.mailbox.deferred_count == 0
                   and a.controller._task is None for a in rt.agents)

    async def collect(self, rt: Runtime) -> None:
        rec = self.record
        for agent in rt.agents:
            offset = 0
            while True:
                page = await rt.store.find_items(ItemQuery(agent.name, limit=1000,
                                                           offset=offset))
                rec.items.update((i.id, i) for i in page)
                offset += len(page)
                if len(page) < 1000:
                    break
        rec.stored = len(rec.items)
        rows = rec.rows()
        seen = first_seen(rec)
        suspects = {e.index for e in rec.enqueued
                    if e.text and not e.informational and e.index not in seen}
        for earlier, later in order_violations(rec, seen, same_priority=False):
            suspects.update((earlier.index, later.index))
        suspects.update(e.index for e in rec.enqueued if e.stimulus.source_type == "human_chat")
        now, offset = self.clock.now(), self.clock.monotonic()
        for e in rec.enqueued:
            if e.index not in suspects:
                continue
            item = rows.get(e.index)
            while item is not None and item.id not in rec.explained:
                decisions = await rt.store.find_decisions(item.agent_id, item.id)
                rec.explained[item.id] = [
                    (offset + (d.created_at - now).total_seconds(), str(d.decision_type),
                     d.reasoning) for d in reversed(decisions)]
                if item.status != ItemStatus.MERGED or not item.merged_into:
                    break
                item = rec.items.get(item.merged_into)

    async def run(self) -> RunRecord:
        started = time.perf_counter()
        workload, rec = self.workload, self.record
        rt = await self.open()
        restart_at = workload.restart_at_s if workload.sqlite else None
        for index, stimulus in enumerate(workload.stimuli):
            if restart_at is not None and stimulus.at_s >= restart_at:
                await self.advance_to(restart_at)
                await self.restart()
                restart_at = None
            await self.advance_to(stimulus.at_s)
            assert self.rt is not None
            rt = self.rt
            await rt.get_agent(stimulus.agent).enqueue(
                stimulus.source_type, stimulus.payload,
                metadata={**stimulus.metadata, STIMULUS_KEY: index},
                idempotency_key=(stimulus.key or None) if workload.keys else None)
            rec.enqueued.append(_facts(index, stimulus, self.clock.monotonic(), rt.registry))
        assert self.rt is not None
        rt = self.rt
        limit = self.clock.monotonic() + MAX_DRAIN_S
        while not self.idle(rt) and self.clock.monotonic() < limit:
            await self.clock.advance(0.05)
        rec.drained = self.idle(rt)
        rec.finished_at_s = self.clock.monotonic()
        await self.collect(rt)
        await rt.close()
        rec.wall_s = time.perf_counter() - started
        return rec


def first_seen(rec: RunRecord) -> dict[int, tuple[int, int]]:
    """Stimulus index → (delivery seq, position) where its text first reached a brain."""
    unseen: dict[str, list[Enqueued]] = {}
    for e in rec.enqueued:
        if e.text and not e.informational:
            unseen.setdefault(e.stimulus.agent, []).append(e)
    seen: dict[int, tuple[int, int]] = {}
    for d in rec.deliveries:
        waiting = unseen.get(d.agent)
        if not waiting:
            continue
        left = []
        for e in waiting:
            position = d.text.find(e.text) if e.at_s <= d.at_s else -1
            if position >= 0:
                seen[e.index] = (d.seq, position)
            else:
                left.append(e)
        unseen[d.agent] = left
    return seen


def order_violations(rec: RunRecord, seen: Mapping[int, tuple[int, int]], *,
                     same_priority: bool = True) -> list[tuple[Enqueued, Enqueued]]:
    """Pairs (earlier, later) of one sender's texts on one channel (and, with
    ``same_priority``, one priority: CORE-71) where the later text reached a
    brain before the earlier one. Each later text is counted once, against the
    earliest text it overtook."""
    groups: dict[tuple[Any, ...], list[Enqueued]] = {}
    for e in rec.enqueued:
        if e.index in seen:
            key = (e.stimulus.agent, e.sender, e.channel, e.priority if same_priority else 0)
            groups.setdefault(key, []).append(e)
    pairs = []
    for group in groups.values():
        latest: Enqueued | None = None
        for e in group:  # enqueue order
            if latest is not None and seen[e.index] < seen[latest.index]:
                earlier = next(g for g in group if seen[g.index] > seen[e.index])
                pairs.append((earlier, e))
            elif latest is None or seen[e.index] > seen[latest.index]:
                latest = e
    return pairs


async def run(mode: str, workload: Workload, db: Path) -> RunRecord:
    """Replay ``workload`` in ``mode`` (``db`` is the SQLite file, when it uses one)."""
    return await _Run(mode, workload, db).run()
