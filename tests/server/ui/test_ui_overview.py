"""UI-01: the start page lists every agent with its attention state, focus and
queue depth, and follows enqueues and processing live, without a reload."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from attn.brains import EchoBrain
from tests.server.ui.uihelp import AgentSpec, GateBrain, UiServer


@pytest.fixture
def server(tmp_path: Path) -> Iterator[UiServer]:
    agents = [
        AgentSpec("ada", GateBrain(), description="works until the test opens the gate"),
        AgentSpec("bob", EchoBrain(), description="echoes at once"),
        AgentSpec("cy", EchoBrain(steps=2), description="echoes in two steps"),
    ]
    with UiServer(tmp_path / "ui.db", agents) as running:
        yield running


def test_ui_01_overview_lists_agents_and_updates_live(server: UiServer, page: Any) -> None:
    page.goto(server.url)
    cards = page.locator(".agent-card")
    expect(cards).to_have_count(3)
    expect(cards.locator(".agent-name")).to_have_text(["ada", "bob", "cy"])
    ada = page.locator(".agent-card[data-agent=ada]")
    expect(ada.locator(".state-badge")).to_have_text(re.compile("idle", re.I))
    expect(ada.locator(".agent-focus")).to_contain_text("Not focused")
    expect(ada.locator(".agent-depth")).to_have_text("0 items queued")
    expect(page.locator("#connection")).to_have_attribute("data-status", "live")
    page.evaluate("window.__sameDocument = true")  # gone if the page reloads

    # An item the agent works on: focused, with its type and summary.
    server.enqueue("ada", "review_request", {"content": "Review the parser", "key": "review"})
    expect(ada.locator(".state-badge")).to_have_text(re.compile("focused", re.I))
    expect(ada.locator(".agent-focus")).to_contain_text("Review Request")
    expect(ada.locator(".agent-focus")).to_contain_text("Review the parser")
    expect(ada.locator(".agent-focus .elapsed")).to_have_text(re.compile(r"for \d+ s"))

    # Two more wait behind it: the depth follows.
    server.enqueue("ada", "a2a_message", {"content": "build is green", "key": "a2a"})
    server.enqueue("ada", "heartbeat", {"summary": "patrol", "key": "hb"})
    expect(ada.locator(".agent-depth")).to_have_text("2 items queued")

    # Processing them empties the queue and the agent goes idle again.
    server.open_gate("ada")
    expect(ada.locator(".agent-depth")).to_have_text("0 items queued")
    expect(ada.locator(".state-badge")).to_have_text(re.compile("idle", re.I))
    expect(ada.locator(".agent-focus")).to_contain_text("Not focused")

    # Another agent processes as well, and its card follows.
    server.enqueue("bob", "human_chat", {"content": "hi bob"})
    server.wait_until(lambda rt: rt.get_agent("bob").statistics().get("completed", 0) >= 1)
    expect(page.locator(".agent-card[data-agent=bob] .state-badge")).to_have_text(
        re.compile("idle", re.I)
    )
    assert page.evaluate("window.__sameDocument") is True

    # The link opens the agent's Mind view.
    page.get_by_role("link", name="ada").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("ada")
