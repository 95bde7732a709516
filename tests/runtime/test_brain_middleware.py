"""Agent.wrap_brain: the brain middleware hook (issue 11; the timekeeper uses it)."""

from __future__ import annotations

import pytest

from attn import Focus, MailboxItem, Runtime
from attn.channels import AnswerBrain
from attn.core.focus import Brain, Reply
from attn.errors import InvalidInput
from attn.testing import MemoryStore
from attn.time.brain import TimeBrain


async def _brain(item: MailboxItem, focus: Focus) -> str:
    return f"own: {item.payload['content']}"


async def test_middleware_wraps_the_brain_the_loop_calls() -> None:
    seen: list[str] = []

    def tagging(inner: Brain) -> Brain:
        async def brain(item: MailboxItem, focus: Focus) -> Reply | str | None:
            seen.append(item.id)
            return await inner(item, focus)

        return brain

    async with Runtime(MemoryStore()) as runtime:
        agent = await runtime.add_agent("a", _brain)
        agent.wrap_brain(tagging)
        reply = await agent.send_message("hi", timeout_s=10)
        assert reply.text == "own: hi"
        assert len(seen) == 1
        # The agent's own brain stays what it was given; the timekeeper wrapped it first.
        assert agent.brain is _brain


async def test_the_timekeeper_wraps_through_the_hook() -> None:
    async with Runtime(MemoryStore()) as runtime:
        agent = await runtime.add_agent("a", _brain)
        # The runtime's two middlewares, both through the hook: channels' answers
        # around the timekeeper's, around the agent's own brain.
        outer = agent.controller.brain
        assert isinstance(outer, AnswerBrain)
        assert isinstance(outer.inner, TimeBrain)
        assert outer.inner.inner is _brain


async def test_bad_middleware_is_refused_and_changes_nothing() -> None:
    async with Runtime(MemoryStore()) as runtime:
        agent = await runtime.add_agent("a", _brain, start=False)
        before = agent.controller.brain
        with pytest.raises(InvalidInput, match="middleware must be callable"):
            agent.wrap_brain(42)  # type: ignore[arg-type]
        with pytest.raises(InvalidInput, match="must return a brain"):
            agent.wrap_brain(lambda brain: None)  # type: ignore[arg-type,return-value]
        assert agent.controller.brain is before
