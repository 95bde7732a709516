"""Prometheus metrics of one runtime.

Two sources, both cheap for the agents:

* a subscriber on ``runtime.bus`` that only updates counters and histograms
  (time in queue when an item becomes the focus, processing time when it
  leaves processing, decisions by type);
* a collector that reads gauges and lifetime counters when ``/metrics`` is
  scraped (queue depth, items by status, attention state, the store's
  group-commit statistics), so nothing is counted twice on the hot path.

Every metric has its own :class:`~prometheus_client.CollectorRegistry` per
:class:`RuntimeMetrics`, so several apps (or tests) in one process never clash.

==========================================  =========  ==============================
metric                                      type       labels
==========================================  =========  ==============================
``attn_agents``                             gauge
``attn_queue_depth``                        gauge      agent
``attn_items``                              gauge      agent, status (queued,
                                                       processing, deferred)
``attn_item_transitions_total``             counter    agent, to (enqueued, claimed,
                                                       completed, requeued, deferred,
                                                       dropped, merged)
``attn_agent_state``                        gauge      agent, state (1 for the current)
``attn_agent_running``                      gauge      agent (0 stopped, 1 running,
                                                       paused: see attn_agent_paused)
``attn_agent_paused``                       gauge      agent
``attn_time_in_queue_seconds``              histogram  agent (started_at - queued_at)
``attn_processing_seconds``                 histogram  agent, outcome (completed,
                                                       dropped, requeued, deferred, merged)
``attn_decisions_total``                    counter    agent, type (pick, preempt...)
``attn_store_transactions_total``           counter    backend
``attn_store_write_calls_total``            counter    backend
``attn_store_group_commit_batch_size``      summary    backend (count: commits,
                                                       sum: write calls)
``attn_store_group_commit_largest_batch``   gauge      backend
==========================================  =========  ==============================

Counts are since the process started (mailbox counters are per hosting).

Spec: issue 3 (Prometheus metrics); 000 §19 (events).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    Metric,
    SummaryMetricFamily,
)
from prometheus_client.exposition import generate_latest

from attn.core.events import AGENT_REMOVED, DECISION, FOCUS_CHANGED, ITEM_UPDATED, Event
from attn.errors import AttnError
from attn.models import AttentionState, DecisionType, ItemStatus

if TYPE_CHECKING:
    from attn.runtime import Runtime

#: The ``Content-Type`` of the exposition.
CONTENT_TYPE = CONTENT_TYPE_LATEST

#: Buckets of the time an item waits in the queue, in seconds (1 ms .. 4 h).
QUEUE_BUCKETS_S = (0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600, 14400)
#: Buckets of processing time, in seconds (10 ms .. 30 min; the backstop is 10 min).
PROCESSING_BUCKETS_S = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800)
#: Most items remembered between "became the focus" and "left processing".
MAX_TRACKED = 10_000

#: Status an item left processing for -> the ``outcome`` label.
_OUTCOMES = {
    str(ItemStatus.COMPLETED): "completed",
    str(ItemStatus.DROPPED): "dropped",
    str(ItemStatus.QUEUED): "requeued",
    str(ItemStatus.DEFERRED): "deferred",
    str(ItemStatus.MERGED): "merged",
}
_TRANSITIONS = ("enqueued", "claimed", "completed", "requeued", "deferred", "dropped", "merged")


class RuntimeMetrics:
    """The metrics of ``runtime``; :meth:`render` gives the Prometheus text.

    Subscribes to ``runtime.bus`` when made; :meth:`close` unsubscribes.

    Args:
        runtime: the runtime to observe.
    """

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.registry = CollectorRegistry(auto_describe=True)
        self.time_in_queue = Histogram(
            "attn_time_in_queue_seconds",
            "Seconds an item waited queued before it became the focus (started_at - queued_at).",
            ["agent"],
            buckets=QUEUE_BUCKETS_S,
            registry=self.registry,
        )
        self.processing = Histogram(
            "attn_processing_seconds",
            "Seconds an item was processing, by how it left processing.",
            ["agent", "outcome"],
            buckets=PROCESSING_BUCKETS_S,
            registry=self.registry,
        )
        self.decisions = Counter(
            "attn_decisions",
            "Attention decisions, by type.",
            ["agent", "type"],
            registry=self.registry,
        )
        self.registry.register(_RuntimeCollector(runtime))
        #: (agent, item id) -> (attempt, started_at) of items seen becoming the focus.
        self._started: dict[tuple[str, str], tuple[int, datetime]] = {}
        # Labelled children by label values: ``labels()`` takes a lock and builds a
        # tuple on every call; the bus subscriber runs on the agents' hot path.
        self._children: dict[tuple[str, ...], Any] = {}
        self._unsubscribe = runtime.bus.subscribe(self._on_event)

    def close(self) -> None:
        """Stop observing the runtime's events."""
        self._unsubscribe()

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric (``CONTENT_TYPE``)."""
        return generate_latest(self.registry)

    # ------------------------------------------------------------ bus events

    def _on_event(self, event: Event) -> None:
        agent = event.agent_id
        if agent is None:
            return
        kind = event.type
        if kind == DECISION:
            decision_type = event.data.get("decision", {}).get("decisionType")
            if isinstance(decision_type, str):
                self._child("decisions", agent, decision_type).inc()
        elif kind == FOCUS_CHANGED:
            focus = event.data.get("currentFocus")
            if isinstance(focus, dict):
                self._focused(agent, focus)
        elif kind == ITEM_UPDATED:
            item = event.data.get("item")
            if isinstance(item, dict):
                self._updated(agent, item, event.at)
        elif kind == AGENT_REMOVED:
            self._forget(agent)

    def _focused(self, agent: str, focus: dict[str, Any]) -> None:
        key = (agent, str(focus.get("id")))
        attempt = focus.get("attempt")
        attempt = attempt if isinstance(attempt, int) else 0
        seen = self._started.get(key)
        if seen is not None and seen[0] == attempt:
            return  # the same attempt again (focused after a yield point)
        started = _instant(focus.get("startedAt"))
        queued = _instant(focus.get("queuedAt"))
        if started is None:
            return
        if queued is not None:
            seconds = max(0.0, (started - queued).total_seconds())
            self._child("queue", agent).observe(seconds)
        self._started[key] = (attempt, started)
        if len(self._started) > MAX_TRACKED:
            self._started.pop(next(iter(self._started)))

    def _updated(self, agent: str, item: dict[str, Any], at: datetime) -> None:
        outcome = _OUTCOMES.get(str(item.get("status")))
        if outcome is None:
            return
        seen = self._started.pop((agent, str(item.get("id"))), None)
        if seen is not None:
            seconds = max(0.0, (at - seen[1]).total_seconds())
            self._child("processing", agent, outcome).observe(seconds)

    def _child(self, kind: str, *labels: str) -> Any:
        key = (kind, *labels)
        child = self._children.get(key)
        if child is None:
            metric = {"decisions": self.decisions, "queue": self.time_in_queue}.get(
                kind, self.processing
            )
            child = self._children[key] = metric.labels(*labels)
        return child

    def _forget(self, agent: str) -> None:
        """Drop a removed agent's series (they would otherwise be reported forever)."""
        for key in [key for key in self._children if key[1] == agent]:
            del self._children[key]
        for key in [key for key in self._started if key[0] == agent]:
            del self._started[key]
        with contextlib.suppress(KeyError):
            self.time_in_queue.remove(agent)
        for outcome in set(_OUTCOMES.values()):
            with contextlib.suppress(KeyError):
                self.processing.remove(agent, outcome)
        for decision_type in DecisionType:
            with contextlib.suppress(KeyError):
                self.decisions.remove(agent, str(decision_type))


class _RuntimeCollector:
    """Reads gauges and lifetime counters of the runtime at scrape time."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def describe(self) -> list[Metric]:
        return []  # not checked against other collectors' names at registration

    def collect(self) -> Iterator[Metric]:
        agents = self.runtime.agents
        yield GaugeMetricFamily("attn_agents", "Hosted agents.", value=len(agents))
        depth = GaugeMetricFamily("attn_queue_depth", "Queued items.", labels=["agent"])
        items = GaugeMetricFamily(
            "attn_items",
            "Items by live status (queued, processing, deferred).",
            labels=["agent", "status"],
        )
        transitions = CounterMetricFamily(
            "attn_item_transitions",
            "Items that entered each status (enqueued, claimed, completed...) since hosting.",
            labels=["agent", "to"],
        )
        state = GaugeMetricFamily(
            "attn_agent_state",
            "1 for the agent's current attention state.",
            labels=["agent", "state"],
        )
        running = GaugeMetricFamily(
            "attn_agent_running", "1 when the attention loop runs.", labels=["agent"]
        )
        paused = GaugeMetricFamily("attn_agent_paused", "1 when paused.", labels=["agent"])
        for agent in agents:
            name = agent.name
            stats = agent.mailbox.statistics()
            depth.add_metric([name], agent.depth)
            items.add_metric([name, "queued"], agent.depth)
            items.add_metric([name, "processing"], 0 if agent.focus_item is None else 1)
            items.add_metric([name, "deferred"], stats["deferred_count"])
            for transition in _TRANSITIONS:
                transitions.add_metric([name, transition], stats.get(transition, 0))
            for value in AttentionState:
                state.add_metric([name, str(value)], 1 if agent.state == value else 0)
            running.add_metric([name], 1 if agent.running else 0)
            paused.add_metric([name], 1 if agent.paused else 0)
        yield from (depth, items, transitions, state, running, paused)
        yield from _store_metrics(self.runtime)


def _store_metrics(runtime: Runtime) -> Iterator[Metric]:
    try:
        stats = runtime.store.statistics()
    except AttnError:  # closed while shutting down: no store metrics in this scrape
        return iter(())
    backend = stats.backend
    commits = stats.extra.get("batches", stats.transactions)
    commits = commits if isinstance(commits, int) else stats.transactions
    families: list[Metric] = []
    transactions = CounterMetricFamily(
        "attn_store_transactions", "Store transactions since open.", labels=["backend"]
    )
    transactions.add_metric([backend], stats.transactions)
    write_calls = CounterMetricFamily(
        "attn_store_write_calls", "Store write calls since open.", labels=["backend"]
    )
    write_calls.add_metric([backend], stats.write_calls)
    batch = SummaryMetricFamily(
        "attn_store_group_commit_batch_size",
        "Write calls per group commit (count: commits, sum: write calls).",
        labels=["backend"],
    )
    batch.add_metric([backend], count_value=commits, sum_value=stats.write_calls)
    largest = GaugeMetricFamily(
        "attn_store_group_commit_largest_batch",
        "Most write calls in one group commit since open.",
        labels=["backend"],
    )
    largest.add_metric([backend], stats.largest_batch)
    families.extend((transactions, write_calls, batch, largest))
    return iter(families)


def _instant(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


__all__ = ["CONTENT_TYPE", "RuntimeMetrics"]
