"""The agent as its LLM brain's host: bind_agent, the tools it offers, its queue and memory.

Spec: 000 §21 (the agent deliberates as itself; tool access during
deliberation), §8 (memory); issue 12 points 4 and 5; acceptance LLM-41.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from attn import AgentConfig, Focus, InvalidInput, ItemStatus, MailboxItem, Reply, Runtime
from attn.brains.llm.host import BrainHost
from attn.core.deliberation import DeliberationResult, MemoryUpdate
from attn.runtime.agent_tools import DELIBERATION_TOOLS
from attn.store.memory import MemoryStore
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeClock, eventually, settle
from attn.tools import CombinedToolset, Tools

#: The burst window waits on the fake clock; these tests are about the host.
NO_WINDOW = AgentConfig(coalesce_window_ms=0)

MAILBOX_TOOLS = (
    "check_mailbox",
    "defer_mailbox_item",
    "drop_mailbox_item",
    "prioritize_mailbox_item",
    "update_working_memory",
    "clear_working_memory",
    "complete_deliberation",
)
TIME_TOOLS = ("schedule_wakeup", "cancel_wakeup", "set_heartbeat_interval", "background_exec")
MEMORY_TOOLS = ("memory_save", "memory_search", "recall_activity")
CHANNEL_TOOLS = (
    "agent_send_message",
    "agent_send_group_message",
    "agent_create_group_chat",
    "agent_list_group_chats",
    "agent_broadcast_status",
    "agent_delegate_task",
    "recall_channel",
)
#: The channel tools of 000 §21's DELIBERATION_ALLOWED_TOOLS.
DELIBERATION_CHANNEL_TOOLS = CHANNEL_TOOLS[:4]
TREE_TOOLS = ("Agent", "SendMessage", "WaitAgent", "ListAgents", "InspectAgent", "InterruptAgent")
PEOPLE_TOOLS = ("notify_user", "request_user_approval")
#: The worker tools of seed 003.
WORKER_TOOLS = ("start_worker", "respond_to_worker", "steer_worker", "nudge_worker", "list_workers")
#: The tree tools allowed while deliberating: sending and observing, never spawning.
DELIBERATION_TREE_TOOLS = ("SendMessage", "ListAgents", "InspectAgent")


class BoundBrain:
    """A brain that keeps the host it is bound to, and the tools of each item."""

    def __init__(self) -> None:
        self.hosts: list[BrainHost] = []
        self.seen: list[CombinedToolset] = []
        self.focuses: list[Focus] = []

    def bind_agent(self, host: BrainHost) -> None:
        self.hosts.append(host)

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply:
        host = self.hosts[0]
        self.focuses.append(focus)
        self.seen.append(host.tools_for(focus))  # type: ignore[arg-type]
        return Reply("ok")


class BoundDeliberator:
    def __init__(self) -> None:
        self.hosts: list[BrainHost] = []

    def bind_agent(self, host: BrainHost) -> None:
        self.hosts.append(host)

    async def deliberate(
        self, head: MailboxItem, queued: list[MailboxItem], context: dict[str, Any]
    ) -> DeliberationResult | None:
        return None


class BoundClassifier:
    def __init__(self) -> None:
        self.hosts: list[BrainHost] = []

    def bind_agent(self, host: BrainHost) -> None:
        self.hosts.append(host)

    async def classify(
        self,
        focus: MailboxItem,
        new: MailboxItem,
        queue: list[MailboxItem],
        recent: list[dict[str, Any]],
    ) -> str:
        return "continue"


async def test_add_agent_binds_the_brain_classifier_and_deliberator(runtime: Runtime) -> None:
    brain, deliberator, classifier = BoundBrain(), BoundDeliberator(), BoundClassifier()
    agent = await runtime.add_agent(
        "alice",
        brain,
        NO_WINDOW,
        deliberator=deliberator,
        classifier=classifier,
        start=False,
    )
    assert brain.hosts == [agent] and deliberator.hosts == [agent]
    assert classifier.hosts == [agent]
    host: BrainHost = agent  # the agent satisfies the protocol
    assert host.name == "alice" and host.working_memory is agent.working_memory


async def test_a_failing_bind_adds_no_agent(runtime: Runtime) -> None:
    class Refuses(BoundBrain):
        def bind_agent(self, host: BrainHost) -> None:
            raise RuntimeError("no key in the environment")

    with pytest.raises(RuntimeError, match="no key"):
        await runtime.add_agent("alice", Refuses(), NO_WINDOW)
    assert runtime.agents == [] and runtime.find_agent("alice") is None
    agent = await runtime.add_agent("alice", BoundBrain(), NO_WINDOW, start=False)
    assert runtime.agents == [agent]


async def test_user_tools_are_offered_after_attns_own(runtime: Runtime) -> None:
    tools = Tools()

    @tools.tool
    def add(a: int, b: int) -> int:
        """Add.

        Args:
            a: One.
            b: Two.
        """
        return a + b

    brain = BoundBrain()
    agent = await runtime.add_agent("alice", brain, NO_WINDOW, tools=[tools])
    assert agent.tools().names() == (
        *MAILBOX_TOOLS,
        *TIME_TOOLS,
        *MEMORY_TOOLS,
        *CHANNEL_TOOLS,
        *TREE_TOOLS,
        *PEOPLE_TOOLS,
        *WORKER_TOOLS,
        "add",
    )
    await agent.send_message("hi")
    [offered] = brain.seen
    assert await offered.call("add", {"a": 2, "b": 3}) == {"ok": True, "result": 5}
    bad = await offered.call("add", {"a": "2", "b": 3})
    assert bad["ok"] is False and bad["error"] == "invalid_input"


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        ("add", "tools must be a list of toolsets"),
        (Tools(), "tools must be a list of toolsets"),
        ([object()], "tools must hold toolsets"),
    ],
)
async def test_bad_user_tools_are_refused_and_add_nothing(
    runtime: Runtime, tools: Any, message: str
) -> None:
    with pytest.raises(InvalidInput, match=message):
        await runtime.add_agent("alice", BoundBrain(), NO_WINDOW, tools=tools)
    assert runtime.agents == []


async def test_a_user_tool_may_not_take_a_built_in_or_repeated_name(runtime: Runtime) -> None:
    clash = Tools()

    @clash.tool
    def memory_search(query: str) -> str:
        """Mine.

        Args:
            query: Words.
        """
        return query

    one, two = Tools(), Tools()
    for toolset in (one, two):

        @toolset.tool
        def ping() -> str:
            """Ping."""
            return "pong"

    with pytest.raises(InvalidInput, match="'memory_search' of Tools is already one of Memory"):
        await runtime.add_agent("alice", BoundBrain(), NO_WINDOW, tools=[clash])
    with pytest.raises(InvalidInput, match="'ping'"):
        await runtime.add_agent("alice", BoundBrain(), NO_WINDOW, tools=[one, two])
    assert runtime.agents == []


async def test_deliberation_tools_are_the_seeds_allowed_ones(runtime: Runtime) -> None:
    brain = BoundBrain()
    tools = Tools()

    @tools.tool
    def side_effect() -> str:
        """Do something heavy."""
        return "done"

    agent = await runtime.add_agent("alice", brain, NO_WINDOW, tools=[tools])
    assert set(agent.deliberation_tools().names()) == DELIBERATION_TOOLS
    assert agent.deliberation_tools().names() == (
        *MAILBOX_TOOLS,
        *MEMORY_TOOLS,
        *DELIBERATION_CHANNEL_TOOLS,
        *DELIBERATION_TREE_TOOLS,
    )
    await agent.send_message("hi")
    [focus] = brain.focuses
    assert set(agent.tools_for(focus, deliberation=True).names()) == DELIBERATION_TOOLS
    assert "side_effect" in agent.tools_for(focus).names()


async def test_queued_items_are_the_whole_queue_in_claim_order(runtime: Runtime) -> None:
    agent = await runtime.add_agent("alice", BoundBrain(), NO_WINDOW, start=False)
    low = await agent.enqueue("heartbeat", {})
    chat = await agent.enqueue("human_chat", {"content": "hi"})
    a2a = await agent.enqueue("a2a_message", {"content": "fyi"})
    assert [i.id for i in agent.queued_items()] == [chat, a2a, low]
    assert all(i.status == ItemStatus.QUEUED for i in agent.queued_items())


async def test_memories_for_finds_saved_entries_by_their_words(runtime: Runtime) -> None:
    agent = await runtime.add_agent("alice", BoundBrain(), NO_WINDOW, start=False)
    other = await runtime.add_agent("bob", BoundBrain(), NO_WINDOW, start=False)
    tools = agent.tools()
    await tools.call("memory_save", {"content": "Bob reviews on Mondays", "key": "bob-reviews"})
    await tools.call("memory_save", {"content": "The build runs nightly"})
    assert await agent.memories_for("Can Bob review this?") == [
        "[bob-reviews] Bob reviews on Mondays"
    ]
    assert await agent.memories_for("nightly build " + "x " * 2000, limit=1) == [
        "The build runs nightly"
    ]
    assert await agent.memories_for("") == []
    assert await other.memories_for("Bob reviews") == []
    with pytest.raises(InvalidInput):
        await agent.memories_for("bob", limit=0)


async def test_recall_activity_lists_what_the_agent_worked_on(runtime: Runtime) -> None:
    brain = BoundBrain()
    agent = await runtime.add_agent("alice", brain, NO_WINDOW)
    await agent.send_message("summarise the incident")
    answer = await agent.tools().call("recall_activity")
    [recent] = answer["activities"]
    assert recent["itemType"] == "human_chat"
    assert recent["itemSummary"] == "summarise the incident"
    logs = await agent.tools().call("recall_activity", {"activity_id": recent["activityId"]})
    assert logs["ok"] is True and logs["activity"]["activityId"] == recent["activityId"]


async def test_llm_41_mailbox_and_time_tools_keep_their_seed_names_and_protect_chat(
    runtime: Runtime,
) -> None:
    gate = asyncio.Event()
    answers: dict[str, Any] = {}

    class Brain(BoundBrain):
        async def __call__(self, item: MailboxItem, focus: Focus) -> Reply:
            tools = self.hosts[0].tools_for(focus)
            names = [schema["name"] for schema in tools.schemas()]
            answers["names"] = names
            [queued] = self.hosts[0].queued_items()
            chat = queued.id
            answers["defer"] = await tools.call(
                "defer_mailbox_item", {"item_id": chat, "reason": "later"}
            )
            answers["drop"] = await tools.call(
                "drop_mailbox_item", {"item_id": chat, "reason": "stale"}
            )
            answers["prioritize"] = await tools.call(
                "prioritize_mailbox_item", {"item_id": chat, "priority": 4, "reason": "x"}
            )
            answers["check"] = await tools.call("check_mailbox", {})
            answers["wakeup"] = await tools.call("schedule_wakeup", {"delay_s": 60, "note": "n"})
            await gate.wait()
            return Reply("ok")

    agent = await runtime.add_agent("alice", Brain(), NO_WINDOW, start=False)
    first = await agent.enqueue("human_chat", {"content": "hello"})
    chat = await agent.enqueue("human_chat", {"content": "are you there?"})
    agent.start()
    await settle()
    assert agent.focus_item is not None and agent.focus_item.id == first
    assert answers["names"][: len(MAILBOX_TOOLS) + len(TIME_TOOLS)] == [
        *MAILBOX_TOOLS,
        *TIME_TOOLS,
    ]
    for tool in ("defer", "drop", "prioritize"):
        assert answers[tool]["ok"] is False and answers[tool]["error"] == "protected_item", tool
    assert answers["check"]["ok"] is True
    assert [i["id"] for i in answers["check"]["queued"]] == [chat]
    assert answers["wakeup"]["ok"] is True and answers["wakeup"]["wakeupId"]
    [stored] = [i for i in agent.queued_items() if i.id == chat]
    assert stored.priority == 0 and stored.status == ItemStatus.QUEUED
    gate.set()


class _RemembersLongTerm:
    """A deliberator that processes the head and asks for long-term memory updates."""

    async def deliberate(
        self, head: MailboxItem, queued: list[MailboxItem], context: dict[str, Any]
    ) -> DeliberationResult:
        return DeliberationResult(
            process_item_id=head.id,
            reasoning="head first",
            memory_updates=(
                MemoryUpdate("prefs", "Alice prefers terse replies", "longterm"),
                MemoryUpdate("plan", "working note", "working"),
                MemoryUpdate("too-long", "x" * 5000, "longterm"),
            ),
        )


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
async def test_a_deliberations_long_term_updates_are_saved_to_memory(
    backend: str, clock: FakeClock, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = MemoryStore() if backend == "memory" else SQLiteStore(tmp_path / "attn.db")
    async with Runtime(store, clock=clock) as runtime:
        agent = await runtime.add_agent(
            "alice", BoundBrain(), NO_WINDOW, deliberator=_RemembersLongTerm(), start=False
        )
        for text in ("m1", "m2", "m3"):
            await agent.enqueue("a2a_message", {"content": text})
        agent.start()
        with caplog.at_level(logging.WARNING, logger="attn.runtime.agent_tools"):
            await runtime.run_until_idle()
        await eventually(lambda: runtime.store.count_memories("alice"), what="the save")
        assert await agent.memories_for("terse replies") == ["[prefs] Alice prefers terse replies"]
        assert (
            await runtime.store.count_memories("alice") == 1
        )  # one keyed entry, however often saved
        assert "plan" in agent.working_memory
        assert "long-term memory update 'too-long' of alice skipped" in caplog.text
