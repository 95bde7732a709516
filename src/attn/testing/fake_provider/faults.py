"""Faults the fake provider can answer with, and each API's error bodies.

A :class:`Fault` goes in the script like a :class:`~attn.testing.fake_provider.script.Turn`:
an error status with the API's JSON error body and ``retry-after`` header, an
overloaded provider, a stream cut before its terminator, an error event in the
middle of a stream (HTTP 200, as Anthropic reports overload mid-stream), or a
tool call whose argument JSON is cut while the stream ends normally.

Spec: issue 12 point 7; acceptance LLM-10..12.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from attn.testing.fake_provider.script import FakeToolCall, Turn, WireProtocol
from attn.types import JSON

__all__ = ["Fault", "FaultKind", "anthropic_error", "error_answer", "openai_error"]

#: Anthropic's error ``type`` per HTTP status.
_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
#: OpenAI's error ``type`` and ``code`` per HTTP status.
_OPENAI_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}
_DEFAULT_MESSAGES = {
    400: "Invalid request.",
    401: "Incorrect API key provided.",
    403: "Request not allowed.",
    404: "The model does not exist.",
    429: "Rate limit reached for requests.",
    500: "The server had an error while processing your request.",
    503: "The service is temporarily unavailable.",
    529: "Overloaded",
}


class FaultKind(StrEnum):
    """What a :class:`Fault` does."""

    STATUS = "status"
    OVERLOADED = "overloaded"
    CUT_STREAM = "cut_stream"
    TRUNCATED_TOOL_JSON = "truncated_tool_json"
    STREAM_ERROR = "stream_error"


@dataclass(frozen=True, slots=True)
class Fault:
    """A scripted failure; build one with the class methods.

    Attributes:
        kind: what happens.
        status_code: the HTTP status (``STATUS``), or the error's status
            (``STREAM_ERROR``: its error type, and the status of a non-streamed answer).
        retry_after: seconds for the ``retry-after`` header; None: no header.
        message: the error body's message; None: a default for the status.
        after_events: SSE events sent before a ``CUT_STREAM`` stops or a
            ``STREAM_ERROR`` reports its error.
        turn: what a ``CUT_STREAM``, ``STREAM_ERROR`` or ``TRUNCATED_TOOL_JSON`` streams.
    """

    kind: FaultKind
    status_code: int = 0
    retry_after: float | None = None
    message: str | None = None
    after_events: int = 0
    turn: Turn = field(default_factory=Turn)

    @classmethod
    def status(
        cls, code: int, retry_after: float | None = None, message: str | None = None
    ) -> Fault:
        """Answer HTTP ``code`` (400 .. 599) with the API's error body.

        Raises:
            ValueError: ``code`` is not 400 .. 599 or ``retry_after`` is negative.
        """
        if not 400 <= code <= 599:
            raise ValueError(f"an error status is 400 .. 599, got {code!r}")
        if retry_after is not None and not retry_after >= 0:
            raise ValueError(f"retry_after must be 0 or more seconds, got {retry_after!r}")
        return cls(FaultKind.STATUS, status_code=code, retry_after=retry_after, message=message)

    @classmethod
    def overloaded(cls, retry_after: float | None = None) -> Fault:
        """The provider is overloaded: Anthropic 529 ``overloaded_error``, OpenAI 503."""
        return cls(FaultKind.OVERLOADED, retry_after=retry_after)

    @classmethod
    def cut_stream(cls, after_events: int = 2, turn: Turn | None = None) -> Fault:
        """Stream ``after_events`` events of ``turn``, then close the connection
        without the stream's terminator (nor the chunked body's last chunk).

        A non-streamed request gets its headers and half its body, then the close.
        """
        if after_events < 0:
            raise ValueError(f"after_events must be 0 or more, got {after_events!r}")
        default = Turn(text="This answer never ends because the connection", chunks=5)
        return cls(FaultKind.CUT_STREAM, after_events=after_events, turn=turn or default)

    @classmethod
    def stream_error(
        cls,
        after_events: int = 2,
        code: int = 529,
        message: str | None = None,
        turn: Turn | None = None,
    ) -> Fault:
        """Stream ``after_events`` events of ``turn``, then the API's error event
        (Anthropic ``event: error``, OpenAI a ``data: {"error": ...}`` line) for
        status ``code`` (529: ``overloaded_error``), then end the stream. A
        non-streamed request gets the plain error status instead.

        Raises:
            ValueError: ``after_events`` is negative or ``code`` is not 400 .. 599.
        """
        if after_events < 0:
            raise ValueError(f"after_events must be 0 or more, got {after_events!r}")
        if not 400 <= code <= 599:
            raise ValueError(f"an error status is 400 .. 599, got {code!r}")
        default = Turn(text="This answer stops with an error", chunks=3)
        return cls(
            FaultKind.STREAM_ERROR,
            status_code=code,
            message=message,
            after_events=after_events,
            turn=turn or default,
        )

    @classmethod
    def truncated_tool_json(
        cls,
        name: str = "lookup",
        arguments: JSON | None = None,
        *,
        text: str = "",
        stop: str | None = None,
    ) -> Fault:
        """A tool call whose argument JSON is cut in half; the stream then ends
        normally (stop reason ``stop``, default the protocol's tool-use reason)."""
        call = FakeToolCall(name, arguments if arguments is not None else {"query": "a b c d"})
        return cls(
            FaultKind.TRUNCATED_TOOL_JSON, turn=Turn(text=text, tool_calls=[call], stop=stop)
        )


def openai_error(
    status: int, message: str, *, param: str | None = None, code: str | None = None
) -> JSON:
    """OpenAI's error body for ``status``: ``{"error": {message, type, param, code}}``."""
    kind, default_code = _OPENAI_TYPES.get(status, ("server_error", None))
    return {
        "error": {"message": message, "type": kind, "param": param, "code": code or default_code}
    }


def anthropic_error(status: int, message: str, request_id: str = "req_fake") -> JSON:
    """Anthropic's error body for ``status``: ``{"type": "error", "error": {type, message}}``."""
    kind = _ANTHROPIC_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": request_id}


def error_answer(fault: Fault, protocol: WireProtocol) -> tuple[int, JSON, dict[str, str]]:
    """The status, JSON body and extra headers a ``STATUS`` or ``OVERLOADED``
    fault answers with on ``protocol``."""
    if fault.kind is FaultKind.OVERLOADED:
        status = 529 if protocol == "anthropic" else 503
        message = fault.message or (
            "Overloaded" if protocol == "anthropic" else "The engine is currently overloaded."
        )
    else:
        status = fault.status_code
        message = fault.message or _DEFAULT_MESSAGES.get(status, f"Error {status}.")
    body = (
        anthropic_error(status, message)
        if protocol == "anthropic"
        else openai_error(status, message)
    )
    headers = {} if fault.retry_after is None else {"retry-after": f"{fault.retry_after:g}"}
    return status, body, headers
