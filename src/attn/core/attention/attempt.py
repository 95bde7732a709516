"""One processing attempt of one item: its brain task, buffers and outcome.

The attempt's generation guard is :attr:`Attempt.live`: when the backstop
fires, the agent stops or a person hard-cancels, the attempt is ended and
everything its brain does afterwards (logs, stream, reply) is discarded.

An :class:`Attempt` is the :class:`~attn.core.focus.AttemptHandle` its
:class:`~attn.core.focus.Focus` works through; it reaches its controller only
through the :class:`AttemptHost` interface.

Spec: 000 §4 (backstop, yield points), §6.3 (activity logs).
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol

from attn.clock import Clock, TimerHandle
from attn.core.focus import StreamListener, YieldDecision
from attn.core.turns import LoopTurns
from attn.models import ActivityLog, LogType, MailboxItem

#: Buffered log lines that make an attempt write them before its next commit.
FLUSH_LOGS = 500
#: Most activity log lines one attempt stores.
MAX_ATTEMPT_LOGS = 100_000


class Interrupt(StrEnum):
    """Why an attempt ended before its brain returned."""

    TIMEOUT = "timeout"
    STOPPED = "stopped"
    CANCELLED = "cancelled"


class AttemptHost(Protocol):
    """What an attempt asks of the controller that owns it (the attention controller)."""

    @property
    def clock(self) -> Clock:
        """The runtime's clock."""
        ...

    async def yield_point(self, attempt: Attempt) -> YieldDecision:
        """Decide about the mail that arrived during ``attempt``."""
        ...

    def flush_logs(self, attempt: Attempt) -> None:
        """Write ``attempt``'s buffered log lines now."""
        ...

    def arm_backstop(self, attempt: Attempt, *, awaiting_approval: bool = False) -> None:
        """(Re)start ``attempt``'s backstop; longer while a person's answer is awaited."""
        ...

    async def checkpoint(self, attempt: Attempt, session: dict[str, Any]) -> None:
        """Store ``session`` in ``attempt``'s item row now, with the buffered log lines."""
        ...

    def report(self, attempt: Attempt, event_type: str, data: dict[str, Any]) -> None:
        """Emit an event about ``attempt``'s item (``agent:tool-error``) on the agent's bus."""
        ...


class Attempt:
    """State of one brain call. Owned by the attention controller.

    Args:
        host: the controller that owns the attempt.
        item: the item in focus (status processing).
        resumed: True when the attempt continues earlier preempted or stopped work.
        activity_id: the item's activity (None: it has none).
        log_seq: the activity's last log ``seq`` so far.
    """

    __slots__ = (
        "activity_id",
        "backstop",
        "backstop_at",
        "batch_context",
        "called",
        "cancel_request",
        "cancelled",
        "clock",
        "early",
        "final",
        "held",
        "host",
        "incomplete",
        "interrupt",
        "item",
        "live",
        "log_seq",
        "logged",
        "logs",
        "mail",
        "merged_ids",
        "parked_on",
        "partial",
        "quiet",
        "reply",
        "resumed",
        "siblings",
        "stopper",
        "stream_closed",
        "stream_listener",
        "task",
        "tokens",
        "tools",
        "turns",
        "waiter",
    )

    def __init__(
        self,
        host: AttemptHost,
        item: MailboxItem,
        resumed: bool,
        activity_id: str | None,
        log_seq: int,
    ) -> None:
        self.host = host
        #: The runtime's clock: brains sleep with ``await focus.clock.sleep(s)``.
        self.clock = host.clock
        self.item = item
        self.resumed = resumed
        self.activity_id = activity_id
        self.live = True
        #: True while nothing is pending: yield points answer continue at once.
        self.quiet = True
        #: The yield decision that ended the work (preempt or cancel), once made.
        self.final: YieldDecision | None = None
        self.cancel_request: str | None = None
        #: Set once the work must stop at once (a cancel, the backstop, a stop):
        #: the brain races its model stream against it (LLM-04).
        self.cancelled = asyncio.Event()
        #: Set when mail arrives during the attempt, cleared by the yield point
        #: that takes it: a brain streaming a model turn judges it meanwhile.
        self.mail = asyncio.Event()
        #: Why the brain's answer is incomplete, when it said so (reported once).
        self.incomplete: str | None = None
        self.held: list[str] = []  # arrivals whose preempt a chat held back
        self.interrupt: Interrupt | None = None
        self.task: asyncio.Task[Any] | None = None
        self.waiter: asyncio.Future[None] | None = None
        self.backstop: TimerHandle | None = None
        #: When the backstop fires, on ``clock.monotonic()`` (inf: not armed).
        self.backstop_at = float("inf")
        self.logs: list[ActivityLog] = []
        #: The activity's last log ``seq``, continued across attempts (preempt, resume).
        self.log_seq = log_seq
        #: Log lines this attempt wrote (bounded by MAX_ATTEMPT_LOGS).
        self.logged = 0
        self.tokens = 0
        self.tools = 0
        self.merged_ids: list[str] = []
        #: Resumed work only: items queued in its conversations when it began;
        #: its first yield point may merge them (never preempts for them).
        self.early: list[MailboxItem] = []
        #: The arrival whose preempt or cancel ended this work, if any.
        self.stopper: MailboxItem | None = None
        #: Items processed together with this one (a deliberation's batch).
        self.siblings: list[MailboxItem] = []
        self.batch_context: str | None = None
        self.partial: list[str] = []
        self.stream_closed = False
        self.stream_listener: StreamListener | None = None
        self.turns = LoopTurns()
        #: True once the item was claimed for the brain (an informational item never is).
        self.called = False
        #: The final reply's text, once the attempt completed with one.
        self.reply: str | None = None
        #: Ids of the answers (approvals) this work parks on when the brain returns.
        self.parked_on: list[str] = []

    def add_log(self, type: str, content: str, metadata: dict[str, Any]) -> None:
        """Buffer one activity log line; its ``seq`` continues the activity's sequence.

        Lines are written with the attempt's next commit, or at once when
        :data:`FLUSH_LOGS` are buffered (a brain that logs much between yield
        points); past :data:`MAX_ATTEMPT_LOGS` lines in one attempt, one line
        says so and the rest are not stored (a runaway brain cannot fill memory).
        """
        if self.activity_id is None or self.logged > MAX_ATTEMPT_LOGS:
            return
        self.logged += 1
        if self.logged > MAX_ATTEMPT_LOGS:
            type, content, metadata = (
                "error",
                (
                    f"activity log limit reached ({MAX_ATTEMPT_LOGS:,} lines in one attempt); "
                    "later lines of this attempt are not stored"
                ),
                {},
            )
        self.log_seq += 1
        self.logs.append(
            ActivityLog(
                self.activity_id,
                self.log_seq,
                LogType(type),
                content,
                self.clock.now(),
                metadata,
            )
        )
        if len(self.logs) >= FLUSH_LOGS:
            self.host.flush_logs(self)

    def take_logs(self) -> list[ActivityLog]:
        """Return the buffered log lines and clear the buffer."""
        logs, self.logs = self.logs, []
        return logs

    async def yield_point(self) -> YieldDecision:
        """Ask the controller about mail that arrived during this attempt."""
        return await self.host.yield_point(self)

    def arm_backstop(self, *, awaiting_approval: bool = False) -> None:
        """(Re)start the backstop from now (``approval_backstop_s`` while awaiting a person)."""
        self.host.arm_backstop(self, awaiting_approval=awaiting_approval)

    def stream(self, delta: str) -> None:
        """Keep ``delta`` as partial output and pass it to the streaming caller, if any."""
        self.partial.append(delta)
        if self.stream_listener is not None:
            self.stream_listener(delta)

    async def checkpoint(self, session: dict[str, Any]) -> None:
        """Store ``session`` in the item row now (see :meth:`Focus.checkpoint`)."""
        await self.host.checkpoint(self, session)

    def report(self, event_type: str, data: dict[str, Any]) -> None:
        """Emit an event about this attempt's item on the agent's bus."""
        self.host.report(self, event_type, data)

    def end(self, interrupt: Interrupt | None = None) -> None:
        """Wake the controller: the attempt is over (brain done or interrupted)."""
        if self.waiter is not None and self.waiter.done():
            return
        if interrupt is not None and self.interrupt is None:
            self.interrupt = interrupt
            self.live = False
            self.quiet = False
            self.cancelled.set()
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def started_at(self) -> datetime | None:
        """When the item was claimed for this attempt (UTC), if it was."""
        return self.item.started_at
