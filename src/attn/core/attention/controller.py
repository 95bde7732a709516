"""The :class:`AttentionController` of one agent and its controls: start, stop,
pause, resume, cancel, replies, close.

The controller owns one :class:`~attn.core.attention.state.ControllerState`
and hands it to the functions of the loop (``loop``), the outcomes
(``outcomes``), the conversation merges (``merging``) and the yield points
(``yields``); attempts call it back through
:class:`~attn.core.attention.attempt.AttemptHost`.

Spec: 000 §4 (states, stop/pause, cancel); DESIGN.md invariants 3–6, 9.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from attn.clock import Clock
from attn.config import AgentConfig
from attn.core.attention import loop, outcomes, writes, yields
from attn.core.attention.attempt import Attempt, Interrupt
from attn.core.attention.ended import EndHook
from attn.core.attention.gate import TurnGate
from attn.core.attention.interrupts import InterruptClassifier, InterruptRules
from attn.core.attention.state import ControllerState, emit, focus_id, focus_item
from attn.core.deliberation import Deliberator
from attn.core.events import EventBus
from attn.core.focus import Brain, Reply, YieldDecision
from attn.core.heuristics import HeuristicRules, conversation_keys
from attn.core.mailbox import Mailbox
from attn.core.registry import TypeRegistry
from attn.core.triage import Triage
from attn.errors import ReplyCancelled
from attn.models import AttentionState, MailboxItem


class AttentionController:
    """Runs one agent's attention loop over its :class:`Mailbox`.

    Args:
        mailbox: the agent's mailbox (the controller subscribes to its arrivals).
        brain: the agent's work, called once per attempt.
        registry, clock, bus, config: shared services and settings.
        rules: the tier 0 interrupt rules; defaults to the heuristic table.
        deliberator: triage's tier 2 (000 §21), if any.
        classifier: tier 1, the interrupt judge asked when the rules say continue.
    """

    __slots__ = (
        "_s",
        "agent_id",
        "config",
        "mailbox",
        "registry",
        "triage",
    )

    def __init__(
        self,
        mailbox: Mailbox,
        brain: Brain,
        registry: TypeRegistry,
        clock: Clock,
        bus: EventBus,
        config: AgentConfig,
        rules: InterruptRules | None = None,
        deliberator: Deliberator | None = None,
        classifier: InterruptClassifier | None = None,
    ) -> None:
        self.agent_id = mailbox.agent_id
        self.mailbox = mailbox
        self.registry = registry
        self.config = config
        self.triage = Triage(mailbox, registry, clock, config, deliberator)
        self._s = ControllerState(
            agent_id=mailbox.agent_id,
            host=self,
            mailbox=mailbox,
            brain=brain,
            registry=registry,
            clock=clock,
            bus=bus,
            config=config,
            rules=rules or HeuristicRules(registry),
            classifier=classifier,
            triage=self.triage,
            uses_marker=bool(getattr(brain, "uses_completion_marker", False)),
        )
        # Bound methods, not closures: an idle agent should stay small (benchmarks/core.py).
        mailbox.set_hooks(
            on_new_item=self._on_new_item,
            focus_id=self._focus_id,
            focus_item=self._focus_item,
        )
        mailbox.queue.set_conversation_keys(conversation_keys)

    def _on_new_item(self, item: MailboxItem) -> None:
        loop.on_new_item(self._s, item)

    def _focus_id(self) -> str | None:
        return focus_id(self._s)

    def _focus_item(self) -> MailboxItem | None:
        return focus_item(self._s)

    # ------------------------------------------------------------- reading

    @property
    def clock(self) -> Clock:
        """The runtime's clock."""
        return self._s.clock

    @property
    def brain(self) -> Brain:
        """The agent's work, called once per attempt (replaceable between attempts)."""
        return self._s.brain

    @brain.setter
    def brain(self, brain: Brain) -> None:
        self._s.brain = brain

    @property
    def rules(self) -> InterruptRules:
        """The tier 0 interrupt rules."""
        return self._s.rules

    @property
    def state(self) -> AttentionState:
        """idle, focused or deciding (000 §4)."""
        return self._s.state

    @property
    def running(self) -> bool:
        """True between :meth:`start` and :meth:`stop`."""
        return self._s.running

    @property
    def paused(self) -> bool:
        """True after ``stop(pause=True)`` until :meth:`resume`."""
        return self._s.paused

    @property
    def busy(self) -> bool:
        """True while a drain task runs (items are being picked); False when idle."""
        return self._s.task is not None

    @property
    def focus_item(self) -> MailboxItem | None:
        """The item being processed, or None when idle."""
        return self._focus_item()

    # ------------------------------------------------------------ controls

    def start(self) -> None:
        """Run the loop (again); deferred and queued items are served."""
        self._s.running = True
        self._s.paused = False
        loop.kick(self._s)

    async def stop(self, *, pause: bool = False) -> None:
        """Stop (or pause) the loop; the in-flight item goes back to queued (invariant 6)."""
        if pause:
            self._s.paused = True
        else:
            self._s.running = False
            self._s.paused = False  # stopped, not paused: a stop ends a pause
        attempt = self._s.attempt
        if attempt is not None:
            attempt.end(Interrupt.STOPPED)
        await self.wait_idle()
        loop.cancel_timer(self._s)

    def resume(self) -> None:
        """Undo :meth:`stop` with ``pause=True``."""
        self.start()

    @property
    def gate(self) -> TurnGate | None:
        """The turn gate of a retained agent (seed 002), or None: every item is served."""
        return self._s.gate

    @gate.setter
    def gate(self, gate: TurnGate | None) -> None:
        self._s.gate = gate

    def add_end_hook(self, hook: EndHook) -> None:
        """Tell ``hook`` about every item a drain ends with; the write ops it answers
        commit in that item's terminal transaction (see :mod:`~attn.core.attention.ended`)."""
        self._s.end_hooks.append(hook)

    def wake(self) -> None:
        """Start a drain if the loop runs and none is running (a gate offered a slot)."""
        loop.kick(self._s)

    def cancel_processing(self, reason: str, *, hard: bool = False) -> str | None:
        """Ask the current work to stop for good (a person's cancel).

        The next yield point answers cancel (also for human chat), and the
        focus's cancel signal is set so an in-flight model stream is aborted
        at once (LLM-04); with ``hard`` the brain task is cancelled at once. The request is bound to
        the current item and never leaks onto the next one (CORE-30).

        Returns:
            The id of the item being cancelled, or None when idle.
        """
        attempt = self._s.attempt
        if attempt is None:
            return None
        attempt.cancel_request = reason
        attempt.quiet = False
        attempt.cancelled.set()  # the brain's model stream is aborted at once (LLM-04)
        if hard:
            attempt.end(Interrupt.CANCELLED)
        return attempt.item.id

    def expect_reply(
        self, item_id: str, listener: Callable[[str], None] | None = None
    ) -> asyncio.Future[Reply]:
        """A future resolved with the reply to ``item_id`` (or ReplyCancelled).

        Args:
            item_id: the item whose reply is awaited.
            listener: called with each streamed text delta of the reply.
        """
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._s.reply_waiters[item_id] = future
        if listener is not None:
            self._s.stream_listeners[item_id] = listener
        return future

    def forget_reply(self, item_id: str) -> None:
        """Stop waiting for the reply to ``item_id`` (its future is left as it is)."""
        self._s.reply_waiters.pop(item_id, None)
        self._s.stream_listeners.pop(item_id, None)

    async def wait_idle(self) -> None:
        """Return once no drain task runs (the queue is empty or the loop stopped)."""
        while (task := self._s.task) is not None:
            await asyncio.wait({task})

    async def close(self) -> None:
        """Stop, cancel orphaned attempts and fail every waiting caller (CORE-51)."""
        await self.stop()
        s = self._s
        for task in list(s.orphans):
            task.cancel()
        s.orphans.clear()
        outcomes.resolve(
            s,
            list(s.reply_waiters),
            error=ReplyCancelled(f"agent {self.agent_id!r} stopped before replying"),
        )

    # ------------------------------------------------ AttemptHost (attempts)

    async def yield_point(self, attempt: Attempt) -> YieldDecision:
        """Evaluate pending mail for ``attempt`` (called through :meth:`Focus.yield_point`)."""
        return await yields.yield_point(self._s, attempt)

    def flush_logs(self, attempt: Attempt) -> None:
        """Write ``attempt``'s buffered log lines now, write-behind (in commit order)."""
        writes.flush_logs(self._s, attempt)

    def arm_backstop(self, attempt: Attempt, *, awaiting_approval: bool = False) -> None:
        """(Re)start ``attempt``'s backstop from now: ``backstop_s``, or
        ``approval_backstop_s`` while a person's answer is awaited (000 §13.2)."""
        config = self.config
        backstop_s = config.approval_backstop_s if awaiting_approval else config.backstop_s
        loop.arm_backstop(self._s, attempt, backstop_s)

    async def checkpoint(self, attempt: Attempt, session: dict[str, Any]) -> None:
        """Store ``session`` in ``attempt``'s item row now, with its buffered logs (LLM-05)."""
        await writes.checkpoint(self._s, attempt, session)

    def report(self, attempt: Attempt, event_type: str, data: dict[str, Any]) -> None:
        """Emit ``event_type`` about ``attempt``'s item, while the attempt is live."""
        if attempt.live:
            item = attempt.item
            emit(
                self._s,
                event_type,
                {"mailboxItemId": item.id, "sourceType": item.source_type, **data},
            )
