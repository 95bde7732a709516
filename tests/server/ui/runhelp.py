"""Helpers of the run view's browser tests (and of docs/run_view_screenshot.py):
run folders under a test's own state dir, a real worker program that asks its
leader a question and goes on with the answer, and reads of the run's files.

:data:`ASKING_WORKER` is a Python worker script (run by ``runtime.filebox.start_worker``
as a real subprocess): it prints a few lines (one of them HTML, which the page
must show as text), asks its question through :class:`attn.filebox.client.FileboxClient`,
prints and sends what it was told, then follows its steering file until a steer
says ``finish``, and exits 0.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from attn.config.filebox import FileboxConfig
from attn.filebox.contact import Contact, ContactKind
from attn.filebox.run import Run
from attn.filebox.supervision import record_contact
from attn.runtime import Runtime
from tests.server.ui.uihelp import UiServer

#: What the worker prints before it asks: one line is markup, shown as text.
HOSTILE_LINE = '<img src=x onerror="window.__pwned=1"><b>not bold</b>'

ASKING_WORKER = """\
import json, os, sys, time
from attn.filebox.client import FileboxClient

box = FileboxClient.from_env()
kind = os.environ.get("ASK_KIND", "need_confirmation")
options = json.loads(os.environ.get("ASK_OPTIONS", "[]"))
print("checking out build 311", flush=True)
print(os.environ.get("HOSTILE_LINE", ""), flush=True)
box.send(os.environ.get("FIRST_NOTE", "tests pass: 214 of 214"))
question = os.environ.get("ASK_TEXT", "Deploy build 311 to production?")
answer = box.ask(question, kind, options=options)
print(f"answer: {answer.body} approved={answer.approved}", flush=True)
box.send("deploying build 311" if answer.approved is not False else "not deploying")
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    for message in box.steering():
        box.ack(message["id"])
        print(f"steered: {message['body']}", flush=True)
        if message["body"] == "finish":
            print("done", flush=True)
            sys.exit(0)
    time.sleep(0.05)
sys.exit(3)
"""


def host_runs(server: UiServer, state_dir: Path) -> None:
    """Keep the server's runs under ``state_dir`` (no fsync: tests need no power-cut safety)."""

    async def go(runtime: Runtime) -> None:
        runtime.filebox.configure(FileboxConfig(state_dir=state_dir, fsync=False))

    server.call(go)


def start_asking_worker(
    server: UiServer,
    folder: Path,
    run_id: str,
    *,
    task_id: str = "deploy",
    owner: str | None = None,
    env: dict[str, str] | None = None,
) -> int:
    """Start :data:`ASKING_WORKER` as the worker of ``task_id`` in a new run; its pid."""
    script = folder / "asking_worker.py"
    script.write_text(ASKING_WORKER)

    async def go(runtime: Runtime) -> int:
        worker = await runtime.filebox.start_worker(
            [sys.executable, str(script)],
            run_id=run_id,
            task_id=task_id,
            owner=owner,
            env={"HOSTILE_LINE": HOSTILE_LINE, **(env or {})},
        )
        assert worker.pid is not None
        return worker.pid

    return server.call(go)


def stop_workers(server: UiServer) -> None:
    """Stop every worker the server started (a test that failed midway leaves none)."""

    async def go(runtime: Runtime) -> None:
        await runtime.filebox.aclose()

    server.call(go)


def new_run(
    server: UiServer, run_id: str, *, owner: str | None = None, tasks: tuple[str, ...] = ()
) -> None:
    async def go(runtime: Runtime) -> None:
        runtime.filebox.create_run(run_id, owner=owner, tasks=tasks)

    server.call(go)


def ask(
    server: UiServer, run_id: str, task_id: str, kind: ContactKind, text: str, *options: str
) -> str:
    """Record a supervisor contact as a worker's output would (FILE-10); the question id."""

    async def go(runtime: Runtime) -> str:
        run = runtime.filebox.run(run_id)
        question, _ = await asyncio.to_thread(
            record_contact, run, task_id, Contact(kind, text, tuple(options))
        )
        return str(question["id"])

    return server.call(go)


def run_of(server: UiServer, run_id: str) -> Run:
    async def go(runtime: Runtime) -> Run:
        return runtime.filebox.run(run_id)

    return server.call(go)


def view_of(server: UiServer, run_id: str) -> dict[str, Any]:
    """The run's view, read from its files."""

    async def go(runtime: Runtime) -> dict[str, Any]:
        return await asyncio.to_thread(runtime.filebox.run(run_id).view)

    return server.call(go)


def responses(server: UiServer, run_id: str) -> list[dict[str, Any]]:
    """Every response message in the run's inbox files, as stored."""

    async def go(runtime: Runtime) -> list[dict[str, Any]]:
        messages = await asyncio.to_thread(runtime.filebox.run(run_id).mailbox.everything)
        return [m.to_dict() for m in messages if m.kind == "response"]

    return server.call(go)
