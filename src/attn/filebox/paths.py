"""Where a run's files live, and the checks that keep every path inside the root.

Layout (seed 003, "Mailbox file structure")::

    <root>/<run id>/run.json              the run: owner, tasks, worker (mutable, atomic)
    <root>/<run id>/events.jsonl          what happened (append-only)
    <root>/<run id>/pending.json          steers and follow-ups waiting for the worker
    <root>/<run id>/mailbox/inbox.jsonl   to the worker (append-only)
    <root>/<run id>/mailbox/outbox.jsonl  from the worker (append-only)
    <root>/<run id>/mailbox/steering.jsonl  steers and nudges (append-only)
    <root>/<run id>/mailbox/delivery.json   message id -> status, the mutable truth
    <root>/<run id>/mailbox/tasks/<task id>/{inbox,outbox}.jsonl  per-task mailboxes

``<root>`` is ``<state dir>/runs``. Ids are ``[A-Za-z0-9_.-]``, 1..128 characters,
never ``.``/``..``-like; every existing component under the root must be a real
directory or file, not a symbolic link (FILE-09). Nothing here creates a file:
:meth:`RunPaths.ensure` does, and only writers call it.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from attn.echo import shown
from attn.errors import InvalidInput, UnsafePath

#: The three append-only mailbox files (seed 003).
Box = Literal["inbox", "outbox", "steering"]
BOXES: tuple[Box, ...] = ("inbox", "outbox", "steering")

#: Longest run or task id.
MAX_PART_CHARS = 128

_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


def check_part(value: object, what: str) -> str:
    """``value`` if it can name a run or task folder.

    Raises:
        UnsafePath: not a string of 1..128 characters from ``[A-Za-z0-9_.-]``
            starting with a letter, digit or underscore, or holding ``..``.
    """
    if (
        not isinstance(value, str)
        or len(value) > MAX_PART_CHARS
        or not _ID.fullmatch(value)
        or ".." in value
    ):
        raise UnsafePath(
            f"{what} must be 1..{MAX_PART_CHARS} characters of [A-Za-z0-9_.-], "
            f"starting with a letter, digit or underscore and without '..', got {shown(value)}"
        )
    return value


def refuse_links(root: Path, path: Path) -> None:
    """Raise if any existing component of ``path`` below ``root`` is a symbolic link.

    ``root`` itself may be reached through links (a user's home on another disk);
    everything under it is attn's and must be what it seems.

    Raises:
        UnsafePath: a component is a symbolic link, or ``path`` is not under ``root``.
    """
    try:
        relative = path.relative_to(root)
    except ValueError:
        raise UnsafePath(
            f"{shown(str(path))} is not under the run root {shown(str(root))}"
        ) from None
    current = root
    for part in relative.parts:
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return
        if stat.S_ISLNK(mode):
            raise UnsafePath(f"{shown(str(current))} is a symbolic link; run files must not be")


@dataclass(frozen=True, slots=True)
class RunPaths:
    """The paths of one run under ``root`` (``<state dir>/runs``).

    Raises:
        UnsafePath: from the constructor, when ``run_id`` is not a safe id.
    """

    root: Path
    run_id: str

    def __post_init__(self) -> None:
        check_part(self.run_id, "run id")

    @property
    def run_dir(self) -> Path:
        return self.root / self.run_id

    @property
    def mailbox_dir(self) -> Path:
        return self.run_dir / "mailbox"

    @property
    def manifest(self) -> Path:
        return self.run_dir / "run.json"

    @property
    def events(self) -> Path:
        return self.run_dir / "events.jsonl"

    @property
    def pending(self) -> Path:
        return self.run_dir / "pending.json"

    @property
    def output(self) -> Path:
        """The worker's raw output, one line per line it printed (bounded)."""
        return self.run_dir / "output.log"

    @property
    def heartbeat(self) -> Path:
        return self.run_dir / "heartbeat"

    @property
    def run_lock(self) -> Path:
        """The run lock: taken by every change to ``run.json`` and ``pending.json``."""
        return self.run_dir / ".run.lock"

    @property
    def mailbox_lock(self) -> Path:
        """The mailbox lock: taken by every append and every delivery change."""
        return self.mailbox_dir / ".mailbox.lock"

    @property
    def delivery(self) -> Path:
        return self.mailbox_dir / "delivery.json"

    @property
    def quarantine(self) -> Path:
        """Torn and corrupt lines found in the mailbox files, kept for a person to read."""
        return self.mailbox_dir / "quarantine.jsonl"

    @property
    def tasks_dir(self) -> Path:
        return self.mailbox_dir / "tasks"

    def box(self, box: Box, task_id: str | None = None) -> Path:
        """The JSONL file of ``box``: the run's, or ``task_id``'s own (inbox and outbox only).

        Raises:
            UnsafePath: a bad task id.
            InvalidInput: a task's steering file (steering is per run).
        """
        if task_id is None:
            return self.mailbox_dir / f"{box}.jsonl"
        if box == "steering":
            raise InvalidInput("steering is per run; a task has no steering file of its own")
        return self.tasks_dir / check_part(task_id, "task id") / f"{box}.jsonl"

    def task_ids_with_mailbox(self) -> list[str]:
        """Ids of the tasks that have their own mailbox folder, sorted; [] when none."""
        self.check(self.tasks_dir)
        try:
            entries = list(os.scandir(self.tasks_dir))
        except FileNotFoundError:
            return []
        return sorted(
            entry.name
            for entry in entries
            if entry.is_dir(follow_symlinks=False)
            and _ID.fullmatch(entry.name)
            and ".." not in entry.name
        )

    def check(self, path: Path) -> Path:
        """``path`` after :func:`refuse_links` (no component under the root is a link)."""
        refuse_links(self.root, path)
        return path

    def exists(self) -> bool:
        """Whether the run folder exists (and is a real folder)."""
        self.check(self.run_dir)
        return self.run_dir.is_dir()

    def ensure(self, task_id: str | None = None) -> None:
        """Create the run's folders (and ``task_id``'s mailbox folder) if missing.

        Raises:
            UnsafePath: a link where a folder should be.
        """
        folder = self.mailbox_dir if task_id is None else self.box("inbox", task_id).parent
        self.check(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.check(folder)


__all__ = ["BOXES", "MAX_PART_CHARS", "Box", "RunPaths", "check_part", "refuse_links"]
