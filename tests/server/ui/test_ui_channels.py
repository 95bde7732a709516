"""The channel view (issue 13 points 5 and 6; 000 §11, §25.2; A2A-02, A2A-04,
A2A-06, A2A-08): a person creates a group and posts to it from the page, sees
each recipient's delivery outcome (started, steered, queued with its reason,
refused with its reason, "partial"), sees agents' messages arrive live, pages
back through older history, filters the channel list, and follows the link
from an item of the Agent Mind view to its channel and conversation.

The server is the real stack (runtime on an SQLite file, the API, the live
WebSocket, the page) with scripted agents; waiting is Playwright's
auto-retrying ``expect`` on the page and ``UiServer.wait_until`` on the server.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from attn.brains import ScriptBrain
from attn.runtime import Runtime
from tests.server.ui.uihelp import (
    AgentSpec,
    GateBrain,
    UiServer,
    axe_violations,
    no_horizontal_overflow,
)

ADA_REPLY = "ada here: the build is green"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[UiServer]:
    agents = [
        AgentSpec(
            "ada", ScriptBrain([{"log": "checking"}, {"reply": ADA_REPLY}]), description="lead"
        ),
        AgentSpec("bob", GateBrain(), description="works until the test lets it finish"),
        AgentSpec("cy", ScriptBrain([{"reply": "cy: done"}]), description="a worker"),
    ]
    with UiServer(tmp_path / "ui.db", agents) as running:
        yield running


def open_channels(page: Any, server: UiServer, where: str = "") -> None:
    page.goto(f"{server.url}/#/channels{where}")
    expect(page.locator("#connection")).to_have_attribute("data-status", "live")


def messages(page: Any) -> Any:
    return page.locator(".channel-messages > .channel-message")


def message(page: Any, text: str) -> Any:
    """The message whose own text (not a reply's quote of it) holds ``text``."""
    return messages(page).filter(has=page.locator(".message-text", has_text=text))


def delivery(row: Any, recipient: str) -> Any:
    return row.locator(f".delivery[data-recipient='{recipient}']")


def idle(name: str) -> Any:
    def check(runtime: Runtime) -> bool:
        agent = runtime.get_agent(name)
        return agent.depth == 0 and agent.focus_item is None

    return check


def history(server: UiServer, key: str) -> list[dict[str, Any]]:
    response = httpx.get(f"{server.url}/api/channels/{key}/messages", params={"limit": 500})
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["messages"]
    return found


def create_group(page: Any, name: str, members: list[str]) -> str:
    """Create a custom group from the page; returns its key once the page shows it."""
    page.get_by_text("New group…").click()
    page.get_by_label("Group name").fill(name)
    for member in members:
        page.get_by_role("group", name="Members").get_by_label(member, exact=True).check()
    page.get_by_role("button", name="Create group").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    key = page.locator(".channel").get_attribute("data-channel")
    assert key is not None and key.startswith("group:custom:grp_")
    return key


def post(page: Any, text: str, sender: str | None = None) -> None:
    if sender is not None:
        page.get_by_label("Post as").fill(sender)
    page.get_by_label("Message to the channel").fill(text)
    page.get_by_role("button", name="Post").click()


def test_ui_a2a_06_post_to_a_group_and_see_each_delivery_outcome(
    server: UiServer, page: Any
) -> None:
    open_channels(page, server)
    expect(page.get_by_role("heading", level=1)).to_have_text("Channels")
    key = create_group(page, "release crew", ["ada", "bob", "cy"])
    expect(page).to_have_url(re.compile(r"#/channels/group:custom:grp_"))
    expect(page.locator(".member-list li")).to_have_text(
        [re.compile(r"^ada"), re.compile(r"^bob"), re.compile(r"^cy")]
    )
    expect(page.locator(".channel-key")).to_contain_text("created by user")
    entry = page.locator(f".channel-entry[data-channel='{key}']")
    expect(entry).to_contain_text("release crew")
    expect(entry.locator("a")).to_have_attribute("aria-current", "page")
    expect(page.get_by_text("No messages yet.")).to_be_visible()

    # Idle agents start at once; the sender name is the person's.
    server.call(lambda rt: rt.get_agent("cy").stop())
    page.get_by_role("button", name="Mention bob").click()
    expect(page.get_by_label("Message to the channel")).to_have_value("@bob ")
    post(page, "@ada @bob is the build green?", sender="maya")
    first = messages(page).first
    expect(first).to_contain_text("is the build green?")
    expect(first.locator(".message-sender")).to_have_text("maya")
    expect(first.locator(".tag-person")).to_have_text("person")
    expect(first.locator(".message-mentions")).to_have_text("→ @ada @bob")
    expect(delivery(first, "ada")).to_have_text("ada started")
    expect(delivery(first, "bob")).to_have_text("bob started")
    expect(first.locator(".delivery")).to_have_count(2)  # cy was not mentioned
    expect(page.get_by_label("Message to the channel")).to_have_value("")
    conversation = first.locator(".conversation").get_attribute("data-conversation")
    assert conversation is not None and conversation.startswith("conv_")
    expect(first.locator(".conversation")).to_have_text(re.compile(r"^conv_…[0-9a-f]{6}$"))

    # ada's answer comes back live, addressed to no agent (the asker is a person).
    answer = message(page, ADA_REPLY)
    expect(answer).to_have_count(1)
    expect(answer.locator(".message-sender")).to_have_text("ada")
    expect(answer.locator(".reply-to")).to_contain_text("reply to maya")
    expect(answer.locator(".conversation")).to_have_attribute("data-conversation", conversation)

    # bob still works on the first message: the next one on this channel steers it;
    # cy is stopped: queued, with the reason.
    server.wait_until(lambda rt: rt.get_agent("bob").focus_item is not None)
    server.wait_until(idle("ada"))
    post(page, "@bob @cy and the release notes?")
    second = message(page, "and the release notes?")
    expect(delivery(second, "bob")).to_have_text("bob steered")
    expect(delivery(second, "cy")).to_have_text("cy queued (stopped)")
    expect(second.locator(".receipt-flag")).to_have_count(0)
    expect(second.locator(".message-sender")).to_have_text("maya")  # kept in the tab

    # A member no longer hosted is refused: the send is partial, not a success.
    server.call(lambda rt: rt.remove_agent("cy"))
    post(page, "everyone: ship at five")
    third = message(page, "everyone: ship at five")
    expect(delivery(third, "ada")).to_have_text("ada started")
    expect(delivery(third, "bob")).to_have_text("bob steered")
    expect(delivery(third, "cy")).to_have_text("cy refused (recipient removed)")
    expect(third.locator(".receipt-flag")).to_have_text("partial")

    # What the page shows is what the server stored.
    stored = {m["text"]: m for m in history(server, key)}
    outcomes = {
        d["recipient"]: d["outcome"] for d in stored["everyone: ship at five"]["deliveries"]
    }
    assert outcomes == {"ada": "started", "bob": "steered", "cy": "refused"}

    # An agent's own message arrives live, without a reload.
    server.call(lambda rt: rt.channels.post(key, "ada", "@bob please tag 2.4.0 after the build"))
    live = message(page, "please tag 2.4.0")
    expect(live.locator(".message-sender")).to_have_text("ada")
    expect(live.locator(".tag-person")).to_have_count(0)
    expect(delivery(live, "bob")).to_contain_text("bob")
    server.wait_until(idle("ada"))
    expect(message(page, ADA_REPLY)).to_have_count(2)  # to the 1st and 3rd
    shown = messages(page).evaluate_all("rows => rows.map(r => r.dataset.id)")
    assert len(shown) == len(set(shown)), "a message is shown twice"
    assert [m["id"] for m in history(server, key)] == shown, "order differs from the history"


def test_ui_a2a_06_refusals_and_errors_are_shown_inline(server: UiServer, page: Any) -> None:
    open_channels(page, server)
    key = create_group(page, "pair", ["ada", "bob"])
    before = history(server, key)

    # A person may not post under an agent's name: refused, shown, nothing stored.
    post(page, "pretending", sender="ada")
    error = page.locator(".channel-composer .post-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("Not posted")
    expect(page.get_by_label("Message to the channel")).to_have_value("pretending")
    expect(messages(page)).to_have_count(0)
    assert history(server, key) == before

    # A blank text is not sent at all.
    page.get_by_label("Post as").fill("maya")
    page.get_by_label("Message to the channel").fill("   ")
    page.get_by_role("button", name="Post").click()
    assert history(server, key) == before

    # A group needs a name and members; the server's refusal is shown too.
    page.get_by_text("New group…").click()
    page.get_by_role("button", name="Create group").click()  # the browser asks for a name
    page.get_by_label("Group name").fill("nobody")
    page.get_by_role("button", name="Create group").click()
    group_error = page.locator(".group-form .post-error")
    expect(group_error).to_have_text("Choose at least one member.")
    # An agent removed meanwhile leaves the choices at once, a checked one too.
    members = page.get_by_role("group", name="Members")
    members.get_by_label("cy", exact=True).check()
    server.call(lambda rt: rt.remove_agent("cy"))
    expect(members.get_by_role("checkbox")).to_have_count(2)
    members.get_by_label("ada", exact=True).check()
    expect(page.get_by_label("Group name")).to_have_value("nobody")
    listed = httpx.get(f"{server.url}/api/channels").json()["channels"]
    assert [c["name"] for c in listed] == ["pair"]

    # An unknown channel says so.
    page.goto(f"{server.url}/#/channels/group:custom:grp_nope")
    expect(page.locator(".channel-header .load-error")).to_contain_text("no channel")


def test_ui_a2a_08_older_history_pages_in_before_the_oldest_shown(
    server: UiServer, page: Any
) -> None:
    async def fill(runtime: Runtime) -> str:
        channel = await runtime.channels.ensure_team("ops", ["ada", "bob"], "Ops")
        for n in range(1, 71):
            await runtime.channels.post(
                channel.key, "maya", f"note {n}", sender_kind="person", to=[]
            )
        return channel.key

    key = server.call(fill)
    open_channels(page, server, f"/{key}")
    expect(page.get_by_role("heading", level=1)).to_have_text("Ops")
    expect(page.locator(".kind-badge").first).to_have_text("Team")
    expect(messages(page)).to_have_count(30)
    expect(messages(page).first).to_contain_text("note 41")
    expect(messages(page).last).to_contain_text("note 70")
    older = page.get_by_role("button", name="Load older messages")
    older.click()
    expect(messages(page)).to_have_count(60)
    expect(messages(page).first).to_contain_text("note 11")
    older.click()
    expect(messages(page)).to_have_count(70)
    expect(older).to_be_hidden()
    texts = messages(page).locator(".message-text").all_text_contents()
    assert texts == [f"note {n}" for n in range(1, 71)]

    # A message posted meanwhile joins at the end, once.
    server.call(lambda rt: rt.channels.post(key, "maya", "note 71", sender_kind="person", to=[]))
    expect(messages(page)).to_have_count(71)
    expect(messages(page).last).to_contain_text("note 71")


def test_ui_channel_list_filters_by_member_and_kind(server: UiServer, page: Any) -> None:
    async def scene(runtime: Runtime) -> None:
        await runtime.channels.ensure_dm("ada", "cy")
        await runtime.channels.ensure_team("ops", ["ada", "bob"], "Ops")
        await runtime.channels.create_group("Docs", ["bob", "cy"], created_by="maya")

    server.call(scene)
    open_channels(page, server)
    entries = page.locator(".channel-entry .channel-name")
    expect(entries).to_have_count(3)
    page.get_by_label("Member").select_option("cy")
    expect(entries).to_have_text(["ada ↔ cy", "Docs"])
    kinds = page.get_by_role("group", name="Filter by kind")
    kinds.get_by_role("button", name="DM").click()
    expect(entries).to_have_text(["ada ↔ cy"])
    page.get_by_label("Member").select_option("")
    kinds.get_by_role("button", name="Team").click()
    expect(entries).to_have_text(["Ops"])
    kinds.get_by_role("button", name="All").click()
    expect(entries).to_have_count(3)

    # A channel made elsewhere shows up live; a message elsewhere is counted.
    async def more(runtime: Runtime) -> str:
        channel = await runtime.channels.create_group("Later", ["ada"], created_by="maya")
        return channel.key

    later = server.call(more)
    expect(entries).to_have_count(4)
    server.call(lambda rt: rt.channels.post(later, "maya", "hello", sender_kind="person", to=[]))
    expect(page.locator(f".channel-entry[data-channel='{later}'] .unread")).to_contain_text("1")

    # The page stays usable and accessible at a phone's width.
    page.locator(f".channel-entry[data-channel='{later}'] a").click()
    expect(messages(page)).to_have_count(1)
    expect(page.locator(f".channel-entry[data-channel='{later}'] .unread")).to_have_count(0)
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        assert no_horizontal_overflow(page), f"the channel view scrolls sideways at {width} px"
        assert axe_violations(page) == []


def test_ui_mind_view_links_an_items_channel_and_conversation(server: UiServer, page: Any) -> None:
    open_channels(page, server)
    key = create_group(page, "release crew", ["ada", "cy"])
    post(page, "@ada status please", sender="maya")
    first = messages(page).first
    expect(delivery(first, "ada")).to_have_text("ada started")
    conversation = first.locator(".conversation").get_attribute("data-conversation")
    assert conversation is not None
    server.wait_until(idle("ada"))

    page.goto(f"{server.url}/#/agents/ada")
    row = page.locator(".timeline-rows > .row").filter(has_text="status please")
    row.locator(".row-head").click()
    facts = row.locator(".row-detail .facts")
    expect(facts.locator(".channel-link")).to_have_text(key)
    expect(facts.locator(".conversation")).to_have_attribute("data-conversation", conversation)
    facts.locator(".channel-link").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("release crew")
    expect(page.locator("#crumbs")).to_contain_text("release crew")
    expect(message(page, "status please")).to_have_count(1)

    # The conversation link narrows the channel to that conversation.
    page.go_back()
    row.locator(".row-head").click()
    row.locator(".row-detail .conversation-link").click()
    expect(page.locator(".conversation-bar")).to_contain_text("Showing conversation")
    server.call(
        lambda rt: rt.channels.post(key, "maya", "other topic", sender_kind="person", to=[])
    )
    expect(message(page, ADA_REPLY)).to_have_count(1)
    expect(message(page, "other topic")).to_have_count(0)
    page.get_by_role("link", name="Show the whole channel").click()
    expect(message(page, "other topic")).to_have_count(1)
