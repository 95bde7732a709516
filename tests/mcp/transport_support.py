"""Helpers of the transport tests: ``attn mcp`` as a real subprocess, MCP clients over
real HTTP with chosen headers, and a team with external agents."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

#: Two external agents and one attn runs (echo), no burst window.
TEAM = """
[[agents]]
name = "ada"
brain = "external"
coalesce_window_ms = 0

[[agents]]
name = "cy"
brain = "external"
coalesce_window_ms = 0

[[agents]]
name = "bob"
brain = "echo"
"""

#: Settings a subprocess must not inherit from the test's environment.
_ATTN_ENV = ("ATTN_URL", "ATTN_TOKEN", "ATTN_DATABASE_URL", "ATTN_AGENT", "ATTN_HOST", "ATTN_PORT")


def child_env(**extra: str) -> dict[str, str]:
    """An ``attn`` subprocess's environment: this one without ATTN_* settings, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in _ATTN_ENV}
    env.update(extra)
    return env


def attn_mcp(folder: Path, *args: str, **env: str) -> StdioServerParameters:
    """``python -m attn mcp ARGS`` run in ``folder`` (where its attn.toml is)."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "attn", "mcp", *args],
        cwd=str(folder),
        env=child_env(**env),
    )


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


@asynccontextmanager
async def http_client(
    url: str, headers: dict[str, str] | None = None, *, mode: str = "legacy"
) -> AsyncIterator[Client]:
    """An MCP client of ``url`` over streamable HTTP, sending ``headers`` on every request."""
    timeout = httpx2.Timeout(10.0, read=60.0)
    async with create_mcp_http_client(headers=headers, timeout=timeout) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode, cache=None) as client:
            yield client


async def tool(client: Client, name: str, /, **arguments: Any) -> tuple[bool, dict[str, Any]]:
    """Call ``name``; (is it an error, its JSON)."""
    result = await client.call_tool(name, arguments)
    body = result.structured_content
    assert isinstance(body, dict), result
    return result.is_error, body


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "attn-tests", "version": "1"},
    },
}
#: The headers of a plain streamable HTTP POST.
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
