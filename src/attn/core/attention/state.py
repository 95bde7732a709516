"""The state the parts of the attention controller share, and its state changes.

Holds the field declarations of :class:`~attn.core.attention.AttentionController`
(set up by its ``__init__``), the focus, the attention state
(idle, focused, deciding) with its events, and the context stored with each
decision.

Spec: 000 §4 (attention states); every stored decision carries its context
(CORE-11); DESIGN.md invariant 3.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any

from attn.clock import Clock, TimerHandle
from attn.core.attempt import Attempt
from attn.core.attention.judges import InterruptClassifier, InterruptJudge
from attn.core.config import AgentConfig
from attn.core.events import FOCUS_CHANGED, STATE_CHANGED, Event, EventBus
from attn.core.focus import Brain, Reply
from attn.core.heuristics import Verdict
from attn.core.mailbox import Mailbox
from attn.core.registry import TypeRegistry
from attn.core.stimuli import completes_without_model
from attn.core.triage import Triage
from attn.models import AttentionState, MailboxItem


class ControllerState:
    """Fields and state changes shared by the parts of one agent's controller."""

    agent_id: str
    mailbox: Mailbox
    brain: Brain
    registry: TypeRegistry
    clock: Clock
    bus: EventBus
    config: AgentConfig
    judge: InterruptJudge
    #: Tier 1: asked when the heuristics say continue (000 §21).
    classifier: InterruptClassifier | None
    triage: Triage
    state: AttentionState
    running: bool
    paused: bool
    #: The drain task, while one runs.
    _task: asyncio.Task[None] | None
    _attempt: Attempt | None
    #: Items that arrived during the current attempt, for its next yield point.
    _arrivals: list[MailboxItem]
    #: Preempted item id → (that item, the item that preempted it): the
    #: preempted work stays deferred until that item has been picked (CORE-72).
    _preempted_by: dict[str, tuple[MailboxItem, MailboxItem]]
    #: The tier 1 classification in flight at a yield point; a person's arrival cancels it.
    _classifying: asyncio.Task[Verdict] | None
    #: Brain tasks of ended attempts that have not finished yet.
    _orphans: set[asyncio.Task[Any]]
    _reply_waiters: dict[str, asyncio.Future[Reply]]
    _stream_listeners: dict[str, Callable[[str], None]]
    #: item id → (activity id, log seq) of activities not ended yet.
    _activities: dict[str, tuple[str, int]]
    #: Resurface timer of the earliest timed deferred item, while idle.
    _timer: TimerHandle | None
    #: Submitted write-behind commits, oldest first.
    _pending: deque[asyncio.Future[Any]]
    _announced_focus: str | None
    _uses_marker: bool

    @property
    def focus_item(self) -> MailboxItem | None:
        """The item being processed, or None when idle."""
        attempt = self._attempt
        return attempt.item if attempt is not None else None

    # ------------------------------------------------ focus, state and events

    def _completes_without_model(self, item: MailboxItem) -> bool:
        """True when ``item`` will complete without a brain call (000 §23): every
        stimulus it carries is informational (CORE-70) and the agent auto-completes them."""
        return self.config.auto_complete_informational and completes_without_model(
            item, self.registry
        )

    def _focus_id(self) -> str | None:
        return self._attempt.item.id if self._attempt is not None else None

    def _context(
        self, item: MailboxItem, arrival: MailboxItem | None = None, rule: str | None = None
    ) -> dict[str, Any]:
        context: dict[str, Any] = {
            "currentFocusId": self._focus_id(),
            "itemPriority": item.priority,
            "queueDepth": self.mailbox.depth,
            "queuedTypes": self.mailbox.queued_types(),
        }
        if arrival is not None:
            context["arrivalId"] = arrival.id
            context["arrivalType"] = arrival.source_type
        if rule is not None:
            context["rule"] = rule
        return context

    def _set_state(self, state: AttentionState, *, new_focus: bool = False) -> None:
        """Change state; ``new_focus`` announces a new focus even when the state
        stays focused (a chat picked right after the work it preempted)."""
        if state == self.state and not new_focus:
            return
        self.state = state
        if self.bus.active:
            focus = self.focus_item
            focus_dict = focus.to_dict() if focus is not None else None
            self._emit(STATE_CHANGED, {"state": str(state), "currentFocus": focus_dict})
            focus_id = focus.id if focus is not None else None
            if state != AttentionState.DECIDING and focus_id != self._announced_focus:
                self._announced_focus = focus_id
                self._emit(
                    FOCUS_CHANGED, {"currentFocus": focus_dict, "queueDepth": self.mailbox.depth}
                )

    def _emit(self, event_type: str, data: dict[str, Any]) -> None:
        self.bus.emit(Event(event_type, self.agent_id, data, self.clock.now()))
