"""PPL-09, UI-06: the notification bell in Chromium. Its unread count follows
notifications live (made over REST, read from another surface); the panel lists
them with their type's icon, marks one or all read; a notification's action
opens the chat with its agent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.server.ui.peoplehelp import AskingBrain, host_people
from tests.server.ui.uihelp import AgentSpec, UiServer, axe_violations, no_horizontal_overflow


@pytest.fixture
def server(tmp_path: Path) -> Iterator[UiServer]:
    brain = AskingBrain()
    with UiServer(tmp_path / "ui.db", [AgentSpec("ada", brain)]) as running:
        host_people(running, brain)
        yield running


def open_page(page: Any, server: UiServer, route: str = "/") -> None:
    page.goto(f"{server.url}/#{route}")
    expect(page.locator("#connection")).to_have_attribute("data-status", "live")


def post(server: UiServer, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    response = httpx.post(f"{server.url}{path}", json=body)
    assert response.status_code in (200, 201), response.text
    data: dict[str, Any] = response.json()
    return data


def unread(server: UiServer, user: str = "ada.l") -> int:
    data = httpx.get(f"{server.url}/api/notifications", params={"userId": user}).json()
    count: int = data["unreadCount"]
    return count


def test_ppl_09_bell_count_is_live_and_marks_read(server: UiServer, page: Any) -> None:
    open_page(page, server)
    bell = page.get_by_role("button", name="Notifications, 0 unread")
    expect(bell).to_be_visible()
    expect(page.locator(".bell-count")).to_be_hidden()

    disk = post(
        server,
        "/api/notifications",
        {
            "type": "system",
            "title": "Disk almost full",
            "body": "/var is at 93 %",
            "priority": "high",
        },
    )
    expect(page.locator(".bell-count")).to_have_text("1")
    post(
        server,
        "/api/notifications",
        {
            "type": "task_completed",
            "title": "Report written",
            "actionTarget": {"path": "/work?task=t-7"},
        },
    )
    # For another person: not in this person's bell.
    post(server, "/api/notifications", {"type": "system", "title": "For Maya", "userId": "maya"})
    expect(page.locator(".bell-count")).to_have_text("2")
    expect(page.get_by_role("button", name="Notifications, 2 unread")).to_be_visible()

    page.get_by_role("button", name="Notifications, 2 unread").click()
    panel = page.locator("#bell-panel")
    expect(panel).to_be_visible()
    entries = panel.locator(".bell-entry")
    expect(entries).to_have_count(2)
    expect(entries.first).to_contain_text("Report written")  # newest first
    first_disk = panel.locator(f".bell-entry[data-id='{disk['notification']['id']}']")
    expect(first_disk.locator(".bell-type-icon")).to_have_text("⚙️")
    expect(first_disk).to_contain_text("/var is at 93 %")
    expect(first_disk.locator(".ntf-priority")).to_have_text("high")
    assert axe_violations(page) == []

    first_disk.get_by_role("button", name="Mark read: Disk almost full").click()
    expect(first_disk).to_have_attribute("data-read", "true")
    expect(page.locator(".bell-count")).to_have_text("1")
    assert unread(server) == 1

    # Read from another surface (REST, the CLI): the count follows live.
    report = entries.filter(has_text="Report written")
    post(server, f"/api/notifications/{report.get_attribute('data-id')}/read")
    expect(page.locator(".bell-count")).to_be_hidden()
    expect(report).to_have_attribute("data-read", "true")

    post(server, "/api/notifications", {"type": "system", "title": "Backup done"})
    post(server, "/api/notifications", {"type": "system", "title": "Backup verified"})
    expect(page.locator(".bell-count")).to_have_text("2")
    expect(entries).to_have_count(4)
    panel.get_by_role("button", name="Mark all read").click()
    expect(page.locator(".bell-count")).to_be_hidden()
    expect(panel.locator(".bell-entry.bell-unread")).to_have_count(0)
    assert unread(server) == 0
    assert unread(server, "maya") == 1  # Maya's stays unread

    # After a reload the bell shows what the server has (it survives).
    page.reload()
    expect(page.locator("#connection")).to_have_attribute("data-status", "live")
    expect(page.get_by_role("button", name="Notifications, 0 unread")).to_be_visible()
    page.keyboard.press("Escape")


def test_ppl_09_open_chat_action_opens_the_agents_chat(server: UiServer, page: Any) -> None:
    open_page(page, server, "/channels")
    post(
        server,
        "/api/agents/ada/notify",
        {"title": "Build 311 is green", "body": "All 214 tests pass."},
    )
    expect(page.locator(".bell-count")).to_have_text("1")
    page.locator(".bell-button").click()
    entry = page.locator(".bell-entry").first
    expect(entry.locator(".bell-type-icon")).to_have_text("📊")
    entry.get_by_role("button", name="Build 311 is green", exact=True).click()
    expect(page).to_have_url(f"{server.url}/#/agents/ada?chat=main")
    expect(page.locator("#bell-panel")).to_be_hidden()
    expect(page.get_by_label("Message")).to_be_focused()
    # The notify message is in the chat, badged; following it read it.
    notify = page.locator(".chat-log .notify-message")
    expect(notify).to_contain_text("Build 311 is green")
    expect(notify.locator(".tag-notify")).to_have_text("notification")
    expect(page.locator(".bell-count")).to_be_hidden()
    assert unread(server) == 0


@pytest.mark.parametrize("width", [1280, 390])
def test_ui_06_bell_panel_fits_and_is_accessible(server: UiServer, page: Any, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    for n in range(3):
        post(
            server,
            "/api/notifications",
            {"type": "agent_report", "title": f"Report {n}", "body": "A long body. " * 30},
        )
    open_page(page, server)
    page.get_by_role("button", name="Notifications, 3 unread").click()
    expect(page.locator(".bell-entry")).to_have_count(3)
    box = page.locator("#bell-panel").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 1
    assert no_horizontal_overflow(page)
    assert axe_violations(page) == []
    # Escape closes the panel and gives the keyboard back to the bell.
    page.keyboard.press("Escape")
    expect(page.locator("#bell-panel")).to_be_hidden()
    expect(page.locator(".bell-button")).to_be_focused()
