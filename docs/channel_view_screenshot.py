"""Make docs/channel-view.png and docs/channel-dm.png from a real run of the
README's LLM demo team.

Run: ``.venv/bin/python docs/channel_view_screenshot.py``

The agents of ``attn serve --demo-llm`` (lead, ada and ben, team ``demo``,
:func:`attn.testing.demo_model.demo_team_toml`) think with the LLM brain on the
local fake provider (:class:`attn.testing.FakeProvider` answering with
:func:`attn.testing.demo_model.demo_responder`: no network, no key), hosted on a
real attn server (runtime on an SQLite file, the API, the live WebSocket, the
web UI). A person asks lead in a chat to "ask the team to plan the launch";
lead delegates the question to ada and ben, each of whom answers on
``group:demo`` with ``@lead done: …``, which resolves lead's awaited reply and
comes back to its chat session. The first picture is the channel view of
``group:demo`` (sender, mention, conversation and delivery outcome of each
answer); the second is the direct channel ``dm:a2a:ada:lead`` with lead's
delegation to ada and its outcome. Both are taken in Debian's headless Chromium.
"""

from __future__ import annotations

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
from attn.models import Delegation, DelegationStatus
from attn.runtime import Runtime
from attn.store.base import ItemQuery
from attn.testing import FakeProvider, eventually
from attn.testing.demo_model import demo_responder, demo_team_toml

ASK = "ask the team to plan the launch"
GROUP = "group:demo"
DM = "dm:a2a:ada:lead"
#: Seconds the demo team gets for the whole exchange (the fake model streams at a visible pace).
EXCHANGE_S = 60.0


def host(server: UiServer, config: AttnConfig) -> None:
    """Add the demo team's agents and its channel, as ``attn serve`` does."""
    brains = build_brains(config)
    tiers = [build_tiers(section.brain, dict(section.options)) for section in config.agents]

    async def add(runtime: Runtime) -> None:
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


def drive(server: UiServer) -> None:
    """The person's chat to lead, then both delegations answered and processed."""

    async def chat(runtime: Runtime) -> str:
        lead = runtime.get_agent("lead")
        reply = await lead.send_message(
            ASK, sender_id="maya", sender_name="Maya", session_id="ses_launch"
        )
        return reply.text

    print(f"lead: {server.call(chat, EXCHANGE_S)}")

    async def answered(runtime: Runtime) -> None:
        async def both() -> list[Delegation]:
            records = await runtime.channels.delegations("lead")
            done = [r for r in records if r.status == DelegationStatus.ANSWERED]
            query = ItemQuery("lead", source_types=("callback_result",), limit=10)
            items = await runtime.store.find_items(query)
            back = [i for i in items if str(i.status) == "completed"]
            return done if len(done) == 2 and len(back) == 2 else []

        await eventually(both, what="both delegations answered and back", timeout_s=EXCHANGE_S)

    server.call(answered, EXCHANGE_S + 5)
    for name in ("ada", "ben", "lead"):
        server.wait_until(
            lambda rt, n=name: rt.get_agent(n).depth == 0 and rt.get_agent(n).focus_item is None,
            EXCHANGE_S,
        )
    server.settle()


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
            drive(server)
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 1280, "height": 640})

            page.goto(f"{server.url}/#/channels/{GROUP}")
            expect(page.locator("#connection")).to_have_attribute("data-status", "live")
            expect(page.get_by_role("heading", level=1)).to_have_text("Demo team")
            rows = page.locator(".channel-messages > .channel-message")
            expect(rows).to_have_count(2)
            for n in range(2):
                expect(rows.nth(n)).to_contain_text("@lead done:")
                expect(rows.nth(n).locator('.delivery[data-recipient="lead"]')).to_have_count(1)
            page.mouse.move(0, 0)
            page.screenshot(path=HERE / "channel-view.png", full_page=True)

            page.set_viewport_size({"width": 1280, "height": 520})
            page.goto(f"{server.url}/#/channels/{DM}")
            rows = page.locator(".channel-messages > .channel-message")
            expect(rows).to_have_count(1)
            expect(rows.first).to_contain_text("(ada's part)")
            expect(rows.first.locator('.delivery[data-recipient="ada"]')).to_have_count(1)
            page.mouse.move(0, 0)
            page.screenshot(path=HERE / "channel-dm.png", full_page=True)
            browser.close()
    finally:
        model.stop()
    print(f"wrote {HERE / 'channel-view.png'} and {HERE / 'channel-dm.png'}")


if __name__ == "__main__":
    main()
