"""The claim tools of an external agent: read the inbox, claim the focus, acknowledge it.

An external agent (``brain = "external"``) does its turns in its MCP client;
these tools are how that client takes part in the attention loop. Reading never
consumes (``peek_inbox`` twice answers the same); only ``ack`` completes an
item. Every item carries its mailbox ``seq``, so a client that reconnects
catches up with ``after_seq`` (MCP-05).

Spec: issue 17 points 2 and 3; acceptance MCP-02, MCP-03, MCP-05, MCP-06, MCP-07.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Annotated, Protocol

from attn.brains.external import MAX_WAIT_S, Claim, ClaimDesk
from attn.errors import InvalidInput, UnknownItemType
from attn.limits import check_int, check_seconds
from attn.models import ItemStatus, MailboxItem
from attn.models.people import ApprovalState
from attn.people import People
from attn.tools._function import FunctionToolset, tool
from attn.tools._schema import Param
from attn.types import JSON

#: Most items one peek answers.
MAX_PEEK = 500
#: The longest text one ``reply`` passes on, in characters.
MAX_REPLY_CHARS = 100_000
_STATUSES = {s.value: s for s in ItemStatus}


class InboxReader(Protocol):
    """The agent whose inbox is read (``attn.runtime.Agent``)."""

    name: str

    def queued_items(self, limit: int | None = None) -> list[MailboxItem]: ...

    async def items_after(
        self,
        after_seq: int,
        *,
        limit: int = 100,
        statuses: tuple[ItemStatus, ...] | None = None,
        source_types: tuple[str, ...] | None = None,
    ) -> list[MailboxItem]: ...


def item_view(item: MailboxItem) -> JSON:
    """An item as a client sees it: the wire form (``id``, ``seq``, ``sourceType``,
    ``priority``, ``status``, ``payload``, ``metadata``, …) plus its ``content``."""
    view = item.to_dict()
    view["content"] = item.content
    return view


def claim_view(claim: Claim) -> JSON:
    """The focus: the item, whether it resumes earlier work (and its session's
    approvals' answers), and what was merged into it since the claim."""
    focus = claim.focus
    return {
        "item": item_view(claim.item),
        "resumed": focus.resumed,
        "redelivered": focus.redelivered,
        "approvals": focus.approvals,
        "merged": [item_view(i) for i in claim.merged],
        "backstopRemainingS": round(min(focus.backstop_remaining_s(), 1e9), 3),
    }


class ClaimToolset(FunctionToolset):
    """The claim tools of one external agent.

    Args:
        desk: the agent's claim desk.
        reader: the agent (its queue and stored items).
        people: the runtime's people (approvals); None: ``check_approval`` refuses.
        types: the known source types (the runtime's registry, read at each call);
            ``peek_inbox`` refuses others. None: any name is taken.
    """

    def __init__(
        self,
        desk: ClaimDesk,
        reader: InboxReader,
        people: People | None = None,
        types: Collection[str] | None = None,
    ) -> None:
        self.desk = desk
        self.reader = reader
        self.people = people
        self.types = types

    @tool(read_only=True)
    async def peek_inbox(
        self,
        after_seq: Annotated[int | None, Param(minimum=0)] = None,
        statuses: list[str] | None = None,
        source_types: list[str] | None = None,
        limit: Annotated[int, Param(minimum=1, maximum=MAX_PEEK)] = 50,
    ) -> JSON:
        """Read your mailbox without changing it: your focus and your queue (in the order
        you will get them), or, with after_seq, every item stored after that sequence
        number, oldest first (use the largest seq you have seen to catch up after a
        reconnect). Peeking twice answers the same; only ack completes an item.

        Args:
            after_seq: Items with a larger seq only, any status, oldest first.
            statuses: Only these statuses (queued, processing, completed, ...).
            source_types: Only these item types (human_chat, a2a_message, ...).
            limit: Most items to list.

        Returns:
            ``{"agentId", "claim", "items", "lastSeq", "more"}``: ``claim`` is your
            claimed focus or null; ``lastSeq`` the largest seq listed (pass it as
            after_seq next time); ``more`` is true when the limit cut the list.
        """
        count = check_int(limit, "limit", low=1, high=MAX_PEEK)
        wanted_statuses = _statuses(statuses)
        types = _types(source_types, self.types)
        if after_seq is None:
            # Unfiltered, only the head is read (it is the queue's order): no sort of 10,000 items.
            unfiltered = wanted_statuses is None and types is None
            queue = self.reader.queued_items(count + 1 if unfiltered else None)
            items = [
                i
                for i in queue
                if (wanted_statuses is None or i.status in wanted_statuses)
                and (types is None or i.source_type in types)
            ]
        else:
            after = check_int(after_seq, "after_seq", low=0, high=2**63 - 1)
            items = await self.reader.items_after(
                after, limit=count + 1, statuses=wanted_statuses, source_types=types
            )
        shown = items[:count]
        current = self.desk.current
        return {
            "agentId": self.reader.name,
            "claim": claim_view(current) if current is not None and current.claimed else None,
            "items": [item_view(i) for i in shown],
            "lastSeq": max((i.seq for i in shown), default=after_seq),
            "more": len(items) > count,
        }

    @tool
    async def claim(
        self,
        item_id: str | None = None,
        wait_s: Annotated[float, Param(minimum=0, maximum=MAX_WAIT_S)] = 0,
    ) -> JSON:
        """Take your next item as your focus: the one the attention rules pick (people
        first, then priority and arrival). Work on it, then call ack. You hold one
        focus at a time: claiming again answers the same item until you ack it. When
        urgent mail interrupts, a later tool call tells you (interrupts) and the item
        goes back to the queue.

        Args:
            item_id: Claim this item; it must be the one that comes next.
            wait_s: Seconds to wait for mail when none is queued (at most 50).

        Returns:
            ``{"status": "claimed", "claim": {"item", "resumed", "redelivered",
            "approvals", "merged", "backstopRemainingS"}}``, or ``{"status": "empty",
            "claim": null}``.
        """
        claim = await self.desk.claim(item_id, wait_s=wait_s)
        if claim is None:
            return {"status": "empty", "claim": None}
        return {"status": "claimed", "claim": claim_view(claim)}

    @tool
    async def ack(
        self,
        item_id: str,
        reply: Annotated[str | None, Param(max_length=MAX_REPLY_CHARS)] = None,
        tokens: Annotated[int, Param(minimum=0)] = 0,
        tool_calls: Annotated[int, Param(minimum=0)] = 0,
    ) -> JSON:
        """Acknowledge your focus: it is done. Give the reply text for a person's chat or
        a message that asked for an answer; it is delivered as your reply.

        Args:
            item_id: The item you claimed.
            reply: Your answer, if it needs one.
            tokens: Model tokens you spent on it (for the activity totals).
            tool_calls: Tool calls you made for it.

        Returns:
            ``{"status": "completed", "item"}`` once it is stored.
        """
        item = await self.desk.ack(item_id, reply=reply, tokens=tokens, tool_calls=tool_calls)
        return {"status": str(item.status), "item": item_view(item)}

    @tool
    async def reply(
        self,
        item_id: str,
        text: Annotated[str, Param(min_length=1, max_length=MAX_REPLY_CHARS)],
    ) -> JSON:
        """Show the person whose chat you hold part of your answer now, while you keep
        working (it streams into their chat). ack ends the item.

        Args:
            item_id: The item you claimed.
            text: The text to show.

        Returns:
            ``{"status": "ok"}``.
        """
        if isinstance(text, str) and len(text) > MAX_REPLY_CHARS:
            raise InvalidInput(f"text is longer than {MAX_REPLY_CHARS:,} characters")
        self.desk.reply(item_id, text)
        return {"status": "ok"}

    @tool(read_only=True)
    async def check_approval(
        self,
        approval_id: str,
        wait_s: Annotated[float, Param(minimum=0, maximum=MAX_WAIT_S)] = 0,
    ) -> JSON:
        """See whether a person answered an approval you asked for, waiting up to wait_s
        seconds for the answer. Once answered, the item it was about is queued again:
        claim it to go on (its claim carries the answer under approvals).

        Args:
            approval_id: The id request_user_approval answered.
            wait_s: Seconds to wait for an answer (at most 50).

        Returns:
            The approval: ``{"id", "state", "selectedOption", "comment", ...}``.
        """
        if self.people is None:
            raise InvalidInput("approvals need people: this runtime has none")
        wait = check_seconds(wait_s, "wait_s", min_s=0.0, max_s=MAX_WAIT_S)
        approval = await self.people.approvals.get(approval_id)
        if approval.agent_id != self.reader.name:
            raise InvalidInput(f"approval {approval.id} was asked by another agent")
        if wait > 0 and approval.state == ApprovalState.PENDING:
            approval = await self.people.wait_for_answer(approval.id, wait)
        return approval.to_dict()


def _statuses(values: object) -> tuple[ItemStatus, ...] | None:
    if values is None:
        return None
    if not isinstance(values, list) or not values:
        raise InvalidInput("statuses must be a non-empty list of item statuses")
    unknown = [v for v in values if not isinstance(v, str) or v not in _STATUSES]
    if unknown:
        raise InvalidInput(f"unknown status {unknown[0]!r:.60}; statuses: {', '.join(_STATUSES)}")
    return tuple(_STATUSES[v] for v in values)


def _types(values: object, known: Collection[str] | None) -> tuple[str, ...] | None:
    if values is None:
        return None
    if (
        not isinstance(values, list)
        or not values
        or len(values) > 100
        or not all(isinstance(v, str) and 0 < len(v) <= 100 for v in values)
    ):
        raise InvalidInput("source_types must be a non-empty list of item type names")
    unknown = [v for v in values if v not in known] if known is not None else []
    if unknown and known is not None:
        raise UnknownItemType(
            f"unknown source type {unknown[0]!r:.100}; known types: {', '.join(sorted(known))}"
        )
    return tuple(values)


__all__ = ["ClaimToolset", "InboxReader", "claim_view", "item_view"]
