"""A task whose worker finished (failed, lost, completed, cancelled) runs again when a
new worker starts on it: a new attempt that can be answered and takes mail.

Seed 003 ("Core Operations": respond answers a waiting task); README "start a
worker in the same run to go on".
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from attn import Runtime
from attn.config import FileboxConfig
from tests.filebox.support import python_worker, script, until

ASK = """
from attn.filebox.client import FileboxClient
box = FileboxClient.from_env()
answer = box.ask("Deploy?")
print("got", answer.body, flush=True)
"""


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[Runtime]:
    async with Runtime(filebox=FileboxConfig(state_dir=tmp_path / "state")) as rt:
        yield rt


@pytest.mark.parametrize("first", ["fail", "succeed", "cancel"])
async def test_a_worker_started_on_a_finished_task_is_a_new_attempt_that_can_be_answered(
    runtime: Runtime, tmp_path: Path, first: str
) -> None:
    if first == "cancel":
        run = runtime.filebox.create_run("f", tasks=("w",))
        run.cancel("w")
    else:
        code = "1" if first == "fail" else "0"
        done = await runtime.filebox.start_worker(
            script(tmp_path, "first.sh", f"#!/bin/sh\nexit {code}\n"), run_id="f", task_id="w"
        )
        await done.wait()
        run = done.run
    before = run.manifest()["tasks"]["w"]["status"]
    assert before in ("failed", "completed", "cancelled")
    worker = await runtime.filebox.start_worker(
        python_worker(tmp_path, "ask.py", ASK), run_id="f", task_id="w"
    )
    await until(lambda: run.manifest()["tasks"]["w"]["status"] == "waiting", "the question")
    task = run.manifest()["tasks"]["w"]
    assert task["attempt"] == 2
    run.follow_up("w", "queued while it waits")  # mail is taken again, not task_finished
    answer = run.respond("w", "approved")
    assert not answer.duplicate
    assert await worker.wait() == 0
    assert "got approved" in run.paths.output.read_text()
    [restarted] = [e for e in run.events() if e["type"] == "task.restarted"]
    assert restarted["data"] == {"previous": before, "attempt": 2}
    assert run.manifest()["tasks"]["w"]["status"] == "completed"


async def test_a_lost_workers_task_runs_again_under_the_next_worker(
    runtime: Runtime, tmp_path: Path
) -> None:
    run = runtime.filebox.create_run("lost", tasks=("w",))
    from attn.filebox.supervision import worker_exited, worker_started

    worker_started(run, "w", 2**31 - 2, ["gone"])
    worker_exited(run, None, lost=True)
    assert run.manifest()["tasks"]["w"]["status"] == "failed"
    worker = await runtime.filebox.start_worker(
        python_worker(tmp_path, "ask.py", ASK), run_id="lost", task_id="w"
    )
    await until(lambda: run.manifest()["tasks"]["w"]["status"] == "waiting", "the question")
    run.respond("w", "yes")
    assert await worker.wait() == 0
