"""PPL-03, PPL-08, UI-06: approval cards in Chromium. An agent asks; its item
shows as parked (its own colour, a link to the card it waits on) and the card
shows on the agent's page, in the bell and on #/approvals; answering it in
place resumes the agent, which leaves parked; a second answer (a stale tab)
says "already answered by …"; free text and the expiry countdown."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.server.ui.peoplehelp import AskingBrain, ask, host_people, item_status
from tests.server.ui.uihelp import NEW, AgentSpec, UiServer, axe_violations, no_horizontal_overflow


@pytest.fixture
def scene(tmp_path: Path) -> Iterator[tuple[UiServer, AskingBrain]]:
    brain = AskingBrain()
    with UiServer(tmp_path / "ui.db", [AgentSpec("ada", brain)]) as running:
        host_people(running, brain)
        yield running, brain


def live(page: Any, server: UiServer, route: str) -> None:
    page.goto(f"{server.url}/#{route}")
    expect(page.locator("#connection")).to_have_attribute("data-status", "live")


def test_ppl_03_answer_in_place_resumes_the_parked_item(
    scene: tuple[UiServer, AskingBrain], page: Any
) -> None:
    server, brain = scene
    live(page, server, "/agents/ada")
    item_id, approval_id = ask(
        server,
        "ada",
        title="Deploy build 311?",
        description="All 214 tests pass; staging is green.",
        options=[
            {"id": "deploy", "label": "Deploy now"},
            {"id": "wait", "label": "Wait for Monday"},
            {"id": "reject", "label": "Do not deploy"},
        ],
    )
    # Live: the card on the agent's page, the parked item in the queue and the timeline.
    card = page.locator(f".agent-approvals .approval-card[data-id='{approval_id}']")
    expect(card).to_contain_text("Deploy build 311?")
    expect(card).to_contain_text("All 214 tests pass")
    expect(card.locator(".approval-state")).to_have_text("Pending")
    expect(card.get_by_role("button")).to_have_text(
        ["Deploy now", "Wait for Monday", "Do not deploy"]
    )
    expect(card.locator(".approval-expiry")).to_have_text("never")
    parked = page.locator(f".parked-list .queue-entry[data-id='{item_id}']")
    expect(parked.locator(".status-chip")).to_have_text("Parked")
    expect(parked.get_by_role("link", name=approval_id)).to_have_attribute(
        "href", f"#/approvals/{approval_id}"
    )
    row = page.locator(f".timeline-rows .row[data-id='{item_id}']")
    expect(row).to_have_attribute("data-status", "parked")
    expect(row.locator(".tag-parked")).to_have_text("waiting for a person")
    colour = row.locator(".status-chip").evaluate("el => getComputedStyle(el).borderTopColor")
    assert colour == "rgb(15, 118, 110)"  # parked's teal, unlike any other status
    row.locator(".row-head").click()
    expect(row.locator(".row-detail .approval-link")).to_have_attribute(
        "href", f"#/approvals/{approval_id}"
    )
    assert axe_violations(page) == []

    # The loop is not blocked: other mail is served while the item is parked.
    other = server.enqueue(
        "ada", "a2a_message", {"content": "build 312 started"}, until={NEW: "completed"}
    )
    expect(page.locator(f".timeline-rows .row[data-id='{other}']")).to_have_attribute(
        "data-status", "completed"
    )
    assert item_status(server, item_id) == "parked"

    card.get_by_label("Comment (optional)").fill("go ahead, watch the error rate")
    card.get_by_role("button", name="Deploy now").click()
    expect(card.locator(".approval-state")).to_have_text("Approved")
    expect(card.locator(".approval-answered")).to_contain_text("You answered Deploy now at")
    expect(card.locator(".approval-said")).to_have_text("go ahead, watch the error rate")
    expect(card.locator(".approval-note")).to_have_text("Answered. ada resumes its work.")
    # The agent resumed the parked work: the item leaves parked and completes.
    expect(row).to_have_attribute("data-status", "completed")
    expect(page.locator(".parked-list .queue-entry")).to_have_count(0)
    server.wait_until(lambda rt: brain.resumed != [])
    assert brain.resumed[0][0] == item_id
    assert brain.resumed[0][1]["selected_option"] == "deploy"
    assert brain.resumed[0][1]["comment"] == "go ahead, watch the error rate"
    assert brain.asked == {item_id: 1}  # the resume did not ask again
    stored = httpx.get(f"{server.url}/api/approvals/{approval_id}").json()["approval"]
    assert (stored["state"], stored["answeredBy"]) == ("approved", "ada.l")


def test_ppl_08_second_answer_says_already_answered(
    scene: tuple[UiServer, AskingBrain], page: Any
) -> None:
    server, brain = scene
    _, approval_id = ask(
        server, "ada", title="Rotate the API keys?", description="They are 91 days old."
    )
    # The bell's approval_request notification navigates to the card.
    live(page, server, "/")
    expect(page.locator(".bell-count")).to_have_text("1")
    page.locator(".bell-button").click()
    page.locator(".bell-entry").get_by_role(
        "button", name="Rotate the API keys?", exact=True
    ).click()
    expect(page).to_have_url(f"{server.url}/#/approvals/{approval_id}")
    card = page.locator(f".approval-card[data-id='{approval_id}']")
    expect(card.get_by_role("button")).to_have_text(["Approve", "Reject"])

    # This tab goes stale (no live events), and Maya answers first from another surface.
    page.evaluate("window.attn.live.stop()")
    answered = httpx.post(
        f"{server.url}/api/approvals/{approval_id}/answer",
        json={"option": "reject", "comment": "not this week", "userId": "maya"},
    )
    assert answered.status_code == 200, answered.text
    expect(card.locator(".approval-state")).to_have_text("Pending")  # stale

    card.get_by_role("button", name="Approve").click()
    expect(card.locator(".approval-note")).to_have_text("Already answered by Maya (Rejected).")
    expect(card.locator(".approval-state")).to_have_text("Rejected")
    expect(card.locator(".approval-answered")).to_contain_text("Maya answered Reject at")
    expect(card.locator(".approval-said")).to_have_text("not this week")
    expect(card.get_by_role("button", name="Approve")).to_have_count(0)
    stored = httpx.get(f"{server.url}/api/approvals/{approval_id}").json()["approval"]
    assert (stored["state"], stored["answeredBy"]) == ("rejected", "maya")  # the first answer won
    server.wait_until(lambda rt: len(brain.resumed) == 1)
    assert brain.resumed[0][1]["status"] == "rejected"


def test_ui_06_free_text_expiry_and_the_approvals_page(
    scene: tuple[UiServer, AskingBrain], page: Any
) -> None:
    server, brain = scene
    _, first = ask(
        server,
        "ada",
        title="Which region first?",
        description="eu-west or us-east.",
        allow_freeform=True,
        expires_in_s=3600,
    )
    _, second = ask(server, "ada", title="Archive the old logs?", description="12 GB.")
    answered = httpx.post(f"{server.url}/api/approvals/{second}/answer", json={"option": "approve"})
    assert answered.status_code == 200, answered.text
    live(page, server, "/approvals")
    pending = page.locator(".approval-list[data-group='pending'] .approval-card")
    closed = page.locator(".approval-list[data-group='closed'] .approval-card")
    expect(pending).to_have_count(1)
    expect(closed).to_have_count(1)
    expect(page.locator("#pending-heading")).to_have_text("Waiting for an answer (1)")
    expect(closed).to_contain_text("Archive the old logs?")
    expect(closed.locator(".approval-answered")).to_contain_text("You answered Approve")
    card = pending.first
    expect(card).to_have_attribute("data-id", first)
    expect(card.locator(".approval-expiry")).to_contain_text(" min ")
    assert no_horizontal_overflow(page)
    assert axe_violations(page) == []

    # A text answer needs text; then it closes the card and moves it down.
    card.get_by_role("button", name="Send text answer").click()
    expect(card.locator(".approval-note")).to_have_text("Write your answer first.")
    assert httpx.get(f"{server.url}/api/approvals/{first}").json()["approval"]["state"] == "pending"
    card.get_by_label("Your answer (free text, or a comment with an option)").fill(
        "us-east, then eu-west"
    )
    card.get_by_role("button", name="Send text answer").click()
    expect(pending).to_have_count(0)
    expect(closed).to_have_count(2)
    expect(closed.first.locator(".approval-answered")).to_contain_text("You answered in words")
    server.wait_until(lambda rt: len(brain.resumed) == 2)
    assert brain.resumed[-1][1]["comment"] == "us-east, then eu-west"
    assert brain.resumed[-1][1]["selected_option"] is None

    # A new request appears live, on top of the waiting group.
    ask(server, "ada", title="Scale to 5 replicas?", description="p99 is 420 ms.")
    expect(pending).to_have_count(1)
    expect(pending.first).to_contain_text("Scale to 5 replicas?")

    # An unknown approval is said so, in one line.
    page.goto(f"{server.url}/#/approvals/apr_nope")
    expect(page.locator("main .load-error")).to_contain_text(
        'There is no approval with id "apr_nope"'
    )
