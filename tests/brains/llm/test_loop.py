"""The tool loop against the fake provider over both protocols (LLM-01, 02, 03, 06, 21).

Real parts: the official SDK clients made by the brain from its options,
real loopback HTTP to :class:`attn.testing.FakeProvider`, which validates
every request as the real API does; the runtime on the in-memory store and a
fake clock.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from attn import Runtime
from attn.core.events import Event
from attn.models import COMPLETION_MARKER
from attn.testing import FakeProvider, FakeToolCall, Turn
from tests.brains.llm.loop_kit import KEY_ENV, fake_agent

PROTOCOLS = ["openai", "anthropic"]


@pytest.fixture(params=PROTOCOLS)
def protocol(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, "sk-test-fake-key")
    return str(request.param)


@pytest.fixture
async def fp() -> AsyncIterator[FakeProvider]:
    async with FakeProvider() as provider:
        yield provider


async def _logs(runtime: Runtime, agent_id: str, item_id: str) -> tuple[Any, list[Any]]:
    [activity] = await runtime.store.find_activities(agent_id, [item_id])
    return activity, await runtime.store.find_activity_logs(activity.id)


async def test_llm_01_chat_with_one_tool_call(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    fp.script(
        Turn(tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})], usage=(30, 8)),
        Turn(text="2+3 is 5.", usage=(50, 6)),
    )
    agent, _brain, tools = await fake_agent(runtime, fp, protocol)
    deltas: list[str] = []
    reply = await agent.send_message("what is 2+3?", on_delta=deltas.append, timeout_s=30)
    assert reply.text == "2+3 is 5."
    assert "".join(deltas) == "2+3 is 5."
    assert len(deltas) > 1  # streamed, not sent whole
    assert tools.calls == [("add", {"a": 2, "b": 3})]
    requests = fp.requests
    assert [r.accepted for r in requests] == [True, True]
    # The second request carries the tool's result for the call of the first answer.
    assert '"result":5' in requests[1].raw.decode().replace(" ", "").replace("\\", "")
    activity, logs = await _logs(runtime, "calc", reply.item_id)
    kinds = [str(log.type) for log in logs]
    assert kinds.count("llm_request") == 2
    assert kinds.count("tool_start") == 1 and kinds.count("tool_end") == 1
    assert kinds.index("tool_start") < kinds.index("tool_end")
    assert (activity.total_tokens, activity.total_tools) == (30 + 8 + 50 + 6, 1)
    assert activity.success is True


async def test_llm_21_streamed_deltas_never_show_the_marker(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    # An agent message is not chat: its scenario asks for the marker, which arrives
    # split across deltas (chunks=7 cuts the text in 7 pieces).
    text = f"All done here. {COMPLETION_MARKER}"
    fp.script(Turn(text=text, chunks=7))
    agent, _brain, _tools = await fake_agent(runtime, fp, protocol)
    seen: list[Event] = []
    runtime.bus.subscribe(seen.append)
    deltas: list[str] = []
    reply = await agent.send_message(
        "report please",
        source_type="a2a_message",
        sender_id="boss",
        on_delta=deltas.append,
        timeout_s=30,
    )
    assert COMPLETION_MARKER not in reply.text and "<<" not in "".join(deltas)
    assert "".join(deltas).strip() == reply.text.strip() == "All done here."
    assert [e for e in seen if e.type == "agent:incomplete"] == []
