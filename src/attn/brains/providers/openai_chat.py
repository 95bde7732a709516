"""The OpenAI Chat Completions provider, over the official ``openai`` SDK.

Works with api.openai.com and, through ``base_url``, with the servers that
speak the same protocol (vLLM, Ollama, llama.cpp, LM Studio, OpenRouter):
missing usage is tolerated, a tool call without an id gets a deterministic
one, and a tool-calling turn that ends with ``"stop"`` still runs its tools.

Streams with ``stream_options.include_usage``; tool-call deltas are gathered
by index and parsed once the stream has ended (see
:mod:`attn.brains.providers.streamed`). A stream that ends without a
``finish_reason`` is a :class:`~attn.errors.ModelStreamError`.

Spec: 000 §4, issue 12 point 1; acceptance LLM-04, LLM-10 .. LLM-13.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from attn.brains.providers.base import ModelEvent, ModelRequest, Usage
from attn.brains.providers.openai_wire import chat_request
from attn.brains.providers.sdk_client import SDKClient
from attn.brains.providers.stop_reasons import openai_stop
from attn.brains.providers.streamed import StreamedTurn, token_count

#: The official API, used when no ``base_url`` is given.
OPENAI_BASE_URL = "https://api.openai.com/v1"


class OpenAIChatClient(SDKClient):
    """A :class:`~attn.brains.providers.base.ModelClient` for Chat Completions.

    Args (see :class:`~attn.brains.providers.sdk_client.SDKClient`): ``api_key``;
    ``base_url``, an OpenAI-compatible server's ``…/v1`` URL (None for
    api.openai.com); ``timeout_s``; ``clock``.

    Raises:
        InvalidInput: the ``openai`` SDK is not installed (``pip install 'attn[openai]'``).
    """

    provider = "openai"
    default_url = OPENAI_BASE_URL

    def _make(self, api_key: str, timeout_s: float) -> Any:
        self._official = urlsplit(self.base_url).hostname == "api.openai.com"
        return self._sdk.AsyncOpenAI(
            api_key=api_key, base_url=self.base_url, max_retries=0, timeout=timeout_s
        )

    async def _open(self, request: ModelRequest) -> Any:
        # The client's own POST, not ``chat.completions.create``: the body is
        # already plain JSON, and create()'s type-driven transform of it costs
        # milliseconds per turn with attn's tool list (benchmarks/llm_loop.py).
        chat = self._sdk.types.chat
        return await self._client.post(
            "/chat/completions",
            body=chat_request(request, official=self._official),
            cast_to=chat.ChatCompletion,
            stream=True,
            stream_cls=self._sdk.AsyncStream[chat.ChatCompletionChunk],
        )

    def _reader(self, request: ModelRequest) -> _OpenAITurn:
        return _OpenAITurn(StreamedTurn(request, self.provider))


class _OpenAITurn:
    """Reads ``ChatCompletionChunk`` s into a :class:`StreamedTurn`."""

    __slots__ = ("turn",)

    def __init__(self, turn: StreamedTurn) -> None:
        self.turn = turn

    def take(self, chunk: Any) -> list[ModelEvent]:
        return _take(self.turn, chunk)

    def finish(self) -> list[ModelEvent]:
        return self.turn.finish()


def _take(turn: StreamedTurn, chunk: Any) -> list[ModelEvent]:
    """The events of one ``ChatCompletionChunk``; tool calls and usage go to ``turn``."""
    usage = getattr(chunk, "usage", None)
    if usage is not None:
        details = getattr(usage, "prompt_tokens_details", None)
        turn.usage = Usage(
            input_tokens=token_count(getattr(usage, "prompt_tokens", 0)),
            output_tokens=token_count(getattr(usage, "completion_tokens", 0)),
            cache_read_tokens=token_count(getattr(details, "cached_tokens", 0)),
        )
    events: list[ModelEvent] = []
    for choice in getattr(chunk, "choices", None) or ():
        if getattr(choice, "index", 0) not in (0, None):
            continue  # attn asks for one choice
        delta = getattr(choice, "delta", None)
        text = turn.text(getattr(delta, "content", None))
        if text is not None:
            events.append(text)
        for call in getattr(delta, "tool_calls", None) or ():
            _add_tool_delta(turn, call)
        reason = getattr(choice, "finish_reason", None)
        if isinstance(reason, str) and reason:
            turn.stop = openai_stop(reason)
    return events


def _add_tool_delta(turn: StreamedTurn, call: Any) -> None:
    index = getattr(call, "index", None)
    call_id = getattr(call, "id", None)
    if isinstance(index, int) and not isinstance(index, bool):
        parts = turn.tool_call(index)
    elif call_id or turn.last_tool_call is None:
        # No index (some local servers): a new id starts a new call.
        parts = turn.tool_call(call_id or 0)
    else:
        parts = turn.last_tool_call
    if isinstance(call_id, str) and call_id and not parts.id:
        parts.id = call_id[:200]
    function = getattr(call, "function", None)
    name = getattr(function, "name", None)
    parts.add_name(name if isinstance(name, str) else None)
    arguments = getattr(function, "arguments", None)
    parts.add_arguments(arguments if isinstance(arguments, str) else None)


__all__ = ["OPENAI_BASE_URL", "OpenAIChatClient"]
