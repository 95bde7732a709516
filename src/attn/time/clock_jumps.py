"""Following jumps of the wall clock: stored due times of relative wakeups move with it.

Time rule. A due time is stored as a wall-clock instant (so it survives
restarts and other runtimes on the database see it), but what this process
schedules runs on the monotonic clock: "in 600 s" fires after 600 s of
elapsed time even when the wall clock jumps meanwhile. When a sweep notices
a jump, the stored due time of every relative wakeup it follows is moved by
the jump (a compare-and-set, so runtimes sharing the database move it once),
so the store keeps agreeing with the timer and a restart keeps the remaining
delay. A wakeup asked for at an absolute time (``at``) keeps its wall-clock
instant: it fires when the wall clock reads it. A jump while no runtime runs
cannot be noticed; stored instants then rule. Each occurrence is delivered
under the idempotency key ``cb:<id>:<occurrence number>``
(:mod:`attn.time.wakeups`), so an occurrence that falls on an instant already
used (the clock went back) is still new.

Spec: 000 §11.3 (wakeup sweep); issue 10 B5 (tests/time/test_time_clock_jumps.py).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import TYPE_CHECKING

from attn.models import CallbackStatus
from attn.store.base import UpdateCallback, WriteOp
from attn.time.wakeups import ANCHOR, WAKEUP

if TYPE_CHECKING:
    from attn.time.timekeeper import Timekeeper

log = logging.getLogger("attn.time")


class ClockJumps:
    """Follows the wall clock of one timekeeper's timer.

    Args:
        keeper: the owning timekeeper.
    """

    def __init__(self, keeper: Timekeeper) -> None:
        self._keeper = keeper

    async def follow(self) -> float:
        """Notice a jump of the wall clock and :meth:`rebase` the stored due times
        (each sweep does this first, before it claims anything).

        Returns:
            The jump in seconds (negative: back), 0.0 when there was none.
        """
        jump_s = self._keeper.scheduler.check_jump()
        if jump_s:
            log.warning(
                "the wall clock jumped %+.3f s; wakeups keep their remaining delay "
                "(those set for an absolute time keep it)",
                jump_s,
            )
            await self.rebase(jump_s)
        return jump_s

    async def rebase(self, jump_s: float) -> int:
        """Move the stored due time of each relative wakeup on this runtime's timer by
        ``jump_s`` seconds, so it keeps its remaining delay; return how many moved.

        Only a row still at the due time this timer had before the jump is moved,
        with a compare-and-set: another runtime that follows the same wakeup and
        moved it first is not added to.
        """
        keeper = self._keeper
        ops: list[WriteOp] = []
        for agent_id in keeper.hosted():
            for callback in await keeper.store.find_callbacks(agent_id, [WAKEUP]):
                key = (WAKEUP, callback.id)
                due, ours = callback.due_at, keeper.scheduler.due_at(key)
                if (
                    due is None
                    or ours is None
                    or callback.status != CallbackStatus.PENDING
                    or callback.data.get(ANCHOR) == "wall"
                ):
                    continue
                if abs(due.timestamp() - (ours - jump_s)) > 1.0:
                    continue  # moved already, or not the time this timer follows
                ops.append(
                    UpdateCallback(
                        callback.id,
                        agent_id,
                        {"due_at": due + timedelta(seconds=jump_s)},
                        (CallbackStatus.PENDING,),
                        only_if_due_at=due,
                    )
                )
        results = await keeper.store.write(ops) if ops else []
        return sum(1 for moved in results if moved)


__all__ = ["ClockJumps"]
