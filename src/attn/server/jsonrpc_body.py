"""The body limit of a JSON-RPC endpoint (``/mcp``): refused as a JSON-RPC error.

A REST client reads a 413's ``{"error": {"code", "message"}}``; an MCP client
reads JSON-RPC, and the MCP SDK turned that 413 into "Server returned an error
response", which says nothing. On a JSON-RPC path the body is read whole
(it is one JSON-RPC message; SSE answers stream as before) and an oversized one
is answered 413 with a JSON-RPC error body: ``id`` null (the request's id is
past what is read), code -32600 (invalid request), the message saying the
limit, and ``data.code`` ``body_too_large``. The MCP SDK shows that error for
the request it sent (it matches a non-2xx JSON-RPC error to its own id);
nothing reaches the MCP server.

Spec: acceptance MCP-07 (an oversized payload is a clear error, nothing
changes), SRV-06 (oversized bodies are 413).
"""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from attn.server.errors import BODY_TOO_LARGE

#: JSON-RPC's "Invalid Request" error code.
INVALID_REQUEST = -32600
#: How much of an oversized body is read before answering 413.
DRAIN_LIMIT_BYTES = 16 * 1_048_576


def jsonrpc_too_large(limit_bytes: int) -> JSONResponse:
    """The 413 of a JSON-RPC endpoint: a JSON-RPC error the client can show."""
    error = {
        "code": INVALID_REQUEST,
        "message": f"request body is larger than {limit_bytes} bytes (the server's limit);"
        " nothing was done: send less in one request",
        "data": {"code": BODY_TOO_LARGE},
    }
    return JSONResponse(
        {"jsonrpc": "2.0", "id": None, "error": error},
        status_code=413,
        headers={"Connection": "close"},
    )


async def drain(receive: Receive) -> None:
    """Read (and discard) the rest of a refused body, at most :data:`DRAIN_LIMIT_BYTES`:
    a client still writing its body when the connection closes would see a broken
    pipe instead of the 413."""
    drained = 0
    while drained <= DRAIN_LIMIT_BYTES:
        message = await receive()
        if message["type"] != "http.request":
            return
        drained += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


async def serve_read_whole(
    app: ASGIApp, scope: Scope, receive: Receive, send: Send, limit_bytes: int
) -> None:
    """Read the request body (at most ``limit_bytes``), then run ``app`` on it;
    over the limit, answer :func:`jsonrpc_too_large` and run nothing."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return  # the client went away before its body was in
        body = message.get("body", b"")
        size += len(body)
        more = message.get("more_body", False)
        if size > limit_bytes:
            if more:
                await drain(receive)
            await jsonrpc_too_large(limit_bytes)(scope, receive, send)
            return
        chunks.append(body)
        if not more:
            break
    whole: Message | None = {"type": "http.request", "body": b"".join(chunks), "more_body": False}

    async def replay() -> Message:
        nonlocal whole
        if whole is not None:
            message, whole = whole, None
            return message
        return await receive()  # after the body: the disconnect an SSE answer waits for

    await app(scope, replay, send)


__all__ = ["DRAIN_LIMIT_BYTES", "INVALID_REQUEST", "drain", "jsonrpc_too_large", "serve_read_whole"]
