"""PPL-01, PPL-17, UI-06: the agent's main session in the chat panel, in
Chromium. The Chat tab holds people's messages, the agent's replies and its
notify_user messages (badged, with the task they are about); the Mind tab adds
one activity line per processed non-chat item; both follow live
``session:message`` events, and a message sent from the panel shows once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.server.ui.peoplehelp import AskingBrain, host_people
from tests.server.ui.uihelp import NEW, AgentSpec, UiServer, axe_violations


@pytest.fixture
def server(tmp_path: Path) -> Iterator[UiServer]:
    brain = AskingBrain()
    with UiServer(tmp_path / "ui.db", [AgentSpec("ada", brain)]) as running:
        host_people(running, brain)
        yield running


def test_ppl_17_chat_shows_notify_messages_and_mind_shows_activity(
    server: UiServer, page: Any
) -> None:
    page.goto(f"{server.url}/#/agents/ada")
    expect(page.locator("#connection")).to_have_attribute("data-status", "live")
    log = page.get_by_role("log")
    chat_tab = page.get_by_role("tab", name="Chat")
    mind_tab = page.get_by_role("tab", name="Mind")
    expect(chat_tab).to_have_attribute("aria-selected", "true")

    notified = httpx.post(
        f"{server.url}/api/agents/ada/notify",
        json={
            "title": "Report ready",
            "body": "The Q3 numbers are in.",
            "relatedTaskId": "t-42",
            "priority": "high",
        },
    )
    assert notified.status_code == 201, notified.text
    notify = log.locator(".notify-message")
    expect(notify.locator(".notify-title")).to_have_text("Report ready")
    expect(notify.locator(".text")).to_have_text("The Q3 numbers are in.")
    expect(notify.locator(".tag-notify")).to_have_text("notification")
    expect(notify.get_by_role("link", name="t-42")).to_have_attribute("href", "#/work?task=t-42")
    expect(notify).not_to_contain_text("notify_context")

    # A chat sent here shows once, also after its stored copy arrives.
    page.get_by_label("Message").fill("how are the numbers?")
    page.get_by_role("button", name="Send").click()
    expect(log.locator(".from-agent:not(.notify-message) .text")).to_have_text(
        "done: how are the numbers?"
    )
    expect(
        log.locator("[data-message-id][data-role='assistant']:not(.notify-message)")
    ).to_have_count(1)
    expect(log.locator(".from-user")).to_have_count(1)

    # A processed non-chat item: an activity line, live, in the Mind tab only.
    done = server.enqueue(
        "ada", "system_event", {"content": "rotate the logs"}, until={NEW: "completed"}
    )
    server.settle()
    mind_tab.click()
    expect(mind_tab).to_have_attribute("aria-selected", "true")
    activity = log.locator(".session-activity")
    expect(activity).to_have_count(1)
    expect(activity).to_contain_text("[ACTIVITY: system_event] rotate the logs")
    expect(activity.locator(".activity-outcome")).to_have_text("processed: done: rotate the logs")
    expect(log.locator(".notify-message")).to_have_count(1)  # the Mind tab has the chat too
    server.enqueue(
        "ada", "a2a_message", {"content": "build 312 is green"}, until={NEW: "completed"}
    )
    expect(activity).to_have_count(2)
    expect(activity.nth(1)).to_contain_text("[ACTIVITY: a2a_message] build 312 is green")
    activity.first.get_by_role("button", name="show item").click()
    expect(page.locator(f".row[data-id='{done}']")).to_have_class("row status-completed open")
    assert axe_violations(page) == []

    chat_tab.click()
    expect(log.locator(".from-user")).to_have_count(1)
    expect(activity).to_have_count(0)

    # After a reload the session comes from the store, in order, with nothing twice.
    page.reload()
    expect(page.locator("#connection")).to_have_attribute("data-status", "live")
    roles = log.locator("[data-message-id]")
    expect(roles).to_have_count(3)
    assert [roles.nth(i).get_attribute("data-role") for i in range(3)] == [
        "assistant",
        "user",
        "assistant",
    ]
    expect(log.locator(".session-activity")).to_have_count(0)
    page.get_by_role("tab", name="Chat").press("ArrowRight")  # the keyboard moves between tabs
    expect(page.get_by_role("tab", name="Mind")).to_be_focused()
    expect(page.get_by_role("tab", name="Mind")).to_have_attribute("aria-selected", "true")
    expect(log.locator(".session-activity")).to_have_count(2)


def test_ppl_17_a_reply_stored_before_its_stream_answers_shows_once(
    server: UiServer, page: Any
) -> None:
    """The stored copies of a chat can reach the panel (live events) before the
    stream has said which item it is; they still show as one pair of bubbles."""

    def late_stream(route: Any) -> None:
        # The whole stream, held back until the reply is done and stored.
        route.fulfill(response=route.fetch())

    page.route("**/api/agents/ada/chat/stream", late_stream)
    page.goto(f"{server.url}/#/agents/ada")
    expect(page.locator("#connection")).to_have_attribute("data-status", "live")
    log = page.get_by_role("log")
    page.get_by_label("Message").fill("are we there yet?")
    page.get_by_role("button", name="Send").click()
    reply = log.locator(".from-agent .text")
    expect(reply).to_have_text("done: are we there yet?")
    expect(log.locator(".from-user")).to_have_count(1)
    expect(log.locator(".from-agent")).to_have_count(1)
    expect(log.locator(".from-agent.streaming")).to_have_count(0)
