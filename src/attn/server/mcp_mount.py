"""``/mcp`` on ``attn serve``: the MCP server over streamable HTTP, inside the API app.

:func:`install_mcp` adds one route, exactly ``/mcp`` (``/mcp/`` is the app's
usual 404 that names the path without the slash, never a redirect), served by
:class:`McpEndpoint`: the MCP SDK's session manager over the runtime's
:class:`~attn.mcp.AttnMCP`. It is a plain route of the app, so the app's
middleware applies to it as to the REST API: with a token every request needs
``Authorization: Bearer <token>`` (401 otherwise); without one only loopback
``Host`` names are served (421) and cross-site changes are refused (403);
bodies over the app's limit are 413, with a JSON-RPC error body the MCP
client shows (:mod:`attn.server.jsonrpc_body`). The SDK's own DNS-rebinding
check is off, because those guards already decide (and with a token, names other than
loopback are meant to be served).

The session manager runs in a task of its own (the SDK needs a task group that
outlives each request), started by the app's lifespan or by the first request
when the host runs no lifespan, and ended by :meth:`McpEndpoint.aclose`:
``attn serve`` calls it before uvicorn waits for open connections, so open SSE
streams (a ``wait_for_mail`` of up to 50 s, a client's GET stream) end at once
instead of holding the shutdown for its grace period.

Sessions are stateful (``Mcp-Session-Id``: a ``register`` call binds its agent
to the session) and answer in SSE, so progress notifications reach the client
while a tool waits.

Spec: issue 17 point 1; acceptance MCP-01.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from attn.mcp import AttnMCP, build_server
from attn.mcp.fastpath import ToolCallFastPath
from attn.server.errors import error_response

if TYPE_CHECKING:
    from fastapi import FastAPI

    from attn.runtime import Runtime

#: The path of the streamable HTTP endpoint.
MCP_PATH = "/mcp"
#: Seconds an MCP session may stay without any request in flight before it is closed.
SESSION_IDLE_S = 30 * 60.0
#: The error code of a request that reaches ``/mcp`` after it was closed.
MCP_CLOSED = "mcp_closed"
#: Seconds :meth:`McpEndpoint.aclose` lets requests in flight finish before it
#: ends them (a wait of up to 50 s: ``wait_for_mail``, ``claim``, ``check_approval``).
CLOSE_GRACE_S = 0.5


class McpEndpoint:
    """The ASGI app of ``/mcp``: one :class:`~attn.mcp.AttnMCP` and its session manager.

    Args:
        runtime: the runtime whose external agents the connections speak for.
        agent: the agent of a connection that names none (None: it registers, or
            names one with ``?agent=`` or the ``X-Attn-Agent`` header).

    Attributes:
        server: the MCP server.
        manager: the SDK's streamable HTTP session manager.
        handle: what answers a request: a plain tool call itself, the rest through
            ``manager`` (:class:`~attn.mcp.fastpath.ToolCallFastPath`).
    """

    def __init__(self, runtime: Runtime, *, agent: str | None = None) -> None:
        self.server: AttnMCP = build_server(runtime, agent=agent)
        # attn's HostGuard, CrossSiteGuard and TokenMiddleware check every request.
        no_rebinding_check = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        self.server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            transport_security=no_rebinding_check,
            session_idle_timeout=SESSION_IDLE_S,
        )
        self.manager: StreamableHTTPSessionManager = self.server.session_manager
        # A plain tools/call is answered without the SDK's per-request work (attn.mcp.fastpath).
        self.handle = ToolCallFastPath(
            self.manager.handle_request, self.server, security=no_rebinding_check
        )
        self._task: asyncio.Task[None] | None = None
        self._running = asyncio.Event()
        self._stop = asyncio.Event()
        self._closed = False
        self._lock = asyncio.Lock()
        self._inflight: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Start the session manager (idempotent); returns once it serves.

        Raises:
            RuntimeError: the endpoint was closed (it cannot start again), or the
                session manager failed to start (its error is the cause).
        """
        async with self._lock:
            if self._closed:
                raise RuntimeError("the /mcp endpoint is closed")
            if self._task is None:
                self._task = asyncio.create_task(self._run(), name="attn-mcp-sessions")
            task = self._task
        running = asyncio.create_task(self._running.wait(), name="attn-mcp-start")
        try:
            await asyncio.wait({running, task}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            running.cancel()
        if not self._running.is_set():
            error = task.exception() if task.done() and not task.cancelled() else None
            raise RuntimeError("the /mcp session manager did not start") from error

    async def _run(self) -> None:
        async with self.manager.run():
            self._running.set()
            await self._stop.wait()

    async def aclose(self) -> None:
        """End every MCP session (their open streams close) and every request still
        in flight after :data:`CLOSE_GRACE_S` (a stateless call's long wait too), and
        stop. Idempotent."""
        async with self._lock:
            self._closed = True
            task, self._task = self._task, None
        if self._inflight:
            _, late = await asyncio.wait(set(self._inflight), timeout=CLOSE_GRACE_S)
            for request in late:
                request.cancel()
        self._stop.set()
        if task is not None:
            await task

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._closed:
            response = error_response(503, MCP_CLOSED, "the MCP endpoint is shutting down")
            await response(scope, receive, send)
            return
        if not self._running.is_set():  # a host without a lifespan: start on first use
            await self.start()
        await self._serve(scope, receive, send)

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer in a task :meth:`aclose` can end: an ended answer is a 503 if it had
        not begun, else its stream is closed (the client sees the connection end)."""
        began = ended = False

        async def sending(message: Message) -> None:
            nonlocal began, ended
            began = True
            ended = message["type"] == "http.response.body" and not message.get("more_body")
            await send(message)

        served = asyncio.ensure_future(self.handle(scope, receive, sending))
        self._inflight.add(served)
        try:
            await served
        except asyncio.CancelledError:
            served.cancel()
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # the client went away, or the server stops without waiting
            if not began:
                response = error_response(503, MCP_CLOSED, "the MCP endpoint is shutting down")
                await response(scope, receive, send)
            elif not ended:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            self._inflight.discard(served)


def install_mcp(app: FastAPI, runtime: Runtime) -> McpEndpoint:
    """Serve ``/mcp`` on ``app`` (see the module docstring); kept as ``app.state.mcp``.

    Args:
        app: the API app (its middleware applies to ``/mcp``).
        runtime: the runtime the tools act on.

    Returns:
        The endpoint; the app's lifespan starts and closes it.
    """
    endpoint = McpEndpoint(runtime)
    app.router.routes.append(Route(MCP_PATH, endpoint=endpoint, include_in_schema=False))
    app.state.mcp = endpoint
    return endpoint


@contextlib.asynccontextmanager
async def mcp_lifespan(app: FastAPI) -> AsyncIterator[None]:
    """The app's lifespan: start ``/mcp`` with the app and close it with the app."""
    endpoint: McpEndpoint | None = getattr(app.state, "mcp", None)
    if endpoint is not None:
        await endpoint.start()
    try:
        yield
    finally:
        if endpoint is not None:
            await endpoint.aclose()


__all__ = ["MCP_CLOSED", "MCP_PATH", "McpEndpoint", "install_mcp", "mcp_lifespan"]
