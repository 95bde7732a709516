"""A runtime with a spawn tree behind a real HTTP server, on each store, for the tree
route tests.

:class:`TreeApi` hosts ``lead`` (an echo brain, the root of the tests' trees),
``peer`` (another echo agent, in no tree) and ``solo`` (a brain that cannot
make a child's brain) on a store (memory, a SQLite file, a fresh PostgreSQL
schema) with a :class:`~attn.testing.FakeClock`, serves ``create_app(runtime)``
on uvicorn in the test's own loop and talks to it with httpx over real HTTP.
Children are spawned over HTTP with built-in brains: :data:`SLOW` works
:data:`SLOW_S` seconds of fake time, then reaches a yield point (where mail
sent meanwhile joins the turn) and answers. :meth:`TreeApi.run_until` moves the
clock a second at a time until a condition holds, so a turn that started a
little later than expected still finishes: nothing sleeps on real time but
:func:`~attn.testing.eventually`'s polls.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from attn import Runtime
from attn.brains import EchoBrain
from attn.core.focus import Brain, Focus, Reply
from attn.models import RESULT_TYPE, MailboxItem
from attn.server.app import create_app
from attn.server.testing import serve_app
from attn.store import open_store
from attn.store.base import ItemQuery
from attn.testing import FakeClock, eventually

#: Seconds of fake time a :data:`SLOW` child works before its yield point.
SLOW_S = 10.0
#: A child that works SLOW_S seconds, reaches a yield point, then answers "done".
SLOW: dict[str, Any] = {
    "kind": "script",
    "options": {
        "steps": [{"log": "working"}, {"sleep_s": SLOW_S}, {"yield": True}, {"say": "done"}]
    },
}
#: A child that answers at once.
FAST: dict[str, Any] = {"kind": "echo", "options": {}}
#: A child whose turn fails.
FAILING: dict[str, Any] = {"kind": "script", "options": {"steps": [{"fail": "boom"}]}}


class Plain:
    """A brain that answers "ok" and cannot make a child's brain."""

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | str | None:
        return "ok"


BRAINS: dict[str, Callable[[], Brain]] = {"lead": EchoBrain, "peer": EchoBrain, "solo": Plain}


class TreeApi:
    """The runtime and an HTTP client of its server (see the module docstring)."""

    def __init__(self, url: str, clock: FakeClock) -> None:
        self.store_url = url
        self.clock = clock
        self.runtime: Runtime | None = None
        self.http: httpx.AsyncClient | None = None
        self._stack: contextlib.AsyncExitStack | None = None

    @property
    def rt(self) -> Runtime:
        assert self.runtime is not None
        return self.runtime

    @property
    def client(self) -> httpx.AsyncClient:
        assert self.http is not None
        return self.http

    @property
    def persistent(self) -> bool:
        return self.store_url != "memory://"

    async def start(self) -> None:
        stack = contextlib.AsyncExitStack()
        self.runtime = Runtime(open_store(self.store_url), clock=self.clock)
        await self.runtime.start()
        stack.push_async_callback(self.runtime.close)
        for name, make in BRAINS.items():
            await self.runtime.add_agent(name, make())
        url = await stack.enter_async_context(serve_app(create_app(self.runtime)))
        self.http = await stack.enter_async_context(httpx.AsyncClient(base_url=url, timeout=10))
        self._stack = stack

    async def close(self) -> None:
        if self._stack is not None:
            stack, self._stack = self._stack, None
            await stack.aclose()

    async def restart(self) -> None:
        """Close the server and the runtime, then host the same agents on the same database."""
        await self.close()
        await self.start()

    # ------------------------------------------------------------ HTTP helpers

    async def call(self, method: str, path: str, status: int, **kwargs: Any) -> Any:
        """One request; assert its status and return its JSON body."""
        response = await self.client.request(method, path, **kwargs)
        assert response.status_code == status, (method, path, response.text)
        return response.json() if response.content else None

    async def root(self, agent: str = "lead", capacity: int | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"agentId": agent}
        if capacity is not None:
            body["capacity"] = capacity
        response = await self.client.post("/api/trees", json=body)
        assert response.status_code in (200, 201), response.text
        node: dict[str, Any] = response.json()
        return node

    async def spawn(
        self, parent: str, name: str, brain: dict[str, Any] | None = None, **fields: Any
    ) -> dict[str, Any]:
        body = {"name": name, **fields}
        if brain is not None:
            body["brain"] = brain
        made: dict[str, Any] = await self.call(
            "POST", f"/api/agents/{parent}/children", 201, json=body
        )
        return made

    async def mail(self, agent: str, text: str, **fields: Any) -> dict[str, Any]:
        """``POST /api/agents/{agent}/mail``: 201 and its delivery."""
        sent = await self.call(
            "POST", f"/api/agents/{agent}/mail", 201, json={"text": text, **fields}
        )
        delivery: dict[str, Any] = sent["delivery"]
        return delivery

    async def tree(self, tree_id: str = "lead") -> dict[str, Any]:
        view: dict[str, Any] = await self.call("GET", f"/api/trees/{tree_id}", 200)
        return view

    async def node(self, agent: str) -> dict[str, Any]:
        tree_id = agent.split(".")[0]
        for node in (await self.tree(tree_id))["agents"]:
            if node["agentId"] == agent:
                found: dict[str, Any] = node
                return found
        raise AssertionError(f"{agent} is not in tree {tree_id}")

    async def results(self, agent: str = "lead", **params: Any) -> list[dict[str, Any]]:
        page = await self.call("GET", f"/api/agents/{agent}/results", 200, params=params)
        found: list[dict[str, Any]] = page["results"]
        return found

    async def items(self, agent: str, source_type: str | None = None) -> list[dict[str, Any]]:
        """Every item of ``agent`` (queued and history), oldest first."""
        params = {"limit": 1000, **({"type": source_type} if source_type else {})}
        timeline = await self.call("GET", f"/api/agents/{agent}/mailbox", 200, params=params)
        found = list(timeline["queued"]) + list(timeline["history"])
        if source_type:  # the queue part is not filtered by type
            found = [item for item in found if item["sourceType"] == source_type]
        return sorted(found, key=lambda item: item["seq"])

    # ------------------------------------------------------------ waiting

    async def running(self, *agents: str) -> None:
        """Wait until each of ``agents`` is in a turn."""
        gates = self.rt.tree.gates
        await eventually(
            lambda: all(a in gates and gates[a].in_turn for a in agents),
            what=f"{', '.join(agents)} run",
        )

    async def stored_results(self, agent: str = "lead") -> int:
        """How many RESULTs ``agent`` has in the store."""
        query = ItemQuery(agent, source_types=(RESULT_TYPE,), limit=1000)
        return len(await self.rt.store.find_items(query))

    async def run_until(
        self, check: Callable[[], Awaitable[bool] | bool], *, step_s: float = 1.0, most: int = 600
    ) -> None:
        """Move the clock ``step_s`` at a time until ``check`` holds (at most ``most`` steps)."""
        for _ in range(most):
            answer = check()
            if await answer if inspect.isawaitable(answer) else answer:
                await self.rt.tree.results.settle()
                return
            await self.clock.advance(step_s)
            await asyncio.sleep(0.002)  # the store's thread (SQLite) or server (PostgreSQL)
        raise AssertionError("the condition never held")

    async def results_at_least(self, count: int, agent: str = "lead") -> None:
        async def enough() -> bool:
            return await self.stored_results(agent) >= count

        await self.run_until(enough)

    async def idle(self) -> None:
        """Wait until no agent has work left (no child may be mid-sleep)."""
        await self.rt.run_until_idle()
        await self.rt.tree.results.settle()
        await self.rt.run_until_idle()

    async def snapshot(self) -> dict[str, Any]:
        """Everything a refused call must leave as it was: the trees and their nodes
        (hosted and stored), Plan modes, and every agent's items."""
        state: dict[str, Any] = {
            "trees": await self.call("GET", "/api/trees", 200),
            "agents": await self.call("GET", "/api/agents", 200),
            "stored": sorted(
                (n.id, n.path, str(n.state), n.capacity)
                for n in await self.rt.store.find_tree_agents()
            ),
            "plan": sorted(self.rt.tree.plan),
        }
        for tree in state["trees"]["trees"]:
            state[f"tree:{tree['treeId']}"] = await self.tree(tree["treeId"])
        for agent in self.rt.agents:
            state[f"items:{agent.name}"] = [
                (i["id"], i["status"]) for i in await self.items(agent.name)
            ]
        return state


@pytest.fixture
def store_url(backend: str, tmp_path: Path) -> str:
    """``memory://``, a SQLite file, or a fresh PostgreSQL schema (the ``backend`` fixture)."""
    if backend == "memory":
        return "memory://"
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'attn.db'}"
    return backend


@pytest.fixture
async def api(store_url: str, clock: FakeClock) -> AsyncIterator[TreeApi]:
    """The agents of :data:`BRAINS` on each store, served over real HTTP."""
    host = TreeApi(store_url, clock)
    await host.start()
    try:
        yield host
    finally:
        await host.close()


__all__ = ["FAILING", "FAST", "SLOW", "SLOW_S", "Plain", "TreeApi", "api", "store_url"]
