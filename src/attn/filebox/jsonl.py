"""Append-only JSONL files that survive crashes and concurrent writers (FILE-02..05).

An append is one ``write`` of one whole line on a descriptor opened with
``O_APPEND``, under the folder's lock (``filelock``), then ``fsync`` unless the
caller turned it off. Before writing, the appender looks at the file's last byte:
when a crash left a line without its newline (a torn line), the torn bytes are
copied to the quarantine file and the new line starts after a newline of its own,
so the torn record costs only itself and never the message after it.

Readers need no lock. They parse whole lines only; a line that is not UTF-8, not
JSON or not an object is skipped and reported as a :class:`LineProblem`, never
raised. :class:`TailReader` keeps what it parsed and reads only the bytes
appended since, so a large mailbox is read once (seed 003: "don't read JSONL on
every render tick").
"""

from __future__ import annotations

import base64
import json
import logging
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock

from attn.errors import UnsafePath
from attn.jsontext import dumps

log = logging.getLogger("attn.filebox")

#: Longest line a reader accepts (bytes); longer ones are reported and skipped.
MAX_LINE_BYTES = 1 << 20
#: Most bytes of a torn line copied to the quarantine file.
MAX_QUARANTINE_BYTES = 64 << 10

_OPEN_FLAGS = (
    os.O_RDWR
    | os.O_APPEND
    | os.O_CREAT
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)

#: How readers open a file: never through a link, never blocking (a FIFO).
_READ_FLAGS = (
    os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
)

_locks: dict[str, FileLock] = {}
_locks_guard = threading.Lock()


def folder_lock(path: Path, timeout_s: float = 30.0) -> FileLock:
    """The process's lock object for ``path`` (one per path; each thread holds it on its own)."""
    key = str(path)
    with _locks_guard:
        lock = _locks.get(key)
        if lock is None:
            # Waiting writers look again every millisecond (the default 50 ms halves
            # throughput with eight writers); the lock file stays between holders.
            lock = _locks[key] = FileLock(
                key, timeout=timeout_s, poll_interval=0.001, preserve_lock_file=True
            )
        return lock


@dataclass(frozen=True, slots=True)
class LineProblem:
    """A line a reader skipped: which file, its 1-based line number, byte offset, why."""

    path: str
    line: int
    offset: int
    reason: str
    preview: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "offset": self.offset,
            "reason": self.reason,
            "preview": self.preview,
        }


def check_regular(fd: int, path: Path) -> os.stat_result:
    """``fstat`` of ``fd``, which must be a regular file (not a folder, FIFO or device).

    Raises:
        UnsafePath: it is not (a 422 naming the path, never a 500 or a hang).
    """
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise UnsafePath(f"{str(path)!r} is not a regular file; run files must be")
    return info


def read_regular(path: Path) -> bytes:
    """The bytes of ``path``, a regular file.

    Raises:
        FileNotFoundError: it is missing. UnsafePath: a link, folder, FIFO or device.
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except IsADirectoryError:
        raise UnsafePath(f"{str(path)!r} is not a regular file; run files must be") from None
    try:
        size = check_regular(fd, path).st_size
        return os.pread(fd, size, 0)
    finally:
        os.close(fd)


def encode_line(record: dict[str, Any]) -> bytes:
    """``record`` as one JSON line, UTF-8, ending in ``\\n`` (no newline inside)."""
    return dumps(record).encode() + b"\n"


def append_line(
    path: Path,
    line: bytes,
    *,
    lock: Path,
    fsync: bool = True,
    quarantine: Path | None = None,
) -> int:
    """Append ``line`` (one whole line, ending in ``\\n``) to ``path`` under ``lock``.

    Returns:
        The byte offset the line starts at.

    Raises:
        OSError: the file could not be opened or written (nothing was reported stored).
        filelock.Timeout: another process held the lock for 30 s.
    """
    if not line.endswith(b"\n") or b"\n" in line[:-1]:
        raise ValueError("append_line takes exactly one line ending in a newline")
    with folder_lock(lock):
        return _append_locked(path, line, fsync=fsync, quarantine=quarantine)


def _append_locked(path: Path, line: bytes, *, fsync: bool, quarantine: Path | None) -> int:
    try:
        fd = os.open(path, _OPEN_FLAGS, 0o644)
    except IsADirectoryError:
        raise UnsafePath(f"{str(path)!r} is not a regular file; run files must be") from None
    try:
        size = check_regular(fd, path).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            torn_at = _torn_start(fd, size)
            if quarantine is not None:
                _quarantine(fd, path, quarantine, torn_at, size, fsync=fsync)
            log.warning(
                "%s: torn last line at byte %d (no newline); it is skipped and quarantined",
                path,
                torn_at,
            )
            line = b"\n" + line
            size += 1
        view = memoryview(line)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        if fsync:
            os.fsync(fd)
        return size
    finally:
        os.close(fd)


def _torn_start(fd: int, size: int) -> int:
    # Scan back chunk by chunk: a torn line can be longer than one chunk, and the
    # quarantine record must name where it really starts.
    end = size
    while end > 0:
        start = max(0, end - MAX_QUARANTINE_BYTES)
        cut = os.pread(fd, end - start, start).rfind(b"\n")
        if cut >= 0:
            return start + cut + 1
        end = start
    return 0


def _quarantine(
    fd: int, path: Path, quarantine: Path, start: int, size: int, *, fsync: bool
) -> None:
    raw = os.pread(fd, min(size - start, MAX_QUARANTINE_BYTES), start)
    quarantine_lines(
        quarantine, path, [(start, size - start, raw, "torn line (no newline)")], fsync=fsync
    )


def quarantine_lines(
    quarantine: Path, path: Path, lines: list[tuple[int, int, bytes, str]], *, fsync: bool
) -> None:
    """Keep lines of ``path`` in the quarantine file, one record each:
    ``{"file", "offset", "bytes", "reason", "base64"}``, from ``(offset, bytes, raw, reason)``.

    ``file`` is ``path`` relative to the quarantine's folder (``tasks/build/inbox.jsonl``);
    ``raw`` is cut to 64 KiB. The caller holds the folder's lock.
    """
    name = os.path.relpath(path, quarantine.parent)
    kept = _quarantined(quarantine, name)
    qfd = os.open(quarantine, _OPEN_FLAGS, 0o644)
    try:
        for offset, size, raw, reason in lines:
            if (offset, size, raw[:MAX_QUARANTINE_BYTES]) in kept:
                continue  # an append quarantined this torn line already; repair keeps it once
            record = {
                "file": name,
                "offset": offset,
                "bytes": size,
                "reason": reason,
                "base64": base64.b64encode(raw[:MAX_QUARANTINE_BYTES]).decode(),
            }
            os.write(qfd, encode_line(record))
        if fsync:
            os.fsync(qfd)
    finally:
        os.close(qfd)


def _quarantined(quarantine: Path, name: str) -> set[tuple[int, int, bytes]]:
    """``(offset, bytes, raw)`` of each line of file ``name`` already in the quarantine."""
    kept: set[tuple[int, int, bytes]] = set()
    for line in read_regular(quarantine).split(b"\n") if quarantine.exists() else []:
        value, _reason = parse_line(line) if line.strip() else (None, "")
        if not isinstance(value, dict) or value.get("file") != name:
            continue
        try:
            raw = base64.b64decode(str(value.get("base64", "")), validate=True)
        except ValueError:
            continue
        kept.add((value.get("offset"), value.get("bytes"), raw))  # type: ignore[arg-type]
    return kept


def nan_as_null(name: str) -> None:
    """``parse_constant`` for lines another process wrote: Python's json writes
    ``NaN`` and ``Infinity``, which no answer can carry; they read as null."""
    return None


def parse_line(raw: bytes) -> tuple[dict[str, Any] | None, str]:
    """One line (without its newline) as a JSON object, else None and why."""
    if len(raw) > MAX_LINE_BYTES:
        return None, f"longer than {MAX_LINE_BYTES:,} bytes"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, "not UTF-8 (a cut multi-byte character?)"
    try:
        value = json.loads(text, parse_constant=nan_as_null)
    except (ValueError, RecursionError):
        return None, "not JSON"
    if not isinstance(value, dict):
        return None, "not a JSON object"
    return value, ""


@dataclass(slots=True)
class _Cache:
    inode: int = -1
    offset: int = 0
    lines: int = 0
    records: list[dict[str, Any]] = field(default_factory=list)
    problems: list[LineProblem] = field(default_factory=list)


class TailReader:
    """Reads one JSONL file, keeping what it parsed; reads only what was appended since.

    Args:
        path: the file; a missing file reads as empty and is not created.
        check: called with each parsed object; returns the problem text, or "" to keep it.
    """

    __slots__ = ("_cache", "_check", "_lock", "path")

    def __init__(self, path: Path, check: Callable[[dict[str, Any]], str] | None = None) -> None:
        self.path = path
        self._check = check
        self._cache = _Cache()
        self._lock = threading.Lock()

    def read(self) -> tuple[list[dict[str, Any]], list[LineProblem], bool]:
        """Every whole line so far: (objects, problems, torn).

        ``torn`` is True when the file ends in bytes without a newline: a line
        being written right now, or one a crash cut (the next append quarantines it).
        The lists are the reader's own; callers must not change them.
        """
        with self._lock:
            try:
                fd = os.open(self.path, _READ_FLAGS)
            except FileNotFoundError:
                self._cache = _Cache()
                return [], [], False
            try:
                info = check_regular(fd, self.path)
                cache = self._cache
                if info.st_ino != cache.inode or info.st_size < cache.offset:
                    cache = self._cache = _Cache(inode=info.st_ino)
                if info.st_size == cache.offset:
                    return cache.records, cache.problems, False
                data = os.pread(fd, info.st_size - cache.offset, cache.offset)
            finally:
                os.close(fd)
            end = data.rfind(b"\n") + 1
            self._parse(cache, data[:end])
            return cache.records, cache.problems, end < len(data)

    def _parse(self, cache: _Cache, data: bytes) -> None:
        offset = cache.offset
        for raw in data.split(b"\n")[:-1]:
            cache.lines += 1
            if raw.strip():
                value, reason = parse_line(raw)
                if value is not None and self._check is not None:
                    reason = self._check(value)
                if reason:
                    preview = raw[:120].decode("utf-8", "replace")
                    cache.problems.append(
                        LineProblem(str(self.path), cache.lines, offset, reason, preview)
                    )
                    log.warning("%s line %d: %s; skipped", self.path, cache.lines, reason)
                else:
                    assert value is not None
                    cache.records.append(value)
            offset += len(raw) + 1
        cache.offset = offset


def read_records(
    path: Path, check: Callable[[dict[str, Any]], str] | None = None
) -> tuple[list[dict[str, Any]], list[LineProblem], bool]:
    """A one-off :meth:`TailReader.read` of ``path`` (copies of the lists)."""
    records, problems, torn = TailReader(path, check).read()
    return list(records), list(problems), torn


def rewrite_atomically(path: Path, lines: list[bytes], *, fsync: bool = True) -> None:
    """Replace ``path`` with exactly ``lines`` (each ending in ``\\n``): write a
    temporary file beside it, fsync, rename over, fsync the folder. The caller
    holds the folder's lock."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        for line in lines:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    if fsync:
        sync_folder(path.parent)


def sync_folder(folder: Path) -> None:
    """fsync a folder so a rename in it survives a power cut."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


__all__ = [
    "MAX_LINE_BYTES",
    "LineProblem",
    "TailReader",
    "append_line",
    "check_regular",
    "encode_line",
    "folder_lock",
    "nan_as_null",
    "parse_line",
    "quarantine_lines",
    "read_records",
    "read_regular",
    "rewrite_atomically",
    "sync_folder",
]
