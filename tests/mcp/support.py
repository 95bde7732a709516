"""Helpers of the MCP tests: a runtime on a SQLite file with external agents, and
an MCP client's tool answers as JSON (the SDK's in-memory ``Client``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client

from attn import Runtime
from attn.brains.external import ExternalBrain
from attn.clock import Clock
from attn.config import AgentConfig
from attn.mcp import AttnMCP, build_server
from attn.store import open_store

#: No burst window: a claim gets its pick at once.
FAST = AgentConfig(coalesce_window_ms=0)


@asynccontextmanager
async def hosted(
    tmp_path: Path,
    agents: tuple[str, ...] = ("ada", "bob"),
    *,
    clock: Clock | None = None,
    config: AgentConfig = FAST,
) -> AsyncIterator[Runtime]:
    """A started runtime on ``tmp_path/mcp.db`` hosting external ``agents``."""
    store = open_store(f"sqlite:///{tmp_path / 'mcp.db'}")
    rt = Runtime(store, clock=clock) if clock is not None else Runtime(store)
    await rt.start()
    try:
        for name in agents:
            await rt.add_agent(name, ExternalBrain(), config)
        yield rt
    finally:
        await rt.close()


@asynccontextmanager
async def connected(server: AttnMCP) -> AsyncIterator[Tools]:
    """An in-memory MCP client of ``server``, as :class:`Tools`."""
    async with Client(server) as client:
        yield Tools(client)


class Tools:
    """Calls tools and answers their JSON: ``ok`` (must succeed) or ``refused``."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, name: str, /, **arguments: Any) -> tuple[bool, dict[str, Any]]:
        result = await self.client.call_tool(name, arguments)
        body = result.structured_content
        assert isinstance(body, dict), result
        return result.is_error, body

    async def ok(self, name: str, /, **arguments: Any) -> dict[str, Any]:
        error, body = await self.call(name, **arguments)
        assert not error, body
        return body

    async def refused(self, name: str, /, **arguments: Any) -> dict[str, Any]:
        error, body = await self.call(name, **arguments)
        assert error, body
        assert body["error"] and body["message"], body
        return body


def server_for(rt: Runtime, agent: str | None = "ada") -> AttnMCP:
    """The MCP server of ``rt`` whose connections speak for ``agent`` by default."""
    return build_server(rt, agent=agent)
