"""LLM-05: a tool call left without a result never makes the next request invalid.

The conversation is checkpointed into the item row after every model turn and
every tool result. When work stops between a tool call and its result (the
agent stopped, or the process killed), the next attempt repairs the history:
the orphaned call gets the deterministic interrupted result, and both fake
providers, whose validators refuse an unpaired tool call with the real 400,
accept the next request. A SIGKILL at any point of a turn (before the request,
mid-stream, while the tool runs, after its result) loses at most the turn in
flight, and answered turns are never asked again.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest

from attn import AgentConfig, Runtime
from attn.brains import build_brain
from attn.brains.llm import LLMBrain
from attn.brains.llm.conversation import INTERRUPTED_RESULT
from attn.models import COMPLETION_MARKER
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeProvider, FakeToolCall, Turn, eventually
from tests.brains.llm.loop_kit import KEY_ENV, Host, Tools, fake_agent, fake_options

ROOT = Path(__file__).resolve().parents[3]
TASK = "add 2 and 3, then report"


def _interrupted_in(raw: bytes) -> bool:
    """True when the request carries the deterministic interrupted result."""
    phrase = json.loads(INTERRUPTED_RESULT)["message"]
    return bool(phrase in raw.decode())


async def test_llm_05_a_stop_while_a_tool_runs_resumes_with_the_interrupted_result(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    fp.script(
        Turn(text="Adding.", tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})]),
        Turn(text=f"The tool was interrupted; I will not retry it. {COMPLETION_MARKER}"),
    )
    running = asyncio.Event()

    def on_call(name: str, arguments: Any) -> Awaitable[None]:
        running.set()
        return asyncio.Event().wait()  # the tool never ends by itself

    agent, _brain, tools = await fake_agent(runtime, fp, protocol, tools=Tools(on_call))
    item_id = await agent.enqueue("a2a_message", {"content": TASK}, metadata={"senderId": "boss"})
    await running.wait()
    await agent.stop()  # between the tool call and its end: the work is requeued with its session
    stored = await runtime.store.get_item(item_id)
    assert stored is not None and str(stored.status) == "queued"
    assert stored.session is not None and "toolCalls" in json.dumps(stored.session)
    tools.on_call = None
    agent.start()
    await eventually(lambda: len(fp.requests) == 2, what="the resumed request")
    second = fp.requests[1]
    assert second.accepted, second.rejection
    assert _interrupted_in(second.raw)
    done = await eventually(
        lambda: _completed(runtime, item_id), what="the resumed task to complete"
    )
    assert done
    assert len(tools.calls) == 1  # the interrupted call is not run again


async def _completed(runtime: Runtime, item_id: str) -> bool:
    item = await runtime.store.get_item(item_id)
    return item is not None and str(item.status) == "completed"


CHILD = r"""
import asyncio, sys
from attn import AgentConfig, Runtime
from attn.brains import build_brain
from attn.store.sqlite import SQLiteStore
from tests.brains.llm.loop_kit import Host, Tools, fake_options

class FP:  # where the fake provider listens
    def __init__(self, base):
        self.openai_base_url = base + "/v1"
        self.anthropic_base_url = base

class Pausing:
    # The real client, except that it announces request n and waits forever before it.
    def __init__(self, inner, hold):
        self.inner, self.hold, self.count = inner, hold, 0
        self.provider = inner.provider
    async def stream(self, request):
        self.count += 1
        if self.count == self.hold:
            print("request", self.count, flush=True)
            await asyncio.Event().wait()
        async for event in self.inner.stream(request):
            yield event
    async def aclose(self):
        await self.inner.aclose()

async def main(path, base, protocol, point):
    def on_call(name, arguments):
        print("tool", flush=True)
        if point == "tool_running":
            return asyncio.Event().wait()
        return None

    brain = build_brain("llm", fake_options(FP(base), protocol))
    if point == "before_request":
        brain._client = Pausing(brain.client, 2)
    async with Runtime(SQLiteStore(path)) as rt:
        agent = await rt.add_agent("calc", brain, AgentConfig(), start=False)
        brain.bind_agent(Host(agent, Tools(on_call)))
        await agent.enqueue("a2a_message", {"content": sys.argv[5]}, metadata={"senderId": "boss"})
        agent.start()
        print("ready", flush=True)
        await asyncio.Event().wait()

asyncio.run(main(*sys.argv[1:5]))
"""

#: point -> the child's script, the restarted runtime's script.
POINTS: dict[str, tuple[list[Turn], list[Turn]]] = {
    # The first model turn streams and hangs: nothing of it was stored.
    "mid_stream": (
        [Turn(text="Let me", tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})], hang_after=1)],
        [
            Turn(tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})]),
            Turn(text=f"2+3 is 5. {COMPLETION_MARKER}"),
        ],
    ),
    # The model asked for the tool, which is still running: no result yet.
    "tool_running": (
        [Turn(tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})])],
        [Turn(text=f"The addition was interrupted. {COMPLETION_MARKER}")],
    ),
    # The tool's result is stored; the next request was about to go out.
    "before_request": (
        [Turn(tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})])],
        [Turn(text=f"2+3 is 5. {COMPLETION_MARKER}")],
    ),
    # The tool's result is stored; the next turn streams and hangs.
    "after_result": (
        [
            Turn(tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})]),
            Turn(text="2+3 is", hang_after=1),
        ],
        [Turn(text=f"2+3 is 5. {COMPLETION_MARKER}")],
    ),
}


async def _run_child_and_kill(fp: FakeProvider, path: Path, protocol: str, point: str) -> None:
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        str(path),
        fp.base_url,
        protocol,
        point,
        TASK,
        stdout=asyncio.subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, KEY_ENV: "sk-test-fake-key"},
    )
    assert child.stdout is not None
    try:
        assert (await asyncio.wait_for(child.stdout.readline(), 30)).strip() == b"ready"
        if point in ("mid_stream", "after_result"):
            await fp.wait_streaming(timeout_s=30)
        elif point == "tool_running":
            assert (await asyncio.wait_for(child.stdout.readline(), 30)).strip() == b"tool"
        else:
            assert (await asyncio.wait_for(child.stdout.readline(), 30)).strip() == b"tool"
            line = await asyncio.wait_for(child.stdout.readline(), 30)
            assert line.strip() == b"request 2"
    finally:
        child.kill()  # SIGKILL: no cleanup of any kind
        await child.wait()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("point", list(POINTS))
async def test_llm_05_sigkill_at_any_point_of_a_turn_then_restart(
    tmp_path: Path, fp: FakeProvider, protocol: str, point: str
) -> None:
    before, after = POINTS[point]
    fp.script(*before)
    path = tmp_path / "llm.db"
    await _run_child_and_kill(fp, path, protocol, point)
    killed_requests = len(fp.requests)
    fp.script(*after)
    brain = build_brain("llm", fake_options(fp, protocol))
    assert isinstance(brain, LLMBrain)
    tools = Tools()
    async with Runtime(SQLiteStore(path)) as rt:
        agent = await rt.add_agent("calc", brain, AgentConfig(), start=False)
        brain.bind_agent(Host(agent, tools))
        agent.start()
        await eventually(lambda: len(fp.requests) == killed_requests + len(after), timeout_s=30)
        [item] = [i for i in await _items(rt) if i.content == TASK]
        await eventually(lambda: _completed(rt, item.id), timeout_s=30, what="the task")
        final = await rt.store.get_item(item.id)
    assert final is not None and (final.attempt, final.redelivered) == (2, True)
    resumed = fp.requests[killed_requests:]
    assert all(r.accepted for r in fp.requests), [r.rejection for r in fp.requests]
    assert fp.remaining == 0
    first = resumed[0].raw
    if point == "mid_stream":  # the turn in flight is lost, and only that
        assert b"toolu_" not in first and b"call_" not in first
        assert tools.calls == [("add", {"a": 2, "b": 3})]
    elif point == "tool_running":
        assert _interrupted_in(first)
        assert tools.calls == []  # not run again: its effect is unknown
    else:  # the stored result is sent; the tool is not run again
        assert not _interrupted_in(first)
        assert '"result":5' in first.decode().replace(" ", "").replace("\\", "")
        assert tools.calls == []


async def _items(rt: Runtime) -> list[Any]:
    from attn.store.base import ItemQuery

    return await rt.store.find_items(ItemQuery("calc", limit=100))
