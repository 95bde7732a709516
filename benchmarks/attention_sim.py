"""Replay a workload through real attn runtimes on simulated time.

Used by ``attention_quality.py``. The instruments sit at the brain (what a
model would read, ``attention_actors.py``), never in the store; what they
record is a :class:`~attention_record.RunRecord`. After the run the stored
items are read back (for items lost) with the decisions of the items whose
texts were lost or misordered (for ``--explain``).

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
from pathlib import Path
from typing import Any

from attention_actors import NoMergeRules, SimBrain, SimDeliberator
from attention_llm import LLM_MODE, InFlight, ModelTiers
from attention_record import (
    STIMULUS_KEY,
    Enqueued,
    RunRecord,
    Stimulus,
    Workload,
    first_seen,
    order_violations,
)

from attn import AgentConfig, DecisionType, ItemStatus, Runtime
from attn.core.registry import TypeRegistry
from attn.store.base import ItemQuery
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeClock, MemoryStore, settle

#: The modes run by default; ``attention_llm.LLM_MODE`` (``on+llm``) is asked for by flag.
MODES = ("off", "on", "on+delib")
#: Longest simulated drain after the last stimulus before the run counts as stuck.
MAX_DRAIN_S = 3600.0


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
        return AgentConfig(
            max_queued=100_000,
            dedup=False,
            coalesce_window_ms=0,
            consolidate=False,
            auto_complete_informational=False,
        )
    return AgentConfig(max_queued=100_000)


def _facts(index: int, s: Stimulus, at_s: float, registry: TypeRegistry) -> Enqueued:
    """The stimulus's facts; ``informational`` mirrors the attention loop's rule for
    an item it completes without a model call (``auto_complete_informational``)."""
    spec = registry.get_type(s.source_type)
    extra = s.payload.get("extra")
    flags: dict[str, Any] = {**(extra if isinstance(extra, dict) else {}), **s.payload}
    informational = (
        not spec.invokes_llm
        and not spec.requires_text
        and not flags.get("triggerExecution")
        and not flags.get("actionRequired")
    )
    user = s.metadata.get("senderRole") == "user" and spec.user_priority is not None
    priority = spec.user_priority if user else spec.default_priority
    channel = flags.get("channelKey") or s.metadata.get("sessionId") or flags.get("taskId") or "-"
    text = s.payload.get("content")
    return Enqueued(
        index,
        s,
        at_s,
        text if isinstance(text, str) else "",
        informational,
        int(priority or 0),
        str(s.metadata.get("senderId", "-")),
        str(channel),
    )


class _Run:
    def __init__(self, mode: str, workload: Workload, db: Path) -> None:
        self.mode, self.workload, self.db = mode, workload, db
        self.clock = SimClock()
        self.record = RunRecord(mode, workload)
        self.rt: Runtime | None = None
        self.models = InFlight()
        self.tiers = ModelTiers(self.record, self.clock, self.models) if mode == LLM_MODE else None

    async def open(self) -> Runtime:
        store = TrackedStore(SQLiteStore(self.db) if self.workload.sqlite else MemoryStore())
        self.clock.stores = [store, self.models]  # type: ignore[list-item]
        registry = TypeRegistry()
        for spec in self.workload.types:
            registry.register(spec)
        rt = Runtime(store, clock=self.clock, registry=registry)
        await rt.start()
        for name in self.workload.agents:
            deliberator: Any = (
                SimDeliberator(name, self.record, self.clock) if self.mode == "on+delib" else None
            )
            classifier: Any = None
            if self.tiers is not None:
                classifier, deliberator = self.tiers.for_agent(name)
            agent = await rt.add_agent(
                name,
                SimBrain(name, self.record, self.clock),
                mode_config(self.mode),
                rules=NoMergeRules(rt.registry) if self.mode == "off" else None,
                deliberator=deliberator,
                classifier=classifier,
            )
            if getattr(deliberator, "host", False) is None:  # until add_agent binds it
                deliberator.bind_agent(agent)
        self.rt = rt
        return rt

    async def advance_to(self, at_s: float) -> None:
        delta = at_s - self.clock.monotonic()
        if delta > 0:
            await self.clock.advance(delta)

    async def restart(self) -> None:
        assert self.rt is not None
        counts = self.record.recovery
        counts["in focus"] = counts.get("in focus", 0) + sum(
            1 for a in self.rt.agents if a.focus_item is not None
        )
        # Time passes while the agents stop: close waits for work that cannot be
        # interrupted (an in-flight deliberation), which runs on simulated time.
        started_s = self.clock.monotonic()
        closing = asyncio.ensure_future(self.rt.close())
        await self.clock.quiesce()
        while not closing.done():
            await self.clock.advance(0.05)
        await closing
        counts["closing ms"] = round((self.clock.monotonic() - started_s) * 1000)
        self.record.restarts += 1
        rt = await self.open()
        for agent in rt.agents:
            report = agent.recovery
            for name, value in (
                ("restored", report.restored),
                ("deferred", report.deferred),
                ("requeued", len(report.requeued)),
                ("merged", len(report.merged)),
                ("dropped", len(report.dropped) + len(report.expired)),
            ):
                counts[name] = counts.get(name, 0) + value

    def idle(self, rt: Runtime) -> bool:
        return all(
            a.focus_item is None
            and a.depth == 0
            and a.mailbox.deferred_count == 0
            and not a.controller.busy
            for a in rt.agents
        )

    async def collect(self, rt: Runtime) -> None:
        rec = self.record
        for agent in rt.agents:
            offset = 0
            while True:
                page = await rt.store.find_items(ItemQuery(agent.name, limit=1000, offset=offset))
                rec.items.update((i.id, i) for i in page)
                offset += len(page)
                if len(page) < 1000:
                    break
        rec.stored = len(rec.items)
        for agent_id, item_id in sorted(rec.preempted_items):
            for d in reversed(await rt.store.find_decisions(agent_id, item_id)):
                if d.decision_type == DecisionType.PREEMPT:
                    rec.preemptions.append(
                        (
                            agent_id,
                            item_id,
                            str(d.context.get("arrivalId")),
                            str(d.context.get("arrivalType")),
                        )
                    )
        rows = rec.rows()
        seen = first_seen(rec)
        suspects = {
            e.index for e in rec.enqueued if e.text and not e.informational and e.index not in seen
        }
        for earlier, later in order_violations(rec, seen, same_priority=False):
            suspects.update((earlier.index, later.index))
        suspects.update(e.index for e in rec.enqueued if e.stimulus.source_type == "human_chat")
        now, clock_s = self.clock.now(), self.clock.monotonic()
        for e in rec.enqueued:
            if e.index not in suspects:
                continue
            item = rows.get(e.index)
            while item is not None and item.id not in rec.explained:
                decisions = await rt.store.find_decisions(item.agent_id, item.id)
                rec.explained[item.id] = [
                    (
                        clock_s + (d.created_at - now).total_seconds(),
                        str(d.decision_type),
                        d.reasoning,
                    )
                    for d in reversed(decisions)
                ]
                if item.status != ItemStatus.MERGED or not item.merged_into:
                    break
                item = rec.items.get(item.merged_into)

    async def run(self) -> RunRecord:
        if self.tiers is None:
            return await self._run()
        self.tiers.start()
        try:
            return await self._run()
        finally:
            await self.tiers.close()
            self.tiers.stop()

    async def _run(self) -> RunRecord:
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
                stimulus.source_type,
                stimulus.payload,
                metadata={**stimulus.metadata, STIMULUS_KEY: index},
                idempotency_key=(stimulus.key or None) if workload.keys else None,
            )
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


async def run(mode: str, workload: Workload, db: Path) -> RunRecord:
    """Replay ``workload`` in ``mode`` (``db`` is the SQLite file, when it uses one)."""
    return await _Run(mode, workload, db).run()
