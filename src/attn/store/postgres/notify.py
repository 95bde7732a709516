"""LISTEN on ``attn_mailbox``: wake a runtime when another process enqueues.

One dedicated connection per store carries every subscription; it is opened
by the first :meth:`Listener.subscribe` and closed with the last unsubscribe.
If the server drops it, a reconnect task owned by the listener brings it back.
Notifications are hints: any sent while disconnected are lost, so a runtime
also reads its queues on start (000 §17) rather than relying on them alone.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import asyncpg

from attn.store.postgres.queries import NOTIFY_CHANNEL

log = logging.getLogger(__name__)

Connect = Callable[[], Awaitable["asyncpg.Connection[asyncpg.Record]"]]
WakeCallback = Callable[[str], None]

#: Reconnect delays after the listening connection is lost, in seconds.
_RECONNECT_DELAYS_S = (0.05, 0.2, 1.0, 5.0)


class Listener:
    """Fans the notifications of one LISTEN connection out to plain callbacks."""

    def __init__(self, connect: Connect) -> None:
        self._connect = connect
        self._conn: asyncpg.Connection[asyncpg.Record] | None = None
        self._callbacks: list[WakeCallback] = []
        self._lock = asyncio.Lock()
        self._reconnect: asyncio.Task[None] | None = None
        self.reconnects = 0

    @property
    def connected(self) -> bool:
        """True while the LISTEN connection is up."""
        return self._conn is not None and not self._conn.is_closed()

    @property
    def subscribers(self) -> int:
        return len(self._callbacks)

    async def subscribe(self, callback: WakeCallback) -> Callable[[], Awaitable[None]]:
        """Call ``callback(agent_id)`` for every notification until unsubscribed.

        Returns:
            An idempotent coroutine function that removes this subscription.

        Raises:
            asyncpg.PostgresError, OSError: the LISTEN connection could not be opened.
        """
        async with self._lock:
            if self._conn is None:
                await self._start()
            self._callbacks.append(callback)
        done = False

        async def unsubscribe() -> None:
            nonlocal done
            if done:
                return
            done = True
            async with self._lock:
                self._callbacks.remove(callback)
                if not self._callbacks:
                    await self._stop()

        return unsubscribe

    async def close(self) -> None:
        """Drop every subscription and close the connection."""
        async with self._lock:
            self._callbacks.clear()
            await self._stop()

    async def _start(self) -> None:
        conn = await self._connect()
        try:
            await conn.add_listener(NOTIFY_CHANNEL, self._on_notify)
        except BaseException:
            await conn.close()
            raise
        conn.add_termination_listener(self._on_terminated)
        self._conn = conn

    async def _stop(self) -> None:
        if self._reconnect is not None:
            self._reconnect.cancel()
            await asyncio.gather(self._reconnect, return_exceptions=True)
            self._reconnect = None
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            conn.remove_termination_listener(self._on_terminated)
            await conn.close()

    def _on_notify(self, conn: object, pid: int, channel: str, payload: object) -> None:
        agent_id = str(payload)
        for callback in list(self._callbacks):
            try:
                callback(agent_id)
            except Exception:
                log.exception("wake callback failed for agent %r", agent_id)

    def _on_terminated(self, conn: object) -> None:
        if conn is not self._conn or self._reconnect is not None:
            return
        log.warning("lost the LISTEN connection; reconnecting")
        self._conn = None
        self._reconnect = asyncio.get_running_loop().create_task(
            self._reconnect_loop(), name="attn-postgres-listen-reconnect"
        )

    async def _reconnect_loop(self) -> None:
        attempt = 0
        try:
            while True:
                delay_s = _RECONNECT_DELAYS_S[min(attempt, len(_RECONNECT_DELAYS_S) - 1)]
                await asyncio.sleep(delay_s)
                attempt += 1
                async with self._lock:
                    if not self._callbacks:
                        return
                    try:
                        await self._start()
                    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                        log.warning("LISTEN reconnect attempt %d failed: %s", attempt, exc)
                        continue
                    self.reconnects += 1
                    return
        finally:
            if asyncio.current_task() is self._reconnect:
                self._reconnect = None
