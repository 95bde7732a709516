"""RuntimeMetrics on the fake clock: exact time in queue and processing time."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from attn.brains import EchoBrain
from attn.config import AgentConfig
from attn.runtime import Runtime
from attn.server.metrics import RuntimeMetrics
from attn.testing import FakeClock, settle


def _samples(metrics: RuntimeMetrics) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    text = metrics.render().decode()
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def _get(
    samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str
) -> float:
    return samples[(name, frozenset(labels.items()))]


async def test_time_in_queue_and_processing_time_are_measured_on_the_runtime_clock() -> None:
    clock = FakeClock()
    async with Runtime(clock=clock) as runtime:
        metrics = RuntimeMetrics(runtime)
        agent = await runtime.add_agent(
            "ada", EchoBrain(steps=2, step_s=1.5), AgentConfig(coalesce_window_ms=0), start=False
        )
        await agent.enqueue("a2a_message", {"content": "first"})
        await clock.advance(5.0)  # queued 5 s while the agent is stopped
        agent.start()
        await settle()
        await clock.advance(3.0)  # two steps of 1.5 s
        await runtime.run_until_idle()
        samples = _samples(metrics)
        assert _get(samples, "attn_time_in_queue_seconds_count", agent="ada") == 1
        assert _get(samples, "attn_time_in_queue_seconds_sum", agent="ada") == 5.0
        assert _get(samples, "attn_processing_seconds_sum", agent="ada", outcome="completed") == 3.0
        assert _get(samples, "attn_decisions_total", agent="ada", type="pick") == 1
        metrics.close()


async def test_stopping_midway_is_counted_as_requeued_and_the_retry_again() -> None:
    clock = FakeClock()
    async with Runtime(clock=clock) as runtime:
        metrics = RuntimeMetrics(runtime)
        agent = await runtime.add_agent(
            "ada", EchoBrain(steps=3, step_s=1.0), AgentConfig(coalesce_window_ms=0)
        )
        await agent.enqueue("a2a_message", {"content": "long"})
        await settle()
        await clock.advance(1.0)
        await agent.stop()  # the item goes back to the queue
        samples = _samples(metrics)
        assert _get(samples, "attn_processing_seconds_count", agent="ada", outcome="requeued") == 1
        assert _get(samples, "attn_processing_seconds_sum", agent="ada", outcome="requeued") == 1.0
        agent.start()
        await settle()
        await clock.advance(3.0)
        await runtime.run_until_idle()
        samples = _samples(metrics)
        # The second attempt is a second focus: counted again, queued since the start.
        assert _get(samples, "attn_time_in_queue_seconds_count", agent="ada") == 2
        assert _get(samples, "attn_processing_seconds_count", agent="ada", outcome="completed") == 1
        metrics.close()


async def test_closed_metrics_stop_observing() -> None:
    async with Runtime() as runtime:
        metrics = RuntimeMetrics(runtime)
        metrics.close()
        agent = await runtime.add_agent("ada", EchoBrain())
        await agent.send_message("hi")
        samples = _samples(metrics)
        assert (
            "attn_decisions_total",
            frozenset({("agent", "ada"), ("type", "pick")}),
        ) not in samples
        assert _get(samples, "attn_item_transitions_total", agent="ada", to="completed") == 1
