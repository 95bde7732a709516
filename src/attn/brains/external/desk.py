"""The claim desk of one external agent: its client claims the loop's pick and acknowledges it.

An external agent (``brain = "external"``) thinks in its client (Claude Code,
Codex, any MCP client), yet keeps attn's mailbox, attention loop, decisions and
backstop. Its loop starts a turn only while a claim waits (the desk's
:class:`ExternalGate`), so the item a claim gets is the loop's own pick: people
first, then priority and arrival, after triage, merges and the burst window.
That pick is the agent's focus until the client acknowledges it (completed,
with the reply text, tokens and tool calls it reports), a person or the
backstop ends it, or mail interrupts it. Interrupts reach the client as
:class:`Notice` s with its next tool call (MCP-06).

Spec: issue 17 point 2 (external agents); acceptance MCP-02, MCP-03, MCP-06.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any, Protocol

from attn.brains.external.claim import Claim, Notice
from attn.brains.external.gate import ExternalGate
from attn.core.attention.gate import Settlement
from attn.core.focus import Focus, Reply, YieldAction
from attn.errors import AgentNotRunning, InvalidInput, ItemNotClaimed, ItemNotFound, NotNext
from attn.limits import check_int, check_seconds
from attn.models import ItemStatus, MailboxItem

#: Longest a claim or a wait may block, in seconds (below the hosts' 60 s tool limits).
MAX_WAIT_S = 50.0
#: How long a claim waits for the loop's pick when mail is queued, in seconds: the
#: burst window and triage run first (000 §4), so the pick is not instant.
PICK_GRACE_S = 10.0
#: Notices kept for a client that calls no tool (the oldest go first).
MAX_NOTICES = 100
#: The longest reply one acknowledgement gives (streamed parts included), in characters.
MAX_REPLY_CHARS = 100_000
#: Most tokens or tool calls one acknowledgement may report.
MAX_USAGE = 10**12


class DeskHost(Protocol):
    """What the desk needs of its agent (``attn.runtime.Agent``)."""

    name: str

    @property
    def running(self) -> bool: ...

    @property
    def paused(self) -> bool: ...

    def wake(self) -> None:
        """Start a drain if none runs (the gate admits a waiting claim)."""
        ...

    def queued_items(self) -> list[MailboxItem]:
        """The queue in claim order."""
        ...

    def due_items(self) -> list[MailboxItem]:
        """Deferred items whose time has come (the next pick queues them again)."""
        ...


class ClaimDesk:
    """Claims, acknowledgements and interrupt notices of one external agent.

    Args:
        host: the agent (set by :meth:`bind`, before its loop starts).
    """

    def __init__(self) -> None:
        self._host: DeskHost | None = None
        self._waiters: deque[asyncio.Future[Claim]] = deque()
        self._claim: Claim | None = None
        self._ended: dict[str, str] = {}  # item id → why it is no longer the focus
        self._notices: deque[Notice] = deque(maxlen=MAX_NOTICES)
        self.gate = ExternalGate(self)

    def bind(self, host: DeskHost) -> None:
        """Serve ``host``'s claims (its controller's gate must be :attr:`gate`)."""
        self._host = host

    @property
    def host(self) -> DeskHost:
        if self._host is None:
            raise RuntimeError("the claim desk is not bound to an agent")
        return self._host

    @property
    def current(self) -> Claim | None:
        """The focus, claimed or waiting for a claim; None when the agent holds none."""
        return self._claim

    @property
    def waiting(self) -> int:
        """Claims waiting for the loop's pick."""
        return sum(1 for w in self._waiters if not w.done())

    # ------------------------------------------------------------ the client

    async def claim(self, item_id: object = None, *, wait_s: object = 0.0) -> Claim | None:
        """Make the loop's next pick the agent's focus, and return it.

        Holding a focus already, the same focus is returned (one thing at a
        time). With mail queued the claim waits for the pick (the burst window
        and triage come first), up to ``max(wait_s, PICK_GRACE_S)``; with none,
        up to ``wait_s`` for mail to arrive.

        Args:
            item_id: claim this item; it must be the one the attention rules
                pick next (``NotNext`` names that one otherwise). None: the next.
            wait_s: seconds to wait for mail, 0..50.

        Returns:
            The :class:`Claim`, or None when nothing came within the wait.

        Raises:
            InvalidInput: a bad ``wait_s`` or ``item_id``. AgentNotRunning: the
            agent is stopped or paused. ItemNotFound: no queued item of this
            agent has that id. NotNext: another item comes first.
        """
        wait = check_seconds(wait_s, "wait_s", min_s=0.0, max_s=MAX_WAIT_S)
        wanted = _item_id(item_id)
        host = self.host
        if not host.running or host.paused:
            raise AgentNotRunning(
                f"agent {host.name!r} is stopped or paused: it claims nothing now"
            )
        current = self._claim
        if current is not None and current.answer.done():
            await asyncio.shield(current.settled)  # being acknowledged: claim after it
            current = self._claim
        if current is not None and (wanted is None or wanted == current.item.id):
            current.claimed = True
            return current
        queue = host.queued_items()
        if wanted is not None:
            _check_next(wanted, queue, current)
        limit = max(wait, PICK_GRACE_S) if queue or host.due_items() else wait
        if limit == 0:
            return None
        waiter: asyncio.Future[Claim] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        host.wake()
        claim: Claim | None
        try:
            claim = await asyncio.wait_for(asyncio.shield(waiter), limit)
        except TimeoutError:
            claim = waiter.result() if waiter.done() and not waiter.cancelled() else None
        finally:
            if not waiter.done():
                waiter.cancel()
            if waiter in self._waiters:
                self._waiters.remove(waiter)
        if claim is not None:
            claim.claimed = True
        return claim

    async def ack(
        self,
        item_id: object,
        *,
        reply: object = None,
        tokens: object = 0,
        tool_calls: object = 0,
        data: object = None,
    ) -> MailboxItem:
        """Complete the claimed item, as a brain's return would.

        Args:
            item_id: the claimed item.
            reply: the reply text (a chat's answer, a message's answer back); None: none.
            tokens: model tokens the client spent on it (0..10^12).
            tool_calls: tool calls the client made for it (0..10^12).
            data: a JSON object kept as the reply's data; None: ``{}``.

        Returns:
            The item once its terminal transaction is durable (status completed).

        Raises:
            InvalidInput: a bad argument (nothing changes). ItemNotClaimed: the
            item is not the focus (the message says what became of it).
        """
        claim = self._claimed(item_id)
        text = "" if reply is None else reply
        if not isinstance(text, str):
            raise InvalidInput(f"reply must be text, got {type(text).__name__}")
        if len(text) > MAX_REPLY_CHARS:
            raise InvalidInput(f"reply is longer than {MAX_REPLY_CHARS:,} characters")
        spent = check_int(tokens, "tokens", low=0, high=MAX_USAGE)
        calls = check_int(tool_calls, "tool_calls", low=0, high=MAX_USAGE)
        if data is not None and not isinstance(data, dict):
            raise InvalidInput(f"data must be a JSON object, got {type(data).__name__}")
        if claim.answer.done():
            raise ItemNotClaimed(f"item {claim.item.id} is being acknowledged already")
        claim.focus.report_usage(tokens=spent, tools=calls)
        text = text or "".join(claim.streamed)  # what reply streamed stays the answer
        # No text is no reply: the item completes (an empty Reply reads as a failed turn).
        answer = Reply(text, claim.item.id, data=dict(data or {})) if text else None
        claim.answer.set_result(answer)
        return await asyncio.shield(claim.settled)

    def reply(self, item_id: object, text: object) -> None:
        """Pass ``text`` on to whoever awaits the focus's reply (a chat streams it)
        while the item stays claimed; the text counts as partial output.

        Raises:
            InvalidInput: empty or non-text ``text``. ItemNotClaimed: not the focus.
        """
        claim = self._claimed(item_id)
        if not isinstance(text, str) or not text:
            raise InvalidInput("text must be a non-empty string")
        if len(text) > MAX_REPLY_CHARS or sum(map(len, claim.streamed)) > MAX_REPLY_CHARS:
            raise InvalidInput(f"a reply is at most {MAX_REPLY_CHARS:,} characters in all")
        claim.streamed.append(text)
        claim.focus.stream(text)

    async def end_if_parked(self) -> bool:
        """End the focus's turn when it asked a person (``request_user_approval``
        parked it): the loop parks the item and serves other mail; the answer
        queues it again (000 §13.2). Returns True, once the item is stored
        parked, when it did."""
        claim = self._claim
        if claim is None or not claim.focus.parking or claim.answer.done():
            return False
        claim.answer.set_result(None)
        await asyncio.shield(claim.settled)
        return True

    def touch(self) -> None:
        """The client is alive (it called a tool): its claim's backstop starts again."""
        claim = self._claim
        if claim is not None and claim.claimed and not claim.answer.done():
            claim.focus.renew_backstop()

    def notices(self) -> list[Notice]:
        """The interrupt notices since the last call, oldest first (then forgotten)."""
        taken = list(self._notices)
        self._notices.clear()
        return taken

    def ended(self, item_id: str) -> str | None:
        """Why ``item_id`` stopped being the focus, if it was one recently."""
        return self._ended.get(item_id)

    def _claimed(self, item_id: object) -> Claim:
        wanted = _item_id(item_id)
        if wanted is None:
            raise InvalidInput("item_id is required")
        claim = self._claim
        if claim is None or claim.item.id != wanted:
            why = self._ended.get(wanted)
            held = f"; the focus is {claim.item.id}" if claim is not None else ""
            raise ItemNotClaimed(
                f"item {wanted} is not your claimed focus"
                + (f": {why}" if why else " (claim it first)")
                + held
            )
        return claim

    # ------------------------------------------------------------ the loop

    async def serve(self, item: MailboxItem, focus: Focus) -> Reply | None:
        """The external brain: hand the pick to a claim and wait for its end."""
        claim = Claim(item, focus)
        self._claim = claim
        self._ended.pop(item.id, None)
        while self._waiters:  # every waiting claim gets it: the agent has one focus
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(claim)
        cancelled = focus.cancel_signal()
        mail = focus.mail_signal()
        try:
            while not claim.answer.done():
                if cancelled.is_set():
                    # A person's soft cancel is told at a yield point, which records it.
                    decision = await focus.yield_point()
                    if decision.action == YieldAction.CANCEL and focus.live:
                        self._notice("cancel", claim, decision.reason)
                    else:
                        self._ended_by_signal(claim)
                    return None
                if mail.is_set():
                    decision = await focus.yield_point()
                    if decision.action == YieldAction.MERGE:
                        claim.merged.extend(decision.merged)
                        self._notice("merge", claim, decision.reason, decision.merged)
                    elif decision.stop:
                        action = "preempt" if decision.action == YieldAction.PREEMPT else "cancel"
                        self._notice(action, claim, decision.reason, decision.arrived)
                        return None
                    continue
                await _first(claim.answer, cancelled, mail)
        except asyncio.CancelledError:  # the backstop, a hard cancel, the agent stopping
            self._ended_by_signal(claim)
            raise
        return claim.answer.result()

    def _ended_by_signal(self, claim: Claim) -> None:
        if claim.focus.backstop_remaining_s() == 0:
            self._notice("timeout", claim, "the backstop ended it: no acknowledgement in time")
        else:
            self._notice("cancel", claim, "a person cancelled it, or the agent stopped")

    def _notice(
        self, action: str, claim: Claim, reason: str, items: tuple[MailboxItem, ...] = ()
    ) -> None:
        self._notices.append(Notice(action, claim.item.id, reason, tuple(items)))

    def settled(self, settlement: Settlement) -> None:
        """The focus's terminal transaction is durable: the agent holds no focus."""
        claim = self._claim
        if claim is None or claim.item.id != settlement.item.id:
            return
        self._claim = None
        item = settlement.item
        if item.status == ItemStatus.COMPLETED and claim.answer.done():
            self._ended[item.id] = "it is completed (acknowledged)"
        else:
            self._ended[item.id] = f"it is {item.status} now ({item.reason or 'no reason given'})"
        while len(self._ended) > MAX_NOTICES:
            self._ended.pop(next(iter(self._ended)))
        if not claim.settled.done():
            claim.settled.set_result(item)
        if not claim.answer.done():
            claim.answer.cancel()
        if self.waiting:
            self.host.wake()


def _item_id(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value or len(value) > 200:
        raise InvalidInput(f"item_id must be an item's id, got {value!r:.80}")
    return value


def _check_next(wanted: str, queue: list[MailboxItem], current: Claim | None) -> None:
    if current is not None:
        raise NotNext(f"your focus is {current.item.id}: acknowledge it before claiming {wanted}")
    if all(i.id != wanted for i in queue):
        raise ItemNotFound(f"no queued item {wanted} in this agent's mailbox")
    head = queue[0]
    if head.id != wanted:
        raise NotNext(
            f"{head.id} ({head.source_type}, priority {head.priority}) comes first by the"
            " attention rules: claim it, or claim without an item id"
        )


async def _first(answer: asyncio.Future[Reply | None], *events: asyncio.Event) -> None:
    """Wait until ``answer`` is done or one of ``events`` is set."""
    waits = [asyncio.ensure_future(e.wait()) for e in events]
    pending: list[asyncio.Future[Any]] = [answer, *waits]
    try:
        await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in waits:
            task.cancel()


__all__ = ["MAX_WAIT_S", "PICK_GRACE_S", "ClaimDesk", "DeskHost"]
