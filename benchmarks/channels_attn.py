"""attn's side of ``channels.py``: the plan run through ``runtime.channels`` on SQLite.

One runtime on a SQLite file on disk hosts every agent of the plan, with the
default :class:`~attn.AgentConfig` (so the 200 ms burst window of 000 §14 is
on; ``coalesce_ms=0`` turns it off) and one team channel per team. Every agent's brain is a
:class:`Recorder` brain: it notes each marker it sees, with
``time.perf_counter()``, in the item it is given and in what each yield point
merged into it. Three phases, one after the other, on the same runtime:

* **load**: every agent sends its planned messages at once (one task per
  agent, each awaiting its own sends: ``channels.send`` for a DM,
  ``channels.post`` on the team channel for a post), until all are processed;
* **idle**: one DM at a time to an agent that is idle with an empty mailbox
  (``run_until_idle`` first); from just before the send to the brain's first line;
* **steered**: ``busy`` recipients each work on one long item from a sender,
  calling ``focus.yield_point()`` every ``yield_s`` of work (on a fixed grid:
  an ``asyncio.sleep`` to the next multiple, as a brain awaits its model); the
  sender sends a DM on the same channel at a random moment and waits until the
  brain saw it merged. Each sample is split into send → the next yield point's
  call, and that yield point's own time.

:func:`store_checks` then reads back what the store holds: every message
once, every delivery delivered, exactly one mailbox item per (recipient,
message), each channel in its commit order.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from channels_plan import MARKER_RE, Plan, markers

from attn import AgentConfig, Focus, MailboxItem, Runtime
from attn.store.base import ItemQuery
from attn.store.sqlite import SQLiteStore

#: Most yield intervals one long item works for (a bound, never reached).
MAX_STEPS = 100_000
#: Seconds a phase waits for one sighting before it calls the run broken.
WAIT_S = 60.0


class Recorder:
    """Every agent's brain, and what each brain saw.

    Attributes:
        seen: agent -> plan indexes (``[m:i]``), in the order it saw them, repeats kept.
        seen_at: (agent, index) -> ``perf_counter()`` of the first sighting.
        waiters: (kind, number) -> a future the brain sets to the time it saw
            that marker (``lat`` and ``st`` markers).
        yield_s: seconds of work between two yield points of a long item.
    """

    def __init__(self, yield_s: float) -> None:
        self.seen: dict[str, list[int]] = defaultdict(list)
        self.seen_at: dict[tuple[str, int], float] = {}
        #: (kind, number) -> when the yield point that merged it was called.
        self.tick_at: dict[tuple[str, int], float] = {}
        self.waiters: dict[tuple[str, int], asyncio.Future[float]] = {}
        self.working: dict[str, asyncio.Future[float]] = {}
        self.stop_work: set[str] = set()
        self.yield_s = yield_s
        self.items = 0
        self.yield_points = 0

    def _note(self, agent: str, text: str, at: float, tick: float | None = None) -> bool:
        """Record the markers of ``text`` seen at ``at`` (merged by the yield point
        called at ``tick``); True when it asks for long work."""
        work = False
        for kind, number in MARKER_RE.findall(text):
            n = int(number)
            if kind == "m":
                self.seen[agent].append(n)
                self.seen_at.setdefault((agent, n), at)
            elif kind == "work":
                work = True
            else:
                waiter = self.waiters.get((kind, n))
                if waiter is not None and not waiter.done():
                    waiter.set_result(at)
                    if tick is not None:
                        self.tick_at[(kind, n)] = tick
        return work

    def brain(self, name: str) -> Any:
        """The brain of agent ``name``."""

        async def brain(item: MailboxItem, focus: Focus) -> None:
            at = time.perf_counter()
            self.items += 1
            if not self._note(name, item.content, at):
                await self._yield(name, focus)
                return
            started = self.working.pop(name, None)
            if started is not None and not started.done():
                started.set_result(at)
            due = time.perf_counter()
            for _ in range(MAX_STEPS):
                if name in self.stop_work:
                    break
                # The work: a brain awaiting its model, with a yield point every
                # yield_s on a fixed grid (the yield points' own time does not
                # stretch the interval).
                due += self.yield_s
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                if await self._yield(name, focus):
                    break
            self.stop_work.discard(name)

        return brain

    async def _yield(self, name: str, focus: Focus) -> bool:
        called = time.perf_counter()
        decision = await focus.yield_point()
        at = time.perf_counter()
        self.yield_points += 1
        for merged in decision.merged:
            self._note(name, merged.content, at, called)
        return decision.stop


@dataclass(slots=True)
class AttnRun:
    """What one run of attn measured."""

    load_s: float = 0.0
    sends_s: float = 0.0
    load_cpu_s: float = 0.0  # CPU seconds of this process (every thread) during the load
    load_latency: list[float] = field(default_factory=list)
    load_outcomes: Counter[str] = field(default_factory=Counter)
    idle_latency: list[float] = field(default_factory=list)
    idle_send: list[float] = field(default_factory=list)
    idle_outcomes: Counter[str] = field(default_factory=Counter)
    steered_latency: list[float] = field(default_factory=list)
    steered_wait: list[float] = field(default_factory=list)  # send -> the yield point's call
    steered_merge: list[float] = field(default_factory=list)  # that yield point's own time
    steered_outcomes: Counter[str] = field(default_factory=Counter)
    seen: dict[str, list[int]] = field(default_factory=dict)
    store: dict[str, Any] = field(default_factory=dict)
    items: int = 0
    transactions: int = 0


async def open_runtime(
    path: Path, plan: Plan, recorder: Recorder, coalesce_ms: int | None = None
) -> Runtime:
    """A started runtime on a SQLite file with every agent and team channel of ``plan``
    (``coalesce_ms``: the agents' burst window; None: the default)."""
    runtime = Runtime(SQLiteStore(path))
    await runtime.start()
    config = AgentConfig() if coalesce_ms is None else AgentConfig(coalesce_window_ms=coalesce_ms)
    for name in plan.agents:
        await runtime.add_agent(name, recorder.brain(name), config)
    for team, members in plan.teams.items():
        await runtime.channels.ensure_team(team, members)
    return runtime


async def load(runtime: Runtime, plan: Plan, recorder: Recorder, out: AttnRun) -> None:
    """Every agent sends its messages at once; wait until all are processed."""
    channels = runtime.channels
    sent_at: dict[int, float] = {}

    async def sender(name: str) -> None:
        for message in by_sender[name]:
            sent_at[message.index] = time.perf_counter()
            if message.team is not None:
                receipt = await channels.post(f"group:{message.team}", name, message.text)
            else:
                receipt = await channels.send(name, message.peer or "", message.text)
            out.load_outcomes.update(str(d.outcome) for d in receipt.deliveries)

    by_sender = plan.by_sender()
    cpu = time.process_time()
    began = time.perf_counter()
    async with asyncio.TaskGroup() as group:
        for name in plan.agents:
            group.create_task(sender(name), name=f"bench-send-{name}")
    out.sends_s = time.perf_counter() - began
    await runtime.run_until_idle()
    out.load_cpu_s = time.process_time() - cpu
    last = max(recorder.seen_at.values(), default=began)
    out.load_s = last - began
    out.load_latency = [
        at - sent_at[index] for (_agent, index), at in recorder.seen_at.items() if index in sent_at
    ]
    out.seen = {agent: list(indexes) for agent, indexes in recorder.seen.items()}


async def idle(
    runtime: Runtime, plan: Plan, recorder: Recorder, out: AttnRun, samples: int, seed: int
) -> None:
    """``samples`` DMs, one at a time, each to an idle agent with an empty mailbox."""
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    body = plan.messages[0].text.split(" ", 1)[-1]
    for k in range(samples):
        sender, recipient = rng.sample(plan.agents, 2)
        await runtime.run_until_idle()
        seen = recorder.waiters[("lat", k)] = loop.create_future()
        began = time.perf_counter()
        receipt = await runtime.channels.send(sender, recipient, f"[lat:{k}] {body}")
        out.idle_send.append(time.perf_counter() - began)
        out.idle_latency.append(await asyncio.wait_for(seen, WAIT_S) - began)
        out.idle_outcomes.update(str(d.outcome) for d in receipt.deliveries)
        del recorder.waiters[("lat", k)]
    await runtime.run_until_idle()


async def steered(
    runtime: Runtime,
    plan: Plan,
    recorder: Recorder,
    out: AttnRun,
    *,
    busy: int,
    samples: int,
    seed: int,
) -> None:
    """``busy`` agents each work on a long item; ``samples`` DMs in all reach them mid-work."""
    loop = asyncio.get_running_loop()
    agents = list(plan.agents)
    random.Random(seed).shuffle(agents)
    pairs = [(agents[2 * p], agents[2 * p + 1]) for p in range(min(busy, len(agents) // 2))]
    per = max(1, samples // len(pairs))
    numbers = iter(range(10**9))

    async def pair(p: int, sender: str, recipient: str) -> None:
        rng = random.Random(seed * 31 + p)
        started = recorder.working[recipient] = loop.create_future()
        await runtime.channels.send(sender, recipient, f"[work:{p}] a long task from {sender}")
        await asyncio.wait_for(started, WAIT_S)
        for _ in range(per):
            await asyncio.sleep(rng.uniform(0, recorder.yield_s))  # pacing, not measured
            k = next(numbers)
            seen = recorder.waiters[("st", k)] = loop.create_future()
            began = time.perf_counter()
            receipt = await runtime.channels.send(sender, recipient, f"[st:{k}] also this")
            at = await asyncio.wait_for(seen, WAIT_S)
            tick = recorder.tick_at.pop(("st", k), at)
            out.steered_latency.append(at - began)
            out.steered_wait.append(tick - began)
            out.steered_merge.append(at - tick)
            out.steered_outcomes.update(str(d.outcome) for d in receipt.deliveries)
            del recorder.waiters[("st", k)]
        recorder.stop_work.add(recipient)

    await runtime.run_until_idle()
    async with asyncio.TaskGroup() as group:
        for p, (sender, recipient) in enumerate(pairs):
            group.create_task(pair(p, sender, recipient), name=f"bench-steer-{p}")
    await runtime.run_until_idle()


async def store_checks(runtime: Runtime, plan: Plan) -> dict[str, Any]:
    """What the store holds, held to the plan; ``seq`` maps each plan index to its commit order."""
    store = runtime.store
    count: Counter[int] = Counter()
    seq: dict[int, int] = {}
    index_of: dict[str, int] = {}
    bad_deliveries: Counter[str] = Counter()
    for key in sorted({m.channel for m in plan.messages}):
        before: int | None = None
        while True:
            page = await store.find_channel_messages(key, before_seq=before, limit=500)
            for message in page:
                for index in markers(message.text):
                    count[index] += 1
                    seq[index] = message.seq
                    index_of[message.id] = index
                for d in message.deliveries:
                    if str(d.outcome) not in ("started", "steered", "queued"):
                        bad_deliveries[str(d.outcome)] += 1
            if len(page) < 500:
                break
            before = page[0].seq
    items: Counter[tuple[str, int]] = Counter()
    statuses: Counter[str] = Counter()
    for agent in plan.agents:
        before = None
        while True:
            page = await store.find_items(ItemQuery(agent, limit=500, before_seq=before))
            for item in page:
                index = index_of.get(str(item.extra("messageId")))
                if index is not None:
                    items[(agent, index)] += 1
                    statuses[str(item.status)] += 1
            if len(page) < 500:
                break
            before = page[-1].seq
    expected = {(r, m.index) for m in plan.messages for r in m.recipients}
    # Each sender's messages on a channel must be stored in the order it sent them.
    order = 0
    last: dict[tuple[str, str], int] = {}
    for message in plan.messages:
        key = (message.channel, message.sender)
        if message.index in seq:
            if last.get(key, -1) > seq[message.index]:
                order += 1
            last[key] = seq[message.index]
    return {
        "seq": seq,
        "messages_lost": sum(1 for m in plan.messages if count[m.index] == 0),
        "messages_duplicated": sum(c - 1 for c in count.values() if c > 1),
        "bad_deliveries": sum(bad_deliveries.values()),
        "items_missing": sum(1 for key in expected if items[key] == 0),
        "items_duplicated": sum(c - 1 for key, c in items.items() if c > 1),
        "items_unfinished": sum(c for s, c in statuses.items() if s not in ("completed", "merged")),
        "stored_order": order,
    }


async def run(
    path: Path,
    plan: Plan,
    *,
    idle_samples: int,
    steered_samples: int,
    busy: int,
    yield_s: float,
    seed: int,
    coalesce_ms: int | None = None,
    profile: Any = None,
) -> AttnRun:
    """One run of every phase on a fresh SQLite file at ``path``."""
    import gc

    recorder = Recorder(yield_s)
    out = AttnRun()
    runtime = await open_runtime(path, plan, recorder, coalesce_ms)
    try:
        gc.collect()
        gc.freeze()  # as ``attn serve`` does: the startup heap is never scanned again
        if profile is not None:
            profile.enable()
        try:
            await load(runtime, plan, recorder, out)
            await idle(runtime, plan, recorder, out, idle_samples, seed)
        finally:
            if profile is not None:
                profile.disable()
        await steered(runtime, plan, recorder, out, busy=busy, samples=steered_samples, seed=seed)
        out.store = await store_checks(runtime, plan)
        out.items = recorder.items
        out.transactions = runtime.store.statistics().transactions
    finally:
        await runtime.close()
        gc.unfreeze()
    return out
