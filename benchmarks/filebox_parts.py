"""The three parts of ``filebox.py``: appends/s, reading a large mailbox, the SIGKILL loop.

Contenders: ``attn`` (:class:`attn.filebox.RunMailbox`), ``plain`` (an unlocked
``open(path, "a")`` appender) and ``picrew`` (pi-crew's approach, in node:
``peers/picrew_append.mjs``). Writers are separate OS processes started with
``subprocess`` and kept for the whole benchmark (their start-up is never timed);
the crash loop's Python writers are forked by one of them, node's are started
afresh for each cycle.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from filebox_checks import CountCheck, CrashCheck, check_counts, check_crash
from filebox_writers import inbox_path, padding

from attn.filebox import FileboxMessage, RunMailbox, RunPaths
from attn.filebox.jsonl import TailReader, encode_line
from attn.filebox.records import message_problem

HERE = Path(__file__).resolve().parent
#: node runs pi-crew's approach; without it the peer is left out (and the tables say so).
NODE = shutil.which("node")
CONTENDERS = ("attn", "plain", "picrew") if NODE else ("attn", "plain")
RUN_ID = "bench"


def _command(contender: str, *args: str) -> list[str]:
    if contender == "picrew":
        assert NODE is not None
        return [NODE, str(HERE / "peers" / "picrew_append.mjs"), *args]
    return [sys.executable, str(HERE / "filebox_writers.py"), args[0], contender, *args[1:]]


def _spawn(command: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _start(command: list[str]) -> subprocess.Popen[str]:
    proc = _spawn(command)
    _expect(proc, "ready")
    return proc


def _expect(proc: subprocess.Popen[str], word: str) -> None:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if line.strip() != word:
        proc.kill()
        _out, err = proc.communicate(timeout=30)
        raise RuntimeError(f"writer {proc.args!r} said {line!r}, not {word!r}: {err[-2000:]}")


def _send(proc: subprocess.Popen[str], line: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(line + "\n")
    proc.stdin.flush()


class Writers:
    """Writer processes of each contender, started once (their start-up, attn's
    0.4 s import included, is not what is measured) and given one job per run."""

    def __init__(self) -> None:
        self._procs: dict[str, list[subprocess.Popen[str]]] = {}

    def get(self, contender: str, count: int) -> list[subprocess.Popen[str]]:
        procs = self._procs.setdefault(contender, [])
        started = [_spawn(_command(contender, "serve")) for _ in range(count - len(procs))]
        for proc in started:  # they start side by side
            _expect(proc, "ready")
        procs.extend(started)
        return procs[:count]

    def close(self) -> None:
        procs = [proc for group in self._procs.values() for proc in group]
        self._procs.clear()
        for proc in procs:
            if proc.stdin is not None:
                proc.stdin.close()
        for proc in procs:
            if proc.wait(timeout=60) != 0:
                raise RuntimeError(f"writer {proc.args!r} exited {proc.returncode}")


def _jobs(procs: list[subprocess.Popen[str]], jobs: list[dict[str, Any]]) -> float:
    """Give each writer its job; "go" to all at once; seconds until the last "done"."""
    for proc, job in zip(procs, jobs, strict=True):
        _send(proc, json.dumps(job))
    for proc in procs:
        _expect(proc, "set")
    began = time.perf_counter()
    for proc in procs:
        _send(proc, "go")
    for proc in procs:
        _expect(proc, "done")
    return time.perf_counter() - began


def appends(
    pool: Writers,
    contender: str,
    folder: Path,
    writers: int,
    per_writer: int,
    *,
    fsync: bool,
    body_chars: int,
) -> tuple[float, CountCheck]:
    """``writers`` processes append ``per_writer`` messages each to one inbox at once:
    (appends per second, from "go" to the last writer's "done"; the file's check)."""
    root = folder / f"{contender}-{writers}-{int(fsync)}-{time.monotonic_ns()}"
    job = {
        "root": str(root),
        "run_id": RUN_ID,
        "count": per_writer,
        "fsync": fsync,
        "acks": "",
        "body_chars": body_chars,
    }
    jobs = [{**job, "writer": w, "seed": w} for w in range(writers)]
    elapsed = _jobs(pool.get(contender, writers), jobs)
    mailbox = inbox_path(str(root), RUN_ID).parent
    check = check_counts(mailbox, writers, per_writer, delivery=contender == "picrew")
    shutil.rmtree(root)
    return writers * per_writer / elapsed, check


# ---------------------------------------------------------------- reading


def write_mailbox(root: Path, lines: int, *, body_chars: int = 200) -> RunPaths:
    """A run whose inbox holds ``lines`` messages, a tenth of them acknowledged in
    ``delivery.json`` (written directly: the read is measured, not the appends)."""
    paths = RunPaths(root, RUN_ID)
    paths.ensure()
    start = datetime(2026, 1, 1, tzinfo=UTC)
    acked: dict[str, str] = {}
    with open(paths.box("inbox"), "wb") as out:
        for n in range(lines):
            message = FileboxMessage(
                id=f"fbm_{n:012x}",
                run_id=RUN_ID,
                box="inbox",
                direction="inbox",
                kind="message",
                sender=f"w{n % 8}",
                to="worker",
                body=f"{n} {padding(body_chars)}",
                status="queued",
                priority="normal",
                created_at=(start + timedelta(milliseconds=n)).isoformat(timespec="microseconds"),
                data={"source": "bench"},
            )
            out.write(encode_line(message.to_dict()))
            if n % 10 == 0:
                acked[message.id] = "acknowledged"
    delivery = {"messages": acked, "times": {}, "updatedAt": start.isoformat()}
    paths.delivery.write_text(json.dumps(delivery) + "\n")
    return paths


def _timed(work: Callable[[], int], expected: int) -> float:
    began = time.perf_counter()
    got = work()
    elapsed = (time.perf_counter() - began) * 1000
    if got != expected:
        raise RuntimeError(f"a read returned {got} messages, not {expected}")
    return elapsed


def reads(folder: Path, lines: int, repeats: int) -> dict[str, float]:
    """Median milliseconds of each way of reading a ``lines``-line inbox."""
    paths = write_mailbox(folder / f"read-{time.monotonic_ns()}", lines)
    inbox = paths.box("inbox")

    def now() -> datetime:
        return datetime.now(UTC)

    def naive() -> int:
        with open(inbox, encoding="utf-8") as src:
            return len([json.loads(line) for line in src])

    out: dict[str, list[float]] = {k: [] for k in ("cold", "warm", "tail", "naive", "picrew")}
    for _ in range(repeats):
        out["cold"].append(_timed(lambda: len(RunMailbox(paths, now).messages("inbox")), lines))
        out["naive"].append(_timed(naive, lines))
    mailbox = RunMailbox(paths, now, fsync=False)
    reader = TailReader(inbox, message_problem)
    mailbox.messages("inbox")
    reader.read()
    count = lines
    for _ in range(repeats):
        mailbox.append("inbox", sender="w0", to="worker", body=f"{count} {padding(200)}")
        count += 1
        out["warm"].append(_timed(lambda: len(mailbox.messages("inbox")), count))
        out["tail"].append(_timed(lambda: len(reader.read()[0]), count))
    if NODE is not None:
        job = {"file": str(inbox), "delivery": str(paths.delivery), "reads": repeats}
        done = subprocess.run(
            [NODE, str(HERE / "peers" / "picrew_read.mjs"), json.dumps(job)],
            capture_output=True,
            text=True,
            timeout=600,
            check=True,
        )
        peer = json.loads(done.stdout)
        if peer["messages"] != count:
            got = peer["messages"]
            raise RuntimeError(f"the pi-crew read returned {got} messages, not {count}")
        out["picrew"] = peer["ms"]
    shutil.rmtree(paths.run_dir)
    return {k: statistics.median(v) for k, v in out.items() if v}


# ---------------------------------------------------------------- crash loop


def _acks(path: Path) -> set[str]:
    if not path.exists():
        return set()
    return {line for line in path.read_text(encoding="utf-8").splitlines() if line}


def crash_loop(
    pool: Writers, contender: str, folder: Path, cycles: int, *, max_delay_s: float, seed: int
) -> CrashCheck:
    """``cycles`` writer processes one after the other on one inbox, each SIGKILLed
    0..``max_delay_s`` after it started appending (fsync on in even cycles, off in
    odd ones); then a serving writer appends one message, as a restart would."""
    root = folder / f"crash-{contender}"
    mailbox = inbox_path(str(root), RUN_ID).parent
    acks = folder / f"crash-{contender}.acks"
    rng = random.Random(seed)
    starts: list[int] = []
    kills = 0
    job = {
        "root": str(root),
        "run_id": RUN_ID,
        "count": 10**7,
        "acks": str(acks),
        "body_chars": 0,
        "writer": 0,
    }
    for cycle in range(cycles):
        starts.append(_size(mailbox / "inbox.jsonl"))
        crash_job = {**job, "fsync": cycle % 2 == 0, "seed": seed * 1000 + cycle}
        kills += _killed(pool, contender, crash_job, rng.uniform(0, max_delay_s))
    restart = folder / f"crash-{contender}.restart"
    restart_job = {
        **job,
        "count": 1,
        "fsync": True,
        "acks": str(restart),
        "body_chars": 100,
        "seed": seed,
    }
    _jobs(pool.get(contender, 1), [restart_job])
    (restart_id,) = _acks(restart)
    acknowledged = _acks(acks) | {restart_id}
    check = check_crash(
        mailbox,
        starts,
        acknowledged,
        restart_id,
        quarantine=contender == "attn",
        delivery=contender == "picrew",
    )
    check.kills = kills
    shutil.rmtree(root)
    return check


def _killed(pool: Writers, contender: str, job: dict[str, Any], delay_s: float) -> bool:
    """Start one writer on ``job``, SIGKILL it ``delay_s`` after it said ready; whether
    the kill is what ended it. Python writers are forked by a serving writer, which
    has imported attn already; node's are started afresh."""
    if contender == "picrew":
        proc = _start(_command(contender, "crash", json.dumps(job)))
        time.sleep(delay_s)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)
        return proc.returncode == -signal.SIGKILL
    (server,) = pool.get(contender, 1)
    assert server.stdout is not None
    _send(server, json.dumps({**job, "crash": True}))
    said = server.stdout.readline().split()
    if said[:1] != ["ready"]:
        raise RuntimeError(f"a forked {contender} writer said {said!r}, not ready")
    time.sleep(delay_s)
    os.kill(int(said[1]), signal.SIGKILL)
    ended = server.stdout.readline().split()
    return ended == ["ended", str(-signal.SIGKILL)]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
