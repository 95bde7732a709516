"""The MCP resources: an external agent's mailbox and its history, as JSON.

``attn://agents/{agent}/mailbox`` is what ``check_mailbox`` answers (the queue
in claim order, the focus, recent decisions); ``attn://agents/{agent}/history``
is the newest page of its mailbox timeline (queue and history, with decisions),
the same view REST serves at ``GET /api/agents/{agentId}/mailbox``.

Spec: issue 17 point 3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcp.server.mcpserver.exceptions import ResourceNotFoundError

from attn.errors import AttnError
from attn.jsontext import dumps
from attn.mcp.identity import external_agent
from attn.tools import MailboxToolset

if TYPE_CHECKING:
    from attn.mcp.server import AttnMCP
    from attn.runtime import Agent

#: Items of the history page.
HISTORY_PAGE = 50


def add_resources(server: AttnMCP) -> None:
    """Register the agent resources on ``server``."""
    runtime = server.runtime

    def _agent(name: str) -> Agent:
        try:
            return external_agent(runtime, name)
        except AttnError as exc:  # said to the client, not logged as a crash
            raise ResourceNotFoundError(f"{exc.code}: {exc.message}") from None

    @server.resource(
        "attn://agents/{agent}/mailbox",
        name="mailbox",
        description="An external agent's queue, focus and recent decisions (nothing consumed).",
        mime_type="application/json",
    )
    async def mailbox(agent: str) -> str:
        hosted = _agent(agent)
        return dumps(await MailboxToolset(hosted).check_mailbox(limit=200))

    @server.resource(
        "attn://agents/{agent}/history",
        name="history",
        description="An external agent's mailbox timeline: queue, newest history, decisions.",
        mime_type="application/json",
    )
    async def history(agent: str) -> str:
        hosted = _agent(agent)
        return dumps(await hosted.mailbox_timeline(limit=HISTORY_PAGE))


__all__ = ["HISTORY_PAGE", "add_resources"]
