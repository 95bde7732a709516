"""Make docs/tree-view.png: the web UI's tree view of a real spawn tree (seed 002).

Run: ``.venv/bin/python docs/tree_view_screenshot.py``

A real attn server (runtime on an SQLite file, the API, the live WebSocket,
the web UI; :class:`UiServer` of the browser tests) hosts ``lead``, a Python
brain. A person asks it to "ship release 2.4"; in that turn lead makes itself
the root of a tree with two turn slots and spawns three retained children
with a task each: ``ada`` runs the tests, ``bob`` writes the release notes,
``cy`` checks the docs. Two slots: ada and bob start, cy waits. bob spawns
``probe`` under itself to collect the changes, which waits as well. ada
finishes; her RESULT wakes lead and her slot goes to cy. The picture is taken
then, in Debian's headless Chromium: lead idle with ada's RESULT (completed,
its preview), ada idle, bob and cy running and holding the two slots,
``/root/bob/probe`` waiting for one with its task unread.

(The tools helper's ``attn.testing.demo_tree`` is not on main yet, so the tree
is scripted here with Python brains.)
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "server" / "ui"))

from playwright.sync_api import expect, sync_playwright
from uihelp import AgentSpec, UiServer, launch

from attn.core.focus import Focus, Reply
from attn.models import MailboxItem
from attn.runtime import Runtime

ASK = "ship release 2.4"
ADA_ANSWER = (
    "All 1,204 tests pass on SQLite and PostgreSQL (6 min 12 s). "
    "Two flaky retries in tests/server/test_ws.py, both green on the second run."
)


def task_of(item: MailboxItem) -> str:
    """The text of a MAIL record without its ``[mail from …]`` header."""
    return item.content.split("\n", 1)[-1]


class Held:
    """A child's brain: logs its steps and works until the script releases it."""

    def __init__(self, answer: str, spawn: tuple[str, str, Held] | None = None) -> None:
        self.answer = answer
        self.spawn = spawn
        self.released = False
        self.runtime: Runtime | None = None

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | None:
        focus.log("status", f"working on: {task_of(item)}")
        if self.spawn is not None and self.runtime is not None:
            name, task, brain = self.spawn
            self.spawn = None
            await self.runtime.tree.spawn(item.agent_id, name, task, brain=brain)
            focus.log("status", f"spawned {name}: {task}")
        while not self.released:
            await focus.clock.sleep(0.05)
            if (await focus.yield_point()).stop:
                return None
        return Reply(self.answer)


class Lead:
    """The root's brain: spawns the release crew, then notes each RESULT."""

    def __init__(self, crew: dict[str, tuple[str, str, Held]]) -> None:
        self.crew = crew
        self.runtime: Runtime | None = None

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | None:
        assert self.runtime is not None
        tree = self.runtime.tree
        if item.source_type == "agent_result":
            return Reply(f"noted: {item.summary}")
        await tree.make_root(item.agent_id, capacity=2)
        for name, (role, task, brain) in self.crew.items():
            await tree.spawn(item.agent_id, name, task, brain=brain, description=role)
        return Reply(f"asked {', '.join(self.crew)} to {item.content}")


def main() -> None:
    probe = Held("14 merged pull requests since 2.3")
    held = {
        "ada": Held(ADA_ANSWER),
        "bob": Held("notes drafted", spawn=("probe", "collect the changes since 2.3", probe)),
        "cy": Held("docs links all resolve"),
    }
    crew = {
        "ada": ("runs the test suites", "run the full test suite", held["ada"]),
        "bob": ("writes the release notes", "draft the 2.4 release notes", held["bob"]),
        "cy": ("checks the docs", "check every link in docs/", held["cy"]),
    }
    lead = Lead(crew)
    with (
        tempfile.TemporaryDirectory() as folder,
        UiServer(
            Path(folder) / "ui.db", [AgentSpec("lead", lead, description="release lead")]
        ) as server,
        sync_playwright() as playwright,
    ):
        assert server.runtime is not None
        for brain in (lead, probe, *held.values()):
            brain.runtime = server.runtime

        async def ask(runtime: Runtime) -> None:
            await runtime.get_agent("lead").enqueue("human_chat", {"content": ASK})

        server.call(ask)

        def gates(rt: Runtime) -> dict[str, str]:
            return {agent: str(gate.state) for agent, gate in rt.tree.gates.items()}

        # ada and bob hold the two slots; cy and bob's probe wait for one.
        server.wait_until(
            lambda rt: (
                gates(rt).get("lead.bob.probe") == "waiting"
                and gates(rt).get("lead.ada") == "running"
            )
        )

        async def release_ada(runtime: Runtime) -> None:
            held["ada"].released = True

        server.call(release_ada)
        server.wait_until(
            lambda rt: (
                gates(rt).get("lead.ada") == "idle"
                and gates(rt).get("lead.cy") == "running"
                and gates(rt).get("lead") == "idle"
                and rt.get_agent("lead").depth == 0
            )
        )
        server.settle()

        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 760})
        page.goto(f"{server.url}/#/trees/lead")
        expect(page.locator("#connection")).to_have_attribute("data-status", "live")
        rows = page.locator(".tree-node")
        expect(rows).to_have_count(5)
        expect(page.locator(".tree-header .slots-count")).to_have_text("2 / 2")
        expect(page.locator(".tree-header .slots-holders")).to_contain_text("/root/bob")
        expect(page.locator(".tree-header .slots-waiting")).to_contain_text("/root/bob/probe")
        expect(page.locator(".tree-node[data-agent='lead.bob.probe'] .run-badge")).to_have_text(
            "Waiting"
        )
        expect(page.locator(".result-entry")).to_have_count(1)
        expect(page.locator(".result-entry").first).to_contain_text("1,204 tests pass")
        page.mouse.move(0, 0)
        page.screenshot(path=HERE / "tree-view.png", full_page=True)
        browser.close()

        for brain in (probe, *held.values()):
            brain.released = True
    print(f"wrote {HERE / 'tree-view.png'}")


if __name__ == "__main__":
    main()
