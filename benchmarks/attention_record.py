"""What one run of ``attention_quality.py`` records, and the matching of
stimulus texts against brain inputs.

A :class:`Delivery` is what one brain input carried: a brain call (its item's
content, its batch's contents and the batch context), a yield-point merge (the
merged items' contents) or a deliberation (the contents of items it completed
inline: the model read them to decide so). :func:`first_seen` finds, for each
stimulus, the first delivery holding its text (texts carry unique marks).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from attn import MailboxItem
from attn.core.item_type import ItemType

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
    """``exec`` for an execution trigger, else the item's source type."""
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
    """One brain invocation: from its start to its return (``kind``: see :func:`kind_of`)."""

    agent: str
    item_id: str
    kind: str
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
    #: (agent, item id) of every item a yield point preempted.
    preempted_items: set[tuple[str, str]] = field(default_factory=set)
    #: (agent, preempted item id, preempting item id, its type), from the stored
    #: preempt decisions; read back after the run.
    preemptions: list[tuple[str, str, str, str]] = field(default_factory=list)
    #: (agent, item id, kind, preempted at s, waited s) of each resumption.
    resumptions: list[tuple[str, str, str, float, float]] = field(default_factory=list)
    preempted: dict[tuple[str, str], float] = field(default_factory=dict)
    calls_by_kind: dict[str, int] = field(default_factory=dict)
    brain_calls: int = 0
    deliberations: int = 0
    #: Model calls of the tiers when they run as a model (mode ``on+llm``):
    #: interrupt-judge calls and deliberation turns.
    judge_calls: int = 0
    deliberation_turns: int = 0
    #: Requests the fake provider answered in that mode (each call went over HTTP).
    model_requests: int = 0
    executed_steps: int = 0
    kept_steps: int = 0
    items: dict[str, MailboxItem] = field(default_factory=dict)
    stored: int = 0
    restarts: int = 0
    #: Summed over the agents at each restart: items in focus when the runtime
    #: closed, and what recovery did (restored, deferred, requeued, merged, dropped).
    recovery: dict[str, int] = field(default_factory=dict)
    drained: bool = True
    finished_at_s: float = 0.0
    wall_s: float = 0.0
    #: item id → [(simulated s, decision type, reasoning)], oldest first, for the
    #: items of lost or misordered texts (and the items they were merged into).
    explained: dict[str, list[tuple[float, str, str]]] = field(default_factory=dict)

    @property
    def model_calls(self) -> int:
        """Brain calls plus the tiers' model calls: each judge call and deliberation
        turn when they are a model, else one per (simulated) deliberation."""
        tiers = self.judge_calls + self.deliberation_turns
        return self.brain_calls + (tiers if tiers else self.deliberations)

    def rows(self) -> dict[int, MailboxItem]:
        """Stimulus index → the stored row its enqueue created."""
        out = {}
        for item in self.items.values():
            index = item.metadata.get(STIMULUS_KEY)
            if isinstance(index, int):
                out[index] = item
        return out

    def deliver(
        self, at_s: float, agent: str, how: str, item_id: str, texts: Iterable[str]
    ) -> None:
        text = "\n".join(t for t in texts if t)
        if text:
            self.deliveries.append(Delivery(len(self.deliveries), at_s, agent, how, item_id, text))


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


def order_violations(
    rec: RunRecord, seen: Mapping[int, tuple[int, int]], *, same_priority: bool = True
) -> list[tuple[Enqueued, Enqueued]]:
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
