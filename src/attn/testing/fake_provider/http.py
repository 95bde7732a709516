"""Just enough HTTP/1.1 for the fake provider: read a request, write a JSON or chunked answer.

Requests carry a ``content-length`` body (what the SDKs send); connections
stay open between requests unless the client says ``connection: close``.
Sizes from the client are bounded (:data:`MAX_HEAD_BYTES`, :data:`MAX_BODY_BYTES`).

Spec: issue 12 point 7.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from http import HTTPStatus

from attn.types import JSON

__all__ = [
    "LAST_CHUNK",
    "MAX_BODY_BYTES",
    "MAX_HEAD_BYTES",
    "BadHttp",
    "HttpRequest",
    "chunk",
    "json_response",
    "read_request",
    "response_head",
]

#: Most bytes of a request line and its headers.
MAX_HEAD_BYTES = 64 * 1024
#: Most bytes of a request body.
MAX_BODY_BYTES = 32 * 1024 * 1024
#: Reason phrases the standard library does not know.
_REASONS = {529: "Site Overloaded"}


class BadHttp(Exception):
    """A request the fake provider cannot read: answered with ``status``, then the close."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """One request as read from the connection; header names in lower case."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def keep_alive(self) -> bool:
        """Whether the connection may carry another request."""
        return self.headers.get("connection", "").lower() != "close"


async def read_request(reader: asyncio.StreamReader) -> HttpRequest | None:
    """Read one request; None when the client closed the connection between requests.

    Raises:
        BadHttp: a malformed or oversized request.
    """
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial.strip():
            return None
        raise BadHttp(400, "the connection closed inside the request head") from exc
    except asyncio.LimitOverrunError as exc:
        raise BadHttp(431, f"the request head is over {MAX_HEAD_BYTES} bytes") from exc
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadHttp(400, f"not an HTTP/1.1 request line: {lines[0][:100]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise BadHttp(400, f"malformed header line: {line[:100]!r}")
        headers[name.strip().lower()] = value.strip()
    if "transfer-encoding" in headers:
        raise BadHttp(501, "chunked request bodies are not supported; send content-length")
    try:
        length = int(headers.get("content-length", "0"))
    except ValueError as exc:
        raise BadHttp(400, "content-length is not a number") from exc
    if not 0 <= length <= MAX_BODY_BYTES:
        raise BadHttp(413, f"the body must be 0 .. {MAX_BODY_BYTES} bytes, got {length}")
    try:
        body = await reader.readexactly(length)
    except asyncio.IncompleteReadError as exc:
        raise BadHttp(400, "the connection closed inside the request body") from exc
    return HttpRequest(parts[0], parts[1].split("?", 1)[0], headers, body)


def response_head(status: int, headers: dict[str, str]) -> bytes:
    """The status line and headers of an answer, ending with the blank line."""
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = _REASONS.get(status, "Unknown")
    lines = [f"HTTP/1.1 {status} {reason}"] + [
        f"{name}: {value}" for name, value in headers.items()
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def json_response(status: int, body: JSON, headers: dict[str, str], *, keep_alive: bool) -> bytes:
    """A whole JSON answer, ``content-length`` delimited."""
    data = json.dumps(body, ensure_ascii=False).encode()
    all_headers = {
        "content-type": "application/json",
        "content-length": str(len(data)),
        "connection": "keep-alive" if keep_alive else "close",
        **headers,
    }
    return response_head(status, all_headers) + data


def chunk(data: bytes) -> bytes:
    """One chunk of a chunked body."""
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


#: The end of a chunked body.
LAST_CHUNK = b"0\r\n\r\n"
