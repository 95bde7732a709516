"""A claimed focus of an external agent, and what interrupted it (issue 17, MCP-06)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from attn.core.focus import Focus, Reply
from attn.models import MailboxItem


@dataclass(frozen=True, slots=True)
class Notice:
    """What happened to the focus between two tool calls (MCP-06).

    Attributes:
        action: ``merge`` (items joined the focus), ``preempt`` (the focus went
            back to the queue for more urgent mail: claim again), ``cancel`` (a
            person cancelled it) or ``timeout`` (the backstop ended it).
        item_id: the focus it concerns.
        reason: why, in words.
        items: the merged items, or the item that interrupted.
    """

    action: str
    item_id: str
    reason: str
    items: tuple[MailboxItem, ...] = ()


@dataclass(eq=False, slots=True)
class Claim:
    """The agent's focus as its client holds it.

    Attributes:
        item: the item in focus (a live object: merged text is appended to it).
        focus: the loop's handle on the attempt.
        merged: items absorbed into the focus since it was claimed.
        claimed: False while the loop's pick waits for a claim that gave up waiting.
    """

    item: MailboxItem
    focus: Focus
    merged: list[MailboxItem] = field(default_factory=list)
    claimed: bool = False
    #: What ``reply`` streamed so far (the answer when ``ack`` gives none).
    streamed: list[str] = field(default_factory=list)
    answer: asyncio.Future[Reply | None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    settled: asyncio.Future[MailboxItem] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


__all__ = ["Claim", "Notice"]
