"""``ReadyQueue.first(n)``: the head of the queue without sorting all of it is
exactly the head of the sorted queue, through pushes, removals, re-filed and
reprioritized items (their stale heap entries), at every length."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from attn.config import AgentConfig
from attn.core.mailbox.queue import ReadyQueue
from attn.core.registry import DEFAULT_REGISTRY
from attn.models import ItemStatus, MailboxItem


def _item(seq: int, priority: int) -> MailboxItem:
    return MailboxItem(
        id=f"mbx_{seq:05d}",
        agent_id="ada",
        source_type="system_event",
        priority=priority,
        status=ItemStatus.QUEUED,
        payload={"content": f"item {seq}"},
        metadata={},
        queued_at=datetime(2026, 1, 1, tzinfo=UTC),
        seq=seq,
    )


def test_the_head_is_the_sorted_queue_cut_short_through_any_changes() -> None:
    rng = random.Random(17)
    queue = ReadyQueue(DEFAULT_REGISTRY, AgentConfig())
    queued: list[MailboxItem] = []
    for step in range(3_000):
        action = rng.random()
        if action < 0.55 or not queued:
            item = _item(step, rng.randint(0, 4))
            queue.push(item)
            queued.append(item)
        elif action < 0.7:
            queue.remove(queued.pop(rng.randrange(len(queued))))
        elif action < 0.85:
            item = rng.choice(queued)
            item.priority = rng.randint(0, 4)
            queue.reprioritized(item)
        elif action < 0.9:
            queue.push(rng.choice(queued))  # re-filed: a second entry for the same item
        else:
            queue.pop_nowait()
            queued = list(queue.values())
        if step % 50 == 0:
            ordered = queue.in_claim_order()
            for count in (1, 5, 51, len(ordered), len(ordered) + 3):
                assert queue.first(count) == ordered[:count], (step, count)


def test_the_head_of_an_empty_queue_is_empty() -> None:
    queue = ReadyQueue(DEFAULT_REGISTRY, AgentConfig())
    assert queue.first(50) == []
    item = _item(1, 2)
    queue.push(item)
    queue.remove(item)
    assert queue.first(50) == []
