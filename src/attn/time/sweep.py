"""The sweep: what runs when the timekeeper's one timer fires.

The :class:`~attn.time.scheduler.Scheduler` calls :meth:`Sweeper.on_due`;
the sweeper starts one task (never two at once) that handles everything due,
in rounds: it first follows a wall-clock jump, then redelivers resolved
callbacks, claims and fires due wakeups, and enqueues due heartbeats. A
timer firing while a sweep runs asks for one more round. A store failure in a
step is logged and retried after ``busy_retry_s``; what is due stays due in the
store.

Spec: 000 §11.3 (wakeup sweep), §11.4 (heartbeats); acceptance TIME-04, TIME-05.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from attn.time.callbacks import REDELIVER
from attn.time.heartbeats import HEARTBEAT
from attn.time.wakeups import WAKEUP

if TYPE_CHECKING:
    from attn.time.timekeeper import Timekeeper

log = logging.getLogger("attn.time")

#: Most rounds of one sweep task; what is left is handled when the timer fires next.
MAX_ROUNDS = 1000


class Sweeper:
    """Runs the sweep task of one timekeeper.

    Args:
        keeper: the owning timekeeper.

    Attributes:
        sweeps: rounds run since start.
    """

    def __init__(self, keeper: Timekeeper) -> None:
        self._keeper = keeper
        self._task: asyncio.Task[None] | None = None
        self._again = False
        self.sweeps = 0

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The running sweep task, or None between sweeps."""
        return self._task

    def on_due(self) -> None:
        """The timer fired: start a sweep, or ask the running one for another round."""
        if self._keeper.closed:
            return
        if self._task is not None:
            self._again = True
            return
        self._task = asyncio.get_running_loop().create_task(self._sweep(), name="attn:time:sweep")
        self._task.add_done_callback(self._done)

    async def cancel(self) -> None:
        """Cancel the running sweep and wait until it ended (the keeper is closing)."""
        task = self._task
        if task is not None:
            task.cancel()
            await asyncio.wait({task})

    def _done(self, task: asyncio.Task[None]) -> None:
        self._task = None
        if not task.cancelled() and task.exception() is not None:
            log.error("time sweep failed", exc_info=task.exception())
        if not self._keeper.closed:
            self._keeper.scheduler.rearm()

    async def _sweep(self) -> None:
        """Handle everything due: claim and fire wakeups, heartbeats, redeliveries."""
        keeper = self._keeper
        for _ in range(MAX_ROUNDS):
            self._again = False
            self.sweeps += 1
            await self._run_step(keeper.jumps.follow(), "clock jump")  # before claims
            now = keeper.clock.now()
            due = keeper.scheduler.pop_due(now)
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
                elif key[0] == REDELIVER:
                    redeliver.append((key[1], key[2]))
            await self._run_step(self._redeliver(redeliver), "redelivery")
            if wakeups:
                await self._run_step(keeper.wakeups.sweep(now), "wakeup sweep")
            if beats:
                await self._run_step(keeper.heartbeats.fire(beats, now), "heartbeats")
            head = keeper.scheduler.peek()
            if not self._again and (head is None or head[0] > keeper.clock.now().timestamp()):
                return

    async def _run_step(self, step: Coroutine[Any, Any, Any], what: str) -> None:
        keeper = self._keeper
        try:
            await step
        except asyncio.CancelledError:
            raise
        except Exception:
            # The store failed: try again after busy_retry_s (wakeups stay due in the store).
            log.exception("time %s failed; retrying in %s s", what, keeper.config.busy_retry_s)
            retry = keeper.clock.now().timestamp() + keeper.config.busy_retry_s
            keeper.scheduler.schedule((WAKEUP, "retry"), retry)

    async def _redeliver(self, targets: list[tuple[str, str]]) -> None:
        for agent_id, callback_id in targets:
            await self._keeper.callbacks.retry(agent_id, callback_id)


__all__ = ["MAX_ROUNDS", "Sweeper"]
