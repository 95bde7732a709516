"""The :class:`Timekeeper`: a runtime's pending callbacks, wakeups, heartbeats and
background commands, on one timer.

Every :class:`~attn.runtime.Runtime` owns one, as ``runtime.time``. Adding an
agent attaches it: its stored callbacks and wakeups are restored (TIME-05),
overdue wakeups fire at once as one catch-up each (TIME-06), its heartbeat is
scheduled, and its brain is wrapped (:class:`~attn.time.brain.TimeBrain`).
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
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from attn.clock import Clock
from attn.core.events import Event
from attn.core.focus import Focus
from attn.errors import InvalidInput
from attn.ids import new_id
from attn.limits import MAX_ID_CHARS, check_optional_text, check_seconds, check_text
from attn.models import CallbackStatus, CallbackType, DeliveryMode, PendingCallback
from attn.store.base import Store, UpdateCallback
from attn.time.background import BackgroundRunner
from attn.time.brain import SessionTracker, TimeBrain
from attn.time.callbacks import MAX_TEXT_CHARS, CallbackRegistry
from attn.time.config import TimeConfig
from attn.time.heartbeats import HEARTBEAT, Heartbeats
from attn.time.scheduler import Scheduler
from attn.time.wakeups import WAKEUP, Wakeups

if TYPE_CHECKING:
    from attn.runtime.agent import Agent
    from attn.runtime.runtime import Runtime
    from attn.time.tools import TimeTools

log = logging.getLogger("attn.time")

_REDELIVER = "redeliver"
#: Most rounds of one sweep task; what is left is handled when the timer fires next.
_MAX_ROUNDS = 1000
#: Longest reply text accepted by :meth:`Timekeeper.deliver_reply`.
MAX_REPLY_CHARS = 100_000


class Timekeeper:
    """Pending callbacks, wakeups, heartbeats and background commands of one runtime.

    Args:
        runtime: the owning runtime (its store, clock, agents and bus are used).
        config: settings; :class:`TimeConfig` defaults when None.

    Attributes:
        owner: this runtime's id in claims (``rt_…``).
        scheduler: the one timer and its heap.
        callbacks, wakeups, heartbeats, background: the parts.
        session_exists: ``(agent_id, session_id) -> bool``, whether a callback's
            origin session can be resumed; defaults to "seen since start".
    """

    def __init__(self, runtime: Runtime, config: TimeConfig | None = None) -> None:
        self.runtime = runtime
        self.config = config if config is not None else TimeConfig()
        if not isinstance(self.config, TimeConfig):
            raise InvalidInput(
                f"time config must be a TimeConfig, got {type(self.config).__name__}"
            )
        self.owner = new_id("rt")
        self.scheduler = Scheduler(runtime.clock, self._on_due, max_delay_s=self.config.max_timer_s)
        self.callbacks = CallbackRegistry(self)
        self.wakeups = Wakeups(self)
        self.heartbeats = Heartbeats(self)
        self.background = BackgroundRunner(self)
        self.sessions = SessionTracker()
        self.session_exists: Callable[[str, str], bool] = self.sessions.exists
        self._sweep_task: asyncio.Task[None] | None = None
        self._again = False
        self._tasks: set[asyncio.Future[Any]] = set()
        self._closed = False
        self.sweeps = 0

    # ------------------------------------------------------------ plumbing

    @property
    def clock(self) -> Clock:
        return self.runtime.clock

    @property
    def store(self) -> Store:
        return self.runtime.store

    def agent(self, agent_id: str) -> Agent:
        """The hosted agent. Raises :class:`~attn.errors.UnknownAgent`."""
        return self.runtime.get_agent(agent_id)

    def hosted(self) -> list[str]:
        """Names of the hosted agents."""
        return [agent.name for agent in self.runtime.agents]

    def emit(self, agent_id: str, event_type: str, data: dict[str, Any]) -> None:
        """Emit an event on the agent's bus (or the runtime's when it is not hosted)."""
        try:
            bus = self.agent(agent_id).bus
        except Exception:
            bus = self.runtime.bus
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

    async def attach(self, agent: Agent) -> None:
        """Take over a newly hosted agent: wrap its brain, restore its callbacks and
        wakeups, schedule its heartbeat; overdue wakeups fire at once (TIME-05, TIME-06)."""
        if self._closed:
            return
        controller = agent.controller
        if not isinstance(controller.brain, TimeBrain):
            controller.brain = TimeBrain(controller.brain, self, agent.name)
        stored = await self.store.find_callbacks(agent.name)
        hosting = bool(getattr(self.runtime, "_host", False))
        for callback in stored:
            if callback.status == CallbackStatus.RESOLVED:
                self.scheduler.schedule((_REDELIVER, agent.name, callback.id), self.clock.now())
            elif callback.type == CallbackType.WAKEUP:
                if callback.status == CallbackStatus.CLAIMED and hosting:
                    # Claimed by a previous process of this database's host: it died.
                    callback = await self._release(callback)
                self.wakeups.restore(callback, hosting=hosting)
        self.heartbeats.attach(agent, await self.store.get_agent_settings(agent.name))
        head = self.scheduler.peek()
        if head is not None and head[0] <= self.clock.now().timestamp():
            self._on_due()

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
        task = self._sweep_task
        if task is not None:
            task.cancel()
            await asyncio.wait({task})
        if self._tasks:
            await asyncio.wait(set(self._tasks))

    async def drain(self) -> None:
        """Wait until no sweep runs and no write of the timekeeper is in flight."""
        while True:
            pending = set(self._tasks)
            if self._sweep_task is not None:
                pending.add(self._sweep_task)
            if not pending:
                return
            await asyncio.wait(pending)

    # --------------------------------------------------------------- sweep

    def _on_due(self) -> None:
        if self._closed:
            return
        if self._sweep_task is not None:
            self._again = True
            return
        self._sweep_task = asyncio.get_running_loop().create_task(
            self._sweep(), name="attn:time:sweep"
        )
        self._sweep_task.add_done_callback(self._sweep_done)

    def _sweep_done(self, task: asyncio.Task[None]) -> None:
        self._sweep_task = None
        if not task.cancelled() and task.exception() is not None:
            log.error("time sweep failed", exc_info=task.exception())
        if not self._closed:
            self.scheduler.rearm()

    async def _sweep(self) -> None:
        """Handle everything due: claim and fire wakeups, heartbeats, redeliveries."""
        for _ in range(_MAX_ROUNDS):
            self._again = False
            self.sweeps += 1
            await self._run_step(self.wakeups.follow_jump(), "clock jump")  # before claims
            now = self.clock.now()
            due = self.scheduler.pop_due(now)
            wakeups = False
            beats: list[str] = []
            redeliver: list[tuple[str, str]] = []
            for key in due:
                if not isinstance(key, tuple):
                    continue
                if key[0] == WAKEUP:
                    wakeups = True
                elif key[0] == HEARTBEAT:
                    beats.append(key[1])
                elif key[0] == _REDELIVER:
                    redeliver.append((key[1], key[2]))
            await self._run_step(self._redeliver(redeliver), "redelivery")
            if wakeups:
                await self._run_step(self.wakeups.sweep(now), "wakeup sweep")
            if beats:
                await self._run_step(self.heartbeats.fire(beats, now), "heartbeats")
            head = self.scheduler.peek()
            if not self._again and (head is None or head[0] > self.clock.now().timestamp()):
                return

    async def _run_step(self, step: Coroutine[Any, Any, Any], what: str) -> None:
        try:
            await step
        except asyncio.CancelledError:
            raise
        except Exception:
            # The store failed: try again after busy_retry_s (wakeups stay due in the store).
            log.exception("time %s failed; retrying in %s s", what, self.config.busy_retry_s)
            retry = self.clock.now().timestamp() + self.config.busy_retry_s
            self.scheduler.schedule((WAKEUP, "retry"), retry)

    async def _redeliver(self, targets: list[tuple[str, str]]) -> None:
        for agent_id, callback_id in targets:
            await self.callbacks.retry(agent_id, callback_id)

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
    ) -> PendingCallback:
        """Register an awaited reply (an ``a2a_reply`` callback, in-session delivery).

        Args:
            agent_id: the waiting agent.
            correlation_id: the conversation id the reply belongs to.
            origin_session_id: the session the reply is routed back into.
            timeout_s: seconds to wait (default ``a2a_timeout_s``, 30 min).
            note: what was asked, listed if it times out.

        Returns:
            The callback; the reply must name its ``id`` (:meth:`deliver_reply`).

        Raises:
            InvalidInput: a blank correlation id or a bad timeout. UnknownAgent.
        """
        correlation = check_text(correlation_id, "correlation_id", max_len=MAX_ID_CHARS)
        timeout = self.config.a2a_timeout_s
        if timeout_s is not None:
            timeout = check_seconds(timeout_s, "timeout_s")
            if timeout <= 0:
                raise InvalidInput(f"timeout_s must be positive seconds, got {timeout_s!r}")
        return await self.callbacks.register(
            agent_id,
            CallbackType.A2A_REPLY,
            origin_session_id=origin_session_id,
            correlation_id=correlation,
            note=check_optional_text(note, "note", max_len=MAX_TEXT_CHARS),
            timeout_s=timeout,
        )

    async def deliver_reply(
        self,
        agent_id: str,
        callback_id: object,
        content: object,
        *,
        sender_id: str | None = None,
        data: dict[str, Any] | None = None,
    ) -> str | None:
        """Hand the reply to an awaited callback (TIME-08).

        The reply resolves the callback it names, once. If that callback timed
        out, was resolved already or never existed, the reply is late: it is
        delivered as its own late ``system_event`` and never matched to another
        (newer) callback, even one with the same correlation id.

        Returns:
            The id of the item the reply became (callback_result or late
            system_event), or None when it could not be enqueued yet.

        Raises:
            InvalidInput: blank content or a malformed id. UnknownAgent.
        """
        self.agent(agent_id)
        text = check_text(content, "content", max_len=MAX_REPLY_CHARS)
        if not isinstance(callback_id, str) or not callback_id.strip():
            raise InvalidInput(f"callback_id must be a non-empty string, got {callback_id!r}")
        extra: dict[str, Any] = {**(data or {}), "replyFrom": sender_id}
        found = await self.store.get_callback(agent_id, callback_id)
        now = self.clock.now()
        if (
            found is None
            or found.type != CallbackType.A2A_REPLY
            or found.status != CallbackStatus.PENDING
        ):
            kind = found.type if found is not None else CallbackType.A2A_REPLY
            return await self.callbacks.late(agent_id, callback_id, text, extra, callback_type=kind)
        if found.timed_out(now):
            expired = await self.callbacks.expire_timed_out(agent_id, now)
            del expired  # listed nowhere else: the late item reports it
            return await self.callbacks.late(
                agent_id, callback_id, text, extra, callback_type=found.type
            )
        return await self.callbacks.complete(found, text, extra)

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

    def tools(self, agent_id: str, session_id: str | None = None) -> TimeTools:
        """The time tools bound to one agent (and the session results come back to)."""
        from attn.time.tools import TimeTools

        return TimeTools(self, agent_id, session_id)

    def tools_for(self, focus: Focus) -> TimeTools:
        """The time tools for the item a brain is working on: results come back to
        its session (``metadata.sessionId``, else ``item:<id>``)."""
        item = focus.item
        session = item.metadata.get("sessionId")
        return self.tools(item.agent_id, session if isinstance(session, str) else f"item:{item.id}")

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
