"""retry-after parsing and key redaction (LLM-11, LLM-13), without a server."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from attn.brains.providers.sdk_errors import (
    MAX_RETRY_AFTER_S,
    REDACTED,
    redact,
    retry_after_s,
    to_model_error,
)

NOW = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after-ms": "soon", "retry-after": "9"}, 9.0),
        ({"retry-after": "-3"}, 0.0),
        ({"retry-after": "999999999"}, MAX_RETRY_AFTER_S),
        ({"retry-after": "1e400"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after": "whenever"}, None),
        ({"retry-after": "9" * 5000}, None),
        ({"retry-after": "Tue, 01 Dec 2026 12:00:30 GMT"}, 30.0),
        ({"retry-after": "Tue, 01 Dec 2026 11:00:00 GMT"}, 0.0),
        ({"retry-after": "Wed, 02 Dec 2026 12:00:00 GMT"}, MAX_RETRY_AFTER_S),
        # The server's own Date header is the origin, not our clock.
        (
            {
                "retry-after": "Tue, 01 Dec 2026 10:00:05 GMT",
                "date": "Tue, 01 Dec 2026 10:00:00 GMT",
            },
            5.0,
        ),
    ],
)
def test_llm_11_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert retry_after_s(headers, NOW) == expected


def test_llm_13_redact_blanks_the_key_and_key_shaped_words() -> None:
    key = "local-secret-4f9a2b"
    text = f"bad key {key}; Incorrect API key provided: sk-proj-abc****wxyz and sk-ant-api03-XYZ"
    cleaned = redact(text, [key])
    assert key not in cleaned
    assert "sk-" not in cleaned
    assert cleaned.count(REDACTED) == 3
    assert redact("no secrets here", [key, ""]) == "no secrets here"


def _response(status: int, headers: dict[str, str] | None = None) -> object:
    import httpx2

    return httpx2.Response(
        status, headers=headers, request=httpx2.Request("POST", "http://127.0.0.1/v1/messages")
    )


def test_llm_11_an_overloaded_error_event_inside_a_200_stream_is_retryable() -> None:
    import anthropic
    from anthropic._error_classes import make_status_error

    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    exc = make_status_error(str(body), body=body, response=_response(200))  # type: ignore[arg-type]
    error = to_model_error(
        exc, anthropic, provider="anthropic", secrets=(), now=NOW, streaming=True
    )
    assert (error.status, error.retryable) == (529, True)
    assert error.message == "anthropic answered 529 overloaded_error: Overloaded"


def test_llm_11_x_should_retry_wins() -> None:
    import anthropic
    from anthropic._error_classes import make_status_error

    body = {"type": "error", "error": {"type": "api_error", "message": "no"}}
    exc = make_status_error("x", body=body, response=_response(500, {"x-should-retry": "false"}))  # type: ignore[arg-type]
    error = to_model_error(exc, anthropic, provider="anthropic", secrets=(), now=NOW)
    assert (error.status, error.retryable) == (500, False)


def test_llm_11_an_error_object_inside_an_openai_stream() -> None:
    import httpx2
    import openai

    request = httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions")
    server = openai.APIError("boom", request, body={"message": "boom", "type": "server_error"})
    refused = openai.APIError(
        "bad", request, body={"message": "bad", "type": "invalid_request_error"}
    )
    first = to_model_error(server, openai, provider="openai", secrets=(), now=NOW, streaming=True)
    second = to_model_error(refused, openai, provider="openai", secrets=(), now=NOW, streaming=True)
    assert (first.status, first.retryable) == (None, True)
    assert (second.status, second.retryable) == (400, False)
