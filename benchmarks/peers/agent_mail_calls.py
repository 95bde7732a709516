"""Talking to mcp_agent_mail over MCP: one SDK client session, one tool call, its tools' arguments.

Tools (mcp_agent_mail 0.1.0, "core" tool mode): ``register_agent(project_key, program, model,
name)``, ``send_message(project_key, sender_name, to, subject, body_md)``,
``fetch_inbox(project_key, agent_name, limit=20, since_ts=None)``; all agents of the
benchmark are in one project, ``PROJECT``, and every message goes to ``RECIPIENT``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx2
from agent_mail_process import PeerFailed
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

PROJECT = "/bench/attn-peer"
RECIPIENT = "InboxAgent"
CALL_TIMEOUT_S = 90.0  # above the peer's own 60 s archive-lock timeout, so its error arrives first


def error_kind(text: str) -> str:
    low = text.lower()
    if "lock" in low:
        return "lock"
    return "timeout" if "timeout" in low or "timed out" in low else "other"


async def call(client: Client, tool: str, args: dict[str, Any]) -> tuple[float, str | None, Any]:
    """One tool call: (milliseconds, error kind or None, structured result)."""
    start = time.perf_counter()
    try:
        result = await client.call_tool(tool, args, read_timeout_seconds=CALL_TIMEOUT_S)
    except Exception as exc:  # a transport error or timeout counts, it does not stop the run
        return (time.perf_counter() - start) * 1000, error_kind(f"{type(exc).__name__} {exc}"), exc
    ms = (time.perf_counter() - start) * 1000
    if result.is_error:
        text = " ".join(getattr(part, "text", "") for part in result.content)
        return ms, error_kind(text), text
    return ms, None, result.structured_content


def send_args(sender: str, n: int) -> dict[str, Any]:
    body = f"benchmark message {n} from {sender}"
    return {
        "project_key": PROJECT,
        "sender_name": sender,
        "to": [RECIPIENT],
        "subject": f"bench {n}",
        "body_md": body,
    }


@contextlib.asynccontextmanager
async def connect(url: str) -> AsyncIterator[Client]:
    """An SDK client whose HTTP read timeout is the call timeout (the default 300 s would outlive
    a call that gave up, and its late ``ReadTimeout`` would end the session)."""
    timeout = httpx2.Timeout(30.0, read=CALL_TIMEOUT_S)
    async with (
        httpx2.AsyncClient(timeout=timeout) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


async def fetch(client: Client, **args: Any) -> tuple[float, list[dict[str, Any]]]:
    """``fetch_inbox`` of the recipient: (milliseconds, messages, newest first)."""
    took, err, result = await call(
        client, "fetch_inbox", {"project_key": PROJECT, "agent_name": RECIPIENT, **args}
    )
    if err is not None:
        raise PeerFailed(f"fetch_inbox failed: {result}")
    return took, list(result.get("result", []) if isinstance(result, dict) else result)
