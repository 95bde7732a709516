"""Helpers of the spawn-tree tool tests: a scripted brain that makes child brains like
itself, a way to let the tree settle, and a check that a refused call changed nothing."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from attn import AgentConfig, Focus, MailboxItem, Reply, Runtime
from attn.core.events import Event
from attn.store.base import ItemQuery
from attn.testing import settle
from attn.tools import TreeToolset
from attn.types import JSON

#: Loop settings for fake-clock tests: no burst window to wait out.
FAST = AgentConfig(coalesce_window_ms=0)
#: What an id looks like (items, activities, decisions, callbacks, messages).
ID = re.compile(r"\b(mbx|act|dec|cb|chm|ses)_[0-9a-f]{6,}")
_HEADER = re.compile(r"^\[mail from [^\]\n]*\]\n", re.M)


def body(content: str) -> str:
    """A MAIL item's text without its ``[mail from <path>]`` header lines."""
    return _HEADER.sub("", content)


class Worker:
    """A brain for tree tests: it records each item and the tools offered for it, and
    answers ``done: <text>``. While ``hold`` is set (children get their parent's
    ``child_hold``) it waits for it, or for a cancel, having streamed some partial work.
    Its ``child_brain()`` makes another Worker (the tree's LLM-like contract)."""

    def __init__(self, hold: asyncio.Event | None = None) -> None:
        self.items: list[MailboxItem] = []
        self.offered: list[tuple[str, ...]] = []
        self.toolsets: list[Any] = []
        self.read_only: list[bool] = []
        self.hold = hold
        self.child_hold: asyncio.Event | None = None
        self.children: list[Worker] = []
        self.host: Any = None
        self.busy = asyncio.Event()

    def bind_agent(self, host: Any) -> None:
        self.host = host

    def child_brain(self) -> Worker:
        child = Worker(self.child_hold)
        self.children.append(child)
        return child

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | None:
        self.items.append(item)
        self.read_only.append(bool(focus.session.get("readOnly")))
        if self.host is not None:
            offered = self.host.tools_for(focus)
            self.toolsets.append(offered)
            self.offered.append(offered.names())
        if self.hold is not None and not self.hold.is_set():
            focus.stream("partial work")
            self.busy.set()
            waits = [
                asyncio.ensure_future(self.hold.wait()),
                asyncio.ensure_future(focus.cancel_signal().wait()),
            ]
            _done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            if focus.cancelled:
                await focus.yield_point()
                return None
        return Reply(f"done: {body(item.content)}")


async def host_lead(
    runtime: Runtime, name: str = "lead", *, child_hold: asyncio.Event | None = None
) -> Worker:
    """Host a Worker called ``name`` (in no tree yet: its first Agent call makes it a root)."""
    brain = Worker()
    brain.child_hold = child_hold
    await runtime.add_agent(name, brain, FAST)
    return brain


def tools(runtime: Runtime, agent: str = "lead") -> TreeToolset:
    return TreeToolset(runtime.tree, agent)


async def settled(runtime: Runtime) -> None:
    """Let every turn, RESULT write and wake run out."""
    for _ in range(6):
        await runtime.run_until_idle()
        await runtime.tree.results.settle()
        await settle()


async def spawned(runtime: Runtime, name: str, task: str = "start", parent: str = "lead") -> str:
    answer = await tools(runtime, parent).call("Agent", {"name": name, "task": task})
    assert answer["ok"] is True, answer
    return str(answer["path"])


def no_ids(answer: JSON, *agent_ids: str) -> None:
    """Neither an item, message or activity id nor an agent id of the tree is shown."""
    text = repr(answer)
    assert not ID.search(text), answer
    for agent_id in agent_ids:
        assert f"'{agent_id}'" not in text, answer


async def state(runtime: Runtime) -> dict[str, Any]:
    """What a tree tool could have changed: nodes, hosted agents, items, stored nodes."""
    names = [a.name for a in runtime.agents]
    return {
        "nodes": dict(runtime.tree.nodes),
        "agents": names,
        "stored": await runtime.store.find_tree_agents(),
        "items": {n: await runtime.store.find_items(ItemQuery(n, limit=500)) for n in names},
    }


class Unchanged:
    """Records the state and the events; on exit asserts neither moved."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.events: list[Event] = []
        self.before: dict[str, Any] = {}
        self._unsubscribe: Any = None

    async def __aenter__(self) -> Unchanged:
        self.before = await state(self.runtime)
        self._unsubscribe = self.runtime.bus.subscribe(self.events.append)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await settle()
        self._unsubscribe()
        assert await state(self.runtime) == self.before
        assert [e.type for e in self.events] == []


def refused(answer: JSON, error: str, words: str = "") -> None:
    assert answer["ok"] is False, answer
    assert answer["error"] == error, answer
    assert words.lower() in answer["message"].lower(), answer
