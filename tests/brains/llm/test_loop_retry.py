"""LLM-11, LLM-12: failed model turns are retried as whole turns, boundedly.

A 429 with ``retry-after``, a 529 / overloaded and a 5xx are tried again
after the policy's wait (on the runtime's clock), at most 4 tries and never
past the backstop, each retry one activity log entry; a 400 is not retried;
once the tries run out the attempt fails and the item follows attn's retry
policy (CORE-41). A cut stream or truncated tool JSON is a failed turn, never
a tool run.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from attn import Runtime
from attn.core.events import Event
from attn.errors import ReplyCancelled
from attn.models import COMPLETION_MARKER, ItemStatus
from attn.testing import FakeClock, FakeProvider, FakeToolCall, Fault, Turn
from tests.brains.llm.loop_kit import fake_agent


async def _drive(clock: FakeClock, work: asyncio.Future[Any], step_s: float = 1.0) -> Any:
    """Move the fake clock on (retry waits run on it) until ``work`` is done;
    the model's answers come over real HTTP meanwhile."""
    for _ in range(10_000):
        if work.done():
            return work.result()
        await clock.advance(step_s)
        await asyncio.wait({work}, timeout=0.005)
    raise AssertionError("the work did not finish")


async def _retry_logs(runtime: Runtime, item_id: str) -> list[Any]:
    activities = await runtime.store.find_activities("calc", [item_id])
    logs = [log for a in activities for log in await runtime.store.find_activity_logs(a.id)]
    return [log for log in logs if str(log.type) == "error" and "try " in log.content]


def _task(agent: Any, text: str = "do the work") -> asyncio.Future[Any]:
    return asyncio.ensure_future(
        agent.send_message(text, source_type="a2a_message", sender_id="boss")
    )


async def test_llm_11_429_529_and_5xx_are_retried_with_one_log_entry_each(
    runtime: Runtime, clock: FakeClock, fp: FakeProvider, protocol: str
) -> None:
    fp.script(
        Fault.status(429, retry_after=7),
        Fault.overloaded(),
        Fault.status(503),
        Turn(text=f"Done at last. {COMPLETION_MARKER}"),
    )
    agent, _brain, _tools = await fake_agent(runtime, fp, protocol)
    started = clock.monotonic()
    reply = await _drive(clock, _task(agent))
    assert reply.text.startswith("Done at last.")
    assert len(fp.requests) == 4
    logs = await _retry_logs(runtime, reply.item_id)
    assert [log.metadata["tries"] for log in logs] == [1, 2, 3]
    assert logs[0].metadata["delay_s"] == 7  # the provider's retry-after is honoured
    assert [log.metadata["status"] for log in logs] == [
        429,
        529 if protocol == "anthropic" else 503,
        503,
    ]
    assert clock.monotonic() - started >= 7
    item = await runtime.store.get_item(reply.item_id)
    assert item is not None and (str(item.status), item.attempt) == ("completed", 1)


async def test_llm_11_at_most_4_tries_then_attns_retry_policy(
    runtime: Runtime, clock: FakeClock, fp: FakeProvider, protocol: str
) -> None:
    fp.script(*[Fault.status(500) for _ in range(12)])  # 3 attempts of 4 tries
    seen: list[Event] = []
    runtime.bus.subscribe(seen.append)
    agent, _brain, _tools = await fake_agent(runtime, fp, protocol)
    work = _task(agent)
    with pytest.raises(Exception, match="dropped"):
        await _drive(clock, work)
    assert len(fp.requests) == 12 and fp.remaining == 0
    incomplete = [e for e in seen if e.type == "agent:incomplete"]
    assert len(incomplete) == 1 and "3 attempts" in incomplete[0].data["reason"]
    stored = await runtime.store.get_item(incomplete[0].data["mailboxItemId"])
    assert stored is not None and (str(stored.status), stored.attempt) == ("dropped", 3)
    assert len(await _retry_logs(runtime, stored.id)) == 9  # 3 retries in each attempt


@pytest.mark.parametrize("status", [400, 401, 403, 404])
async def test_llm_11_a_refusal_is_not_retried(
    runtime: Runtime, clock: FakeClock, fp: FakeProvider, protocol: str, status: int
) -> None:
    """Neither a turn nor an attempt: another try would be refused the same way."""
    fp.script(Fault.status(status), Turn(text=f"never asked. {COMPLETION_MARKER}"))
    agent, _brain, _tools = await fake_agent(runtime, fp, protocol)
    ids: list[str] = []
    work = asyncio.ensure_future(
        agent.send_message(
            "do the work", source_type="a2a_message", sender_id="boss", on_enqueued=ids.append
        )
    )
    with pytest.raises(ReplyCancelled, match="not retried"):
        await _drive(clock, work)
    assert len(fp.requests) == 1
    assert await _retry_logs(runtime, ids[0]) == []
    item = await runtime.store.get_item(ids[0])
    assert item is not None and item.attempt == 1 and item.status == ItemStatus.DROPPED


async def test_llm_11_no_wait_past_the_backstop(
    runtime: Runtime, clock: FakeClock, fp: FakeProvider, protocol: str
) -> None:
    fp.script(Fault.status(429, retry_after=120), Turn(text=f"Later. {COMPLETION_MARKER}"))
    agent, _brain, _tools = await fake_agent(runtime, fp, protocol, backstop_s=60.0)
    reply = await _drive(clock, _task(agent))
    assert reply.text.startswith("Later.")
    assert await _retry_logs(runtime, reply.item_id) == []  # gave up at once: 120 s > 60 s
    item = await runtime.store.get_item(reply.item_id)
    assert item is not None and item.attempt == 2


async def test_llm_12_a_cut_stream_is_a_failed_turn_retried_as_a_turn(
    runtime: Runtime, clock: FakeClock, fp: FakeProvider, protocol: str
) -> None:
    fp.script(
        Fault.cut_stream(
            after_events=3,
            turn=Turn(text="Half an", tool_calls=[FakeToolCall("add", {"a": 1, "b": 2})]),
        ),
        Turn(tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})]),
        Turn(text=f"5. {COMPLETION_MARKER}"),
    )
    agent, _brain, tools = await fake_agent(runtime, fp, protocol)
    reply = await _drive(clock, _task(agent))
    assert reply.text.startswith("5.")
    assert tools.calls == [("add", {"a": 2, "b": 3})]
    [log] = await _retry_logs(runtime, reply.item_id)
    assert "ModelStreamError" in log.content
    # The retried turn is the same request again, byte for byte.
    assert fp.requests[0].body == fp.requests[1].body


async def test_llm_12_truncated_tool_json_never_runs_the_tool(
    runtime: Runtime, clock: FakeClock, fp: FakeProvider, protocol: str
) -> None:
    fp.script(
        Fault.truncated_tool_json(name="add", arguments={"a": 1, "b": 2}),
        Turn(tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})]),
        Turn(text=f"5. {COMPLETION_MARKER}"),
    )
    agent, _brain, tools = await fake_agent(runtime, fp, protocol)
    reply = await _drive(clock, _task(agent))
    assert reply.text.startswith("5.")
    assert tools.calls == [("add", {"a": 2, "b": 3})]
    assert len(await _retry_logs(runtime, reply.item_id)) == 1


async def test_a_missing_key_fails_the_item_once_naming_the_variable(
    runtime: Runtime, clock: FakeClock, fp: FakeProvider
) -> None:
    """Anthropic needs its key (an OpenAI-compatible base_url may go without one)."""
    agent, _brain, _tools = await fake_agent(
        runtime, fp, "anthropic", api_key_env="NO_SUCH_KEY_VAR"
    )
    work = _task(agent)
    with pytest.raises(ReplyCancelled, match="NO_SUCH_KEY_VAR") as info:
        await _drive(clock, work)
    assert "not retried" in str(info.value)
    assert fp.requests == []  # nothing was sent, and nothing was tried again
