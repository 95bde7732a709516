"""The toolset interface: definitions from signatures and docstrings, checked calls, joining."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal, NotRequired, TypedDict

import pytest

from attn import Focus, MailboxItem, Reply, Runtime
from attn.errors import InvalidInput, ItemNotFound
from attn.store.memory import MemoryStore
from attn.testing import FakeClock
from attn.tools import (
    ChannelToolset,
    CombinedToolset,
    FunctionToolset,
    MailboxToolset,
    MemoryToolset,
    Param,
    PeopleToolset,
    TimeToolset,
    TreeToolset,
    WorkerToolset,
    tool,
)
from attn.types import JSON


class Step(TypedDict):
    """One step of a plan."""

    what: str
    when: NotRequired[Literal["now", "later"]]


class Sample(FunctionToolset):
    def __init__(self) -> None:
        self.calls: list[JSON] = []

    @tool
    async def plan(
        self,
        title: Annotated[str, Param(min_length=1, max_length=80)],
        steps: list[Step] | None = None,
        weight: Annotated[float, Param(exclusive_minimum=0, maximum=1)] = 0.5,
        note: Annotated[str | None, Param(nullable=True)] = None,
    ) -> JSON:
        """Make a plan.

        It is kept until replaced.

        Args:
            title: What the plan is called,
                in a few words.
            steps: What to do, in order.
            weight (float): How much it matters.
            note: Anything else.

        Returns:
            ``{"title"}``.

        Spec: none.
        """
        self.calls.append({"title": title, "steps": steps, "weight": weight, "note": note})
        return {"title": title}

    @tool
    async def fail(self) -> JSON:
        """Always refuse."""
        raise ItemNotFound("no item 'x'")

    async def helper(self) -> None:
        """Not a tool: not marked."""


def test_a_definition_comes_from_the_signature_hints_and_docstring() -> None:
    plan, fail = Sample.tool_definitions()
    assert Sample().names() == ("plan", "fail")
    assert plan.description == "Make a plan.\n\nIt is kept until replaced."
    assert plan.required == ("title",)
    assert plan.to_dict()["parameters"] == {
        "type": "object",
        "properties": {
            "title": {
                "type": "string",
                "minLength": 1,
                "maxLength": 80,
                "description": "What the plan is called, in a few words.",
            },
            "steps": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"what": {"type": "string"}, "when": {"enum": ["now", "later"]}},
                    "required": ["what"],
                    "additionalProperties": False,
                },
                "description": "What to do, in order.",
            },
            "weight": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": 1,
                "default": 0.5,
                "description": "How much it matters.",
            },
            "note": {"type": ["string", "null"], "description": "Anything else."},
        },
        "required": ["title"],
        "additionalProperties": False,
    }
    assert fail.parameters["properties"] == {} and fail.description == "Always refuse."


def test_a_tool_the_schema_cannot_describe_fails_when_its_class_is_made() -> None:
    with pytest.raises(TypeError, match=r"bad\(options\): no JSON Schema"):

        class _Untyped(FunctionToolset):
            @tool
            async def bad(self, options: dict[str, int]) -> JSON:
                """Bad."""
                return {}

    with pytest.raises(TypeError, match="documents no parameter colour"):

        class _Stale(FunctionToolset):
            @tool
            async def paint(self) -> JSON:
                """Paint.

                Args:
                    colour: gone.
                """
                return {}


async def test_call_checks_the_call_and_answers_json() -> None:
    sample = Sample()
    cases: list[tuple[object, object, str]] = [
        ("nap", {}, "unknown tool 'nap'; tools: plan, fail"),
        (7, {}, "unknown tool 7"),
        ("plan", ["x"], "arguments of plan must be a JSON object, got list"),
        ("plan", {"title": "t", "size": 1}, "plan has no argument 'size'; its arguments: "),
        ("plan", {}, "plan needs the argument 'title'"),
        ("fail", {"x": 1}, "its arguments: none"),
    ]
    for name, arguments, message in cases:
        answer = await sample.call(name, arguments)
        assert answer["ok"] is False and answer["error"] == "invalid_input", answer
        assert message in answer["message"]
        with pytest.raises(InvalidInput):
            await sample.call_tool(name, arguments)
    assert sample.calls == []  # nothing ran
    assert await sample.call("fail") == {
        "ok": False,
        "error": "item_not_found",
        "message": "no item 'x'",
    }
    assert await sample.call("plan", {"title": "t"}) == {"ok": True, "title": "t"}
    assert sample.calls == [{"title": "t", "steps": None, "weight": 0.5, "note": None}]


async def test_a_combined_toolset_lists_every_set_and_routes_each_call() -> None:
    class Other(FunctionToolset):
        @tool
        async def ping(self) -> JSON:
            """Answer pong."""
            return {"pong": True}

    sample = Sample()
    both = CombinedToolset(sample, Other())
    assert both.names() == ("plan", "fail", "ping")
    assert [s["name"] for s in both.schemas()] == ["plan", "fail", "ping"]
    assert await both.call("ping") == {"ok": True, "pong": True}
    assert (await both.call("plan", {"title": "t"}))["ok"] is True and len(sample.calls) == 1
    assert "tools: plan, fail, ping" in (await both.call("nap"))["message"]
    with pytest.raises(InvalidInput, match="tool 'plan' is in both Sample and Sample"):
        CombinedToolset(sample, Sample())


async def test_an_agents_tools_are_its_mailbox_time_memory_channel_and_tree_tools() -> None:
    clock = FakeClock(datetime(2026, 1, 1, tzinfo=UTC))
    seen: list[CombinedToolset] = []

    async def brain(item: MailboxItem, focus: Focus) -> Reply:
        seen.append(runtime.get_agent(item.agent_id).tools_for(focus))
        return Reply("ok")

    async with Runtime(MemoryStore(), clock=clock) as runtime:
        agent = await runtime.add_agent("alice", brain)
        tools = agent.tools()
        assert (
            tools.names()
            == MailboxToolset(agent).names()
            + TimeToolset(runtime.time, "alice").names()
            + MemoryToolset(runtime.store, "alice", clock).names()
            + ChannelToolset(runtime.channels, "alice").names()
            + TreeToolset(runtime.tree, "alice").names()
            + PeopleToolset(runtime.people, "alice").names()
            + WorkerToolset(runtime.filebox, "alice").names()
        )
        await agent.send_message("hi", session_id="ses-3")
        [focused] = seen
        assert isinstance(focused, CombinedToolset)  # in no tree: no read-only guard
        mailbox, time, memory, channels, tree, people, workers = focused.toolsets
        assert isinstance(people, PeopleToolset) and people.focus is not None
        assert isinstance(workers, WorkerToolset) and workers.session == "agent:alice"
        assert isinstance(mailbox, MailboxToolset) and mailbox.agent is agent
        assert isinstance(time, TimeToolset) and time.session_id == "ses-3"
        assert isinstance(memory, MemoryToolset) and memory.agent_id == "alice"
        assert isinstance(channels, ChannelToolset)
        assert (channels.agent_id, channels.session_id) == ("alice", "ses-3")
        assert isinstance(tree, TreeToolset) and tree.agent_id == "alice"


def test_the_public_names_are_pinned() -> None:
    import attn.tools

    assert sorted(attn.tools.__all__) == sorted(
        [
            "MAX_DELAY_MINUTES",
            "ChannelToolset",
            "CombinedToolset",
            "FunctionToolset",
            "MailboxToolset",
            "MemoryToolset",
            "MemoryUpdateArgument",
            "Param",
            "PeopleToolset",
            "ReadOnlyTools",
            "TimeToolset",
            "ToolDefinition",
            "ToolHost",
            "Tools",
            "Toolset",
            "TreeToolset",
            "WorkerToolset",
            "tool",
        ]
    )
    assert all(hasattr(attn.tools, name) for name in attn.tools.__all__)
