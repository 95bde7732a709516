"""Make docs/channel-view.png from a real run.

Run: ``.venv/bin/python docs/channel_view_screenshot.py``

Three scripted agents on a real attn server (runtime on an SQLite file, the
API, the live WebSocket, the web UI) in the team channel ``group:release``.
Maya asks the lead whether 2.4 can ship; the lead answers, then hands the work
to its two workers in the channel with @mentions and awaits their replies.
ana is idle and starts at once; ben is busy with the nightly build, so the
message queues behind it. Both reply to the lead with a mention. The page
shows each message's sender, mentions, conversation and delivery outcome per
recipient. The picture is taken in Debian's headless Chromium.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "server" / "ui"))

from playwright.sync_api import expect, sync_playwright
from uihelp import NEW, AgentSpec, GateBrain, UiServer, launch

from attn.brains import ScriptBrain
from attn.core.focus import Focus, Reply
from attn.models import MailboxItem
from attn.runtime import Runtime

TEAM = ["ana", "ben", "lead"]
ASK = "@lead can we ship 2.4 today?"
DELEGATION = "@ana please draft the 2.4 changelog; @ben run the smoke tests on staging."


class Worker(GateBrain):
    """Answers a channel message with ``reply``; anything else waits for its gate."""

    def __init__(self, reply: str) -> None:
        super().__init__()
        self.reply = reply

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | None:
        if item.source_type != "a2a_message":
            return await super().__call__(item, focus)
        focus.log("status", "on it")
        focus.report_usage(tokens=900, tools=2)
        return Reply(self.reply)


def idle(name: str) -> Callable[[Runtime], bool]:
    def check(runtime: Runtime) -> bool:
        agent = runtime.get_agent(name)
        return agent.depth == 0 and agent.focus_item is None

    return check


def drive(server: UiServer) -> str:
    """The exchange on group:release; returns the channel key."""

    async def team(runtime: Runtime) -> str:
        channel = await runtime.channels.ensure_team("release", TEAM, "Release 2.4")
        return channel.key

    key = server.call(team)
    server.call(lambda rt: rt.channels.post(key, "maya", ASK, sender_kind="person"))
    server.wait_until(idle("lead"))
    server.enqueue(
        "ben",
        "system_event",
        {"content": "Run the nightly build #312", "key": "build"},
        until={NEW: "processing"},
    )
    server.call(lambda rt: rt.channels.post(key, "lead", DELEGATION, await_reply=True))
    server.wait_until(idle("ana"))
    server.open_gate("ben", "build")
    for name in ("ben", "lead"):
        server.wait_until(idle(name))
    server.settle()
    return key


def main() -> None:
    agents = [
        AgentSpec(
            "lead",
            ScriptBrain(
                [
                    {"log": "planning"},
                    {"reply": "Yes if the changelog and smoke tests are done; asking ana and ben."},
                ]
            ),
            description="plans the release",
        ),
        AgentSpec(
            "ana",
            Worker("@lead changelog drafted: 14 fixes, 3 features, 1 breaking change."),
            description="writes docs",
        ),
        AgentSpec(
            "ben",
            Worker("@lead smoke tests pass on staging (42/42)."),
            description="runs the builds",
        ),
    ]
    with (
        tempfile.TemporaryDirectory() as folder,
        UiServer(Path(folder) / "ui.db", agents) as server,
        sync_playwright() as playwright,
    ):
        key = drive(server)
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{server.url}/#/channels/{key}")
        expect(page.locator("#connection")).to_have_attribute("data-status", "live")
        expect(page.get_by_role("heading", level=1)).to_have_text("Release 2.4")
        rows = page.locator(".channel-messages > .channel-message")
        expect(rows).to_have_count(5)
        expect(rows.nth(4)).to_contain_text("@lead")
        page.get_by_label("Post as").fill("maya")
        page.get_by_label("Message to the channel").fill("Thanks all, shipping at five.")
        page.mouse.move(0, 0)
        page.screenshot(path=HERE / "channel-view.png", full_page=True)
        browser.close()
    print(f"wrote {HERE / 'channel-view.png'}")


if __name__ == "__main__":
    main()
