"""Make docs/run-view.png: the page of one run of a command-line worker, from a real run.

Run: ``.venv/bin/python docs/run_view_screenshot.py``

A real attn server (runtime on an SQLite file, the API, the live WebSocket, the
web UI) starts a real worker subprocess (``tests/server/ui/runhelp.py``'s
``ASKING_WORKER``, a Python script on :class:`attn.filebox.client.FileboxClient`)
in run ``deploy-311``. The worker prints its progress, tells its leader that the
tests pass, and asks ``@supervisor need_confirmation``-style whether to deploy;
its task waits. While it waits, the leader steers it twice (both wait in the
pending queue: a waiting task takes no steers). The picture, taken in Debian's
headless Chromium, is ``#/runs/deploy-311``: the waiting task with Approve and
Reject, the pending counts, the three boxes of messages, the output and events.

Then the script answers as a person would: it clicks Approve and checks that the
task runs again, that the queued steers were delivered, and that the worker goes
on and finishes after a last steer, so the picture is of a run that works end to end.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import httpx
from playwright.sync_api import expect, sync_playwright

from tests.server.ui.runhelp import host_runs, start_asking_worker, stop_workers
from tests.server.ui.uihelp import UiServer, launch

RUN = "deploy-311"
TASK = "deploy"


def main() -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        UiServer(Path(folder) / "ui.db", []) as server,
        sync_playwright() as playwright,
    ):
        host_runs(server, Path(folder) / "state")
        try:
            start_asking_worker(
                server,
                Path(folder),
                RUN,
                task_id=TASK,
                env={"HOSTILE_LINE": "214 tests passed in 38 s"},
            )
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{server.url}/#/runs/{RUN}")
            expect(page.locator("#connection")).to_have_attribute("data-status", "live")
            task = page.locator(f".run-task[data-task='{TASK}']")
            expect(task.locator(".task-chip")).to_have_text("Waiting for you")
            for text in ("after the deploy, run the smoke tests", "post the release notes"):
                sent = httpx.post(
                    f"{server.url}/api/runs/{RUN}/tasks/{TASK}/steer", json={"body": text}
                )
                sent.raise_for_status()
            expect(page.locator(".run-queue .pending-steer")).to_have_attribute("data-count", "2")
            expect(page.locator(".run-output")).to_contain_text("checking out build 311")
            expect(page.locator(".msg-list[data-box='outbox'] .msg-row")).to_have_count(2)
            page.mouse.move(0, 0)
            page.screenshot(path=HERE / "run-view.png", full_page=True)

            # A person answers in the web UI; the worker goes on.
            task.get_by_role("button", name="Approve").click()
            expect(task.locator(".task-chip")).to_have_text("Running")
            expect(page.locator(".run-queue .pending-steer")).to_have_attribute("data-count", "0")
            output = page.locator(".run-output")
            expect(output).to_contain_text("answer: approved approved=True")
            expect(output).to_contain_text("steered: post the release notes")
            form = page.locator(".run-steer")
            form.get_by_label("Message").fill("finish")
            form.get_by_role("button", name="Steer").click()
            expect(task.locator(".task-chip")).to_have_text("Completed")
            print(output.inner_text())
            browser.close()
        finally:
            stop_workers(server)
    print(f"wrote {HERE / 'run-view.png'}")


if __name__ == "__main__":
    main()
