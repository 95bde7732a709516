"""Acceptance FILE-01: a run's mailbox folder, the message lines, statuses and
per-task mailboxes, read back from the files on disk."""

from __future__ import annotations

import json
import re

import pytest

from attn.errors import FileboxMessageNotFound
from attn.filebox import Run, RunMailbox, RunPaths
from tests.filebox.conftest import lines_of, tree

#: Keys every message line has (seed 003 "Message structure"; ``sentAt`` is ``createdAt``).
REQUIRED = {"id", "runId", "box", "direction", "kind", "from", "to", "body"} | {
    "status",
    "priority",
    "createdAt",
}
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00")


def _write_one_of_each(run: Run) -> dict[str, str]:
    """A message in each of the run's three files and in the task's own two."""
    sent = run.send("build", "compile the docs", data={"source": "test"}).message
    nudged = run.nudge("build").message
    reported = run.append("outbox", "build", "docs compiled", "message", "high", {})
    own_in = run.send("build", "only for build", own_mailbox=True).message
    own_out = run.append_to_task("outbox", "build", "build's own report", "message", "low", {})
    assert sent and nudged and own_in
    return {
        "inbox": sent.id,
        "steering": nudged.id,
        "outbox": reported.id,
        "task inbox": own_in.id,
        "task outbox": own_out.id,
    }


def test_file_01_a_run_folder_holds_inbox_outbox_steering_and_a_delivery_record(
    run: Run, paths: RunPaths
) -> None:
    ids = _write_one_of_each(run)

    mailbox = paths.mailbox_dir
    for name in ("inbox.jsonl", "outbox.jsonl", "steering.jsonl"):
        assert (mailbox / name).is_file(), name
    assert (mailbox / "tasks" / "build" / "inbox.jsonl").is_file()
    assert (mailbox / "tasks" / "build" / "outbox.jsonl").is_file()
    # Appends never touch the delivery record: it appears with the first status change.
    assert not paths.delivery.exists()

    run.mailbox.set_status([ids["inbox"]], "delivered")

    record = json.loads(paths.delivery.read_bytes())
    assert record["messages"] == {ids["inbox"]: "delivered"}
    assert ISO.fullmatch(record["times"][ids["inbox"]]["deliveredAt"])
    assert record["updatedAt"] == record["times"][ids["inbox"]]["deliveredAt"]


def test_file_01_every_message_line_has_the_seed_fields(run: Run, paths: RunPaths) -> None:
    ids = _write_one_of_each(run)
    files = {
        "inbox": paths.box("inbox"),
        "steering": paths.box("steering"),
        "outbox": paths.box("outbox"),
        "task inbox": paths.box("inbox", "build"),
        "task outbox": paths.box("outbox", "build"),
    }

    for where, path in files.items():
        [line] = lines_of(path)
        assert line.keys() >= REQUIRED, (where, REQUIRED - line.keys())
        assert line["id"] == ids[where]
        assert line["id"].startswith("fbm_")
        assert line["runId"] == "r1"
        assert line["status"] == "queued"
        assert line["priority"] in ("low", "normal", "high")
        assert ISO.fullmatch(line["createdAt"]), line["createdAt"]
        assert "deliveredAt" not in line  # optional: only in the delivery record
        outgoing = where.endswith("outbox")
        assert line["direction"] == ("outbox" if outgoing else "inbox")
        assert (line["from"], line["to"]) == (
            ("build", "leader") if outgoing else ("leader", "build")
        )
        assert line.get("taskId") == ("build" if where.startswith("task") else None)

    [sent] = lines_of(files["inbox"])
    assert sent["body"] == "compile the docs"
    assert sent["data"] == {"source": "test"}
    [nudge] = lines_of(files["steering"])
    assert (nudge["kind"], nudge["box"]) == ("nudge", "steering")
    assert nudge["data"] == {"source": "nudge-agent"}
    [report] = lines_of(files["outbox"])
    assert report["priority"] == "high"
    assert "data" not in report  # optional: an empty data object is left out
    assert run.mailbox.get(ids["outbox"]).data == {}


def test_file_01_statuses_go_queued_delivered_acknowledged_and_never_back(
    mailbox: RunMailbox, paths: RunPaths
) -> None:
    message = mailbox.append("inbox", sender="leader", to="build", body="hello")
    line_bytes = paths.box("inbox").read_bytes()
    assert mailbox.get(message.id).status == "queued"

    [delivered] = mailbox.set_status([message.id], "delivered")
    assert delivered.status == "delivered"
    assert delivered.delivered_at is not None and delivered.acknowledged_at is None
    assert delivered.delivered_at > message.created_at

    acknowledged = mailbox.acknowledge(message.id)
    assert acknowledged.status == "acknowledged"
    assert acknowledged.delivered_at == delivered.delivered_at  # the first delivery is kept
    assert acknowledged.acknowledged_at is not None
    assert acknowledged.acknowledged_at > acknowledged.delivered_at
    served = acknowledged.to_dict()
    assert served["deliveredAt"] == delivered.delivered_at
    assert served["acknowledgedAt"] == acknowledged.acknowledged_at

    # Never back, and a second acknowledge changes nothing.
    assert mailbox.set_status([message.id], "delivered") == []
    assert mailbox.set_status([message.id], "queued") == []
    record_before = paths.delivery.read_bytes()
    assert mailbox.acknowledge(message.id) == acknowledged
    assert paths.delivery.read_bytes() == record_before
    assert mailbox.get(message.id).status == "acknowledged"
    # The line itself never changes: history stays in the append-only file.
    assert paths.box("inbox").read_bytes() == line_bytes


def test_file_01_acknowledging_straight_from_queued_stamps_both_times(
    mailbox: RunMailbox,
) -> None:
    message = mailbox.append("inbox", sender="leader", to="build", body="hello")
    acknowledged = mailbox.acknowledge(message.id)
    assert acknowledged.delivered_at == acknowledged.acknowledged_at is not None


def test_file_01_a_status_change_for_an_unknown_id_changes_nothing(
    mailbox: RunMailbox, paths: RunPaths
) -> None:
    known = mailbox.append("inbox", sender="leader", to="build", body="hello")
    before = tree(paths.root)

    with pytest.raises(FileboxMessageNotFound, match="fbm_nope"):
        mailbox.set_status([known.id, "fbm_nope"], "acknowledged")

    assert tree(paths.root) == before
    assert mailbox.get(known.id).status == "queued"


def test_file_01_acknowledging_in_a_run_with_no_mailbox_creates_nothing(
    mailbox: RunMailbox, paths: RunPaths
) -> None:
    with pytest.raises(FileboxMessageNotFound):
        mailbox.acknowledge("fbm_nope")
    assert not paths.root.exists()


def test_file_01_each_task_has_its_own_mailbox(run: Run, paths: RunPaths) -> None:
    ids = _write_one_of_each(run)
    run.send("test", "for the test task", own_mailbox=True)

    assert sorted(p.name for p in paths.tasks_dir.iterdir()) == ["build", "test"]
    assert paths.task_ids_with_mailbox() == ["build", "test"]
    own = run.mailbox.messages(task_id="build")
    assert [m.id for m in own] == [ids["task inbox"], ids["task outbox"]]
    assert {m.task_id for m in own} == {"build"}
    assert [m.body for m in run.mailbox.messages("inbox", task_id="test")] == ["for the test task"]
    # The run's own files do not hold a task's own messages, but everything() has them all.
    assert ids["task inbox"] not in {m.id for m in run.mailbox.messages()}
    assert {m.id for m in run.mailbox.everything()} >= set(ids.values())
    # A status change to a task's own message lands in the run's one delivery record.
    run.mailbox.acknowledge(ids["task inbox"])
    assert json.loads(paths.delivery.read_bytes())["messages"] == {
        ids["task inbox"]: "acknowledged"
    }
    assert run.mailbox.messages("inbox", task_id="build")[0].status == "acknowledged"
