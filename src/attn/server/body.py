"""Request bodies: read, check and decode JSON before FastAPI validates it.

FastAPI's own body handling answers a few bad bodies vaguely (an empty body is
"field required", invalid UTF-8 or very deep JSON is "There was an error
parsing the body", a ``text/plain`` body is "a valid dictionary"). Routes that
take a body use :class:`JsonBodyRoute`, which checks the raw body first and
raises :class:`ApiError` with a precise status, code and message:

==========================================  ======  ==========================
body                                        status  code
==========================================  ======  ==========================
empty (or only whitespace)                  400     ``malformed_json``
Content-Type not ``application/json``       415     ``unsupported_media_type``
(or ``*/*+json``), or a charset not UTF-8
not UTF-8, not JSON, nested too deep        400     ``malformed_json``
JSON, but not an object                     422     ``validation_error``
==========================================  ======  ==========================

The Content-Type is required (415 otherwise) because a browser sends
``text/plain`` and body-without-type POSTs cross-origin without asking first:
accepting them would let any web page enqueue into a server on 127.0.0.1.

Spec: 000 §5; DESIGN.md invariant 10 (bad input gets a clear error).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from attn.server.errors import (
    MALFORMED_JSON,
    UNSUPPORTED_MEDIA_TYPE,
    VALIDATION_ERROR,
    ApiError,
    clip,
)

_UTF8 = frozenset({"utf-8", "utf8"})
_JSON_KINDS = {list: "an array", str: "a string", bool: "a boolean", int: "a number"}


def json_kind(value: object) -> str:
    """How to name a decoded JSON value in a message: ``"an array"``, ``"null"``..."""
    if value is None:
        return "null"
    for kind, name in _JSON_KINDS.items():
        if isinstance(value, kind):
            return name
    return "a number" if isinstance(value, float) else type(value).__name__


def check_content_type(value: str | None) -> None:
    """Accept ``application/json`` and ``application/*+json`` in UTF-8.

    Raises:
        ApiError: 415 ``unsupported_media_type`` naming what was sent.
    """
    hint = "send the header 'Content-Type: application/json'"
    if not value or not value.strip():
        raise ApiError(415, UNSUPPORTED_MEDIA_TYPE, f"the request has no Content-Type; {hint}")
    media, *params = (part.strip() for part in value.split(";"))
    media = media.lower()
    kind, _, subtype = media.partition("/")
    if kind != "application" or not (subtype == "json" or subtype.endswith("+json")):
        raise ApiError(
            415,
            UNSUPPORTED_MEDIA_TYPE,
            f"the body must be JSON, but its Content-Type is {clip(media)!r}; {hint}",
        )
    for param in params:
        name, _, charset = param.partition("=")
        charset = charset.strip().strip('"').lower()
        if name.strip().lower() == "charset" and charset not in _UTF8:
            raise ApiError(
                415,
                UNSUPPORTED_MEDIA_TYPE,
                f"the body must be UTF-8 JSON, but its charset is {clip(charset)!r}",
            )


def decode_json_object(raw: bytes, content_type: str | None) -> dict[str, Any]:
    """Decode a request body that must be one JSON object.

    Args:
        raw: the body bytes.
        content_type: the request's ``Content-Type`` header, or None.

    Returns:
        The decoded object.

    Raises:
        ApiError: see the table in the module docstring.
    """
    if not raw.strip():
        raise ApiError(400, MALFORMED_JSON, "the body is empty; expected a JSON object")
    check_content_type(content_type)
    try:
        # A leading byte order mark is ignored, as RFC 8259 §8.1 allows.
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        offset = exc.start + len(raw) - len(exc.object)  # the BOM is not in exc.object
        raise ApiError(
            400,
            MALFORMED_JSON,
            f"the body is not valid UTF-8 (byte 0x{raw[offset]:02x} at offset {offset}); "
            "JSON must be encoded as UTF-8",
        ) from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ApiError(
            400,
            MALFORMED_JSON,
            f"the body is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
        ) from None
    except RecursionError:
        raise ApiError(400, MALFORMED_JSON, "the body is JSON nested too deeply to parse") from None
    except ValueError:  # an integer longer than Python converts (4,300 digits)
        raise ApiError(
            400, MALFORMED_JSON, "the body holds a number with more than 4,300 digits"
        ) from None
    if not isinstance(value, dict):
        raise ApiError(
            422,
            VALIDATION_ERROR,
            f"body: the request body must be a JSON object, got {json_kind(value)}",
        )
    return value


class JsonBodyRoute(APIRoute):
    """An :class:`~fastapi.routing.APIRoute` whose body, if it takes one, must be a JSON object.

    The body is read (the app's size limit applies) and checked with
    :func:`decode_json_object` before FastAPI parses and validates it, so
    validation only ever sees an object and reports fields by name.
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        if self.body_field is None:
            return handler

        async def checked(request: Request) -> Response:
            decode_json_object(await request.body(), request.headers.get("content-type"))
            return await handler(request)

        return checked


__all__ = ["JsonBodyRoute", "check_content_type", "decode_json_object", "json_kind"]
