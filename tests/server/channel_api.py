"""A runtime with channel agents behind a real HTTP server, on each store, for the
channel route tests.

:class:`ChannelApi` hosts agents on a store (memory, a SQLite file, a fresh
PostgreSQL schema) with a :class:`~attn.testing.FakeClock`, serves
``create_app(runtime)`` on uvicorn in the test's own loop and talks to it with
httpx over real HTTP. :meth:`ChannelApi.restart` closes everything and opens
the same database again (A2A-08). The ``api`` fixture is parametrized over
the three stores, like the store contract suites.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from attn import Runtime
from attn.brains import EchoBrain, ScriptBrain
from attn.core.focus import Brain, Focus, Reply
from attn.models import MailboxItem
from attn.server.app import create_app
from attn.server.testing import serve_app
from attn.store import open_store
from attn.testing import FakeClock

#: How long a "slow" agent works on one item, on the fake clock.
SLOW_S = 60.0


class Recorder:
    """A brain that records what it gets and answers ``reply`` (None: no answer, so
    nothing is posted back on the channel)."""

    def __init__(self, reply: str | None = None) -> None:
        self.reply = reply
        self.items: list[MailboxItem] = []

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | str | None:
        self.items.append(item)
        return self.reply


#: Agent name -> a brain maker; ``a``, ``b``, ``c``, ``d`` answer nothing,
#: ``e1``/``e2`` echo (their answers are posted back), ``slow`` works SLOW_S.
BRAINS: dict[str, Callable[[], Brain]] = {
    "a": Recorder,
    "b": Recorder,
    "c": Recorder,
    "d": Recorder,
    "e1": EchoBrain,
    "e2": EchoBrain,
    "slow": lambda: ScriptBrain([{"sleep_s": SLOW_S}, {"yield": True}, {"say": "done"}]),
}


class ChannelApi:
    """The runtime, its brains and an HTTP client of its server (see the module docstring)."""

    def __init__(self, url: str, clock: FakeClock) -> None:
        self.store_url = url
        self.clock = clock
        self.brains: dict[str, Brain] = {}
        self.runtime: Runtime | None = None
        self.app: Any = None
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
        """True when the store keeps what it holds across a restart."""
        return self.store_url != "memory://"

    async def start(self) -> None:
        stack = contextlib.AsyncExitStack()
        self.runtime = Runtime(open_store(self.store_url), clock=self.clock)
        await self.runtime.start()
        stack.push_async_callback(self.runtime.close)
        for name, make in BRAINS.items():
            self.brains[name] = make()
            await self.runtime.add_agent(name, self.brains[name])
        self.app = create_app(self.runtime)
        url = await stack.enter_async_context(serve_app(self.app))
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
        return response.json()

    async def send(self, sender: str, to: str, text: str, **fields: Any) -> dict[str, Any]:
        """``POST /api/agents/{sender}/send``: 201 and its receipt."""
        body = {"to": to, "text": text, **fields}
        receipt: dict[str, Any] = await self.call(
            "POST", f"/api/agents/{sender}/send", 201, json=body
        )
        return receipt

    async def post(self, key: str, text: str, **fields: Any) -> dict[str, Any]:
        """``POST /api/channels/{key}/messages``: 201 and its receipt."""
        receipt: dict[str, Any] = await self.call(
            "POST", f"/api/channels/{key}/messages", 201, json={"text": text, **fields}
        )
        return receipt

    async def items(self, agent: str, source_type: str | None = None) -> list[dict[str, Any]]:
        """Every item of ``agent`` (queued and history), oldest first."""
        params = {"limit": 1000, **({"type": source_type} if source_type else {})}
        timeline = await self.call("GET", f"/api/agents/{agent}/mailbox", 200, params=params)
        found = list(timeline["queued"]) + list(timeline["history"])
        return sorted(found, key=lambda item: item["seq"])

    async def pending_callbacks(self, agent: str) -> list[dict[str, Any]]:
        listed = await self.call("GET", f"/api/agents/{agent}/callbacks", 200)
        callbacks: list[dict[str, Any]] = listed["callbacks"]
        return [c for c in callbacks if c["status"] == "pending"]

    async def history(self, key: str, **params: Any) -> dict[str, Any]:
        page: dict[str, Any] = await self.call(
            "GET", f"/api/channels/{key}/messages", 200, params=params
        )
        return page

    async def snapshot(self) -> dict[str, Any]:
        """Everything a rejected call must leave as it was: channels, their
        histories, every agent's items, pending callbacks and delegations."""
        listed = await self.call("GET", "/api/channels", 200)
        state: dict[str, Any] = {"channels": listed}
        for channel in listed["channels"]:
            key = channel["key"]
            state[key] = await self.history(key, limit=500)
        for name in BRAINS:
            if self.rt.find_agent(name) is None:
                continue
            state[f"items:{name}"] = [(i["id"], i["status"]) for i in await self.items(name)]
            state[f"callbacks:{name}"] = await self.call(
                "GET", f"/api/agents/{name}/callbacks", 200
            )
            state[f"delegations:{name}"] = await self.call(
                "GET", f"/api/agents/{name}/delegations", 200
            )
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
async def api(store_url: str, clock: FakeClock) -> AsyncIterator[ChannelApi]:
    """The agents of :data:`BRAINS` on each store, served over real HTTP."""
    host = ChannelApi(store_url, clock)
    await host.start()
    try:
        yield host
    finally:
        await host.close()


__all__ = ["BRAINS", "SLOW_S", "ChannelApi", "Recorder", "api", "store_url"]
