"""The MCP resources: an external agent's mailbox and its history, as JSON.

``attn://agents/{agent}/mailbox`` is what ``check_mailbox`` answers (the queue
in claim order, the focus, recent decisions); ``attn://agents/{agent}/history``
is the newest page of its mailbox timeline (queue and history, with decisions),
the same view REST serves at ``GET /api/agents/{agentId}/mailbox``.

Spec: issue 17 point 3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn.jsontext import dumps
from attn.mcp.identity import external_agent
from attn.tools import MailboxToolset

if TYPE_CHECKING:
    from attn.mcp.server import AttnMCP

#: Items of the history page.
HISTORY_PAGE = 50


def add_resources(server: AttnMCP) -> None:
    """Register the agent resources on ``server``."""
    runtime = server.runtime

    @server.resource(
        "attn://agents/{agent}/mailbox",
        name="mailbox",
        description="An external agent's queue, focus and recent decisions (nothing consumed).",
        mime_type="application/json",
    )
    async def mailbox(agent: str) -> str:
        hosted = external_agent(runtime, agent)
        return dumps(await MailboxToolset(hosted).check_mailbox(limit=200))

    @server.resource(
        "attn://agents/{agent}/history",
        name="history",
        description="An external agent's mailbox timeline: queue, newest history, decisions.",
        mime_type="application/json",
    )
    async def history(agent: str) -> str:
        hosted = external_agent(runtime, agent)
        return dumps(await hosted.mailbox_timeline(limit=HISTORY_PAGE))


__all__ = ["HISTORY_PAGE", "add_resources"]
