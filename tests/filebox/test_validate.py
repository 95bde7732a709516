"""Acceptance FILE-05: validation reports corrupt lines, repair rewrites a file
atomically keeping only its valid lines, and a corrupt delivery record is moved
aside and read as empty, with a loud log line."""

from __future__ import annotations

import base64
import json
import logging
import os

import pytest

from attn.filebox import RunMailbox, RunPaths
from tests.filebox.conftest import Ticks, lines_of, tree


def _corrupt_inbox(mailbox: RunMailbox, paths: RunPaths) -> list[str]:
    """An inbox of three good messages among bad lines and a torn tail; the good ids."""
    good = []
    with_bad = [
        b"this is not json",
        b"[1, 2, 3]",
        b'{"id": 7, "body": "id is a number"}',
    ]
    for bad in with_bad:
        good.append(mailbox.append("inbox", sender="leader", to="build", body="ok").id)
        with open(paths.box("inbox"), "ab") as file:
            file.write(bad + b"\n")
    with open(paths.box("inbox"), "ab") as file:
        file.write(b'{"id": "fbm_torn", "bo')
    return good


def test_file_05_validate_reports_each_corrupt_line_with_its_number_and_reason(
    mailbox: RunMailbox, paths: RunPaths
) -> None:
    good = _corrupt_inbox(mailbox, paths)
    mailbox.append("outbox", sender="build", to="leader", body="fine")
    before = tree(paths.root)

    report = RunMailbox(paths, Ticks()).validate()

    assert not report.ok
    assert [(p.line, p.reason) for p in report.problems] == [
        (2, "not JSON"),
        (4, "not a JSON object"),
        (6, "id is missing or not a string"),
    ]
    assert {p.path for p in report.problems} == {str(paths.box("inbox"))}
    assert report.problems[0].preview == "this is not json"
    assert report.problems[1].offset == paths.box("inbox").read_bytes().index(b"[1, 2, 3]")
    assert report.torn == [str(paths.box("inbox"))]
    assert report.repaired == []
    assert report.to_dict()["problems"][2]["line"] == 6
    assert tree(paths.root) == before  # validation changes nothing
    assert [m.id for m in mailbox.messages("inbox")] == good  # readers skip the bad lines


def test_file_05_repair_rewrites_atomically_keeping_only_valid_lines(
    mailbox: RunMailbox, paths: RunPaths
) -> None:
    good = _corrupt_inbox(mailbox, paths)
    mailbox.append("outbox", sender="build", to="leader", body="fine")
    inbox_inode = os.stat(paths.box("inbox")).st_ino
    outbox_bytes = paths.box("outbox").read_bytes()
    outbox_inode = os.stat(paths.box("outbox")).st_ino
    good_lines = [line for line in paths.box("inbox").read_bytes().split(b"\n") if b'"fbm_' in line]
    good_lines = [line for line in good_lines if b"fbm_torn" not in line]
    before = paths.box("inbox").read_bytes()

    report = mailbox.validate(repair=True)

    assert len(report.problems) == 3  # what was found before the repair
    assert report.repaired == [str(paths.box("inbox"))]
    assert paths.box("inbox").read_bytes() == b"".join(line + b"\n" for line in good_lines)
    assert [line["id"] for line in lines_of(paths.box("inbox"))] == good
    assert os.stat(paths.box("inbox")).st_ino != inbox_inode  # a new file, renamed over
    # A file without problems is not rewritten.
    assert os.stat(paths.box("outbox")).st_ino == outbox_inode
    assert paths.box("outbox").read_bytes() == outbox_bytes
    # What was dropped is kept in the quarantine file, for a person to read.
    kept = lines_of(paths.quarantine)
    assert [(q["file"], q["reason"]) for q in kept] == [
        ("inbox.jsonl", "not JSON"),
        ("inbox.jsonl", "not a JSON object"),
        ("inbox.jsonl", "id is missing or not a string"),
        ("inbox.jsonl", "torn line (no newline)"),
    ]
    assert [base64.b64decode(q["base64"]) for q in kept] == [
        b"this is not json",
        b"[1, 2, 3]",
        b'{"id": 7, "body": "id is a number"}',
        b'{"id": "fbm_torn", "bo',
    ]
    assert [before[q["offset"] : q["offset"] + q["bytes"]] for q in kept] == [
        base64.b64decode(q["base64"]) for q in kept
    ]
    # No temporary file is left behind.
    leftovers = sorted(p.name for p in paths.mailbox_dir.iterdir())
    assert leftovers == [".mailbox.lock", "inbox.jsonl", "outbox.jsonl", "quarantine.jsonl"]
    assert RunMailbox(paths, Ticks()).validate().ok
    # The mailbox's own readers notice the new file and keep working.
    assert [m.id for m in mailbox.messages("inbox")] == good
    later = mailbox.append("inbox", sender="leader", to="build", body="after repair")
    assert [m.id for m in RunMailbox(paths, Ticks()).messages("inbox")] == [*good, later.id]


def test_file_05_repair_keeps_statuses_and_repairs_task_mailboxes(
    mailbox: RunMailbox, paths: RunPaths
) -> None:
    kept = mailbox.append("inbox", sender="leader", to="build", body="ok", task_id="build")
    mailbox.acknowledge(kept.id)
    with open(paths.box("inbox", "build"), "ab") as file:
        file.write(b"{broken\n")

    report = mailbox.validate(repair=True)

    assert report.repaired == [str(paths.box("inbox", "build"))]
    assert [m.id for m in mailbox.messages("inbox", task_id="build")] == [kept.id]
    assert mailbox.get(kept.id).status == "acknowledged"
    assert mailbox.validate().ok


def test_file_05_repair_of_a_run_without_a_mailbox_creates_nothing(
    mailbox: RunMailbox, paths: RunPaths
) -> None:
    assert mailbox.validate(repair=True).ok
    assert not paths.root.exists()


@pytest.mark.parametrize(
    "corrupt",
    [b'{"messages": {"fbm_', b"[]", b'{"messages": 3}', b"\xff\xfe"],
    ids=["cut", "a list", "messages not an object", "not UTF-8"],
)
def test_file_05_a_corrupt_delivery_record_reads_as_empty_and_is_moved_aside(
    mailbox: RunMailbox,
    paths: RunPaths,
    caplog: pytest.LogCaptureFixture,
    corrupt: bytes,
) -> None:
    first = mailbox.append("inbox", sender="leader", to="build", body="one")
    second = mailbox.append("inbox", sender="leader", to="build", body="two")
    mailbox.acknowledge(first.id)
    paths.delivery.write_bytes(corrupt)
    caplog.set_level(logging.ERROR, logger="attn.filebox")

    # Read as empty: every message has its line's status again, loudly.
    assert [m.status for m in mailbox.messages("inbox")] == ["queued", "queued"]
    assert mailbox.delivery().corrupt
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert any("delivery.json is corrupt" in text and "empty" in text for text in errors)
    assert not mailbox.validate().ok
    assert mailbox.validate().delivery_corrupt
    assert paths.delivery.read_bytes() == corrupt  # reading never moves it
    caplog.clear()

    # The next change moves it aside first, then writes a good record.
    mailbox.set_status([second.id], "delivered")

    [aside] = paths.mailbox_dir.glob("delivery.json.corrupt-*")
    assert aside.read_bytes() == corrupt
    assert ":" not in aside.name
    assert any(
        "moved aside" in r.getMessage() and r.levelno == logging.ERROR for r in caplog.records
    )
    assert json.loads(paths.delivery.read_bytes())["messages"] == {second.id: "delivered"}
    assert not mailbox.delivery().corrupt
    assert [m.status for m in mailbox.messages("inbox")] == ["queued", "delivered"]
    assert mailbox.validate().ok


def test_file_05_repair_moves_a_corrupt_delivery_record_aside(
    mailbox: RunMailbox, paths: RunPaths, caplog: pytest.LogCaptureFixture
) -> None:
    mailbox.acknowledge(mailbox.append("inbox", sender="leader", to="build", body="one").id)
    paths.delivery.write_bytes(b"{")
    caplog.set_level(logging.ERROR, logger="attn.filebox")

    report = mailbox.validate(repair=True)

    assert report.delivery_corrupt
    assert report.repaired == [str(paths.delivery)]
    assert [p.read_bytes() for p in paths.mailbox_dir.glob("delivery.json.corrupt-*")] == [b"{"]
    assert json.loads(paths.delivery.read_bytes())["messages"] == {}
    assert mailbox.validate().ok
    assert any(r.levelno == logging.ERROR for r in caplog.records)


def test_file_05_repair_does_not_quarantine_a_torn_line_a_second_time(
    mailbox: RunMailbox, paths: RunPaths
) -> None:
    mailbox.append("inbox", sender="leader", to="build", body="one")
    with open(paths.box("inbox"), "ab") as file:
        file.write(b'{"id": "fbm_torn", "bo')
    mailbox.append("inbox", sender="leader", to="build", body="two")  # quarantines the torn line
    assert len(lines_of(paths.quarantine)) == 1

    report = RunMailbox(paths, Ticks()).validate(repair=True)

    assert report.repaired == [str(paths.box("inbox"))]
    [kept] = lines_of(paths.quarantine)  # the same offset and length: kept once
    assert base64.b64decode(kept["base64"]) == b'{"id": "fbm_torn", "bo'
    assert [m.body for m in mailbox.messages("inbox")] == ["one", "two"]
