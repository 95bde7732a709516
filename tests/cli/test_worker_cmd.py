"""``attn worker …``: the worker's own commands as real subprocesses in a run folder, and
``attn worker run`` against a real server starting a real shell-script worker that
asks through ``attn worker ask`` and is answered over REST (FILE-10..12).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attn.cli.main import app
from attn.cli.worker import exit_status
from attn.filebox import Run
from tests.filebox.support import make_run, script, until
from tests.server.runs_api import RunsApi, runs

__all__ = ["runs"]


def _env(run: Run | None, task: str = "build", **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTN_")}
    if run is not None:
        env.update(ATTN_RUN_DIR=str(run.paths.run_dir), ATTN_TASK_ID=task)
    return {**env, **extra}


async def _attn(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "attn",
        "worker",
        *args,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


@pytest.fixture
def run(tmp_path: Path) -> Run:
    return make_run(tmp_path / "runs", "r1")


async def test_file_12_inbox_replays_unacknowledged_messages_until_acked(run: Run) -> None:
    first = run.send("build", "one").message
    run.send("test", "not for build")
    run.send("*", "everyone")
    assert first is not None
    code, out, err = await _attn(_env(run), "inbox")
    assert (code, err) == (0, "")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [m["body"] for m in lines] == ["one", "everyone"]
    assert {m["status"] for m in lines} == {"delivered"}
    assert await _attn(_env(run), "ack", first.id) == (0, "", "")
    code, out, _ = await _attn(_env(run), "inbox")
    assert [json.loads(line)["body"] for line in out.splitlines()] == ["everyone"]
    code, _, err = await _attn(_env(run), "ack", "fbm_nope")
    assert code == 1 and "has no message 'fbm_nope'" in err


async def test_steering_send_and_heartbeat_work_on_the_files(run: Run) -> None:
    nudged = run.nudge("build").message
    assert nudged is not None
    code, out, _ = await _attn(_env(run), "steering")
    assert code == 0 and [json.loads(line)["id"] for line in out.splitlines()] == [nudged.id]
    code, out, _ = await _attn(_env(run), "send", "tests pass")
    [message] = run.mailbox.messages("outbox")
    assert code == 0 and out.strip() == message.id and message.body == "tests pass"
    assert message.sender == "build" and message.to == "leader"
    assert await _attn(_env(run), "heartbeat") == (0, "", "")
    assert run.manifest()["worker"]["lastSeenAt"]
    assert run.worker_alive() is True  # nobody supervises it: alive after a heartbeat


async def test_file_10_ask_waits_for_the_answer_and_exits_by_it(run: Run) -> None:
    async def asked_and_answered(body: str, approved: bool) -> tuple[int, str, str]:
        asking = asyncio.create_task(_attn(_env(run), "ask", "Deploy v2?", "--timeout", "60"))
        await until(
            lambda: run.manifest()["tasks"].get("build", {}).get("status") == "waiting",
            "the question",
        )
        await asyncio.to_thread(run.respond, "build", body, data={"approved": approved})
        return await asking

    assert await asked_and_answered("approved", True) == (0, "approved\n", "")
    code, out, _ = await asked_and_answered("no, wait", False)
    assert (code, out) == (1, "no, wait\n")
    events = [e["type"] for e in run.events()]
    assert events.count("supervisor.contact") == 2 and events.count("task.responded") == 2
    # No answer in time: exit 4, the question stays open.
    code, out, err = await _attn(
        _env(run), "ask", "Which branch?", "--kind", "need_input", "--timeout", "0.3"
    )
    assert (code, out) == (4, "") and "no answer in 0.3 s" in err
    # The question is withdrawn: the task runs again and nobody is asked to answer it.
    task = run.manifest()["tasks"]["build"]
    assert task["status"] == "running" and "question" not in task
    assert [e["type"] for e in run.events()][-1] == "question.withdrawn"


async def test_ask_ends_with_exit_5_when_its_task_is_cancelled(run: Run) -> None:
    asking = asyncio.create_task(_attn(_env(run), "ask", "Deploy v2?"))
    await until(
        lambda: run.manifest()["tasks"].get("build", {}).get("status") == "waiting",
        "the question",
    )
    await asyncio.to_thread(run.cancel, "build")
    code, out, err = await asyncio.wait_for(asking, 30)
    assert (code, out) == (5, "")
    assert "will not be answered: cancelled" in err and len(err.splitlines()) == 1


async def test_outside_a_run_the_worker_commands_exit_2_with_one_line(
    run: Run, tmp_path: Path
) -> None:
    for args in (("inbox",), ("steering",), ("send", "hi"), ("heartbeat",), ("ack", "x")):
        code, out, err = await _attn(_env(None), *args)
        assert (code, out) == (2, ""), args
        assert err.count("\n") == 1 and "ATTN_RUN_DIR and ATTN_TASK_ID are not set" in err
    code, _, err = await _attn(
        _env(None, ATTN_RUN_DIR=str(tmp_path / "none"), ATTN_TASK_ID="b"), "inbox"
    )
    assert code == 2 and "holds no run" in err
    code, _, err = await _attn(_env(run), "ask", "x", "--kind", "need_money")
    assert code == 2 and "--kind must be one of" in err
    code, _, err = await _attn(_env(run, task="../up"), "inbox")
    assert code == 2 and "task id must be" in err


def test_a_workers_exit_code_becomes_the_exit_status() -> None:
    assert [exit_status(c) for c in (0, 3, 255, -15, -9, None, True, 300)] == [
        0,
        3,
        255,
        143,
        137,
        1,
        1,
        1,
    ]


#: A shell worker that asks through `attn worker ask` and exits by the answer.
DEPLOY = """#!/bin/sh
echo "deploying v2"
if answer=$(attn worker ask "Deploy v2 to production?"); then
  echo "approved: $answer"
  exit 0
fi
echo "rejected"
exit 3
"""


@pytest.mark.parametrize(
    ("body", "approved", "code"), [("approved", True, 0), ("rejected", False, 3)]
)
async def test_worker_run_follows_a_shell_worker_answered_over_rest(
    runner: CliRunner, runs: RunsApi, tmp_path: Path, body: str, approved: bool, code: int
) -> None:
    command = script(tmp_path, "deploy.sh", DEPLOY)
    args = [
        "worker",
        "run",
        "--run",
        "release",
        "--task",
        "ship",
        "--url",
        runs.url,
        "--",
        *command,
    ]
    following = asyncio.create_task(asyncio.to_thread(runner.invoke, app, args))

    async def waiting() -> bool:
        response = await runs.client.get("/api/runs/release")
        return (
            response.status_code == 200
            and response.json()["tasks"].get("ship", {}).get("status") == "waiting"
        )

    for _ in range(1000):
        if await waiting():
            break
        await asyncio.sleep(0.02)
    await runs.call(
        "POST",
        "/api/runs/release/tasks/ship/respond",
        200,
        json={"body": body, "data": {"approved": approved}},
    )
    result = await following
    assert result.exit_code == code, result.output
    out = result.stdout
    assert out.startswith("worker pid ") and "runs task ship of run release" in out
    assert "ship asks (need_confirmation): Deploy v2 to production?" in out
    assert "answer with `attn filebox respond release ship approved`" in out
    assert "task.responded ship" in out and "worker.exited ship" in out
    output = (await runs.call("GET", "/api/runs/release/output", 200))["lines"]
    assert output[0] == "deploying v2"
    assert output[-1] == ("approved: approved" if approved else "rejected")
    # Started again in the same run, it follows only the new worker's events.
    again = await asyncio.to_thread(
        runner.invoke,
        app,
        [*args[: -len(command)], *script(tmp_path, "quick.sh", "#!/bin/sh\nexit 7\n")],
    )
    assert again.exit_code == 7, again.output
    assert "supervisor.contact" not in again.stdout and "asks" not in again.stdout


async def test_worker_run_detach_and_stop(runner: CliRunner, runs: RunsApi, tmp_path: Path) -> None:
    command = script(tmp_path, "sleepy.sh", "#!/bin/sh\nexec sleep 60\n")
    args = ["worker", "run", "--run", "bg", "--detach", "--url", runs.url, "--", *command]
    started = await asyncio.to_thread(runner.invoke, app, args)
    assert started.exit_code == 0 and "runs task worker of run bg" in started.stdout
    stopped = await asyncio.to_thread(
        runner.invoke, app, ["worker", "stop", "bg", "--url", runs.url]
    )
    assert (
        stopped.exit_code == 0 and stopped.stdout.strip() == "the worker of bg exited with code -15"
    )
    missing = await asyncio.to_thread(
        runner.invoke, app, ["worker", "run", "--url", runs.url, "--", "no-such-program-xyz"]
    )
    assert missing.exit_code == 1 and "is not an executable program" in missing.stderr
    assert runs.rt.filebox.run_ids() == ["bg"]
