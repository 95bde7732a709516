"""The leader's verbs on a run: respond, steer, follow-up, nudge, ownership (seed 003).

FILE-06, FILE-07, FILE-08 on real files; FILE-06's race with real processes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from attn.errors import InvalidInput, RunOwned, TaskFinished, TaskNotFound, TaskNotWaiting
from attn.filebox import NUDGE_TEXT, Run, parse_contact
from attn.filebox.manifest import changing
from attn.filebox.pending import Limits
from attn.filebox.supervision import record_contact, worker_started
from tests.filebox.support import make_run, now, snapshot


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "runs"


@pytest.fixture
def run(root: Path) -> Run:
    return make_run(root)


def waiting(
    run: Run, task: str = "build", line: str = "@supervisor need_confirmation: Ship?"
) -> str:
    contact = parse_contact(line)
    assert contact is not None
    question, _ = record_contact(run, task, contact)
    return str(question["id"])


def alive(run: Run, task: str = "build") -> None:
    worker_started(run, task, os.getpid(), ["worker"])  # this test process stands in


def responses(run: Run, task: str = "build") -> list[str]:
    return [m.body for m in run.mailbox.inbox_for(task) if m.kind == "response"]


def test_file_06_respond_answers_a_waiting_task_once_and_it_runs_again(run: Run) -> None:
    qid = waiting(run)
    assert run.manifest()["tasks"]["build"]["status"] == "waiting"
    first = run.respond("build", "yes, ship it")
    assert not first.duplicate and first.message is not None
    assert first.message.kind == "response" and first.message.data["questionId"] == qid
    task = run.manifest()["tasks"]["build"]
    assert task["status"] == "running" and "waitingSince" not in task and "question" not in task
    assert [e["type"] for e in run.events()][-1] == "task.responded"
    # The same question again: a no-op that returns the first response.
    before = snapshot(run.paths.run_dir)
    again = run.respond("build", "no wait", question_id=qid)
    assert again.duplicate and again.message is not None and again.message.id == first.message.id
    assert snapshot(run.paths.run_dir) == before
    assert responses(run) == ["yes, ship it"]
    # The contact it answered is acknowledged with it.
    [contact] = [m for m in run.mailbox.messages("outbox") if m.kind == "contact"]
    assert contact.status == "acknowledged"


def test_file_06_respond_refuses_a_task_that_is_not_waiting_naming_its_status(run: Run) -> None:
    alive(run)
    before = snapshot(run.paths.run_dir)
    with pytest.raises(TaskNotWaiting, match="is running, not waiting") as refused:
        run.respond("build", "hello")
    assert refused.value.status == "running"
    with pytest.raises(TaskNotFound, match="has no task 'nobody'"):
        run.respond("nobody", "hello")
    assert snapshot(run.paths.run_dir) == before


def test_file_06_respond_rereads_inside_the_lock(run: Run) -> None:
    """Another process's Run answered first: this one sees it under the lock."""
    qid = waiting(run)
    other = Run(run.paths, now)
    other.respond("build", "from the other leader process")
    late = run.respond("build", "mine", question_id=qid)
    assert late.duplicate and responses(run) == ["from the other leader process"]
    # And a stale "waiting" in memory means nothing: the file says running.
    with pytest.raises(TaskNotWaiting):
        run.respond("build", "mine")


_RACE = """
import sys
from datetime import UTC, datetime
from pathlib import Path
from attn.filebox import Run, RunPaths
run = Run(RunPaths(Path(sys.argv[1]), "r1"), lambda: datetime.now(UTC))
out = run.respond("build", sys.argv[2], question_id=sys.argv[3])
print("dup" if out.duplicate else "sent")
"""


def test_file_06_two_processes_respond_at_once_and_exactly_one_response_is_written(
    run: Run, root: Path
) -> None:
    qid = waiting(run)
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", _RACE, str(root), f"answer {n}", qid],
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    said = sorted(p.communicate(timeout=60)[0].strip() for p in racers)
    assert said == ["dup", "dup", "dup", "sent"]
    assert len(responses(run)) == 1
    assert run.manifest()["tasks"]["build"]["status"] == "running"


def test_file_07_steer_goes_straight_to_a_running_worker_else_waits_in_the_queue(run: Run) -> None:
    queued = run.steer("build", "use the staging database")
    assert queued.queued and queued.message is None
    assert run.mailbox.messages("steering") == []
    assert run.view()["pending"]["steer"] == 1
    alive(run)
    [first] = run.mailbox.messages("steering")  # the queued steer went out when it started
    assert first.body == "use the staging database" and first.kind == "steer"
    now_steer = run.steer("build", "and skip the slow tests")
    assert not now_steer.queued and now_steer.message is not None
    assert [m.body for m in run.mailbox.messages("steering")] == [
        "use the staging database",
        "and skip the slow tests",
    ]
    assert run.view()["pending"]["steer"] == 0
    kinds = [e["type"] for e in run.events()]
    assert "steer.queued" in kinds and "steer.delivered" in kinds


def test_file_07_follow_up_never_blocks_and_nudge_has_a_default_text(run: Run) -> None:
    follow = run.follow_up("build", "then write the changelog")
    assert follow.queued  # no worker: it waits, and the call returned at once
    alive(run)
    [inbox] = [m for m in run.mailbox.inbox_for("build") if m.kind == "follow_up"]
    assert inbox.body == "then write the changelog"
    nudge = run.nudge("build")
    assert nudge.message is not None and nudge.message.body == NUDGE_TEXT
    assert nudge.message.box == "steering" and nudge.message.data == {"source": "nudge-agent"}
    [event] = [e for e in run.events() if e["type"] == "agent.nudged"]
    assert event["message"] == NUDGE_TEXT
    assert event["data"]["mailboxMessageId"] == nudge.message.id
    own = run.nudge("build", "where are you?")
    assert own.message is not None and own.message.body == "where are you?"


def test_file_07_pending_queues_are_bounded_and_warn_above_the_threshold(root: Path) -> None:
    run = make_run(root, limits=Limits(max_pending=5, warn_pending=3))
    for n in range(3):
        run.steer("build", f"steer {n}")
    assert run.view()["pending"]["warning"] is None
    run.steer("build", "steer 3")
    warning = run.view()["pending"]["warning"]
    assert warning is not None and "more than 3" in warning
    for n in range(4, 8):
        outcome = run.steer("build", f"steer {n}")
    assert [d["body"] for d in outcome.dropped] == ["steer 2"]
    pending = run.view()["pending"]
    assert pending["steer"] == 5 and pending["max"] == 5
    dropped = [e["message"] for e in run.events() if e["type"] == "steer.dropped"]
    assert dropped == ["steer 0", "steer 1", "steer 2"]
    alive(run)
    assert [m.body for m in run.mailbox.messages("steering")] == [f"steer {n}" for n in range(3, 8)]


def test_file_07_the_seed_defaults_are_50_and_20(run: Run) -> None:
    for n in range(51):
        run.follow_up("build", f"f{n}")
    pending = run.view()["pending"]
    assert (pending["followUp"], pending["max"], pending["warnAbove"]) == (50, 50, 20)
    assert pending["warning"] is not None


def test_file_08_a_foreign_session_cannot_respond_steer_or_cancel_without_force(root: Path) -> None:
    run = make_run(root, owner="lead-a")
    waiting(run)
    before = snapshot(run.paths.run_dir)
    calls = {
        "respond": lambda **kw: run.respond("build", "x", **kw),
        "steer": lambda **kw: run.steer("build", "x", **kw),
        "follow_up": lambda **kw: run.follow_up("build", "x", **kw),
        "nudge": lambda **kw: run.nudge("build", **kw),
        "send": lambda **kw: run.send("build", "x", **kw),
        "cancel": lambda **kw: run.cancel("build", **kw),
    }
    for name, call in calls.items():
        with pytest.raises(RunOwned, match="owned by session 'lead-a'") as refused:
            call(session="lead-b")
        assert refused.value.owner == "lead-a", name
        for almost in ("true", 1, None, "yes"):
            with pytest.raises(InvalidInput, match="literal boolean"):
                call(session="lead-b", force=almost)
        assert snapshot(run.paths.run_dir) == before, name
    assert run.respond("build", "forced", session="lead-b", force=True).message is not None
    assert run.steer("build", "owner may", session="lead-a").queued  # no worker yet
    assert run.cancel("build", session="lead-a")["status"] == "cancelled"


def test_file_08_a_run_without_an_owner_takes_anyone(run: Run) -> None:
    waiting(run)
    assert run.respond("build", "ok", session="whoever").message is not None


def test_cancel_drops_the_tasks_queued_steers_and_is_idempotent(run: Run) -> None:
    run.steer("build", "a")
    run.follow_up("other", "b")
    assert run.cancel("build", reason="not needed")["status"] == "cancelled"
    pending = run.view()["pending"]
    assert (pending["steer"], pending["followUp"]) == (0, 1)
    before = snapshot(run.paths.run_dir)
    assert run.cancel("build")["status"] == "cancelled"
    assert snapshot(run.paths.run_dir) == before
    with changing(run.paths) as manifest:
        assert manifest["tasks"]["build"]["status"] == "cancelled"


def test_bad_input_to_the_verbs_changes_nothing(run: Run) -> None:
    waiting(run)
    before = snapshot(run.paths.run_dir)
    bad = [
        lambda: run.respond("build", ""),
        lambda: run.respond("build", "x" * 70_000),
        lambda: run.respond("../etc", "x"),
        lambda: run.respond("build", "x", priority="urgent"),
        lambda: run.respond("build", "x", data=["not", "an", "object"]),  # type: ignore[arg-type]
        lambda: run.steer("build", "\ud800"),
        lambda: run.send("a/b", "x"),
        lambda: run.nudge("build", "   "),
        lambda: run.mark_delivered("nope"),  # type: ignore[arg-type]
    ]
    for call in bad:
        with pytest.raises(InvalidInput):
            call()
    assert snapshot(run.paths.run_dir) == before


def test_a_worker_nobody_supervises_is_alive_while_it_sends_heartbeats(root: Path) -> None:
    from datetime import timedelta

    from attn.filebox.client import FileboxClient
    from attn.filebox.manifest import ensure_task
    from attn.filebox.run_files import HEARTBEAT_FRESH_S

    leader = make_run(root)
    at = [now()]
    clocked = Run(leader.paths, lambda: at[0])
    with changing(leader.paths) as manifest:
        ensure_task(manifest, "build", "2026-01-01T00:00:00+00:00")["status"] = "running"
    assert clocked.steer("build", "before any heartbeat").queued
    worker = FileboxClient(leader.paths.run_dir, "build")
    worker.supervised = False
    worker.heartbeat()
    assert not clocked.steer("build", "while it beats").queued
    at[0] = at[0] + timedelta(seconds=HEARTBEAT_FRESH_S + 1)
    assert clocked.steer("build", "after it went quiet").queued
    assert [m["body"] for m in worker.steering()] == ["while it beats"]


def test_verbs_refuse_a_task_the_run_does_not_have_or_that_finished(run: Run) -> None:
    before = snapshot(run.paths.run_dir)
    unknown = [
        lambda: run.steer("bulid", "x"),
        lambda: run.follow_up("bulid", "x"),
        lambda: run.nudge("bulid"),
        lambda: run.send("bulid", "x"),
        lambda: run.cancel("bulid"),
    ]
    for call in unknown:
        with pytest.raises(TaskNotFound, match="has no task 'bulid'"):
            call()
    assert snapshot(run.paths.run_dir) == before
    run.cancel("build")
    done = snapshot(run.paths.run_dir)
    for call in (
        lambda: run.steer("build", "x"),
        lambda: run.follow_up("build", "x"),
        lambda: run.nudge("build"),
        lambda: run.send("build", "x"),
    ):
        with pytest.raises(TaskFinished, match="is cancelled") as refused:
            call()
        assert refused.value.status == "cancelled"
    assert snapshot(run.paths.run_dir) == done
    assert run.cancel("build")["status"] == "cancelled"  # cancelling again changes nothing
    assert run.send("*", "to every task").message is not None


def test_a_selection_answer_must_be_one_of_its_options(run: Run) -> None:
    waiting(run, line="@supervisor need_selection: Which region? | eu | us")
    before = snapshot(run.paths.run_dir)
    with pytest.raises(InvalidInput, match="choose one of 'eu', 'us'; got 'mars'"):
        run.respond("build", "mars")
    assert snapshot(run.paths.run_dir) == before
    assert run.respond("build", "us").message is not None
