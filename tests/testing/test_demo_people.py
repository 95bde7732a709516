"""The demo model asks before a deploy; the person's answer resumes the chat (issue 15's
README walkthrough), through the LLM brain, the fake provider and the people service."""

from __future__ import annotations

import asyncio

import pytest

from attn import AgentConfig, Runtime
from attn.brains import build_brain
from attn.testing import FakeProvider, eventually
from attn.testing.demo_model import demo_responder


async def test_a_deploy_chat_parks_on_its_approval_and_the_answer_finishes_it(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATTN_TEST_KEY", "test-key")
    async with FakeProvider() as fp:
        fp.responder = demo_responder
        options = {
            "provider": "openai",
            "model": "attn-demo",
            "base_url": fp.openai_base_url,
            "api_key_env": "ATTN_TEST_KEY",
        }
        agent = await runtime.add_agent(
            "ada", build_brain("llm", options), AgentConfig(coalesce_window_ms=0)
        )
        chat = asyncio.ensure_future(agent.send_message("deploy v2 to production", timeout_s=60))

        async def asked() -> object:
            found, _ = await runtime.people.approvals.page(states=["pending"])
            return found[0] if found else None

        approval = await eventually(asked, what="the agent asked for approval")
        assert approval.title == "Deploy v2 to production?" and approval.allow_freeform
        assert not chat.done()  # the chat waits for its parked item; the loop does not
        await runtime.people.approvals.answer(approval.id, option="approve", comment="go ahead")
        reply = await chat
        assert reply.text == "Done: v2 to production is deployed, as you approved."
        page = await runtime.people.notifications.page()
        assert [n.title for n in page.notifications] == [
            "Deployed v2 to production",
            "Deploy v2 to production?",
        ]
