"""Test parts for the tool loop: a scripted model client, a test agent host and its tools.

The scripted client stands in for a provider where a test needs exact control
of a turn's events (an abort mid-stream, an error on a given try); the
acceptance tests against the real clients use :class:`attn.testing.FakeProvider`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any

from attn import Runtime
from attn.brains.llm import LLMBrain
from attn.brains.providers.base import (
    ModelEvent,
    ModelRequest,
    Stop,
    StopAction,
    TextDelta,
    ToolCall,
    Usage,
)
from attn.core.focus import Focus
from attn.models import MailboxItem
from attn.runtime import Agent
from attn.types import JSON

#: One scripted turn: events to yield (an exception raises there, "hang" waits forever).
Turn = list[ModelEvent | BaseException | str]

ADD_TOOL: JSON = {
    "name": "add",
    "description": "Add two numbers.",
    "parameters": {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    },
}


def text_turn(*texts: str, reason: str = "stop", action: StopAction = StopAction.FINISH) -> Turn:
    return [*(TextDelta(t) for t in texts), Usage(10, 5), Stop(action, reason)]


def tool_turn(
    call_id: str, name: str = "add", arguments: JSON | None = None, text: str = ""
) -> Turn:
    events: Turn = [TextDelta(text)] if text else []
    events += [
        ToolCall(call_id, name, arguments if arguments is not None else {"a": 2, "b": 3}),
        Usage(20, 7),
        Stop(StopAction.TOOLS, "tool_calls"),
    ]
    return events


class ScriptedClient:
    """A :class:`~attn.brains.providers.base.ModelClient` answering from a list of turns."""

    provider = "openai"

    def __init__(self, turns: list[Iterable[Any]]) -> None:
        self.turns = list(turns)
        self.requests: list[ModelRequest] = []
        #: How many streams were closed (ended, aborted or cancelled).
        self.closed = 0
        #: Set while a "hang" turn is waiting.
        self.hanging = asyncio.Event()

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        if not self.turns:
            raise AssertionError(f"no scripted turn left for request {len(self.requests)}")
        turn = self.turns.pop(0)
        try:
            for event in turn:
                if isinstance(event, BaseException):
                    raise event
                if isinstance(event, asyncio.Event):  # a gate the test opens
                    self.hanging.set()
                    await event.wait()
                    continue
                if event == "hang":
                    self.hanging.set()
                    await asyncio.Event().wait()
                    continue
                assert not isinstance(event, str)
                yield event
                await asyncio.sleep(0)
        finally:
            self.closed += 1

    async def aclose(self) -> None:
        pass


class Tools:
    """The tools of the test agent: ``add`` (and anything else answers an error)."""

    def __init__(self, on_call: Callable[[str, Any], Awaitable[None] | None] | None = None) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.on_call = on_call

    def schemas(self) -> list[JSON]:
        return [ADD_TOOL]

    async def call(self, name: object, arguments: object = None) -> JSON:
        self.calls.append((str(name), arguments))
        if self.on_call is not None:
            waiting = self.on_call(str(name), arguments)
            if waiting is not None:
                await waiting
        if name == "add" and isinstance(arguments, dict):
            return {"ok": True, "result": arguments.get("a", 0) + arguments.get("b", 0)}
        return {"ok": False, "error": "unknown_tool", "message": f"no tool {name!r}"}


class Host:
    """A :class:`~attn.brains.llm.host.BrainHost` over a runtime agent, with :class:`Tools`."""

    def __init__(self, agent: Agent, tools: Tools) -> None:
        self.agent = agent
        self.name = agent.name
        self.description = "A test agent."
        self.working_memory = agent.working_memory
        self.tools = tools

    def tools_for(self, focus: Focus) -> Tools:
        return self.tools

    def queued_items(self) -> list[MailboxItem]:
        return self.agent.mailbox.queued_items()

    async def memories_for(self, text: str, limit: int = 5) -> list[str]:
        return []


async def llm_agent(
    runtime: Runtime,
    client: Any,
    *,
    name: str = "calc",
    tools: Tools | None = None,
    **options: Any,
) -> tuple[Agent, LLMBrain, Tools]:
    """An agent whose brain is an LLM brain over ``client``, bound to a test host."""
    from attn import AgentConfig

    options.setdefault("provider", client.provider)
    options.setdefault("model", "test-model")
    brain = LLMBrain.with_client(client, **options)
    agent = await runtime.add_agent(name, brain, AgentConfig(coalesce_window_ms=0))
    tools = tools if tools is not None else Tools()
    brain.bind_agent(Host(agent, tools))
    return agent, brain, tools


#: The environment variable the fake-provider brains read their key from.
KEY_ENV = "ATTN_TEST_FAKE_KEY"


def fake_options(fp: Any, protocol: str, **options: Any) -> dict[str, Any]:
    """``brain = "llm"`` options pointing at the fake provider ``fp`` over ``protocol``."""
    base_url = fp.openai_base_url if protocol == "openai" else fp.anthropic_base_url
    return {
        "provider": protocol,
        "model": "test-model",
        "base_url": base_url,
        "api_key_env": KEY_ENV,
        **options,
    }


async def fake_agent(
    runtime: Runtime,
    fp: Any,
    protocol: str,
    *,
    name: str = "calc",
    tools: Tools | None = None,
    classifier: Any = None,
    backstop_s: float = 600.0,
    **options: Any,
) -> tuple[Agent, LLMBrain, Tools]:
    """An agent with ``brain = "llm"`` built from options, talking to the fake provider."""
    from attn import AgentConfig
    from attn.brains import build_brain

    brain = build_brain("llm", fake_options(fp, protocol, **options))
    assert isinstance(brain, LLMBrain)
    config = AgentConfig(coalesce_window_ms=0, backstop_s=backstop_s)
    agent = await runtime.add_agent(name, brain, config, classifier=classifier)
    tools = tools if tools is not None else Tools()
    brain.bind_agent(Host(agent, tools))
    return agent, brain, tools


def send_soon(agent: Agent, text: str, **options: Any) -> tuple[asyncio.Task[Any], Awaitable[None]]:
    """Send ``text`` to ``agent`` in a task; also an awaitable done once it is enqueued."""
    enqueued = asyncio.Event()
    task = asyncio.ensure_future(
        agent.send_message(text, on_enqueued=lambda _id: enqueued.set(), timeout_s=30, **options)
    )
    return task, enqueued.wait()
