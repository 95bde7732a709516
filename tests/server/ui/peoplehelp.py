"""Helpers of the people browser tests (and of docs/approval_screenshot.py): a
brain that asks a person for a decision and resumes with the answer, two
people (the owner Ada Lovelace and Maya), and waits on parked items.

:class:`AskingBrain` asks for an approval when an item's payload carries
``ask`` (the arguments of :meth:`attn.people.Approvals.request`); its work is
parked, and when the answer resumes it, it replies with the answer and
records it in :attr:`AskingBrain.resumed`. Any other item is done at once.
"""

from __future__ import annotations

from typing import Any

from attn.config.people import User, Users
from attn.core.focus import Focus, Reply
from attn.models import MailboxItem
from attn.runtime import Runtime
from tests.server.ui.uihelp import NEW, UiServer

#: The people of the tests: the owner (whom the page acts for) and Maya.
PEOPLE = Users((User("ada.l", "Ada Lovelace", owner=True), User("maya", "Maya")))


class AskingBrain:
    """Asks for an approval on items whose payload has ``ask``; resumes with the answer.

    Attributes:
        runtime: set by :func:`host_people` (the brain reaches ``runtime.people``).
        resumed: (item id, the answer) of each resumed item, in order.
        asked: how many times each item id asked (a resume never asks again).
    """

    def __init__(self) -> None:
        self.runtime: Runtime | None = None
        self.resumed: list[tuple[str, dict[str, Any]]] = []
        self.asked: dict[str, int] = {}

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | None:
        answers = focus.approvals
        if answers:
            answer = next(iter(answers.values()))
            self.resumed.append((item.id, answer))
            chosen = answer.get("selected_option") or "free text"
            return Reply(
                f"resumed after {answer['status']} ({chosen}): {answer.get('comment', '')}"
            )
        ask = item.payload.get("ask")
        if isinstance(ask, dict):
            assert self.runtime is not None
            self.asked[item.id] = self.asked.get(item.id, 0) + 1
            await self.runtime.people.approvals.request(focus, **ask)
            return None
        focus.log("text", f"handled {item.summary}")
        return Reply(f"done: {item.content or item.summary}")


def host_people(server: UiServer, brain: AskingBrain) -> None:
    """Give the server's runtime :data:`PEOPLE` and hand ``brain`` the runtime."""

    async def go(runtime: Runtime) -> None:
        runtime.people.set_users(PEOPLE)
        brain.runtime = runtime

    server.call(go)


def ask(server: UiServer, agent: str, **request: Any) -> tuple[str, str]:
    """Enqueue an item on ``agent`` that asks for an approval; return (item id,
    approval id) once the item is parked."""
    item_id = server.enqueue(
        agent,
        "system_event",
        {"content": f"needs a decision: {request['title']}", "ask": request},
        until={NEW: "parked"},
    )
    server.settle()

    async def approval_of(runtime: Runtime) -> str:
        found, _ = await runtime.people.approvals.page(item_id=item_id, states=["pending"])
        assert len(found) == 1, found
        return found[0].id

    return item_id, server.call(approval_of)


def item_status(server: UiServer, item_id: str) -> str:
    async def go(runtime: Runtime) -> str:
        item = await runtime.store.get_item(item_id)
        assert item is not None
        return str(item.status)

    return server.call(go)
