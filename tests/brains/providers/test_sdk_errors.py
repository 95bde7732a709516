"""retry-after parsing and key redaction (LLM-11, LLM-13), without a server."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from attn.brains.providers.sdk_errors import MAX_RETRY_AFTER_S, REDACTED, redact, retry_after_s

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
