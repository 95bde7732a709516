"""Make docs/approval.png: an approval card in the web UI, from a real run of the demo.

Run: ``.venv/bin/python docs/approval_screenshot.py``

The agents of ``attn serve --demo-llm`` (:func:`attn.testing.demo_model.demo_team_toml`)
think with the LLM brain on the local fake provider (:class:`attn.testing.FakeProvider`
answering with :func:`attn.testing.demo_model.demo_responder`: no network, no key),
hosted on a real attn server (runtime on an SQLite file, the API, the live
WebSocket, the web UI). Maya, the owner, first asks ``ada`` a sum, then asks
her to "deploy v2 to production": ada calls ``request_user_approval``
(:mod:`attn.testing.demo_people`), her chat item is parked and her loop goes
on. The picture, taken in Debian's headless Chromium, is ada's Agent Mind
page: the card with its options, the free-text box and the expiry, the parked
item linked to it, and the bell's unread count.

Then the script answers as a person would: it clicks Approve on the card, with
a comment, and checks that the work resumed (the parked chat gets its reply
and the item completes), so the picture is of a run that works end to end.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "server" / "ui"))

from playwright.sync_api import expect, sync_playwright
from uihelp import UiServer, launch

from attn.brains.from_config import brain_problem, build_brains
from attn.brains.llm.tiers import build_tiers
from attn.config import AttnConfig, parse_config
from attn.config.people import User, Users
from attn.runtime import Runtime
from attn.testing import FakeProvider
from attn.testing.demo_model import demo_responder, demo_team_toml

AGENT = "ada"
SUM = "what is 17 + 25?"
DEPLOY = "deploy v2 to production"
#: Seconds the demo gets for each exchange.
EXCHANGE_S = 60.0


def host(server: UiServer, config: AttnConfig) -> None:
    """Add the demo's agents, as ``attn serve --demo-llm`` does, and Maya as the owner."""
    brains = build_brains(config)
    tiers = [build_tiers(section.brain, dict(section.options)) for section in config.agents]

    async def add(runtime: Runtime) -> None:
        runtime.people.set_users(Users((User("maya", "Maya", owner=True),)))
        for section, brain, tier in zip(config.agents, brains, tiers, strict=True):
            agent = await runtime.add_agent(
                section.name,
                brain,
                config.agent_settings(section).agent_config(),
                description=section.description,
                classifier=tier.classifier,
                deliberator=tier.deliberator,
            )
            tier.bind(agent)
        for team in config.teams.values():
            await runtime.channels.ensure_team(team.name, team.members, team.display_name)

    server.call(add)


def ask_sum(server: UiServer) -> None:
    async def chat(runtime: Runtime) -> str:
        reply = await runtime.get_agent(AGENT).send_message(
            SUM, sender_id="maya", sender_name="Maya", session_id="ses_ops"
        )
        return reply.text

    print(f"{AGENT}: {server.call(chat, EXCHANGE_S)}")


def ask_to_deploy(server: UiServer) -> asyncio.Future[str]:
    """Send the deploy chat; its reply comes only after the approval is answered."""

    async def start(runtime: Runtime) -> asyncio.Future[str]:
        async def chat() -> str:
            reply = await runtime.get_agent(AGENT).send_message(
                DEPLOY, sender_id="maya", sender_name="Maya", session_id="ses_ops"
            )
            return reply.text

        return asyncio.ensure_future(chat())

    return server.call(start)


def main() -> None:
    os.environ["OPENAI_API_KEY"] = "sk-demo-not-a-key"  # the fake provider checks no key
    model = FakeProvider()
    model.responder = demo_responder
    model.start_in_thread()
    try:
        config = parse_config(
            demo_team_toml(model.openai_base_url), source="demo-llm", check_agent=brain_problem
        )
        with (
            tempfile.TemporaryDirectory() as folder,
            UiServer(Path(folder) / "ui.db", []) as server,
            sync_playwright() as playwright,
        ):
            host(server, config)
            ask_sum(server)
            reply = ask_to_deploy(server)
            server.wait_until(lambda rt: bool(rt.get_agent(AGENT).mailbox.transitions.parked))
            server.wait_until(lambda rt: rt.get_agent(AGENT).focus_item is None)
            server.settle()

            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{server.url}/#/agents/{AGENT}")
            expect(page.locator("#connection")).to_have_attribute("data-status", "live")
            card = page.locator(".agent-approvals .approval-card")
            expect(card).to_have_count(1)
            expect(card.locator(".approval-title")).to_have_text("Deploy v2 to production?")
            expect(card.get_by_role("button", name="Approve")).to_be_visible()
            expect(page.locator(".parked-list .queue-entry")).to_have_count(1)
            expect(page.locator(".timeline-rows .row[data-status='parked']")).to_have_count(1)
            expect(page.locator(".bell-count")).to_have_text("1")
            expect(page.locator(".chat-log .from-agent")).to_contain_text(["42"])
            page.mouse.move(0, 0)
            page.screenshot(path=HERE / "approval.png", full_page=True)

            # A person answers in the web UI; the parked work resumes.
            card.get_by_label("Your answer (free text, or a comment with an option)").fill(
                "go, and watch the error rate"
            )
            card.get_by_role("button", name="Approve").click()
            expect(card.locator(".approval-state")).to_have_text("Approved")
            expect(page.locator(".timeline-rows .row[data-status='parked']")).to_have_count(0)

            async def answered(runtime: Runtime) -> str:
                return await asyncio.wait_for(reply, EXCHANGE_S)

            print(f"{AGENT}: {server.call(answered, EXCHANGE_S + 5)}")
            expect(page.locator(".chat-log .notify-message")).to_contain_text("Deployed v2")
            browser.close()
    finally:
        model.stop()
    print(f"wrote {HERE / 'approval.png'}")


if __name__ == "__main__":
    main()
