"""LLM-20: the prompt holds the identity, the scenario's instructions, the whole queue
and the working memory with each entry's age (000 §3.5, §4 rule 4, §21)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attn import EchoBrain, Runtime
from attn.brains.llm.prompt import Identity, context_block, first_message, system_prompt
from attn.brains.llm.scenarios import (
    SCENARIO_BY_TYPE,
    TITLES,
    Scenario,
    instructions,
    scenario_for,
)
from attn.brains.llm.settings import LLMSettings
from attn.core.registry import BUILTIN_TYPES
from attn.testing import FakeClock
from tests.brains.llm.items import focus_item
from tests.brains.llm.prompt_host import PromptHost

#: The scenario of every built-in source type (an execution trigger aside).
EXPECTED = {
    "system_event": Scenario.OTHER,
    "human_chat": Scenario.CHAT,
    "task_comment": Scenario.COMMENT_RESPONSE,
    "mention": Scenario.COMMENT_RESPONSE,
    "session_reply": Scenario.OTHER,
    "task_status_update": Scenario.OTHER,
    "a2a_message": Scenario.AGENT_MESSAGE,
    "review_request": Scenario.OTHER,
    "requirement_comment": Scenario.COMMENT_RESPONSE,
    "requirement_update": Scenario.OTHER,
    "daily_report": Scenario.OTHER,
    "heartbeat": Scenario.HEARTBEAT,
    "memory_consolidation": Scenario.OTHER,
    "callback_result": Scenario.CALLBACK_RESULT,
    "agent_mail": Scenario.TREE_MAIL,
    "agent_result": Scenario.TREE_MAIL,
    "agent_execution": Scenario.TREE_MAIL,
    "worker_contact": Scenario.WORKER,
    "worker_message": Scenario.WORKER,
}


def test_every_builtin_type_has_its_scenario() -> None:
    assert set(EXPECTED) == {t.name for t in BUILTIN_TYPES}
    for name, scenario in EXPECTED.items():
        assert scenario_for(focus_item(name, "x")) is scenario, name
    assert set(SCENARIO_BY_TYPE) <= set(EXPECTED)


@pytest.mark.parametrize("where", ["top", "extra"])
def test_an_execution_trigger_is_a_task_execution(where: str) -> None:
    flag = {"triggerExecution": True}
    payload = flag if where == "top" else {"extra": flag}
    item = focus_item("task_status_update", "run tsk_1", **payload)
    assert scenario_for(item) is Scenario.TASK_EXECUTION


def test_a_user_type_is_other_and_no_type_is_deliberation() -> None:
    assert scenario_for(focus_item("my_own_type", "x")) is Scenario.OTHER
    assert Scenario.DELIBERATION not in {scenario_for(focus_item(n, "x")) for n in EXPECTED}


def test_the_system_prompt_holds_the_identity_and_the_scenario(tmp_path: Path) -> None:
    prompt_file = tmp_path / "alice.md"
    prompt_file.write_text("Always answer in French.\n", encoding="utf-8")
    settings = LLMSettings(provider="openai", model="m", system_prompt_file=str(prompt_file))
    identity = Identity("alice", "Writes the release notes.", settings.system_prompt_text)
    for scenario in Scenario:
        text = system_prompt(identity, scenario)
        assert text.startswith("You are alice. Writes the release notes.\n\n")
        assert "Always answer in French." in text
        assert f"## Scenario: {TITLES[scenario]}\n\n{instructions(scenario)}" in text
    assert "French" not in system_prompt(Identity("alice"), Scenario.CHAT)


def test_each_scenario_has_its_own_instructions() -> None:
    texts = {scenario: instructions(scenario) for scenario in Scenario}
    assert len(set(texts.values())) == len(Scenario)
    comment = texts[Scenario.COMMENT_RESPONSE]
    steps = re.findall(r"^(\d)\. (.+)$", comment, re.MULTILINE)
    assert [n for n, _ in steps] == ["1", "2", "3", "4"]
    assert "Fetch the full item" in steps[0][1]
    assert "every earlier comment" in steps[1][1]
    assert "wants" in steps[2][1]
    assert "related context" in steps[3][1]
    assert "---" in comment and "single reply" in comment
    assert "complete_deliberation" in texts[Scenario.DELIBERATION]
    assert "heartbeat" in texts[Scenario.HEARTBEAT]
    assert "waiting for your answer" in texts[Scenario.CHAT]
    assert "executing a task" in texts[Scenario.TASK_EXECUTION]
    assert "Another agent" in texts[Scenario.AGENT_MESSAGE]
    assert "reported back" in texts[Scenario.CALLBACK_RESULT]


def test_instructions_refuse_what_is_not_a_scenario() -> None:
    with pytest.raises(ValueError):
        instructions("poetry")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        system_prompt(Identity("alice"), "poetry")  # type: ignore[arg-type]


async def test_the_context_block_lists_the_whole_queue(runtime: Runtime, clock: FakeClock) -> None:
    agent = await runtime.add_agent("alice", EchoBrain(), start=False)
    ids = []
    for n in range(60):
        ids.append(
            await agent.enqueue(
                "a2a_message" if n % 2 else "review_request",
                {"content": f"request number {n}", "channelKey": f"dm:{n}"},
                priority=n % 5,
            )
        )
        await clock.advance(60)
    host = PromptHost(agent)
    block = await context_block(host, focus_item("human_chat", "hi"), clock.now())
    lines = [line for line in block.splitlines() if re.match(r"\d+\. mbx_", line)]
    assert len(lines) == 60
    assert "60 items waiting" in block
    order = [item.id for item in agent.mailbox.queued_items()]
    assert [line.split()[1] for line in lines] == order
    assert sorted(order) == sorted(ids)
    by_id = {line.split()[1]: line for line in lines}
    first, last = by_id[ids[0]], by_id[ids[59]]
    assert "[review_request, P0, queued 1 h ago] request number 0" in first
    assert "[a2a_message, P4, queued 1 min ago] request number 59" in last


async def test_an_empty_queue_says_so(runtime: Runtime, clock: FakeClock) -> None:
    agent = await runtime.add_agent("alice", EchoBrain(), start=False)
    block = await context_block(PromptHost(agent), focus_item("heartbeat"), clock.now())
    assert "## Mailbox Queue\n\nNo other items are waiting." in block
    assert "## Working Memory\n\n(empty)" in block


async def test_a_long_summary_is_one_bounded_line(runtime: Runtime, clock: FakeClock) -> None:
    agent = await runtime.add_agent("alice", EchoBrain(), start=False)
    await agent.enqueue("a2a_message", {"content": "x", "summary": "line one\nline two " * 50})
    block = await context_block(PromptHost(agent), focus_item("heartbeat"), clock.now())
    (line,) = [line for line in block.splitlines() if line.startswith("1. mbx_")]
    summary = line.split("] ", 1)[1]
    assert summary.startswith("line one line two line one") and summary.endswith("…")
    assert len(summary) == 200


async def test_working_memory_shows_each_entry_with_its_age(
    runtime: Runtime, clock: FakeClock
) -> None:
    agent = await runtime.add_agent("alice", EchoBrain(), start=False)
    agent.working_memory.update("deliberation", "the release is blocked on review")
    await clock.advance(3 * 3600)
    agent.working_memory.update("task-priorities", "finish tsk_9 first\nthen docs")
    await clock.advance(5 * 60)
    block = await context_block(PromptHost(agent), focus_item("heartbeat"), clock.now())
    assert (
        "## Working Memory\n\n"
        "- deliberation (updated 3 h ago): the release is blocked on review\n"
        "- task-priorities (updated 5 min ago): finish tsk_9 first\n  then docs"
    ) in block


async def test_long_term_memories_matching_the_item(runtime: Runtime, clock: FakeClock) -> None:
    agent = await runtime.add_agent("alice", EchoBrain(), start=False)
    host = PromptHost(agent, ["Bob prefers short answers", "  ", "deploys are on Fridays\nonly"])
    item = focus_item("human_chat", "when do we deploy?")
    block = await context_block(host, item, clock.now())
    assert host.queries == [("when do we deploy?", 5)]
    assert block.endswith(
        "## Long-term Memory\n\nMatching this item, best first:\n"
        "- Bob prefers short answers\n- deploys are on Fridays\n  only"
    )
    assert block.startswith(
        "# Context (refreshed every turn)\n\nCurrent time: 2026-01-01T00:00:00Z"
    )
    host.memories = []
    assert (await context_block(host, item, clock.now())).endswith(
        "## Long-term Memory\n\n(nothing matches this item)"
    )


def test_the_first_message_holds_the_item_and_who_sent_it() -> None:
    item = focus_item(
        "task_comment",
        "Can you check the numbers?\n\n---\n\nAlso the chart.",
        metadata={"senderName": "Bob", "senderRole": "user", "senderId": "u_bob"},
        taskId="tsk_42",
        summary="Comment on tsk_42 (+1)",
    )
    text = first_message(item)
    assert text.startswith(
        "Mailbox item mbx_focus (task_comment, priority P1)\nFrom: Bob (user, u_bob)"
    )
    assert "About: task tsk_42" in text
    assert "MANDATORY: follow the context-first protocol" in text
    assert "Summary: Comment on tsk_42 (+1)" in text
    assert text.endswith("Can you check the numbers?\n\n---\n\nAlso the chart.")
    assert "Note: an earlier attempt" not in text
    item.redelivered = True
    assert "Note: an earlier attempt at this item was interrupted" in first_message(item)


def test_the_first_message_of_a_batch_holds_every_item_and_the_plan() -> None:
    head = focus_item("a2a_message", "status?", channelKey="dm:bob", metadata={"senderId": "bob"})
    others = [
        focus_item("a2a_message", "ping", item_id="mbx_b", channelKey="dm:carol"),
        focus_item("review_request", "review tsk_7", item_id="mbx_c", taskId="tsk_7"),
    ]
    text = first_message(head, others, "Answer both agents in one go.")
    assert "handled together with 2 more (a batch)" in text
    assert "Your plan for the batch, from deliberation:\nAnswer both agents in one go." in text
    assert "=== Batch item 2 of 3 ===\nMailbox item mbx_b (a2a_message" in text
    assert "=== Batch item 3 of 3 ===\nMailbox item mbx_c (review_request" in text
    assert text.index("status?") < text.index("ping") < text.index("review tsk_7")
    assert "From: bob\nAbout: channel dm:bob" in text
    assert first_message(head) == first_message(head, (), "ignored without a batch")
