"""Which tools the MCP server offers: attn's own brain tools, under their own names.

A CLI agent gets the tools an attn brain gets (the same names, arguments and
answers): the claim tools of an external agent, the mailbox tools that inspect
and manage its queue, its time, memory, channel and people tools. Left out are
the tools that only make sense inside attn's own tool loop (working memory,
deliberation), that run commands on the server (``background_exec``), and the
spawn tree's and worker tools. Two tools are the server's own: ``register`` and
``wait_for_mail``.

Spec: issue 17 point 3; acceptance MCP-02.
"""

from __future__ import annotations

from attn.brains.external import MAX_WAIT_S
from attn.tools import (
    ChannelToolset,
    MailboxToolset,
    MemoryToolset,
    PeopleToolset,
    TimeToolset,
)
from attn.tools._schema import ToolDefinition
from attn.tools.claims import ClaimToolset

#: attn's brain tools an MCP client gets, by toolset.
SERVED: dict[str, frozenset[str]] = {
    "claims": frozenset({"peek_inbox", "claim", "ack", "reply", "check_approval"}),
    "mailbox": frozenset(
        {"check_mailbox", "defer_mailbox_item", "drop_mailbox_item", "prioritize_mailbox_item"}
    ),
    "time": frozenset({"schedule_wakeup", "cancel_wakeup"}),
    "memory": frozenset({"memory_save", "memory_search", "recall_activity"}),
    "channels": frozenset(
        {
            "agent_send_message",
            "agent_send_group_message",
            "agent_create_group_chat",
            "agent_list_group_chats",
            "agent_broadcast_status",
            "agent_delegate_task",
            "recall_channel",
        }
    ),
    "people": frozenset({"notify_user", "request_user_approval"}),
}

REGISTER = ToolDefinition(
    name="register",
    description=(
        "Say which attn agent this connection speaks for (once, before the other tools,"
        " unless the server was started with --agent or the URL names one with ?agent=)."
        " With create, an external agent of that name is hosted if none is."
    ),
    parameters={
        "type": "object",
        "properties": {
            "agent": {
                "type": "string",
                "minLength": 1,
                "maxLength": 64,
                "description": "The agent's name.",
            },
            "create": {
                "type": "boolean",
                "description": "Host a new external agent of that name if there is none.",
            },
            "description": {
                "type": "string",
                "maxLength": 2000,
                "description": "What the new agent does (with create).",
            },
        },
        "required": ["agent"],
        "additionalProperties": False,
    },
    required=("agent",),
)

WAIT_FOR_MAIL = ToolDefinition(
    name="wait_for_mail",
    description=(
        "Wait until mail is in your mailbox, then return it (without claiming it): at"
        " once when some is queued, else when the next item arrives, or empty after"
        " timeout_s seconds. Progress notifications come while it waits. With after_seq,"
        " it answers the items stored after that sequence number (catch-up after a"
        " reconnect)."
    ),
    parameters={
        "type": "object",
        "properties": {
            "timeout_s": {
                "type": "number",
                "minimum": 0,
                "maximum": MAX_WAIT_S,
                "description": f"Seconds to wait at most (0..{MAX_WAIT_S:g}; default 30).",
            },
            "after_seq": {
                "type": "integer",
                "minimum": 0,
                "description": "Only items with a larger seq (the largest seq you have seen).",
            },
        },
        "additionalProperties": False,
    },
)


def served_definitions() -> tuple[ToolDefinition, ...]:
    """Every tool the server lists, in a stable order: its own, then attn's."""
    classes = (
        ("claims", ClaimToolset),
        ("mailbox", MailboxToolset),
        ("time", TimeToolset),
        ("memory", MemoryToolset),
        ("channels", ChannelToolset),
        ("people", PeopleToolset),
    )
    attn_tools = tuple(
        d for key, cls in classes for d in cls.tool_definitions() if d.name in SERVED[key]
    )
    return (REGISTER, WAIT_FOR_MAIL, *attn_tools)


__all__ = ["REGISTER", "SERVED", "WAIT_FOR_MAIL", "served_definitions"]
