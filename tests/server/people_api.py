"""A runtime with people and an asking agent behind a real HTTP server, on each store,
for the people route tests.

:class:`PeopleApi` hosts ``ops`` (an :class:`~tests.people.conftest.Asker`: an item
whose text starts with ``ask`` asks for an approval and parks; resumed, it records
the answers) and ``helper`` (an echo brain) for two people, ``ann`` (the owner) and
``bob``, on a store (memory, a SQLite file, a fresh PostgreSQL schema) with a
:class:`~attn.testing.FakeClock`. It serves ``create_app(runtime)`` on uvicorn in
the test's own loop and talks to it with httpx over real HTTP.
:meth:`PeopleApi.restart` closes everything and opens the same database again.
:meth:`PeopleApi.snapshot` reads, over REST, everything a refused call must
leave as it was.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from attn import Runtime
from attn.brains import EchoBrain
from attn.config.people import User, Users
from attn.server.app import create_app
from attn.server.testing import serve_app
from attn.store import open_store
from attn.testing import FakeClock
from tests.people.conftest import FAST, Asker, settled

#: The people: ann (the owner) and bob.
USERS = Users((User("ann", "Ann", owner=True), User("bob", "Bob")))
AGENTS = ("ops", "helper")


class PeopleApi:
    """The runtime, the asking brain and an HTTP client of its server."""

    def __init__(self, url: str, clock: FakeClock) -> None:
        self.store_url = url
        self.clock = clock
        self.runtime: Runtime | None = None
        self.asker: Asker | None = None
        self.app: Any = None
        self.http: httpx.AsyncClient | None = None
        self.url = ""
        self._asks = 0
        self._stack: contextlib.AsyncExitStack | None = None

    @property
    def rt(self) -> Runtime:
        assert self.runtime is not None
        return self.runtime

    @property
    def ops(self) -> Asker:
        assert self.asker is not None
        return self.asker

    @property
    def client(self) -> httpx.AsyncClient:
        assert self.http is not None
        return self.http

    @property
    def persistent(self) -> bool:
        return self.store_url != "memory://"

    async def start(self) -> None:
        stack = contextlib.AsyncExitStack()
        self.runtime = Runtime(open_store(self.store_url), clock=self.clock, users=USERS)
        await self.runtime.start()
        stack.push_async_callback(self.runtime.close)
        self.asker = Asker(self.runtime)
        await self.runtime.add_agent("ops", self.asker, FAST)
        await self.runtime.add_agent("helper", EchoBrain(), FAST)
        self.app = create_app(self.runtime)
        self.url = await stack.enter_async_context(serve_app(self.app))
        self.http = await stack.enter_async_context(
            httpx.AsyncClient(base_url=self.url, timeout=10)
        )
        self._stack = stack

    async def close(self) -> None:
        if self._stack is not None:
            stack, self._stack = self._stack, None
            await stack.aclose()

    async def restart(self) -> None:
        """Close the server and the runtime, then host the same agents on the same database."""
        await self.close()
        await self.start()

    async def settled(self) -> None:
        await settled(self.rt)

    # ------------------------------------------------------------ HTTP helpers

    async def call(self, method: str, path: str, status: int, **kwargs: Any) -> Any:
        """One request; assert its status and return its JSON body."""
        response = await self.client.request(method, path, **kwargs)
        assert response.status_code == status, (method, path, response.text)
        return response.json()

    async def ask(self, text: str = "ask") -> list[str]:
        """Enqueue ``text`` for ``ops`` as a task comment; return the approvals it asked."""
        before = len(self.ops.asked)
        self._asks += 1  # a task of its own: comments on one task would merge
        payload = {"content": text, "taskId": f"t{self._asks}"}
        await self.call(
            "POST",
            "/api/agents/ops/mailbox",
            202,
            json={"sourceType": "task_comment", "payload": payload},
        )
        await self.settled()
        return self.ops.asked[before:]

    async def approvals(self, **params: Any) -> dict[str, Any]:
        page: dict[str, Any] = await self.call("GET", "/api/approvals", 200, params=params)
        return page

    async def notifications(self, **params: Any) -> dict[str, Any]:
        page: dict[str, Any] = await self.call("GET", "/api/notifications", 200, params=params)
        return page

    async def session(self, agent: str, **params: Any) -> dict[str, Any]:
        page: dict[str, Any] = await self.call(
            "GET", f"/api/agents/{agent}/session", 200, params=params
        )
        return page

    async def items(self, agent: str) -> list[tuple[str, str, int]]:
        """Every item of ``agent``: (id, status, priority), by seq."""
        timeline = await self.call(
            "GET", f"/api/agents/{agent}/mailbox", 200, params={"limit": 1000}
        )
        found = {i["id"]: i for i in [*timeline["queued"], *timeline["history"]]}
        return [
            (i["id"], i["status"], i["priority"])
            for i in sorted(found.values(), key=lambda i: i["seq"])
        ]

    async def snapshot(self) -> dict[str, Any]:
        """Everything a refused call must leave as it was: each person's notifications
        (read or not), every approval, each agent's main session and items."""
        state: dict[str, Any] = {"approvals": await self.approvals(limit=1000)}
        for user in USERS.ids:
            state[f"notifications:{user}"] = await self.notifications(userId=user, limit=500)
        for agent in AGENTS:
            state[f"session:{agent}"] = await self.session(agent, view="mind", limit=500)
            state[f"items:{agent}"] = await self.items(agent)
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
async def api(store_url: str, clock: FakeClock) -> AsyncIterator[PeopleApi]:
    """``ops`` and ``helper`` for ann and bob, on each store, served over real HTTP."""
    host = PeopleApi(store_url, clock)
    await host.start()
    try:
        yield host
    finally:
        await host.close()


__all__ = ["AGENTS", "USERS", "PeopleApi", "api", "store_url"]
