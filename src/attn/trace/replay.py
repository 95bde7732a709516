"""Replay a trace through a runtime, then summarize what the store holds.

:func:`replay` validates the whole trace against the runtime first (types,
text, sizes, agent names) so a bad trace changes nothing; then it registers
the trace's item types, adds every missing recipient with a no-network brain,
enqueues the events in timestamp order (file order breaks ties), waits until
every agent is idle and reads the outcome back from the store
(:func:`attn.trace.summary.summarize`).

Each event is enqueued with its trace key as the idempotency key, so replaying
the same trace into the same database twice never duplicates an item.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from attn.config import AgentConfig
from attn.core.events import ITEM_UPDATED, Event
from attn.core.focus import Brain
from attn.core.item_type import ItemType
from attn.core.registry import TypeRegistry
from attn.errors import InvalidInput, UnknownAgent
from attn.jsontext import dumps
from attn.models import TERMINAL_STATUSES
from attn.runtime import Runtime
from attn.trace.files import read_trace
from attn.trace.model import Trace
from attn.trace.summary import ReplaySummary, summarize

# The runtime's rule for agent names (checked up front so a bad trace changes nothing).
_AGENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_TERMINAL = frozenset(str(s) for s in TERMINAL_STATUSES)


@dataclass(frozen=True, slots=True)
class ReplayProgress:
    """Where a replay stands: events ``enqueued`` and ``settled`` (reached a final status)."""

    total: int
    enqueued: int
    settled: int


ProgressCallback = Callable[[ReplayProgress], None]
BrainFactory = Callable[[str], Brain]


def _echo_brain(_agent: str) -> Brain:
    from attn.brains.echo import EchoBrain

    return EchoBrain()


async def replay(
    trace_path: str | os.PathLike[str] | Trace,
    runtime: Runtime,
    *,
    speed: float | None = None,
    max_gap_s: float | None = None,
    progress: ProgressCallback | None = None,
    brain: BrainFactory | None = None,
    config: AgentConfig | None = None,
) -> ReplaySummary:
    """Replay a trace through ``runtime`` and summarize the result from its store.

    Args:
        trace_path: a trace file, or an already read :class:`Trace`.
        runtime: the runtime to replay into (started if it is not).
        speed: None enqueues as fast as possible; a positive factor honours the
            events' relative gaps divided by it (1.0 = real time, 10.0 = ten
            times faster), sleeping on the runtime's clock.
        max_gap_s: with ``speed``, the longest gap (trace seconds) honoured between
            two events; longer idle stretches are shortened to it.
        progress: called with a :class:`ReplayProgress` after each enqueue and
            each settled item.
        brain: ``brain(agent_name)`` makes the brain of each recipient the runtime
            does not host yet; default :class:`~attn.brains.echo.EchoBrain`.
        config: settings of the agents created for recipients.

    Returns:
        The :class:`~attn.trace.summary.ReplaySummary`.

    Raises:
        InvalidTrace: the file is not a valid trace.
        InvalidInput: the trace does not fit the runtime (unknown type, a type
            registered differently, blank required text, oversized payload, bad
            agent name, bad ``speed``); nothing was changed.
    """
    trace = trace_path if isinstance(trace_path, Trace) else read_trace(Path(trace_path))
    if speed is not None and (isinstance(speed, bool) or not speed > 0):
        raise InvalidInput(f"speed must be a positive factor or None, got {speed!r}")
    if max_gap_s is not None and not max_gap_s >= 0:
        raise InvalidInput(f"max_gap_s must be non-negative seconds or None, got {max_gap_s!r}")
    config = config or AgentConfig()
    _check(trace, runtime.registry, config)
    await runtime.start()
    clock = runtime.clock
    started = clock.monotonic()
    for spec in trace.types:
        if spec.name not in runtime.registry:
            runtime.registry.register(spec)
    make_brain = brain or _echo_brain
    for name, description in _recipients(trace).items():
        try:
            runtime.get_agent(name)
        except UnknownAgent:
            await runtime.add_agent(name, make_brain(name), config, description=description)

    order = sorted(range(len(trace.events)), key=lambda i: trace.events[i].at)
    total = len(order)
    keys = {(e.agent, e.key) for e in trace.events}
    settled: set[str] = set()
    enqueued = 0

    def report() -> None:
        if progress is not None:
            progress(ReplayProgress(total, enqueued, len(settled)))

    def on_event(event: Event) -> None:
        if event.type != ITEM_UPDATED:
            return
        item = event.data.get("item", {})
        ours = (event.agent_id, item.get("idempotencyKey")) in keys
        if ours and item.get("status") in _TERMINAL and item["id"] not in settled:
            settled.add(item["id"])
            report()

    unsubscribe = runtime.bus.subscribe(on_event) if progress is not None else None
    try:
        report()
        offset_s = 0.0
        previous = trace.events[order[0]].at if order else None
        for index in order:
            event = trace.events[index]
            if speed is not None and previous is not None:
                gap_s = (event.at - previous).total_seconds()
                if max_gap_s is not None:
                    gap_s = min(gap_s, max_gap_s)
                offset_s += gap_s / speed
                delay_s = started + offset_s - clock.monotonic()
                if delay_s > 0:
                    await clock.sleep(delay_s)
            previous = event.at
            await runtime.get_agent(event.agent).enqueue(
                event.source_type, event.payload, event.priority, event.metadata, event.key
            )
            enqueued += 1
            report()
            # Let the agents run between enqueues (the in-memory store never yields),
            # so enqueue-to-pick latency measures the runtime, not this loop.
            await asyncio.sleep(0)
        await runtime.run_until_idle()
    finally:
        if unsubscribe is not None:
            unsubscribe()
    return await summarize(trace, runtime.store, elapsed_s=clock.monotonic() - started)


def _check(trace: Trace, registry: TypeRegistry, config: AgentConfig) -> None:
    """Raise InvalidInput for the first event the runtime would reject; change nothing."""
    known: dict[str, ItemType] = dict(registry.items())
    for spec in trace.types:
        existing = known.get(spec.name)
        if existing is not None and existing != spec:
            raise InvalidInput(
                f"trace type {spec.name!r} is already registered with different settings"
            )
        if existing is None:
            TypeRegistry(()).register(spec)  # same validation as the real registration
            known[spec.name] = spec
    for name in _recipients(trace):
        if not _AGENT_NAME.match(name):
            raise InvalidInput(
                f"trace agent name {name!r} is not valid: 1-64 letters, digits, "
                "'_', '.' or '-', starting with a letter or digit"
            )
    for number, event in enumerate(trace.events, start=1):
        where = f"trace event {number} (agent {event.agent!r}, key {event.key!r})"
        found = known.get(event.source_type)
        if found is None:
            raise InvalidInput(
                f"{where}: unknown source type {event.source_type!r}; "
                "register it or list it in the trace header's types"
            )
        content = event.payload.get("content")
        if found.requires_text and (not isinstance(content, str) or not content.strip()):
            raise InvalidInput(f"{where}: {found.name} needs non-empty text in payload.content")
        size = len(dumps(event.payload)) + len(dumps(event.metadata))  # as enqueue counts
        if size > config.max_payload_bytes:
            raise InvalidInput(
                f"{where}: payload and metadata take {size} bytes; the limit "
                f"is {config.max_payload_bytes} bytes"
            )


def _recipients(trace: Trace) -> dict[str, str]:
    """Every recipient (header agents, then any other event agent) -> description."""
    names = {a.name: a.description for a in trace.agents}
    for event in trace.events:
        names.setdefault(event.agent, "")
    return names
