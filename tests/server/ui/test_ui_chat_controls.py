"""UI-05: chat with an agent and watch the reply stream in; cancel the current
processing after a confirmation; stop, start, pause and resume the agent."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from attn.runtime import Runtime
from tests.server.ui.uihelp import NEW, AgentSpec, GateBrain, UiServer


@pytest.fixture
def server(tmp_path: Path) -> Iterator[UiServer]:
    with UiServer(tmp_path / "ui.db", [AgentSpec("ada", GateBrain())]) as running:
        yield running


def open_mind(page: Any, server: UiServer) -> None:
    page.goto(f"{server.url}/#/agents/ada")
    expect(page.locator("#connection")).to_have_attribute("data-status", "live")
    expect(page.get_by_role("heading", level=1)).to_contain_text("ada")


def agent_json(server: UiServer) -> dict[str, Any]:
    data: dict[str, Any] = httpx.get(f"{server.url}/api/agents/ada").json()
    return data


def test_ui_05_chat_reply_streams_in(server: UiServer, page: Any) -> None:
    open_mind(page, server)
    expect(page.locator(".attention .state-badge")).to_have_text("IDLE")
    page.get_by_label("Message").fill("ship it?")
    page.get_by_role("button", name="Send").click()
    log = page.get_by_role("log")
    expect(log.locator(".from-user")).to_contain_text("ship it?")
    reply = log.locator(".from-agent")
    # The first piece is shown while the agent still works on the rest.
    expect(reply.locator(".text")).to_have_text("Working on it… ")
    expect(reply).to_have_attribute("aria-busy", "true")
    expect(page.locator(".timeline-rows .row.status-processing")).to_contain_text("ship it?")
    expect(page.locator(".focus-line")).to_contain_text("ship it?")
    server.open_gate("ada", "ship it?")
    expect(reply.locator(".text")).to_have_text("Working on it… done: ship it?")
    expect(reply).not_to_have_attribute("aria-busy", "true")
    expect(page.locator(".timeline-rows .row").filter(has_text="ship it?")).to_have_attribute(
        "data-status", "completed"
    )
    # Enter sends too; a blank message is not sent.
    page.get_by_label("Message").fill("   ")
    page.get_by_label("Message").press("Enter")
    expect(log.locator(".from-user")).to_have_count(1)


def test_ui_05_cancel_needs_confirmation(server: UiServer, page: Any) -> None:
    review = server.enqueue(
        "ada",
        "review_request",
        {"content": "Review PR 7", "key": "long"},
        until={NEW: "processing"},
    )
    open_mind(page, server)
    expect(page.locator(".attention .state-badge")).to_have_text("FOCUSED")
    cancel = page.get_by_role("button", name="Cancel current work…")
    dialog = page.get_by_role("dialog", name="Cancel the current work?")

    cancel.click()
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Review PR 7")
    dialog.get_by_role("button", name="Keep working").click()
    expect(dialog).to_be_hidden()
    expect(cancel).to_be_focused()
    assert agent_json(server)["currentFocus"]["id"] == review  # nothing happened

    cancel.click()
    dialog.get_by_label("Reason (kept on the record)").fill("not needed any more")
    dialog.get_by_role("button", name="Cancel work").click()
    row = page.locator(f".row[data-id='{review}']")
    expect(row).to_have_attribute("data-status", "completed")
    expect(page.locator(".attention .state-badge")).to_have_text("IDLE")
    row.locator(".row-head").click()
    expect(row.locator(".decision-badge")).to_contain_text(["pick", "cancel"])
    expect(row.locator(".facts")).to_contain_text("not needed any more")


def test_ui_05_stop_start_pause_resume(server: UiServer, page: Any) -> None:
    server.open_gate("ada")
    open_mind(page, server)
    buttons = {
        name: page.get_by_role("button", name=name, exact=True)
        for name in ("Start", "Stop", "Pause", "Resume")
    }
    expect(buttons["Start"]).to_be_disabled()
    expect(buttons["Resume"]).to_be_disabled()

    buttons["Pause"].click()
    expect(page.locator(".attention .flag")).to_have_text("Paused")
    expect(buttons["Resume"]).to_be_enabled()
    expect(buttons["Pause"]).to_be_disabled()
    assert agent_json(server)["paused"] is True
    buttons["Resume"].click()
    expect(page.locator(".attention .flag")).to_have_count(0)
    assert agent_json(server)["paused"] is False

    buttons["Stop"].click()
    expect(page.locator(".attention .flag")).to_have_text("Stopped")
    expect(buttons["Start"]).to_be_enabled()
    assert agent_json(server)["running"] is False
    # A stopped agent keeps its mail queued.
    item = server.enqueue("ada", "a2a_message", {"content": "while you were out"})
    expect(page.locator(".depth-line")).to_have_text("Queue: 1 item waiting")

    buttons["Start"].click()
    expect(page.locator(".attention .flag")).to_have_count(0)
    expect(page.locator(f".row[data-id='{item}']")).to_have_attribute("data-status", "completed")
    expect(page.locator(".depth-line")).to_have_text("Queue: 0 items waiting")

    async def running(runtime: Runtime) -> bool:
        return runtime.get_agent("ada").running

    assert server.call(running) is True
    expect(page.locator("#notices")).to_contain_text(re.compile("ada started"))
