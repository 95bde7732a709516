"""The mailbox toolset: a brain inspects and manages its agent's own mailbox.

Each tool takes immediate effect, except ``complete_deliberation``, which
only builds the :class:`~attn.core.deliberation.DeliberationResult` (also
kept in :attr:`MailboxToolset.deliberation`) for the attention controller to
apply. No tool can defer, drop or reprioritize a protected item (human chat).
The docstrings' descriptions and ``Args:`` are what the model reads.

Spec: 000 §21 ("Agent Mailbox Management Tools", "DeliberationResult",
"Working Memory Injection"); acceptance COAL-30..33; DESIGN.md invariant 9.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from attn.core.deliberation import DeliberationResult
from attn.core.working_memory import MAX_KEY_CHARS
from attn.limits import check_int
from attn.tools import _mailbox_checks as checks
from attn.tools._deliberation import build_deliberation
from attn.tools._function import FunctionToolset, tool
from attn.tools._mailbox_checks import MAX_DELAY_MINUTES, MemoryUpdateArgument
from attn.tools._mailbox_items import ToolHost, find_managed, guard_protected, report
from attn.tools._schema import Param
from attn.types import JSON


class MailboxToolset(FunctionToolset):
    """The mailbox tools bound to one agent.

    Args:
        agent: the agent whose mailbox and working memory the tools act on.

    Attributes:
        deliberation: the last result built by :meth:`complete_deliberation`, or None.
    """

    def __init__(self, agent: ToolHost) -> None:
        self.agent = agent
        self.deliberation: DeliberationResult | None = None

    @tool(read_only=True)
    async def check_mailbox(
        self, limit: Annotated[int, Param(minimum=1, maximum=1000)] = 50
    ) -> JSON:
        """Look at your mailbox without changing it: queue depth, your current focus, the
        queued and deferred items (id, type, priority, summary, preview) and your most
        recent attention decisions.

        Args:
            limit: Most queued (and deferred) items to list.

        Returns:
            ``{"agentId", "state", "depth", "deferredCount", "currentFocus",
            "queued", "deferred", "recentDecisions"}``: items in claim order as
            short dicts (id, type, priority, summary, a 300-character preview,
            whether protected…), the ten newest decisions first.

        Raises:
            InvalidInput: ``limit`` is not an integer in 1..1000.

        Spec: COAL-30.
        """
        count = check_int(limit, "limit", low=1, high=1000)
        return await report(self.agent, count)

    @tool
    async def defer_mailbox_item(
        self,
        item_id: str,
        reason: str,
        delay_minutes: Annotated[
            float | None, Param(exclusive_minimum=0, maximum=MAX_DELAY_MINUTES, nullable=True)
        ] = None,
    ) -> JSON:
        """Postpone a queued item: it leaves the queue and comes back after the delay, or
        when you are next idle if no delay is given. Human chat cannot be deferred.

        Args:
            item_id: A mailbox item id (mbx_…) from check_mailbox.
            reason: Why, in a sentence; stored with the decision.
            delay_minutes: Minutes until the item returns to the queue.

        Returns:
            ``{"itemId", "status": "deferred", "deferredUntil", "reason"}``.

        Raises:
            InvalidInput: a missing or malformed id, reason or delay (0 < delay ≤ 30 days).
            ItemNotFound: the agent has no queued or deferred item with that id.
            ProtectedItem: the item is a human chat.
            InvalidTransition: the item is already deferred, or is the current focus.

        Spec: COAL-31.
        """
        item_id = checks.check_id(item_id)
        reason = checks.check_reason(reason)
        delay = checks.check_delay(delay_minutes)
        item = find_managed(self.agent, item_id)
        guard_protected(self.agent, item, "deferred")
        clock = self.agent.controller.clock
        until = clock.now() + timedelta(minutes=delay) if delay is not None else None
        await self.agent.mailbox.defer(item.id, until, reason=reason, by_agent=True)
        return {
            "itemId": item.id,
            "status": str(item.status),
            "deferredUntil": until.isoformat() if until is not None else None,
            "reason": reason,
        }

    @tool
    async def drop_mailbox_item(self, item_id: str, reason: str) -> JSON:
        """Discard a stale or redundant queued or deferred item for good. Human chat cannot
        be dropped.

        Args:
            item_id: A mailbox item id (mbx_…) from check_mailbox.
            reason: Why, in a sentence; stored with the decision.

        Returns:
            ``{"itemId", "status": "dropped", "reason"}``.

        Raises:
            InvalidInput: a missing or malformed id or reason.
            ItemNotFound: the agent has no queued or deferred item with that id.
            ProtectedItem: the item is a human chat.
            InvalidTransition: the item is the current focus.

        Spec: COAL-31.
        """
        item_id = checks.check_id(item_id)
        reason = checks.check_reason(reason)
        item = find_managed(self.agent, item_id)
        guard_protected(self.agent, item, "dropped")
        await self.agent.mailbox.drop(item.id, reason=reason, by_agent=True)
        return {"itemId": item.id, "status": str(item.status), "reason": reason}

    @tool
    async def prioritize_mailbox_item(
        self,
        item_id: str,
        priority: Annotated[float, Param(minimum=0, maximum=4, own_check=True)],
        reason: str | None = None,
    ) -> JSON:
        """Change a queued or deferred item's priority: 0 critical, 1 high, 2 normal, 3 low,
        4 background (lower is served first). Human chat cannot be reprioritized.

        Args:
            item_id: A mailbox item id (mbx_…) from check_mailbox.
            priority: 0..4; rounded to the nearest integer.
            reason: Why (optional).

        Returns:
            ``{"itemId", "priority", "previousPriority"}``; 1.7 becomes 2, halves round up.

        Raises:
            InvalidPriority: anything but a finite number in 0..4.
            InvalidInput: a missing or malformed id or reason.
            ItemNotFound: the agent has no queued or deferred item with that id.
            ProtectedItem: the item is a human chat.
            InvalidTransition: the item is the current focus.

        Spec: COAL-31.
        """
        item_id = checks.check_id(item_id)
        new_priority = checks.round_priority(priority)
        if reason is not None:
            reason = checks.check_reason(reason)
        item = find_managed(self.agent, item_id)
        guard_protected(self.agent, item, "reprioritized")
        previous = item.priority
        await self.agent.mailbox.reprioritize(
            item.id,
            new_priority,
            by_agent=True,
            reason=reason or f"priority {previous} -> {new_priority} (agent tool)",
        )
        return {"itemId": item.id, "priority": new_priority, "previousPriority": previous}

    @tool(read_only=True)
    async def update_working_memory(
        self, key: Annotated[str, Param(max_length=MAX_KEY_CHARS)], content: str
    ) -> JSON:
        """Write a short note under a key in your working memory; it is shown, with its
        age, in every later prompt until you update or clear it.

        Args:
            key: A label, e.g. 'task-priorities'.
            content: The note (at most 4 KB).

        Returns:
            ``{"key", "updatedAt", "entries"}`` (entries: how many keys are held).

        Raises:
            InvalidInput: see :meth:`WorkingMemory.check`, or the memory is full.

        Spec: COAL-33.
        """
        memory = self.agent.working_memory
        entry = memory.update(key, content)
        return {"key": entry.key, "updatedAt": entry.updated_at.isoformat(), "entries": len(memory)}

    @tool(read_only=True)
    async def clear_working_memory(
        self, key: Annotated[str | None, Param(nullable=True)] = None
    ) -> JSON:
        """Remove a stale working-memory entry, or every entry when no key is given.

        Args:
            key: The key to remove.

        Returns:
            ``{"cleared": [keys removed], "entries": keys left}``; clearing a
            key that is not held removes nothing and is not an error.

        Raises:
            InvalidInput: ``key`` is given but is not a non-blank string.

        Spec: COAL-33.
        """
        memory = self.agent.working_memory
        if key is None:
            return {"cleared": memory.clear_all(), "entries": 0}
        cleared = [key.strip()] if memory.clear(key) else []
        return {"cleared": cleared, "entries": len(memory)}

    @tool
    async def complete_deliberation(
        self,
        process_item_id: str,
        reasoning: str,
        process_item_ids: list[str] | None = None,
        batch_context: Annotated[str | None, Param(nullable=True)] = None,
        defer_item_ids: list[str] | None = None,
        drop_item_ids: list[str] | None = None,
        inline_completed_ids: list[str] | None = None,
        situational_awareness: Annotated[str | None, Param(nullable=True)] = None,
        memory_updates: list[MemoryUpdateArgument] | None = None,
    ) -> DeliberationResult:
        """Finish deliberating over your mailbox with one decision: the item to process now
        (or several to process together), and the items to defer, drop, or that you
        already handled inline. Human chat can never be deferred, dropped or completed
        inline.

        Args:
            process_item_id: The item to process now.
            reasoning: Why this choice.
            process_item_ids: Several items to process together in one call (batch).
            batch_context: Instruction or synthesis for the batch.
            defer_item_ids: Items to postpone.
            drop_item_ids: Stale or redundant items to discard.
            inline_completed_ids: Items you already handled while deliberating.
            situational_awareness: A short summary of your situation, kept in working
                memory under 'deliberation'.
            memory_updates: Working-memory writes.

        Returns:
            The :class:`DeliberationResult`, also kept in :attr:`deliberation`.
            Nothing is applied here: the attention controller applies it (and
            skips ids that are no longer queued). The primary is put first in
            a batch (and added when missing); one id or none is no batch.

        Raises:
            InvalidInput: a malformed argument, or an id listed in two roles
                (e.g. both processed and dropped).
            ProtectedItem: a human chat is listed to defer, drop or complete inline.

        Spec: 000 §21 ("DeliberationResult").
        """
        result = build_deliberation(
            self.agent,
            process_item_id,
            reasoning,
            process_item_ids=process_item_ids,
            batch_context=batch_context,
            defer_item_ids=defer_item_ids,
            drop_item_ids=drop_item_ids,
            inline_completed_ids=inline_completed_ids,
            situational_awareness=situational_awareness,
            memory_updates=memory_updates,
        )
        self.deliberation = result
        return result

    def to_json(self, name: str, result: Any) -> JSON:
        """A deliberation answers ``{"deliberation": {...}}``; other tools their dict."""
        if isinstance(result, DeliberationResult):
            return {"deliberation": result.to_dict()}
        return super().to_json(name, result)
