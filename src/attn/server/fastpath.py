"""The enqueue fast path: ``POST /api/agents/{agentId}/mailbox`` without FastAPI's per-request work.

Enqueue is the API's hot route (agents and services post to it at high rates),
and FastAPI spends most of a request's time resolving dependencies, not
enqueueing. :class:`EnqueueFastPath` is an ASGI middleware that serves the
ordinary request itself: a JSON object body with ``Content-Type:
application/json``, no query string, a known agent. It decodes and validates
the body exactly as the route does (``json.loads``, then
:class:`~attn.server.schemas.EnqueueBody`), enqueues, and answers as the route
does (:class:`~attn.server.schemas.EnqueuedView`: 202 for a new item, 200 for a
repeated ``Idempotency-Key``) once it is committed.

Every other request, and any request the fast path cannot accept as it is
(a bad body, a malformed header, an unknown agent), goes on to the FastAPI route
with the body it has already read, so errors, their bodies and the OpenAPI
document come from one place. Attn's own errors raised by the enqueue itself
(a full mailbox, an unknown type) are answered with the app's error table.

It sits inside the token and body-size middlewares, so authentication and
limits apply unchanged. Spec: 000 §5; issue 3 (HTTP enqueue throughput).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send

from attn.asgi import read_body, replay
from attn.errors import AttnError
from attn.jsontext import dumps_bytes
from attn.server.errors import attn_error_response
from attn.server.schemas import EnqueueBody

if TYPE_CHECKING:
    from attn.runtime import Runtime

_PREFIX = "/api/agents/"
_SUFFIX = "/mailbox"
_JSON = b"application/json"
#: Longest ``Idempotency-Key`` the route accepts (its ``Header(max_length=…)``).
MAX_IDEMPOTENCY_KEY = 200
_HEADERS = [(b"content-type", b"application/json")]


class EnqueueFastPath:
    """Serve well-formed enqueue requests directly; pass everything else on.

    Args:
        app: the wrapped ASGI app (the FastAPI router and its exception handlers).
        runtime: the runtime whose agents receive the items.

    Attributes:
        served: requests this middleware answered 202 itself.
    """

    def __init__(self, app: ASGIApp, *, runtime: Runtime) -> None:
        self.app = app
        self.runtime = runtime
        self.served = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        if not path.startswith(_PREFIX) or not path.endswith(_SUFFIX) or scope["query_string"]:
            await self.app(scope, receive, send)
            return
        name = path[len(_PREFIX) : -len(_SUFFIX)]
        key = _headers_ok(scope["headers"])
        agent = self.runtime.find_agent(name) if name and "/" not in name else None
        if agent is None or key is False:
            await self.app(scope, receive, send)
            return
        raw = await read_body(receive)
        if raw is None:  # the client went away
            return
        body = _validate(raw)
        # The agent may have been removed while the body arrived: the route answers that.
        if body is None or self.runtime.find_agent(name) is not agent:
            await self.app(scope, replay(raw, receive), send)
            return
        try:
            result = await agent.enqueue_result(
                body.source_type,
                body.payload,
                priority=body.priority,
                metadata=body.metadata,
                idempotency_key=key,
            )
        except AttnError as exc:
            await attn_error_response(exc, echoed=[name])(scope, receive, send)
            return
        self.served += 1
        # The route's answer (EnqueuedView), byte for byte.
        content = dumps_bytes(result.to_dict())
        await send(
            {
                "type": "http.response.start",
                "status": 200 if result.duplicate else 202,
                "headers": [*_HEADERS, (b"content-length", str(len(content)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": content})


def _headers_ok(headers: list[tuple[bytes, bytes]]) -> str | bool | None:
    """The ``Idempotency-Key`` (None when absent), or False when the route must judge.

    False for anything but exactly one ``Content-Type: application/json`` and
    one ``Content-Length`` (a chunked body is the size limit's to count), and
    for a key that is repeated, empty, too long or not plain ASCII text.
    """
    content_type = key = None
    lengths = 0
    for name, value in headers:
        if name == b"content-type":
            if content_type is not None:
                return False
            content_type = value
        elif name == b"content-length":
            lengths += 1
        elif name == b"idempotency-key":
            if key is not None:
                return False
            key = value
    if content_type != _JSON or lengths != 1:
        return False
    if key is None:
        return None
    if not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY or not key.isascii():
        return False
    text = key.decode("ascii")
    return strip_ows(text) if text.isprintable() else False


def strip_ows(value: str) -> str:
    """A header value without the spaces and tabs around it (RFC 9110 §5.5).

    uvicorn's httptools parser keeps trailing ones; h11 strips both ends.
    """
    return value.strip(" \t")


def _validate(raw: bytes) -> EnqueueBody | None:
    """The body as the route would validate it, or None to let the route answer."""
    try:
        # As the route: UTF-8 only (a leading byte order mark is allowed).
        value: Any = json.loads(raw.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    try:
        return EnqueueBody.model_validate(value)
    except (ValidationError, ValueError, RecursionError):
        return None


__all__ = ["MAX_IDEMPOTENCY_KEY", "EnqueueFastPath", "strip_ows"]
