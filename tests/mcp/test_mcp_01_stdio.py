"""MCP-01 on stdio: ``attn mcp`` is a real subprocess speaking for an external agent of
an ``attn.toml``; it hosts that database's agents, or relays to the ``attn serve``
that already hosts them; an unknown identity is a tool error, never an empty inbox."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from mcp import Client

from attn.server.testing import LiveServer, team_config
from attn.store.sqlite import SQLiteStore
from tests.mcp.transport_support import INITIALIZE, TEAM, attn_mcp, child_env, sqlite_url, tool


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder with the team's attn.toml."""
    (tmp_path / "attn.toml").write_text(TEAM, encoding="utf-8")
    return tmp_path


async def test_mcp_01_stdio_hosts_the_config_and_speaks_for_its_agent(project: Path) -> None:
    db = project / "attn.db"
    params = attn_mcp(project, "--agent", "ada", ATTN_DATABASE_URL=sqlite_url(db))
    async with Client(params, mode="legacy") as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"register", "wait_for_mail", "claim", "ack", "peek_inbox"} <= names
        error, mailbox = await tool(client, "check_mailbox")
        assert not error and mailbox["agentId"] == "ada"
        error, sent = await tool(client, "agent_send_message", to="cy", message="hello cy")
        assert not error and sent["deliveries"][0]["recipient"] == "cy"
        progress: list[str | None] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(message)

        waited = await client.call_tool("wait_for_mail", {"timeout_s": 0.2}, None, on_progress)
        assert waited.structured_content is not None
        assert waited.structured_content["status"] == "timeout"
        assert progress, "a waiting wait_for_mail sends progress"
    # The process hosted the file's agents: the message is in cy's mailbox on disk.
    store = SQLiteStore(db)
    await store.open()
    try:
        items = await store.load_queue("cy")
    finally:
        await store.close()
    assert len(items) == 1 and items[0].content.endswith("hello cy")


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("--agent", "nobody"), "unknown_agent"),
        (("--agent", "bob"), "not_external"),  # attn runs bob's turns
        ((), "no_identity"),
    ],
)
async def test_mcp_01_stdio_unknown_identity_is_a_tool_error(
    project: Path, args: tuple[str, ...], code: str
) -> None:
    params = attn_mcp(project, *args, ATTN_DATABASE_URL=sqlite_url(project / "attn.db"))
    async with Client(params, mode="legacy") as client:
        for name, arguments in (
            ("peek_inbox", {}),
            ("check_mailbox", {}),
            ("wait_for_mail", {"timeout_s": 0}),
        ):
            error, body = await tool(client, name, **arguments)
            assert error, (name, body)
            assert body["error"] == code, body
            assert "items" not in body and "queued" not in body  # never an empty inbox


async def test_mcp_01_stdio_register_binds_the_process(project: Path) -> None:
    params = attn_mcp(project, ATTN_DATABASE_URL=sqlite_url(project / "attn.db"))
    async with Client(params, mode="legacy") as client:
        error, body = await tool(client, "register", agent="cy")
        assert not error and body["agentId"] == "cy"
        error, mailbox = await tool(client, "check_mailbox")
        assert not error and mailbox["agentId"] == "cy"


def _team_server(project: Path) -> LiveServer:
    return LiveServer(team_config(TEAM, project / "attn.db"))


async def test_mcp_01_stdio_relays_to_the_server_that_hosts_the_database(project: Path) -> None:
    with _team_server(project) as server:
        # Same attn.toml and database: the server holds the host lock.
        params = attn_mcp(
            project,
            "--agent",
            "ada",
            ATTN_DATABASE_URL=sqlite_url(project / "attn.db"),
            ATTN_URL=server.url,
        )
        async with Client(params, mode="legacy") as client:
            error, body = await tool(client, "agent_send_message", to="cy", message="relayed")
            assert not error, body
            progress: list[float] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append(value)

            waited = await client.call_tool("wait_for_mail", {"timeout_s": 0.2}, None, on_progress)
            assert waited.structured_content is not None
            assert waited.structured_content["status"] == "timeout"
            assert progress, "progress notifications come through the relay"
            refused = await client.call_tool("claim", {"item_id": "itm_nope"})
            assert refused.is_error  # a refusal stays a tool error through the relay
            templates = await client.list_resource_templates()
            assert templates.resource_templates
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
            mailbox = (await http.get("/api/agents/cy/mailbox")).json()
        assert len(mailbox["queued"]) == 1 and "relayed" in json.dumps(mailbox["queued"])


async def test_mcp_01_stdio_url_always_relays(tmp_path: Path) -> None:
    folder = tmp_path / "server"
    folder.mkdir()
    with LiveServer(team_config(TEAM, folder / "attn.db")) as server:
        # No attn.toml here and no database: --url relays, whatever this folder holds.
        params = attn_mcp(tmp_path, "--url", server.url)
        async with Client(params, mode="legacy") as client:
            error, body = await tool(client, "register", agent="cy")
            assert not error and body["agentId"] == "cy"
            error, mailbox = await tool(client, "check_mailbox")
            assert not error and mailbox["agentId"] == "cy"
    assert not (tmp_path / "attn.db").exists()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_mcp_01_stdio_hosted_database_without_a_server_fails_clearly(project: Path) -> None:
    with _team_server(project):
        nowhere = f"http://127.0.0.1:{_closed_port()}"
        env = child_env(ATTN_DATABASE_URL=sqlite_url(project / "attn.db"), ATTN_URL=nowhere)
        done = subprocess.run(
            [sys.executable, "-m", "attn", "mcp", "--agent", "ada"],
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""  # stdout is the protocol's
    assert "another process already hosts" in done.stderr
    assert "attn serve" in done.stderr and "--url" in done.stderr
    assert nowhere in done.stderr


def test_mcp_01_stdio_sigterm_closes_the_runtime_and_exits(project: Path) -> None:
    env = child_env(ATTN_DATABASE_URL=sqlite_url(project / "attn.db"))
    with subprocess.Popen(
        [sys.executable, "-m", "attn", "mcp", "--agent", "ada"],
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    ) as child:
        try:
            assert child.stdin is not None and child.stdout is not None
            child.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
            child.stdin.flush()
            answer = json.loads(child.stdout.readline())
            assert answer["result"]["serverInfo"]["name"] == "attn"
            child.send_signal(signal.SIGTERM)  # stdin stays open: a host's usual stop
            assert child.wait(timeout=30) == 0  # its handler ran: not killed by the signal
        finally:
            if child.poll() is None:
                child.kill()


def test_mcp_01_stdio_without_a_config_says_what_to_pass(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "attn", "mcp", "--agent", "ada"],
        cwd=tmp_path,
        env=child_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "--config" in done.stderr and "--url" in done.stderr
    assert list(tmp_path.iterdir()) == []  # no attn.db made for a demo team


async def test_mcp_01_stdio_relay_outlives_a_server_restart(tmp_path: Path) -> None:
    folder = tmp_path / "server"
    folder.mkdir()
    first = LiveServer(team_config(TEAM, folder / "attn.db"))
    first.start()
    port = int(first.url.rsplit(":", 1)[1])
    try:
        async with Client(attn_mcp(tmp_path, "--url", first.url), mode="legacy") as client:
            assert not (await tool(client, "register", agent="cy"))[0]
            await asyncio.to_thread(first.stop)
            error, body = await tool(client, "check_mailbox")
            assert error and body["error"] == "server_unreachable"  # the relay lives on
            assert "cannot be reached" in body["message"]
            with LiveServer(team_config(TEAM, folder / "attn.db"), port=port):
                # A new session, registered again as cy.
                error, body = await tool(client, "check_mailbox")
                assert not error and body["agentId"] == "cy"
    finally:
        first.stop()
