"""The baseline of ``channels.py``: Claude Code's file-inbox pattern, run for real.

Every agent is its own process, as every Claude Code teammate is. Its inbox is
one JSON array file, ``<root>/teams/<team>/inboxes/<name>.json``, of entries
shaped as the real ones in ``../shared/data/claude-team-inboxes`` (``from``,
``text``, ``summary``, ``timestamp``, ``color``, ``read``). Each process runs:

* a writer (its main thread) that sends its planned messages one after the
  other; a send appends one entry to each recipient's file: take the file lock
  (the ``filelock`` package on the companion ``<name>.lock``), read the JSON
  array, append, write the file back, release (a team post is one such write
  per member, as a broadcast is);
* a reader thread that polls its own file every ``poll_s`` seconds (stat, then
  read and parse when it changed), notes the entries it had not seen, and
  marks them read by rewriting the file under the lock.

With ``locked=False`` the same read-modify-write runs without the lock, as
the pattern does when a writer skips it: concurrent writers then overwrite
each other's appends. A file caught half-written (or empty, between a
writer's truncate and its write) fails to parse; the reader tries again at
its next poll, a writer reads again at once: kinder than taking it for an
empty inbox, so what the pattern loses here is lost updates only. Times come
from ``time.monotonic()``, which on Linux is the one system-wide clock every
process reads alike.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from multiprocessing.synchronize import Barrier, Event
from pathlib import Path
from typing import Any

from channels_plan import MARKER_RE, Plan, markers
from filelock import FileLock

#: Tries to read a file that fails to parse before a writer gives up on it.
_READ_TRIES = 1000
_COLORS = ("blue", "green", "yellow", "purple", "orange", "pink", "cyan", "red")


@dataclass(frozen=True, slots=True)
class Send:
    """One planned send: its marker number, its recipients and its text."""

    index: int
    recipients: tuple[str, ...]
    text: str


@dataclass(frozen=True, slots=True)
class AgentJob:
    """What one agent process does (picklable: it crosses to a spawned process)."""

    name: str
    inbox_dir: str
    sends: tuple[Send, ...]
    expected: int  # deliveries this agent's reader waits for
    locked: bool
    poll_s: float
    pace_s: float  # pause between two sends (0: none; the idle-latency phase paces)
    result: str  # where the process writes what it measured (JSON)


def inbox(inbox_dir: str, name: str) -> Path:
    """The inbox file of agent ``name``."""
    return Path(inbox_dir) / f"{name}.json"


def _lock(inbox_dir: str, name: str) -> FileLock:
    return FileLock(str(Path(inbox_dir) / f"{name}.lock"))


def _read(path: Path) -> list[dict[str, Any]] | None:
    """The inbox's entries; [] when it does not exist; None when it fails to parse
    (an empty file too: one caught between another writer's truncate and write)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    try:
        entries = json.loads(text)
    except ValueError:
        return None
    return entries if isinstance(entries, list) else None


def _write(path: Path, entries: list[dict[str, Any]]) -> None:
    # Truncate and write in place, as a plain writeFile does (no temp file, no rename).
    with open(path, "w", encoding="utf-8") as out:
        json.dump(entries, out, indent=2)


def _append(job: AgentJob, recipient: str, entry: dict[str, Any]) -> tuple[float, int]:
    """One read-modify-write of ``recipient``'s inbox; (seconds waited for the lock, retries)."""
    path = inbox(job.inbox_dir, recipient)
    waited, retries = 0.0, 0
    lock = _lock(job.inbox_dir, recipient) if job.locked else None
    if lock is not None:
        began = time.monotonic()
        lock.acquire()
        waited = time.monotonic() - began
    try:
        for _ in range(_READ_TRIES):
            entries = _read(path)
            if entries is not None:
                break
            retries += 1
        else:
            entries = []  # never parsed: the pattern then starts the inbox afresh
        entries.append(entry)
        _write(path, entries)
    finally:
        if lock is not None:
            lock.release()
    return waited, retries


class _Reader(threading.Thread):
    """Polls one inbox, notes new entries by marker, marks them read."""

    def __init__(self, job: AgentJob, stop: Event) -> None:
        super().__init__(name=f"reader-{job.name}", daemon=True)
        self.job = job
        self.stop = stop
        self.seen: list[tuple[int, float]] = []  # (marker, monotonic s), first sightings
        self.known: set[int] = set()
        self.parse_errors = 0
        self.polls = 0

    def run(self) -> None:
        path = inbox(self.job.inbox_dir, self.job.name)
        last: tuple[int, int] | None = None
        while not self.stop.is_set():
            self.polls += 1
            try:
                stat = os.stat(path)
                state: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
            except FileNotFoundError:
                state = None
            if state is not None and state != last:
                entries = _read(path)
                if entries is None:
                    self.parse_errors += 1
                else:
                    last = state
                    now = time.monotonic()
                    unread = False
                    for entry in entries:
                        unread = unread or not entry.get("read", False)
                        for kind, number in MARKER_RE.findall(str(entry.get("text", ""))):
                            if kind == "m" and int(number) not in self.known:
                                self.known.add(int(number))
                                self.seen.append((int(number), now))
                    if unread:
                        self._mark_read(path)
            if self.job.expected and len(self.known) >= self.job.expected:
                return
            time.sleep(self.job.poll_s)

    def _mark_read(self, path: Path) -> None:
        lock = _lock(self.job.inbox_dir, self.job.name) if self.job.locked else None
        if lock is not None:
            lock.acquire()
        try:
            entries = _read(path)
            if entries is not None:
                for entry in entries:
                    entry["read"] = True
                _write(path, entries)
        finally:
            if lock is not None:
                lock.release()


def _timestamp() -> str:
    """Now as the real files write it: ``2026-02-07T15:20:46.348Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def run_agent(job: AgentJob, start: Barrier, stop: Event, writers_done: Any) -> None:
    """One agent process: a reader thread and the writer, after ``start`` lets them go."""
    reader = _Reader(job, stop)
    start.wait()
    reader.start()
    color = _COLORS[sum(map(ord, job.name)) % len(_COLORS)]
    sent: dict[int, float] = {}
    waits: list[float] = []
    retries = 0
    for send in job.sends:
        sent[send.index] = time.monotonic()
        entry = {
            "from": job.name,
            "text": send.text,
            "summary": send.text[:60],
            "timestamp": datetime.now(UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "color": color,
            "read": False,
        }
        for recipient in send.recipients:
            waited, tries = _append(job, recipient, entry)
            waits.append(waited)
            retries += tries
        if job.pace_s:
            time.sleep(job.pace_s)
    finished = time.monotonic()
    with writers_done.get_lock():
        writers_done.value += 1
    reader.join()
    Path(job.result).write_text(
        json.dumps(
            {
                "sent": sent,
                "writes_done_at": finished,
                "seen": reader.seen,
                "lock_waits": waits,
                "read_retries": retries,
                "parse_errors": reader.parse_errors,
                "polls": reader.polls,
            }
        )
    )


@dataclass(slots=True)
class Outcome:
    """What a run of the pattern measured, gathered from every process."""

    started_at: float
    sent: dict[int, float]
    writes_done_at: float
    seen: dict[str, list[tuple[int, float]]]
    lock_waits: list[float]
    read_retries: int
    parse_errors: int
    final: dict[str, list[int]]  # recipient -> markers in its file at the end


def run(root: Path, jobs: list[AgentJob], *, grace_s: float, deadline_s: float) -> Outcome:
    """Start every agent process at once; stop readers ``grace_s`` after the last
    write (or at ``deadline_s``), and read back what each measured and each file holds."""
    ctx = mp.get_context("spawn")
    start = ctx.Barrier(len(jobs) + 1)
    stop = ctx.Event()
    writers_done = ctx.Value("i", 0)
    for job in jobs:
        Path(job.inbox_dir).mkdir(parents=True, exist_ok=True)
    procs = [
        ctx.Process(target=run_agent, args=(job, start, stop, writers_done), name=job.name)
        for job in jobs
    ]
    for proc in procs:
        proc.start()
    start.wait()
    started = time.monotonic()
    while writers_done.value < len(jobs) and time.monotonic() - started < deadline_s:
        time.sleep(0.01)
    end_by = time.monotonic() + grace_s
    while any(p.is_alive() for p in procs) and time.monotonic() < end_by:
        time.sleep(0.01)
    stop.set()
    for proc in procs:
        proc.join(timeout=30)
        if proc.is_alive():
            proc.kill()
            raise RuntimeError(f"file-inbox process {proc.name} did not stop")
    return _gather(root, jobs, started)


def _gather(root: Path, jobs: list[AgentJob], started: float) -> Outcome:
    out = Outcome(started, {}, started, {}, [], 0, 0, {})
    for job in jobs:
        data = json.loads(Path(job.result).read_text())
        out.sent.update({int(k): v for k, v in data["sent"].items()})
        out.writes_done_at = max(out.writes_done_at, data["writes_done_at"])
        out.seen[job.name] = [(int(m), t) for m, t in data["seen"]]
        out.lock_waits += data["lock_waits"]
        out.read_retries += data["read_retries"]
        out.parse_errors += data["parse_errors"]
        entries = _read(inbox(job.inbox_dir, job.name)) or []
        out.final[job.name] = [i for e in entries for i in markers(str(e.get("text", "")))]
    return out


@dataclass(slots=True)
class BaselineRun:
    """What one run of the pattern measured: the load phase, then the idle phase."""

    load_s: float
    writes_s: float
    load_latency: list[float]
    seen: dict[str, list[int]]
    final: dict[str, list[int]]
    lock_waits: list[float]
    read_retries: int
    parse_errors: int
    idle_latency: list[float]


def _jobs(
    sends: dict[str, list[Send]],
    expected: dict[str, int],
    root: Path,
    *,
    locked: bool,
    poll_s: float,
    pace_s: float = 0.0,
) -> list[AgentJob]:
    inbox_dir = root / "teams" / "bench" / "inboxes"
    return [
        AgentJob(
            name,
            str(inbox_dir),
            tuple(sends[name]),
            expected.get(name, 0),
            locked,
            poll_s,
            pace_s,
            str(root / f"{name}.result.json"),
        )
        for name in sends
    ]


def run_baseline(
    plan: Plan, root: Path, *, locked: bool, poll_s: float, idle_samples: int
) -> BaselineRun:
    """The plan through the pattern (one process per agent), then ``idle_samples``
    paced messages from one agent to another idle one (its reader polling)."""
    expected: dict[str, int] = {}
    for message in plan.messages:
        for recipient in message.recipients:
            expected[recipient] = expected.get(recipient, 0) + 1
    sends = {
        name: [Send(m.index, m.recipients, m.text) for m in messages]
        for name, messages in plan.by_sender().items()
    }
    jobs = _jobs(sends, expected, root / "load", locked=locked, poll_s=poll_s)
    load = run(root, jobs, grace_s=max(2.0, 50 * poll_s), deadline_s=3600.0)
    seen_at = [t for sightings in load.seen.values() for _, t in sightings]
    latency = [t - load.sent[i] for s in load.seen.values() for i, t in s if i in load.sent]
    a, b = plan.agents[0], plan.agents[1]
    body = plan.messages[0].text.split(" ", 1)[-1]
    idle_sends = {a: [Send(k, (b,), f"[m:{k}] {body}") for k in range(idle_samples)], b: []}
    paced = 3 * poll_s
    idle_jobs = _jobs(
        idle_sends, {b: idle_samples}, root / "idle", locked=locked, poll_s=poll_s, pace_s=paced
    )
    quiet = run(root, idle_jobs, grace_s=max(1.0, 20 * poll_s), deadline_s=600.0)
    return BaselineRun(
        load_s=max(seen_at, default=load.started_at) - load.started_at,
        writes_s=load.writes_done_at - load.started_at,
        load_latency=latency,
        seen={name: [i for i, _ in sightings] for name, sightings in load.seen.items()},
        final=load.final,
        lock_waits=load.lock_waits,
        read_retries=load.read_retries,
        parse_errors=load.parse_errors,
        idle_latency=[t - quiet.sent[i] for i, t in quiet.seen[b] if i in quiet.sent],
    )
