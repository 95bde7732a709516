"""Acceptance FILE-12: replay on resume returns every unacknowledged inbox
message (the run's inbox and the task's own), oldest first, and marks it delivered.

A delivered message that was never acknowledged is returned again by the next
replay: the worker may have died before handling it, and only an
acknowledgement says it was handled (FILE-11).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from attn.filebox import FileboxMessage, Run, RunMailbox, RunPaths
from tests.filebox.conftest import Ticks, tree


def _sent(run: Run, to: str, body: str, *, own: bool = False) -> FileboxMessage:
    message = run.send(to, body, own_mailbox=own).message
    assert message is not None
    return message


def _mail(run: Run) -> dict[str, FileboxMessage]:
    """Inbox messages in both files, written alternately, plus some replay skips."""
    mail = {
        "run 1": _sent(run, "build", "run inbox, first"),
        "own 1": _sent(run, "build", "own inbox, first", own=True),
        "everyone": _sent(run, "*", "to every task"),
        "other": _sent(run, "test", "to the test task"),
        "other own": _sent(run, "test", "test's own", own=True),
        "handled": _sent(run, "build", "already acknowledged"),
        "own 2": _sent(run, "build", "own inbox, second", own=True),
        "run 2": _sent(run, "build", "run inbox, second"),
    }
    run.mailbox.acknowledge(mail["handled"].id)
    run.nudge("build")  # steering: read by the worker's steering(), not by replay
    run.append("outbox", "build", "from the worker", "message", "normal", {})
    return mail


def _ids(messages: list[FileboxMessage]) -> list[str]:
    return [m.id for m in messages]


def test_file_12_replay_returns_unacknowledged_inbox_messages_oldest_first_and_delivers_them(
    run: Run, paths: RunPaths, ticks: Ticks
) -> None:
    mail = _mail(run)
    names = ["run 1", "own 1", "everyone", "other", "other own", "own 2", "run 2"]

    replayed = RunMailbox(paths, ticks).replay()  # a resumed process: no caches

    assert _ids(replayed) == [mail[name].id for name in names]
    assert {m.status for m in replayed} == {"delivered"}
    assert all(m.delivered_at and m.delivered_at > m.created_at for m in replayed)
    assert {m.box for m in replayed} == {"inbox"}
    record = json.loads(paths.delivery.read_bytes())["messages"]
    assert record == {
        **{mail[n].id: "delivered" for n in names},
        mail["handled"].id: "acknowledged",
    }


def test_file_12_replay_for_one_task_returns_its_share(run: Run) -> None:
    mail = _mail(run)

    replayed = run.mailbox.replay("build")

    assert _ids(replayed) == [mail[n].id for n in ("run 1", "own 1", "everyone", "own 2", "run 2")]
    # The test task's messages were not delivered by build's replay.
    assert run.mailbox.get(mail["other"].id).status == "queued"
    assert run.mailbox.get(mail["other own"].id).status == "queued"
    assert _ids(run.mailbox.replay("test")) == [
        mail[n].id for n in ("everyone", "other", "other own")
    ]


def test_file_12_a_second_replay_returns_what_is_still_not_acknowledged(run: Run) -> None:
    mail = _mail(run)
    first = run.mailbox.replay("build")
    run.mailbox.acknowledge(mail["own 1"].id)
    later = _sent(run, "build", "sent after the first replay")

    second = run.mailbox.replay("build")

    expected = [mail[n].id for n in ("run 1", "everyone", "own 2", "run 2")] + [later.id]
    assert _ids(second) == expected
    assert {m.status for m in second} == {"delivered"}
    # Delivered earlier: still the first delivery's time.
    earlier = {m.id: m.delivered_at for m in first}
    assert all(m.delivered_at == earlier[m.id] for m in second if m.id in earlier)
    # Once everything is acknowledged, replay returns nothing and changes nothing.
    for message in second:
        run.mailbox.acknowledge(message.id)
    record = run.mailbox.delivery().to_json()
    assert run.mailbox.replay("build") == []
    assert run.mailbox.delivery().to_json() == record


def test_file_12_run_replay_reports_only_the_status_changes(paths: RunPaths, run: Run) -> None:
    mail = _mail(run)
    seen: list[tuple[str, dict[str, Any]]] = []
    watched = Run(paths, Ticks(), on_event=lambda name, payload: seen.append((name, payload)))

    first = watched.replay("build")
    again = watched.replay("build")

    assert _ids(again) == _ids(first)
    [(name, payload)] = seen  # the second replay changed nothing, so said nothing
    assert name == "status"
    assert [m["id"] for m in payload["messages"]] == _ids(first)
    assert {m["status"] for m in payload["messages"]} == {"delivered"}
    assert mail["handled"].id not in _ids(first)


def test_file_12_replay_of_an_empty_run_is_empty(run: Run, tmp_path: Path) -> None:
    before = tree(tmp_path)
    assert run.replay() == []
    assert run.replay("build") == []
    assert tree(tmp_path) == before
