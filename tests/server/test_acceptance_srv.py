"""Server scenarios checked clause by clause over real HTTP and a real WebSocket
(acceptance SRV-01 queued and deferred items in ``/mind``, SRV-02 the timeline's
fields, filters and order, SRV-03 the decision timeline and activity logs in
order, SRV-10 the triage and incomplete events).

Each test hosts a runtime on an SQLite file in its own event loop and serves it
with :func:`attn.server.testing.serve_app`, so it can hold items in place with
events (no sleeps) and give an agent a deliberator.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from attn import AgentConfig, Focus, MailboxItem, Reply, Runtime
from attn.core.deliberation import DeliberationResult
from attn.server.app import create_app
from attn.server.testing import recv_json, serve_app
from attn.store import open_store
from attn.testing import settle

RECV_TIMEOUT_S = 10.0


class Gate:
    """A brain that holds items whose content is ``hold`` until :attr:`release` is
    set, reports usage and logs, and replies ``done: <content>``."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started = asyncio.Event()
        self.seen: list[str] = []

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply:
        self.seen.append(item.content)
        if item.content == "hold":
            self.started.set()
            await self.release.wait()
        focus.log("tool_start", "search")
        focus.log("tool_end", "3 results")
        focus.report_usage(tokens=120, tools=1)
        return Reply(f"done: {item.content}")


@contextlib.asynccontextmanager
async def _serving(
    tmp_path: Path, **agents: tuple[Any, AgentConfig, dict[str, Any]]
) -> AsyncIterator[tuple[httpx.AsyncClient, str, Runtime]]:
    """``agents``: name -> (brain, config, add_agent keywords). Yields an HTTP client,
    the base URL and the runtime."""
    runtime = Runtime(open_store(f"sqlite:///{tmp_path / 'srv.db'}"))
    await runtime.start()
    try:
        for name, (brain, config, keywords) in agents.items():
            await runtime.add_agent(name, brain, config, **keywords)
        async with (
            serve_app(create_app(runtime)) as url,
            httpx.AsyncClient(base_url=url, timeout=10.0) as http,
        ):
            yield http, url, runtime
    finally:
        await runtime.close()


async def _get(http: httpx.AsyncClient, path: str, **params: Any) -> Any:
    response = await http.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


async def _enqueue(
    http: httpx.AsyncClient, agent: str, source_type: str, content: str, **extra: Any
) -> str:
    response = await http.post(
        f"/api/agents/{agent}/mailbox",
        json={"sourceType": source_type, "payload": {"content": content, **extra}},
    )
    assert response.status_code == 202, response.text
    item_id: str = response.json()["id"]
    return item_id


# ------------------------------------------------------------------------- SRV-01


async def test_srv01_mind_shows_focus_queue_deferred_decisions_and_triage(
    tmp_path: Path,
) -> None:
    gate = Gate()
    config = AgentConfig(coalesce_window_ms=0)
    async with _serving(tmp_path, w=(gate, config, {})) as (http, _, runtime):
        agent = runtime.get_agent("w")
        hold = await _enqueue(
            http,
            "w",
            "task_status_update",
            "hold",
            extra={"taskId": "tsk_1", "triggerExecution": True},
        )
        await gate.started.wait()
        queued = await _enqueue(http, "w", "a2a_message", "queued one")
        later = await _enqueue(http, "w", "a2a_message", "later one", extra={"channelKey": "other"})
        await agent.mailbox.defer(later, runtime.clock.now() + timedelta(hours=1))

        mind = await _get(http, "/api/agents/w/mind")
        assert mind["agentId"] == "w" and mind["state"] == "focused"
        focus = mind["currentFocus"]
        assert focus["id"] == hold and focus["sourceType"] == "task_status_update"
        assert focus["taskId"] == "tsk_1" and focus["label"] and focus["startedAt"]
        assert mind["queueDepth"] == 1
        assert [i["id"] for i in mind["queue"]] == [queued]
        assert [i["id"] for i in mind["deferred"]] == [later]
        types = [(d["mailboxItemId"], d["decisionType"]) for d in mind["recentDecisions"]]
        assert (hold, "pick") in types and (later, "defer") in types
        assert "lastTriage" in mind

        gate.release.set()
        await runtime.run_until_idle()
        mind = await _get(http, "/api/agents/w/mind")
        assert mind["state"] == "idle" and mind["currentFocus"] is None
        assert mind["queue"] == [] and [i["id"] for i in mind["deferred"]] == [later]

        missing = await http.get("/api/agents/nobody/mind")
        assert missing.status_code == 404
        assert "'nobody'" in missing.json()["error"]["message"]


# ------------------------------------------------------------------------- SRV-02


async def test_srv02_timeline_fields_filters_paging_and_newest_first(tmp_path: Path) -> None:
    gate = Gate()
    config = AgentConfig(coalesce_window_ms=0)
    async with _serving(tmp_path, w=(gate, config, {})) as (http, _, runtime):
        types = {t["name"]: t["category"] for t in (await _get(http, "/api/types"))["types"]}
        done = []
        for source_type, content in (
            ("a2a_message", "first"),
            ("mention", "second"),
            ("system_event", "third"),
        ):
            done.append(
                await _enqueue(http, "w", source_type, content, extra={"channelKey": content})
            )
            await runtime.run_until_idle()
        hold = await _enqueue(http, "w", "a2a_message", "hold", extra={"channelKey": "h"})
        await gate.started.wait()
        waiting = await _enqueue(http, "w", "a2a_message", "waiting", extra={"channelKey": "w"})

        page = await _get(http, "/api/agents/w/mailbox")
        assert [i["id"] for i in page["queued"]] == [waiting] and page["queueDepth"] == 1
        assert page["countsByStatus"] == {"completed": 3, "processing": 1, "queued": 1}
        assert page["countsByType"] == {"a2a_message": 3, "mention": 1, "system_event": 1}
        history = page["history"]
        assert [i["id"] for i in history] == [hold, *reversed(done)]  # newest first
        third = history[1]
        assert [d["decisionType"] for d in third["decisions"]] == ["pick"]
        activity = third["activity"]
        assert activity["type"] and activity["label"]
        assert activity["totalTokens"] == 120 and activity["totalTools"] == 1
        assert activity["success"] is True
        assert activity["startedAt"] <= activity["endedAt"]

        by_type = await _get(http, "/api/agents/w/mailbox", type="mention,system_event")
        assert [i["id"] for i in by_type["history"]] == [done[2], done[1]]
        category = types["mention"]
        by_category = await _get(http, "/api/agents/w/mailbox", category=category)
        assert by_category["history"] and all(
            types[i["sourceType"]] == category for i in by_category["history"]
        )
        by_status = await _get(http, "/api/agents/w/mailbox", status="queued,processing")
        assert [i["id"] for i in by_status["history"]] == [waiting, hold]
        paged = await _get(http, "/api/agents/w/mailbox", limit=2, offset=1)
        assert [i["id"] for i in paged["history"]] == [done[2], done[1]]
        assert paged["total"] == 4

        for params, allowed in (
            ({"type": "nope"}, "human_chat"),
            ({"category": "nope"}, "interaction"),
            ({"status": "nope"}, "completed"),
        ):
            bad = await http.get("/api/agents/w/mailbox", params=params)
            assert bad.status_code == 422, (params, bad.text)
            assert allowed in bad.json()["error"]["message"], bad.text
        gate.release.set()


# ------------------------------------------------------------------------- SRV-03


async def test_srv03_decision_timeline_and_activity_logs_in_order(tmp_path: Path) -> None:
    gate = Gate()
    config = AgentConfig(coalesce_window_ms=0)
    async with _serving(tmp_path, w=(gate, config, {})) as (http, _, runtime):
        agent = runtime.get_agent("w")
        hold = await _enqueue(http, "w", "a2a_message", "hold", extra={"channelKey": "h"})
        await gate.started.wait()
        later = await _enqueue(http, "w", "a2a_message", "later", extra={"channelKey": "l"})
        await agent.mailbox.defer(later, None)
        gate.release.set()
        await runtime.run_until_idle()

        timeline = (await _get(http, "/api/agents/w/decisions"))["decisions"]
        steps = [(d["mailboxItemId"], d["decisionType"]) for d in reversed(timeline)]
        assert steps == [(hold, "pick"), (later, "defer"), (later, "resurface"), (later, "pick")]
        stamps = [d["createdAt"] for d in timeline]
        assert stamps == sorted(stamps, reverse=True)  # newest first

        history = (await _get(http, "/api/agents/w/mailbox"))["history"]
        activity = next(i["activity"] for i in history if i["id"] == hold)
        logs = (await _get(http, "/api/agents/w/activity-logs", activityId=activity["id"]))["logs"]
        seqs = [entry["seq"] for entry in logs]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
        contents = [entry["content"] for entry in logs]
        assert contents.index("search") < contents.index("3 results")


# ------------------------------------------------------------------------- SRV-10


async def _recv(ws: ClientConnection) -> dict[str, Any]:
    return await recv_json(ws, RECV_TIMEOUT_S)


class Poison:
    """A brain whose ``poison`` item always raises."""

    async def __call__(self, item: MailboxItem, focus: Focus) -> str:
        if item.content == "poison":
            raise RuntimeError("cannot digest this")
        return "ok"


class PickLast:
    """A deliberator (tier 2 triage) that picks the last queued item."""

    async def deliberate(
        self, head: MailboxItem, queued: list[MailboxItem], context: dict[str, Any]
    ) -> DeliberationResult:
        return DeliberationResult(queued[-1].id, reasoning="the last one unblocks the team")


async def test_srv10_triage_and_incomplete_events_reach_subscribers(tmp_path: Path) -> None:
    config = AgentConfig(coalesce_window_ms=0, max_attempts=1)
    agents = {
        "p": (Poison(), config, {}),
        "t": (
            Poison(),
            AgentConfig(coalesce_window_ms=0),
            {"deliberator": PickLast(), "start": False},
        ),
    }
    async with _serving(tmp_path, **agents) as (http, url, runtime):
        async with connect(url.replace("http://", "ws://") + "/ws") as ws:
            await ws.send(json.dumps({"type": "subscribe", "agents": ["p", "t"]}))
            while (await _recv(ws))["type"] != "subscribed":
                pass
            poison = await _enqueue(http, "p", "a2a_message", "poison")
            for text in ("a", "b", "c"):
                await _enqueue(http, "t", "a2a_message", text, extra={"channelKey": text})
            runtime.get_agent("t").start()
            seen: list[dict[str, Any]] = []
            while not {"agent:incomplete", "agent:triage"} <= {m.get("event") for m in seen}:
                seen.append(await _recv(ws))
        await settle()
    incomplete = next(m for m in seen if m.get("event") == "agent:incomplete")
    assert incomplete["agentId"] == "p" and incomplete["data"]["mailboxItemId"] == poison
    triage = next(m for m in seen if m.get("event") == "agent:triage")
    assert triage["agentId"] == "t"
    assert triage["data"]["deliberation"]["reasoning"] == "the last one unblocks the team"
    seqs = [m["seq"] for m in seen]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
