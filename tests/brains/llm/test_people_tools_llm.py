"""An LLM agent asks a person with request_user_approval, is parked, and resumes in the
same conversation with the answer; a chat starts after the main session so far.

Real parts: the LLM brain over the official SDKs to :class:`attn.testing.FakeProvider`
(both protocols), the agent's composed tools, the runtime's people service on the
in-memory store.

Spec: 000 §13.1, §13.2, §20; acceptance PPL-01, PPL-03, PPL-06, PPL-17.
"""

from __future__ import annotations

from attn import AgentConfig, Runtime
from attn.brains import build_brain
from attn.models import COMPLETION_MARKER, ItemStatus
from attn.store.base import ItemQuery
from attn.testing import FakeProvider, FakeToolCall, ReceivedRequest, Turn, eventually
from tests.brains.llm.loop_kit import fake_options
from tests.brains.llm.test_channel_tools_llm import _tool_results
from tests.brains.llm.test_tree_tools_llm import _user_texts

NO_WINDOW = AgentConfig(coalesce_window_ms=0)


class Model:
    """Asks before deploying; deploys once approved; chats with what it remembers."""

    def __init__(self) -> None:
        self.deploys = 0
        self.answers_seen: list[str] = []
        self.chat_openings: list[str] = []

    def __call__(self, request: ReceivedRequest) -> Turn:
        texts = _user_texts(request)
        if any("(human_chat," in t for t in texts):
            self.chat_openings.append(texts[0])
            return Turn(text="We talked about the deploy.")
        told = [t for t in texts if t.startswith("A person answered your request_user_approval")]
        if told:
            self.answers_seen.append(told[-1])
            if '"approved": true' in told[-1]:
                self.deploys += 1
                return Turn(text=f"Deployed v2. {COMPLETION_MARKER}")
            return Turn(text=f"Not deploying. {COMPLETION_MARKER}")
        if _tool_results(request):
            return Turn(text="(should not be asked: the item parks after the call)")
        return Turn(
            tool_calls=[
                FakeToolCall(
                    "request_user_approval",
                    {"title": "Deploy v2?", "description": "All checks are green."},
                ),
                FakeToolCall("notify_user", {"title": "Waiting", "body": "Asked about v2."}),
            ]
        )


async def test_ppl_03_an_llm_agent_parks_on_its_question_and_resumes_with_the_answer(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    model = Model()
    fp.responder = model
    agent = await runtime.add_agent(
        "ops", build_brain("llm", fake_options(fp, protocol)), NO_WINDOW
    )
    await agent.enqueue(
        "task_comment", {"content": "deploy v2 when it is approved", "taskId": "t1"}
    )

    async def parked() -> list[object]:
        query = ItemQuery("ops", statuses=(ItemStatus.PARKED,), limit=10)
        return list(await runtime.store.find_items(query))

    (item,) = await eventually(parked, what="the item parked on its question")
    [calling] = [r for r in fp.requests if _tool_results(r)] or [None]
    assert calling is None  # no model request after the call: the turn ended
    (approval,), _ = await runtime.people.approvals.page(states=["pending"])
    assert approval.item_id == item.id and approval.title == "Deploy v2?"
    requests_before = len(fp.requests)

    await runtime.people.approvals.answer(approval.id, option="approve", comment="go")

    async def done() -> int | None:
        return model.deploys or None

    assert await eventually(done, what="the resumed work deployed") == 1
    (told,) = model.answers_seen
    assert '"selected_option": "approve"' in told and '"comment": "go"' in told
    resumed = fp.requests[requests_before]
    results = _tool_results(resumed)
    assert results[0]["status"] == "pending" and results[0]["approvalId"] == approval.id
    assert results[1]["status"] == "ok"  # notify_user in the same turn ran once
    assert all(r.accepted for r in fp.requests)

    # The person's next chat starts after the main session: the notify message and the
    # activity lines of the deploy are what the model reads first.
    reply = await agent.send_message("what did you do?", timeout_s=30)
    assert reply.text == "We talked about the deploy."
    (opening,) = model.chat_openings
    assert opening.startswith("Your main session so far")
    assert "**Waiting**" in opening and "[ACTIVITY: task_comment]" in opening
