"""``attn filebox …`` against a real server (runs in the test's tmp folder).

The server is ``create_app(runtime)`` on uvicorn in the test's own loop
(:mod:`tests.server.runs_api`); each CLI call runs in a worker thread
(``asyncio.to_thread``) so the server keeps answering while the command waits.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from click.testing import Result
from typer.testing import CliRunner

from attn.brains import EchoBrain
from attn.cli.main import app
from tests.server.runs_api import RunsApi, runs

__all__ = ["runs"]


async def _run(runner: CliRunner, api: RunsApi, *args: str, code: int = 0) -> Result:
    result = await asyncio.to_thread(runner.invoke, app, [*args, "--url", api.url])
    assert result.exit_code == code, (args, result.output)
    return result


async def _json(runner: CliRunner, api: RunsApi, *args: str) -> Any:
    return json.loads((await _run(runner, api, *args, "--json")).stdout)


async def test_list_show_and_answer_a_waiting_task(runner: CliRunner, runs: RunsApi) -> None:
    assert "no runs" in (await _run(runner, runs, "filebox", "list")).stdout
    await runs.rt.add_agent("lead", EchoBrain())
    await runs.make_run("r1", leader="lead", tasks=["build", "test"])
    await runs.ask("r1", "build", "Which region? [eu]", kind="need_selection", options=("eu", "us"))
    listed = (await _run(runner, runs, "filebox", "list")).stdout
    assert "r1" in listed and "lead" in listed and "build waiting" in listed
    assert "steer 0, follow-up 0" in listed
    shown = (await _run(runner, runs, "filebox", "show", "r1")).stdout
    assert "need_selection: Which region? [eu]" in shown  # text, never markup
    assert "options: eu | us" in shown
    assert "answer: attn filebox respond r1 build eu" in shown
    assert (await _json(runner, runs, "filebox", "show", "r1"))["runId"] == "r1"

    answered = (await _run(runner, runs, "filebox", "respond", "r1", "build", "eu")).stdout
    assert answered.startswith("responded to build (question q_") and answered.strip().endswith(
        ": eu"
    )
    qid = answered.split("question ")[1].split(")")[0]
    again = await _run(runner, runs, "filebox", "respond", "r1", "build", "us", "--question", qid)
    assert (
        again.stdout.strip()
        == f"question {qid} of build was answered already: eu (nothing changed)"
    )
    late = await _run(runner, runs, "filebox", "respond", "r1", "build", "us", code=1)
    (line,) = late.stderr.splitlines()
    assert "is running, not waiting" in line and "(409 task_not_waiting)" in line
    inbox = await _json(runner, runs, "filebox", "read", "r1", "--box", "inbox")
    assert [m["body"] for m in inbox["messages"]] == ["eu"]


async def test_verbs_messages_and_events(runner: CliRunner, runs: RunsApi) -> None:
    await runs.make_run("r1", tasks=["build"])
    steered = (await _run(runner, runs, "filebox", "steer", "r1", "build", "faster")).stdout
    assert steered.strip() == "queued the steer for build: its worker cannot take it now"
    for n in range(4):
        more = await _run(runner, runs, "filebox", "follow-up", "r1", "build", f"then {n}")
    assert "dropped the oldest 1 entry" in more.stdout  # the cap is 3
    warned = (await _run(runner, runs, "filebox", "show", "r1")).stdout
    assert "follow-up 3" in warned and "more than 1" in warned
    nudged = (await _run(runner, runs, "filebox", "nudge", "r1", "build")).stdout
    assert nudged.startswith("nudge queued for build (steering fbm_")  # no worker runs
    assert "no worker reads it now" in nudged
    sent = (await _run(runner, runs, "filebox", "send", "r1", "build", "hello")).stdout
    message_id = sent.split()[1]
    assert sent.strip() == f"sent {message_id} to build"
    read = (await _run(runner, runs, "filebox", "read", "r1", "--task", "build")).stdout
    assert "steering nudge leader→build queued" in read and "inbox message" in read
    acked = (await _run(runner, runs, "filebox", "ack", "r1", message_id)).stdout
    assert acked.strip() == f"acknowledged {message_id}: hello"
    status = await _json(runner, runs, "filebox", "read", "r1", "--status", "acknowledged")
    assert [m["id"] for m in status["messages"]] == [message_id]
    cancelled = await _run(runner, runs, "filebox", "cancel", "r1", "build", "--reason", "x")
    assert cancelled.stdout.strip() == "build: cancelled"
    events = (await _run(runner, runs, "filebox", "events", "r1", "--after", "1")).stdout
    assert events.startswith("#2 ") and "steer.queued build: faster" in events
    assert "follow_up.dropped" in events and "task.cancelled build: x" in events
    page = await _json(runner, runs, "filebox", "events", "r1", "--after", "2", "--limit", "1")
    assert [e["index"] for e in page["events"]] == [3]


async def test_file_08_force_is_sent_as_the_literal_true(runner: CliRunner, runs: RunsApi) -> None:
    await runs.make_run("r1", owner="ann", tasks=["build"])
    before = runs.snapshot("r1")
    refused = await _run(runner, runs, "filebox", "steer", "r1", "build", "go", code=1)
    (line,) = refused.stderr.splitlines()
    assert "owned by session 'ann'" in line and "(403 run_owned)" in line
    refused = await _run(
        runner, runs, "filebox", "nudge", "r1", "build", "--session", "bob", code=1
    )
    assert "(403 run_owned)" in refused.stderr
    assert runs.snapshot("r1") == before
    forced = await _run(runner, runs, "filebox", "steer", "r1", "build", "go", "--force")
    assert forced.stdout.startswith("queued the steer")
    owner = await _run(runner, runs, "filebox", "nudge", "r1", "build", "--session", "ann")
    assert owner.stdout.startswith("nudge queued for build")


async def test_bad_usage_is_exit_2_and_sends_nothing(runner: CliRunner, runs: RunsApi) -> None:
    await runs.make_run("r1", tasks=["build"])
    before = runs.snapshot("r1")
    cases = [
        (("filebox", "read", "r1", "--box", "attic"), "--box 'attic' is not one of"),
        (("filebox", "steer", "r1", "build", "go", "--priority", "urgent"), "--priority"),
        (("filebox", "steer", "r1", "build", "  "), "TEXT is empty"),
        (("filebox", "show", "a/b"), "holds '/'"),
        (("filebox", "respond", "r1", "build", ""), "TEXT is empty"),
    ]
    for args, says in cases:
        result = await _run(runner, runs, *args, code=2)
        assert says in result.stderr, (args, result.stderr)
    missing = await _run(runner, runs, "filebox", "show", "nope", code=1)
    assert "(404 run_not_found)" in missing.stderr
    assert runs.snapshot("r1") == before


async def test_validate_reports_then_repairs(runner: CliRunner, runs: RunsApi) -> None:
    await runs.make_run("r1", tasks=["build"])
    await _run(runner, runs, "filebox", "send", "r1", "build", "kept")
    inbox = runs.root / "r1" / "mailbox" / "inbox.jsonl"
    with inbox.open("ab") as out:
        out.write(b"[1, 2]\n")
    bad = await _run(runner, runs, "filebox", "validate", "r1", code=1)
    assert f"{inbox}:2:" in bad.stdout and "1 bad line; repair with --repair" in bad.stdout
    fixed = await _run(runner, runs, "filebox", "validate", "r1", "--repair")
    assert f"repaired {inbox}" in fixed.stdout
    ok = await _run(runner, runs, "filebox", "validate", "r1")
    assert "ok: every mailbox line is a message" in ok.stdout


async def test_show_says_a_run_json_is_corrupt_and_survives_odd_entries(
    runner: CliRunner, runs: RunsApi
) -> None:
    await runs.make_run("r1", tasks=["build"])
    manifest = runs.root / "r1" / "run.json"
    good = json.loads(manifest.read_bytes())
    manifest.write_text(json.dumps({**good, "tasks": {"build": "oops", "b": None}}))
    odd = await _run(runner, runs, "filebox", "show", "r1")
    assert "build  ?" in odd.stdout and "b  ?" in odd.stdout
    assert "build ?" in (await _run(runner, runs, "filebox", "list")).stdout
    manifest.write_bytes(b'{"runId": "r1", "own')
    shown = (await _run(runner, runs, "filebox", "show", "r1")).stdout
    assert "corrupt: run.json does not parse" in shown and "None" not in shown
    assert "attn filebox validate r1 --repair" in shown
