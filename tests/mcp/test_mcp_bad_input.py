"""MCP-07: bad input on any tool is a tool error with a clear message, and nothing changes.

Each refused call is checked against a snapshot of everything the tools could
change: both agents' items (status, attempt, payload), the channels, the
notifications and approvals.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.shared.exceptions import MCPError

from attn import Runtime
from attn.brains import EchoBrain
from attn.core.item_type import Category, ItemType
from attn.server.app import create_app
from attn.server.testing import serve_app
from attn.store.base import ItemQuery
from tests.mcp.support import FAST, connected, hosted, server_for
from tests.mcp.transport_support import MCP_HEADERS, http_client

HUGE = "x" * 1_000_001


async def snapshot(rt: Runtime) -> dict[str, Any]:
    items = {
        name: [
            (i.id, str(i.status), i.attempt, i.payload, i.priority)
            for i in await rt.store.find_items(ItemQuery(name, limit=1000))
        ]
        for name in ("ada", "bob")
    }
    channels = [c.key for c in await rt.store.find_channels()]
    notes = (await rt.people.notifications.page()).total_count
    _, approvals = await rt.people.approvals.page()
    return {"items": items, "channels": channels, "notes": notes, "approvals": approvals}


BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("claim", {"item_id": "mbx_nope"}, "item_not_found"),
    ("claim", {"wait_s": -1}, "invalid_input"),
    ("claim", {"wait_s": 51}, "invalid_input"),
    ("claim", {"wait_s": "soon"}, "invalid_input"),
    ("claim", {"item_id": ""}, "invalid_input"),
    ("ack", {"item_id": "mbx_nope"}, "item_not_claimed"),
    ("ack", {}, "invalid_input"),
    ("ack", {"item_id": "mbx_nope", "tokens": -5}, "invalid_input"),
    ("reply", {"item_id": "mbx_nope", "text": ""}, "invalid_input"),
    ("peek_inbox", {"limit": 0}, "invalid_input"),
    ("peek_inbox", {"after_seq": -1}, "invalid_input"),
    ("peek_inbox", {"statuses": ["lost"]}, "invalid_input"),
    ("peek_inbox", {"colour": "red"}, "invalid_input"),
    ("wait_for_mail", {"timeout_s": 60}, "invalid_input"),
    ("wait_for_mail", {"timeout_s": float("nan")}, "invalid_input"),
    ("wait_for_mail", {"after_seq": True}, "invalid_input"),
    ("agent_send_message", {"to": "nobody", "message": "hi"}, "send_refused"),
    ("agent_send_message", {"to": "bob", "message": ""}, "send_refused"),
    ("agent_send_message", {"to": "bob", "message": HUGE}, "invalid_input"),
    ("agent_send_message", {"to": "ada", "message": "me"}, "send_refused"),
    ("notify_user", {"title": "", "body": "x"}, "invalid_input"),
    ("notify_user", {"title": "t", "body": HUGE}, "invalid_input"),
    ("check_approval", {"approval_id": "apr_nope"}, "approval_not_found"),
    ("schedule_wakeup", {}, "invalid_input"),
    ("defer_mailbox_item", {"item_id": "mbx_nope", "reason": "later"}, "item_not_found"),
    ("no_such_tool", {}, "invalid_input"),
]


async def test_mcp_07_bad_input_is_a_tool_error_and_changes_nothing(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        bob = rt.get_agent("bob")
        theirs = await bob.enqueue("a2a_message", {"content": "bob's work"})
        await rt.get_agent("ada").enqueue("a2a_message", {"content": "ada's work"})
        before = await snapshot(rt)
        for name, arguments, code in BAD_CALLS:
            body = await ada.refused(name, **arguments)
            assert body["error"] == code, (name, arguments, body)
            assert len(body["message"]) < 2000, (name, body)
            assert await snapshot(rt) == before, (name, arguments)
        # A claim of another agent's item: refused, bob's item untouched.
        body = await ada.refused("claim", item_id=theirs)
        assert body["error"] == "item_not_found" and theirs in body["message"]
        assert await snapshot(rt) == before


async def test_mcp_01_an_unknown_or_internal_identity_is_an_error_never_an_empty_inbox(
    tmp_path: Path,
) -> None:
    async with hosted(tmp_path) as rt:
        await rt.add_agent("eve", EchoBrain(), FAST)
        async with connected(server_for(rt, "ghost")) as ghost:
            body = await ghost.refused("peek_inbox")
            assert body["error"] == "unknown_agent" and "ada" in body["message"]
        async with connected(server_for(rt, None)) as anonymous:
            body = await anonymous.refused("check_mailbox")
            assert body["error"] == "no_identity" and "register" in body["message"]
            body = await anonymous.refused("register", agent="eve")
            assert body["error"] == "not_external"
            body = await anonymous.refused("register", agent="ghost")
            assert body["error"] == "unknown_agent"
            registered = await anonymous.ok("register", agent="bob")
            assert registered["agentId"] == "bob"
            assert (await anonymous.ok("peek_inbox"))["agentId"] == "bob"
        async with connected(server_for(rt, None)) as newcomer:
            made = await newcomer.ok("register", agent="cy", create=True)
            assert made == {"agentId": "cy", "created": True, "queueDepth": 0}
            assert (await newcomer.ok("check_mailbox"))["agentId"] == "cy"
            body = await newcomer.refused("register", agent="bad name!", create=True)
            assert body["error"] == "invalid_input"
        assert sorted(a.name for a in rt.agents) == ["ada", "bob", "cy", "eve"]


BAD_OPTIONS: list[Any] = [
    [{"id": "yes"}],  # no label
    [{"label": "Yes"}],  # no id
    ["yes", "no"],  # strings, not options
    [{"id": "yes", "label": 3}],
    [{"id": "yes", "label": "Yes", "colour": "green"}],
    [{"id": "yes", "label": "Yes", "description": None}],
    [None],
    [],
    {"id": "yes", "label": "Yes"},
]


async def test_mcp_07_malformed_approval_options_are_refused_and_nothing_is_stored(
    tmp_path: Path,
) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        item_id = await rt.get_agent("ada").enqueue("a2a_message", {"content": "deploy?"})
        await ada.ok("claim")
        before = await snapshot(rt)
        for options in BAD_OPTIONS:
            body = await ada.refused(
                "request_user_approval", title="Deploy?", description="v2", options=options
            )
            assert body["error"] == "invalid_input", (options, body)
            assert "options" in body["message"], (options, body)
            assert await snapshot(rt) == before, options
        # The claim is untouched: the item was never parked.
        done = await ada.ok("ack", item_id=item_id, reply="not deployed")
        assert done["status"] == "completed"


async def test_mcp_07_peek_inbox_refuses_an_unknown_source_type(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        await rt.get_agent("ada").enqueue("a2a_message", {"content": "work"})
        before = await snapshot(rt)
        for arguments in ({"source_types": ["human_chat", "hman_chat"]}, {"after_seq": 0}):
            body = await ada.refused("peek_inbox", **{"source_types": ["hman_chat"], **arguments})
            assert body["error"] == "unknown_item_type", body
            assert "'hman_chat'" in body["message"], body
            assert "human_chat" in body["message"] and "a2a_message" in body["message"], body
        assert await snapshot(rt) == before
        # A type registered after the tools were made is known too.
        ticket = ItemType("ticket", "Ticket", 2, Category.NOTIFICATION, "T", "internal")
        rt.registry.register(ticket)
        assert (await ada.ok("peek_inbox", source_types=["ticket"]))["items"] == []


async def test_mcp_07_a_message_in_an_unknown_conversation_is_refused(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        group = await ada.ok("agent_create_group_chat", name="pair", members=["bob"])
        before = await snapshot(rt)
        body = await ada.refused(
            "agent_send_message", to="bob", message="as I said", conversation_id="conv_nope"
        )
        assert body["error"] == "invalid_input" and "'conv_nope'" in body["message"], body
        assert await snapshot(rt) == before
        body = await ada.refused(
            "agent_send_group_message",
            channel_key=group["channel"]["channelKey"],
            message="as I said",
            conversation_id="conv_nope",
        )
        assert body["error"] == "invalid_input" and "'conv_nope'" in body["message"], body
        assert await snapshot(rt) == before
        # A conversation that exists is continued, on any channel it is on.
        sent = await ada.ok("agent_send_message", to="bob", message="review PR 12?")
        conversation = sent["conversationId"]
        again = await ada.ok(
            "agent_send_message", to="bob", message="also PR 13", conversation_id=conversation
        )
        assert again["conversationId"] == conversation
        posted = await ada.ok(
            "agent_send_group_message",
            channel_key=group["channel"]["channelKey"],
            message="see the DM",
            conversation_id=conversation,
        )
        assert posted["conversationId"] == conversation


async def test_mcp_07_an_oversized_request_over_http_is_an_error_the_client_shows(
    tmp_path: Path,
) -> None:
    async with hosted(tmp_path) as rt:
        app = create_app(rt)
        try:
            async with serve_app(app) as url, http_client(f"{url}/mcp?agent=ada") as client:
                before = await snapshot(rt)
                huge = "x" * 1_100_000  # over the server's 1 MiB body limit
                with pytest.raises(MCPError) as refused:
                    await client.call_tool("agent_send_message", {"to": "bob", "message": huge})
                assert "larger than 1048576 bytes" in refused.value.error.message
                assert await snapshot(rt) == before
                # The connection goes on: the next call is served.
                result = await client.call_tool("check_mailbox", {})
                assert not result.is_error
                # Streamed without a Content-Length, the same JSON-RPC error (HTTP 413).
                async with httpx.AsyncClient() as http:

                    async def chunks() -> AsyncIterator[bytes]:
                        yield b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": "'
                        for _ in range(20):
                            yield b"y" * 100_000
                        yield b'"}'

                    streamed = await http.post(
                        f"{url}/mcp?agent=ada", content=chunks(), headers=MCP_HEADERS
                    )
                assert streamed.status_code == 413
                error = streamed.json()
                assert error["jsonrpc"] == "2.0" and error["error"]["code"] == -32600
                assert "larger than 1048576 bytes" in error["error"]["message"]
                assert error["error"]["data"] == {"code": "body_too_large"}
                assert await snapshot(rt) == before
        finally:
            await app.state.mcp.aclose()
