"""An agent: a name, a mailbox, an attention controller and a brain.

All outside code talks to an agent through its mailbox (000 §5): ``enqueue``
for fire-and-forget items, ``send_message`` for an awaited reply.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from attn.channels import Channels
from attn.clock import Clock
from attn.config import AgentConfig
from attn.core.attention import (
    AttentionController,
    EndHook,
    InterruptClassifier,
    InterruptRules,
    TurnGate,
)
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
from attn.filebox.service import Fileboxes
from attn.models import AttentionState, MailboxItem
from attn.people import People
from attn.runtime import agent_tools, messages, mind
from attn.runtime.agent_views import AgentViews
from attn.runtime.messages import log_status
from attn.store.base import Store
from attn.time import Timekeeper
from attn.tools import CombinedToolset, Toolset
from attn.tree import Tree


class Agent(AgentViews):
    """One hosted agent. Made by :meth:`attn.runtime.Runtime.add_agent`.

    Attributes:
        name: the agent's unique name (its id in the store).
        description: free text for people.
        mailbox: its :class:`~attn.core.mailbox.Mailbox`.
        controller: its :class:`~attn.core.attention.AttentionController`.
        recovery: what restart recovery did when the agent was added.
        working_memory: keyed notes shown in the brain's prompts (000 §21).

    An agent is the :class:`~attn.brains.llm.host.BrainHost` of its brain:
    :meth:`tools_for`, :meth:`queued_items`, :meth:`memories_for`.
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
        tools: tuple[Toolset, ...] = (),
        channels: Channels | None = None,
        tree: Tree | None = None,
        people: People | None = None,
        filebox: Fileboxes | None = None,
    ) -> None:
        self.name = name
        self.description = description
        self.config = config
        self.brain = brain
        self._store = store
        self._registry = registry
        self._clock = clock
        self._time = time
        self._user_tools = tools
        self._channels = channels
        self._people = people
        self._services = agent_tools.Services(tree, people, filebox, registry)
        self.bus = EventBus(parent=runtime_bus)
        self.mailbox = Mailbox(name, store, registry, clock, self.bus, config)
        self.controller = AttentionController(
            self.mailbox, brain, registry, clock, self.bus, config, rules, deliberator, classifier
        )
        self.recovery = RecoveryReport()
        self.working_memory = WorkingMemory(clock)
        self.controller.triage.subscribe(self.working_memory.remember_deliberation)
        self.controller.triage.subscribe(agent_tools.save_longterm(store, clock, name))

    def subscribe_triage(
        self, listener: Callable[[DeliberationResult], None]
    ) -> Callable[[], None]:
        """Call ``listener`` with every deliberation result this agent's triage applies.

        Returns:
            A function that unsubscribes ``listener``.
        """
        return self.controller.triage.subscribe(listener)

    def tools(self, session_id: str | None = None) -> CombinedToolset:
        """This agent's brain tools: mailbox, time, memory, channels, the spawn tree's
        and the user's (``tools=`` of :meth:`~attn.runtime.Runtime.add_agent`), in that
        order (000 §21, §11.3, §8, §11.2, seed 002); time results and awaited replies are
        delivered into ``session_id`` (None: time results into no session, replies into
        the DM channel's)."""
        return self._compose(self._user_tools, session_id)

    def tools_for(self, focus: Focus, *, deliberation: bool = False) -> Toolset:
        """The brain tools for the item this agent is working on: time results come
        back to its session (``metadata.sessionId``, else ``item:<id>``); a read-only
        turn gets only the read-only ones (A2A-19). With ``deliberation``:
        :meth:`deliberation_tools`."""
        if deliberation:
            return self.deliberation_tools()
        tools = self._compose(self._user_tools, agent_tools.session_of(focus), focus=focus)
        return agent_tools.for_turn(tools, self._services.tree, self.name, focus)

    def deliberation_tools(self) -> CombinedToolset:
        """The tools allowed while deliberating (000 §21): the mailbox and memory tools
        and the channel tools that send,
        :data:`~attn.runtime.agent_tools.DELIBERATION_TOOLS`."""
        return self._compose((), None, deliberation=True)

    def _compose(
        self,
        user: tuple[Toolset, ...],
        session_id: str | None,
        *,
        deliberation: bool = False,
        focus: Focus | None = None,
    ) -> CombinedToolset:
        parts = (self, self._store, self._clock, self._time, self._channels, user, session_id)
        return agent_tools.compose(
            *parts, deliberation=deliberation, services=self._services, focus=focus
        )

    def queued_items(self, limit: int | None = None) -> list[MailboxItem]:
        """The queued items in claim order (all: 000 §4 rule 4), or the first ``limit``."""
        return self.mailbox.queued_items(limit)

    async def memories_for(self, text: str, limit: int = 5) -> list[str]:
        """Long-term memory entries sharing words with ``text``, best first, as
        ``"[key] content"`` (000 §8, §21).

        Raises:
            InvalidInput: ``text`` is not a string or ``limit`` is not in 1..50.
        """
        return await agent_tools.memories_for(self._store, self.name, text, limit)

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

    async def log_status(self, sender_id: str, text: str) -> str:
        """Write a status line from ``sender_id`` to this agent's activity log, with no
        turn and no model call (``agent_broadcast_status``, 000 §11.2); return the
        activity id."""
        return await log_status(self._store, self._clock, self.bus, self.name, sender_id, text)

    def add_end_hook(self, hook: EndHook) -> None:
        """Tell ``hook`` about every item this agent's loop ends with (its write ops
        join that item's terminal transaction; the people service's main session)."""
        self.controller.add_end_hook(hook)

    def set_gate(self, gate: TurnGate | None) -> None:
        """Install a retained agent's turn gate (seed 002; :mod:`attn.tree`)."""
        self.controller.gate = gate

    def wake(self) -> None:
        """Start a drain of the loop if it runs and none is running."""
        self.controller.wake()

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
