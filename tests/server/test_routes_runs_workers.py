"""Workers over real HTTP: ``POST /api/workers`` starts a real subprocess whose question
is answered over REST (FILE-10, FILE-06), steers reach it while it runs (FILE-07),
``DELETE /api/runs/{runId}/worker`` stops it, and a program that cannot run makes no run.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.filebox.support import python_worker, script
from tests.server.runs_api import RunsApi, runs

__all__ = ["runs"]

ASK = """
from attn.filebox.client import FileboxClient
box = FileboxClient.from_env()
print("starting", flush=True)
answer = box.ask("Deploy v2 to production?")
print("answer:", answer.body, flush=True)
raise SystemExit(0 if answer.approved else 3)
"""

#: Waits for a steer in its steering file, acknowledges it and exits with it.
STEERED = """
import time
from attn.filebox.client import FileboxClient
box = FileboxClient.from_env()
box.heartbeat()
while True:
    for message in box.steering():
        box.ack(message["id"])
        print("steered:", message["body"], flush=True)
        raise SystemExit(0)
    time.sleep(0.02)
"""


async def _until_status(runs: RunsApi, run_id: str, task: str, status: str) -> dict[str, object]:
    for _ in range(1000):
        view = await runs.call("GET", f"/api/runs/{run_id}", 200)
        if view["tasks"].get(task, {}).get("status") == status:
            return dict(view)
        await asyncio.sleep(0.02)
    raise AssertionError(f"task {task} of {run_id} never became {status}")


async def test_file_10_a_workers_question_is_answered_over_rest_and_it_exits(
    runs: RunsApi, tmp_path: Path
) -> None:
    command = python_worker(tmp_path, "ask.py", ASK)
    started = await runs.call(
        "POST",
        "/api/workers",
        201,
        json={"command": command, "runId": "deploy", "taskId": "ship", "owner": "ann"},
    )
    assert started["pid"] > 0 and started["run"]["runId"] == "deploy"
    assert started["run"]["ownerSessionId"] == "ann"
    view = await _until_status(runs, "deploy", "ship", "waiting")
    question = view["tasks"]["ship"]["question"]  # type: ignore[index]
    assert question["text"] == "Deploy v2 to production?"
    assert question["kind"] == "need_confirmation"
    # Another session may not start a worker in ann's run (FILE-08); ann may not start
    # a second one while this one runs.
    await runs.refused(
        "POST", "/api/workers", 403, "run_owned", json={"command": command, "runId": "deploy"}
    )
    await runs.refused(
        "POST",
        "/api/workers",
        409,
        "run_exists",
        json={"command": command, "runId": "deploy", "session": "ann"},
    )
    answered = await runs.call(
        "POST",
        "/api/runs/deploy/tasks/ship/respond",
        200,
        json={"body": "approved", "data": {"approved": True}, "session": "ann"},
    )
    assert answered["duplicate"] is False
    view = await _until_status(runs, "deploy", "ship", "completed")
    assert view["worker"]["exitCode"] == 0 and view["workerAlive"] is False  # type: ignore[index]
    output = await runs.call("GET", "/api/runs/deploy/output", 200)
    assert "starting" in output["lines"] and "answer: approved" in output["lines"]
    kinds = [e["type"] for e in (await runs.call("GET", "/api/runs/deploy/events", 200))["events"]]
    assert kinds[0] == "run.created" and kinds[-1] == "worker.exited"
    assert kinds.count("supervisor.contact") == 1 and kinds.count("task.responded") == 1


async def test_file_07_a_steer_reaches_a_running_worker_at_once(
    runs: RunsApi, tmp_path: Path
) -> None:
    command = python_worker(tmp_path, "steered.py", STEERED)
    await runs.call("POST", "/api/workers", 201, json={"command": command, "runId": "r1"})
    await _until_status(runs, "r1", "worker", "running")
    steered = await runs.call(
        "POST", "/api/runs/r1/tasks/worker/steer", 200, json={"body": "skip the slow tests"}
    )
    assert steered["queued"] is False and steered["message"]["box"] == "steering"
    view = await _until_status(runs, "r1", "worker", "completed")
    assert view["pending"]["steer"] == 0  # type: ignore[index]
    output = await runs.call("GET", "/api/runs/r1/output", 200)
    assert output["lines"] == ["steered: skip the slow tests"]
    steering = await runs.call("GET", "/api/runs/r1/messages?box=steering", 200)
    assert [m["status"] for m in steering["messages"]] == ["acknowledged"]


async def test_a_worker_is_stopped_over_rest(runs: RunsApi, tmp_path: Path) -> None:
    command = script(tmp_path, "sleepy.sh", "#!/bin/sh\necho up\nexec sleep 60\n")
    await runs.call("POST", "/api/workers", 201, json={"command": command, "runId": "r1"})
    await _until_status(runs, "r1", "worker", "running")
    stopped = await runs.call("DELETE", "/api/runs/r1/worker", 200)
    assert stopped == {"exitCode": -15}  # SIGTERM
    view = await runs.call("GET", "/api/runs/r1", 200)
    assert view["tasks"]["worker"]["status"] == "failed" and view["workerAlive"] is False
    await runs.make_run("idle")
    await runs.refused("DELETE", "/api/runs/idle/worker", 404, "run_not_found")
    # An owned run's worker stops only for its session, or with force (FILE-08).
    owned = {"command": command, "runId": "owned", "owner": "ann"}
    await runs.call("POST", "/api/workers", 201, json=owned)
    await _until_status(runs, "owned", "worker", "running")
    await runs.refused("DELETE", "/api/runs/owned/worker", 403, "run_owned")
    await runs.refused(
        "DELETE", "/api/runs/owned/worker", 422, "validation_error", json={"force": "true"}
    )
    assert (await runs.call("GET", "/api/runs/owned", 200))["workerAlive"] is True
    stopped = await runs.call("DELETE", "/api/runs/owned/worker", 200, json={"session": "ann"})
    assert stopped == {"exitCode": -15}
    await runs.refused("DELETE", "/api/runs/nope/worker", 404, "run_not_found")


async def test_a_program_that_cannot_run_is_refused_and_makes_no_run(
    runs: RunsApi, tmp_path: Path
) -> None:
    not_executable = tmp_path / "plain.sh"
    not_executable.write_text("#!/bin/sh\necho hi\n")
    refusals = [
        ({"command": ["no-such-program-xyz"]}, "invalid_input", "is not an executable program"),
        ({"command": [str(not_executable)]}, "invalid_input", "is not an executable program"),
        ({"command": ["./plain.sh"], "cwd": str(tmp_path / "nowhere")}, "invalid_input", "cwd"),
        ({"command": []}, "validation_error", "body.command"),
        ({"command": [""]}, "invalid_input", "must not be blank"),
        ({"command": ["sh", "a\x00b"]}, "validation_error", "without NUL"),
        ({"command": ["sh"] * 257}, "validation_error", "body.command"),
        ({"command": ["sh"], "runId": "../up"}, "unsafe_path", "run id"),
        ({"command": ["sh"], "taskId": "a..b"}, "unsafe_path", "task id"),
        ({"command": "sh"}, "validation_error", "body.command"),
    ]
    for body, code, says in refusals:
        message = await runs.refused("POST", "/api/workers", 422, code, json=body)
        assert says in message, (body, message)
    assert runs.rt.filebox.run_ids() == []
    # A relative program is looked for in cwd.
    ok = tmp_path / "ok.sh"
    ok.write_text("#!/bin/sh\necho from $(pwd)\n")
    ok.chmod(0o755)
    made = await runs.call(
        "POST", "/api/workers", 201, json={"command": ["./ok.sh"], "cwd": str(tmp_path)}
    )
    rid = made["run"]["runId"]
    await _until_status(runs, rid, "worker", "completed")
    assert (await runs.call("GET", f"/api/runs/{rid}/output", 200))["lines"] == [f"from {tmp_path}"]
