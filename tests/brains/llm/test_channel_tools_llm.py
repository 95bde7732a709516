"""An LLM agent uses the channel tools through its own tool loop (A2A-03, 000 §11.2).

Real parts: the LLM brain built from ``brain = "llm"`` options, the official
SDK clients over loopback HTTP to :class:`attn.testing.FakeProvider` (both
protocols), the agent as its brain's host (its composed tools, not a test
stand-in), the runtime's channels and timekeeper on the in-memory store and a
fake clock. The model's answers come from a responder that reads what each
request holds, so the order in which the agents' turns interleave does not
matter.
"""

from __future__ import annotations

import json
import re
from typing import Any

from attn import AgentConfig, EchoBrain, Runtime
from attn.brains import build_brain
from attn.models import COMPLETION_MARKER, CallbackStatus, ItemStatus
from attn.store.base import ItemQuery
from attn.testing import FakeProvider, FakeToolCall, ReceivedRequest, Turn, eventually
from tests.brains.llm.loop_kit import fake_options

NO_WINDOW = AgentConfig(coalesce_window_ms=0)


def _llm(fp: FakeProvider, protocol: str) -> Any:
    return build_brain("llm", fake_options(fp, protocol))


def _first_user_text(request: ReceivedRequest) -> str:
    """The first user message of a request: the item the turn is about."""
    body = request.body or {}
    for message in body.get("messages", []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        return content if isinstance(content, str) else json.dumps(content)
    return ""


def _tool_results(request: ReceivedRequest) -> list[dict[str, Any]]:
    """The JSON results of the tool calls a request carries back, oldest first."""
    found: list[dict[str, Any]] = []
    for message in (request.body or {}).get("messages", []):
        if message.get("role") == "tool":  # OpenAI
            found.append(json.loads(message["content"]))
        elif isinstance(message.get("content"), list):  # Anthropic
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    text = block["content"]
                    if isinstance(text, list):
                        text = "".join(b.get("text", "") for b in text)
                    found.append(json.loads(text))
    return found


async def _items(runtime: Runtime, agent: str, source_type: str) -> list[Any]:
    query = ItemQuery(agent, source_types=(source_type,), limit=100, oldest_first=True)
    return await runtime.store.find_items(query)


async def test_await_reply_brings_the_answer_back_as_a_callback_result_in_the_session(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    def respond(request: ReceivedRequest) -> Turn:
        item = _first_user_text(request)
        if "(callback_result" in item:
            return Turn(text=f"echo answered: pong. {COMPLETION_MARKER}")
        if _tool_results(request):
            return Turn(text="I asked echo; its answer will come back to me.")
        return Turn(
            tool_calls=[
                FakeToolCall(
                    "agent_send_message",
                    {"to": "echo", "message": "ping 42", "await_reply": True, "timeout_s": 600},
                )
            ]
        )

    fp.responder = respond
    lead = await runtime.add_agent("lead", _llm(fp, protocol), NO_WINDOW)
    await runtime.add_agent("echo", EchoBrain(prefix="pong to: "), NO_WINDOW)
    reply = await lead.send_message("ask echo for a pong", session_id="ses-lead", timeout_s=30)
    assert reply.text == "I asked echo; its answer will come back to me."
    offered = json.dumps((fp.requests[0].body or {}).get("tools"))
    for name in ("agent_send_message", "agent_delegate_task", "recall_channel"):
        assert f'"{name}"' in offered  # the agent's own composed tools

    # The model read the receipt: the DM channel, the conversation, the delivery.
    [receipt] = _tool_results(fp.requests[1])
    assert receipt["ok"] is True and receipt["awaitingReply"] is True
    assert receipt["channelKey"] == "dm:a2a:echo:lead"
    assert receipt["deliveries"] == [{"recipient": "echo", "outcome": "started", "reason": None}]
    conversation = receipt["conversationId"]

    async def answered() -> list[Any]:
        done = await _items(runtime, "lead", "callback_result")
        return [i for i in done if i.status == ItemStatus.COMPLETED]

    [result] = await eventually(answered, what="the answer processed by lead")
    # The answer resumed the session that asked, and the model saw it there.
    assert result.metadata["sessionId"] == "ses-lead"
    assert result.payload["extra"]["sessionResumed"] is True
    assert result.payload["extra"]["conversationId"] == conversation
    assert f"pong to: [conversation:{conversation}] ping 42" in result.content
    [last] = [r for r in fp.requests if "(callback_result" in _first_user_text(r)]
    assert "ping 42" in _first_user_text(last)
    # The channel's history holds both sides of the exchange, in order.
    question, answer = await runtime.store.find_channel_messages("dm:a2a:echo:lead")
    assert (question.sender_id, answer.sender_id) == ("lead", "echo")
    assert answer.reply_to == question.id and answer.conversation_id == conversation
    waiting = await runtime.store.find_callbacks("lead")
    assert [c for c in waiting if c.status == CallbackStatus.PENDING] == []
    assert all(r.accepted for r in fp.requests)


async def test_delegating_to_two_workers_brings_back_both_answers(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    def respond(request: ReceivedRequest) -> Turn:
        item = _first_user_text(request)
        if "(callback_result" in item:
            return Turn(text=f"Noted the worker's result. {COMPLETION_MARKER}")
        if _tool_results(request):
            return Turn(text="Both parts are delegated.")
        return Turn(
            tool_calls=[
                FakeToolCall("agent_delegate_task", {"to": "w1", "goal": "build part A"}),
                FakeToolCall("agent_delegate_task", {"to": "w2", "goal": "build part B"}),
            ]
        )

    fp.responder = respond
    lead = await runtime.add_agent("lead", _llm(fp, protocol), NO_WINDOW)
    for name in ("w1", "w2"):
        await runtime.add_agent(name, EchoBrain(prefix=f"{name} finished: "), NO_WINDOW)
    reply = await lead.send_message("split the work", session_id="ses-plan", timeout_s=30)
    assert reply.text == "Both parts are delegated."
    receipts = _tool_results(fp.requests[1])
    assert [r["ok"] for r in receipts] == [True, True]
    assert [r["channelKey"] for r in receipts] == ["dm:a2a:lead:w1", "dm:a2a:lead:w2"]
    assert [r["deliveries"][0]["outcome"] for r in receipts] == ["started", "started"]
    ids = {r["delegationId"] for r in receipts}

    async def both_answered() -> list[Any]:
        records = await runtime.store.find_delegations("lead")
        return records if all(str(r.status) == "answered" for r in records) else []

    records = await eventually(both_answered, what="both delegations answered")
    assert {r.id for r in records} == ids and {r.delegate for r in records} == {"w1", "w2"}

    async def settled() -> list[Any]:
        items = await _items(runtime, "lead", "callback_result")
        finished = all(i.status in (ItemStatus.COMPLETED, ItemStatus.MERGED) for i in items)
        return items if len(items) == 2 and finished else []

    results = await eventually(settled, what="both answers processed by lead")
    # Each answer resumes the session that delegated, named by its delegate and goal.
    extras = sorted((i.payload["extra"] for i in results), key=lambda e: e["replyFrom"])
    assert [(e["replyFrom"], e["note"]) for e in extras] == [
        ("w1", "build part A"),
        ("w2", "build part B"),
    ]
    assert {e["originSessionId"] for e in extras} == {"ses-plan"}
    # What the model was shown of the answers (merged ones arrive as later user messages).
    seen = " ".join(r.raw.decode() for r in fp.requests if "(callback_result" in r.raw.decode())
    assert "w1 finished: " in seen and "build part A" in seen
    assert "w2 finished: " in seen and "build part B" in seen
    assert all(r.accepted for r in fp.requests)


async def test_an_awaited_question_is_answered_by_the_final_text(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    def respond(request: ReceivedRequest) -> Turn:
        item = _first_user_text(request)
        assert "Reply expected: your final answer is sent back" in item
        return Turn(text=f"2 + 2 is 4. {COMPLETION_MARKER}")

    fp.responder = respond
    await runtime.add_agent("helper", _llm(fp, protocol), NO_WINDOW)
    asker = await runtime.add_agent("asker", EchoBrain(), NO_WINDOW, start=False)
    sent = await runtime.channels.send("asker", "helper", "what is 2+2?", await_reply=True)
    assert sent.message is not None

    async def answer() -> list[Any]:
        return [i for i in asker.queued_items() if i.source_type == "callback_result"]

    [result] = await eventually(answer, what="the answer reached the asker")
    assert "2 + 2 is 4." in result.content and COMPLETION_MARKER not in result.content
    assert result.payload["extra"]["conversationId"] == sent.message.conversation_id
    [request] = fp.requests
    assert f"[conversation:{sent.message.conversation_id}] what is 2+2?" in request.raw.decode()


async def test_the_model_replies_with_the_conversation_tag_it_was_shown(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    def respond(request: ReceivedRequest) -> Turn:
        item = _first_user_text(request)
        if _tool_results(request):
            return Turn(text=f"Replied to the asker. {COMPLETION_MARKER}")
        assert "Reply expected" not in item  # a plain message: nothing is posted by itself
        [conversation] = re.findall(r"\[conversation:([^\]]+)\]", item)
        return Turn(
            tool_calls=[
                FakeToolCall(
                    "agent_send_message",
                    {"to": "asker", "message": "looking into it", "conversation_id": conversation},
                )
            ]
        )

    fp.responder = respond
    helper = await runtime.add_agent("helper", _llm(fp, protocol), NO_WINDOW)
    asker = await runtime.add_agent("asker", EchoBrain(), NO_WINDOW, start=False)
    sent = await runtime.channels.send("asker", "helper", "FYI: the build is red")
    assert sent.message is not None
    await eventually(lambda: asker.queued_items(), what="the reply reached the asker")
    await eventually(lambda: helper.state == "idle" and helper.depth == 0, what="helper done")
    system = json.dumps(fp.requests[0].body)  # the scenario says how to reply
    assert "[conversation:<id>] tag" in system and "agent_send_message with to set" in system
    [reply] = asker.queued_items()
    assert reply.source_type == "a2a_message"
    assert reply.content == f"[conversation:{sent.message.conversation_id}] looking into it"
    history = await runtime.store.find_channel_messages("dm:a2a:asker:helper")
    assert [(m.sender_id, m.text) for m in history] == [
        ("asker", "FYI: the build is red"),
        ("helper", "looking into it"),  # the final text was not posted as well
    ]
    assert history[1].reply_to == history[0].id
