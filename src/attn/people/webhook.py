"""The notification webhook: each notification POSTed once to a configured URL (PPL-09).

A notification made while a webhook is configured is stored with
``webhook = "pending"`` in its own transaction, so the push survives a
restart: the sink sends what is pending when it starts, then each new one as
it is stored, oldest first, at most :data:`WORKERS` at once (a notification
being retried holds back only its own worker). Each POST carries the JSON ``{"notification": …}``,
the headers ``X-Attn-Notification-Id`` (also ``Idempotency-Key``: a receiver
drops repeats by it), ``X-Attn-Delivery-Attempt`` and, with a secret,
``X-Attn-Signature: sha256=<hex HMAC-SHA256 of the body>``. A 2xx answer marks
it ``delivered``; 408, 429, 5xx, a timeout or a refused connection is tried
again after 1, 2, 4 … s (at most 5 minutes apart, ``retry-after`` honoured up
to that); any other answer, or ``max_attempts`` tries, marks it ``failed``.
A crash after a POST and before its mark sends it again: receivers dedupe.

Spec: 000 §12.5 (real-time delivery; attn adds the webhook); acceptance PPL-09.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import os
from typing import Any

import httpx

from attn.clock import Clock
from attn.config.people import WebhookConfig
from attn.errors import InvalidInput
from attn.jsontext import dumps
from attn.models.people import Notification
from attn.store.base import SetNotificationWebhook, Store

log = logging.getLogger("attn.people.webhook")

#: First retry delay, and the longest, in seconds.
FIRST_RETRY_S = 1.0
MAX_RETRY_S = 300.0
#: Pushes in flight at once: one receiver failing on a notification holds one of them.
WORKERS = 4
#: Statuses worth another try.
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


def signature(secret: str, body: bytes) -> str:
    """``sha256=<hex>``: the HMAC-SHA256 of ``body`` with ``secret``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class WebhookSink:
    """Pushes stored notifications to one URL, oldest first, each until delivered or failed.

    Args:
        store: where each delivery's state is written.
        clock: waits between tries (a fake clock in tests).
        config: URL, secret variable, timeout, tries, types.
        transport: an httpx transport (tests); None: the network.

    Raises:
        InvalidInput: ``secret_env`` names a variable that is not set.
    """

    def __init__(
        self,
        store: Store,
        clock: Clock,
        config: WebhookConfig,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        secret = None
        if config.secret_env is not None:
            secret = os.environ.get(config.secret_env)
            if not secret:
                raise InvalidInput(
                    f"the webhook's secret_env {config.secret_env} is not set in the environment"
                )
        self._secret = secret
        self._store = store
        self._clock = clock
        self.config = config
        self._client = httpx.AsyncClient(timeout=config.timeout_s, transport=transport)
        self._queue: asyncio.Queue[Notification] = asyncio.Queue()
        self._queued: set[str] = set()
        self._tasks: list[asyncio.Task[None]] = []
        #: How each notification ended: id → ``delivered`` or ``failed`` (this process).
        self.outcomes: dict[str, str] = {}

    def kick(self, notification: Notification) -> None:
        """Queue a stored notification whose webhook delivery is pending."""
        if notification.webhook == "pending" and notification.id not in self._queued:
            self._queued.add(notification.id)
            self._queue.put_nowait(notification)

    async def start(self) -> None:
        """Queue what a previous run left pending, then deliver in the background."""
        for notification in await self._store.find_webhook_pending(limit=10_000):
            self.kick(notification)
        loop = asyncio.get_running_loop()
        while len(self._tasks) < WORKERS:
            self._tasks.append(loop.create_task(self._run(), name="attn:webhook"))

    async def idle(self) -> None:
        """Wait until every queued notification was delivered or failed."""
        await self._queue.join()

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        await self._client.aclose()

    async def _run(self) -> None:
        while True:
            notification = await self._queue.get()
            try:
                outcome = await self._deliver(notification)
                await self._store.write([SetNotificationWebhook(notification.id, outcome)])
                self.outcomes[notification.id] = outcome
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("webhook delivery of %s failed", notification.id)
            finally:
                self._queued.discard(notification.id)
                self._queue.task_done()

    async def _deliver(self, notification: Notification) -> str:
        body = dumps({"notification": notification.to_dict()}).encode()
        headers = {
            "Content-Type": "application/json",
            "X-Attn-Notification-Id": notification.id,
            "Idempotency-Key": notification.id,
        }
        if self._secret is not None:
            headers["X-Attn-Signature"] = signature(self._secret, body)
        delay = FIRST_RETRY_S
        for attempt in range(1, self.config.max_attempts + 1):
            headers["X-Attn-Delivery-Attempt"] = str(attempt)
            wait = delay
            try:
                answer = await self._client.post(self.config.url, content=body, headers=headers)
            except httpx.HTTPError as exc:
                log.warning("webhook try %d of %s: %s", attempt, notification.id, exc)
            else:
                if 200 <= answer.status_code < 300:
                    return "delivered"
                if answer.status_code not in RETRY_STATUSES:
                    log.warning("webhook refused %s with %d", notification.id, answer.status_code)
                    return "failed"
                wait = max(delay, _retry_after(answer.headers.get("retry-after")))
            if attempt < self.config.max_attempts:
                await self._clock.sleep(min(wait, MAX_RETRY_S))
                delay = min(delay * 2, MAX_RETRY_S)
        return "failed"


def _retry_after(value: Any) -> float:
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return 0.0
    return seconds if 0 <= seconds <= MAX_RETRY_S else 0.0


__all__ = ["FIRST_RETRY_S", "MAX_RETRY_S", "WebhookSink", "signature"]
