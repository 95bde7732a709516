"""The phases of ``tree.py``, run on any contender (a :class:`~tree_attn.Side`).

* :func:`waves`: one root and ``waves`` waves of ``per_wave`` new children,
  each given a task as it is added; a wave's children wait until the whole
  wave is sent (so the capacity bound is met in every wave), then work and
  answer. Nothing is closed or removed between waves. The k-th send of a wave
  (k from 0) meets k unsettled turns of that wave and none of earlier waves,
  so its receipt must say started for k < capacity and at capacity (naming
  "<capacity> of <capacity>") otherwise.
* :func:`mail`: the shape's agents; the root sends each child one message,
  then every child's turn sends a message after each of its first
  ``sends_per_turn`` steps to its parent or a random other child until
  ``messages`` are sent; then two probes on the idle tree: one message at a
  time to an idle child (wake), and, with a small capacity, ``capacity``
  children held busy, one more sent mail (it waits for a slot), and one
  holder let go (hand-over); then ``idle_s`` seconds with nothing to do
  (the CPU that waiting costs).
* :func:`final_checks`: the counts every contender is held to.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field

from tree_attn import Side
from tree_work import ROOT, WAIT_S, Recorder, Shape

#: The largest capacity the hand-over probe fills with held turns.
MAX_PROBE_CAPACITY = 8


@dataclass(slots=True)
class Counts:
    """What every contender is held to at the end of a run."""

    turns: int = 0
    results: int = 0
    result_mismatch: int = 0  # children whose RESULTs differ from their settled turns
    calls_mismatch: int = 0  # children whose settled turns differ from their brain calls
    stranded: int = 0
    leaks: int = 0  # slots held or reserved at the end
    waiting: int = 0  # agents still waiting for a slot at the end
    max_running: int = 0


@dataclass(slots=True)
class WavesOut:
    wave_s: list[float] = field(default_factory=list)
    at_capacity: int = 0
    wrong_limit: int = 0  # at capacity while fewer than capacity turns were unsettled
    over_admitted: int = 0  # started while capacity turns were unsettled
    reason_bad: int = 0  # an at-capacity reason that does not name the limit
    leaks_after_wave: int = 0  # slots still in use after a wave settled, summed
    counts: Counts = field(default_factory=Counts)


async def final_checks(side: Side, rec: Recorder, children: list[str]) -> Counts:
    await side.settle()
    turns = side.turns()
    results = await side.results()
    return Counts(
        turns=sum(turns[c] for c in children),
        results=sum(results[c] for c in children),
        result_mismatch=sum(1 for c in children if results[c] != turns[c]),
        calls_mismatch=sum(1 for c in children if rec.calls[c] != turns[c]),
        stranded=await side.stranded(),
        leaks=side.slots_in_use(),
        waiting=side.waiting(),
        max_running=rec.max_running,
    )


async def waves(side: Side, rec: Recorder, count: int, per_wave: int) -> WavesOut:
    out = WavesOut()
    cap = side.capacity
    children: list[str] = []
    for w in range(count):
        rec.go = asyncio.Event()
        began = time.perf_counter()
        for k in range(per_wave):
            name = f"w{w:02d}c{k}"
            child = f"{ROOT}.{name}"
            children.append(child)
            await side.add(child, ROOT, name)
            _item, said = await side.send(ROOT, child, f"task {k} of wave {w}")
            limit = "at capacity" in said
            out.at_capacity += limit
            if cap is not None:
                out.wrong_limit += limit and k < cap
                out.over_admitted += not limit and k >= cap
                named = f"queued: at capacity: {cap} of {cap} turn slots in use"
                out.reason_bad += limit and not said.startswith(named)
        rec.go.set()
        await side.settle()
        out.wave_s.append(time.perf_counter() - began)
        out.leaks_after_wave += side.slots_in_use()
    rec.go = None
    out.counts = await final_checks(side, rec, children)
    return out


@dataclass(slots=True)
class MailOut:
    load_s: float = 0.0
    cpu_s: float = 0.0
    sent: int = 0
    transactions: int = 0
    load_wake: list[float] = field(default_factory=list)  # receipts that said started
    load_handover: list[float] = field(default_factory=list)
    probe_wake: list[float] = field(default_factory=list)
    probe_started: int = 0
    probe_handover: list[float] = field(default_factory=list)  # slot offered → start
    probe_handover_full: list[float] = field(default_factory=list)  # holder returned → start
    probe_waited: int = 0  # the waiter's receipt said at capacity
    idle_cpu: float = 0.0  # CPU seconds per second with nothing to do
    counts: Counts = field(default_factory=Counts)


async def mail(
    side: Side,
    rec: Recorder,
    tree: Shape,
    *,
    messages: int,
    wake_samples: int,
    handover_samples: int,
    rng: random.Random,
    idle_s: float = 0.0,
) -> MailOut:
    out = MailOut()
    children = tree.children
    for child in children:
        await side.add(child, tree.parent[child], tree.names[child][-1])
    await side.settle()

    async def send(sender: str, target: str, text: str) -> tuple[str, bool]:
        item_id, said = await side.send(sender, target, text)
        return item_id, said == "started"

    rec.send = send
    rec.budget = messages
    side.handovers.clear()
    transactions, cpu, began = side.transactions(), time.process_time(), time.perf_counter()
    for child in children:
        await rec.send_one(ROOT, child)
    await side.settle()
    out.load_s = side.last_activity() - began
    out.cpu_s = time.process_time() - cpu
    out.transactions = side.transactions() - transactions
    out.sent = rec.sent
    out.load_wake = rec.started_latencies()
    out.load_handover = list(side.handovers)
    rec.started_sends.clear()

    for k in range(wake_samples):
        await side.settle()
        target = rng.choice([c for c in children if side.idle(c)])
        began = time.perf_counter()
        item_id, said = await side.send(ROOT, target, f"probe {k}")
        seen = await asyncio.wait_for(rec.expect(item_id), WAIT_S)
        out.probe_wake.append(seen - began)
        out.probe_started += said == "started"

    cap = side.capacity
    if cap is not None and cap <= MAX_PROBE_CAPACITY:
        for k in range(handover_samples):
            await _handover(side, rec, children, cap, rng, out, k)
    if idle_s > 0:
        await side.settle()
        cpu, began = time.process_time(), time.perf_counter()
        await asyncio.sleep(idle_s)  # nothing to do: what does waiting cost?
        out.idle_cpu = (time.process_time() - cpu) / (time.perf_counter() - began)
    out.counts = await final_checks(side, rec, children)
    return out


async def _handover(
    side: Side,
    rec: Recorder,
    children: list[str],
    cap: int,
    rng: random.Random,
    out: MailOut,
    k: int,
) -> None:
    """``cap`` children held busy, one more sent mail, the first holder let go."""
    await side.settle()
    chosen = rng.sample([c for c in children if side.idle(c)], cap + 1)
    holders, waiter = chosen[:cap], chosen[cap]
    held = {h: asyncio.Event() for h in holders}
    rec.hold.update(held)
    seen = []
    for holder in holders:
        item_id, _said = await side.send(ROOT, holder, f"hold {k}")
        seen.append(rec.expect(item_id))
    await asyncio.wait_for(asyncio.gather(*seen), WAIT_S)
    item_id, said = await side.send(ROOT, waiter, f"wait {k}")
    out.probe_waited += "at capacity" in said
    started = rec.expect(item_id)
    side.handover_of.pop(waiter, None)
    await side.ready(waiter)
    held[holders[0]].set()
    at = await asyncio.wait_for(started, WAIT_S)
    handover = side.handover_of.pop(waiter, None)
    if handover is not None:
        out.probe_handover.append(handover)
    out.probe_handover_full.append(at - rec.returned_at[holders[0]])
    for event in held.values():
        event.set()
