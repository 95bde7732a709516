"""Make docs/mind-view.png (and docs/agents-overview.png) from a real run.

Run: ``.venv/bin/python docs/mind_view_screenshot.py``

Three agents on a real attn server (runtime on an SQLite file, the API, the
live WebSocket, the web UI), driven through their mailboxes until the Agent
Mind view of ``ada`` shows: a focus that was preempted by a person's chat and
then resumed, queued items, two agent messages merged into one, an
informational status update completed without a model call, and an item
dropped after its tool failed. The pictures are taken in Debian's headless
Chromium. (Emoji need a colour emoji font, e.g. Debian's fonts-noto-color-emoji.)
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "server" / "ui"))

from playwright.sync_api import expect, sync_playwright
from uihelp import NEW, AgentSpec, GateBrain, UiServer, launch

from attn.brains import EchoBrain
from attn.config import AgentConfig

MAYA = {"senderId": "maya", "senderName": "Maya"}


CHAT = "Can you look at the failing deploy first?"
REPLY = "The deploy failed on a missing migration; I re-ran it and staging is green again."


def drive_before_chat(server: UiServer) -> dict[str, str]:
    """History for ada, then a review it works on; bob and carol at work."""
    ids: dict[str, str] = {}
    server.open_gate("ada", "beat")
    server.enqueue(
        "ada",
        "heartbeat",
        {"summary": "Heartbeat check-in", "key": "beat"},
        until={NEW: "completed"},
    )
    server.open_gate("ada", "What's left before the 2.4 release?")
    server.enqueue(
        "ada",
        "human_chat",
        {"content": "What's left before the 2.4 release?"},
        metadata=MAYA,
        until={NEW: "completed"},
    )
    server.enqueue(
        "ada",
        "task_status_update",
        {"summary": "Task T-12 moved to review", "taskId": "T-12", "status": "review"},
        until={NEW: "completed"},
    )
    server.enqueue(
        "ada",
        "system_event",
        {"content": "Rotate the staging API keys", "fail": True},
        until={NEW: "dropped"},
    )
    ids["resumed"] = server.enqueue(
        "ada",
        "review_request",
        {"content": "Review PR 42: retry budget for flaky uploads", "key": "review"},
        until={NEW: "processing"},
    )
    server.enqueue(
        "bob",
        "system_event",
        {"content": "Run the nightly build #312", "key": "b"},
        until={NEW: "processing"},
    )
    server.enqueue(
        "bob",
        "a2a_message",
        {"content": "Can you tag 2.4.0-rc1 after the build?"},
        metadata={"senderId": "ada", "senderName": "ada"},
    )
    for text in ("Summarise yesterday's incidents", "Draft the release notes"):
        server.enqueue(
            "carol",
            "a2a_message",
            {"content": text},
            metadata={"senderId": "ada", "senderName": "ada"},
            until={NEW: "completed"},
        )
    return ids


def drive_after_chat(server: UiServer, ids: dict[str, str]) -> None:
    """Mail that waits behind ada's resumed review; two agent messages merge."""
    ids["merged"] = server.enqueue(
        "ada",
        "a2a_message",
        {"content": "Build 311 is green", "channelKey": "dm:bob:ada"},
        metadata={"senderId": "bob", "senderName": "bob"},
    )
    server.enqueue(
        "ada",
        "a2a_message",
        {"content": "Deploy 88 finished on staging", "channelKey": "dm:bob:ada"},
        metadata={"senderId": "ci", "senderName": "ci-bot"},
    )
    server.enqueue("ada", "heartbeat", {"summary": "Heartbeat check-in"})
    server.enqueue("ada", "daily_report", {"summary": "Daily report for Tuesday"})
    server.settle()


def main() -> None:
    agents = [
        AgentSpec(
            "ada",
            GateBrain(replies={CHAT: REPLY}),
            AgentConfig(max_attempts=1),
            "reviews pull requests and answers the team",
        ),
        AgentSpec("bob", GateBrain(), description="runs the nightly build"),
        AgentSpec("carol", EchoBrain(steps=2), description="writes reports"),
    ]
    with (
        tempfile.TemporaryDirectory() as folder,
        UiServer(Path(folder) / "ui.db", agents) as server,
        sync_playwright() as playwright,
    ):
        ids = drive_before_chat(server)
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{server.url}/#/agents/ada")
        expect(page.locator("#connection")).to_have_attribute("data-status", "live")
        expect(page.locator(".attention .state-badge")).to_have_text("FOCUSED")
        # Maya's chat, sent from the page, preempts the review; the review then resumes.
        server.open_gate("ada", CHAT)
        page.get_by_label("Message").fill(CHAT)
        page.get_by_role("button", name="Send").click()
        expect(page.locator(".from-agent .text").last).to_have_text(f"Working on it… {REPLY}")
        resumed = page.locator(f".row[data-id='{ids['resumed']}']")
        expect(resumed).to_have_attribute("data-status", "processing")
        drive_after_chat(server, ids)
        expect(page.locator(".timeline-rows > .row")).to_have_count(10)
        expect(page.locator(".depth-line")).to_have_text("Queue: 3 items waiting")
        status_chips = page.get_by_role("group", name="Filter by status").get_by_role("button")
        expect(status_chips.first).to_have_text(re.compile(r"All\s+10"))
        expect(status_chips.nth(4)).to_have_text(re.compile(r"Merged\s+1"))
        for key in ("resumed", "merged"):
            page.locator(f".row[data-id='{ids[key]}'] .row-head").click()
        expect(resumed.locator(".row-detail .decision-badge")).to_have_count(4)
        page.get_by_label("Message").fill("Ship it once the review is done?")
        page.mouse.move(0, 0)
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=HERE / "mind-view.png", full_page=True)

        page.goto(server.url)
        expect(page.locator(".agent-card")).to_have_count(3)
        page.screenshot(
            path=HERE / "agents-overview.png", clip={"x": 0, "y": 0, "width": 1280, "height": 320}
        )
        browser.close()
    print(f"wrote {HERE / 'mind-view.png'} and {HERE / 'agents-overview.png'}")


if __name__ == "__main__":
    main()
