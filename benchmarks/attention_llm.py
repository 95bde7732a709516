"""Tiers 1 and 2 as real model calls for ``attention_quality.py --llm`` (mode ``on+llm``).

The interrupt judge (:class:`~attn.brains.llm.LLMInterruptClassifier`) and the
deliberator (:class:`~attn.brains.llm.LLMDeliberator`) run unchanged, through
the real OpenAI client, against attn's fake provider on loopback; a
:func:`responder` plays a sensible model from each request's text. Model time
is simulated (``JUDGE_COST_S`` and ``TURN_COST_S`` of the run's clock per call)
and each call counts, in the run's record, as a model call; the clock does not
move while a call is on the wire (the calls count as in flight, like store
commits).
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from typing import Any

from attention_record import RunRecord

from attn import MailboxItem
from attn.brains.llm import LLMDeliberator, LLMInterruptClassifier
from attn.brains.providers import ModelClient, ModelEvent, ModelRequest, make_client
from attn.core.deliberation import DeliberationResult
from attn.testing import FakeClock, FakeProvider, FakeToolCall, Turn

LLM_MODE = "on+llm"
#: Simulated seconds of one interrupt-judge call and of one deliberation turn.
JUDGE_COST_S = 0.2
TURN_COST_S = 0.4
KEY_ENV = "ATTN_BENCH_FAKE_KEY"
_ITEM = re.compile(
    r"^- id=(?P<id>\S+) type=(?P<type>\S+) priority=(?P<priority>\d)(?P<protected> protected)?",
    re.MULTILINE,
)
_CONVERSATION = ("a2a_message", "task_comment")
#: A message that opens by revoking the work cancels it; one that opens by
#: asking to pause (or says it is urgent) preempts it; anything else continues.
_CANCEL = re.compile(r"^(please\s+)?(stop|cancel|abort|never mind|don't|do not)\b")
_PREEMPT = re.compile(r"^(please\s+)?(hold off|wait|pause)\b|\burgent\b")


class InFlight:
    """Counts model calls on the wire; the run's clock waits for them like store calls."""

    def __init__(self) -> None:
        self.inflight = 0


class CountedClient:
    """A :class:`ModelClient` that costs simulated time and counts each call."""

    def __init__(
        self, inner: ModelClient, clock: FakeClock, tracker: InFlight, cost_s: float, count: Any
    ) -> None:
        self.inner, self.clock, self.tracker = inner, clock, tracker
        self.cost_s, self.count = cost_s, count
        self.provider = inner.provider

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.count()
        await self.clock.sleep(self.cost_s)
        self.tracker.inflight += 1
        try:
            async for event in self.inner.stream(request):
                yield event
        finally:
            self.tracker.inflight -= 1

    async def aclose(self) -> None:
        await self.inner.aclose()


class CountedDeliberator(LLMDeliberator):
    """The LLM deliberator, counted; the texts it completed inline reached a model."""

    def __init__(
        self, client: ModelClient, model: str, record: RunRecord, name: str, clock: FakeClock
    ) -> None:
        super().__init__(client, model)
        self.record, self.name, self.clock = record, name, clock

    async def deliberate(
        self, head: MailboxItem, queued: list[MailboxItem], context: dict[str, Any]
    ) -> DeliberationResult | None:
        self.record.deliberations += 1
        result = await super().deliberate(head, queued, context)
        if result is not None:
            items = {i.id: i for i in (head, *queued)}
            done = [items[i].content for i in result.inline_completed_ids if i in items]
            self.record.deliver(self.clock.monotonic(), self.name, "deliberation", head.id, done)
        return result


def _user_texts(body: Any) -> list[str]:
    out = []
    for message in body.get("messages", []):
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str):
            out.append(content)
    return out


def judge(text: str) -> str:
    """What a sensible judge answers about the new message ``text``."""
    new = text.split("## New message", 1)[-1].split("## Queue", 1)[0]
    opening = new.split("content:", 1)[-1].strip().lower()[:120]
    if _CANCEL.search(opening):
        return "cancel"
    if _PREEMPT.search(opening):
        return "preempt"
    return "continue"


def deliberate(prompt: str) -> dict[str, Any]:
    """A sensible ``complete_deliberation`` for a [DELIBERATION MODE] prompt's queue:
    batch the conversation, acknowledge informational items inline, drop nothing."""
    items = [m.groupdict() for m in _ITEM.finditer(prompt)]
    head = items[0]
    free = [i for i in items if not i["protected"]]
    inline = [i["id"] for i in free if i["type"] == "task_status_update"]
    beats = [i["id"] for i in free if i["type"] == "heartbeat"]
    inline += beats[:-1]
    talk = [i for i in free if i["type"] in _CONVERSATION]
    primary = head
    if head["id"] in inline:
        primary = talk[0] if talk else next((i for i in items if i["id"] not in inline), head)
        if primary is head:
            inline.remove(head["id"])
    batch = [primary["id"]]
    if primary["type"] in _CONVERSATION:
        batch += [i["id"] for i in talk if i is not primary][:5]
    arguments: dict[str, Any] = {
        "process_item_id": primary["id"],
        "reasoning": f"{len(batch)} conversational item(s) together; {len(inline)} acknowledged",
        "inline_completed_ids": [i for i in inline if i not in batch],
        "situational_awareness": f"{len(items)} items were waiting",
    }
    if len(batch) > 1:
        arguments["process_item_ids"] = batch
        arguments["batch_context"] = "answer these together"
    return arguments


def responder(request: Any) -> Turn:
    """Answer a judge call with one word, a deliberation with complete_deliberation."""
    body = request.body or {}
    texts = _user_texts(body)
    if not body.get("tools"):
        return Turn(text=judge(texts[-1] if texts else ""), chunks=1)
    prompt = next((t for t in texts if "[DELIBERATION MODE]" in t or "## Mailbox" in t), "")
    if not prompt or not _ITEM.search(prompt):
        return Turn(text="nothing to decide")
    return Turn(tool_calls=[FakeToolCall("complete_deliberation", deliberate(prompt))], chunks=1)


class ModelTiers:
    """The fake provider (on its own thread) and the tiers each agent of a run gets."""

    def __init__(self, record: RunRecord, clock: FakeClock, tracker: InFlight) -> None:
        self.record, self.clock, self.tracker = record, clock, tracker
        self.provider = FakeProvider()
        self.provider.responder = responder
        self.clients: list[ModelClient] = []

    def start(self) -> None:
        os.environ.setdefault(KEY_ENV, "fake-key")
        self.provider.start_in_thread()

    def _client(self, cost_s: float, count: Any) -> ModelClient:
        inner = make_client("openai", base_url=self.provider.openai_base_url, api_key_env=KEY_ENV)
        client = CountedClient(inner, self.clock, self.tracker, cost_s, count)
        self.clients.append(client)
        return client

    def for_agent(self, name: str) -> tuple[LLMInterruptClassifier, LLMDeliberator]:
        rec = self.record

        def judged() -> None:
            rec.judge_calls += 1

        def turned() -> None:
            rec.deliberation_turns += 1

        return (
            LLMInterruptClassifier(
                self._client(JUDGE_COST_S, judged), "fake-judge", clock=self.clock
            ),
            CountedDeliberator(
                self._client(TURN_COST_S, turned), "fake-deliberator", rec, name, self.clock
            ),
        )

    async def close(self) -> None:
        for client in self.clients:
            await client.aclose()
        self.clients.clear()

    def stop(self) -> None:
        self.record.model_requests = len(self.provider.accepted)
        self.provider.stop()
