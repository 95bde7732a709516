"""The demo tree of ``attn serve --demo-llm``, end to end through a live server: a chat
asking ``planner`` for helpers spawns ``/root/research`` and ``/root/outline`` with
``Agent``; their RESULTs wake the planner, which sums both up. Asked again, it gives the
retained helpers the new task with ``SendMessage`` and sums up their new results.

Real parts: ``attn serve``'s startup (:class:`~attn.server.testing.LiveServer`) on a
SQLite file, the LLM brains of ``demo_team_toml`` speaking the openai SDK to the fake
provider on loopback (``demo_responder``, as the CLI runs it), HTTP for everything.

Spec: seed 002 (Agent, SendMessage, RESULT wakes the spawn parent, history across turns).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from attn.server.testing import LiveServer, team_config
from attn.testing import FakeProvider, eventually
from attn.testing.demo_model import demo_responder, demo_team_toml

ASK = "spawn two helpers to plan the launch"


@pytest.fixture
def demo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[LiveServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-demo-not-a-key")
    model = FakeProvider()
    model.responder = demo_responder
    model.start_in_thread()
    try:
        config = team_config(demo_team_toml(model.openai_base_url), tmp_path / "attn.db")
        with LiveServer(config) as live:
            yield live
    finally:
        model.stop()


@pytest.fixture
async def api(demo: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=demo.url, timeout=30.0) as client:
        yield client


async def _answers(api: httpx.AsyncClient, agent: str, source_type: str) -> list[str]:
    """The final answers (``text`` log lines) of the agent's items of one type."""
    page = await api.get(f"/api/agents/{agent}/mailbox", params={"type": source_type})
    page.raise_for_status()
    texts: list[str] = []
    for item in page.json()["history"]:
        activity = item.get("activity")
        if item["status"] != "completed" or not activity:
            continue
        logs = await api.get(
            f"/api/agents/{agent}/activity-logs", params={"activityId": activity["id"]}
        )
        logs.raise_for_status()
        texts += [e["content"].strip() for e in logs.json()["logs"] if e["type"] == "text"]
    return texts


async def _summary(api: httpx.AsyncClient, words: str) -> str:
    async def found() -> str | None:
        done = [t for t in await _answers(api, "planner", "agent_result") if words in t]
        return done[0] if done else None

    return await eventually(found, what=f"the planner's summary with {words!r}", timeout_s=30)


async def test_the_planner_spawns_two_helpers_and_sums_up_their_results(
    api: httpx.AsyncClient,
) -> None:
    reply = await api.post("/api/agents/planner/chat", json={"text": ASK, "timeoutS": 30})
    assert reply.status_code == 200, reply.text
    assert reply.json()["reply"] == (
        "I spawned /root/research and /root/outline. "
        "Their results come back to me when they finish."
    )
    agents = (await api.get("/api/agents")).json()["agents"]
    assert {"planner.research", "planner.outline"} <= {a["agentId"] for a in agents}

    summary = await _summary(api, "Both helpers reported.")
    assert summary == (
        "Both helpers reported. "
        "/root/research completed: Done. Research for 'plan the launch': "
        "find the three facts that matter most; "
        "/root/outline completed: Done. Outline for 'plan the launch': "
        "write it as three steps."
    )
    # Each helper read its task as mail from the root and answered it in one turn.
    for helper in ("research", "outline"):
        done = await _answers(api, f"planner.{helper}", "agent_mail")
        assert len(done) == 1 and done[0].startswith(f"Done. {helper.capitalize()} for")

    # Asked again: the helpers exist, so they get the new task as mail (retained).
    again = await api.post(
        "/api/agents/planner/chat",
        json={"text": "spawn the helpers again for the retro", "timeoutS": 30},
    )
    assert again.json()["reply"] == (
        "I gave /root/research and /root/outline the new task. "
        "Their results come back to me when they finish."
    )
    second = await _summary(api, "for 'the retro'")
    assert second.startswith("Both helpers reported. /root/research completed: Done. Research")
    assert "/root/outline completed: Done. Outline for 'the retro'" in second
    agents = (await api.get("/api/agents")).json()["agents"]
    helpers: list[Any] = [a for a in agents if a["agentId"].startswith("planner.")]
    assert len(helpers) == 2  # no third helper was spawned
