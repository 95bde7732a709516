"""Fixtures of the spawn-tree tests: a runtime on each store, scripted retained agents.

A :class:`Worker` is a brain that records what each of its turns read (the
turn's first text and every text merged at its safe boundaries), can be held
busy on an event, and answers ``"<name> done: <turn number>"``.
"""

from __future__ import annotations

import asyncio
import re

from attn import Runtime
from attn.config import AgentConfig
from attn.core.focus import Brain, Focus, Reply
from attn.models import ItemStatus, MailboxItem
from attn.store.base import ItemQuery

#: Loop settings for fake-clock tests: no burst window to wait out.
FAST = AgentConfig(coalesce_window_ms=0)


def _plain(text: str) -> str:
    """``text`` without the ``[mail from <path>]`` headers of MAIL records."""
    return re.sub(r"\[mail from [^\]]*\]\n", "", text)


class Worker:
    """A scripted brain of a retained agent (see the module docstring).

    Attributes:
        turns: per turn, the texts it read, in order.
        hold: while set to an unset event, each turn waits on it before its
            first safe boundary (the agent is busy).
        boundaries: safe boundaries (yield points) each turn passes after the hold.
        fail: the next turns raise instead of answering.
        answer: the text of each reply (``{n}`` is the turn number).
    """

    def __init__(self, answer: str = "done {n}", boundaries: int = 1) -> None:
        self.turns: list[list[str]] = []
        self.hold: asyncio.Event | None = None
        self.boundaries = boundaries
        self.fail = False
        self.answer = answer
        self.started = asyncio.Event()
        self.read_only: list[bool] = []

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | None:
        seen = [_plain(item.content)]
        self.turns.append(seen)
        self.read_only.append(bool(focus.session.get("readOnly")))
        self.started.set()
        if self.hold is not None:
            await self.hold.wait()
        for _ in range(self.boundaries):
            decision = await focus.yield_point()
            if decision.merged:
                seen.append(_plain(decision.merged_text))
            if decision.stop:
                return None
            if focus.cancelled:
                await focus.yield_point()
                return None
        if self.fail:
            raise RuntimeError("the worker failed on purpose")
        focus.stream(f"partial of turn {len(self.turns)}")
        return Reply(self.answer.format(n=len(self.turns)))

    def texts(self) -> list[str]:
        """Every text read, across turns, in order."""
        return [text for turn in self.turns for text in turn]


async def settled(rt: Runtime) -> None:
    """Wait until no agent drains and no tree record write is in flight."""
    for _ in range(50):
        await rt.run_until_idle()
        await rt.tree.results.settle()
        await asyncio.sleep(0)
        if not any(a.controller.busy for a in rt.agents) and not rt.tree.results._tasks:
            return
    raise AssertionError("the runtime did not settle")


async def items_of(
    rt: Runtime, agent: str, source_type: str | None = None, status: ItemStatus | None = None
) -> list[MailboxItem]:
    """An agent's stored items (of one type, in one status), oldest first."""
    return await rt.store.find_items(
        ItemQuery(
            agent,
            source_types=(source_type,) if source_type else None,
            statuses=(status,) if status else None,
            oldest_first=True,
            limit=1000,
        )
    )


async def tree_of(rt: Runtime, root_id: str = "lead", **workers: Brain) -> dict[str, str]:
    """Host ``root_id`` (the ``root`` keyword's brain, else a Worker) and spawn one child
    per other keyword (no task); name → agent id."""
    if rt.find_agent(root_id) is None:
        await rt.add_agent(root_id, workers.pop("root", Worker()), FAST)
    ids: dict[str, str] = {}
    for name, worker in workers.items():
        node = await rt.tree.spawn(root_id, name, brain=worker, config=FAST)
        ids[name] = node.id
    return ids
