"""A retained agent's history across turns, and the brain middleware that gives it.

A retained child keeps its conversation after each turn: the next turn's
brain starts from the conversation the last settled turn ended with (stored
in that turn's item session, so it survives a restart), followed by the new
mail. The LLM brain reads it from ``focus.session["history"]``; other brains
may ignore it. The middleware also tells the brain whether the turn runs
read-only (``focus.session["readOnly"]``, A2A-19).

Spec: seed 002 (retained agents keep their history; Plan stamps).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attn.core.focus import Brain, Focus, Reply
from attn.models import ItemStatus, MailboxItem
from attn.store.base import ItemQuery, Store
from attn.types import JSON

if TYPE_CHECKING:
    from attn.tree.gate import TreeGate
    from attn.tree.service import Tree

#: Most messages of history a turn starts from (older turns are left out).
MAX_HISTORY_MESSAGES = 400
#: How many settled turns a restart looks back through for the last conversation.
_LOOKBACK = 20


def _conversation(item: MailboxItem) -> list[JSON] | None:
    session = item.session
    if not isinstance(session, dict):
        return None
    conversation = session.get("conversation")
    return conversation if isinstance(conversation, list) and conversation else None


def _bounded(messages: list[JSON]) -> list[JSON]:
    """The newest messages within the bound, starting at a user message."""
    if len(messages) <= MAX_HISTORY_MESSAGES:
        return list(messages)
    tail = messages[-MAX_HISTORY_MESSAGES:]
    for index, message in enumerate(tail):
        if isinstance(message, dict) and message.get("role") == "user":
            return tail[index:]
    return []


class Histories:
    """The last conversation of each retained agent (memory, else the store)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._last: dict[str, list[JSON]] = {}

    def remember(self, agent_id: str, item: MailboxItem) -> None:
        """A turn of ``agent_id`` on ``item`` settled: keep its conversation if it completed."""
        conversation = _conversation(item)
        if conversation is not None and item.status == ItemStatus.COMPLETED:
            self._last[agent_id] = _bounded(conversation)

    async def last(self, agent_id: str) -> list[JSON]:
        """The conversation the agent's last completed turn ended with ([] for none)."""
        known = self._last.get(agent_id)
        if known is not None:
            return known
        query = ItemQuery(agent_id, statuses=(ItemStatus.COMPLETED,), limit=_LOOKBACK)
        for item in await self._store.find_items(query):
            conversation = _conversation(item)
            if conversation is not None:
                self._last[agent_id] = _bounded(conversation)
                return self._last[agent_id]
        self._last[agent_id] = []
        return []

    def forget(self, agent_id: str) -> None:
        self._last.pop(agent_id, None)


class RetainedBrain:
    """Wraps a retained agent's brain: history first, and the read-only flag.

    Args:
        inner: the brain as wrapped so far.
        tree: the runtime's tree.
        gate: the agent's gate.
    """

    __slots__ = ("_gate", "_tree", "inner", "uses_completion_marker")

    def __init__(self, inner: Brain, tree: Tree, gate: TreeGate) -> None:
        self.inner = inner
        self._tree = tree
        self._gate = gate
        self.uses_completion_marker = bool(getattr(inner, "uses_completion_marker", False))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | str | None:
        session = focus.session
        if "conversation" not in session and "history" not in session:
            prior = await self._tree.histories.last(self._gate.agent_id)
            if prior:
                session["history"] = prior
        session["readOnly"] = self._gate.read_only
        return await self.inner(item, focus)


__all__ = ["MAX_HISTORY_MESSAGES", "Histories", "RetainedBrain"]
