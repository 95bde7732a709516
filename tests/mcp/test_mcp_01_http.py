"""MCP-01 over streamable HTTP: ``/mcp`` on a live ``attn serve``, under the REST API's
token and ``Host`` rules, with one identity per connection (``?agent=``,
``X-Attn-Agent``, ``register``), and SSE streams that outlive the read deadlines."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from attn.server.app import create_app
from attn.server.testing import LiveServer, serve_app, team_config
from tests.mcp.support import hosted
from tests.mcp.transport_support import INITIALIZE, MCP_HEADERS, TEAM, http_client, tool

TOKEN = "s3cret-token-for-mcp"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    """``attn serve`` without a token, hosting :data:`TEAM`."""
    with LiveServer(team_config(TEAM, tmp_path / "attn.db")) as live:
        yield live


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[LiveServer]:
    """``attn serve`` with an API token."""
    with LiveServer(team_config(TEAM, tmp_path / "attn.db", token=TOKEN)) as live:
        yield live


def _post_initialize(url: str, **headers: str) -> httpx.Response:
    return httpx.post(f"{url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **headers}, timeout=10)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_mcp_01_http_loopback_without_token(server: LiveServer, mode: str) -> None:
    async with http_client(f"{server.url}/mcp?agent=ada", mode=mode) as client:
        assert "wait_for_mail" in {t.name for t in (await client.list_tools()).tools}
        error, body = await tool(client, "check_mailbox")
        assert not error and body["agentId"] == "ada"


def test_mcp_01_http_non_loopback_host_is_refused(server: LiveServer) -> None:
    refused = _post_initialize(server.url, Host="attn.example.com")
    assert refused.status_code == 421
    assert refused.json()["error"]["code"] == "misdirected_host"
    cross_site = _post_initialize(server.url, Origin="http://evil.example")
    assert cross_site.status_code == 403
    assert cross_site.json()["error"]["code"] == "forbidden_origin"
    assert _post_initialize(server.url, Host="localhost").status_code == 200


async def test_mcp_01_http_with_a_token_every_request_needs_it(guarded: LiveServer) -> None:
    missing = _post_initialize(guarded.url)
    assert missing.status_code == 401
    assert missing.json()["error"]["code"] == "unauthorized"
    wrong = _post_initialize(guarded.url, Authorization="Bearer not-the-token")
    assert wrong.status_code == 401
    # With a token, names other than loopback are served (the token guards them).
    named = _post_initialize(guarded.url, Authorization=f"Bearer {TOKEN}", Host="attn.example")
    assert named.status_code == 200, named.text
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with http_client(f"{guarded.url}/mcp?agent=cy", auth) as client:
        error, body = await tool(client, "check_mailbox")
        assert not error and body["agentId"] == "cy"


async def test_mcp_01_http_identity_per_connection(server: LiveServer) -> None:
    url = f"{server.url}/mcp"
    async with (
        http_client(f"{url}?agent=ada") as by_query,
        http_client(url, {"X-Attn-Agent": "cy"}) as by_header,
        http_client(url) as registering,
    ):
        assert (await tool(by_query, "check_mailbox"))[1]["agentId"] == "ada"
        assert (await tool(by_header, "check_mailbox"))[1]["agentId"] == "cy"
        error, body = await tool(registering, "check_mailbox")
        assert error and body["error"] == "no_identity"
        error, body = await tool(registering, "register", agent="cy")
        assert not error and body["agentId"] == "cy"
        assert (await tool(registering, "check_mailbox"))[1]["agentId"] == "cy"
        # A register binds its own session only.
        assert (await tool(by_query, "check_mailbox"))[1]["agentId"] == "ada"
    async with http_client(f"{url}?agent=nobody") as unknown:
        error, body = await tool(unknown, "peek_inbox")
        assert error and body["error"] == "unknown_agent" and "items" not in body


def test_mcp_01_http_path_is_exactly_mcp(server: LiveServer) -> None:
    slash = httpx.post(f"{server.url}/mcp/", json=INITIALIZE, headers=MCP_HEADERS, timeout=10)
    assert slash.status_code == 404  # no redirect to or from /mcp/
    assert "/mcp" in slash.json()["error"]["message"]
    assert _post_initialize(server.url).status_code == 200


def test_mcp_01_mcp_is_not_in_the_openapi_document(server: LiveServer) -> None:
    paths = httpx.get(f"{server.url}/openapi.json", timeout=10).json()["paths"]
    assert "/mcp" not in paths


async def test_mcp_01_a_long_wait_outlives_the_read_deadlines(tmp_path: Path) -> None:
    # Deadlines of 1 s for headers and body: a wait of 2.5 s streams past both.
    team = "[server]\nheader_timeout_s = 1\nbody_timeout_s = 1\n" + TEAM
    with LiveServer(team_config(team, tmp_path / "attn.db")) as live:
        async with http_client(f"{live.url}/mcp?agent=ada") as client:
            progress: list[float] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append(value)

            # PROGRESS_EVERY_S is 5 s: one notification at the start of this wait.
            result = await client.call_tool("wait_for_mail", {"timeout_s": 2.5}, None, on_progress)
            assert not result.is_error and result.structured_content is not None
            assert result.structured_content["status"] == "timeout"
            assert result.structured_content["waitedS"] >= 2.5
            assert progress


async def test_mcp_01_shutdown_ends_open_waits(tmp_path: Path) -> None:
    live = LiveServer(team_config(TEAM, tmp_path / "attn.db"))
    live.start()
    try:
        async with http_client(f"{live.url}/mcp?agent=ada") as client:
            started = asyncio.Event()

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                started.set()

            waiting = asyncio.create_task(
                client.call_tool("wait_for_mail", {"timeout_s": 45}, None, on_progress)
            )
            await asyncio.wait_for(started.wait(), 10)
            loop = asyncio.get_running_loop()
            begun = loop.time()
            await asyncio.to_thread(live.stop)
            # Not held for uvicorn's 10 s grace period by the open SSE stream.
            assert loop.time() - begun < 8
            waiting.cancel()
            with pytest.raises((asyncio.CancelledError, Exception)):
                await waiting
    finally:
        live.stop()


async def test_mcp_01_shutdown_ends_a_stateless_wait_too(tmp_path: Path) -> None:
    """A 2026-07-28 call (no session) that waits is ended at shutdown as a session's
    stream is: not held open for uvicorn's 10 s grace period."""
    from tests.mcp.test_mcp_fastpath import call_body, headers

    live = LiveServer(team_config(TEAM, tmp_path / "attn.db"))
    live.start()
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            body = call_body(1, "wait_for_mail", {"timeout_s": 45})
            waiting = asyncio.create_task(
                http.post(
                    f"{live.url}/mcp?agent=ada", content=body, headers=headers("wait_for_mail")
                )
            )
            await asyncio.sleep(1.0)  # real time: the call is in the server, waiting
            assert not waiting.done()
            loop = asyncio.get_running_loop()
            begun = loop.time()
            await asyncio.to_thread(live.stop)
            assert loop.time() - begun < 5
            try:
                response = await asyncio.wait_for(waiting, 5)
            except httpx.HTTPError:
                return  # the connection ended: the client knows at once
            # Or the answer ended without a result: a 503, or a stream cut short.
            assert response.status_code == 503 or '"result"' not in response.text, response.text
    finally:
        live.stop()


async def test_mcp_01_an_app_served_without_lifespan_starts_mcp_on_first_use(
    tmp_path: Path,
) -> None:
    async with hosted(tmp_path, ("ada",)) as runtime:
        app = create_app(runtime)
        try:
            async with serve_app(app) as url, http_client(f"{url}/mcp?agent=ada") as client:
                error, body = await tool(client, "check_mailbox")
                assert not error and body["agentId"] == "ada"
        finally:
            await app.state.mcp.aclose()
        # Closed: a request is answered 503, never served by a stopped manager.
        async with serve_app(app) as url, httpx.AsyncClient() as http:
            late = await http.post(f"{url}/mcp", json=INITIALIZE, headers=MCP_HEADERS)
        assert late.status_code == 503 and late.json()["error"]["code"] == "mcp_closed"


def _answer(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC message of a POST's answer (plain JSON or one SSE event)."""
    assert response.status_code == 200, response.text
    if response.headers["content-type"].startswith("application/json"):
        body: dict[str, Any] = response.json()
        return body
    data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
    message: dict[str, Any] = json.loads(data[-1])
    return message


def test_mcp_01_a_session_keeps_the_agent_of_its_first_request(server: LiveServer) -> None:
    opened = _post_initialize(f"{server.url}", Host="127.0.0.1")
    session = opened.headers["mcp-session-id"]
    head = {**MCP_HEADERS, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
    with httpx.Client(base_url=server.url, headers=head, timeout=10) as http:
        http.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        calls = iter(range(2, 100))

        def call(name: str, query: str = "", **extra: str) -> tuple[bool, dict[str, Any]]:
            arguments = {"agent": "cy"} if name == "register" else {}
            params = {"name": name, "arguments": arguments}
            body = {"jsonrpc": "2.0", "id": next(calls), "method": "tools/call", "params": params}
            result = _answer(http.post(f"/mcp{query}", json=body, headers=extra))["result"]
            return result.get("isError", False), result["structuredContent"]

        assert call("check_mailbox", "?agent=ada")[1]["agentId"] == "ada"
        assert call("check_mailbox")[1]["agentId"] == "ada"  # bound: no name needed
        for query, extra in (("?agent=cy", {}), ("", {"X-Attn-Agent": "cy"})):
            error, body = call("check_mailbox", query, **extra)
            assert error and body["error"] == "identity_conflict", body
            assert "'ada'" in body["message"] and "'cy'" in body["message"], body
        # register rebinds the session explicitly; the name it was opened with still works.
        assert call("register", "?agent=ada") == (
            False,
            {"agentId": "cy", "created": False, "queueDepth": 0},
        )
        assert call("check_mailbox", "?agent=ada")[1]["agentId"] == "cy"
        assert call("check_mailbox", "?agent=cy")[1]["agentId"] == "cy"


def test_mcp_01_a_stateless_request_has_no_session_whatever_header_it_sends(
    server: LiveServer,
) -> None:
    # A real session, bound to ada by its first call.
    opened = _post_initialize(server.url)
    session = opened.headers["mcp-session-id"]
    legacy = {**MCP_HEADERS, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
    with httpx.Client(base_url=server.url, timeout=10) as http:
        http.post(
            "/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=legacy
        )
        calls = iter(range(2, 100))

        def call(name: str, headers: dict[str, str], query: str = "") -> dict[str, Any]:
            arguments = {"agent": "cy"} if name == "register" else {}
            params: dict[str, Any] = {"name": name, "arguments": arguments}
            if headers is not legacy:
                params["_meta"] = {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                }
            body = {"jsonrpc": "2.0", "id": next(calls), "method": "tools/call", "params": params}
            answer = _answer(http.post(f"/mcp{query}", json=body, headers=headers))
            content: dict[str, Any] = answer["result"]["structuredContent"]
            return content

        assert call("check_mailbox", legacy, "?agent=ada")["agentId"] == "ada"
        for claimed in (session, "made-up-session"):
            stateless = {
                **MCP_HEADERS,
                "MCP-Protocol-Version": "2026-07-28",
                "Mcp-Method": "tools/call",
                "Mcp-Name": "register",
                "Mcp-Session-Id": claimed,
            }
            refused = call("register", stateless, "?agent=ada")
            assert refused.get("error") == "invalid_input", refused
            assert "no MCP session" in refused["message"]
            # It speaks for the agent it names, not for the session whose id it copied.
            peek = call("check_mailbox", {**stateless, "Mcp-Name": "check_mailbox"}, "?agent=cy")
            assert peek["agentId"] == "cy", peek
        assert call("check_mailbox", legacy)["agentId"] == "ada"  # still bound to ada


def test_mcp_01_a_request_naming_two_agents_is_refused(server: LiveServer) -> None:
    from tests.mcp.test_mcp_fastpath import call_body, headers

    body = call_body(1, "agent_send_message", {"to": "cy", "message": "hi"})
    head = headers("agent_send_message", **{"X-Attn-Agent": "cy"})
    with httpx.Client(base_url=server.url, timeout=10) as http:
        before = http.get("/api/agents/cy/mailbox").json()
        result = _answer(http.post("/mcp?agent=ada", content=body, headers=head))["result"]
        assert result["isError"] and result["structuredContent"]["error"] == "identity_conflict"
        assert "'cy'" in result["structuredContent"]["message"]
        assert "'ada'" in result["structuredContent"]["message"]
        assert http.get("/api/agents/cy/mailbox").json() == before  # nothing was sent
