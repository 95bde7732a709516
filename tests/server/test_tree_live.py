"""Spawn trees live over a real WebSocket (seed 002, issue 14).

``tree:*`` events carry the agent they are about; they reach ``/ws`` subscribers
of that agent, of every agent, of their tree (``trees`` in a subscribe: root
ids) or of another agent they concern (a RESULT's child, a new node's parent).
Unknown or malformed trees are refused and the subscription stays.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from attn.server.testing import recv_json
from tests.server.tree_api import FAST, SLOW, TreeApi, api

__all__ = ["api"]


@pytest.fixture
def store_url() -> str:
    """The live protocol does not depend on the store: memory only."""
    return "memory://"


def _ws_url(api: TreeApi) -> str:
    return str(api.client.base_url).replace("http://", "ws://").rstrip("/") + "/ws"


async def _subscribe(ws: ClientConnection, **fields: Any) -> dict[str, Any]:
    await ws.send(json.dumps({"type": "subscribe", **fields}))
    while True:
        message = await recv_json(ws)
        if message["type"] in ("subscribed", "error"):
            return message


async def _events_until(ws: ClientConnection, name: str) -> list[dict[str, Any]]:
    """Every event frame up to and including the first ``name`` one."""
    seen = []
    while True:
        message = await recv_json(ws)
        if message.get("type") == "event":
            seen.append(message)
            if message["event"] == name:
                return seen


async def test_a_tree_subscription_sees_its_agents_states_and_results(api: TreeApi) -> None:
    await api.root()
    await api.spawn("lead", "ada", SLOW)
    await api.root("peer")
    await api.spawn("peer", "bob", FAST)
    async with connect(_ws_url(api)) as ws:
        subscribed = await _subscribe(ws, trees=["lead"])
        assert subscribed["type"] == "subscribed"
        assert subscribed["agents"] == [] and subscribed["trees"] == ["lead"]
        await api.mail("peer.bob", "not for the watcher")
        sent = await api.mail("lead.ada", "work")
        await api.running("lead.ada")
        await api.results_at_least(1)
        frames = await _events_until(ws, "tree:result")
        assert {f["event"] for f in frames} <= {"tree:agent-state", "tree:result"}
        assert all(f["agentId"] in ("lead", "lead.ada") for f in frames)  # not peer's tree
        states = [f["data"] for f in frames if f["event"] == "tree:agent-state"]
        running = [s for s in states if s["agentId"] == "lead.ada" and s["state"] == "running"]
        assert running and running[0]["treeId"] == "lead" and running[0]["path"] == "/root/ada"
        assert running[0]["slotsInUse"] == 1 and running[0]["capacity"] == 3
        result = frames[-1]
        assert result["agentId"] == "lead"
        assert result["data"]["from"] == "lead.ada" and result["data"]["to"] == "lead"
        assert result["data"]["outcome"] == "completed"
        assert result["data"]["consumedBy"] == "mail"
        [stored] = await api.results()
        assert stored["item"]["id"] == result["data"]["mailboxItemId"]
        assert stored["item"]["payload"]["extra"]["turnItemId"] == sent["mailboxItemId"]


async def test_a_child_subscriber_sees_its_result_and_a_parent_its_new_children(
    api: TreeApi,
) -> None:
    await api.root()
    await api.spawn("lead", "ada", FAST)
    async with connect(_ws_url(api)) as child_ws, connect(_ws_url(api)) as parent_ws:
        await _subscribe(child_ws, agents=["lead.ada"])
        await _subscribe(parent_ws, agents=["lead"])
        await api.spawn("lead", "bob", FAST)
        [spawned] = [
            f
            for f in await _events_until(parent_ws, "tree:spawned")
            if f["event"] == "tree:spawned"
        ]
        assert spawned["agentId"] == "lead.bob" and spawned["data"]["node"]["parentId"] == "lead"
        await api.mail("lead.ada", "go")
        await api.results_at_least(1)
        frames = await _events_until(child_ws, "tree:result")
        assert frames[-1]["agentId"] == "lead" and frames[-1]["data"]["from"] == "lead.ada"
        await api.call("DELETE", "/api/agents/lead.bob", 204)
        removed = (await _events_until(parent_ws, "tree:removed"))[-1]
        assert removed["agentId"] == "lead.bob" and removed["data"]["node"]["path"] == "/root/bob"


async def test_unknown_or_malformed_trees_are_refused_and_the_subscription_stays(
    api: TreeApi,
) -> None:
    await api.root()
    await api.spawn("lead", "ada", FAST)
    async with connect(_ws_url(api)) as ws:
        assert (await _subscribe(ws, trees=["lead"]))["type"] == "subscribed"
        for bad, code in (
            (["nobody"], "unknown_agent"),
            (["lead.ada"], "unknown_agent"),  # a child's id is not a tree's
            ("lead", "bad_message"),
            ([1], "bad_message"),
            (["x"] * 1001, "bad_message"),
        ):
            error = await _subscribe(ws, trees=bad)
            assert error["type"] == "error" and error["code"] == code, (bad, error)
        await api.mail("lead.ada", "still watched")
        await api.results_at_least(1)
        frames = await _events_until(ws, "tree:result")
        assert frames[-1]["data"]["from"] == "lead.ada"
