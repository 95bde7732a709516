"""``/ready`` and ``/metrics`` over real HTTP, and the token rules for them.

``/health`` never needs the token; ``/ready`` and ``/metrics`` do when one is set.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from prometheus_client.parser import text_string_to_metric_families

from attn.brains import EchoBrain
from attn.config import parse_config
from attn.runtime import Runtime
from attn.server.app import create_app
from attn.server.testing import LiveServer
from attn.store import open_store

TEAM = """\
[[agents]]
name = "alice"
brain = "echo"

[[agents]]
name = "bob"
brain = "echo"
"""
TOKEN = "meta-token-123"


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def _value(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


def test_ready_when_the_store_answers(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url) as http:
        http.post("/api/agents/bob/control/stop")
        ready = http.get("/ready")
    assert ready.status_code == 200, ready.text
    body = ready.json()
    assert body["status"] == "ready"
    assert body["store"] == "sqlite"
    assert body["agents"] == 2
    assert body["stopped"] == ["bob"]  # listed, but a stopped agent is no reason to be unready


def test_metrics_count_what_the_agents_did(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url) as http:
        for text in ("one", "two"):
            assert http.post("/api/agents/alice/chat", json={"text": text}).status_code == 200
        http.post("/api/agents/bob/control/stop")
        http.post(
            "/api/agents/bob/mailbox",
            json={"sourceType": "a2a_message", "payload": {"content": "waiting"}},
        )
        response = http.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    samples = _samples(response.text)
    assert _value(samples, "attn_agents") == 2
    assert _value(samples, "attn_queue_depth", agent="bob") == 1
    assert _value(samples, "attn_items", agent="bob", status="queued") == 1
    assert _value(samples, "attn_items", agent="alice", status="queued") == 0
    assert _value(samples, "attn_agent_running", agent="bob") == 0
    assert _value(samples, "attn_agent_state", agent="alice", state="idle") == 1
    assert _value(samples, "attn_item_transitions_total", agent="alice", to="completed") == 2
    assert _value(samples, "attn_item_transitions_total", agent="bob", to="enqueued") == 1
    assert _value(samples, "attn_decisions_total", agent="alice", type="pick") == 2
    assert _value(samples, "attn_time_in_queue_seconds_count", agent="alice") == 2
    assert _value(samples, "attn_time_in_queue_seconds_sum", agent="alice") >= 0
    assert _value(samples, "attn_processing_seconds_count", agent="alice", outcome="completed") == 2
    commits = _value(samples, "attn_store_group_commit_batch_size_count", backend="sqlite")
    calls = _value(samples, "attn_store_group_commit_batch_size_sum", backend="sqlite")
    assert 0 < commits <= calls
    assert _value(samples, "attn_store_group_commit_largest_batch", backend="sqlite") >= 1


def test_a_removed_agent_leaves_the_metrics(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url) as http:
        http.post("/api/agents/bob/chat", json={"text": "hi"})
        assert http.delete("/api/agents/bob").status_code == 204
        samples = _samples(http.get("/metrics").text)
    assert not [key for key in samples if ("agent", "bob") in key[1]]
    assert _value(samples, "attn_agents") == 1


def test_ready_and_metrics_need_the_token_but_health_does_not(tmp_path: Path) -> None:
    env = {"ATTN_DATABASE_URL": f"sqlite:///{tmp_path / 'attn.db'}", "ATTN_TOKEN": TOKEN}
    with (
        LiveServer(parse_config(TEAM, environ=env)) as live,
        httpx.Client(base_url=live.url) as http,
    ):
        assert http.get("/health").status_code == 200
        for path in ("/ready", "/metrics"):
            missing = http.get(path)
            assert missing.status_code == 401
            assert missing.json()["error"]["code"] == "unauthorized"
            wrong = http.get(path, headers={"Authorization": "Bearer nope-nope-nope"})
            assert wrong.status_code == 401
            good = http.get(path, headers={"Authorization": f"Bearer {TOKEN}"})
            assert good.status_code == 200


class _Uvicorn(uvicorn.Server):
    """uvicorn that says when it accepts requests."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.accepting = asyncio.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        self.accepting.set()


@pytest.fixture
async def hosted(tmp_path: Path) -> AsyncIterator[tuple[Runtime, str]]:
    """A runtime we own, served over real HTTP on a free port in this event loop."""
    runtime = Runtime(open_store(f"sqlite:///{tmp_path / 'attn.db'}"))
    await runtime.start()
    await runtime.add_agent("alice", EchoBrain())
    server = _Uvicorn(uvicorn.Config(create_app(runtime), lifespan="off", log_level="warning"))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    task = asyncio.create_task(server.serve(sockets=[sock]), name="test-uvicorn")
    try:
        await server.accepting.wait()
        yield runtime, f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        await task
        await runtime.close()
        sock.close()


async def test_not_ready_when_the_store_is_gone(hosted: tuple[Runtime, str]) -> None:
    runtime, url = hosted
    async with httpx.AsyncClient(base_url=url) as http:
        assert (await http.get("/ready")).status_code == 200
        await runtime.store.close()
        response = await http.get("/ready")
        assert response.status_code == 503
        error = response.json()["error"]
        assert error["code"] == "not_ready"
        assert "store" in error["message"]
        assert (await http.get("/health")).status_code == 200  # alive, not ready
        assert (await http.get("/metrics")).status_code == 200  # scrapes still work
