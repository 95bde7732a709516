"""FILE-06..08, FILE-10 in Chromium: the run view (#/runs, #/runs/<id>) on a real
server with real run folders. A real worker subprocess asks for a confirmation;
the bell opens its run; Approve answers in place and the worker goes on (its
output, its outbox, its exit show live, without a reload). Above 20 queued
steers the backpressure warning shows. A run another session owns refuses
without the force box and takes the answer with it ticked. Worker text is shown
as text, never as markup."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.server.ui.runhelp import (
    HOSTILE_LINE,
    ask,
    host_runs,
    new_run,
    responses,
    start_asking_worker,
    stop_workers,
    view_of,
)
from tests.server.ui.uihelp import UiServer, axe_violations, no_horizontal_overflow


@pytest.fixture
def server(tmp_path: Path) -> Iterator[UiServer]:
    with UiServer(tmp_path / "ui.db", []) as running:
        host_runs(running, tmp_path / "state")
        try:
            yield running
        finally:
            stop_workers(running)


def live(page: Any, server: UiServer, route: str) -> None:
    page.goto(f"{server.url}/#{route}")
    expect(page.locator("#connection")).to_have_attribute("data-status", "live")
    # Set once: a reload would lose it, so the tests can tell live updates from reloads.
    page.evaluate("window.__sameDocument = true")


def same_document(page: Any) -> bool:
    return bool(page.evaluate("window.__sameDocument === true"))


def test_file_06_approve_in_place_and_the_worker_continues(
    server: UiServer, page: Any, tmp_path: Path
) -> None:
    live(page, server, "/runs")
    expect(page.locator(".runs .empty")).to_be_visible()
    start_asking_worker(server, tmp_path, "deploy-311")

    # The list shows the run live: its worker alive, its task waiting on a question.
    card = page.locator(".run-card[data-run='deploy-311']")
    expect(card.locator(".worker-badge")).to_have_attribute("data-alive", "true")
    expect(card.locator(".tag-waiting")).to_have_text("1 question")
    expect(card.locator(".task-count[data-status='waiting']")).to_contain_text("1")
    expect(card.locator(".run-owner")).to_have_text("none")

    # The bell's worker_contact notification opens the run's page.
    expect(page.locator(".bell-count")).to_have_text("1")
    page.locator(".bell-button").click()
    entry = page.locator(".bell-entry[data-type='worker_contact']")
    expect(entry).to_contain_text("Deploy build 311 to production?")
    entry.locator(".bell-title").click()
    expect(page).to_have_url(f"{server.url}/#/runs/deploy-311")

    task = page.locator(".run-task[data-task='deploy']")
    expect(task.locator(".task-chip")).to_have_text("Waiting for you")
    question = task.locator(".question-card")
    expect(question.locator(".question-text")).to_have_text("Deploy build 311 to production?")
    expect(question.get_by_role("button")).to_have_text(["Approve", "Reject"])
    outbox = page.locator(".msg-list[data-box='outbox']")
    contact = outbox.locator(".msg-row[data-kind='contact']")
    expect(contact.locator(".msg-badge")).to_have_text("Queued")
    expect(outbox.locator(".msg-row[data-kind='message'] .msg-body")).to_have_text(
        ["tests pass: 214 of 214"]
    )

    # The worker's markup is text: no element made, no script run.
    output = page.locator(".run-output")
    expect(output).to_contain_text(HOSTILE_LINE)
    assert output.locator("img, b").count() == 0
    assert page.evaluate("window.__pwned") is None
    assert no_horizontal_overflow(page)
    assert axe_violations(page) == []

    question.get_by_role("button", name="Approve").click()
    expect(task.locator(".task-chip")).to_have_text("Running")
    expect(task.locator(".run-task-answered")).to_have_text(
        "You answered “approved”; it runs again."
    )
    expect(task.locator(".question-card")).to_have_count(0)
    expect(
        page.locator(".bell-count")
    ).to_be_hidden()  # an answered question's notification is read
    # Exactly one response, with the confirmation's flag (FILE-06).
    stored = responses(server, "deploy-311")
    assert [(m["body"], m["data"]["approved"]) for m in stored] == [("approved", True)]

    # The worker goes on: its output, its next message, the contact closed, all live.
    expect(output).to_contain_text("answer: approved approved=True")
    expect(outbox.locator(".msg-row[data-kind='message'] .msg-body")).to_have_text(
        ["deploying build 311", "tests pass: 214 of 214"]
    )
    expect(contact.locator(".msg-badge")).to_have_text("Acknowledged")
    inbox = page.locator(".msg-list[data-box='inbox']")
    expect(inbox.locator(".msg-row[data-kind='response'] .msg-badge")).to_have_text("Acknowledged")
    events = page.locator(".run-events .run-event")
    expect(page.locator(".run-event[data-type='task.responded']")).to_have_count(1)
    expect(page.locator(".run-event[data-type='supervisor.contact']")).to_have_count(1)

    # Ack a message of the worker's in place.
    note = outbox.locator(".msg-row[data-kind='message']").first
    note.get_by_role("button", name="Ack").click()
    expect(note.locator(".msg-badge")).to_have_text("Acknowledged")
    expect(note.get_by_role("button", name="Ack")).to_have_count(0)

    # A steer reaches the running worker at once; it finishes.
    form = page.locator(".run-steer")
    expect(form.get_by_label("Task")).to_have_value("deploy")
    form.get_by_label("Message").fill("finish")
    form.get_by_role("button", name="Steer").click()
    expect(form.locator(".steer-note")).to_have_text("Steer delivered to deploy's steering file.")
    expect(output).to_contain_text("steered: finish")
    expect(task.locator(".task-chip")).to_have_text("Completed")
    expect(page.locator(".run-head .worker-badge")).to_have_text("Worker exited (code 0)")
    expect(events.first).to_have_attribute("data-type", "worker.exited")
    assert same_document(page)


def test_file_07_backpressure_warning_above_20_queued_steers(server: UiServer, page: Any) -> None:
    new_run(server, "busy", tasks=("build",))
    live(page, server, "/runs/busy")
    pending = page.locator(".run-queue")
    expect(pending.locator(".pending-steer")).to_have_attribute("data-count", "0")
    for n in range(20):
        sent = httpx.post(
            f"{server.url}/api/runs/busy/tasks/build/steer", json={"body": f"steer {n}"}
        )
        assert sent.status_code == 200, sent.text
        assert sent.json()["queued"] is True
    expect(pending.locator(".pending-steer")).to_have_attribute("data-count", "20")
    expect(pending.locator(".pending-warning")).to_be_hidden()  # 20 is not above 20

    form = page.locator(".run-steer")
    form.get_by_label("Message").fill("one more")
    form.get_by_role("button", name="Steer").click()
    expect(form.locator(".steer-note")).to_have_text(
        "Steer queued: build cannot take it now; it is delivered when its worker can."
    )
    warning = pending.get_by_role("alert")
    expect(warning).to_contain_text("Backpressure: steers waiting for the worker: more than 20")
    expect(pending.locator(".pending-steer")).to_have_attribute("data-count", "21")
    # A follow-up counts apart.
    form.get_by_label("Message").fill("and then the docs")
    form.get_by_role("button", name="Follow-up").click()
    expect(pending.locator(".pending-follow-up")).to_have_attribute("data-count", "1")
    assert same_document(page)
    assert view_of(server, "busy")["pending"]["steer"] == 21

    # The list says so too.
    page.goto(f"{server.url}/#/runs")
    expect(page.locator(".run-card[data-run='busy'] .pending-warning")).to_contain_text(
        "more than 20"
    )

    # Cancel asks first; declined, nothing changes; accepted, the task and its queue go.
    live(page, server, "/runs/busy")
    page.once("dialog", lambda dialog: dialog.dismiss())
    form.get_by_role("button", name="Cancel task").click()
    assert view_of(server, "busy")["tasks"]["build"]["status"] == "queued"
    page.once("dialog", lambda dialog: dialog.accept())
    form.get_by_label("Message").fill("not needed any more")
    form.get_by_role("button", name="Cancel task").click()
    expect(form.locator(".steer-note")).to_have_text("Task build is cancelled.")
    expect(pending.locator(".pending-steer")).to_have_attribute("data-count", "0")
    cancelled = view_of(server, "busy")
    assert cancelled["tasks"]["build"]["status"] == "cancelled"
    assert cancelled["pending"]["followUp"] == 0
    form.get_by_label("Message").fill("after the cancel")
    form.get_by_role("button", name="Follow-up").click()
    expect(form.locator(".steer-note")).to_contain_text("is cancelled: it takes no more messages")
    expect(pending.locator(".pending-follow-up")).to_have_attribute("data-count", "0")


def test_file_08_owned_run_refuses_without_force_and_takes_it_with_force(
    server: UiServer, page: Any
) -> None:
    new_run(server, "owned", owner="agent:lead", tasks=("build",))
    question_id = ask(
        server, "owned", "build", "need_selection", "Which region first?", "eu-west", "us-east"
    )
    live(page, server, "/runs/owned")
    expect(page.locator(".run-head .run-owner")).to_contain_text("agent:lead")
    force = page.get_by_label("Force", exact=False)
    expect(force).not_to_be_checked()
    task = page.locator(".run-task[data-task='build']")
    question = task.locator(".question-card")
    expect(question).to_have_attribute("data-question", question_id)
    expect(question.get_by_role("button")).to_have_text(["eu-west", "us-east"])

    question.get_by_role("button", name="eu-west").click()
    expect(question.locator(".question-note")).to_have_text(
        "Refused: this run is owned by session agent:lead. Tick “Force” above to answer anyway."
    )
    form = page.locator(".run-steer")
    form.get_by_label("Message").fill("use the canary")
    form.get_by_role("button", name="Steer").click()
    expect(form.locator(".steer-note")).to_contain_text(
        "Refused: this run is owned by session agent:lead."
    )
    # Nothing was written.
    assert responses(server, "owned") == []
    before = view_of(server, "owned")
    assert before["tasks"]["build"]["status"] == "waiting"
    assert before["pending"]["steer"] == 0

    force.check()
    question.get_by_role("button", name="eu-west").click()
    expect(task.locator(".task-chip")).to_have_text("Running")
    expect(task.locator(".run-task-answered")).to_have_text(
        "You answered “eu-west”; it runs again."
    )
    stored = responses(server, "owned")
    assert [(m["body"], m["data"]["questionId"]) for m in stored] == [("eu-west", question_id)]
    form.get_by_role("button", name="Steer").click()
    expect(form.locator(".steer-note")).to_contain_text("Steer queued")
    expect(page.locator(".run-queue .pending-steer")).to_have_attribute("data-count", "1")
    assert same_document(page)


def test_file_10_text_answer_and_worker_text_is_text(server: UiServer, page: Any) -> None:
    new_run(server, "words", tasks=("docs",))
    ask(server, "words", "docs", "need_input", "Which <b>branch</b> should I use?")
    live(page, server, "/runs/words")
    question = page.locator(".run-task[data-task='docs'] .question-card")
    expect(question.locator(".question-text")).to_have_text("Which <b>branch</b> should I use?")
    assert question.locator(".question-text b").count() == 0
    question.get_by_role("button", name="Send answer").click()
    expect(question.locator(".question-note")).to_have_text("Write your answer first.")
    assert responses(server, "words") == []
    question.get_by_label("Your answer").fill("release/2.4")
    question.get_by_role("button", name="Send answer").click()
    expect(page.locator(".run-task[data-task='docs'] .task-chip")).to_have_text("Running")
    assert [m["body"] for m in responses(server, "words")] == ["release/2.4"]
    inbox = page.locator(".msg-list[data-box='inbox']")
    expect(inbox.locator(".msg-row[data-kind='response'] .msg-body")).to_have_text("release/2.4")

    # A run that does not exist is said so, in one line.
    page.goto(f"{server.url}/#/runs/nope")
    expect(page.locator("main .run-error")).to_have_text(
        'There is no run with id "nope". See all runs'
    )
