"""LLM-22: between two requests of one item only the context block changes; the system
prompt and the first message stay byte-identical (prompt caches stay valid)."""

from __future__ import annotations

from attn import EchoBrain, Runtime
from attn.brains.llm.prompt import Identity, context_block, first_message, system_prompt
from attn.brains.llm.scenarios import Scenario, scenario_for
from attn.testing import FakeClock
from tests.brains.llm.items import focus_item
from tests.brains.llm.prompt_host import PromptHost


async def test_only_the_context_block_changes(runtime: Runtime, clock: FakeClock) -> None:
    agent = await runtime.add_agent(
        "alice", EchoBrain(), description="Ships releases.", start=False
    )
    host = PromptHost(agent, ["releases go out on Tuesdays"])
    item = focus_item(
        "task_status_update",
        "Ship release 1.4",
        triggerExecution=True,
        taskId="tsk_14",
        metadata={"senderId": "scheduler"},
    )
    first_id = await agent.enqueue("a2a_message", {"content": "how is 1.4 going?"})
    agent.working_memory.update("plan", "tag, build, publish")
    identity = Identity.of(host)
    scenario = scenario_for(item)
    assert scenario is Scenario.TASK_EXECUTION

    before = (system_prompt(identity, scenario), first_message(item))
    block_before = await context_block(host, item, clock.now())

    await clock.advance(90)
    second_id = await agent.enqueue("heartbeat", {"content": "check in"})
    agent.working_memory.update("plan", "tag done; build next")
    agent.working_memory.update("blocker", "CI is slow today")
    host.memories.append("publish needs two approvals")

    after = (system_prompt(identity, scenario), first_message(item))
    block_after = await context_block(host, item, clock.now())

    assert after == before  # byte-identical
    assert before[0].encode() == after[0].encode() and before[1].encode() == after[1].encode()
    assert block_after != block_before
    for changing in (first_id, second_id, "tag done", "CI is slow", "two approvals", "00:01:30"):
        assert changing not in before[0] and changing not in before[1]
    for new in (second_id, "tag done; build next", "CI is slow today", "two approvals"):
        assert new in block_after and new not in block_before
    assert "Current time: 2026-01-01T00:01:30Z" in block_after
    assert "- plan (updated just now): tag done; build next" in block_after


async def test_the_same_inputs_give_the_same_bytes(runtime: Runtime, clock: FakeClock) -> None:
    agent = await runtime.add_agent("alice", EchoBrain(), start=False)
    for n in range(5):
        await agent.enqueue("review_request", {"content": f"review {n}"}, priority=n % 3)
    agent.working_memory.update("k", "v")
    await clock.advance(42)
    host = PromptHost(agent, ["m1", "m2"])
    item = focus_item("human_chat", "hello", metadata={"senderName": "Ann"})
    blocks = {await context_block(host, item, clock.now()) for _ in range(3)}
    assert len(blocks) == 1
    assert len({system_prompt(Identity.of(host), Scenario.CHAT) for _ in range(3)}) == 1
    assert len({first_message(item) for _ in range(3)}) == 1
