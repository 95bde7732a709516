"""The notification webhook over real loopback HTTP (PPL-09): signed, retried with
backoff on the runtime's clock, one delivery per notification id, resent after a restart."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import pytest

from attn import Runtime
from attn.config.people import WebhookConfig
from attn.errors import InvalidInput
from attn.people.webhook import signature
from attn.store.base import Store
from attn.testing import FakeClock

SECRET_ENV = "ATTN_TEST_WEBHOOK_SECRET"


@dataclass
class Receiver:
    """A loopback HTTP endpoint answering each POST with the next scripted status."""

    statuses: list[int] = field(default_factory=list)
    received: list[tuple[dict[str, str], bytes]] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    url: str = ""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode().split("\r\n")[1:]
        headers = {
            k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines if line)
        }
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        self.received.append((headers, body))
        status = self.statuses.pop(0) if self.statuses else 200
        writer.write(
            f"HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".encode()
        )
        await writer.drain()
        writer.close()
        self.arrived.set()


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    found = Receiver()
    server = await asyncio.start_server(found.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    found.url = f"http://127.0.0.1:{port}/hook"
    async with server:
        yield found


async def _until(condition: Callable[[], bool], clock: FakeClock | None = None) -> None:
    for _ in range(500):
        if condition():
            return
        if clock is not None:
            await clock.advance(1)
        await asyncio.sleep(0.01)
    raise AssertionError("the webhook did not get there")


async def test_ppl_09_each_notification_is_pushed_signed_and_retried_until_delivered(
    rt: Runtime, clock: FakeClock, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET_ENV, "s3cret")
    receiver.statuses = [503, 500]  # two failures, then 200
    sink = await rt.people.start_webhook(WebhookConfig(receiver.url, secret_env=SECRET_ENV))
    sent = await rt.people.notifications.notify(None, "system", "Deploy done", "v2 is out")
    assert sent.webhook == "pending"
    await _until(lambda: sink.outcomes.get(sent.id) == "delivered", clock)
    assert len(receiver.received) == 3
    for attempt, (headers, body) in enumerate(receiver.received, start=1):
        assert headers["x-attn-notification-id"] == sent.id == headers["idempotency-key"]
        assert headers["x-attn-delivery-attempt"] == str(attempt)
        assert headers["x-attn-signature"] == signature("s3cret", body)
        assert json.loads(body)["notification"]["title"] == "Deploy done"
    assert (await rt.people.notifications.get(sent.id)).webhook == "delivered"


async def test_a_refusal_or_the_last_try_marks_the_delivery_failed(
    rt: Runtime, clock: FakeClock, receiver: Receiver
) -> None:
    receiver.statuses = [400, 503, 503]
    sink = await rt.people.start_webhook(WebhookConfig(receiver.url, max_attempts=2))
    refused = await rt.people.notifications.notify(None, "system", "one")
    tired = await rt.people.notifications.notify(None, "system", "two")
    await _until(lambda: len(sink.outcomes) == 2, clock)
    assert sink.outcomes == {refused.id: "failed", tired.id: "failed"}
    assert len(receiver.received) == 3  # 400 is not tried again; 503 twice
    assert (await rt.people.notifications.get(tired.id)).webhook == "failed"


async def test_pending_deliveries_are_sent_after_a_restart_once(
    make_store: Callable[[], Store], clock: FakeClock, backend: str, receiver: Receiver
) -> None:
    if backend == "memory":
        pytest.skip("the memory store keeps nothing across a restart")
    async with Runtime(make_store(), clock=clock) as rt:
        rt.people.notifications.webhook_types = ()  # stored pending, never sent here
        sent = await rt.people.notifications.notify(None, "system", "while down")
    async with Runtime(make_store(), clock=clock) as rt:
        sink = await rt.people.start_webhook(WebhookConfig(receiver.url))
        await _until(lambda: sink.outcomes.get(sent.id) == "delivered")
        assert [h["x-attn-notification-id"] for h, _ in receiver.received] == [sent.id]


async def test_a_missing_secret_refuses_to_start_the_webhook(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(SECRET_ENV, raising=False)
    with pytest.raises(InvalidInput, match=SECRET_ENV):
        await rt.people.start_webhook(WebhookConfig("http://127.0.0.1:9/x", secret_env=SECRET_ENV))
    assert rt.people.webhook is None
    sent = await rt.people.notifications.notify(None, "system", "no webhook")
    assert sent.webhook is None
