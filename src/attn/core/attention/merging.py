"""Which queued items a focus may absorb, and in which order.

Every queued item is indexed by its conversations (a person's chat session, a
task, a requirement, a channel: :func:`~attn.core.heuristics.conversation_keys`).
A new focus is offered every queued item that shares one of its
conversations, whenever that item arrived: before the focus began, during an
earlier focus that answered continue for it, or after that focus's last
yield point. A fresh focus absorbs them before its brain starts, so its first
input holds them; resumed work receives them at its first yield point.

Order within a conversation: one sender's later message is never merged
while an earlier one of the same sender in that conversation stays queued
(the brain would see the later one first).

Spec: 000 §4 (R0–R3 merges), §14 (complementary controller merge);
acceptance CORE-22, CORE-71, CORE-75.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

from attn.core.attention.attempt import Attempt
from attn.core.attention.state import ControllerState, decision_context
from attn.core.heuristics import Verdict, conversation_keys, sender_of
from attn.core.mailbox.merge import MAX_MERGED_MESSAGES, has_room
from attn.models import DecisionType, ItemStatus, MailboxItem
from attn.store.base import WriteOp

#: Why an arrival that a rule would merge is left queued.
ORDER_VERDICT = Verdict(
    DecisionType.CONTINUE,
    "An earlier message from the same sender in this conversation is still queued: "
    "not merged ahead of it",
    "order",
)


class ConversationOrder:
    """The (conversation, sender) pairs of one focus that still have a queued message.

    Walk the focus's candidates in commit order; :meth:`blocks` says whether
    merging one would overtake an earlier message of its sender, and
    :meth:`keep` records one left queued.
    """

    __slots__ = ("_focus_keys", "_waiting")

    def __init__(self, focus: MailboxItem) -> None:
        self._focus_keys = set(conversation_keys(focus))
        self._waiting: set[tuple[Hashable, object]] = set()

    def _pairs(self, item: MailboxItem) -> Iterable[tuple[Hashable, object]]:
        sender = sender_of(item)
        if sender is None:
            return ()
        return [(key, sender) for key in conversation_keys(item) if key in self._focus_keys]

    def blocks(self, item: MailboxItem) -> bool:
        """True when an earlier message of ``item``'s sender in a shared conversation waits."""
        return any(pair in self._waiting for pair in self._pairs(item))

    def keep(self, item: MailboxItem) -> None:
        """``item`` stays queued: later messages of its sender must wait behind it."""
        self._waiting.update(self._pairs(item))


#: Why an arrival that a rule would merge is left queued: the focus is full.
FULL_VERDICT = Verdict(
    DecisionType.CONTINUE,
    f"The focus holds as much merged text as one item may ({MAX_MERGED_MESSAGES} messages, "
    "or half of max_payload_bytes): not merged, it runs as an item of its own",
    "full",
)


def has_room_for(s: ControllerState, focus: MailboxItem, new: MailboxItem) -> bool:
    """True when ``new`` may still merge into ``focus`` (see ``merge.has_room``)."""
    return has_room(focus, new.payload, s.config)


def queued_now(s: ControllerState, item: MailboxItem) -> bool:
    return item.status == ItemStatus.QUEUED and s.mailbox.find(item.id) is item


def conversation_items(s: ControllerState, focus: MailboxItem) -> list[MailboxItem]:
    """Queued items sharing a conversation with ``focus``, in commit order."""
    return [
        i for i in s.mailbox.queue.conversation_items(conversation_keys(focus)) if i is not focus
    ]


def merge_candidates(s: ControllerState, focus: MailboxItem) -> list[MailboxItem]:
    """Items a focus may absorb: work already begun (with a session) never is."""
    return [i for i in conversation_items(s, focus) if i.session is None]


async def merge_queued(s: ControllerState, attempt: Attempt, ops: list[WriteOp]) -> None:
    """Before a fresh focus's brain starts: absorb queued follow-ups the rules merge."""
    item = attempt.item
    candidates = conversation_items(s, item)
    if not candidates:
        return
    order = ConversationOrder(item)
    for new in candidates:
        merged = False
        if new.session is None and not new.triggers_execution and not order.blocks(new):
            verdict = await s.rules.decide(item, new)
            if (
                verdict.decision == DecisionType.MERGE
                and queued_now(s, new)
                and has_room_for(s, item, new)
            ):
                absorb(s, attempt, new, verdict, ops, " (queued before this focus began)")
                merged = True
        if not merged:
            order.keep(new)


def absorb(
    s: ControllerState,
    attempt: Attempt,
    new: MailboxItem,
    verdict: Verdict,
    ops: list[WriteOp],
    note: str = "",
) -> None:
    """Merge ``new`` into the focus of ``attempt`` and record why."""
    item = attempt.item
    ops.extend(s.mailbox.transitions.merge_ops(new, item))
    ops.append(
        s.mailbox.transitions.decision_op(
            new,
            DecisionType.MERGE,
            verdict.reason + note,
            decision_context(s, item, arrival=new, rule=verdict.rule),
        )
    )
    attempt.merged_ids.append(new.id)
