"""Cancelling a waiting task withdraws its question: the bell's notification is read,
the contact acknowledged, and the worker's ``ask`` ends instead of waiting for good.

Seed 003 ("Supervisor Contact", cancel "with mailbox cleanup"); FILE-10.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from attn import Runtime
from attn.config import FileboxConfig
from tests.filebox.support import python_worker, until

ASK = """
import sys
from attn.errors import QuestionWithdrawn
from attn.filebox.client import FileboxClient
box = FileboxClient.from_env()
try:
    box.ask("Deploy?")
except QuestionWithdrawn as exc:
    print("withdrawn:", exc.reason, flush=True)
    sys.exit(3)
"""


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[Runtime]:
    async with Runtime(filebox=FileboxConfig(state_dir=tmp_path / "state")) as rt:
        yield rt


async def test_cancelling_a_waiting_task_withdraws_its_question_and_ends_the_ask(
    runtime: Runtime, tmp_path: Path
) -> None:
    worker = await runtime.filebox.start_worker(
        python_worker(tmp_path, "ask.py", ASK), run_id="c", task_id="deploy"
    )
    run = worker.run
    await until(lambda: run.manifest()["tasks"]["deploy"]["status"] == "waiting", "the question")
    qid = run.manifest()["tasks"]["deploy"]["question"]["id"]

    async def unread() -> int:
        return (await runtime.people.notifications.page()).unread_count

    for _ in range(200):
        if await unread() == 1:
            break
        await asyncio.sleep(0.02)
    assert await unread() == 1
    task = await asyncio.to_thread(run.cancel, "deploy", reason="not today")
    assert task["status"] == "cancelled" and "question" not in task
    assert await asyncio.wait_for(worker.wait(), 20) == 3
    assert "withdrawn: cancelled" in run.paths.output.read_text()
    [withdrawn] = [e for e in run.events() if e["type"] == "question.withdrawn"]
    assert withdrawn["data"] == {"questionId": qid, "reason": "cancelled"}
    [contact] = [m for m in run.mailbox.messages("outbox") if m.kind == "contact"]
    assert contact.status == "acknowledged"
    for _ in range(200):
        if await unread() == 0:
            break
        await asyncio.sleep(0.02)
    assert await unread() == 0
    assert run.manifest()["tasks"]["deploy"]["status"] == "cancelled"


async def test_a_question_for_a_cancelled_task_is_dropped_and_the_ask_ends(
    runtime: Runtime, tmp_path: Path
) -> None:
    run = runtime.filebox.create_run("c2", tasks=("other",))
    run.cancel("other")
    code = ASK.replace('box.ask("Deploy?")', 'box.ask("Deploy?")  # for a finished task')
    code = code.replace("FileboxClient.from_env()", "FileboxClient(sys.argv[1], 'other')")
    worker = await runtime.filebox.start_worker(
        [*python_worker(tmp_path, "ask2.py", code), str(run.paths.run_dir)],
        run_id="c2",
        task_id="main",
    )
    assert await asyncio.wait_for(worker.wait(), 20) == 3
    assert "withdrawn: task other is cancelled" in run.paths.output.read_text()
    assert [m for m in run.mailbox.messages("outbox") if m.kind == "contact"] == []
    assert (await runtime.people.notifications.page()).total_count == 0


async def test_cancelling_a_running_task_retires_its_worker_and_frees_the_run(
    runtime: Runtime, tmp_path: Path
) -> None:
    from tests.filebox.support import script

    busy = script(tmp_path, "busy.sh", "#!/bin/sh\nsleep 30\n")
    worker = await runtime.filebox.start_worker(busy, run_id="r", task_id="build")
    run = worker.run
    await until(lambda: run.manifest()["tasks"]["build"]["status"] == "running", "the start")
    task = await runtime.filebox.cancel_task("r", "build", reason="not needed")
    assert task["status"] == "cancelled"
    assert worker.running  # the answer does not wait for the worker
    await asyncio.wait_for(worker.wait(), 15)  # ended: its own way, else SIGTERM
    assert run.manifest()["tasks"]["build"]["status"] == "cancelled"  # the exit keeps it
    again = await runtime.filebox.start_worker(busy, run_id="r", task_id="build")
    assert again.running  # the run's worker slot is free: a new attempt
    await runtime.filebox.stop_worker("r", grace_s=0.5)


async def test_a_worker_asking_when_its_task_is_cancelled_ends_on_its_own(
    runtime: Runtime, tmp_path: Path
) -> None:
    worker = await runtime.filebox.start_worker(
        python_worker(tmp_path, "ask.py", ASK), run_id="c2", task_id="deploy"
    )
    run = worker.run
    await until(lambda: run.manifest()["tasks"]["deploy"]["status"] == "waiting", "the question")
    await runtime.filebox.cancel_task("c2", "deploy")
    assert await asyncio.wait_for(worker.wait(), 20) == 3  # not killed: it saw the withdrawal
