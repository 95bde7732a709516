"""The tool-call fast path (``attn.mcp.fastpath``): a plain 2026-07-28 ``tools/call``
is answered as the SDK answers it, byte for byte, and everything else goes to the
SDK untouched (progress, sessions, refusals of the envelope), on real loopback HTTP."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from mcp import Client
from mcp.server.transport_security import TransportSecuritySettings

from attn.mcp import build_server
from attn.mcp.fastpath import ToolCallFastPath
from attn.server.testing import serve_app

from .support import hosted

VERSION = "2026-07-28"


def call_body(request_id: int, name: str, arguments: dict[str, Any], **meta: Any) -> bytes:
    envelope = {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
        **meta,
    }
    params = {"name": name, "arguments": arguments, "_meta": envelope}
    body = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    return json.dumps(body).encode()


def headers(name: str, **extra: str) -> dict[str, str]:
    return {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": "tools/call",
        "Mcp-Name": name,
        **extra,
    }


class Both:
    """One MCP server served twice: through the fast path and by the SDK alone."""

    def __init__(self, fast: httpx.AsyncClient, sdk: httpx.AsyncClient, path: ToolCallFastPath):
        self.fast, self.sdk, self.path = fast, sdk, path

    async def post(
        self, client: httpx.AsyncClient, body: bytes, head: dict[str, str], agent: str = "ada"
    ) -> httpx.Response:
        return await client.post(f"/mcp?agent={agent}", content=body, headers=head)


@asynccontextmanager
async def both(tmp_path: Path) -> AsyncIterator[Both]:
    async with hosted(tmp_path) as rt:
        server = build_server(rt)
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        sdk_app = server.streamable_http_app(transport_security=security)
        path = ToolCallFastPath(sdk_app, server)
        async with (
            server.session_manager.run(),
            serve_app(path) as fast_url,
            serve_app(sdk_app) as sdk_url,
            httpx.AsyncClient(base_url=fast_url, timeout=10) as fast,
            httpx.AsyncClient(base_url=sdk_url, timeout=10) as sdk,
        ):
            yield Both(fast, sdk, path)


async def test_mcp_01_a_plain_call_is_answered_as_the_sdk_answers_it(tmp_path: Path) -> None:
    async with both(tmp_path) as b:
        for i in range(3):  # mail for ada: the peeks list items (with their nulls and nesting)
            text = f'PR {i}: \u00e9t\u00e9 "quoted" \n line'
            body = call_body(i, "agent_send_message", {"to": "ada", "message": text})
            await b.post(b.sdk, body, headers("agent_send_message"), agent="bob")
        cases = [
            ("peek_inbox", {}),
            ("peek_inbox", {"after_seq": 0, "limit": 2}),
            ("check_mailbox", {}),
            ("agent_send_message", {"to": "zed", "message": "hi"}),  # refused: unknown agent
            ("agent_send_message", {"to": "bob", "message": ""}),  # refused: empty text
            ("peek_inbox", {"limit": 0}),  # refused by the tool's own check
            ("peek_inbox", {"colour": "red"}),  # an unknown argument
            ("no_such_tool", {}),  # not one of ours: the SDK's path
        ]
        for i, (name, arguments) in enumerate(cases):
            body, head = call_body(i, name, arguments), headers(name)
            fast = await b.post(b.fast, body, head)
            sdk = await b.post(b.sdk, body, head)
            assert fast.status_code == sdk.status_code == 200, (name, fast.text)
            assert fast.headers["content-type"] == sdk.headers["content-type"]
            assert fast.content == sdk.content, name
        assert b.path.served == len(cases) - 1


async def test_mcp_01_a_send_through_the_fast_path_is_the_same_send(tmp_path: Path) -> None:
    async with both(tmp_path) as b:
        sent = await b.post(
            b.fast,
            call_body(1, "agent_send_message", {"to": "bob", "message": "review PR 7"}),
            headers("agent_send_message"),
        )
        answer = sent.json()["result"]
        assert answer["isError"] is False and answer["resultType"] == "complete"
        assert answer["structuredContent"]["deliveries"][0]["recipient"] == "bob"
        assert answer["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "attn"
        # bob reads it on either path; the agent comes from ?agent= or the header.
        peek = call_body(2, "peek_inbox", {})
        for client in (b.fast, b.sdk):
            seen = await client.post(
                "/mcp", content=peek, headers=headers("peek_inbox", **{"X-Attn-Agent": "bob"})
            )
            items = seen.json()["result"]["structuredContent"]["items"]
            assert [i["content"].split("] ")[-1] for i in items] == ["review PR 7"]
        assert b.path.served == 2


async def test_mcp_01_what_the_fast_path_does_not_serve_goes_to_the_sdk(tmp_path: Path) -> None:
    async with both(tmp_path) as b:
        served = b.path.served
        # A wait that asks for progress: answered in SSE with its progress notifications.
        wait = call_body(1, "wait_for_mail", {"timeout_s": 0.2}, progressToken="p1")
        streamed = await b.post(b.fast, wait, headers("wait_for_mail"))
        assert streamed.headers["content-type"].startswith("text/event-stream")
        assert '"notifications/progress"' in streamed.text and '"status":"timeout"' in streamed.text
        # Envelope refusals are the SDK's, word for word.
        refusals = [
            (call_body(2, "peek_inbox", {}), headers("peek_inbox", **{"Mcp-Name": "claim"})),
            (
                call_body(3, "peek_inbox", {}),
                headers("peek_inbox", **{"MCP-Protocol-Version": "1999-01-01"}),
            ),
            (b'[{"jsonrpc": "2.0"}]', headers("peek_inbox")),
            (b"{not json", headers("peek_inbox")),
            (
                call_body(4, "peek_inbox", {}),
                {**headers("peek_inbox"), "Accept": "application/json"},
            ),
        ]
        for body, head in refusals:
            fast = await b.post(b.fast, body, head)
            sdk = await b.post(b.sdk, body, head)
            assert (fast.status_code, fast.content) == (sdk.status_code, sdk.content), body
            assert fast.status_code != 200 or b'"error"' in fast.content, fast.text
        assert b.path.served == served
        # A session (the initialize handshake, as today's hosts speak) works through it.
        url = str(b.fast.base_url)
        async with Client(f"{url}/mcp?agent=ada", mode="legacy") as client:
            result = await client.call_tool("peek_inbox", {})
            assert result.structured_content is not None
            assert result.structured_content["agentId"] == "ada"
        assert b.path.served == served
        # The SDK's own client on 2026-07-28 is served by the fast path.
        async with Client(f"{url}/mcp?agent=ada") as client:
            result = await client.call_tool("peek_inbox", {})
            assert result.structured_content is not None
        assert b.path.served == served + 1
