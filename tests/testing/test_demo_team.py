"""The LLM demo team's channel work (``attn serve --demo-llm``): a chat asking the
lead for its team is delegated to ada and ben, who answer on ``group:demo`` with
``@lead``, and the answers resume the lead's chat session (issue 13 "Done when")."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from attn import Runtime
from attn.brains.from_config import brain_problem, build_brains
from attn.config import parse_config
from attn.models import Delegation, DelegationStatus, MailboxItem
from attn.store.base import ItemQuery
from attn.testing import FakeProvider, eventually
from attn.testing.demo_model import demo_responder, demo_team_toml


@pytest.fixture
async def demo(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Runtime]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-demo-not-a-key")
    async with FakeProvider() as model:
        model.responder = demo_responder
        config = parse_config(
            demo_team_toml(model.openai_base_url), source="demo-llm", check_agent=brain_problem
        )
        async with Runtime() as runtime:
            for section, brain in zip(config.agents, build_brains(config), strict=True):
                settings = config.agent_settings(section).agent_config()
                await runtime.add_agent(section.name, brain, settings)
            for team in config.teams.values():
                await runtime.channels.ensure_team(team.name, team.members, team.display_name)
            yield runtime


async def test_the_lead_delegates_and_the_answers_come_back_to_its_chat(demo: Runtime) -> None:
    lead = demo.get_agent("lead")
    reply = await lead.send_message("ask the team to plan the launch", session_id="ses_chat")
    assert "ada" in reply.text and "ben" in reply.text

    async def answered() -> list[Delegation]:
        records = await demo.channels.delegations("lead")
        done = [r for r in records if r.status == DelegationStatus.ANSWERED]
        return done if len(done) == 2 else []

    records = await eventually(answered, what="both delegations answered", timeout_s=30)
    assert {r.delegate for r in records} == {"ada", "ben"}
    group = (await demo.channels.history("group:demo")).messages
    assert {m.sender_id for m in group} == {"ada", "ben"}
    assert all(m.mentions == ("lead",) and m.text.startswith("@lead done:") for m in group)
    assert all([d.recipient for d in m.deliveries] == ["lead"] for m in group)

    async def resumed() -> list[MailboxItem]:
        query = ItemQuery("lead", source_types=("callback_result",), limit=10)
        found = [i for i in await demo.store.find_items(query) if str(i.status) == "completed"]
        return found if len(found) == 2 else []

    results = await eventually(resumed, what="both answers processed by lead", timeout_s=30)
    assert {i.extra("originSessionId") for i in results} == {"ses_chat"}
