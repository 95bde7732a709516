"""The state of one agent's attention loop, in one place, and its state changes.

:class:`ControllerState` holds everything the parts of the controller share:
the services it works with, the attempt in focus, the arrivals waiting for its
next yield point, the write-behind commits, the callers waiting for replies.
The controller creates it; the functions of ``loop``, ``outcomes``,
``merging`` and ``yields`` take it as their first argument. Below it are the
functions every part uses: the focus, the attention state (idle, focused,
deciding) with its events, and the context stored with each decision.

Spec: 000 §4 (attention states); every stored decision carries its context
(CORE-11); DESIGN.md invariant 3.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from attn.clock import Clock, TimerHandle
from attn.config import AgentConfig
from attn.core.attention.attempt import Attempt, AttemptHost
from attn.core.attention.ended import EndHook
from attn.core.attention.gate import TurnGate
from attn.core.attention.interrupts import InterruptClassifier, InterruptRules
from attn.core.events import FOCUS_CHANGED, STATE_CHANGED, Event, EventBus
from attn.core.focus import Brain, Reply
from attn.core.heuristics import Verdict
from attn.core.mailbox import Mailbox
from attn.core.registry import TypeRegistry
from attn.core.stimuli import completes_without_model
from attn.core.triage import Triage
from attn.models import AttentionState, MailboxItem


@dataclass(slots=True, eq=False)
class ControllerState:
    """The services and the mutable state of one agent's attention loop.

    Attributes:
        host: the controller, which attempts call back (yield points, logs, backstop).
        rules: tier 0, the interrupt rules (the heuristic table by default).
        classifier: tier 1, asked when the rules say continue (000 §21).
        task: the drain task, while one runs.
        attempt: the attempt in focus, or None.
        arrivals: items that arrived during the current attempt, for its next
            yield point.
        preempted_by: preempted item id → (that item, the item that preempted
            it): the preempted work stays deferred until that item has been
            picked (CORE-72).
        classifying: the tier 1 classification in flight at a yield point; a
            person's arrival cancels it.
        orphans: brain tasks of ended attempts that have not finished yet.
        activities: item id → (activity id, log seq) of activities not ended yet.
        timer: resurface timer of the earliest timed deferred item, while idle.
        pending: submitted write-behind commits, oldest first.
        uses_marker: the brain ends its replies with the completion marker (000 §20).
    """

    agent_id: str
    host: AttemptHost
    mailbox: Mailbox
    brain: Brain
    registry: TypeRegistry
    clock: Clock
    bus: EventBus
    config: AgentConfig
    rules: InterruptRules
    classifier: InterruptClassifier | None
    triage: Triage
    uses_marker: bool
    state: AttentionState = AttentionState.IDLE
    running: bool = False
    paused: bool = False
    task: asyncio.Task[None] | None = None
    attempt: Attempt | None = None
    arrivals: list[MailboxItem] = field(default_factory=list)
    preempted_by: dict[str, tuple[MailboxItem, MailboxItem]] = field(default_factory=dict)
    classifying: asyncio.Task[Verdict] | None = None
    orphans: set[asyncio.Task[Any]] = field(default_factory=set)
    reply_waiters: dict[str, asyncio.Future[Reply]] = field(default_factory=dict)
    stream_listeners: dict[str, Callable[[str], None]] = field(default_factory=dict)
    activities: dict[str, tuple[str, int]] = field(default_factory=dict)
    timer: TimerHandle | None = None
    pending: deque[asyncio.Future[Any]] = field(default_factory=deque)
    announced_focus: str | None = None
    #: A retained agent's turn gate (seed 002); None: every queued item is served.
    gate: TurnGate | None = None
    #: A drain was asked for while one ran (an arrival, a wake): the gate is asked again.
    again: bool = False
    #: Hooks told about every item a drain ends with; their ops join its transaction.
    end_hooks: list[EndHook] = field(default_factory=list)


def focus_item(s: ControllerState) -> MailboxItem | None:
    """The item being processed, or None when idle."""
    attempt = s.attempt
    return attempt.item if attempt is not None else None


def focus_id(s: ControllerState) -> str | None:
    """The id of the item being processed, or None when idle."""
    return s.attempt.item.id if s.attempt is not None else None


def completes_without_brain(s: ControllerState, item: MailboxItem) -> bool:
    """True when ``item`` will complete without a brain call (000 §23): every
    stimulus it carries is informational (CORE-70) and the agent auto-completes them."""
    return s.config.auto_complete_informational and completes_without_model(item, s.registry)


def decision_context(
    s: ControllerState,
    item: MailboxItem,
    arrival: MailboxItem | None = None,
    rule: str | None = None,
) -> dict[str, Any]:
    """The context stored with a decision about ``item`` (CORE-11)."""
    context: dict[str, Any] = {
        "currentFocusId": focus_id(s),
        "itemPriority": item.priority,
        "queueDepth": s.mailbox.depth,
        "queuedTypes": s.mailbox.queued_types(),
    }
    if arrival is not None:
        context["arrivalId"] = arrival.id
        context["arrivalType"] = arrival.source_type
    if rule is not None:
        context["rule"] = rule
    return context


def set_state(s: ControllerState, state: AttentionState, *, new_focus: bool = False) -> None:
    """Change state; ``new_focus`` announces a new focus even when the state
    stays focused (a chat picked right after the work it preempted)."""
    if state == s.state and not new_focus:
        return
    s.state = state
    if s.bus.active:
        focus = focus_item(s)
        focus_dict = focus.to_dict() if focus is not None else None
        emit(s, STATE_CHANGED, {"state": str(state), "currentFocus": focus_dict})
        new_id = focus.id if focus is not None else None
        if state != AttentionState.DECIDING and new_id != s.announced_focus:
            s.announced_focus = new_id
            emit(s, FOCUS_CHANGED, {"currentFocus": focus_dict, "queueDepth": s.mailbox.depth})


def emit(s: ControllerState, event_type: str, data: dict[str, Any]) -> None:
    """Emit one event of this agent on its bus, stamped now."""
    s.bus.emit(Event(event_type, s.agent_id, data, s.clock.now()))
