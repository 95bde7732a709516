"""An agent: a name, a mailbox, an attention controller and a brain.

All outside code talks to an agent through its mailbox (000 §5): ``enqueue``
for fire-and-forget items, ``send_message`` for an awaited reply.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from attn.clock import Clock
from attn.config import AgentConfig
from attn.core.attention import AttentionController, InterruptClassifier, InterruptRules
from attn.core.deliberation import DeliberationResult, Deliberator
from attn.core.events import (
    AGENT_PAUSED,
    AGENT_RESUMED,
    AGENT_STARTED,
    AGENT_STOPPED,
    Event,
    EventBus,
)
from attn.core.focus import Brain, Focus, Reply
from attn.core.mailbox import Enqueued, Mailbox
from attn.core.recovery import RecoveryReport, recover
from attn.core.registry import TypeRegistry
from attn.core.working_memory import WorkingMemory
from attn.errors import (
    AgentNotRunning,
    InvalidInput,
)
from attn.models import AttentionState, MailboxItem
from attn.runtime import messages, mind, views
from attn.store.base import Store
from attn.time import Timekeeper
from attn.tools import CombinedToolset, MailboxToolset, TimeToolset


class Agent:
    """One hosted agent. Made by :meth:`attn.runtime.Runtime.add_agent`.

    Attributes:
        name: the agent's unique name (its id in the store).
        description: free text for people.
        mailbox: its :class:`~attn.core.mailbox.Mailbox`.
        controller: its :class:`~attn.core.attention.AttentionController`.
        recovery: what restart recovery did when the agent was added.
        working_memory: keyed notes shown in the brain's prompts (000 §21).
    """

    def __init__(
        self,
        name: str,
        brain: Brain,
        store: Store,
        registry: TypeRegistry,
        clock: Clock,
        runtime_bus: EventBus,
        config: AgentConfig,
        *,
        description: str = "",
        rules: InterruptRules | None = None,
        deliberator: Deliberator | None = None,
        classifier: InterruptClassifier | None = None,
        time: Timekeeper,
    ) -> None:
        self.name = name
        self.description = description
        self.config = config
        self.brain = brain
        self._store = store
        self._registry = registry
        self._clock = clock
        self._time = time
        self.bus = EventBus(parent=runtime_bus)
        self.mailbox = Mailbox(name, store, registry, clock, self.bus, config)
        self.controller = AttentionController(
            self.mailbox, brain, registry, clock, self.bus, config, rules, deliberator, classifier
        )
        self.recovery = RecoveryReport()
        self.working_memory = WorkingMemory(clock)
        self.controller.triage.subscribe(self.working_memory.remember_deliberation)

    def subscribe_triage(
        self, listener: Callable[[DeliberationResult], None]
    ) -> Callable[[], None]:
        """Call ``listener`` with every deliberation result this agent's triage applies.

        Returns:
            A function that unsubscribes ``listener``.
        """
        return self.controller.triage.subscribe(listener)

    def tools(self, session_id: str | None = None) -> CombinedToolset:
        """This agent's brain tools, mailbox and time (000 §21, §11.3); time results are
        delivered into ``session_id`` (None: into no session)."""
        return CombinedToolset(MailboxToolset(self), TimeToolset(self._time, self.name, session_id))

    def tools_for(self, focus: Focus) -> CombinedToolset:
        """The brain tools for the item this agent is working on: time results come
        back to its session (``metadata.sessionId``, else ``item:<id>``)."""
        item = focus.item
        session = item.metadata.get("sessionId")
        return self.tools(session if isinstance(session, str) else f"item:{item.id}")

    def wrap_brain(self, middleware: Callable[[Brain], Brain]) -> None:
        """Add a brain middleware: the loop calls ``middleware(brain)`` from the next item on.

        ``brain`` is the brain as wrapped so far (the first middleware gets
        :attr:`brain`, the agent's own, which stays unchanged). A middleware
        sees every brain call and may handle an item itself; the timekeeper
        uses this hook (:class:`~attn.time.brain.TimeBrain`).

        Args:
            middleware: called once, with the current brain; returns the new one.

        Raises:
            InvalidInput: ``middleware`` is not callable or returns a non-callable.
        """
        if not callable(middleware):
            raise InvalidInput(f"middleware must be callable, got {type(middleware).__name__}")
        wrapped = middleware(self.controller.brain)
        if not callable(wrapped):
            raise InvalidInput(f"middleware must return a brain, got {type(wrapped).__name__}")
        self.controller.brain = wrapped

    async def _open(self) -> None:
        self.recovery = await recover(
            self.mailbox, self._store, self._registry, self.config, self._clock.now()
        )

    @property
    def state(self) -> AttentionState:
        """idle, focused or deciding."""
        return self.controller.state

    @property
    def running(self) -> bool:
        return self.controller.running

    @property
    def paused(self) -> bool:
        return self.controller.paused

    @property
    def focus_item(self) -> MailboxItem | None:
        return self.controller.focus_item

    @property
    def depth(self) -> int:
        """Number of queued items."""
        return self.mailbox.depth

    async def enqueue(
        self,
        source_type: str,
        payload: object,
        priority: object = None,
        metadata: object = None,
        idempotency_key: object = None,
    ) -> str:
        """Put an item in this agent's mailbox; return its id once committed.

        Args:
            source_type: a registered type name, e.g. ``"a2a_message"``.
            payload: JSON object; ``content`` holds the text.
            priority: 0 (critical) .. 4 (background); None for the type's default.
            metadata: JSON object about the sender (``senderId``, ``senderRole``…).
            idempotency_key: names this request for good (per agent, across
                restarts): a repeat stores nothing and returns the first item's
                id (:meth:`enqueue_result` says it is a duplicate, and its state).

        Raises:
            UnknownItemType, InvalidPriority, InvalidInput, PayloadTooLarge,
            MailboxFull: the item is rejected and nothing changes.
        """
        item = await self.mailbox.enqueue(source_type, payload, priority, metadata, idempotency_key)
        return item.id

    async def enqueue_result(
        self,
        source_type: str,
        payload: object,
        priority: object = None,
        metadata: object = None,
        idempotency_key: object = None,
    ) -> Enqueued:
        """:meth:`enqueue`, answered with an :class:`~attn.core.mailbox.Enqueued`: for a
        repeated key ``duplicate`` is True and ``item`` is the first item as stored
        (``status``; ``reason`` when dropped). Raises what :meth:`enqueue` raises."""
        return await self.mailbox.enqueue_result(
            source_type, payload, priority, metadata, idempotency_key
        )

    async def send_message(
        self,
        text: str,
        *,
        sender_id: str = "user",
        sender_name: str | None = None,
        session_id: str | None = None,
        source_type: str = "human_chat",
        timeout_s: float | None = None,
        on_delta: Callable[[str], None] | None = None,
        metadata: dict[str, Any] | None = None,
        on_enqueued: Callable[[str], None] | None = None,
    ) -> Reply:
        """Send a message and wait for the reply (000 §5 ``sendMessage``).

        Args:
            text: the message; must not be blank.
            sender_id, sender_name, session_id: who sends it and in which session.
            source_type: ``human_chat`` (default) or another text type.
            timeout_s: seconds to wait for the reply; None waits until it comes.
            on_delta: called with each streamed piece of the reply.
            on_enqueued: called with the item id once the item is committed.

        Returns:
            The :class:`~attn.core.focus.Reply`.

        Raises:
            InvalidInput: blank text or bad arguments (nothing is enqueued).
            ReplyCancelled: the item was dropped, or the agent or runtime stopped.
            ReplyTimeout: no reply within ``timeout_s``; the item stays in the
                mailbox and ``error.item_id`` names it.
        """
        return await messages.send_message(
            self.mailbox,
            self.controller,
            self._clock,
            text,
            sender_id=sender_id,
            sender_name=sender_name,
            session_id=session_id,
            source_type=source_type,
            timeout_s=timeout_s,
            on_delta=on_delta,
            metadata=metadata,
            on_enqueued=on_enqueued,
        )

    def start(self) -> None:
        """Start (or restart) the attention loop."""
        was_running = self.running
        self.controller.start()
        if not was_running:
            self._emit(AGENT_STARTED)

    async def stop(self) -> None:
        """Stop the loop; in-flight work is requeued, deferred items stay deferred."""
        await self.controller.stop()
        self._emit(AGENT_STOPPED)

    async def pause(self) -> None:
        """Pause like :meth:`stop`; :meth:`resume` continues."""
        await self.controller.stop(pause=True)
        self._emit(AGENT_PAUSED)

    async def resume(self) -> None:
        self.controller.resume()
        self._emit(AGENT_RESUMED)

    async def cancel_processing(
        self, reason: str = "cancelled by user", *, hard: bool = False
    ) -> str | None:
        """Cancel the current work (a person's decision); see
        :meth:`AttentionController.cancel_processing`. Returns the item id or None."""
        if not self.running:
            raise AgentNotRunning(f"agent {self.name!r} is stopped")
        return self.controller.cancel_processing(reason, hard=hard)

    async def close(self) -> None:
        """Stop for good and fail every waiting caller with ReplyCancelled.

        Later enqueues and messages raise :class:`~attn.errors.UnknownAgent`.
        A brain with an ``async aclose()`` (the LLM brain's model client) is closed.
        """
        self.mailbox.close()
        await self.controller.close()
        close = getattr(self.brain, "aclose", None)
        if close is not None and inspect.iscoroutinefunction(close):
            await close()  # a model brain's HTTP client (LLMBrain.aclose)

    async def wait_idle(self) -> None:
        await self.controller.wait_idle()

    async def mind(self) -> dict[str, Any]:
        """The Agent Mind snapshot (000 §5 ``/mind``; acceptance SRV-01).

        Keys: ``agentId``, ``description``, ``state``, ``running``, ``paused``,
        ``currentFocus`` (the item, plus its ``label`` and ``taskId``; None
        when idle), ``queue`` (claim order), ``queueDepth``, ``deferred``,
        ``deferredCount``, ``recentDecisions`` (the last 10, newest first) and
        ``lastTriage`` (``{"at", "deliberation"}`` of the last deliberation, or None);
        see :func:`attn.runtime.mind.mind`.
        """
        return await mind.mind(
            self.name, self.description, self.controller, self.mailbox, self._registry
        )

    async def mailbox_timeline(
        self,
        types: list[str] | None = None,
        category: str | None = None,
        statuses: list[str] | None = None,
        limit: int = views.DEFAULT_ITEM_PAGE,
        offset: int = 0,
        cursor: str | None = None,
    ) -> dict[str, Any]:
        """The enriched mailbox timeline (000 §5; acceptance SRV-02), read in one
        store snapshot: ``queued`` (claim order, at most 1,000), ``queueDepth``,
        ``countsByStatus`` and ``countsByType`` (all the agent's items, not just
        this page), ``history`` with each item's decisions and activity summary,
        newest first, ``total`` (history items matching the filters) and
        ``nextCursor`` (None on the last page).

        Without a status filter, ``history`` holds every item that is not
        queued (queued items are listed in ``queued``). Every item is in one of
        the two, also the one being claimed right then.

        Args:
            types, category, statuses: filters (source types, a category, statuses).
            limit: page size, 1..1000; a page also ends after about 4 MB of JSON.
            offset: items to skip (old clients; ``cursor`` does not repeat items).
            cursor: the ``nextCursor`` of the previous page.

        Raises:
            InvalidInput: unknown status or category, limit/offset out of range
                (limit 1..1000, offset 0..10⁹), a malformed cursor, or both cursor
                and offset. UnknownItemType: unknown type.
        """
        return await views.mailbox_timeline(
            self._store, self._registry, self.name, types, category, statuses, limit, offset, cursor
        )

    async def decisions(self, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]:
        """This agent's decisions, newest first (see :meth:`decision_page` for a cursor).

        Raises:
            InvalidInput: limit outside 1..1000 or offset outside 0..10⁹.
        """
        views.check_page(limit, offset)
        return [
            d.to_dict() for d in await self._store.find_decisions(self.name, None, limit, offset)
        ]

    async def decision_page(
        self, limit: int = views.DEFAULT_DECISION_PAGE, offset: int = 0, cursor: str | None = None
    ) -> dict[str, Any]:
        """One page of the decision timeline, newest first: ``decisions`` and
        ``nextCursor`` (pass it as ``cursor`` for the next page; None on the last).

        Raises:
            InvalidInput: limit outside 1..1000, offset outside 0..10⁹, a malformed
                cursor, or both cursor and offset.
        """
        return await views.decision_page(self._store, self.name, limit, offset, cursor)

    async def activity_logs(self, activity_id: str) -> list[dict[str, Any]]:
        """Every log entry of one of this agent's activities, in order (see
        :meth:`activity_log_page` for a bounded page).

        Raises:
            ActivityNotFound: no activity has that id, or it is another agent's.
        """
        checked = await views.require_activity(self._store, self.name, activity_id)
        return [entry.to_dict() for entry in await self._store.find_activity_logs(checked)]

    async def activity_log_page(
        self, activity_id: str, limit: int = views.DEFAULT_LOG_PAGE, cursor: str | None = None
    ) -> dict[str, Any]:
        """One page of an activity's log entries in sequence order: ``logs`` and
        ``nextCursor``. Content over 1,000,000 characters is cut (``truncated``,
        ``contentChars``); a page also ends after about 4 MB of JSON.

        Raises:
            ActivityNotFound: no activity has that id, or it is another agent's.
            InvalidInput: limit outside 1..1000 or a malformed cursor.
        """
        return await views.activity_log_page(self._store, self.name, activity_id, limit, cursor)

    def statistics(self) -> dict[str, Any]:
        """Depth, state and lifetime counters, with camelCase keys (as the API shows them)."""
        counters = {_camel(k): v for k, v in self.mailbox.statistics().items()}
        return {"agentId": self.name, "state": str(self.state), **counters}

    def _emit(self, event_type: str) -> None:
        if self.bus.active:
            self.bus.emit(Event(event_type, self.name, {"agentId": self.name}, self._clock.now()))


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


__all__ = ["Agent"]
