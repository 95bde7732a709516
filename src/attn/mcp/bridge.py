"""The stdio bridge: ``attn mcp`` speaking for a server that another process hosts.

SQLite lets one process host a database's agents (the host lock). When ``attn
serve`` holds it, ``attn mcp`` cannot host them too, so it relays instead: an
MCP server on stdio (the SDK's low-level ``Server``) whose every request goes
to that server's ``/mcp`` over streamable HTTP through the SDK's ``Client``,
one session for the process's life. It forwards ``tools/list``, ``tools/call``
(with the progress notifications of a waiting tool), ``resources/list``,
``resources/templates/list`` and ``resources/read``; answers come back as the
server gave them, so a tool's refusal stays a tool error. The session uses the
handshake protocol (``initialize``), so a ``register`` call binds its agent to
that session as it would for a direct HTTP client; the default agent (``attn mcp
--agent``) goes in the ``X-Attn-Agent`` header and the token in
``Authorization``.

Spec: issue 17 point 1; acceptance MCP-01.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, TypeVar

import httpx2
import mcp_types as types
from mcp.client.streamable_http import streamable_http_client
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from attn.mcp.identity import AGENT_HEADER
from mcp import Client

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Seconds a bridged request may wait for the server's answer: above ``wait_for_mail``'s 50 s.
READ_TIMEOUT_S = 120.0
#: Seconds to connect to the server (and to write a request).
CONNECT_TIMEOUT_S = 10.0


class BridgeError(Exception):
    """The server to bridge to cannot be reached or refused the connection."""


@asynccontextmanager
async def upstream(
    url: str, *, token: str | None = None, agent: str | None = None
) -> AsyncIterator[Client]:
    """An MCP client session with the attn server at ``url`` (its ``/mcp`` endpoint).

    Args:
        url: the endpoint, e.g. ``http://127.0.0.1:8765/mcp``.
        token: the server's API token, sent as ``Authorization: Bearer``.
        agent: sent as ``X-Attn-Agent`` (the session's agent until it registers).

    Raises:
        BridgeError: the server cannot be reached, or refused to open a session.
    """
    headers = {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if agent:
        headers[AGENT_HEADER] = agent
    timeout = httpx2.Timeout(CONNECT_TIMEOUT_S, read=READ_TIMEOUT_S)
    async with AsyncExitStack() as stack:
        http = await stack.enter_async_context(
            create_mcp_http_client(headers=headers, timeout=timeout)
        )
        transport = streamable_http_client(url, http_client=http)
        try:
            client = await stack.enter_async_context(Client(transport, mode="legacy", cache=None))
        except Exception as exc:
            raise BridgeError(f"cannot open an MCP session with {url}: {_reason(exc)}") from exc
        yield client


def _reason(exc: BaseException) -> str:
    """One line for a failure to connect (an ExceptionGroup says its first leaf)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:300]


def bridge_server(client: Client, *, url: str) -> Server[Any]:
    """A low-level MCP server that answers every request through ``client``.

    Args:
        client: an open session with the attn server.
        url: the server's endpoint, for error messages.

    Returns:
        The server; run it on stdio with :func:`run_bridge`.
    """
    info = client.server_info
    session = client.session

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return await _relayed(url, session.list_tools(params=params))

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        async def relay(progress: float, total: float | None, message: str | None) -> None:
            await ctx.session.report_progress(progress, total, message)

        try:
            return await session.call_tool(params.name, params.arguments, progress_callback=relay)
        except MCPError:
            raise
        except Exception as exc:  # the server went away: say so as the tool's failure
            text = f"the attn server at {url} did not answer: {_reason(exc)}"
            log.warning("%s", text)
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=text)], is_error=True
            )

    async def list_resources(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return await _relayed(url, session.list_resources(params=params))

    async def list_templates(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return await _relayed(url, session.list_resource_templates(params=params))

    async def read_resource(
        ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await _relayed(url, session.read_resource(str(params.uri)))

    return Server(
        info.name if info is not None else "attn",
        version=info.version if info is not None else "",
        instructions=client.instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


async def _relayed(url: str, request: Any) -> T:
    try:
        result: T = await request
    except MCPError:
        raise
    except Exception as exc:
        raise MCPError(
            code=types.INTERNAL_ERROR,
            message=f"the attn server at {url} did not answer: {_reason(exc)}",
        ) from exc
    return result


async def run_bridge(url: str, *, token: str | None = None, agent: str | None = None) -> None:
    """Serve MCP on stdin/stdout, relayed to the attn server at ``url`` until stdin ends.

    Raises:
        BridgeError: the server cannot be reached (before anything is read from stdin).
    """
    async with upstream(url, token=token, agent=agent) as client:
        server = bridge_server(client, url=url)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())


__all__ = ["BridgeError", "bridge_server", "run_bridge", "upstream"]
