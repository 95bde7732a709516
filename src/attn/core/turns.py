"""Giving the event loop a turn from a brain that never suspends.

A brain runs on the event loop shared by every agent, the server and the
backstop timers. A brain that calls ``await focus.yield_point()`` in a tight
loop never suspends (a yield point with nothing pending returns at once), so
nothing else runs: requests wait, and the backstop that would cancel the brain
cannot fire. :class:`LoopTurns` notices when the loop has not had a turn for
:data:`HOLD_S` and makes the yield point suspend for one loop iteration.

It measures real elapsed time (``time.perf_counter``), not the runtime clock:
the question is how long the CPU has been held, which a fake clock does not
see. A brain that suspends on its own (a model call, a sleep) pays one
``call_soon`` per yield point and never an extra loop iteration.

Spec: 000 §4 (yield points, backstop); issue C1.
"""

from __future__ import annotations

import asyncio
from time import perf_counter

#: Longest time a brain may hold the loop past a yield point before the yield
#: point gives the loop a turn, in seconds.
HOLD_S = 0.002


class LoopTurns:
    """Tracks whether the event loop ran since a mark, for one attempt's yield points."""

    __slots__ = ("_marked_at", "_pending")

    def __init__(self) -> None:
        self._pending = False
        self._marked_at = 0.0

    def _ran(self) -> None:
        self._pending = False

    def held(self) -> bool:
        """True when the loop has had no turn for more than :data:`HOLD_S` seconds.

        The first call after the loop ran schedules a marker callback and
        returns False; later calls return True once the marker has waited
        longer than ``HOLD_S`` (the caller should then ``await give_turn()``).
        """
        if self._pending:
            return perf_counter() - self._marked_at > HOLD_S
        self._pending = True
        self._marked_at = perf_counter()
        asyncio.get_running_loop().call_soon(self._ran)
        return False

    async def give_turn(self) -> None:
        """Suspend for one loop iteration (the marker runs, as does everything ready)."""
        await asyncio.sleep(0)
