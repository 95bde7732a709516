"""Reading a request body ahead of the app it goes on to: what both fast paths share.

A fast path (:mod:`attn.server.fastpath` for ``POST …/mailbox``,
:mod:`attn.mcp.fastpath` for a plain MCP ``tools/call``) reads the whole body to
decide whether it answers the request itself; when it does not, the app it
hands the request to reads the same body again from :func:`replay`.
"""

from __future__ import annotations

from starlette.types import Message, Receive


async def read_body(receive: Receive) -> bytes | None:
    """The whole request body, or None when the client disconnected first."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def replay(raw: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body already read, then what comes after it."""
    pending: list[Message] = [{"type": "http.request", "body": raw, "more_body": False}]

    async def replayed() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return replayed


__all__ = ["read_body", "replay"]
