"""What the two providers' clients share: an official SDK's async client, one
streamed turn read into neutral events, and SDK failures as ModelErrors.

A subclass says how to make its SDK client (:meth:`SDKClient._make`), how to
open one streamed turn (:meth:`SDKClient._open`) and how to read the stream's
events (:meth:`SDKClient._reader`, a :class:`TurnReader`).

Spec: 000 §4 (cancelActiveStream), issue 12 point 1; acceptance LLM-04, LLM-11..13.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from typing import Any, Protocol

from attn.brains.providers.base import ModelEvent, ModelRequest
from attn.brains.providers.neutral import check_request, require_sdk
from attn.brains.providers.sdk_errors import is_provider_failure, to_model_error
from attn.clock import SYSTEM_CLOCK, Clock
from attn.errors import ModelError


class TurnReader(Protocol):
    """Reads one turn's raw stream events."""

    def take(self, event: Any) -> list[ModelEvent]:
        """The neutral events ``event`` gives now (text deltas); the rest is kept."""
        ...

    def finish(self) -> list[ModelEvent]:
        """The closing events (tool calls, usage, stop).

        Raises:
            ModelStreamError: the stream was cut, or a tool call's JSON is bad.
        """
        ...


class SDKClient(ABC):
    """A :class:`~attn.brains.providers.base.ModelClient` over an official SDK.

    Args:
        api_key: the key (from the environment; see
            :func:`attn.brains.providers.factory.make_client`). Never logged
            or shown: errors blank it out.
        base_url: another endpoint; None for the provider's own (``default_url``).
        timeout_s: the SDK's timeout for connecting and for each read, in seconds.
        clock: the time source (for ``retry-after`` dates).

    Raises:
        InvalidInput: the provider's SDK is not installed (``pip install 'attn[...]'``).
    """

    #: ``"openai"`` or ``"anthropic"``: also the SDK's import name and the extra.
    provider = ""
    #: The provider's own endpoint, used when no ``base_url`` is given.
    default_url = ""

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout_s: float = 60.0,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self._sdk = require_sdk(self.provider)
        self._api_key = api_key
        self._clock = clock
        self.base_url = base_url or self.default_url
        # An explicit key and base_url: the SDK reads no environment variable for them.
        self._client: Any = self._make(api_key, timeout_s)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r})"

    @abstractmethod
    def _make(self, api_key: str, timeout_s: float) -> Any:
        """The SDK's async client (no retries of its own: attn's policy retries)."""

    @abstractmethod
    async def _open(self, request: ModelRequest) -> Any:
        """Send ``request``; the SDK's async stream of its events."""

    @abstractmethod
    def _reader(self, request: ModelRequest) -> TurnReader:
        """A reader for the events of one streamed turn."""

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
        try:
            events = await self._open(request)
        except Exception as exc:
            if not is_provider_failure(exc, self._sdk):
                raise
            raise self._error(exc) from None
        reader = self._reader(request)
        async with events:  # closes the response on cancel, error or early exit
            try:
                async for event in events:
                    for taken in reader.take(event):
                        yield taken
            except Exception as exc:
                if not is_provider_failure(exc, self._sdk):
                    raise
                raise self._error(exc, streaming=True) from None
        for closing in reader.finish():
            yield closing

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


__all__ = ["SDKClient", "TurnReader"]
