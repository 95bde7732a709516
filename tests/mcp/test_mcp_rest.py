"""External agents declared in ``attn.toml`` or registered over REST (issue 17 point 2),
on a live server: listed as external, checked like any agent, their mail queued
until their client claims it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from attn.config import parse_config
from attn.server.testing import LiveServer

TEAM = """\
[[agents]]
name = "claude"
brain = "external"
description = "Claude Code, in the repo"

[[agents]]
name = "helper"
brain = "echo"
"""


@pytest.fixture
def http(tmp_path: Path) -> Iterator[httpx.Client]:
    config = parse_config(TEAM, environ={"ATTN_DATABASE_URL": f"sqlite:///{tmp_path / 'a.db'}"})
    with LiveServer(config) as live, httpx.Client(base_url=live.url, timeout=10.0) as client:
        yield client


def test_mcp_02_external_agents_come_from_attn_toml_and_rest(http: httpx.Client) -> None:
    agents = {a["agentId"]: a for a in http.get("/api/agents").json()["agents"]}
    assert agents["claude"]["external"] is True and agents["helper"]["external"] is False
    refused = http.post(
        "/api/agents", json={"agentId": "codex", "brain": "external", "options": {"model": "x"}}
    )
    assert refused.status_code == 422, refused.text
    assert "external" in refused.text
    assert "codex" not in {a["agentId"] for a in http.get("/api/agents").json()["agents"]}
    made = http.post("/api/agents", json={"agentId": "codex", "brain": "external"})
    assert made.status_code == 201, made.text
    assert made.json()["external"] is True
    # Mail to an external agent waits for its client's claim; the receipt says so.
    sent = http.post(
        "/api/agents/claude/mailbox",
        json={"sourceType": "a2a_message", "payload": {"content": "review PR 7"}},
    )
    assert sent.status_code == 202, sent.text
    mailbox = http.get("/api/agents/claude/mailbox").json()
    assert [i["summary"] for i in mailbox["queued"]] == ["review PR 7"]
