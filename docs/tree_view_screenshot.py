"""Make docs/tree-view.png: the web UI's tree view of a real run of the demo tree.

Run: ``.venv/bin/python docs/tree_view_screenshot.py``

The agents of ``attn serve --demo-llm`` (:func:`attn.testing.demo_model.demo_team_toml`)
think with the LLM brain on the local fake provider (:class:`attn.testing.FakeProvider`
answering with :func:`attn.testing.demo_model.demo_responder`: no network, no key),
hosted on a real attn server (runtime on an SQLite file, the API, the live
WebSocket, the web UI). A person asks ``planner`` to "spawn two helpers to plan
the launch": it spawns ``/root/research`` and ``/root/outline`` with the Agent
tool, each helper's finished turn sends it one RESULT, which wakes it, and it
sums both up (:mod:`attn.testing.demo_tree`).

Then the tree's turn slots are lowered to one (``PATCH /api/trees/planner``)
and the person asks again: the planner gives both helpers the new task with
SendMessage; one takes the slot and the other waits for it. This second time
the demo model streams a helper's answer slowly (``HELPER_PACE_S`` between
events instead of the demo's 0.15 s), so that the picture, taken in Debian's
headless Chromium while the first helper works, shows it running and holding
the slot, the other waiting with its mail unread, and the planner's first two
RESULTs (completed, with their previews).
"""

from __future__ import annotations

import dataclasses
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "server" / "ui"))

import httpx
from playwright.sync_api import expect, sync_playwright
from uihelp import UiServer, launch

from attn.brains.from_config import brain_problem, build_brains
from attn.brains.llm.tiers import build_tiers
from attn.config import AttnConfig, parse_config
from attn.models import RESULT_TYPE
from attn.runtime import Runtime
from attn.store.base import ItemQuery
from attn.testing import FakeProvider, eventually
from attn.testing.demo_model import demo_responder, demo_team_toml
from attn.testing.fake_provider import ReceivedRequest, Turn

ROOT = "planner"
FIRST = "spawn two helpers to plan the launch"
AGAIN = "spawn two helpers to plan the release notes"
HELPERS = ("planner.research", "planner.outline")
#: Seconds between two streamed events of a helper's answer the second time.
HELPER_PACE_S = 4.0
#: Seconds the demo tree gets for each exchange.
EXCHANGE_S = 60.0


class Pacing:
    """The demo model, with the helpers' answers slowed down once ``slow`` is set."""

    def __init__(self) -> None:
        self.slow = False

    def __call__(self, request: ReceivedRequest) -> Turn:
        turn = demo_responder(request)
        if self.slow and turn.text.startswith("Done. "):  # a helper's answer to its mail
            return dataclasses.replace(turn, pace_s=HELPER_PACE_S)
        return turn


def host(server: UiServer, config: AttnConfig) -> None:
    """Add the demo's agents and its team channel, as ``attn serve --demo-llm`` does."""
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


def ask(server: UiServer, text: str) -> None:
    async def chat(runtime: Runtime) -> str:
        reply = await runtime.get_agent(ROOT).send_message(
            text, sender_id="maya", sender_name="Maya", session_id="ses_plan"
        )
        return reply.text

    print(f"{ROOT}: {server.call(chat, EXCHANGE_S)}")


def first_round(server: UiServer) -> None:
    """Both helpers spawned, both RESULTs in and summed up by the planner."""
    ask(server, FIRST)

    async def both_back(runtime: Runtime) -> None:
        async def done() -> bool:
            query = ItemQuery(ROOT, source_types=(RESULT_TYPE,), limit=10)
            results = await runtime.store.find_items(query)
            return len(results) == 2 and all(str(r.status) != "queued" for r in results)

        await eventually(done, what="both RESULTs read", timeout_s=EXCHANGE_S)

    server.call(both_back, EXCHANGE_S + 5)
    for name in (ROOT, *HELPERS):
        server.wait_until(
            lambda rt, n=name: rt.get_agent(n).depth == 0 and rt.get_agent(n).focus_item is None,
            EXCHANGE_S,
        )
    server.settle()


def main() -> None:
    os.environ["OPENAI_API_KEY"] = "sk-demo-not-a-key"  # the fake provider checks no key
    model = FakeProvider()
    pacing = Pacing()
    model.responder = pacing
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
            first_round(server)
            patched = httpx.patch(f"{server.url}/api/trees/{ROOT}", json={"capacity": 1})
            assert patched.status_code == 200, patched.text
            pacing.slow = True
            ask(server, AGAIN)

            def states(rt: Runtime) -> set[str]:
                return {str(rt.tree.gates[h].state) for h in HELPERS if h in rt.tree.gates}

            server.wait_until(lambda rt: states(rt) == {"running", "waiting"}, EXCHANGE_S)
            server.wait_until(lambda rt: rt.get_agent(ROOT).focus_item is None, EXCHANGE_S)

            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(f"{server.url}/#/trees/{ROOT}")
            expect(page.locator("#connection")).to_have_attribute("data-status", "live")
            expect(page.locator(".tree-node")).to_have_count(3)
            expect(page.locator(".tree-header .slots-count")).to_have_text("1 / 1")
            expect(page.locator(".tree-header .slots-waiting")).to_be_visible()
            for state in ("idle", "running", "waiting"):
                expect(page.locator(f".tree-node[data-state='{state}']")).to_have_count(1)
            expect(page.locator(".result-entry")).to_have_count(2)
            expect(page.locator(".result-entry .result-outcome")).to_have_text(
                ["Completed", "Completed"]
            )
            page.mouse.move(0, 0)
            page.screenshot(path=HERE / "tree-view.png", full_page=True)
            browser.close()
    finally:
        model.stop()
    print(f"wrote {HERE / 'tree-view.png'}")


if __name__ == "__main__":
    main()
