"""User tools: plain functions registered with ``@tools.tool`` (acceptance LLM-40)."""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

import pytest

from attn.errors import InvalidInput, ItemNotFound
from attn.tools import FunctionToolset, Param, Tools, tool
from attn.types import JSON


class Point(TypedDict):
    x: int
    y: int


def _sample() -> tuple[Tools, list[tuple[str, object]]]:
    tools = Tools()
    calls: list[tuple[str, object]] = []

    @tools.tool
    def add(a: int, b: int = 2) -> int:
        """Add two integers.

        Second paragraph for the model.

        Args:
            a: The first number.
            b: The second number.

        Returns:
            The sum.
        """
        calls.append(("add", (a, b)))
        return a + b

    @tools.tool(name="find-user")
    async def find_user(
        name: Annotated[str, Param(min_length=1, max_length=5)],
        role: Literal["admin", "user"] | None = None,
        tags: list[str] | None = None,
        at: Point | None = None,
        score: Annotated[float, Param(minimum=0, maximum=1)] = 0.5,
        active: bool = True,
    ) -> JSON:
        """Look a user up.

        Args:
            name: Their name.
            role: Only this role.
            tags: Any of these tags.
            at: Where they sit.
            score: Least score.
            active: Only active users.
        """
        calls.append(("find-user", (name, role, tags, at, score, active)))
        return {"name": name, "role": role}

    @tools.tool
    def explode(reason: str) -> None:
        """Fail on purpose.

        Args:
            reason: What to say.
        """
        calls.append(("explode", reason))
        raise RuntimeError(reason)

    @tools.tool
    async def missing(item_id: str) -> JSON:
        """Raise attn's own error.

        Args:
            item_id: An item.
        """
        raise ItemNotFound(f"no item {item_id!r}")

    @tools.tool
    def unjson() -> object:
        """Return something JSON cannot hold."""
        return {"when": object()}

    return tools, calls


def test_llm_40_the_schema_comes_from_the_signature_and_the_docstring() -> None:
    tools, _ = _sample()
    assert tools.names() == ("add", "find-user", "explode", "missing", "unjson")
    add, find = tools.schemas()[:2]
    assert add == {
        "name": "add",
        "description": "Add two integers.\n\nSecond paragraph for the model.",
        "parameters": {
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "The first number."},
                "b": {"type": "integer", "description": "The second number.", "default": 2},
            },
            "required": ["a"],
            "additionalProperties": False,
        },
    }
    props = find["parameters"]["properties"]
    assert find["parameters"]["required"] == ["name"]
    assert props["name"] == {
        "type": "string",
        "minLength": 1,
        "maxLength": 5,
        "description": "Their name.",
    }
    assert props["role"] == {"enum": ["admin", "user"], "description": "Only this role."}
    assert props["tags"]["type"] == "array" and props["tags"]["items"] == {"type": "string"}
    assert props["at"]["required"] == ["x", "y"]
    assert props["score"]["minimum"] == 0 and props["score"]["maximum"] == 1


async def test_llm_40_a_good_call_runs_the_function_sync_or_async() -> None:
    tools, calls = _sample()
    assert await tools.call("add", {"a": 1, "b": 2}) == {"ok": True, "result": 3}
    assert await tools.call("add", {"a": 4.0}) == {"ok": True, "result": 6}  # 4.0 is an integer
    answer = await tools.call(
        "find-user",
        {"name": "ann", "role": "admin", "tags": ["x"], "at": {"x": 1, "y": 2}, "score": 1},
    )
    assert answer == {"ok": True, "name": "ann", "role": "admin"}
    assert await tools.call("find-user", {"name": "bo", "role": None, "tags": None}) == {
        "ok": True,
        "name": "bo",
        "role": None,
    }
    assert calls == [
        ("add", (1, 2)),
        ("add", (4, 2)),
        ("find-user", ("ann", "admin", ["x"], {"x": 1, "y": 2}, 1, True)),
        ("find-user", ("bo", None, None, None, 0.5, True)),
    ]
    assert isinstance(calls[1][1], tuple) and type(calls[1][1][0]) is int


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("add", {"a": "1"}, "add(a) must be an integer, got '1'"),
        ("add", {"a": True}, "add(a) must be an integer, got True"),
        ("add", {"a": 1.5}, "add(a) must be an integer, got 1.5"),
        ("add", {"a": None}, "add(a) must be an integer, got None"),
        ("add", {}, "add needs the argument 'a'"),
        ("add", {"a": 1, "c": 3}, "add has no argument 'c'"),
        ("add", [1, 2], "arguments of add must be a JSON object"),
        ("nope", {}, "unknown tool 'nope'"),
        ("find-user", {"name": ""}, "find-user(name) must be at least 1 character"),
        ("find-user", {"name": "abcdef"}, "find-user(name) must be at most 5 characters"),
        ("find-user", {"name": "a", "role": "root"}, "must be one of 'admin', 'user'"),
        ("find-user", {"name": "a", "tags": ["x", 2]}, "find-user(tags)[1] must be a string"),
        ("find-user", {"name": "a", "at": {"x": 1}}, "find-user(at) needs the field 'y'"),
        ("find-user", {"name": "a", "at": {"x": 1, "y": 2, "z": 3}}, "has no field 'z'"),
        ("find-user", {"name": "a", "at": {"x": "1", "y": 2}}, "find-user(at).x must be"),
        ("find-user", {"name": "a", "score": 2}, "find-user(score) must be at most 1"),
        ("find-user", {"name": "a", "score": float("nan")}, "must be a number"),
        ("find-user", {"name": "a", "active": 1}, "find-user(active) must be true or false"),
    ],
)
async def test_llm_40_bad_arguments_answer_a_structured_error_and_run_nothing(
    name: str, arguments: object, message: str
) -> None:
    tools, calls = _sample()
    answer = await tools.call(name, arguments)
    assert answer["ok"] is False and answer["error"] == "invalid_input", answer
    assert message in answer["message"], answer
    assert set(answer) == {"ok", "error", "message"}
    assert calls == []
    with pytest.raises(InvalidInput):
        await tools.call_tool(name, arguments)


async def test_llm_40_an_exception_in_the_function_answers_a_structured_error() -> None:
    tools, calls = _sample()
    assert await tools.call("explode", {"reason": "disk on fire"}) == {
        "ok": False,
        "error": "tool_failed",
        "message": "tool explode failed: RuntimeError: disk on fire",
    }
    assert calls == [("explode", "disk on fire")]
    assert await tools.call("missing", {"item_id": "x"}) == {
        "ok": False,
        "error": "item_not_found",
        "message": "no item 'x'",
    }
    answer = await tools.call("unjson")
    assert answer["ok"] is False and answer["error"] == "tool_failed"
    assert "returned what JSON cannot hold" in answer["message"]


async def test_a_long_exception_text_is_cut() -> None:
    tools = Tools()

    @tools.tool
    def loud() -> None:
        """Shout."""
        raise ValueError("x" * 5000)

    answer = await tools.call("loud")
    assert answer["error"] == "tool_failed" and len(answer["message"]) <= 1000


def test_registering_keeps_the_function_and_refuses_what_no_schema_can_describe() -> None:
    tools = Tools()

    def plain(a: int) -> int:
        """Return a.

        Args:
            a: A number.
        """
        return a

    assert tools.tool(plain) is plain
    assert plain(3) == 3
    with pytest.raises(InvalidInput, match="already registered"):
        tools.tool(plain)
    with pytest.raises(InvalidInput, match="tool name must be"):
        tools.tool(name="has space")(plain)

    def no_hint(a):  # type: ignore[no-untyped-def]
        """No hint."""

    def star(*args: int) -> None:
        """Star."""

    def positional(a: int, /) -> None:
        """Positional."""

    def odd(a: complex) -> None:
        """Odd."""

    for bad in (no_hint, star, positional, odd):
        with pytest.raises(TypeError):
            tools.tool(bad)
    with pytest.raises(TypeError, match="must be a function"):
        tools.tool(print)  # type: ignore[arg-type]
    assert tools.names() == ("plain",)


async def test_any_toolset_answers_a_bug_in_a_tool_as_tool_failed() -> None:
    class Buggy(FunctionToolset):
        @tool
        async def broken(self) -> JSON:
            """Return a list where a dict is due."""
            return [1]  # type: ignore[return-value]

    answer = await Buggy().call("broken")
    assert answer == {
        "ok": False,
        "error": "tool_failed",
        "message": (
            "tool 'broken' failed: TypeError: tool broken returned a list, not a JSON object"
        ),
    }
