"""The MCP clients of ``mcp_bench.py``: a raw JSON-RPC client, httpx, and the SDK's.

Three clients call the same tools of the same server, so the table can tell the
server's cost from the client's:

* :class:`RawMCP`: one keep-alive HTTP/1.1 connection on asyncio streams, one
  JSON-RPC ``tools/call`` POST at a time, on protocol 2026-07-28 (no session:
  each request carries its envelope in ``params._meta`` and its routing headers,
  the agent in ``?agent=``). It reads a JSON answer or an SSE stream (chunked),
  and reports the first progress notification of a stream as it arrives. It is
  the fast client, as load generators such as wrk are: about 0.1 ms of CPU per call.
* :class:`HttpxMCP`: the same requests sent with ``httpx.AsyncClient``, a common
  Python HTTP client (answers read whole; no progress).
* :func:`sdk_client`: the official SDK's ``mcp.Client`` on streamable HTTP, in
  ``auto`` mode (it discovers 2026-07-28 and then sends no session) or in
  ``legacy`` mode (the initialize handshake and an ``Mcp-Session-Id``, as
  today's hosts such as Claude Code speak).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
from mcp import Client

#: The protocol revision the raw clients speak (no session, no handshake).
PROTOCOL = "2026-07-28"
#: Seconds a raw call waits for its answer at most.
CALL_TIMEOUT_S = 60.0


def tool_request(request_id: int, name: str, arguments: dict[str, Any], *, progress: bool) -> bytes:
    """The JSON-RPC body of one ``tools/call`` on :data:`PROTOCOL`."""
    meta: dict[str, Any] = {
        "io.modelcontextprotocol/protocolVersion": PROTOCOL,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    if progress:
        meta["progressToken"] = f"p{request_id}"
    params = {"name": name, "arguments": arguments, "_meta": meta}
    body = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    return json.dumps(body, separators=(",", ":")).encode()


def routing_headers(name: str) -> dict[str, str]:
    """The headers a 2026-07-28 ``tools/call`` POST must carry besides its body."""
    return {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": PROTOCOL,
        "Mcp-Method": "tools/call",
        "Mcp-Name": name,
    }


class CallFailed(Exception):
    """A call answered no tool result: an HTTP error, a JSON-RPC error, a cut stream."""


def tool_body(answer: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """``(is_error, structured content)`` of a JSON-RPC ``tools/call`` answer.

    Raises:
        CallFailed: the answer is a JSON-RPC error, or carries no result.
    """
    if "error" in answer:
        raise CallFailed(f"JSON-RPC error: {json.dumps(answer['error'])[:300]}")
    result = answer.get("result")
    if not isinstance(result, dict):
        raise CallFailed(f"no result in {json.dumps(answer)[:300]}")
    body = result.get("structuredContent")
    return bool(result.get("isError")), body if isinstance(body, dict) else {}


class RawMCP:
    """One keep-alive connection to ``{url}/mcp?agent={agent}``; one call at a time.

    Args:
        url: the server's base URL (``http://127.0.0.1:PORT``).
        agent: the agent every call speaks for.
    """

    def __init__(self, url: str, agent: str) -> None:
        host, port = url.removeprefix("http://").rsplit(":", 1)
        self.host, self.port, self.agent = host, int(port), agent
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self._ids = 0

    async def open(self) -> RawMCP:
        self._streams = await asyncio.open_connection(self.host, self.port)
        return self

    async def close(self) -> None:
        if self._streams is not None:
            writer = self._streams[1]
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
            self._streams = None

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        on_progress: Callable[[], None] | None = None,
    ) -> tuple[bool, dict[str, Any]]:
        """Call tool ``name``; answer ``(is_error, structured content)``.

        With ``on_progress``, the request asks for progress notifications and
        ``on_progress()`` runs when the first one arrives.

        Raises:
            CallFailed: not a tool result (see :func:`tool_body`). OSError, TimeoutError.
        """
        assert self._streams is not None, "open() first"
        if self._streams[0].at_eof():  # the server closed it while idle (keep-alive timeout)
            await self.close()
            await self.open()
            assert self._streams is not None
        reader, writer = self._streams
        self._ids += 1
        body = tool_request(self._ids, name, arguments, progress=on_progress is not None)
        head = "".join(f"{k}: {v}\r\n" for k, v in routing_headers(name).items())
        writer.write(
            f"POST /mcp?agent={self.agent} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n{head}"
            f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        async with asyncio.timeout(CALL_TIMEOUT_S):
            return tool_body(await self._answer(reader, on_progress))

    async def _answer(
        self, reader: asyncio.StreamReader, on_progress: Callable[[], None] | None
    ) -> dict[str, Any]:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        status = int(head.split(" ", 2)[1])
        headers = {}
        for line in head.split("\r\n")[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            data = await reader.readexactly(int(headers["content-length"]))
            if status != 200:
                raise CallFailed(f"HTTP {status}: {data[:300]!r}")
            return json.loads(data)  # type: ignore[no-any-return]
        if headers.get("transfer-encoding") != "chunked":
            raise CallFailed(f"HTTP {status} with neither a length nor chunks")
        answer: dict[str, Any] | None = None
        pending = b""
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                break
            pending += chunk[:-2]
            while b"\n\n" in pending.replace(b"\r\n", b"\n"):
                text = pending.replace(b"\r\n", b"\n")
                event, _, rest = text.partition(b"\n\n")
                pending = rest
                message = _sse_data(event)
                if message is None:
                    continue
                if "id" in message and message.get("method") is None:
                    answer = message
                elif message.get("method") == "notifications/progress" and on_progress:
                    on_progress()
                    on_progress = None
        if answer is None:
            raise CallFailed(f"HTTP {status}: the stream ended without an answer")
        return answer


def _sse_data(event: bytes) -> dict[str, Any] | None:
    lines = [ln[5:].strip() for ln in event.split(b"\n") if ln.startswith(b"data:")]
    if not lines:
        return None  # a comment (keep-alive ping) or an empty event
    message = json.loads(b"\n".join(lines))
    return message if isinstance(message, dict) else None


class HttpxMCP:
    """The requests of :class:`RawMCP`, sent by one ``httpx.AsyncClient`` (answers read whole)."""

    def __init__(self, url: str, agent: str) -> None:
        self.url = f"{url}/mcp?agent={agent}"
        self.http = httpx.AsyncClient(timeout=CALL_TIMEOUT_S)
        self._ids = 0

    async def close(self) -> None:
        await self.http.aclose()

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
        self._ids += 1
        body = tool_request(self._ids, name, arguments, progress=False)
        response = await self.http.post(self.url, content=body, headers=routing_headers(name))
        if response.status_code != 200:
            raise CallFailed(f"HTTP {response.status_code}: {response.text[:300]}")
        text = response.text
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            messages = [_sse_data(e.encode()) for e in text.replace("\r\n", "\n").split("\n\n")]
            answers = [m for m in messages if m is not None and "id" in m and "method" not in m]
            if not answers:
                raise CallFailed("the stream ended without an answer")
            return tool_body(answers[-1])
        return tool_body(json.loads(text))


@contextlib.asynccontextmanager
async def sdk_client(url: str, agent: str, mode: str = "auto") -> AsyncIterator[SdkMCP]:
    """The SDK's ``mcp.Client`` on ``{url}/mcp?agent={agent}``, as an :class:`SdkMCP`."""
    async with Client(f"{url}/mcp?agent={agent}", mode=mode) as client:
        yield SdkMCP(client)


class SdkMCP:
    """Calls through an entered ``mcp.Client``, answered as :class:`RawMCP` answers."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        on_progress: Callable[[], None] | None = None,
    ) -> tuple[bool, dict[str, Any]]:
        callback = None
        if on_progress is not None:
            fired = on_progress

            async def callback(progress: float, total: float | None, message: str | None) -> None:
                nonlocal fired
                if fired is not None:
                    fired()
                    fired = None

        result = await self.client.call_tool(name, arguments, progress_callback=callback)
        body = result.structured_content
        return result.is_error, body if isinstance(body, dict) else {}


__all__ = [
    "PROTOCOL",
    "CallFailed",
    "HttpxMCP",
    "RawMCP",
    "SdkMCP",
    "routing_headers",
    "sdk_client",
    "tool_body",
    "tool_request",
]
