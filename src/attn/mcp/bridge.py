"""The stdio bridge: ``attn mcp`` speaking for a server that another process hosts.

SQLite lets one process host a database's agents (the host lock). When ``attn
serve`` holds it, ``attn mcp`` cannot host them too, so it relays instead: an
MCP server on stdio (the SDK's low-level ``Server``) whose every request goes
to that server's ``/mcp`` over streamable HTTP through the SDK's ``Client``.
It forwards ``tools/list``, ``tools/call`` (with the progress notifications of
a waiting tool), ``resources/list``, ``resources/templates/list`` and
``resources/read``; answers come back as the server gave them, so a tool's
refusal stays a tool error. The session uses the handshake protocol
(``initialize``), so a ``register`` call binds its agent to that session as it
would for a direct HTTP client; the default agent (``attn mcp --agent``) goes
in the ``X-Attn-Agent`` header and the token in ``Authorization``.

The server may go away (a restart of ``attn serve``). A request that cannot
reach it, or whose session the server no longer knows, is answered with that
failure (a tool error for ``tools/call``), and the next request opens a new
session, registering again the agent the client had registered; the bridge
itself never dies of it.

Spec: issue 17 point 1; acceptance MCP-01.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from attn.mcp.catalog import REGISTER
from attn.mcp.identity import AGENT_HEADER

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Seconds a bridged request may wait for the server's answer: above ``wait_for_mail``'s 50 s.
READ_TIMEOUT_S = 120.0
#: Seconds to connect to the server (and to write a request).
CONNECT_TIMEOUT_S = 10.0
#: How a failure to reach the server starts its message (the request was not sent).
UNREACHABLE = "the attn server cannot be reached"
#: The error code of a relayed tool call the server did not answer.
SERVER_UNREACHABLE = "server_unreachable"
#: How a connection lost while a request was sent starts its message.
BROKEN = "the connection to the attn server broke"


class BridgeError(Exception):
    """The server to bridge to cannot be reached or refused the connection."""


class _Unreachable(httpx2.AsyncBaseTransport):
    """HTTP to the server, where a failure to connect is a 503 with a JSON-RPC error.

    The SDK's streamable HTTP client turns a connection error of a POST into a
    crash of its task group (every pending request hangs, then the client dies);
    an HTTP error answer it turns into that request's error, which the bridge
    can report and recover from.
    """

    def __init__(self) -> None:
        self._inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        try:
            return await self._inner.handle_async_request(request)
        except (httpx2.ConnectError, httpx2.ConnectTimeout) as exc:  # the request never left
            message = f"{UNREACHABLE}: {_reason(exc)}"
        except httpx2.TransportError as exc:  # it may have been served: never sent again
            message = f"{BROKEN}: {_reason(exc)}"
        error = {"code": types.INTERNAL_ERROR, "message": message}
        body = {"jsonrpc": "2.0", "id": None, "error": error}
        return httpx2.Response(503, json=body, request=request)

    async def aclose(self) -> None:
        await self._inner.aclose()


class Upstream:
    """The MCP session with the attn server at ``url``, opened again when it is lost.

    Each session is held by a task of its own (``attn-mcp-upstream``): the SDK's
    client enters cancel scopes that must be left by the task that entered them,
    and a request that finds the session lost runs in another task.

    Args:
        url: the ``/mcp`` endpoint, e.g. ``http://127.0.0.1:8765/mcp``.
        token: the server's API token, sent as ``Authorization: Bearer``.
        agent: sent as ``X-Attn-Agent`` (the session's agent until it registers).
    """

    def __init__(self, url: str, *, token: str | None = None, agent: str | None = None) -> None:
        self.url = url
        self.headers = {}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        if agent:
            self.headers[AGENT_HEADER] = agent
        self.client: Client | None = None
        self.registered: dict[str, Any] | None = None  # the arguments of the last register
        self._task: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        self._lock = asyncio.Lock()

    async def open(self) -> Client:
        """Open a session (if none is open) and return its client.

        Raises:
            BridgeError: the server cannot be reached, or refused to open a session.
        """
        async with self._lock:
            if self.client is not None and self._task is not None and not self._task.done():
                return self.client
            await self._end()
            ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
            self._closing = asyncio.Event()
            self._task = asyncio.create_task(
                self._hold(ready, self._closing), name="attn-mcp-upstream"
            )
            client = await ready
            self.client = client
            if self.registered is not None:  # a new session: the client's agent again
                await client.session.call_tool(REGISTER.name, self.registered)
            return client

    async def _hold(self, ready: asyncio.Future[Client], closing: asyncio.Event) -> None:
        timeout = httpx2.Timeout(CONNECT_TIMEOUT_S, read=READ_TIMEOUT_S)
        try:
            async with httpx2.AsyncClient(
                headers=self.headers, timeout=timeout, transport=_Unreachable()
            ) as http:
                transport = streamable_http_client(self.url, http_client=http)
                async with Client(transport, mode="legacy", cache=None) as client:
                    ready.set_result(client)
                    await closing.wait()
        except Exception as exc:
            if not ready.done():
                error = BridgeError(f"cannot open an MCP session with {self.url}: {_reason(exc)}")
                ready.set_exception(error)
            else:  # the server is gone: nothing left to close there
                log.debug("the MCP session with %s ended: %s", self.url, _reason(exc))

    async def _end(self) -> None:
        task, self._task, self.client = self._task, None, None
        if task is not None:
            self._closing.set()
            await task

    async def close(self) -> None:
        """Close the session (its server side is told with a DELETE when reachable)."""
        async with self._lock:
            await self._end()

    async def request(self, send: Callable[[ClientSession], Awaitable[T]]) -> T:
        """``send`` on the session. When the session or the server was lost (the
        request did not reach it), it is sent once more on a new session; a second
        failure is raised as an ``MCPError`` and the next request tries again."""
        for attempt in (1, 2):
            try:
                client = await self.open()
            except BridgeError as exc:
                raise MCPError(code=types.INTERNAL_ERROR, message=str(exc)) from exc
            try:
                return await send(client.session)
            except MCPError as exc:
                message = exc.error.message
                if message.startswith(BROKEN):
                    await self.close()  # the next request opens a new session
                if not (message.startswith(UNREACHABLE) or message in _LOST):
                    raise
                await self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover


#: The SDK's errors for a session the server no longer knows, or a connection gone.
_LOST = frozenset({"Session not found", "Session terminated", "Connection closed"})


def _reason(exc: BaseException) -> str:
    """One line for a failure to connect (an ExceptionGroup says its first leaf)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:300]


def bridge_server(upstream: Upstream, info: types.Implementation | None = None) -> Server[Any]:
    """A low-level MCP server that answers every request through ``upstream``.

    Args:
        upstream: the session with the attn server.
        info: the server's name and version to show (None: ``attn``).

    Returns:
        The server; run it on stdio with :func:`run_bridge`.
    """

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return await upstream.request(lambda s: s.list_tools(params=params))

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        async def relay(progress: float, total: float | None, message: str | None) -> None:
            await ctx.session.report_progress(progress, total, message)

        name, arguments = params.name, params.arguments
        try:
            result = await upstream.request(
                lambda s: s.call_tool(name, arguments, progress_callback=relay)
            )
        except MCPError as exc:  # the server went away: the tool's failure, for the model
            text = f"{exc.error.message} ({upstream.url}); try again once it is back"
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"{SERVER_UNREACHABLE}: {text}")],
                structured_content={"error": SERVER_UNREACHABLE, "message": text},
                is_error=True,
            )
        if name == REGISTER.name and not result.is_error:
            upstream.registered = dict(arguments or {})
        return result

    async def list_resources(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return await upstream.request(lambda s: s.list_resources(params=params))

    async def list_templates(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return await upstream.request(lambda s: s.list_resource_templates(params=params))

    async def read_resource(
        ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await upstream.request(lambda s: s.read_resource(str(params.uri)))

    client = upstream.client
    return Server(
        info.name if info is not None else "attn",
        version=info.version if info is not None else "",
        instructions=client.instructions if client is not None else None,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


async def run_bridge(url: str, *, token: str | None = None, agent: str | None = None) -> None:
    """Serve MCP on stdin/stdout, relayed to the attn server at ``url`` until stdin ends.

    Raises:
        BridgeError: the server cannot be reached (before anything is read from stdin).
    """
    upstream = Upstream(url, token=token, agent=agent)
    client = await upstream.open()
    try:
        server = bridge_server(upstream, client.server_info)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await upstream.close()


__all__ = [
    "SERVER_UNREACHABLE",
    "UNREACHABLE",
    "BridgeError",
    "Upstream",
    "bridge_server",
    "run_bridge",
]
