"""The :class:`Timekeeper`: a runtime's pending callbacks, wakeups, heartbeats and
background commands, on one timer.

Every :class:`~attn.runtime.Runtime` owns one, as ``runtime.time``. Adding an
agent attaches it: its stored callbacks and wakeups are restored (TIME-05),
overdue wakeups fire at once as one catch-up each (TIME-06), its heartbeat is
scheduled, and its brain is wrapped (:class:`~attn.time.brain.TimeBrain`, given
to the agent's brain middleware hook ``wrap_brain``). The timekeeper never
imports the runtime: it sees it through :mod:`attn.time.hosting`.
Closing the runtime closes the timekeeper first: the timer is disarmed and
running background commands are killed; everything stored stays stored.

Tests drive it on a :class:`~attn.testing.FakeClock`; after ``clock.advance``
(and with a store that leaves the loop, like SQLite), ``await runtime.time.drain()``
waits for the sweep it started.

Spec: 000 §3.4, §10, §11.3, §11.4; acceptance TIME-01..13.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from attn.clock import Clock
from attn.config import TimeConfig
from attn.core.events import Event, EventBus
from attn.core.focus import Brain
from attn.errors import InvalidInput
from attn.ids import new_id
from attn.models import CallbackStatus, CallbackType, DeliveryMode, PendingCallback
from attn.store.base import Store, UpdateCallback
from attn.time.background import BackgroundRunner
from attn.time.brain import SessionTracker, TimeBrain
from attn.time.callbacks import REDELIVER, CallbackRegistry
from attn.time.clock_jumps import ClockJumps
from attn.time.heartbeats import Heartbeats
from attn.time.hosting import AgentHost, HostedAgent
from attn.time.replies import Replies
from attn.time.scheduler import Scheduler
from attn.time.sweep import Sweeper
from attn.time.wakeups import Wakeups

log = logging.getLogger("attn.time")


class Timekeeper:
    """Pending callbacks, wakeups, heartbeats and background commands of one runtime.

    Args:
        agents: the runtime hosting the agents (looked up by name).
        clock: the runtime's clock.
        store: the runtime's store.
        bus: the runtime's bus (events of agents that are not hosted go there).
        config: settings; :class:`TimeConfig` defaults when None.
        hosting: the runtime holds the store's host lock, so a wakeup claimed by an
            earlier process of this database is reclaimed at once (it died).

    Attributes:
        owner: this runtime's id in claims (``rt_…``).
        scheduler: the one timer and its heap.
        callbacks, wakeups, jumps, heartbeats, background, replies, sweeper: the parts.
        session_exists: ``(agent_id, session_id) -> bool``, whether a callback's
            origin session can be resumed; defaults to "seen since start".

    Raises:
        InvalidInput: ``config`` is not a :class:`TimeConfig`.
    """

    def __init__(
        self,
        agents: AgentHost,
        clock: Clock,
        store: Store,
        bus: EventBus,
        config: TimeConfig | None = None,
        *,
        hosting: bool = False,
    ) -> None:
        self.config = config if config is not None else TimeConfig()
        if not isinstance(self.config, TimeConfig):
            raise InvalidInput(
                f"time config must be a TimeConfig, got {type(self.config).__name__}"
            )
        self.clock = clock
        self.store = store
        self._agents = agents
        self._bus = bus
        self._hosting = hosting
        self.owner = new_id("rt")
        self.sweeper = Sweeper(self)
        self.scheduler = Scheduler(clock, self.sweeper.on_due, max_delay_s=self.config.max_timer_s)
        self.callbacks = CallbackRegistry(self)
        self.wakeups = Wakeups(self)
        self.jumps = ClockJumps(self)
        self.heartbeats = Heartbeats(self)
        self.background = BackgroundRunner(self)
        self.replies = Replies(self)
        self.sessions = SessionTracker()
        self.session_exists: Callable[[str, str], bool] = self.sessions.exists
        self._tasks: set[asyncio.Future[Any]] = set()
        self._closed = False

    # ------------------------------------------------------------ plumbing

    @property
    def closed(self) -> bool:
        """True once :meth:`close` began: no more sweeps, no more attaching."""
        return self._closed

    @property
    def sweeps(self) -> int:
        """Sweep rounds run since start."""
        return self.sweeper.sweeps

    def agent(self, agent_id: str) -> HostedAgent:
        """The hosted agent. Raises :class:`~attn.errors.UnknownAgent`."""
        return self._agents.get_agent(agent_id)

    def hosted(self) -> list[str]:
        """Names of the hosted agents."""
        return [agent.name for agent in self._agents.agents]

    def emit(self, agent_id: str, event_type: str, data: dict[str, Any]) -> None:
        """Emit an event on the agent's bus (or the runtime's when it is not hosted)."""
        try:
            bus = self.agent(agent_id).bus
        except Exception:
            bus = self._bus
        if bus.active:
            bus.emit(Event(event_type, agent_id, data, self.clock.now()))

    def track(self, future: asyncio.Future[Any]) -> None:
        """Own a write-behind future until it settles (failures are logged)."""
        self._tasks.add(future)
        future.add_done_callback(self._settled)

    def _settled(self, future: asyncio.Future[Any]) -> None:
        self._tasks.discard(future)
        if not future.cancelled() and future.exception() is not None:
            log.error("time write failed", exc_info=future.exception())

    # ------------------------------------------------------------ lifecycle

    async def attach(self, agent: HostedAgent) -> None:
        """Take over a newly hosted agent: wrap its brain, restore its callbacks and
        wakeups, schedule its heartbeat; overdue wakeups fire at once (TIME-05, TIME-06)."""
        if self._closed:
            return
        name = agent.name

        def middleware(brain: Brain) -> Brain:
            return TimeBrain(brain, self, name)

        agent.wrap_brain(middleware)
        stored = await self.store.find_callbacks(name)
        for callback in stored:
            if callback.status == CallbackStatus.RESOLVED:
                self.scheduler.schedule((REDELIVER, name, callback.id), self.clock.now())
            elif callback.type == CallbackType.WAKEUP:
                if callback.status == CallbackStatus.CLAIMED and self._hosting:
                    # Claimed by a previous process of this database's host: it died.
                    callback = await self._release(callback)
                self.wakeups.restore(callback, hosting=self._hosting)
        self.heartbeats.attach(agent, await self.store.get_agent_settings(name))
        head = self.scheduler.peek()
        if head is not None and head[0] <= self.clock.now().timestamp():
            self.sweeper.on_due()

    async def _release(self, callback: PendingCallback) -> PendingCallback:
        await self.store.write(
            [
                UpdateCallback(
                    callback.id,
                    callback.agent_id,
                    {"status": CallbackStatus.PENDING, "claimed_by": None, "claimed_at": None},
                    (CallbackStatus.CLAIMED,),
                )
            ]
        )
        return replace(callback, status=CallbackStatus.PENDING, claimed_by=None, claimed_at=None)

    def detach(self, agent_id: str) -> None:
        """Stop the heartbeat of an agent that is no longer hosted."""
        self.heartbeats.detach(agent_id)
        self.sessions.forget(agent_id)

    async def close(self) -> None:
        """Disarm the timer, kill running background commands, finish pending writes."""
        if self._closed:
            return
        self._closed = True
        self.scheduler.close()
        await self.background.close()
        await self.sweeper.cancel()
        if self._tasks:
            await asyncio.wait(set(self._tasks))

    async def drain(self) -> None:
        """Wait until no sweep runs and no write of the timekeeper is in flight."""
        while True:
            pending = set(self._tasks)
            if self.sweeper.task is not None:
                pending.add(self.sweeper.task)
            if not pending:
                return
            await asyncio.wait(pending)

    # ----------------------------------------------------------- public API

    async def schedule_wakeup(
        self,
        agent_id: str,
        *,
        delay_s: object = None,
        at: object = None,
        recurring_s: object = None,
        note: object = None,
        delivery_mode: object = DeliveryMode.MAILBOX,
        origin_session_id: str | None = None,
    ) -> PendingCallback:
        """Schedule a wakeup; see :meth:`attn.time.wakeups.Wakeups.schedule`."""
        return await self.wakeups.schedule(
            agent_id,
            delay_s=delay_s,
            at=at,
            recurring_s=recurring_s,
            note=note,
            delivery_mode=delivery_mode,
            origin_session_id=origin_session_id,
        )

    async def cancel_wakeup(self, agent_id: str, wakeup_id: object) -> PendingCallback:
        """Cancel a wakeup. Raises :class:`~attn.errors.CallbackNotFound`."""
        return await self.wakeups.cancel(agent_id, wakeup_id)

    async def background_exec(
        self,
        agent_id: str,
        command: object,
        *,
        origin_session_id: str | None = None,
        timeout_s: object = None,
        cwd: object = None,
        env: Mapping[str, str] | None = None,
    ) -> PendingCallback:
        """Run a shell command in the background; see
        :meth:`attn.time.background.BackgroundRunner.start`."""
        return await self.background.start(
            agent_id,
            command,
            origin_session_id=origin_session_id,
            timeout_s=timeout_s,
            cwd=cwd,
            env=env,
        )

    async def await_reply(
        self,
        agent_id: str,
        correlation_id: object,
        *,
        origin_session_id: str | None = None,
        timeout_s: object = None,
        note: object = None,
        data: dict[str, Any] | None = None,
    ) -> PendingCallback:
        """Register an awaited reply; see :meth:`attn.time.replies.Replies.expect`."""
        return await self.replies.expect(
            agent_id,
            correlation_id,
            origin_session_id=origin_session_id,
            timeout_s=timeout_s,
            note=note,
            data=data,
        )

    async def deliver_reply(
        self,
        agent_id: str,
        callback_id: object,
        content: object,
        *,
        sender_id: str | None = None,
        data: dict[str, Any] | None = None,
        late_key: str | None = None,
    ) -> str | None:
        """Hand a reply to its awaited callback (TIME-08); see
        :meth:`attn.time.replies.Replies.deliver`."""
        return await self.replies.deliver(
            agent_id, callback_id, content, sender_id=sender_id, data=data, late_key=late_key
        )

    async def list_callbacks(
        self, agent_id: str, types: list[str] | None = None
    ) -> list[PendingCallback]:
        """The agent's pending callbacks and wakeups, oldest first (``nextFireAt`` in
        :meth:`PendingCallback.to_dict`).

        Raises:
            UnknownAgent; InvalidInput: an unknown type.
        """
        self.agent(agent_id)
        if types is not None:
            try:
                types = [CallbackType(t).value for t in types]
            except ValueError:
                allowed = ", ".join(t.value for t in CallbackType)
                raise InvalidInput(
                    f"callback type must be among {allowed}, got {types!r}"
                ) from None
        return await self.store.find_callbacks(agent_id, types)

    async def cancel_callback(self, agent_id: str, callback_id: object) -> PendingCallback:
        """Cancel any pending callback (a background command is killed).

        Raises:
            UnknownAgent; CallbackNotFound.
        """
        self.agent(agent_id)
        return await self.callbacks.cancel(agent_id, callback_id)

    async def set_heartbeat_interval(
        self, agent_id: str, interval_s: object, *, by: str = "user"
    ) -> dict[str, Any]:
        """Change an agent's heartbeat interval live (TIME-09); see
        :meth:`attn.time.heartbeats.Heartbeats.set_interval`."""
        return await self.heartbeats.set_interval(agent_id, interval_s, by=by)

    def heartbeat(self, agent_id: str) -> dict[str, Any]:
        """The agent's heartbeat: enabled, interval, next and last time. Raises UnknownAgent."""
        self.agent(agent_id)
        return self.heartbeats.info(agent_id)

    def statistics(self) -> dict[str, Any]:
        """Scheduled entries, timer fires, sweeps, wakeups fired, heartbeats, commands."""
        return {
            "scheduled": len(self.scheduler),
            "timerFires": self.scheduler.fired,
            "sweeps": self.sweeps,
            "wakeupsFired": self.wakeups.fired,
            "heartbeats": len(self.heartbeats),
            "backgroundRunning": self.background.running,
        }
