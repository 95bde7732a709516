"""One run's mailbox: append, read with statuses, acknowledge, replay, validate.

Spec: seed 003 ("Mailbox file structure", "Message structure", "Corrupt JSONL
Handling"); FILE-01..05, FILE-11, FILE-12.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from attn.echo import shown
from attn.errors import FileboxMessageNotFound
from attn.filebox.delivery import Delivery, load_delivery, save_delivery
from attn.filebox.jsonl import (
    LineProblem,
    TailReader,
    append_line,
    encode_line,
    folder_lock,
    parse_line,
    quarantine_lines,
    rewrite_atomically,
)
from attn.filebox.paths import BOXES, Box, RunPaths
from attn.filebox.records import (
    FileboxMessage,
    Kind,
    Priority,
    Status,
    iso,
    message_of,
    message_problem,
    with_delivery,
)
from attn.ids import new_id


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """What :meth:`RunMailbox.validate` found: problems per line, files rewritten."""

    problems: list[LineProblem] = field(default_factory=list)
    torn: list[str] = field(default_factory=list)
    delivery_corrupt: bool = False
    repaired: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.problems or self.torn or self.delivery_corrupt)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "problems": [p.to_dict() for p in self.problems],
            "torn": self.torn,
            "deliveryCorrupt": self.delivery_corrupt,
            "repaired": self.repaired,
        }


class RunMailbox:
    """The mailbox files of one run.

    Args:
        paths: the run's paths.
        now: the time source for ``createdAt`` and delivery times.
        fsync: fsync each append and each delivery change (default True).
    """

    def __init__(self, paths: RunPaths, now: Callable[[], datetime], *, fsync: bool = True) -> None:
        self.paths = paths
        self._now = now
        self.fsync = fsync
        self._readers: dict[Path, TailReader] = {}
        #: Per file: the reader's record list and the messages made from it so far.
        self._parsed: dict[Path, tuple[list[dict[str, Any]], list[FileboxMessage]]] = {}

    # ------------------------------------------------------------ writing

    def append(
        self,
        box: Box,
        *,
        sender: str,
        to: str,
        body: str,
        kind: Kind = "message",
        priority: Priority = "normal",
        task_id: str | None = None,
        data: dict[str, Any] | None = None,
        message_id: str | None = None,
        created_at: str | None = None,
    ) -> FileboxMessage:
        """Append one message to ``box`` (the run's, or ``task_id``'s own) and return it.

        The caller checked the values. ``created_at`` (ISO 8601) keeps a queued
        message's place when it is delivered later; default now. When this
        returns, the line is written (and fsynced unless ``fsync`` is off).

        Raises:
            UnsafePath: a bad task id or a symbolic link on the way.
            OSError: the write failed; nothing is reported stored.
        """
        path = self.paths.box(box, task_id)  # refuses a bad task id before creating folders
        self.paths.ensure(task_id if box != "steering" else None)
        message = FileboxMessage(
            id=message_id or new_id("fbm"),
            run_id=self.paths.run_id,
            box=box,
            direction="outbox" if box == "outbox" else "inbox",
            kind=kind,
            sender=sender,
            to=to,
            body=body,
            status="queued",
            priority=priority,
            created_at=created_at or iso(self._now()),
            task_id=task_id,
            data=dict(data or {}),
        )
        self.paths.check(path)
        append_line(
            path,
            encode_line(message.to_dict()),
            lock=self.paths.mailbox_lock,
            fsync=self.fsync,
            quarantine=self.paths.quarantine,
        )
        return message

    def set_status(self, ids: Iterable[str], status: Status) -> list[FileboxMessage]:
        """Move each message forward to ``status`` under the mailbox lock; the changed ones.

        Raises:
            FileboxMessageNotFound: an id no mailbox file of the run holds (nothing changed).
        """
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        if not self.paths.check(self.paths.mailbox_dir).is_dir():
            # No mailbox folder holds no message: refuse before creating anything.
            raise self._not_found(wanted[0])
        with folder_lock(self.paths.mailbox_lock):
            known = {m.id: m for m in self._all_raw()}
            missing = [mid for mid in wanted if mid not in known]
            if missing:
                raise self._not_found(missing[0])
            record = load_delivery(self.paths.check(self.paths.delivery))
            at = iso(self._now())
            changed = [mid for mid in wanted if record.advance(mid, status, at)]
            if changed or record.corrupt:
                save_delivery(self.paths.delivery, record, at=at, fsync=self.fsync)
        return [with_delivery(known[mid], record.entries.get(mid)) for mid in changed]

    def acknowledge(self, message_id: str) -> FileboxMessage:
        """Mark one message acknowledged; acknowledging twice changes nothing.

        Raises:
            FileboxMessageNotFound: no such message in the run.
        """
        changed = self.set_status([message_id], "acknowledged")
        return changed[0] if changed else self.get(message_id)

    def replay(self, task_id: str | None = None) -> list[FileboxMessage]:
        """Every inbox message not yet acknowledged, oldest first, now marked delivered (FILE-12).

        ``task_id`` narrows it to what is that task's: the run inbox's messages to
        it (or to everyone, ``"*"``) and its own inbox.
        """
        pending = [m for m in self.inbox_for(task_id) if m.status != "acknowledged"]
        if pending:
            self.set_status([m.id for m in pending if m.status == "queued"], "delivered")
        return [m for m in self.inbox_for(task_id) if m.id in {p.id for p in pending}]

    # ------------------------------------------------------------ reading

    def messages(self, box: Box | None = None, task_id: str | None = None) -> list[FileboxMessage]:
        """The messages of ``box`` (all three when None), the run's or ``task_id``'s,
        with their delivery status, oldest first (file order within one time)."""
        boxes = BOXES if box is None else (box,)
        raw: list[FileboxMessage] = []
        for name in boxes:
            if task_id is not None and name == "steering":
                continue
            raw.extend(self._read(self.paths.box(name, task_id)))
        return self._merged(raw)

    def inbox_for(self, task_id: str | None) -> list[FileboxMessage]:
        """Inbox messages (run-level and per task) for ``task_id``, or all when None."""
        raw = list(self._read(self.paths.box("inbox")))
        tasks = self.paths.task_ids_with_mailbox() if task_id is None else [task_id]
        for task in tasks:
            raw.extend(self._read(self.paths.box("inbox", task)))
        if task_id is not None:
            raw = [m for m in raw if m.task_id == task_id or m.to in (task_id, "*")]
        return self._merged(raw)

    def everything(self) -> list[FileboxMessage]:
        """Every message of the run: its three files and every task's, oldest first."""
        return self._merged(self._all_raw())

    def get(self, message_id: str) -> FileboxMessage:
        """One message by id.

        Raises:
            FileboxMessageNotFound: no such message in the run.
        """
        for message in self.everything():
            if message.id == message_id:
                return message
        raise self._not_found(message_id)

    def _not_found(self, message_id: str) -> FileboxMessageNotFound:
        return FileboxMessageNotFound(
            f"run {shown(self.paths.run_id)} has no message {shown(message_id)}"
        )

    def delivery(self) -> Delivery:
        """The delivery record as it is now (empty when missing or corrupt)."""
        return load_delivery(self.paths.check(self.paths.delivery))

    def _all_raw(self) -> list[FileboxMessage]:
        raw: list[FileboxMessage] = []
        for box in BOXES:
            raw.extend(self._read(self.paths.box(box)))
        for task in self.paths.task_ids_with_mailbox():
            for box in ("inbox", "outbox"):
                raw.extend(self._read(self.paths.box(box, task)))
        return raw

    def _merged(self, raw: list[FileboxMessage]) -> list[FileboxMessage]:
        entries = self.delivery().entries
        merged = [with_delivery(m, entries.get(m.id)) for m in raw]
        merged.sort(key=lambda m: m.created_at)
        return merged

    def _read(self, path: Path) -> list[FileboxMessage]:
        self.paths.check(path)
        reader = self._readers.get(path)
        if reader is None:
            reader = self._readers[path] = TailReader(path, message_problem)
        records, _problems, _torn = reader.read()
        seen, messages = self._parsed.get(path, (None, []))
        if seen is not records:  # the file was replaced or truncated: start again
            messages = []
        messages.extend(message_of(r) for r in records[len(messages) :])
        self._parsed[path] = (records, messages)
        return messages

    # ------------------------------------------------------------ checking

    def files(self) -> list[Path]:
        """Every mailbox JSONL file of the run that exists."""
        paths = [self.paths.box(box) for box in BOXES]
        for task in self.paths.task_ids_with_mailbox():
            paths.extend(self.paths.box(box, task) for box in ("inbox", "outbox"))
        return [self.paths.check(p) for p in paths if p.exists()]

    def validate(self, *, repair: bool = False) -> ValidationReport:
        """Report every line that is not a message; with ``repair``, rewrite each bad
        file atomically keeping only its valid lines, and move a corrupt delivery
        record aside (FILE-05). Repair holds the mailbox lock."""
        if not repair or not self.paths.check(self.paths.mailbox_dir).is_dir():
            return self._check()  # nothing to repair: a run without a mailbox stays so
        with folder_lock(self.paths.mailbox_lock):
            report = self._check()
            for path in self.files():
                keep, bad = _valid_lines(path.read_bytes())
                if bad:
                    # What repair drops is kept for a person to read, like a torn line.
                    quarantine_lines(self.paths.quarantine, path, bad, fsync=self.fsync)
                    rewrite_atomically(path, keep, fsync=self.fsync)
                    report.repaired.append(str(path))
            if report.delivery_corrupt:
                record = load_delivery(self.paths.delivery)
                save_delivery(self.paths.delivery, record, at=iso(self._now()), fsync=self.fsync)
                report.repaired.append(str(self.paths.delivery))
        return report

    def _check(self) -> ValidationReport:
        report = ValidationReport(delivery_corrupt=self.delivery().corrupt)
        for path in self.files():
            reader = TailReader(path, message_problem)
            _records, problems, torn = reader.read()
            report.problems.extend(problems)
            if torn:
                report.torn.append(str(path))
        return report


def _valid_lines(data: bytes) -> tuple[list[bytes], list[tuple[int, int, bytes, str]]]:
    """The message lines of ``data`` to keep, and the others as ``(offset, bytes, raw, reason)``."""
    keep: list[bytes] = []
    bad: list[tuple[int, int, bytes, str]] = []
    parts = data.split(b"\n")
    tail = parts.pop()  # b"" when the data ends in a newline, else a torn line
    offset = 0
    for raw in parts:
        if raw.strip():
            value, reason = parse_line(raw)
            reason = reason or message_problem(value or {})
            if reason:
                bad.append((offset, len(raw), raw, reason))
            else:
                keep.append(raw + b"\n")
        offset += len(raw) + 1
    if tail:
        bad.append((offset, len(tail), tail, "torn line (no newline)"))
    return keep, bad


__all__ = ["RunMailbox", "ValidationReport"]
