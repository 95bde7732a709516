"""The Anthropic Messages provider, over the official ``anthropic`` SDK.

Stream events become neutral events: ``text_delta`` pieces are yielded as
they come; ``input_json_delta`` pieces are gathered per content block and
parsed once the stream has ended; ``message_start`` and ``message_delta``
give the usage (cache reads and writes included) and the stop reason.
Thinking, citation and signature deltas are not part of attn's conversation
and are skipped. A stream without its ``message_stop`` (or without a stop
reason) is a :class:`~attn.errors.ModelStreamError`; an ``error`` event
mid-stream (``overloaded_error``…) is the ModelError its type says.

Spec: 000 §4, issue 12 point 1; acceptance LLM-04, LLM-10 .. LLM-13, LLM-22.
"""

from __future__ import annotations

from typing import Any

from attn import jsontext
from attn.brains.providers.anthropic_wire import messages_request
from attn.brains.providers.base import ModelEvent, ModelRequest, Usage
from attn.brains.providers.sdk_client import SDKClient
from attn.brains.providers.stop_reasons import anthropic_stop
from attn.brains.providers.streamed import StreamedTurn, token_count
from attn.errors import ModelStreamError

#: The official API, used when no ``base_url`` is given.
ANTHROPIC_BASE_URL = "https://api.anthropic.com"


class AnthropicMessagesClient(SDKClient):
    """A :class:`~attn.brains.providers.base.ModelClient` for Anthropic Messages.

    Args (see :class:`~attn.brains.providers.sdk_client.SDKClient`): ``api_key``;
    ``base_url``, another endpoint such as a proxy or the fake provider (None
    for api.anthropic.com); ``timeout_s``; ``clock``.

    Raises:
        InvalidInput: the ``anthropic`` SDK is not installed (``pip install 'attn[anthropic]'``).
    """

    provider = "anthropic"
    default_url = ANTHROPIC_BASE_URL

    def _make(self, api_key: str, timeout_s: float) -> Any:
        return self._sdk.AsyncAnthropic(
            api_key=api_key, base_url=self.base_url, max_retries=0, timeout=timeout_s
        )

    async def _open(self, request: ModelRequest) -> Any:
        return await self._client.messages.create(**messages_request(request))

    def _reader(self, request: ModelRequest) -> _AnthropicTurn:
        return _AnthropicTurn(request)


class _AnthropicTurn:
    """Reads raw Messages stream events into a :class:`StreamedTurn`."""

    __slots__ = ("_usage", "ended", "turn")

    def __init__(self, request: ModelRequest) -> None:
        self.turn = StreamedTurn(request, "anthropic")
        self.ended = False
        self._usage: dict[str, int] = {}

    def take(self, event: Any) -> list[ModelEvent]:
        delta = self._take(event)
        return [delta] if delta is not None else []

    def _take(self, event: Any) -> ModelEvent | None:
        kind = getattr(event, "type", None)
        if kind == "content_block_delta":
            delta = getattr(event, "delta", None)
            delta_kind = getattr(delta, "type", None)
            if delta_kind == "text_delta":
                return self.turn.text(getattr(delta, "text", None))
            if delta_kind == "input_json_delta":
                piece = getattr(delta, "partial_json", None)
                self.turn.tool_call(getattr(event, "index", None)).add_arguments(
                    piece if isinstance(piece, str) else None
                )
        elif kind == "content_block_start":
            block = getattr(event, "content_block", None)
            if getattr(block, "type", None) == "tool_use":
                parts = self.turn.tool_call(getattr(event, "index", None))
                block_id = getattr(block, "id", None)
                parts.id = block_id[:200] if isinstance(block_id, str) else ""
                name = getattr(block, "name", None)
                parts.add_name(name if isinstance(name, str) else None)
                start = getattr(block, "input", None)
                if isinstance(start, dict) and start:
                    # The API starts with {} and streams the JSON; a proxy may
                    # send the whole input here instead.
                    parts.add_arguments(jsontext.dumps(start))
        elif kind == "message_start":
            self._count(getattr(getattr(event, "message", None), "usage", None))
        elif kind == "message_delta":
            self._count(getattr(event, "usage", None))
            reason = getattr(getattr(event, "delta", None), "stop_reason", None)
            if isinstance(reason, str) and reason:
                self.turn.stop = anthropic_stop(reason)
        elif kind == "message_stop":
            self.ended = True
        return None

    def finish(self) -> list[ModelEvent]:
        """The closing events; a stream without ``message_stop`` was cut.

        Raises:
            ModelStreamError: no ``message_stop`` or no stop reason, or bad
                tool-call JSON.
        """
        if not self.ended:
            raise ModelStreamError("anthropic stream ended before message_stop: the turn failed")
        return self.turn.finish()

    def _count(self, usage: Any) -> None:
        """Keep the latest of each count (message_delta's are cumulative)."""
        if usage is None:
            return
        for field in (
            "input_tokens",
            "output_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        ):
            value = getattr(usage, field, None)
            if value is not None:
                self._usage[field] = token_count(value)
        self.turn.usage = Usage(
            input_tokens=self._usage.get("input_tokens", 0),
            output_tokens=self._usage.get("output_tokens", 0),
            cache_read_tokens=self._usage.get("cache_read_input_tokens", 0),
            cache_write_tokens=self._usage.get("cache_creation_input_tokens", 0),
        )


__all__ = ["ANTHROPIC_BASE_URL", "AnthropicMessagesClient"]
