"""Background work of the people service: tasks it starts and must not lose.

Spec: DESIGN.md (no work is dropped silently: failures are logged).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger("attn.people")


class Background:
    """Tasks started by the people service; each failure is logged."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(work, name=f"attn:{self._name}")
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("%s work failed", self._name, exc_info=task.exception())

    async def settle(self) -> None:
        """Wait until every task started so far (and those they start) ended."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def close(self) -> None:
        for task in self._tasks:
            task.cancel()


__all__ = ["Background"]
