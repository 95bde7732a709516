"""UI-08: the pages work at 1280 px and at 390 px wide, pass axe-core with no
serious or critical violation, and never show a raw stack trace."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from attn.brains import EchoBrain
from attn.config import AgentConfig
from tests.server.ui.uihelp import (
    AgentSpec,
    GateBrain,
    UiServer,
    all_statuses_scene,
    axe_violations,
    no_horizontal_overflow,
)

STACK_TRACE = re.compile(
    r"Traceback \(most recent call last\)|File \".*\", line \d+|\n\s+at \S+ \("
)


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[UiServer, dict[str, str]]]:
    agents = [
        AgentSpec("ada", GateBrain(), AgentConfig(max_attempts=1), "reviews and chats"),
        AgentSpec("bob", EchoBrain(), description="echoes at once"),
    ]
    with UiServer(tmp_path_factory.mktemp("layout") / "ui.db", agents) as server:
        yield server, all_statuses_scene(server)


@pytest.mark.parametrize("width", [1280, 390])
def test_ui_08_layout_and_accessibility(
    scene: tuple[UiServer, dict[str, str]], page: Any, width: int
) -> None:
    server, ids = scene
    page.set_viewport_size({"width": width, "height": 900})

    page.goto(server.url)
    expect(page.locator(".agent-card")).to_have_count(2)
    expect(page.locator("#connection")).to_have_attribute("data-status", "live")
    assert no_horizontal_overflow(page), f"the overview scrolls sideways at {width} px"
    assert axe_violations(page) == []

    page.get_by_role("link", name="ada").click()
    expect(page.locator(".timeline-rows > .row")).to_have_count(7)
    for key in ("completed", "queued", "deferred"):
        page.locator(f".row[data-id='{ids[key]}'] .row-head").click()
    completed = page.locator(f".row[data-id='{ids['completed']}']")
    completed.get_by_role("button", name="Load activity log").click()
    expect(completed.locator(".activity-logs > li").first).to_be_visible()
    assert no_horizontal_overflow(page), f"the Mind view scrolls sideways at {width} px"
    assert axe_violations(page) == []
    # Every control can be reached and is on screen.
    for name in ("Send", "Pause", "Load earlier…"):
        button = page.get_by_role("button", name=name)
        if button.count():
            button.scroll_into_view_if_needed()
            box = button.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 1
    page.get_by_label("Message").scroll_into_view_if_needed()
    expect(page.get_by_label("Message")).to_be_in_viewport()

    # The confirmation dialog is accessible too.
    page.get_by_role("button", name="Cancel current work…").click()
    dialog = page.get_by_role("dialog", name="Cancel the current work?")
    expect(dialog).to_be_visible()
    assert axe_violations(page) == []
    dialog.get_by_role("button", name="Keep working").click()

    # Errors are one readable line, never a stack trace.
    page.goto(f"{server.url}/#/agents/nobody")
    expect(page.locator(".load-error")).to_contain_text('There is no agent named "nobody"')
    page.get_by_label("Message").fill("hello?")
    page.get_by_role("button", name="Send").click()
    expect(page.locator(".chat-error")).to_contain_text("No reply:")
    expect(page.locator(".chat-error")).to_contain_text("nobody")
    body = page.locator("body").inner_text()
    assert not STACK_TRACE.search(body), body
    assert axe_violations(page) == []


def test_ui_08_token_prompt(tmp_path: Path, page: Any) -> None:
    token = "ui-test-token-1234"
    agents = [AgentSpec("bob", EchoBrain(), description="echoes at once")]
    with UiServer(tmp_path / "ui.db", agents, token=token) as server:
        assert httpx.get(f"{server.url}/api/agents").status_code == 401
        page.goto(server.url)  # the page and its files need no token
        dialog = page.get_by_role("dialog", name="API token needed")
        expect(dialog).to_be_visible()
        assert axe_violations(page) == []
        dialog.get_by_label("API token").fill("wrong-token")
        dialog.get_by_role("button", name="Use token").click()
        expect(dialog).to_be_visible()
        expect(dialog.locator("#token-error")).to_have_text("That token was not accepted.")
        dialog.get_by_label("API token").fill(token)
        dialog.get_by_role("button", name="Use token").click()
        expect(dialog).to_be_hidden()
        expect(page.locator(".agent-card")).to_have_count(1)
        expect(page.locator("#connection")).to_have_attribute("data-status", "live")
        server.enqueue("bob", "human_chat", {"content": "with a token"})
        page.get_by_role("link", name="bob").click()
        expect(page.locator(".timeline-rows > .row")).to_contain_text(["with a token"])
