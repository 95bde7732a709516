"""What a brain receives and returns: the :class:`Focus` handle and :class:`Reply`.

A brain is any ``async def brain(item, focus) -> Reply | str | None``. It calls
``await focus.yield_point()`` at safe pauses (between model turns, after tool
results) and stops when the answer says so. The handle belongs to one
processing attempt: once the attempt is over (finished, timed out, cancelled,
stopped), its writes are ignored and its yield points answer ``cancel``, so a
late result of a cancelled attempt can never land (000 §4 backstop).

Spec: 000 §4 (yield points, decisions), §5 (awaitable replies), §20 (marker).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from attn.clock import Clock
from attn.core.events import TOOL_ERROR
from attn.core.turns import LoopTurns
from attn.models import MailboxItem
from attn.types import JSON


@dataclass(frozen=True, slots=True)
class Reply:
    """A brain's answer to an item.

    Attributes:
        text: the reply text (for chats: what the person reads).
        item_id: the item it answers (filled in by attn).
        data: any JSON the brain wants to hand back.
        cancelled: True when a person cancelled the work mid-way; ``text`` then
            holds the partial output followed by ``[cancelled]``.
    """

    text: str
    item_id: str = ""
    data: JSON = field(default_factory=dict)
    cancelled: bool = False


class YieldAction(StrEnum):
    """What a brain must do after a yield point."""

    CONTINUE = "continue"
    MERGE = "merge"
    PREEMPT = "preempt"
    CANCEL = "cancel"


@dataclass(frozen=True, slots=True)
class YieldDecision:
    """The answer of :meth:`Focus.yield_point`.

    Attributes:
        action: continue or merge (keep working), preempt or cancel (return now).
        merged: items absorbed into the focus at this yield point, in arrival order;
            their text is also appended to ``focus.item.payload["content"]``.
        arrived: every item evaluated at this yield point, in arrival order.
        reason: why, in words.
    """

    action: YieldAction
    merged: tuple[MailboxItem, ...] = ()
    arrived: tuple[MailboxItem, ...] = ()
    reason: str = ""

    @property
    def stop(self) -> bool:
        """True when the brain should return now (preempt or cancel)."""
        return self.action in (YieldAction.PREEMPT, YieldAction.CANCEL)

    @property
    def merged_text(self) -> str:
        """The merged items' texts joined by blank lines."""
        return "\n\n".join(i.content for i in self.merged)


CONTINUE = YieldDecision(YieldAction.CONTINUE)
STALE = YieldDecision(YieldAction.CANCEL, reason="this attempt is over")


class AttemptHandle(Protocol):
    """The processing attempt a :class:`Focus` belongs to, as the focus sees it.

    Implemented by :class:`attn.core.attention.attempt.Attempt`; declared here so
    that this module, which brains import, does not depend on the attention loop.
    """

    item: MailboxItem
    resumed: bool
    siblings: list[MailboxItem]
    batch_context: str | None
    clock: Clock
    turns: LoopTurns
    #: False once the attempt is over (its writes are then discarded).
    live: bool
    #: True while nothing is pending: yield points answer continue at once.
    quiet: bool
    stream_closed: bool
    tokens: int
    tools: int
    #: Set once the work must stop at once (cancel, backstop, stop).
    cancelled: asyncio.Event
    #: Why the brain's answer is incomplete, when it said so.
    incomplete: str | None
    #: Set when mail arrives, cleared by the yield point that takes it.
    mail: asyncio.Event
    #: When the backstop fires, on ``clock.monotonic()`` (inf: not armed).
    backstop_at: float
    #: Ids of the answers the work parks on when the brain returns.
    parked_on: list[str]

    async def yield_point(self) -> YieldDecision:
        """The controller's answer about mail that arrived meanwhile."""
        ...

    def add_log(self, type: str, content: str, metadata: dict[str, Any]) -> None:
        """Buffer one activity log line."""
        ...

    def arm_backstop(self, *, awaiting_approval: bool = False) -> None:
        """(Re)start the backstop from now."""
        ...

    def stream(self, delta: str) -> None:
        """Pass a piece of reply text on (and keep it as partial output)."""
        ...

    async def checkpoint(self, session: dict[str, Any]) -> None:
        """Store ``session`` in the item row now, with the buffered log lines."""
        ...

    def report(self, event_type: str, data: dict[str, Any]) -> None:
        """Emit an event about the item on the agent's bus."""
        ...


class Focus:
    """The brain's handle on the item it is working on.

    Attributes:
        item: the mailbox item (a live object: merged text is appended to it).
        session: a dict the brain may fill; it is saved when the work is
            preempted, paused or stopped and handed back on resumption.
        resumed: True when this attempt continues earlier preempted or stopped work.
        attempt: 1-based attempt number (raised by failures and crashes).
        redelivered: True when a crash interrupted an earlier attempt.
        clock: the runtime's clock.
    """

    __slots__ = (
        "_attempt",
        "attempt",
        "batch",
        "batch_context",
        "clock",
        "item",
        "redelivered",
        "resumed",
        "session",
    )

    def __init__(self, attempt: AttemptHandle) -> None:
        self._attempt = attempt
        self.item = attempt.item
        self.session: dict[str, Any] = dict(attempt.item.session or {})
        self.resumed = attempt.resumed
        self.attempt = attempt.item.attempt
        self.redelivered = attempt.item.redelivered
        #: The runtime's clock: brains sleep with ``await focus.clock.sleep(s)``.
        self.clock = attempt.clock
        #: Other items handled by this same call (a deliberation's batch, 000 §21);
        #: they complete when this one completes.
        self.batch: tuple[MailboxItem, ...] = tuple(attempt.siblings)
        #: The deliberation's instruction for the batch, if any.
        self.batch_context = attempt.batch_context

    @property
    def live(self) -> bool:
        """False once this attempt is over; its writes are then discarded."""
        return self._attempt.live

    async def yield_point(self) -> YieldDecision:
        """Check for mail that arrived since the last yield point.

        Returns at once with ``continue`` when nothing is pending (the common
        case costs well under 2 µs); a brain that has held the event loop for
        more than 2 ms without suspending is suspended for one loop turn first,
        so timers (the backstop), requests and other agents keep running.
        Otherwise the attention controller decides
        (heuristics, then an optional judge) and the answer says whether to
        keep going (continue, merge) or return now (preempt, cancel). Human
        chat honours only merge, except a person's explicit cancel.
        """
        attempt = self._attempt
        if attempt.turns.held():  # a brain that never suspends still lets the loop run
            await attempt.turns.give_turn()
        if attempt.quiet:
            return CONTINUE
        return await attempt.yield_point()

    def log(self, type: str, content: str, **metadata: Any) -> None:
        """Append an activity log entry (``llm_request``, ``text``, ``tool_start``,
        ``tool_end``, ``error`` or ``status``); stored with the next commit."""
        if self._attempt.live:
            self._attempt.add_log(type, content, metadata)

    def report_usage(self, *, tokens: int = 0, tools: int = 0) -> None:
        """Add model tokens and tool calls to this item's activity totals."""
        if self._attempt.live:
            self._attempt.tokens += int(tokens)
            self._attempt.tools += int(tools)

    @contextmanager
    def awaiting_approval(self) -> Iterator[None]:
        """Mark a wait for a person's answer (000 §13.2).

        Inside the block the backstop is ``approval_backstop_s`` (24 hours by
        default) instead of ``backstop_s``; leaving it restarts the normal
        backstop from that moment.
        """
        attempt = self._attempt
        if attempt.live:
            attempt.arm_backstop(awaiting_approval=True)
        try:
            yield
        finally:
            if attempt.live:
                attempt.arm_backstop()

    def renew_backstop(self) -> None:
        """Restart the backstop from now: a sign of life of work that runs elsewhere
        (an external agent's client calling a tool, issue 17), so only a client
        silent for ``backstop_s`` loses its claim."""
        if self._attempt.live:
            self._attempt.arm_backstop()

    def park(self, waiting_on: str) -> None:
        """Park this item on a person's answer once the brain returns (000 §13.2).

        ``waiting_on`` is the id of the approval asked (stored before this is
        called). When the brain returns, the item is parked with
        :attr:`session` instead of completed: it is never picked and the loop
        serves other mail; the answer queues it again and the next attempt
        resumes in its session (:attr:`resumed` True), with the answers in
        :attr:`approvals`. A call parks on every id given; a reply returned
        with them is dropped. A person's cancel still ends the work.
        """
        if self._attempt.live and waiting_on not in self._attempt.parked_on:
            self._attempt.parked_on.append(str(waiting_on))

    @property
    def parking(self) -> tuple[str, ...]:
        """The ids :meth:`park` was given in this attempt."""
        return tuple(self._attempt.parked_on)

    @property
    def approvals(self) -> dict[str, Any]:
        """Answers this work was resumed with: approval id → ``{"approvalId",
        "status", "approved", "selected_option", "comment", "context"}``
        (``session["approvals"]``, written by attn when an answer resumes the item)."""
        answers = self.session.get("approvals")
        return dict(answers) if isinstance(answers, dict) else {}

    def stream(self, delta: str) -> None:
        """Send a piece of reply text to a streaming caller (and keep it as partial output)."""
        if self._attempt.live and not self._attempt.stream_closed:
            self._attempt.stream(delta)

    @property
    def cancelled(self) -> bool:
        """True once the work must stop at once (see :meth:`cancel_signal`)."""
        return self._attempt.cancelled.is_set()

    def cancel_signal(self) -> asyncio.Event:
        """An event set when this work must stop at once: a person's cancel (soft
        or hard), the tier 1 judge's cancel, the backstop or the agent stopping.

        A brain races a model stream against ``signal.wait()`` so the stream is
        aborted at once (000 §4 cancelActiveStream; LLM-04). Read it, never set it.
        """
        return self._attempt.cancelled

    def backstop_remaining_s(self) -> float:
        """Seconds until the backstop ends this attempt (0 when past; inf when unarmed)."""
        return max(0.0, self._attempt.backstop_at - self.clock.monotonic())

    def mail_signal(self) -> asyncio.Event:
        """An event set when mail arrives for the agent during this work, and
        cleared by the yield point that judges it.

        A brain busy with something long that it can abort (a model stream)
        may await it and reach :meth:`yield_point` meanwhile, so that a cancel
        decided there (the tier 1 judge's) stops the stream at once (LLM-04).
        Read it, never set it; never run two yield points at once.
        """
        return self._attempt.mail

    async def checkpoint(self) -> None:
        """Store :attr:`session` in the item row now, with the buffered log lines.

        Only while this attempt is live and its item processing (otherwise
        nothing is written). After a crash, restart recovery requeues the item
        with this session, so the next attempt continues from it: a brain that
        checkpoints after every step loses at most the step in flight (LLM-05).
        """
        if self._attempt.live:
            await self._attempt.checkpoint(self.session)

    def report_incomplete(self, reason: str) -> None:
        """Say that this answer is incomplete (a cut or refused model turn, the
        turn limit): the item completes without a retry, with one
        ``agent:incomplete`` event carrying the first reason given (000 §20)."""
        if self._attempt.live and self._attempt.incomplete is None:
            self._attempt.incomplete = str(reason)[:1000] or "incomplete"

    def report_tool_error(self, tool: str, error: str, message: str) -> None:
        """Make a tool's structured error visible: an ``agent:tool-error`` event
        ``{"mailboxItemId", "sourceType", "tool", "error", "message"}`` and an
        ``error`` activity log entry (000 §20)."""
        if self._attempt.live:
            self.log("error", f"tool {tool} failed: {error}: {message}", tool=tool, error=error)
            self._attempt.report(TOOL_ERROR, {"tool": tool, "error": error, "message": message})


class Brain(Protocol):
    """An agent's own work: called once per processing attempt."""

    def __call__(self, item: MailboxItem, focus: Focus) -> Awaitable[Reply | str | None]: ...


#: Called with each streamed text delta of a chat reply.
StreamListener = Callable[[str], None]
