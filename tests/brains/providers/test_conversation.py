"""Neutral conversations through both providers, checked by the fake provider's
validators (the real APIs' rules): a repaired history is accepted, an orphaned
tool call is the API's 400, never retried (LLM-05 at the provider level)."""

from __future__ import annotations

import pytest

from attn.brains.llm.conversation import INTERRUPTED_RESULT, assistant, repair, tool_result, user
from attn.brains.providers import ModelClient
from attn.errors import ModelError
from attn.testing import FakeProvider, Turn
from attn.types import JSON
from tests.brains.providers.providerhelp import collect, request


def history() -> list[JSON]:
    """Two tool calls, one answered, one cut off (its result never came)."""
    return [
        user("find the launch notes"),
        assistant(
            "Looking.",
            [
                {"id": "call_1", "name": "search", "arguments": {"q": "launch"}},
                {"id": "call_2", "name": "search", "arguments": {"q": "notes"}},
            ],
        ),
        tool_result("call_1", "search", '{"ok": true, "hits": 1}'),
        user("are you done?"),
    ]


async def test_llm_05_an_orphaned_tool_call_is_refused_and_not_retried(
    client: ModelClient, fp: FakeProvider
) -> None:
    fp.script(Turn(text="never sent"))
    with pytest.raises(ModelError) as caught:
        await collect(client, request(messages=history()))
    assert (caught.value.status, caught.value.retryable) == (400, False)
    assert fp.requests[0].accepted is False
    assert "call_2" in (fp.requests[0].rejection or "")


async def test_llm_05_the_repaired_history_is_accepted(
    client: ModelClient, fp: FakeProvider
) -> None:
    fp.script(Turn(text="Yes."))
    repaired = repair(history())
    await collect(client, request(messages=repaired, context="Queue: 1 item."))
    assert fp.requests[0].accepted, fp.requests[0].rejection
    body = fp.requests[0].body
    assert body is not None
    assert INTERRUPTED_RESULT in str(body["messages"])


async def test_a_long_tool_conversation_is_accepted(client: ModelClient, fp: FakeProvider) -> None:
    messages: list[JSON] = [user("start")]
    for turn in range(5):
        calls = [
            {"id": f"call_{turn}_{n}", "name": "search", "arguments": {"n": n}} for n in range(3)
        ]
        messages.append(assistant("" if turn % 2 else f"step {turn}", calls))
        messages.extend(
            tool_result(call["id"], "search", "{}", is_error=n == 1) for n, call in enumerate(calls)
        )
    messages.append(assistant("done"))
    messages.append(user("thanks"))
    fp.script(Turn(text="You're welcome."))
    await collect(client, request(messages=messages, context="Queue: empty."))
    assert fp.requests[0].accepted, fp.requests[0].rejection
