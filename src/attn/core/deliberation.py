"""Deliberation (tier 2 triage): the agent chooses what to do with its queue.

A :class:`Deliberator` receives the head item and every other queued item and
returns a :class:`DeliberationResult`: what to process (one item or a batch
with a shared context), what to defer, drop or mark completed inline, the
reasoning, a situational-awareness note and working-memory updates. The
attention controller applies it; protected items (human chat, execution
triggers, direct mentions) are never deferred, dropped or completed inline.

Spec: 000 §21 (DeliberationResult, batch processing, memory updates), §24.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from attn.models import MailboxItem


@dataclass(frozen=True, slots=True)
class MemoryUpdate:
    """One working-memory (or long-term memory) write requested by a deliberation."""

    key: str
    content: str
    type: Literal["working", "longterm"] = "working"


@dataclass(frozen=True, slots=True)
class DeliberationResult:
    """What a deliberation decided (000 §21 ``DeliberationResult``).

    Attributes:
        process_item_id: the item to process now.
        process_item_ids: several items to process together in one brain call
            (the first is the primary; None or one id means no batch).
        batch_context: an instruction or synthesis handed to the brain with a batch.
        defer_item_ids: items to postpone (resurface when idle).
        drop_item_ids: items to discard as stale or redundant.
        inline_completed_ids: items already handled during deliberation.
        reasoning: why, in words; stored with the triage decision.
        situational_awareness: a note stored in working memory under "deliberation".
        memory_updates: working-memory writes applied in order.
    """

    process_item_id: str
    reasoning: str = ""
    process_item_ids: tuple[str, ...] | None = None
    batch_context: str | None = None
    defer_item_ids: tuple[str, ...] = ()
    drop_item_ids: tuple[str, ...] = ()
    inline_completed_ids: tuple[str, ...] = ()
    situational_awareness: str | None = None
    memory_updates: tuple[MemoryUpdate, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "processItemId": self.process_item_id,
            "processItemIds": list(self.process_item_ids or ()),
            "batchContext": self.batch_context,
            "deferItemIds": list(self.defer_item_ids),
            "dropItemIds": list(self.drop_item_ids),
            "inlineCompletedIds": list(self.inline_completed_ids),
            "reasoning": self.reasoning,
            "situationalAwareness": self.situational_awareness,
            "memoryUpdates": [
                {"type": m.type, "key": m.key, "content": m.content} for m in self.memory_updates
            ],
        }


class Deliberator(Protocol):
    """Tier 2: looks at the head and the queue and decides (000 §21)."""

    async def deliberate(
        self, head: MailboxItem, queued: list[MailboxItem], context: dict[str, Any]
    ) -> DeliberationResult | None: ...
