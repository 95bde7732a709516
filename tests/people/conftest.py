"""Fixtures of the people tests: a brain that asks a person, and waiting helpers.

An :class:`Asker` asks for approvals on items whose text starts with ``ask``
(``ask 2`` asks twice in one turn), records what it did before asking (it must
run once), and when resumed records the answers and, if every answer
approved, the action (it must run once too).
"""

from __future__ import annotations

import asyncio
from typing import Any

from attn import Runtime
from attn.config import AgentConfig
from attn.core.focus import Focus, Reply
from attn.models import ItemStatus, MailboxItem
from attn.store.base import ItemQuery

#: Loop settings for fake-clock tests: no burst window to wait out.
FAST = AgentConfig(coalesce_window_ms=0)


class Asker:
    """A scripted brain that asks people (see the module docstring).

    Attributes:
        before: ids of items whose pre-ask step ran (once per item, PPL-06).
        actions: ids of items whose approved action ran.
        resumed: (item id, answers) of each resumed attempt.
        served: texts of the items answered without asking.
        asked: the approvals asked, in order.
    """

    def __init__(self, rt: Runtime, **ask: Any) -> None:
        self.rt = rt
        self.ask = {"expires_in_s": None, **ask}
        self.before: list[str] = []
        self.actions: list[str] = []
        self.resumed: list[tuple[str, dict[str, Any]]] = []
        self.served: list[str] = []
        self.asked: list[str] = []
        self.asking = asyncio.Event()

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | str | None:
        if focus.approvals:
            answers = focus.approvals
            self.resumed.append((item.id, answers))
            if all(a["approved"] for a in answers.values()):
                self.actions.append(item.id)
            states = sorted(str(a["status"]) for a in answers.values())
            return f"resumed with {', '.join(states)}"
        if item.content.startswith("ask"):
            self.before.append(item.id)
            count = int(item.content.split()[1]) if len(item.content.split()) > 1 else 1
            for _ in range(count):
                approval = await self.rt.people.approvals.request(
                    focus, "Deploy to production?", "The release is ready.", **self.ask
                )
                self.asked.append(approval.id)
            self.asking.set()
            return None
        self.served.append(item.content)
        return f"served {item.content}"


async def settled(rt: Runtime) -> None:
    """Wait until no agent drains and no people work is in flight."""
    for _ in range(50):
        await rt.run_until_idle()
        await rt.people.settle()
        await asyncio.sleep(0)
        if (
            not any(a.controller.busy for a in rt.agents)
            and not rt.people.approvals._background._tasks
        ):
            return
    raise AssertionError("the runtime did not settle")


async def items_of(rt: Runtime, agent: str, status: ItemStatus | None = None) -> list[MailboxItem]:
    """An agent's stored items (in one status), oldest first."""
    return await rt.store.find_items(
        ItemQuery(agent, statuses=(status,) if status else None, oldest_first=True, limit=1000)
    )


async def snapshot(rt: Runtime, agent: str) -> tuple[Any, ...]:
    """What a refused call must leave unchanged: items, approvals, notifications."""
    items = [(i.id, i.status, i.priority, i.session) for i in await items_of(rt, agent)]
    approvals, _ = await rt.people.approvals.page(limit=1000)
    page = await rt.people.notifications.page(limit=500)
    return (
        items,
        [a.to_dict() for a in approvals],
        [n.to_dict() for n in page.notifications],
        page.unread_count,
    )
