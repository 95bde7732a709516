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

from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

from attn.brains.providers.base import ModelEvent, ModelRequest, Usage
from attn.brains.providers.neutral import check_request, require_sdk
from attn.brains.providers.openai_wire import chat_request
from attn.brains.providers.sdk_errors import is_provider_failure, to_model_error
from attn.brains.providers.stop_reasons import openai_stop
from attn.brains.providers.streamed import StreamedTurn, token_count
from attn.clock import SYSTEM_CLOCK, Clock
from attn.errors import ModelError

#: The official API, used when no ``base_url`` is given.
OPENAI_BASE_URL = "https://api.openai.com/v1"


class OpenAIChatClient:
    """A :class:`~attn.brains.providers.base.ModelClient` for Chat Completions.

    Args:
        api_key: the key (from the environment; see
            :func:`attn.brains.providers.factory.make_client`). Never logged
            or shown: errors blank it out.
        base_url: an OpenAI-compatible server's ``…/v1`` URL; None for
            api.openai.com.
        timeout_s: the SDK's timeout for connecting and for each read, in seconds.
        clock: the time source (for ``retry-after`` dates).

    Raises:
        InvalidInput: the ``openai`` SDK is not installed (``pip install 'attn[openai]'``).
    """

    provider = "openai"

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout_s: float = 60.0,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self._sdk = require_sdk("openai")
        self._api_key = api_key
        self._clock = clock
        self._official = base_url is None or urlsplit(base_url).hostname == "api.openai.com"
        self.base_url = base_url or OPENAI_BASE_URL
        # Explicit base_url and key: the SDK reads no OPENAI_* variable for them.
        self._client: Any = self._sdk.AsyncOpenAI(
            api_key=api_key, base_url=self.base_url, max_retries=0, timeout=timeout_s
        )

    def __repr__(self) -> str:
        return f"OpenAIChatClient(base_url={self.base_url!r})"

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream one turn (see :class:`~attn.brains.providers.base.ModelClient`).

        Iterate it inside ``contextlib.aclosing`` (or ``aclose()`` it) so that
        leaving early closes the HTTP response at once.

        Raises:
            InvalidInput: the request is malformed (nothing was sent).
            ModelError: the server refused or failed.
            ModelStreamError: the stream was cut or a tool call's JSON was bad.
        """
        check_request(request)
        kwargs = chat_request(request, official=self._official)
        try:
            # The client's own POST, not ``chat.completions.create``: the body is
            # already plain JSON, and create()'s type-driven transform of it costs
            # milliseconds per turn with attn's tool list (benchmarks/llm_loop.py).
            chunks = await self._client.post(
                "/chat/completions",
                body=kwargs,
                cast_to=self._sdk.types.chat.ChatCompletion,
                stream=True,
                stream_cls=self._sdk.AsyncStream[self._sdk.types.chat.ChatCompletionChunk],
            )
        except Exception as exc:
            if not is_provider_failure(exc, self._sdk):
                raise
            raise self._error(exc) from None
        turn = StreamedTurn(request, self.provider)
        async with chunks:  # closes the response on cancel, error or early exit
            try:
                async for chunk in chunks:
                    for event in _take(turn, chunk):
                        yield event
            except Exception as exc:
                if not is_provider_failure(exc, self._sdk):
                    raise
                raise self._error(exc, streaming=True) from None
        for event in turn.finish():
            yield event

    async def aclose(self) -> None:
        """Close the HTTP client and its connections."""
        await self._client.close()

    def _error(self, exc: Exception, *, streaming: bool = False) -> ModelError:
        return to_model_error(
            exc,
            self._sdk,
            provider=self.provider,
            secrets=(self._api_key,),
            now=self._clock.now(),
            streaming=streaming,
        )


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
