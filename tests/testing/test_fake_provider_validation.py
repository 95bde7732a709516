"""The fake provider refuses what the real APIs refuse (400 with the API's error body, 401
without a key), records the refusal, and leaves the script untouched."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx
import openai
import pytest

from attn.testing import FakeProvider, Turn

CALL = {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": '{"a": 2}'}}
OPENAI_TOOLS = [{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}]
USE = {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "5"}


async def test_openai_refuses_a_tool_call_without_its_tool_message_then_accepts_it_answered(
    fp: FakeProvider, oai: openai.AsyncOpenAI
) -> None:
    fp.script(Turn(text="5"))
    orphaned: Any = [
        {"role": "user", "content": "2+3?"},
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "user", "content": "and now?"},
    ]
    with pytest.raises(openai.BadRequestError) as caught:
        await oai.chat.completions.create(model="m", messages=orphaned, tools=OPENAI_TOOLS)
    message = caught.value.body["message"]  # type: ignore[index]
    assert message.startswith(
        "An assistant message with 'tool_calls' must be followed by tool messages"
    )
    assert message.endswith("call_1")
    assert fp.requests[0].accepted is False and fp.requests[0].rejection == message
    assert fp.remaining == 1  # a refused request takes nothing from the script

    answered = [
        *orphaned[:2],
        {"role": "tool", "tool_call_id": "call_1", "content": "5"},
        orphaned[2],
    ]
    reply = await oai.chat.completions.create(model="m", messages=answered, tools=OPENAI_TOOLS)
    assert reply.choices[0].message.content == "5" and fp.requests[1].accepted


async def test_anthropic_refuses_a_tool_use_without_its_result_then_accepts_it_answered(
    fp: FakeProvider, ant: anthropic.AsyncAnthropic
) -> None:
    fp.script(Turn(text="5"))
    orphaned: Any = [
        {"role": "user", "content": "2+3?"},
        {"role": "assistant", "content": [USE]},
        {"role": "user", "content": "and now?"},
    ]
    with pytest.raises(anthropic.BadRequestError) as caught:
        await ant.messages.create(model="m", max_tokens=10, messages=orphaned)
    error: Any = caught.value.body
    assert error["error"]["type"] == "invalid_request_error"
    assert (
        "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1"
        in (error["error"]["message"])
    )
    assert fp.rejected[0].rejection == error["error"]["message"] and fp.remaining == 1

    answered = [
        *orphaned[:2],
        {"role": "user", "content": [RESULT, {"type": "text", "text": "and now?"}]},
    ]
    message = await ant.messages.create(model="m", max_tokens=10, messages=answered)
    assert message.content[0].type == "text" and fp.requests[1].accepted


async def test_a_missing_key_is_401_on_both_protocols(fp: FakeProvider) -> None:
    fp.script(Turn(text="never served"))
    async with httpx.AsyncClient(base_url=fp.base_url) as http:
        oai = await http.post("/v1/chat/completions", json={"model": "m", "messages": []})
        ant = await http.post(
            "/v1/messages",
            json={"model": "m", "max_tokens": 1, "messages": []},
            headers={"anthropic-version": "2023-06-01"},
        )
    assert (oai.status_code, oai.json()["error"]["code"]) == (401, "invalid_api_key")
    assert (ant.status_code, ant.json()["error"]["type"]) == (401, "authentication_error")
    assert [r.accepted for r in fp.requests] == [False, False] and fp.remaining == 1


async def test_a_wrong_key_is_401_when_the_provider_wants_one() -> None:
    async with FakeProvider(api_key="right") as fp:
        client = openai.AsyncOpenAI(base_url=fp.openai_base_url, api_key="wrong", max_retries=0)
        with pytest.raises(openai.AuthenticationError):
            await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}]
            )
        await client.close()


OPENAI_REFUSED = [
    ({"messages": [{"role": "user", "content": "x"}]}, "you must provide a model parameter"),
    ({"model": "m"}, "Missing required parameter: 'messages'."),
    ({"model": "m", "messages": []}, "empty array"),
    ({"model": "m", "messages": [{"role": "robot", "content": "x"}]}, "Invalid value: 'robot'"),
    (
        {
            "model": "m",
            "messages": [
                {"role": "user", "content": "x"},
                {"role": "tool", "tool_call_id": "c", "content": "5"},
            ],
        },
        "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
    ),
    (
        {
            "model": "m",
            "messages": [
                {"role": "user", "content": "x"},
                {"role": "assistant", "tool_calls": [CALL]},
            ],
        },
        "did not have response messages: call_1",
    ),
    (
        {
            "model": "m",
            "messages": [{"role": "user", "content": "x"}],
            "tools": [{"type": "function", "function": {}}],
        },
        "Missing required parameter: 'tools[0].function.name'.",
    ),
    (
        {
            "model": "m",
            "messages": [{"role": "user", "content": "x"}],
            "stream_options": {"include_usage": True},
        },
        "only allowed when 'stream' is enabled",
    ),
]


@pytest.mark.parametrize(("body", "wording"), OPENAI_REFUSED)
async def test_openai_rules(fp: FakeProvider, body: dict[str, Any], wording: str) -> None:
    fp.script(Turn(text="never served"))
    async with httpx.AsyncClient(
        base_url=fp.openai_base_url, headers={"authorization": "Bearer k"}
    ) as http:
        reply = await http.post("/chat/completions", json=body)
    assert reply.status_code == 400
    assert wording in reply.json()["error"]["message"]
    assert reply.json()["error"]["type"] == "invalid_request_error"
    assert fp.requests[0].accepted is False and fp.remaining == 1


def _blocks(n: int) -> list[dict[str, Any]]:
    return [
        {"type": "text", "text": f"t{i}", "cache_control": {"type": "ephemeral"}} for i in range(n)
    ]


ANTHROPIC_REFUSED = [
    ({"max_tokens": 1, "messages": [{"role": "user", "content": "x"}]}, "model: Field required"),
    ({"model": "m", "messages": [{"role": "user", "content": "x"}]}, "max_tokens: Field required"),
    (
        {"model": "m", "max_tokens": 0, "messages": []},
        "max_tokens: Input should be greater than or equal to 1",
    ),
    (
        {"model": "m", "max_tokens": 1, "messages": [{"role": "assistant", "content": "x"}]},
        'first message must use the "user" role',
    ),
    (
        {"model": "m", "max_tokens": 1, "messages": [{"role": "system", "content": "x"}]},
        "Input should be 'user' or 'assistant'",
    ),
    (
        {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [RESULT]}]},
        "unexpected `tool_use_id` found in `tool_result` blocks: toolu_1",
    ),
    (
        {
            "model": "m",
            "max_tokens": 1,
            "messages": [
                {"role": "user", "content": "x"},
                {"role": "assistant", "content": [USE]},
                {"role": "user", "content": [{"type": "text", "text": "first"}, RESULT]},
            ],
        },
        "`tool_result` blocks must come first",
    ),
    (
        {
            "model": "m",
            "max_tokens": 1,
            "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": [USE]}],
        },
        "immediately after: toolu_1",
    ),
    (
        {
            "model": "m",
            "max_tokens": 1,
            "system": _blocks(3),
            "messages": [{"role": "user", "content": _blocks(2)}],
        },
        "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    ),
    (
        {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": ""}]},
        "all messages must have non-empty content",
    ),
    (
        {
            "model": "m",
            "max_tokens": 1,
            "messages": [{"role": "user", "content": "x"}],
            "tools": [{"name": "add"}],
        },
        "tools.0.custom.input_schema: Field required",
    ),
]


@pytest.mark.parametrize(("body", "wording"), ANTHROPIC_REFUSED)
async def test_anthropic_rules(fp: FakeProvider, body: dict[str, Any], wording: str) -> None:
    fp.script(Turn(text="never served"))
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    async with httpx.AsyncClient(base_url=fp.anthropic_base_url, headers=headers) as http:
        reply = await http.post("/v1/messages", json=body)
    assert reply.status_code == 400
    assert reply.json()["type"] == "error" and wording in reply.json()["error"]["message"]
    assert fp.requests[0].accepted is False and fp.remaining == 1


async def test_four_cache_breakpoints_and_a_final_empty_assistant_prefill_are_accepted(
    fp: FakeProvider, ant: anthropic.AsyncAnthropic
) -> None:
    fp.script(Turn(text="ok"))
    messages: Any = [{"role": "user", "content": _blocks(2)}, {"role": "assistant", "content": ""}]
    await ant.messages.create(model="m", max_tokens=5, system=_blocks(2), messages=messages)  # type: ignore[arg-type]
    assert fp.requests[0].accepted


async def test_a_body_that_is_not_json_is_refused_with_the_api_wording(fp: FakeProvider) -> None:
    async with httpx.AsyncClient(
        base_url=fp.base_url, headers={"authorization": "Bearer k"}
    ) as http:
        reply = await http.post("/v1/chat/completions", content=b"{not json")
    assert (
        reply.status_code == 400
        and "could not parse the JSON body" in reply.json()["error"]["message"]
    )
    assert fp.requests[0].body is None and fp.requests[0].raw == b"{not json"
