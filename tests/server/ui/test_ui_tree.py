"""The tree view of the web UI (seed 002; issue 14, the UI's part): the list of
spawn trees and one tree, with its agents indented by path, their run state,
unread mail, read-only flag and the tree's slots; live updates from the
``tree:*`` events; mail with its delivery outcome and reason; interrupt, stop,
start, spawn and remove; RESULTs and their read-only transcripts; errors shown.

The server is the real stack (runtime on an SQLite file, the API, the live
WebSocket, the page). The tree is made through the Python API
(``runtime.tree``) on the server's loop; children think with a
:class:`GateBrain` the test releases. Waiting is Playwright's auto-retrying
``expect`` on the page and ``UiServer.wait_until`` on the server.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from attn.brains import EchoBrain
from attn.runtime import Runtime
from tests.server.ui.uihelp import (
    AgentSpec,
    GateBrain,
    UiServer,
    axe_violations,
    no_horizontal_overflow,
)


class Crew:
    """The children's brains, by agent id: each works until :meth:`release`."""

    def __init__(self, server: UiServer) -> None:
        self.server = server
        self.brains: dict[str, GateBrain] = {}

    def spawn(self, parent: str, name: str, task: str | None = None, role: str = "") -> str:
        brain = GateBrain()

        async def go(runtime: Runtime) -> str:
            node = await runtime.tree.spawn(parent, name, task, brain=brain, description=role)
            return node.id

        agent_id = self.server.call(go)
        self.brains[agent_id] = brain
        return agent_id

    def release(self, agent_id: str) -> None:
        brain = self.brains[agent_id]

        async def go(runtime: Runtime) -> None:
            brain.open_all = True

        self.server.call(go)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[UiServer]:
    agents = [
        AgentSpec("lead", EchoBrain(), description="the release lead"),
        AgentSpec("peer", EchoBrain(), description="in no tree"),
    ]
    with UiServer(tmp_path / "ui.db", agents) as running:
        yield running


def make_tree(server: UiServer, capacity: int = 2) -> Crew:
    """lead (root, ``capacity`` slots) with ada (and her probe) and bob, all idle."""

    async def root(runtime: Runtime) -> None:
        await runtime.tree.make_root("lead", capacity=capacity)

    server.call(root)
    crew = Crew(server)
    crew.spawn("lead", "ada", role="runs the tests")
    crew.spawn("lead.ada", "probe", role="collects the changes")
    crew.spawn("lead", "bob", role="writes the notes")
    server.settle()
    return crew


def send(server: UiServer, sender: str, target: str, text: str) -> str:
    async def go(runtime: Runtime) -> str:
        delivery = await runtime.tree.send(sender, target, text)
        return str(delivery.outcome)

    return server.call(go)


def state_of(server: UiServer, agent: str) -> Any:
    def check(runtime: Runtime) -> bool:
        gate = runtime.tree.gates.get(agent)
        return gate is not None and not gate.in_turn and str(gate.state) == "idle"

    return check


def open_tree(page: Any, server: UiServer, where: str = "lead") -> None:
    page.goto(f"{server.url}/#/trees/{where}")
    expect(page.locator("#connection")).to_have_attribute("data-status", "live")
    expect(page.locator(".tree-node").first).to_be_visible()


def row(page: Any, agent: str) -> Any:
    return page.locator(f".tree-node[data-agent='{agent}']")


def select(page: Any, agent: str) -> None:
    row(page, agent).locator("a.node-select").click()
    expect(page.locator(f".tree-agent[data-agent='{agent}']")).to_be_visible()


def panel(page: Any) -> Any:
    return page.locator(".tree-agent")


def tree_json(server: UiServer) -> dict[str, Any]:
    response = httpx.get(f"{server.url}/api/trees/lead")
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def test_ui_tree_list_and_view_render_a_real_tree(server: UiServer, page: Any) -> None:
    make_tree(server, capacity=2)

    # The overview names each agent's tree and links to it.
    page.goto(server.url)
    expect(page.locator("#connection")).to_have_attribute("data-status", "live")
    ada_card = page.locator(".agent-card[data-agent='lead.ada']")
    expect(ada_card.locator(".agent-tree")).to_contain_text("In tree lead at /root/ada")
    expect(page.locator(".agent-card[data-agent='lead'] .agent-tree")).to_contain_text(
        "Root of tree lead"
    )
    expect(page.locator(".agent-card[data-agent='peer'] .agent-tree")).to_be_hidden()

    # The navigation leads to the list of trees.
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Trees").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Spawn trees")
    card = page.locator(".tree-card[data-tree='lead']")
    expect(card.locator(".slots-count")).to_have_text("0 / 2")
    expect(card.locator(".tree-agents-count")).to_have_text("4 agents")
    expect(page.locator(".tree-card")).to_have_count(1)
    assert axe_violations(page) == []

    card.get_by_role("link", name="lead").click()
    expect(page).to_have_url(re.compile(r"#/trees/lead$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Tree lead")
    rows = page.locator(".tree-node")
    expect(rows).to_have_count(4)
    order = rows.evaluate_all("rows => rows.map(r => [r.dataset.agent, r.dataset.depth])")
    assert order == [["lead", "0"], ["lead.ada", "1"], ["lead.ada.probe", "2"], ["lead.bob", "1"]]
    for agent in ("lead", "lead.ada", "lead.ada.probe", "lead.bob"):
        expect(row(page, agent).locator(".run-badge")).to_have_text("Idle")
    expect(row(page, "lead.ada.probe")).to_contain_text("/root/ada/probe")
    expect(row(page, "lead.ada")).to_contain_text("runs the tests")
    expect(page.locator(".tree-header .slots-count")).to_have_text("0 / 2")
    expect(page.locator(".tree-header .slot")).to_have_count(2)
    # The root is shown beside the tree; it needs no slot and cannot be removed here.
    expect(panel(page).locator(".agent-path")).to_have_text("/root")
    expect(panel(page).get_by_role("button", name="Remove…")).to_be_hidden()
    expect(panel(page).locator(".tree-results")).to_contain_text("No RESULT received yet")
    indent = [row(page, a).bounding_box()["x"] for a in ("lead", "lead.ada", "lead.ada.probe")]
    assert indent[0] < indent[1] < indent[2], f"rows are not indented by depth: {indent}"
    assert axe_violations(page) == []

    page.set_viewport_size({"width": 390, "height": 900})
    expect(rows).to_have_count(4)
    assert no_horizontal_overflow(page), "the tree view scrolls sideways at 390 px"
    assert axe_violations(page) == []

    # An agent's Mind view links to its place in the tree.
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{server.url}/#/agents/lead.ada")
    link = page.locator(".tree-line").get_by_role("link", name="lead")
    expect(page.locator(".tree-line")).to_contain_text("In the spawn tree lead at /root/ada")
    link.click()
    expect(page).to_have_url(re.compile(r"#/trees/lead\?agent=lead\.ada$"))
    expect(row(page, "lead.ada").locator("a.node-select")).to_have_attribute("aria-current", "true")
    expect(panel(page).locator(".agent-path")).to_have_text("/root/ada")


def test_ui_tree_updates_live_when_a_child_starts_and_settles(server: UiServer, page: Any) -> None:
    crew = make_tree(server, capacity=2)
    open_tree(page, server)
    page.evaluate("() => { window.__sameDocument = true; }")
    expect(row(page, "lead.ada").locator(".run-badge")).to_have_text("Idle")

    # The root mails ada: she starts and holds one slot.
    assert send(server, "lead", "lead.ada", "run the full test suite") == "started"
    expect(row(page, "lead.ada").locator(".run-badge")).to_have_text("Running")
    expect(row(page, "lead.ada").locator(".flag-slot")).to_have_text("holds a slot")
    expect(page.locator(".tree-header .slots-count")).to_have_text("1 / 2")
    expect(page.locator(".tree-header .slots-holders")).to_have_text(", held by /root/ada")
    expect(page.locator(".tree-header .slot-held")).to_have_count(1)

    # She settles: idle again, the slot is free, and her RESULT reaches the root live.
    crew.release("lead.ada")
    server.wait_until(state_of(server, "lead.ada"))
    expect(row(page, "lead.ada").locator(".run-badge")).to_have_text("Idle")
    expect(row(page, "lead.ada").locator(".flag-slot")).to_have_count(0)
    expect(page.locator(".tree-header .slots-count")).to_have_text("0 / 2")
    result = panel(page).locator(".result-entry")
    expect(result).to_have_count(1)
    expect(result.locator(".result-from")).to_have_text("/root/ada")
    expect(result.locator(".result-outcome")).to_have_text("Completed")
    expect(result.locator(".result-preview")).to_contain_text("run the full test suite")
    assert page.evaluate("() => window.__sameDocument === true"), "the page was reloaded"

    # Its transcript opens read-only: the mail the turn read and its activity log.
    result.get_by_role("button").click()
    dialog = page.get_by_role("dialog", name="Turn of /root/ada")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".transcript-turn")).to_contain_text("Mail it read")
    expect(dialog.locator(".transcript-turn")).to_contain_text("run the full test suite")
    expect(dialog.locator(".activity-logs")).to_contain_text("working on")
    expect(dialog.locator("textarea, input")).to_have_count(0)
    assert axe_violations(page) == []
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_be_hidden()

    # A child spawned meanwhile appears, and one removed goes, without a reload.
    crew.spawn("lead.bob", "scout")
    expect(row(page, "lead.bob.scout")).to_contain_text("/root/bob/scout")

    async def remove(runtime: Runtime) -> None:
        await runtime.tree.remove("lead.bob")

    server.call(remove)
    expect(row(page, "lead.bob")).to_have_count(0)
    expect(row(page, "lead.bob.scout")).to_have_count(0)
    expect(page.locator(".tree-node")).to_have_count(3)
    assert page.evaluate("() => window.__sameDocument === true"), "the page was reloaded"


def test_ui_tree_mail_shows_the_delivery_outcome_and_reason(server: UiServer, page: Any) -> None:
    crew = make_tree(server, capacity=1)
    open_tree(page, server)

    # Nothing is sent without text.
    select(page, "lead.ada")
    panel(page).get_by_role("button", name="Send mail").click()
    expect(panel(page).locator(".tree-mail .post-error")).to_have_text("Write the mail first.")
    assert tree_json(server)["agents"][1]["unread"] == 0

    # An idle agent starts at once.
    panel(page).get_by_label("Mail to /root/ada").fill("check the build")
    panel(page).get_by_role("button", name="Send mail").click()
    delivery = panel(page).locator(".mail-result .delivery")
    expect(delivery).to_have_text("lead.ada started")
    expect(panel(page).get_by_label("Mail to /root/ada")).to_have_value("")
    expect(row(page, "lead.ada").locator(".run-badge")).to_have_text("Running")

    # The one slot is taken: bob's mail waits, and the page says why.
    select(page, "lead.bob")
    panel(page).get_by_label("Mail to /root/bob").fill("write the notes")
    panel(page).get_by_role("button", name="Send mail").click()
    delivery = panel(page).locator(".mail-result .delivery")
    expect(delivery.locator(".delivery-outcome")).to_have_text("queued")
    expect(delivery.locator(".delivery-reason")).to_contain_text(
        "at capacity: 1 of 1 turn slots in use (held by /root/ada)"
    )
    expect(row(page, "lead.bob").locator(".run-badge")).to_have_text("Waiting")
    expect(row(page, "lead.bob").locator(".unread")).to_have_text("1 unread")
    expect(page.locator(".tree-header .slots-waiting")).to_contain_text("/root/bob")
    expect(panel(page).locator(".agent-facts")).to_contain_text("waits for one")

    # ada settles: bob gets the slot.
    crew.release("lead.ada")
    expect(row(page, "lead.bob").locator(".run-badge")).to_have_text("Running")
    expect(page.locator(".tree-header .slots-holders")).to_have_text(", held by /root/bob")
    crew.release("lead.bob")
    server.wait_until(state_of(server, "lead.bob"))
    expect(row(page, "lead.bob").locator(".run-badge")).to_have_text("Idle")


def test_ui_tree_interrupt_stop_and_start(server: UiServer, page: Any) -> None:
    make_tree(server, capacity=2)
    open_tree(page, server)

    # Mail the root sends in Plan mode makes ada's turn read-only, and the row says so.
    async def plan(runtime: Runtime) -> None:
        runtime.tree.set_plan("lead", True)

    server.call(plan)
    assert send(server, "lead", "lead.ada", "a long search") == "started"
    expect(row(page, "lead.ada").locator(".run-badge")).to_have_text("Running")
    expect(row(page, "lead.ada").locator(".flag-readonly")).to_have_text("read-only")
    expect(row(page, "lead").locator(".flag-plan")).to_have_text("Plan mode")

    # Interrupt: the turn ends as interrupted, and the root's RESULT says so.
    select(page, "lead.ada")
    panel(page).get_by_role("button", name="Interrupt").click()
    expect(panel(page).locator(".action-status")).to_contain_text("Interrupted /root/ada")
    expect(row(page, "lead.ada").locator(".run-badge")).to_have_text("Idle")
    expect(row(page, "lead.ada").locator(".flag-readonly")).to_have_count(0)
    select(page, "lead")
    result = panel(page).locator(".result-entry")
    expect(result.locator(".result-outcome")).to_have_text("Interrupted")
    expect(result.locator(".result-reason")).to_have_text("interrupted by a person")

    # Stop: mail waits, with the reason; Start: it runs.
    select(page, "lead.bob")
    panel(page).get_by_role("button", name="Stop").click()
    expect(row(page, "lead.bob").locator(".run-badge")).to_have_text("Stopped")
    expect(panel(page).get_by_role("button", name="Stop")).to_be_disabled()
    panel(page).get_by_label("Mail to /root/bob").fill("when you are back")
    panel(page).get_by_role("button", name="Send mail").click()
    expect(panel(page).locator(".mail-result .delivery")).to_have_text(
        "lead.bob queued (stopped: read when it is started again)"
    )
    panel(page).get_by_role("button", name="Start").click()
    expect(row(page, "lead.bob").locator(".run-badge")).to_have_text("Running")
    expect(panel(page).locator(".action-status")).to_contain_text("/root/bob started")


def test_ui_tree_spawn_remove_and_errors(server: UiServer, page: Any) -> None:
    make_tree(server, capacity=2)
    open_tree(page, server)
    before = tree_json(server)

    # A bad name is refused in the server's words, and nothing changes.
    spawn = panel(page).locator(".spawn-child")
    spawn.get_by_text("Spawn a child…").click()
    spawn.get_by_label("Child name").fill("Bad Name")
    spawn.get_by_role("button", name="Spawn child").click()
    error = spawn.locator(".post-error")
    expect(error).to_contain_text("Not spawned:")
    expect(error).to_contain_text("a child's name is 1-32 characters")
    expect(spawn.get_by_label("Child name")).to_have_value("Bad Name")
    assert tree_json(server)["agents"] == before["agents"]
    expect(page.locator(".tree-node")).to_have_count(4)

    # A taken name too.
    spawn.get_by_label("Child name").fill("ada")
    spawn.get_by_role("button", name="Spawn child").click()
    expect(error).to_contain_text("/root/ada already exists")

    # A good one appears live, with its task's delivery; the echo child answers at once.
    spawn.get_by_label("Child name").fill("cy")
    spawn.get_by_label("Task (optional: sent as its first mail)").fill("say hello")
    spawn.get_by_label("Role (optional)").fill("greets")
    spawn.get_by_role("button", name="Spawn child").click()
    expect(error).to_be_hidden()
    expect(spawn.locator(".mail-result")).to_contain_text("Spawned /root/cy")
    expect(spawn.locator(".mail-result .delivery")).to_have_text("lead.cy started")
    expect(row(page, "lead.cy")).to_contain_text("greets")
    expect(panel(page).locator(".result-entry[data-from='lead.cy']")).to_contain_text("say hello")

    # Remove asks first; keeping it changes nothing.
    select(page, "lead.ada")
    panel(page).get_by_role("button", name="Remove…").click()
    dialog = page.get_by_role("dialog", name="Remove this agent?")
    expect(dialog).to_contain_text("/root/ada and the 1 agent(s) below it")
    assert axe_violations(page) == []
    dialog.get_by_role("button", name="Keep it").click()
    expect(row(page, "lead.ada")).to_have_count(1)
    panel(page).get_by_role("button", name="Remove…").click()
    dialog.get_by_role("button", name="Remove").click()
    expect(row(page, "lead.ada")).to_have_count(0)
    expect(row(page, "lead.ada.probe")).to_have_count(0)
    expect(page).to_have_url(re.compile(r"#/trees/lead$"))
    expect(panel(page).locator(".agent-path")).to_have_text("/root")
    assert [n["agentId"] for n in tree_json(server)["agents"]] == ["lead", "lead.bob", "lead.cy"]

    # A tree that does not exist says so.
    page.goto(f"{server.url}/#/trees/nope")
    expect(page.locator(".tree-header .load-error")).to_contain_text(
        "There is no spawn tree with the id nope"
    )


def test_ui_tree_merged_results_each_show_their_own_text(server: UiServer, page: Any) -> None:
    crew = make_tree(server, capacity=2)

    async def stop_root(runtime: Runtime) -> None:
        await runtime.tree.stop("lead")

    server.call(stop_root)
    assert send(server, "lead", "lead.ada", "run the tests") == "started"
    assert send(server, "lead", "lead.bob", "draft the notes") == "started"
    crew.release("lead.ada")
    crew.release("lead.bob")
    server.wait_until(
        lambda rt: rt.tree.gates["lead.ada"].turns == rt.tree.gates["lead.bob"].turns == 1
    )

    async def start_root(runtime: Runtime) -> None:
        await runtime.tree.start("lead")  # it reads both RESULTs in one turn

    server.call(start_root)
    server.wait_until(lambda rt: rt.get_agent("lead").depth == 0)
    server.wait_until(state_of(server, "lead"))
    server.settle()
    stored = httpx.get(f"{server.url}/api/agents/lead/results").json()["results"]
    assert sorted(r["item"]["status"] for r in stored) == ["completed", "merged"], stored

    open_tree(page, server)
    results = panel(page).locator(".result-entry")
    expect(results).to_have_count(2)
    for agent, task, other in (
        ("lead.ada", "run the tests", "draft the notes"),
        ("lead.bob", "draft the notes", "run the tests"),
    ):
        preview = panel(page).locator(f".result-entry[data-from='{agent}'] .result-preview")
        expect(preview).to_contain_text(task)
        expect(preview).not_to_contain_text(other)
    expect(results.locator(".result-read")).to_have_text(["read", "read"])
