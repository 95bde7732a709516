"""UI-02..UI-04: the Agent Mind view (000 §9, §16, §3.3).

One agent is driven until its mailbox holds every status at once (see
``uihelp.all_statuses_scene``); the page must show the attention header, the
queue, the filter chips with counts, the expandable timeline with decisions,
activity and lazily loaded logs, merged items with their originals, status
colours with text labels, and a type registered at run time.
"""

from __future__ import annotations

import colorsys
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from attn.brains import EchoBrain
from attn.config import AgentConfig
from attn.core.item_type import Category, ItemType
from attn.runtime import Runtime
from tests.server.ui.uihelp import AgentSpec, GateBrain, UiServer, all_statuses_scene


@pytest.fixture
def server(tmp_path: Path) -> Iterator[UiServer]:
    agents = [
        AgentSpec("ada", GateBrain(), AgentConfig(max_attempts=1), "reviews and chats"),
        AgentSpec("bob", EchoBrain(), description="echoes at once"),
    ]
    with UiServer(tmp_path / "ui.db", agents) as running:
        yield running


def open_mind(page: Any, server: UiServer, agent: str) -> None:
    page.goto(f"{server.url}/#/agents/{agent}")
    expect(page.locator("#connection")).to_have_attribute("data-status", "live")
    expect(page.get_by_role("heading", level=1)).to_contain_text(agent)


def chip(page: Any, group: str, name: str) -> Any:
    return page.get_by_role("group", name=f"Filter by {group}").get_by_role(
        "button", name=re.compile(rf"^{name}\b")
    )


def rows(page: Any) -> Any:
    return page.locator(".timeline-rows > .row")


def test_ui_02_mind_view_header_queue_filters_and_timeline(server: UiServer, page: Any) -> None:
    ids = all_statuses_scene(server)
    open_mind(page, server, "ada")

    # Attention header: state, current focus with its type, how long it has run, the queue.
    expect(page.locator(".attention .state-badge")).to_have_text("FOCUSED")
    focus = page.locator(".focus-line")
    expect(focus).to_contain_text("Focused on:")
    expect(focus).to_contain_text("Chat")
    expect(focus).to_contain_text("are you there?")
    expect(focus.locator(".elapsed")).to_have_text(re.compile(r"for \d+ s"))
    expect(page.locator(".depth-line")).to_have_text("Queue: 2 items waiting")

    # The queue: each item with its type icon and label, priority and summary, in order.
    queue = page.locator(".queue-list:not(.deferred-list) > li")
    expect(queue).to_have_count(2)
    expect(queue.nth(0)).to_contain_text("🔗")
    expect(queue.nth(0)).to_contain_text("Agent Message")
    expect(queue.nth(0)).to_contain_text("P2 normal")
    expect(queue.nth(0)).to_contain_text("build 311 is green (+1)")
    expect(queue.nth(1)).to_contain_text("Heartbeat")
    expect(queue.nth(1)).to_contain_text("P3 low")
    expect(page.locator(".deferred-list > li")).to_contain_text("Review PR 42")

    # Category chips (from the registry) and status chips, both with counts.
    categories = page.get_by_role("group", name="Filter by category").get_by_role("button")
    expect(categories).to_have_text(
        [
            re.compile(r"All\s+7"),
            re.compile(r"Interaction\s+4"),
            re.compile(r"Task\s+1"),
            re.compile(r"Notification\s+0"),
            re.compile(r"System\s+2"),
        ]
    )
    statuses = page.get_by_role("group", name="Filter by status").get_by_role("button")
    expect(statuses).to_have_text(
        [
            re.compile(r"All\s+7"),
            re.compile(r"Queued\s+2"),
            re.compile(r"Processing\s+1"),
            re.compile(r"Completed\s+1"),
            re.compile(r"Merged\s+1"),
            re.compile(r"Deferred\s+1"),
            re.compile(r"Parked\s+0"),
            re.compile(r"Dropped\s+1"),
        ]
    )
    expect(rows(page)).to_have_count(7)

    # Filtering by category, then by status, then back to everything.
    chip(page, "category", "Interaction").click()
    expect(chip(page, "category", "Interaction")).to_have_attribute("aria-pressed", "true")
    expect(rows(page)).to_have_count(4)
    for type_label in rows(page).locator(".type-label").all_text_contents():
        assert type_label in {"Chat", "Agent Message"}
    expect(statuses).to_contain_text([re.compile(r"All\s+4"), re.compile(r"Queued\s+1")])
    chip(page, "status", "Completed").click()
    expect(rows(page)).to_have_count(1)
    expect(rows(page)).to_contain_text("hello")
    chip(page, "category", "All").click()
    chip(page, "status", "All").click()
    expect(rows(page)).to_have_count(7)

    # A completed item expands: decision badge, activity summary, then its log on demand.
    row = page.locator(f".row[data-id='{ids['completed']}']")
    head = row.locator(".row-head")
    expect(head).to_have_attribute("aria-expanded", "false")
    head.click()
    expect(head).to_have_attribute("aria-expanded", "true")
    detail = row.locator(".row-detail")
    expect(detail.locator(".decision-badge").first).to_have_text("pick")
    expect(detail.locator(".activity-summary")).to_contain_text("1.2k tokens")
    expect(detail.locator(".activity-summary")).to_contain_text("3 tools")
    expect(detail.locator(".activity-logs")).to_have_count(0)  # loaded only when asked
    detail.get_by_role("button", name="Load activity log").click()
    logs = detail.locator(".activity-logs > li")
    expect(logs.first).to_contain_text("working on hello")
    expect(detail.locator(".activity-logs")).to_contain_text("tool_start")
    expect(detail.locator(".activity-logs")).to_contain_text("done: hello")

    # The preempted review shows why it waits.
    deferred = page.locator(f".row[data-id='{ids['deferred']}']")
    deferred.locator(".row-head").click()
    expect(deferred.locator(".decision-badge")).to_contain_text(["pick", "preempt"])
    expect(deferred.locator(".facts")).to_contain_text("preempted")

    # Merged items are shown with their originals, both ways.
    survivor = page.locator(f".row[data-id='{ids['queued']}']")
    expect(survivor.locator(".row-head")).to_contain_text("+1 merged")
    survivor.locator(".row-head").click()
    originals = survivor.locator(".merged-originals li")
    expect(originals).to_have_count(2)
    expect(originals.nth(0)).to_contain_text("bob")
    expect(originals.nth(0)).to_contain_text("build 311 is green")
    expect(originals.nth(1)).to_contain_text("ci-bot")
    expect(originals.nth(1)).to_contain_text("and deploy 88 is done")
    merged = page.locator(f".row[data-id='{ids['merged']}']")
    merged.locator(".row-head").click()
    expect(merged.locator(".merged-into")).to_contain_text(ids["queued"])
    expect(merged.locator(".decision-badge")).to_contain_text(["merge"])
    originals.nth(1).get_by_role("button", name="show original").click()
    expect(merged.locator(".row-head")).to_be_focused()

    # Live: releasing the chat completes it and the next item gets the focus.
    server.open_gate("ada")
    expect(page.locator(".depth-line")).to_have_text("Queue: 0 items waiting")
    expect(page.locator(".attention .state-badge")).to_have_text("IDLE")
    expect(chip(page, "status", "Completed")).to_have_text(re.compile(r"Completed\s+5"))
    expect(page.locator(f".row[data-id='{ids['processing']}']")).to_have_attribute(
        "data-status", "completed"
    )
    ids_shown = page.locator(".timeline-rows > .row").evaluate_all(
        "rows => rows.map(r => r.dataset.id)"
    )
    assert len(ids_shown) == len(set(ids_shown)) == 7


def test_ui_02_load_earlier_pages_through_history(server: UiServer, page: Any) -> None:
    async def fill(runtime: Runtime) -> None:
        agent = runtime.get_agent("bob")
        for n in range(120):
            await agent.enqueue("heartbeat", {"summary": f"beat {n:03d}"})

    server.call(fill)
    server.wait_until(
        lambda rt: rt.get_agent("bob").depth == 0 and rt.get_agent("bob").focus_item is None
    )
    open_mind(page, server, "bob")
    expect(rows(page)).to_have_count(50)
    expect(page.locator(".timeline-info")).to_have_text("Showing 50 of 120 items")
    expect(rows(page).first).to_contain_text("beat 119")
    more = page.get_by_role("button", name="Load earlier…")
    more.click()
    expect(rows(page)).to_have_count(100)
    more.click()
    expect(rows(page)).to_have_count(120)
    expect(more).to_be_hidden()
    expect(rows(page).last).to_contain_text("beat 000")
    summaries = rows(page).locator(".summary").all_text_contents()
    assert summaries == [f"beat {n:03d}" for n in range(119, -1, -1)]


def test_ui_c7_load_earlier_continues_by_cursor_while_items_complete(
    server: UiServer, page: Any
) -> None:
    """Issue 10 C7: "Load earlier" asks for the page below the oldest row shown
    (a cursor), so items completing meanwhile neither repeat nor go missing."""

    async def fill(runtime: Runtime, start: int, count: int) -> None:
        agent = runtime.get_agent("bob")
        for n in range(start, start + count):
            await agent.enqueue("heartbeat", {"summary": f"beat {n:03d}"})

    def settled(rt: Runtime) -> bool:
        return rt.get_agent("bob").depth == 0 and rt.get_agent("bob").focus_item is None

    server.call(lambda rt: fill(rt, 0, 60))
    server.wait_until(settled)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    open_mind(page, server, "bob")
    expect(rows(page)).to_have_count(50)
    server.call(lambda rt: fill(rt, 60, 10))  # complete while the first page is shown
    server.wait_until(settled)
    expect(rows(page)).to_have_count(60)
    page.get_by_role("button", name="Load earlier…").click()
    expect(rows(page)).to_have_count(70)
    summaries = rows(page).locator(".summary").all_text_contents()
    assert summaries == [f"beat {n:03d}" for n in range(69, -1, -1)]
    pages = [url for url in asked if "/mailbox?" in url and "limit=50" in url]
    assert any("cursor=" in url for url in pages), pages
    assert not any("offset=" in url for url in asked)


def test_ui_03_type_registered_at_run_time_appears_and_filters(server: UiServer, page: Any) -> None:
    server.enqueue("bob", "human_chat", {"content": "before the new type"})
    open_mind(page, server, "bob")
    expect(rows(page)).to_have_count(1)
    select = page.get_by_label("Type")
    assert "Deploy Alert" not in select.inner_text()

    async def register(runtime: Runtime) -> None:
        runtime.registry.register(
            ItemType("deploy_alert", "Deploy Alert", 1, Category.NOTIFICATION, "🚀", "internal")
        )

    server.call(register)
    server.enqueue("bob", "deploy_alert", {"content": "deploy 88 rolled out"})

    row = rows(page).filter(has_text="deploy 88 rolled out")
    expect(row.locator(".type-label")).to_have_text("Deploy Alert")
    expect(row.locator(".type-icon")).to_have_text("🚀")
    expect(chip(page, "category", "Notification")).to_have_text(re.compile(r"Notification\s+1"))
    expect(select.locator("option", has_text="Deploy Alert")).to_have_count(1)
    select.select_option("deploy_alert")
    expect(rows(page)).to_have_count(1)
    expect(rows(page)).to_contain_text("deploy 88 rolled out")
    chip(page, "category", "Notification").click()
    expect(rows(page)).to_have_count(1)
    # The same labels come from the registry endpoint the page reads.
    types = httpx.get(f"{server.url}/api/types").json()["types"]
    assert {"name": "deploy_alert", "label": "Deploy Alert", "icon": "🚀"}.items() <= next(
        t for t in types if t["name"] == "deploy_alert"
    ).items()


#: Hue ranges (degrees) of the seed's status colours (000 §9, §16).
HUES = {
    "completed": (90, 160),  # green
    "processing": (200, 250),  # blue
    "merged": (200, 250),  # blue
    "deferred": (260, 300),  # purple
    "dropped": (-15, 15),  # red
    "queued": (25, 50),  # amber
}


def hue_of(css_rgb: str) -> float:
    r, g, b = (int(v) / 255 for v in re.findall(r"\d+", css_rgb)[:3])
    hue, _lightness, saturation = colorsys.rgb_to_hls(r, g, b)
    assert saturation > 0.4, f"{css_rgb} is not a clear colour"
    degrees = hue * 360
    return degrees - 360 if degrees > 180 + 165 else degrees


def test_ui_04_status_colours_and_text_labels(server: UiServer, page: Any) -> None:
    ids = all_statuses_scene(server)
    open_mind(page, server, "ada")
    expect(rows(page)).to_have_count(7)
    labels = {
        "queued": "Queued",
        "processing": "Processing",
        "completed": "Completed",
        "merged": "Merged",
        "deferred": "Deferred",
        "dropped": "Dropped",
    }
    for status, (low, high) in HUES.items():
        row = page.locator(f".row[data-id='{ids[status]}']")
        expect(row).to_have_attribute("data-status", status)
        expect(row.locator(".status-chip .status-text")).to_have_text(labels[status])
        dot = row.locator(".status-dot")
        colour = dot.evaluate("el => getComputedStyle(el).backgroundColor")
        assert low <= hue_of(colour) <= high, f"{status} dot is {colour}"
        chip_colour = page.locator(f".chips .status-dot.status-{status}").evaluate(
            "el => getComputedStyle(el).backgroundColor"
        )
        assert chip_colour == colour, f"{status} filter chip and row differ"
        animation = dot.evaluate("el => getComputedStyle(el).animationName")
        assert (animation == "pulse") == (status == "processing"), f"{status}: {animation}"
    # Merged and processing are both blue, told apart by their labels.
    assert (
        page.locator(".row.status-merged .status-text").inner_text()
        != page.locator(".row.status-processing .status-text").inner_text()
    )


# Issue 10 C9: the Mind view of an idle agent kept "Loading…" in its focus line.
def test_ui_02_every_field_of_an_idle_agents_mind_leaves_its_loading_state(
    server: UiServer, page: Any
) -> None:
    open_mind(page, server, "bob")
    expect(page.locator(".attention .state-badge")).to_have_text("IDLE")
    expect(page.locator(".focus-line")).to_have_text("Not focused on anything.")
    expect(page.locator(".depth-line")).to_have_text("Queue: 0 items waiting")
    expect(page.locator(".mind")).not_to_contain_text("Loading")
    expect(page.locator(".load-earlier")).to_be_hidden()
    # An agent that cannot be loaded says so; nothing stays "Loading…" either.
    page.goto(f"{server.url}/#/agents/nobody")
    expect(page.locator(".load-error")).to_contain_text('There is no agent named "nobody"')
    expect(page.locator(".focus-line")).to_have_text("Focus not known (see above).")
    expect(page.locator(".mind")).not_to_contain_text("Loading")
