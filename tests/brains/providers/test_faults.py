"""Faults as ModelErrors with the right flags (LLM-11), cut streams and cut tool JSON
(LLM-12), and the API key in no error (LLM-13), on both protocols."""

from __future__ import annotations

import socket
import traceback

import pytest

from attn.brains.providers import (
    AnthropicMessagesClient,
    ModelClient,
    ModelEvent,
    OpenAIChatClient,
    ToolCall,
)
from attn.errors import ModelError, ModelStreamError
from attn.testing import FakeProvider, FakeToolCall, Fault, Turn
from tests.brains.providers.providerhelp import KEY, make, request


async def failure(client: ModelClient, events: list[ModelEvent] | None = None) -> ModelError:
    """The ModelError one turn raises; the events before it go to ``events``."""
    seen = events if events is not None else []
    with pytest.raises(ModelError) as caught:
        async for event in client.stream(request()):
            seen.append(event)
    return caught.value


@pytest.mark.parametrize("status", [429, 500, 502, 503])
async def test_llm_11_rate_limits_and_server_errors_are_retryable(
    client: ModelClient, fp: FakeProvider, status: int
) -> None:
    fp.script(Fault.status(status))
    error = await failure(client)
    assert (error.status, error.retryable, error.retry_after_s) == (status, True, None)
    assert not isinstance(error, ModelStreamError)


async def test_llm_11_retry_after_is_read(client: ModelClient, fp: FakeProvider) -> None:
    fp.script(Fault.status(429, retry_after=7))
    error = await failure(client)
    assert (error.status, error.retryable, error.retry_after_s) == (429, True, 7.0)


async def test_llm_11_overloaded_is_retryable(client: ModelClient, fp: FakeProvider) -> None:
    fp.script(Fault.overloaded(retry_after=2))
    error = await failure(client)
    assert error.status == (529 if client.provider == "anthropic" else 503)
    assert error.retryable
    assert error.retry_after_s == 2.0


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
async def test_llm_11_refusals_are_not_retryable(
    client: ModelClient, fp: FakeProvider, status: int
) -> None:
    fp.script(Fault.status(status))
    error = await failure(client)
    assert (error.status, error.retryable) == (status, False)


async def test_llm_11_no_server_is_a_retryable_connection_error() -> None:
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for client in (
        OpenAIChatClient(api_key=KEY, base_url=f"http://127.0.0.1:{port}/v1"),
        AnthropicMessagesClient(api_key=KEY, base_url=f"http://127.0.0.1:{port}"),
    ):
        error = await failure(client)
        assert (error.status, error.retryable) == (None, True)
        assert not isinstance(error, ModelStreamError)
        await client.aclose()


@pytest.mark.parametrize("after_events", range(14))
async def test_llm_12_a_cut_stream_fails_the_turn_and_runs_no_tool(
    client: ModelClient, fp: FakeProvider, after_events: int
) -> None:
    turn = Turn(text="Looking it up", tool_calls=[FakeToolCall("search", {"q": "x"})], chunks=2)
    fp.script(Fault.cut_stream(after_events=after_events, turn=turn))
    events: list[ModelEvent] = []
    error = await failure(client, events)
    assert isinstance(error, ModelStreamError)
    assert error.retryable
    assert not [event for event in events if isinstance(event, ToolCall)]


async def test_llm_12_truncated_tool_json_fails_the_turn_and_runs_no_tool(
    client: ModelClient, fp: FakeProvider
) -> None:
    fp.script(Fault.truncated_tool_json("search", {"q": "a long query"}, text="Let me see."))
    events: list[ModelEvent] = []
    error = await failure(client, events)
    assert isinstance(error, ModelStreamError)
    assert "search" in error.message
    assert not [event for event in events if isinstance(event, ToolCall)]


def _everything_shown(error: BaseException) -> str:
    return "\n".join([str(error), repr(error), *traceback.format_exception(error), str(error.args)])


@pytest.mark.parametrize("status", [400, 401, 403, 429, 500])
async def test_llm_13_a_key_echoed_by_the_provider_is_not_in_the_error(
    client: ModelClient, fp: FakeProvider, status: int
) -> None:
    fp.script(Fault.status(status, message=f"Incorrect API key provided: {KEY}. Check it."))
    error = await failure(client)
    shown = _everything_shown(error)
    assert KEY not in shown
    assert "CANARY" not in shown
    assert "Incorrect API key provided" in error.message  # the rest of the message is kept


async def test_llm_13_a_wrong_key_is_refused_and_not_shown(fp: FakeProvider) -> None:
    wrong = "local-key-WRONGCANARY-31"
    for protocol in ("openai", "anthropic"):
        client = make(protocol, fp, key=wrong)
        error = await failure(client)
        assert (error.status, error.retryable) == (401, False)
        assert wrong not in _everything_shown(error)
        assert wrong not in repr(client)
        await client.aclose()
    assert [r.accepted for r in fp.requests] == [False, False]


async def test_llm_13_no_key_in_a_connection_or_stream_error(
    client: ModelClient, fp: FakeProvider
) -> None:
    fp.script(Fault.cut_stream(after_events=1))
    error = await failure(client)
    assert KEY not in _everything_shown(error)
