"""Tiers 1 and 2 of triage with a model (LLM-30, LLM-31, LLM-32).

Every model call goes over real loopback HTTP to attn's fake provider, through
the real OpenAI and Anthropic clients; the fake provider's script plays the
model. Time is the runtime's FakeClock; the HTTP calls are awaited with
``eventually`` and the fake provider's own waits.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from attn import AgentConfig, DecisionType, Focus, ItemStatus, MailboxItem, Reply, Runtime
from attn.brains.llm import LLMDeliberator, LLMInterruptClassifier
from attn.brains.llm.classifier import parse_answer
from attn.brains.providers import ModelClient, make_client
from attn.core.working_memory import DELIBERATION_KEY
from attn.errors import InvalidInput
from attn.testing import FakeClock, FakeProvider, FakeToolCall, Fault, Turn, eventually, settle

PROTOCOLS = ["openai", "anthropic"]
KEY_ENV = "ATTN_TEST_TIERS_KEY"


@pytest.fixture(params=PROTOCOLS)
async def client(
    request: pytest.FixtureRequest, fp: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[ModelClient]:
    monkeypatch.setenv(KEY_ENV, "test-key")
    protocol = request.param
    base_url = fp.openai_base_url if protocol == "openai" else fp.anthropic_base_url
    made = make_client(protocol, base_url=base_url, api_key_env=KEY_ENV)
    yield made
    await made.aclose()


def body_text(body: Any) -> str:
    """A request body as text, for "the request holds this text" checks."""
    return json.dumps(body, ensure_ascii=False)


def tool_names(body: Any) -> list[str]:
    """The names of the tools a request offered, in either protocol's shape."""
    return [t["function"]["name"] if "function" in t else t["name"] for t in body.get("tools", [])]


def system_text(body: Any) -> str:
    """The system prompt of a request, in either protocol's shape."""
    if "system" in body:
        system = body["system"]
        return system if isinstance(system, str) else "".join(b["text"] for b in system)
    return str(body["messages"][0]["content"])


class Worker:
    """A brain of ``steps`` one-second steps with a yield point after each."""

    def __init__(self, clock: FakeClock, steps: int = 3) -> None:
        self.clock, self.steps = clock, steps
        self.ends: list[tuple[str, str]] = []  # (content, "done" or the stopping action)

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | None:
        for _ in range(self.steps):
            await self.clock.sleep(1)
            decision = await focus.yield_point()
            if decision.stop:
                self.ends.append((item.content, str(decision.action)))
                return None
        self.ends.append((item.content, "done"))
        return Reply(f"done: {item.content}")


# -- LLM-30: tier 1, the interrupt judge ------------------------------------------------------

PUBLISH = "Publish the release notes for 2.4 to the company blog"


async def _judge_run(
    runtime: Runtime, clock: FakeClock, fp: FakeProvider, client: ModelClient, text: str
) -> tuple[Worker, str, str]:
    """A publish job in focus, then ``text`` from someone else: what the judge made of it."""
    brain = Worker(clock)
    agent = await runtime.add_agent(
        "a",
        brain,
        AgentConfig(coalesce_window_ms=0),
        classifier=LLMInterruptClassifier(client, "judge-model"),
    )
    work = await agent.enqueue(
        "a2a_message",
        {"content": PUBLISH, "summary": "publish release notes"},
        priority=2,
        metadata={"senderId": "editor", "channelKey": "dm:editor"},
    )
    await clock.advance(0.5)
    new = await agent.enqueue(
        "a2a_message",
        {"content": text},
        priority=2,
        metadata={"senderId": "lead", "channelKey": "dm:lead"},
    )
    # The first step ends at a yield point where tier 0 says continue: the judge
    # is asked over HTTP (real time) while simulated time moves on.
    await eventually(lambda: _step(clock, brain), what="the work stops or ends")
    return brain, work, new


async def _step(clock: FakeClock, brain: Worker) -> list[tuple[str, str]]:
    await clock.advance(0.5)
    return brain.ends


@pytest.mark.parametrize(
    ("text", "answer", "action", "decision"),
    [
        ("stop publishing", "cancel", "cancel", DecisionType.CANCEL),
        ("hold off for now", "Preempt.", "preempt", DecisionType.PREEMPT),
    ],
)
async def test_llm_30_the_judge_cancels_or_preempts_the_publish_task(
    runtime: Runtime,
    clock: FakeClock,
    fp: FakeProvider,
    client: ModelClient,
    text: str,
    answer: str,
    action: str,
    decision: DecisionType,
) -> None:
    fp.script(Turn(text=answer))
    brain, work, _ = await _judge_run(runtime, clock, fp, client, text)
    assert brain.ends[0] == (PUBLISH, action)
    (request,) = fp.requests
    sent = body_text(request.body)
    assert PUBLISH in sent and "publish release notes" in sent and "a2a_message" in sent
    assert text in sent  # the new message's full text
    assert tool_names(request.body) == []  # one short call, no tools
    types = [d.decision_type for d in await runtime.store.find_decisions("a", work)]
    assert decision in types
    stored = await runtime.store.get_item(work)
    assert stored is not None
    if decision == DecisionType.PREEMPT:
        assert stored.status == ItemStatus.DEFERRED  # kept, to resume later
    else:
        assert stored.status != ItemStatus.DEFERRED  # abandoned for good


async def test_llm_30_the_new_message_is_shown_whole(
    runtime: Runtime, clock: FakeClock, fp: FakeProvider, client: ModelClient
) -> None:
    long_text = "please look at this: " + " ".join(f"w{i}" for i in range(1500)) + " END-OF-TEXT"
    fp.script(Turn(text="continue"))
    brain, _, _ = await _judge_run(runtime, clock, fp, client, long_text)
    assert brain.ends[0] == (PUBLISH, "done")
    assert "END-OF-TEXT" in body_text(fp.requests[0].body)


@pytest.mark.parametrize(
    "turn",
    [
        Turn(text="Hmm, hard to say what the agent should do here."),
        Turn(text="Do not cancel."),
        Fault.status(500, message="boom"),
        Fault.status(400, message="bad request"),
    ],
    ids=["unparseable", "negated", "error-500", "error-400"],
)
async def test_llm_30_unparseable_or_failed_answers_continue(
    runtime: Runtime, clock: FakeClock, fp: FakeProvider, client: ModelClient, turn: Any
) -> None:
    fp.script(turn)
    brain, work, _ = await _judge_run(runtime, clock, fp, client, "stop publishing")
    assert brain.ends[0] == (PUBLISH, "done")
    types = [d.decision_type for d in await runtime.store.find_decisions("a", work)]
    assert DecisionType.CANCEL not in types and DecisionType.PREEMPT not in types


async def test_llm_30_a_hanging_model_times_out_to_continue(
    fp: FakeProvider, client: ModelClient, runtime: Runtime, clock: FakeClock
) -> None:
    fp.script(Turn(text="cancel", hang_after=0))
    judge = LLMInterruptClassifier(client, "judge-model", timeout_s=5, clock=clock)
    agent = await runtime.add_agent("a", Worker(clock), start=False)
    focus = await agent.mailbox.enqueue("a2a_message", {"content": PUBLISH})
    new = await agent.mailbox.enqueue("a2a_message", {"content": "stop publishing"})
    answer = asyncio.ensure_future(judge.classify(focus, new, [], []))
    stream = await fp.wait_streaming()
    await clock.advance(4.9)
    assert not answer.done()  # still within the timeout
    await clock.advance(0.2)
    assert await answer == "continue"
    await fp.wait_closed(stream)  # the hanging stream was closed


@pytest.mark.parametrize(
    ("answer", "word"),
    [
        ("cancel", "cancel"),
        ("CANCEL.", "cancel"),
        ('"preempt"', "preempt"),
        ("Pre-empt", "preempt"),
        ("I would preempt: the lead asked to wait.", "preempt"),
        ("Merge — it is a correction of the work.", "merge"),
        ("defer\n", "defer"),
        ("Continue; nothing urgent.", "continue"),
        ("The answer is: cancel", "cancel"),
        ("not cancel", None),
        ("don't preempt", None),
        ("cancel or preempt, I cannot tell which", "cancel"),
        ("either preempt or cancel", None),
        ("stop", None),
        ("", None),
    ],
)
def test_llm_30_answers_are_read_tolerantly(answer: str, word: str | None) -> None:
    assert parse_answer(answer) == word


# -- LLM-31: tier 2, deliberation as the agent --------------------------------------------------


#: 000 §21's DELIBERATION_ALLOWED_TOOLS that attn has.
SPEC_DELIBERATION_TOOLS = (
    "check_mailbox",
    "defer_mailbox_item",
    "drop_mailbox_item",
    "prioritize_mailbox_item",
    "update_working_memory",
    "clear_working_memory",
    "complete_deliberation",
    "recall_activity",
    "memory_search",
    "memory_save",
    "agent_send_message",
    "agent_send_group_message",
    "agent_create_group_chat",
    "agent_list_group_chats",
)


async def _deliberating_agent(
    runtime: Runtime, client: ModelClient, brain: Any, **options: Any
) -> tuple[Any, LLMDeliberator]:
    deliberator = LLMDeliberator(client, "delib-model", **options)
    agent = await runtime.add_agent(
        "a",
        brain,
        AgentConfig(coalesce_window_ms=0),
        description="I review pull requests for the platform team.",
        deliberator=deliberator,
        start=False,
    )
    if deliberator.host is None:  # until the runtime binds brains itself
        deliberator.bind_agent(agent)
    return agent, deliberator


def _done(**arguments: Any) -> Turn:
    return Turn(tool_calls=[FakeToolCall("complete_deliberation", arguments)])


async def test_llm_31_deliberation_offers_only_its_tools_and_its_decision_is_applied(
    runtime: Runtime, fp: FakeProvider, client: ModelClient
) -> None:
    seen: list[str] = []

    async def brain(item: MailboxItem, focus: Focus) -> Reply:
        seen.append(item.content)
        return Reply("ok")

    agent, deliberator = await _deliberating_agent(runtime, client, brain)
    a = await agent.enqueue("a2a_message", {"content": "old ping"}, priority=2)
    b = await agent.enqueue("review_request", {"content": "review PR 7"}, priority=2)
    c = await agent.enqueue("a2a_message", {"content": "lunch?"}, priority=2)
    fp.script(
        Turn(tool_calls=[FakeToolCall("check_mailbox", {"limit": 10})]),
        Turn(
            tool_calls=[
                FakeToolCall(
                    "complete_deliberation",
                    {
                        "process_item_id": b,
                        "reasoning": "the review unblocks the team",
                        "drop_item_ids": [a],
                        "defer_item_ids": [c],
                        "situational_awareness": "PR 7 first; lunch question deferred",
                    },
                )
            ]
        ),
    )
    agent.start()
    await eventually(lambda: seen, what="the brain got the chosen item")
    await runtime.run_until_idle()
    assert seen[0] == "review PR 7"
    first, second = fp.requests[:2]
    for request in (first, second):
        offered = tool_names(request.body)
        assert "complete_deliberation" in offered and "check_mailbox" in offered
        assert sorted(offered) == sorted(SPEC_DELIBERATION_TOOLS)
        assert "schedule_wakeup" not in offered  # no time or work tools while deliberating
    assert system_text(first.body).startswith(
        "You are a. I review pull requests for the platform team."
    )
    sent = body_text(first.body)
    assert "[DELIBERATION MODE]" in sent
    for item_id in (a, b, c):  # the whole queue
        assert item_id in sent
    assert "recentDecisions" in body_text(
        second.body
    )  # check_mailbox's result went back to the model
    assert (await runtime.store.get_item(a)).status == ItemStatus.DROPPED  # type: ignore[union-attr]
    types = [d.decision_type for d in await runtime.store.find_decisions("a", c)]
    assert DecisionType.DEFER in types  # then it resurfaced once the agent was idle
    (triage,) = [
        d for d in await runtime.store.find_decisions("a", b) if d.decision_type == "triage"
    ]
    assert triage.reasoning == "the review unblocks the team"
    assert deliberator.turns == 2


async def test_llm_31_protected_items_are_never_deferred_dropped_or_completed_inline(
    runtime: Runtime, fp: FakeProvider, client: ModelClient
) -> None:
    seen: list[str] = []

    async def brain(item: MailboxItem, focus: Focus) -> Reply:
        seen.append(item.content)
        return Reply("ok")

    agent, _ = await _deliberating_agent(runtime, client, brain)
    a = await agent.enqueue("a2a_message", {"content": "fyi"}, priority=1)
    run = await agent.enqueue(
        "task_status_update",
        {"content": "run task T", "taskId": "T", "triggerExecution": True},
        priority=1,
    )
    mention = await agent.enqueue("mention", {"content": "@a look"}, priority=1)
    fp.script(
        Turn(
            tool_calls=[
                FakeToolCall(
                    "complete_deliberation",
                    {
                        "process_item_id": a,
                        "reasoning": "clean up",
                        "inline_completed_ids": [run],
                        "drop_item_ids": [mention],
                    },
                )
            ]
        ),
        # Next round: the execution trigger is the head, the mention waits.
        _done(process_item_id=run, reasoning="run the task"),
    )
    agent.start()
    await eventually(lambda: len(seen) == 3, what="every item reached the brain")
    await runtime.run_until_idle()
    assert sorted(seen) == sorted(["fyi", "run task T", "@a look"])
    for item_id in (run, mention):
        stored = await runtime.store.get_item(item_id)
        assert stored is not None and stored.status == ItemStatus.COMPLETED
        types = [d.decision_type for d in await runtime.store.find_decisions("a", item_id)]
        assert DecisionType.DROP not in types and DecisionType.COMPLETE not in types


async def test_llm_31_a_chat_during_deliberation_aborts_it(
    runtime: Runtime, fp: FakeProvider, client: ModelClient
) -> None:
    seen: list[str] = []
    waiting: list[list[str]] = []

    async def brain(item: MailboxItem, focus: Focus) -> Reply:
        seen.append(item.content)
        waiting.append([i.id for i in agent.mailbox.queued_items()])
        return Reply("ok")

    agent, _ = await _deliberating_agent(runtime, client, brain)
    x = await agent.enqueue("a2a_message", {"content": "x"}, priority=2)
    y = await agent.enqueue("a2a_message", {"content": "y"}, priority=2)
    fp.script(
        Turn(text="Let me think about the queue first", hang_after=1),
        _done(process_item_id=y, reasoning="y after the chat"),
    )
    agent.start()
    stream = await fp.wait_streaming()
    chat_at = time.monotonic()
    await agent.enqueue("human_chat", {"content": "are you there?"})
    closed_at = await fp.wait_closed(stream)
    assert closed_at - chat_at < 0.1  # the model stream closed at once
    await eventually(lambda: seen, what="the chat was processed")
    await runtime.run_until_idle()
    assert seen == ["are you there?", "y", "x"]
    # The aborted deliberation's results were discarded: x and y waited, untouched.
    assert waiting[0] == [x, y]
    (triage,) = [
        d for d in await runtime.store.find_decisions("a", y) if d.decision_type == "triage"
    ]
    assert triage.reasoning == "y after the chat"


async def test_llm_31_a_tool_outside_deliberation_is_refused_without_running(
    runtime: Runtime, fp: FakeProvider, client: ModelClient
) -> None:
    agent, _ = await _deliberating_agent(runtime, client, lambda item, focus: _ok())
    a = await agent.enqueue("a2a_message", {"content": "one"}, priority=2)
    await agent.enqueue("a2a_message", {"content": "two"}, priority=2)
    fp.script(
        Turn(tool_calls=[FakeToolCall("schedule_wakeup", {"delay_minutes": 5, "note": "x"})]),
        _done(process_item_id=a, reasoning="one first"),
    )
    agent.start()
    await eventually(lambda: len(fp.requests) >= 2, what="the second deliberation turn")
    await runtime.run_until_idle()
    assert "tool_not_allowed" in body_text(fp.requests[1].body)
    assert await runtime.time.list_callbacks("a") == []  # no wakeup was scheduled


async def test_llm_31_no_decision_within_max_turns_picks_by_priority(
    runtime: Runtime, fp: FakeProvider, client: ModelClient
) -> None:
    seen: list[str] = []

    async def brain(item: MailboxItem, focus: Focus) -> Reply:
        seen.append(item.content)
        return Reply("ok")

    agent, _ = await _deliberating_agent(runtime, client, brain, max_turns=2)
    first = await agent.enqueue("a2a_message", {"content": "first"}, priority=2)
    await agent.enqueue("a2a_message", {"content": "second"}, priority=2)
    fp.script(Turn(text=""), Turn(text="Still thinking."))
    agent.start()
    await eventually(lambda: seen, what="the head was processed")
    await runtime.run_until_idle()
    assert seen == ["first", "second"]
    assert len(fp.requests) == 2  # max_turns model turns, then the controller decides
    assert "complete_deliberation now" in body_text(fp.requests[1].body)  # the nudge
    (pick,) = [
        d for d in await runtime.store.find_decisions("a", first) if d.decision_type == "pick"
    ]
    assert "no usable result" in pick.reasoning


def test_bad_tier_settings_are_refused() -> None:
    class Unused:
        provider = "openai"

    for build in (
        lambda: LLMInterruptClassifier(Unused(), ""),  # type: ignore[arg-type]
        lambda: LLMInterruptClassifier(Unused(), "m", 0),  # type: ignore[arg-type]
        lambda: LLMInterruptClassifier(Unused(), "m", timeout_s=float("nan")),  # type: ignore[arg-type]
        lambda: LLMDeliberator(Unused(), "m", max_turns=0),  # type: ignore[arg-type]
        lambda: LLMDeliberator(Unused(), "m", max_tokens=10**9),  # type: ignore[arg-type]
        lambda: LLMDeliberator(Unused(), "m", temperature=3),  # type: ignore[arg-type]
    ):
        with pytest.raises(InvalidInput):
            build()


# -- LLM-32: situational awareness ---------------------------------------------------------------


async def test_llm_32_awareness_lands_in_working_memory_and_the_next_prompt(
    runtime: Runtime, fp: FakeProvider, client: ModelClient
) -> None:
    agent, _ = await _deliberating_agent(runtime, client, lambda item, focus: _ok())
    a = await agent.enqueue("a2a_message", {"content": "one"}, priority=2)
    b = await agent.enqueue("a2a_message", {"content": "two"}, priority=2)
    c = await agent.enqueue("a2a_message", {"content": "three"}, priority=2)
    note = "Three pings wait from the same team; answering two first"
    fp.script(
        _done(process_item_id=b, reasoning="two is blocking", situational_awareness=note),
        _done(process_item_id=a, reasoning="then one"),
    )
    agent.start()
    await eventually(lambda: len(fp.requests) >= 2, what="the second deliberation")
    await runtime.run_until_idle()
    entry = agent.working_memory.get(DELIBERATION_KEY)
    assert entry is not None and entry.content == note
    first, second = fp.requests[:2]
    assert note not in body_text(first.body)
    assert note in body_text(second.body) and "Working Memory" in body_text(second.body)
    assert c in body_text(second.body)
    await settle()


async def _ok() -> Reply:
    return Reply("ok")
