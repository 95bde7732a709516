"""Checks every request as the real API does before the script answers it: auth first,
then the body (OpenAI Chat Completions or Anthropic Messages rules).

A refusal is ``(status, message)``; the server answers it with the API's error
body and records the request as not accepted.

Spec: issue 12 point 7; acceptance LLM-05 (an unpaired tool call is refused).
"""

from __future__ import annotations

from attn.testing.fake_provider.anthropic_rules import check_anthropic
from attn.testing.fake_provider.openai_rules import check_openai
from attn.testing.fake_provider.script import WireProtocol
from attn.types import JSON

__all__ = ["Refusal", "check_auth", "validate"]

#: Why a request is refused: the HTTP status and the error message.
Refusal = tuple[int, str]


def check_auth(
    protocol: WireProtocol, headers: dict[str, str], api_key: str | None
) -> Refusal | None:
    """OpenAI wants ``Authorization: Bearer <key>``; Anthropic ``x-api-key: <key>``
    (or Bearer auth, which the anthropic 2.x SDK sends) and ``anthropic-version``.
    A missing or wrong key is 401."""
    if protocol == "openai":
        scheme, key = scheme_and_key(headers)
        if scheme != "bearer" or not key:
            return 401, (
                "You didn't provide an API key. You need to provide your API key in an "
                "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
            )
        if api_key is not None and key != api_key:
            return 401, "Incorrect API key provided."
        return None
    key = headers.get("x-api-key", "").strip()
    if not key and scheme_and_key(headers)[0] == "bearer":
        key = scheme_and_key(headers)[1]  # anthropic 2.x SDKs send the key as Bearer auth
    if not key:
        return 401, "x-api-key header is required"
    if api_key is not None and key != api_key:
        return 401, "invalid x-api-key"
    if not headers.get("anthropic-version"):
        return 400, "anthropic-version: header is required"
    return None


def validate(protocol: WireProtocol, body: JSON | None, raw: bytes) -> Refusal | None:
    """The body's refusal, if any (400 with the API's wording)."""
    if body is None:
        if protocol == "openai":
            return 400, (
                "We could not parse the JSON body of your request. (HINT: This likely means you "
                "aren't using your HTTP library correctly.)"
            )
        return 400, "There was an issue with the request body: it is not a JSON object"
    message = check_openai(body) if protocol == "openai" else check_anthropic(body)
    return None if message is None else (400, message)


def scheme_and_key(headers: dict[str, str]) -> tuple[str, str]:
    """The ``Authorization`` header's scheme (lower case) and credentials."""
    scheme, _, key = headers.get("authorization", "").strip().partition(" ")
    return scheme.lower(), key.strip()
