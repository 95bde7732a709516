"""SDK exceptions as :class:`~attn.errors.ModelError` s, with no API key in them.

Both official SDKs raise the same family: ``APIStatusError`` (the provider
answered 4xx/5xx, or sent an ``error`` event mid-stream), ``APIConnectionError``
and its ``APITimeoutError`` (no answer), and a bare ``APIError`` (an error
object inside an OpenAI stream). :func:`to_model_error` turns each into a
``ModelError`` whose flags the tool loop acts on (LLM-11): 408, 409, 429,
5xx, 529 and ``overloaded_error``, connection failures and timeouts are
retryable; 400, 401, 403, 404, 422 and other refusals are not. A provider's
``x-should-retry`` header, when present, wins. A connection that fails after
the stream began is a :class:`~attn.errors.ModelStreamError` (LLM-12).

The message is attn's own (provider, status, error type, the provider's
message) with the API key and anything shaped like a key blanked out, and the
SDK exception is not chained, since its text and request can hold the key
(LLM-13).

Spec: issue 12 point 1; acceptance LLM-11, LLM-12, LLM-13.
"""

from __future__ import annotations

import email.utils
import math
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from types import ModuleType
from typing import Any

from attn.errors import ModelError, ModelStreamError

#: Longest ``retry-after`` honoured, in seconds (larger values are clamped).
MAX_RETRY_AFTER_S = 3600.0
#: Longest provider message kept in a ModelError's message.
MAX_DETAIL_CHARS = 300
#: What a blanked-out key reads as.
REDACTED = "[redacted]"

#: Statuses worth trying again (the SDKs' own retry set, plus 529 overloaded).
RETRYABLE_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})

#: The status an error ``type`` stands for when it comes inside a 200 stream.
_STATUS_OF_TYPE = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}

# Key-shaped words: OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), and the
# partly masked forms providers echo back ("sk-abc****wxyz").
_KEY_SHAPED = re.compile(r"\b(?:sk|pk|rk|ak)-[A-Za-z0-9_\-*.]{3,}")


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with each of ``secrets`` (4 or more characters) and key-shaped words blanked."""
    for secret in secrets:
        if len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    return _KEY_SHAPED.sub(REDACTED, text)


def retry_after_s(headers: Mapping[str, str], now: datetime) -> float | None:
    """The wait a response asks for, in seconds, bounded to 0 .. 3600.

    Reads ``retry-after-ms`` (milliseconds), then ``retry-after`` as seconds
    or as an HTTP date, measured from the response's ``date`` header when it
    has one, else from ``now``.

    Args:
        headers: the response headers (case-insensitive lookup, as httpx gives).
        now: the current time (UTC), from the injected clock.

    Returns:
        Seconds (a date in the past is 0), or None when neither header is
        present or readable.
    """
    millis = _number(headers.get("retry-after-ms"))
    if millis is not None:
        return _bounded(millis / 1000.0)
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return _bounded(seconds)
    when = _http_date(value)
    if when is None:
        return None
    origin = _http_date(headers.get("date")) or now
    return _bounded((when - origin).total_seconds())


#: Packages whose exceptions mean the HTTP exchange failed (the anthropic SDK
#: lets a connection cut mid-stream surface as the transport's own error).
_TRANSPORTS = frozenset({"httpx", "httpx2", "httpcore", "h11"})


def is_provider_failure(exc: BaseException, sdk: ModuleType) -> bool:
    """Whether ``exc`` is the SDK's error or its HTTP transport's (not a bug of attn)."""
    if isinstance(exc, sdk.APIError):
        return True
    return type(exc).__module__.split(".")[0] in _TRANSPORTS and isinstance(exc, Exception)


def to_model_error(
    exc: Exception,
    sdk: ModuleType,
    *,
    provider: str,
    secrets: Iterable[str],
    now: datetime,
    streaming: bool = False,
) -> ModelError:
    """The ModelError for an exception the ``sdk`` (``openai`` or ``anthropic``) raised.

    Args:
        exc: what the SDK raised.
        sdk: the SDK's top-level module (its exception classes are used).
        provider: ``"openai"`` or ``"anthropic"``, for the message.
        secrets: the API key (and anything else never to show).
        now: the current time, for a ``retry-after`` given as a date.
        streaming: the response had begun: a connection failure now is a
            cut stream.

    Returns:
        The error; raise it ``from None``. An exception that is not the SDK's
        is returned as a non-retryable ModelError naming its class only.
    """
    secrets = tuple(secrets)
    if isinstance(exc, sdk.APIStatusError):
        return _status_error(exc, provider=provider, secrets=secrets, now=now)
    if isinstance(exc, sdk.APIConnectionError):
        timed_out = isinstance(exc, sdk.APITimeoutError)
        what = "timed out" if timed_out else "connection failed"
        if streaming:
            return ModelStreamError(f"{provider} stream cut: {what}")
        return ModelError(f"{provider} request {what}", retryable=True)
    if not isinstance(exc, sdk.APIError) and is_provider_failure(exc, sdk):
        what = type(exc).__name__
        if streaming:
            return ModelStreamError(f"{provider} stream cut: {what}")
        return ModelError(f"{provider} request failed: {what}", retryable=True)
    if isinstance(exc, sdk.APIError):
        body = _inner(getattr(exc, "body", None))
        kind = _field(body, "type")
        status = _STATUS_OF_TYPE.get(kind or "")
        detail = _field(body, "message") or str(exc)
        return ModelError(
            _message(provider, status, kind, detail, secrets),
            status=status,
            retryable=status is None or status in RETRYABLE_STATUSES,
        )
    return ModelError(f"{provider} client failed: {type(exc).__name__}")


def _status_error(
    exc: Any, *, provider: str, secrets: tuple[str, ...], now: datetime
) -> ModelError:
    status: int = exc.status_code
    body = _inner(exc.body)
    kind = _field(body, "type")
    detail = _field(body, "message")
    if status < 400:  # an error event inside a 200 stream: its type says what it is
        status = _STATUS_OF_TYPE.get(kind or "", 500)
    headers = exc.response.headers
    should_retry = headers.get("x-should-retry")
    if should_retry in ("true", "false"):
        retryable = should_retry == "true"
    else:
        retryable = status in RETRYABLE_STATUSES or status >= 500 or kind == "overloaded_error"
    return ModelError(
        _message(provider, status, kind, detail, secrets),
        status=status,
        retryable=retryable,
        retry_after_s=retry_after_s(headers, now),
    )


def _message(
    provider: str, status: int | None, kind: str | None, detail: str | None, secrets: Iterable[str]
) -> str:
    head = f"{provider} answered {status}" if status is not None else f"{provider} stream error"
    if kind:
        head += f" {kind}"
    if not detail:
        return redact(head, secrets)
    detail = " ".join(detail.split())
    if len(detail) > MAX_DETAIL_CHARS:
        detail = detail[: MAX_DETAIL_CHARS - 1] + "…"
    return redact(f"{head}: {detail}", secrets)


def _inner(body: object) -> object:
    """The error object: Anthropic wraps it (``{"type": "error", "error": {...}}``),
    the OpenAI SDK has already unwrapped it."""
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return body["error"]
    return body


def _field(body: object, name: str) -> str | None:
    value = body.get(name) if isinstance(body, dict) else None
    return value if isinstance(value, str) else None


def _number(value: str | None) -> float | None:
    if value is None or len(value) > 32:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _http_date(value: str | None) -> datetime | None:
    if value is None or len(value) > 64:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _bounded(seconds: float) -> float:
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_S)


__all__ = [
    "MAX_DETAIL_CHARS",
    "MAX_RETRY_AFTER_S",
    "REDACTED",
    "RETRYABLE_STATUSES",
    "is_provider_failure",
    "redact",
    "retry_after_s",
    "to_model_error",
]
