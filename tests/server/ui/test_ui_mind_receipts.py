"""Delivery receipts in the Agent Mind view (issue 13: receipts "shown in the
API, the CLI and the Mind view"; 000 §11; A2A-04, A2A-06).

* An open a2a_message row shows the agent's own delivery outcome, the other
  recipients' outcomes and "partial" when some were refused, from
  ``GET /api/channel-messages/{messageId}``; a merged row shows one line per
  message; a record that cannot be loaded says so in the row.
* The activity log of an agent that sent messages shows, on the tool_end line
  of ``agent_send_message``, ``agent_send_group_message`` and
  ``agent_delegate_task``, the receipt's outcomes (and a refused send's reason).

Real parts: the server stack of :class:`UiServer` (runtime on an SQLite file,
the API, the live WebSocket, the page); the sending agent is the LLM brain
over the OpenAI client to :class:`attn.testing.FakeProvider` on loopback, so
its tool calls, results and log lines are the real ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from attn.brains import build_brain
from attn.models import COMPLETION_MARKER
from attn.runtime import Runtime
from attn.testing import FakeProvider, FakeToolCall, ReceivedRequest, Turn
from tests.server.ui.uihelp import NEW, AgentSpec, GateBrain, UiServer, axe_violations

KEY_ENV = "ATTN_TEST_UI_FAKE_KEY"
TEAM = "group:crew"
#: Members of the big team of the clipped-receipt test: its receipt outgrows
#: the 2,000 characters an activity log line keeps of a tool result.
BIG_TEAM = 40

SENDS = [
    FakeToolCall("agent_send_message", {"to": "ada", "message": "ada: is the build green?"}),
    FakeToolCall(
        "agent_send_group_message", {"channel_key": TEAM, "message": "@bob @cy ship at five"}
    ),
    FakeToolCall("agent_delegate_task", {"to": "dan", "goal": "write the release notes"}),
    FakeToolCall("agent_send_message", {"to": "zed", "message": "anyone there?"}),
]


def sender(calls: list[FakeToolCall]) -> Any:
    """The model of the sending agent: ``calls`` in one turn, then done."""

    def respond(request: ReceivedRequest) -> Turn:
        messages = (request.body or {}).get("messages") or []
        if any(m.get("role") == "tool" for m in messages):
            return Turn(text=f"Sent them all. {COMPLETION_MARKER}")
        return Turn(tool_calls=calls)

    return respond


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    monkeypatch.setenv(KEY_ENV, "sk-test-not-a-key")
    provider = FakeProvider().start_in_thread()
    try:
        yield provider
    finally:
        provider.stop()


def llm(model: FakeProvider) -> Any:
    options = {
        "provider": "openai",
        "model": "test-model",
        "base_url": model.openai_base_url,
        "api_key_env": KEY_ENV,
    }
    return build_brain("llm", options)


@pytest.fixture
def server(tmp_path: Path, model: FakeProvider) -> Iterator[UiServer]:
    model.responder = sender(SENDS)
    agents = [AgentSpec("lead", llm(model), description="sends")]
    agents += [AgentSpec(name, GateBrain()) for name in ("ada", "bob", "cy", "dan")]
    with UiServer(tmp_path / "ui.db", agents) as running:
        yield running


def open_row(page: Any, server: UiServer, agent: str, text: str) -> Any:
    """Open the Mind view of ``agent`` and expand the row whose summary holds ``text``."""
    page.goto(f"{server.url}/#/agents/{agent}")
    expect(page.locator("#connection")).to_have_attribute("data-status", "live")
    row = page.locator(".timeline-rows > .row").filter(has=page.locator(".row-head", has_text=text))
    expect(row).to_have_count(1)
    row.locator(".row-head").click()
    return row


def chip(where: Any, recipient: str) -> Any:
    return where.locator(f".delivery[data-recipient='{recipient}']")


def send_all(server: UiServer) -> None:
    """Make team ``crew`` (lead, bob, cy; cy then removed) and have lead send SENDS."""

    async def team(runtime: Runtime) -> None:
        await runtime.channels.ensure_team("crew", ["lead", "bob", "cy"], "Crew")
        await runtime.remove_agent("cy")

    server.call(team)
    server.enqueue("lead", "mention", {"content": "tell the crew"}, until={NEW: "completed"})


def test_ui_mind_shows_a_sent_messages_receipt_on_its_tool_end_line(
    server: UiServer, page: Any
) -> None:
    send_all(server)
    row = open_row(page, server, "lead", "tell the crew")
    row.get_by_role("button", name="Load activity log").click()
    ends = row.locator(".activity-logs .log-tool_end")
    expect(ends).to_have_count(4)

    dm, group, delegation, refused = (ends.nth(n) for n in range(4))
    expect(dm.locator(".log-content")).to_have_text("agent_send_message")
    expect(chip(dm, "ada")).to_have_text("ada started")
    expect(dm.locator(".channel-link")).to_have_text("dm:a2a:ada:lead")
    expect(dm.locator(".conversation-link .conversation")).to_have_text(
        re.compile(r"^conv_…[0-9a-f]{6}$")
    )
    expect(chip(group, "bob")).to_have_text("bob started")
    expect(chip(group, "cy")).to_have_text("cy refused (recipient removed)")
    expect(group.locator(".receipt-flag")).to_have_text("partial")
    expect(group.locator(".channel-link")).to_have_text(TEAM)
    expect(delegation.locator(".log-content")).to_have_text("agent_delegate_task")
    expect(chip(delegation, "dan")).to_have_text("dan started")
    expect(refused.locator(".receipt-flag")).to_have_text("refused")
    expect(refused.locator(".sent-receipt")).to_contain_text("unknown recipient 'zed'")
    expect(refused.locator(".delivery")).to_have_count(0)
    # The line's channel link goes to the message's channel.
    group.locator(".channel-link").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Crew")
    expect(page.locator(".channel-message", has_text="ship at five")).to_have_count(1)


def test_ui_mind_shows_a_received_messages_delivery_and_one_line_per_merged_message(
    server: UiServer, page: Any
) -> None:
    send_all(server)

    # ada's own outcome; nobody else received the DM.
    row = open_row(page, server, "ada", "is the build green?")
    record = row.locator(".item-deliveries .delivery-record")
    expect(record).to_have_count(1)
    expect(chip(record.locator(".delivery-own"), "ada")).to_have_text("ada started")
    expect(record.locator(".delivery-others")).to_have_count(0)
    expect(record.locator(".receipt-flag")).to_have_count(0)

    # bob's outcome, the others' and "partial": cy was refused.
    row = open_row(page, server, "bob", "ship at five")
    record = row.locator(".item-deliveries .delivery-record")
    expect(chip(record.locator(".delivery-own"), "bob")).to_have_text("bob started")
    expect(chip(record.locator(".delivery-others"), "cy")).to_have_text(
        "cy refused (recipient removed)"
    )
    expect(record.locator(".receipt-flag")).to_have_text("partial")
    assert axe_violations(page) == []

    # A second message on the channel steers bob's work: the open row, updated
    # live, shows one line per message, each with its own outcome.
    server.wait_until(lambda rt: rt.get_agent("bob").focus_item is not None)
    server.call(lambda rt: rt.channels.post(TEAM, "maya", "@bob and tag it", sender_kind="person"))
    expect(row.locator(".tag-merged")).to_have_text("+1 merged")
    records = row.locator(".item-deliveries .delivery-record")
    expect(row.locator(".item-deliveries h3")).to_have_text("Delivery of 2 messages")
    expect(records).to_have_count(2)
    expect(records.nth(0).locator(".record-sender")).to_have_text("lead:")
    expect(chip(records.nth(0).locator(".delivery-own"), "bob")).to_have_text("bob started")
    expect(records.nth(0).locator(".receipt-flag")).to_have_text("partial")
    expect(records.nth(1).locator(".record-sender")).to_have_text("maya:")
    expect(chip(records.nth(1).locator(".delivery-own"), "bob")).to_have_text("bob steered")
    expect(records.nth(1).locator(".delivery-others")).to_have_count(0)


def test_ui_mind_shows_a_delivery_that_cannot_be_loaded_in_the_row(
    server: UiServer, page: Any
) -> None:
    extra = {"channelKey": "dm:a2a:ada:lead", "messageId": "chm_gone"}
    server.enqueue("ada", "a2a_message", {"content": "ghost", "extra": extra})
    row = open_row(page, server, "ada", "ghost")
    error = row.locator(".item-deliveries .load-error")
    expect(error).to_contain_text(
        "Could not load the delivery of message chm_gone: no channel message has the id 'chm_gone'"
    )
    expect(error).to_have_attribute("role", "alert")
    # Trying again asks again, and says so again.
    with page.expect_response(lambda r: "/api/channel-messages/chm_gone" in r.url) as answer:
        error.get_by_role("button", name="Try again").click()
    assert answer.value.status == 404
    expect(row.locator(".item-deliveries .load-error")).to_contain_text("chm_gone")


def test_ui_mind_looks_up_a_receipt_clipped_in_the_log_by_its_message_id(
    tmp_path: Path, model: FakeProvider, page: Any
) -> None:
    workers = [f"worker{n:02d}" for n in range(BIG_TEAM)]
    model.responder = sender(
        [FakeToolCall("agent_send_group_message", {"channel_key": "group:big", "message": "go"})]
    )
    agents = [AgentSpec("lead", llm(model))]
    agents += [AgentSpec(name, GateBrain(poll_s=0.5)) for name in workers]
    with UiServer(tmp_path / "ui.db", agents) as server:
        server.call(lambda rt: rt.channels.ensure_team("big", ["lead", *workers], "Big"))
        item_id = server.enqueue(
            "lead", "mention", {"content": "tell everyone"}, until={NEW: "completed"}
        )

        async def tool_end(runtime: Runtime) -> Any:
            [activity] = await runtime.store.find_activities("lead", [item_id])
            logs = await runtime.store.find_activity_logs(activity.id)
            return next(log for log in logs if str(log.type) == "tool_end")

        clipped = server.call(tool_end).metadata["result"]
        assert len(clipped) > 1000 and clipped.endswith("…"), "the receipt was not clipped"
        row = open_row(page, server, "lead", "tell everyone")
        row.get_by_role("button", name="Load activity log").click()
        end = row.locator(".activity-logs .log-tool_end")
        expect(end).to_have_count(1)
        expect(end.locator(".log-content")).to_have_text("agent_send_group_message")
        receipt = end.locator(".sent-receipt")
        expect(receipt).to_have_attribute("data-message", re.compile(r"^chm_"))
        expect(receipt.locator(".delivery")).to_have_count(BIG_TEAM)
        expect(chip(receipt, "worker39")).to_contain_text("worker39")
        expect(receipt.locator(".channel-link")).to_have_text("group:big")
