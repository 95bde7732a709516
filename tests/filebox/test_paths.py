"""Acceptance FILE-09: unsafe run and task ids, symbolic links in a run's folders
and files are refused, for reads and writes, and reads never create files."""

from __future__ import annotations

import errno
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from attn.errors import FileboxMessageNotFound, InvalidInput, RunNotFound, UnsafePath
from attn.filebox import Run, RunMailbox, RunPaths
from attn.filebox.manifest import create_manifest
from tests.filebox.conftest import Ticks, tree

BAD_IDS = [
    "..",
    ".",
    "../r2",
    "a/../../b",
    "a/b",
    "/etc",
    "/tmp/x",
    "",
    "x" * 129,
    "a\x00b",
    "\x00",
    ".hidden",
    "a..b",
    "a b",
    "r1\n",
    "C:\\x",
    "é",
    None,
    7,
    Path("r1"),
]


def test_unsafe_path_is_invalid_input() -> None:
    assert issubclass(UnsafePath, InvalidInput)


@pytest.mark.parametrize("bad", BAD_IDS, ids=repr)
def test_file_09_an_unsafe_run_id_is_refused_and_nothing_is_created(
    tmp_path: Path, bad: Any
) -> None:
    with pytest.raises(UnsafePath, match="run id"):
        RunPaths(tmp_path / "runs", bad)
    assert list(tmp_path.iterdir()) == []


def test_file_09_ids_of_128_safe_characters_are_accepted(tmp_path: Path) -> None:
    paths = RunPaths(tmp_path / "runs", "R" * 128)
    mailbox = RunMailbox(paths, Ticks())
    mailbox.append("inbox", sender="leader", to="t", body="hi", task_id="b.u-i_l.d9" + "x" * 118)
    assert paths.task_ids_with_mailbox() == ["b.u-i_l.d9" + "x" * 118]


def _task_calls(run: Run) -> dict[str, Callable[[Any], object]]:
    """Every way a task id reaches the files."""
    mailbox = run.mailbox
    return {
        "box": lambda bad: run.paths.box("inbox", bad),
        "ensure": lambda bad: run.paths.ensure(bad),
        "append": lambda bad: mailbox.append(
            "inbox", sender="leader", to="x", body="hi", task_id=bad
        ),
        "messages": lambda bad: mailbox.messages(task_id=bad),
        "inbox_for": lambda bad: mailbox.inbox_for(bad),
        "mailbox.replay": lambda bad: mailbox.replay(bad),
        "replay": lambda bad: run.replay(bad),
        "send": lambda bad: run.send(bad, "hi"),
        "send own": lambda bad: run.send(bad, "hi", own_mailbox=True),
        "respond": lambda bad: run.respond(bad, "yes"),
        "steer": lambda bad: run.steer(bad, "left"),
        "follow_up": lambda bad: run.follow_up(bad, "and then"),
        "nudge": lambda bad: run.nudge(bad),
        "cancel": lambda bad: run.cancel(bad),
    }


#: Where a task id of None means "the run's own", not a task.
_NONE_IS_THE_RUN = {"box", "ensure", "append", "messages", "inbox_for", "mailbox.replay", "replay"}


@pytest.mark.parametrize("bad", BAD_IDS, ids=repr)
def test_file_09_an_unsafe_task_id_is_refused_everywhere_and_nothing_is_written(
    run: Run, tmp_path: Path, bad: Any
) -> None:
    run.send("build", "a message, so the mailbox exists")
    before = tree(tmp_path)

    for name, call in _task_calls(run).items():
        if bad is None and name in _NONE_IS_THE_RUN:
            continue
        with pytest.raises(UnsafePath, match="task id"):
            call(bad)
        assert tree(tmp_path) == before, name


def test_file_09_a_steering_file_of_a_task_is_refused_before_anything_is_created(
    mailbox: RunMailbox, paths: RunPaths
) -> None:
    with pytest.raises(InvalidInput, match="steering is per run"):
        mailbox.append("steering", sender="leader", to="build", body="hi", task_id="build")
    assert not paths.root.exists()


# ------------------------------------------------------------------ symbolic links


def _reads(run: Run) -> dict[str, Callable[[], object]]:
    mailbox = run.mailbox
    return {
        "messages": lambda: mailbox.messages(),
        "inbox": lambda: mailbox.messages("inbox"),
        "task messages": lambda: mailbox.messages(task_id="build"),
        "inbox_for": lambda: mailbox.inbox_for(None),
        "everything": lambda: mailbox.everything(),
        "delivery": lambda: mailbox.delivery(),
        "validate": lambda: mailbox.validate(),
        "replay": lambda: mailbox.replay(),
    }


def _writes(run: Run, message_id: str) -> dict[str, Callable[[], object]]:
    mailbox = run.mailbox
    return {
        "append": lambda: mailbox.append("inbox", sender="leader", to="build", body="x"),
        "append task": lambda: mailbox.append(
            "inbox", sender="leader", to="build", body="x", task_id="build"
        ),
        "steering": lambda: mailbox.append("steering", sender="leader", to="build", body="x"),
        "set_status": lambda: mailbox.set_status([message_id], "delivered"),
        "acknowledge": lambda: mailbox.acknowledge(message_id),
        "repair": lambda: mailbox.validate(repair=True),
        "send": lambda: run.send("build", "x"),
    }


def _filled_run(tmp_path: Path) -> tuple[Run, str]:
    """Run r1 with a message in every file (and the task's own), and a delivery record."""
    paths = RunPaths(tmp_path / "runs", "r1")
    assert create_manifest(paths, {"runId": "r1", "tasks": {"build": {"status": "running"}}})
    run = Run(paths, Ticks())
    message = run.send("build", "to the run").message
    assert message is not None
    run.send("build", "to the task", own_mailbox=True)
    run.nudge("build")
    run.append("outbox", "build", "from the task", "message", "normal", {})
    run.mailbox.set_status([message.id], "delivered")
    return run, message.id


def _move_and_link(path: Path, elsewhere: Path) -> None:
    """Move ``path`` to ``elsewhere`` and leave a symbolic link to it in its place."""
    elsewhere.parent.mkdir(parents=True, exist_ok=True)
    path.rename(elsewhere)
    path.symlink_to(elsewhere, target_is_directory=elsewhere.is_dir())


LINKED = {
    "run folder": lambda p: p.run_dir,
    "mailbox folder": lambda p: p.mailbox_dir,
    "tasks folder": lambda p: p.tasks_dir,
    "task folder": lambda p: p.tasks_dir / "build",
    "inbox.jsonl": lambda p: p.box("inbox"),
    "outbox.jsonl": lambda p: p.box("outbox"),
    "steering.jsonl": lambda p: p.box("steering"),
    "task inbox.jsonl": lambda p: p.box("inbox", "build"),
    "delivery.json": lambda p: p.delivery,
}


_ALL = {
    "messages",
    "inbox",
    "task messages",
    "inbox_for",
    "everything",
    "delivery",
    "validate",
    "replay",
    "append",
    "append task",
    "steering",
    "set_status",
    "acknowledge",
    "repair",
    "send",
}
#: What reads every mailbox file (and the delivery record).
_WHOLE = {"everything", "validate", "replay", "set_status", "acknowledge", "repair"}
#: The calls that read or write each linked path: each one must be refused.
MUST_REFUSE = {
    "run folder": _ALL,
    "mailbox folder": _ALL,
    "tasks folder": _WHOLE | {"task messages", "inbox_for", "append task"},
    "task folder": {"task messages", "append task"},  # not listed: see the next test
    "inbox.jsonl": _WHOLE | {"messages", "inbox", "inbox_for", "append", "send"},
    "outbox.jsonl": _WHOLE | {"messages"},
    "steering.jsonl": _WHOLE | {"messages", "steering"},
    "task inbox.jsonl": _WHOLE | {"task messages", "inbox_for", "append task"},
    "delivery.json": _ALL - {"append", "append task", "steering", "send"},
}


@pytest.mark.parametrize("what", list(LINKED))
def test_file_09_a_symlinked_run_folder_or_file_is_refused_for_reads_and_writes(
    tmp_path: Path, what: str
) -> None:
    run, message_id = _filled_run(tmp_path)
    linked = LINKED[what](run.paths)
    elsewhere = tmp_path / "elsewhere"
    _move_and_link(linked, elsewhere / linked.name)
    target = tree(elsewhere)
    fresh = Run(run.paths, Ticks())  # no reader caches from before the link
    calls = {**_reads(fresh), **_writes(fresh, message_id)}
    assert set(calls) == _ALL

    refused: set[str] = set()
    for name, call in calls.items():
        before = tree(tmp_path)
        try:
            call()
        except UnsafePath as error:
            assert "symbolic link" in str(error)
            assert tree(tmp_path) == before, f"{name} was refused but changed files"
            refused.add(name)
        assert tree(elsewhere) == target, f"{name} changed a file through the {what} link"

    assert MUST_REFUSE[what] - refused == set(), what


def test_file_09_a_symlinked_task_folder_is_not_listed_or_read(tmp_path: Path) -> None:
    run, _message_id = _filled_run(tmp_path)
    linked = run.paths.tasks_dir / "build"
    _move_and_link(linked, tmp_path / "elsewhere" / "build")
    fresh = RunMailbox(run.paths, Ticks())

    assert fresh.paths.task_ids_with_mailbox() == []
    assert "to the task" not in {m.body for m in fresh.everything()}
    assert "to the task" not in {m.body for m in fresh.inbox_for(None)}


@pytest.mark.parametrize("name", [".mailbox.lock", "quarantine.jsonl"])
def test_file_09_a_symlinked_lock_or_quarantine_file_is_never_written_through(
    mailbox: RunMailbox, paths: RunPaths, tmp_path: Path, name: str
) -> None:
    mailbox.append("inbox", sender="leader", to="build", body="one")
    with open(paths.box("inbox"), "ab") as file:
        file.write(b'{"torn')  # so the next append writes to the quarantine file
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    link = paths.mailbox_dir / name
    if link.exists():
        link.unlink()
    link.symlink_to(victim)
    inbox = paths.box("inbox").read_bytes()

    with pytest.raises(OSError) as caught:
        mailbox.append("inbox", sender="leader", to="build", body="two")

    assert caught.value.errno == errno.ELOOP
    assert victim.read_bytes() == b"precious"
    assert paths.box("inbox").read_bytes() == inbox  # nothing reported stored, nothing stored


# ------------------------------------------------------------------ reads create nothing


def _all_reads(run: Run) -> dict[str, Callable[[], object]]:
    mailbox = run.mailbox
    return {
        **_reads(run),
        "outbox": lambda: mailbox.messages("outbox"),
        "steering": lambda: mailbox.messages("steering"),
        "task inbox": lambda: mailbox.messages("inbox", task_id="build"),
        "inbox_for task": lambda: mailbox.inbox_for("build"),
        "replay task": lambda: mailbox.replay("build"),
        "files": lambda: mailbox.files(),
        "task ids": lambda: run.paths.task_ids_with_mailbox(),
        "exists": lambda: run.paths.exists(),
        "events": lambda: run.events(),
        "run replay": lambda: run.replay(),
        "run replay task": lambda: run.replay("build"),
    }


def test_file_09_reads_of_a_run_that_does_not_exist_create_nothing(
    paths: RunPaths, tmp_path: Path
) -> None:
    run = Run(paths, Ticks())
    for name, call in _all_reads(run).items():
        result = call()
        if isinstance(result, list | bool):
            assert not result, name  # nothing there: empty, not an error
        assert list(tmp_path.iterdir()) == [], name
    for name, failing in {
        "manifest": run.manifest,
        "view": run.view,
        "get": lambda: run.mailbox.get("fbm_nope"),
        "acknowledge": lambda: run.acknowledge("fbm_nope"),
        "mark_delivered": lambda: run.mark_delivered(["fbm_nope"]),
    }.items():
        with pytest.raises((RunNotFound, FileboxMessageNotFound)):
            failing()
        assert list(tmp_path.iterdir()) == [], name


def test_file_09_reads_of_a_run_with_no_mailbox_files_create_nothing(
    run: Run, tmp_path: Path
) -> None:
    before = tree(tmp_path)
    for name, call in _all_reads(run).items():
        call()
        assert tree(tmp_path) == before, name
    view = run.view()
    assert view["counts"] == {} and view["runId"] == "r1"
    assert tree(tmp_path) == before
