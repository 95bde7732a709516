"""A channel's history, paged by ``seq`` (A2A-08).

Spec: 000 §11.1 (recall past exchanges of a channel); acceptance A2A-08.
"""

from __future__ import annotations

from dataclasses import dataclass

from attn.limits import MAX_ID_CHARS, check_id, check_int
from attn.models import MAX_HISTORY_PAGE, Channel, ChannelMessage
from attn.store.base import Store
from attn.types import JSON


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """One page of a channel's history, oldest first (A2A-08).

    Attributes:
        messages: the page.
        next_before: pass as ``before`` for the next older page; None at the start.
    """

    messages: list[ChannelMessage]
    next_before: int | None

    def to_dict(self) -> JSON:
        return {
            "messages": [m.to_dict() for m in self.messages],
            "nextBefore": self.next_before,
        }


async def page(
    store: Store, channel: Channel, before: object, limit: object, conversation_id: object
) -> HistoryPage:
    """The newest ``limit`` messages of ``channel`` older than ``before``, oldest first.

    Raises:
        InvalidInput: ``limit`` not in 1..500, ``before`` not a positive
            integer, a malformed conversation id.
    """
    size = check_int(limit, "limit", low=1, high=MAX_HISTORY_PAGE)
    cursor = None if before is None else check_int(before, "before", low=1, high=2**63 - 1)
    conversation = None
    if conversation_id is not None:
        conversation = check_id(conversation_id, "conversation_id", max_len=MAX_ID_CHARS)
    messages = await store.find_channel_messages(
        channel.key, before_seq=cursor, limit=size, conversation_id=conversation
    )
    more = len(messages) == size and messages[0].seq > 1
    return HistoryPage(messages, messages[0].seq if messages and more else None)


__all__ = ["HistoryPage", "page"]
