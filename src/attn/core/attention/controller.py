"""The :class:`AttentionController` of one agent, composed of the parts of this
package, and its controls: start, stop, pause, resume, cancel, replies, close.

Spec: 000 §4 (states, stop/pause, cancel); DESIGN.md invariants 3–6, 9.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from attn.clock import Clock
from attn.core.attempt import Interrupt
from attn.core.attention.interrupts import InterruptClassifier, InterruptRules
from attn.core.attention.loop import ControllerLoop
from attn.core.attention.yields import ControllerYields
from attn.core.config import AgentConfig
from attn.core.deliberation import Deliberator
from attn.core.events import EventBus
from attn.core.focus import Brain, Reply
from attn.core.heuristics import HeuristicRules, conversation_keys
from attn.core.mailbox import Mailbox
from attn.core.registry import TypeRegistry
from attn.core.triage import Triage
from attn.errors import ReplyCancelled
from attn.models import AttentionState


class AttentionController(ControllerLoop, ControllerYields):
    """Runs one agent's attention loop over its :class:`Mailbox`.

    Args:
        mailbox: the agent's mailbox (the controller subscribes to its arrivals).
        brain: the agent's work, called once per attempt.
        registry, clock, bus, config: shared services and settings.
        rules: the tier 0 interrupt rules; defaults to the heuristic table.
    """

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
        # The fields are declared, with their meaning, on ControllerState.
        self.agent_id = mailbox.agent_id
        self.mailbox = mailbox
        self.brain = brain
        self.registry = registry
        self.clock = clock
        self.bus = bus
        self.config = config
        self.rules = rules or HeuristicRules(registry)
        self.classifier = classifier
        self.triage = Triage(mailbox, registry, clock, config, deliberator)
        self.state = AttentionState.IDLE
        self.running = False
        self.paused = False
        self._task = None
        self._attempt = None
        self._arrivals = []
        self._preempted_by = {}
        self._classifying = None
        self._orphans = set()
        self._reply_waiters = {}
        self._stream_listeners = {}
        self._activities = {}
        self._timer = None
        self._pending = deque()
        self._announced_focus = None
        self._uses_marker = bool(getattr(brain, "uses_completion_marker", False))
        mailbox.set_hooks(
            on_new_item=self._on_new_item,
            focus_id=self._focus_id,
            focus_item=lambda: self.focus_item,
        )
        mailbox.queue.set_conversation_keys(conversation_keys)

    # ------------------------------------------------------------ public API

    @property
    def busy(self) -> bool:
        """True while a drain task runs (items are being picked); False when idle."""
        return self._task is not None

    def start(self) -> None:
        """Run the loop (again); deferred and queued items are served."""
        self.running = True
        self.paused = False
        self._kick()

    async def stop(self, *, pause: bool = False) -> None:
        """Stop (or pause) the loop; the in-flight item goes back to queued (invariant 6)."""
        if pause:
            self.paused = True
        else:
            self.running = False
        attempt = self._attempt
        if attempt is not None:
            attempt.end(Interrupt.STOPPED)
        await self.wait_idle()
        self._cancel_timer()

    def resume(self) -> None:
        """Undo :meth:`stop` with ``pause=True``."""
        self.start()

    def cancel_processing(self, reason: str, *, hard: bool = False) -> str | None:
        """Ask the current work to stop for good (a person's cancel).

        The next yield point answers cancel (also for human chat); with
        ``hard`` the brain task is cancelled at once. The request is bound to
        the current item and never leaks onto the next one (CORE-30).

        Returns:
            The id of the item being cancelled, or None when idle.
        """
        attempt = self._attempt
        if attempt is None:
            return None
        attempt.cancel_request = reason
        attempt.quiet = False
        if hard:
            attempt.end(Interrupt.CANCELLED)
        return attempt.item.id

    def expect_reply(
        self, item_id: str, listener: Callable[[str], None] | None = None
    ) -> asyncio.Future[Reply]:
        """A future resolved with the reply to ``item_id`` (or ReplyCancelled)."""
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._reply_waiters[item_id] = future
        if listener is not None:
            self._stream_listeners[item_id] = listener
        return future

    def forget_reply(self, item_id: str) -> None:
        self._reply_waiters.pop(item_id, None)
        self._stream_listeners.pop(item_id, None)

    async def wait_idle(self) -> None:
        """Return once no drain task runs (the queue is empty or the loop stopped)."""
        while (task := self._task) is not None:
            await asyncio.wait({task})

    async def close(self) -> None:
        """Stop, cancel orphaned attempts and fail every waiting caller (CORE-51)."""
        await self.stop()
        for task in list(self._orphans):
            task.cancel()
        self._orphans.clear()
        self._resolve(
            list(self._reply_waiters),
            error=ReplyCancelled(f"agent {self.agent_id!r} stopped before replying"),
        )
