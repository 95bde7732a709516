"""The writer processes of ``filebox.py``: attn's appender and a plain unlocked one.

Started by ``filebox.py`` (never by hand) as ``python filebox_writers.py serve
ROLE``, ROLE ``attn`` or ``plain``: a writer that takes jobs on stdin, one JSON
line each::

    {"root": "…", "run_id": "…", "writer": 3, "count": 500, "fsync": true,
     "acks": "…" | "", "seed": 7, "body_chars": 200, "crash": false}

Both write to ``<root>/<run_id>/mailbox/inbox.jsonl``, the layout of seed 003
(and of pi-crew, whose appender is ``peers/picrew_append.mjs``; it speaks the
same protocol):

* ``attn``: :meth:`attn.filebox.RunMailbox.append`: the mailbox lock, one
  ``O_APPEND`` write of the whole line, fsync (unless ``fsync`` is false), a
  torn last line quarantined first.
* ``plain``: ``open(path, "a").write(line)`` per message, no lock (and, with
  ``fsync``, ``flush`` + ``os.fsync`` before the close).

The writer prints ``ready`` once it has imported what it needs. For each job
it prints ``set``, waits for a ``go`` line, appends ``count`` messages and
prints ``done``; for a ``crash`` job it forks a new writer process, which
prints ``ready <pid>`` and appends until it is killed (``count`` is a bound
it never reaches), and then prints ``ended <exit code>``. Message ``seq`` of
writer ``w`` has ``from`` = ``"w<w>"`` and a body starting ``"<seq> "``. When
``acks`` names a file, each message's id is appended to it once ``append``
has returned: that append is acknowledged.
"""

from __future__ import annotations

import json
import os
import random
import sys
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

Append = Callable[[str, str], str]

_PAD = "ab€é cd fé€ "


def padding(chars: int) -> str:
    """``chars`` characters of text with two- and three-byte UTF-8 characters in it."""
    return (_PAD * (chars // len(_PAD) + 1))[:chars]


def crash_body_chars(rng: random.Random) -> int:
    """A crash-loop body size: 30 % short, 20 % a few KB, half up to 65,000 characters
    (large lines make a kill during the ``write`` itself likely, so lines get torn)."""
    roll = rng.random()
    if roll < 0.3:
        return 80 + int(rng.random() * 320)
    if roll < 0.5:
        return 2000 + int(rng.random() * 6000)
    return 20000 + int(rng.random() * 45000)


def inbox_path(root: str, run_id: str) -> Path:
    """The inbox file every contender writes."""
    return Path(root) / run_id / "mailbox" / "inbox.jsonl"


def _attn(job: dict[str, Any]) -> Append:
    from attn.filebox import RunMailbox, RunPaths

    mailbox = RunMailbox(
        RunPaths(Path(job["root"]), job["run_id"]),
        lambda: datetime.now(UTC),
        fsync=bool(job["fsync"]),
    )

    def append(sender: str, body: str) -> str:
        return mailbox.append("inbox", sender=sender, to="worker", body=body).id

    return append


def _plain(job: dict[str, Any]) -> Append:
    path = inbox_path(job["root"], job["run_id"])
    path.parent.mkdir(parents=True, exist_ok=True)
    run_id, fsync = job["run_id"], bool(job["fsync"])

    def append(sender: str, body: str) -> str:
        record = {
            "id": f"fbm_{uuid.uuid4().hex}",
            "runId": run_id,
            "box": "inbox",
            "direction": "inbox",
            "kind": "message",
            "from": sender,
            "to": "worker",
            "body": body,
            "status": "queued",
            "priority": "normal",
            "createdAt": datetime.now(UTC).isoformat(timespec="microseconds"),
        }
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        with open(path, "a", encoding="utf-8") as out:
            out.write(line)
            if fsync:
                out.flush()
                os.fsync(out.fileno())
        return str(record["id"])

    return append


def _appender(job: dict[str, Any]) -> Append:
    return _attn(job) if job["role"] == "attn" else _plain(job)


def _run(job: dict[str, Any], go: Callable[[], None]) -> None:
    if job["mode"] == "crash":
        # A forked writer's first appends fault in its copy of the server's memory;
        # two appends to a scratch run first, so the kill meets it in its stride.
        warm = _appender({**job, "run_id": f"{job['run_id']}-warm-{os.getpid()}"})
        warm("warm", "up")
        warm("warm", padding(60_000))
    append = _appender(job)
    acks = os.open(job["acks"], os.O_WRONLY | os.O_APPEND | os.O_CREAT) if job["acks"] else None
    rng = random.Random(job["seed"])
    go()
    crash = job["mode"] == "crash"
    for seq in range(job["count"]):
        chars = crash_body_chars(rng) if crash else job["body_chars"]
        message_id = append(f"w{job['writer']}", f"{seq} {padding(chars)}")
        if acks is not None:
            os.write(acks, f"{message_id}\n".encode())
    if acks is not None:
        os.close(acks)


def _say(word: str) -> None:
    sys.stdout.write(f"{word}\n")
    sys.stdout.flush()


def _crash(job: dict[str, Any]) -> None:
    """Fork a writer that says ``ready <pid>`` and appends until it is killed; report
    how it ended (``ended <exit code>``, -9 for SIGKILL)."""
    pid = os.fork()
    if pid == 0:  # the new writer process: attn is imported already, so it starts at once
        try:
            _run(job, lambda: _say(f"ready {os.getpid()}"))
        finally:
            os._exit(70)  # never reached unless it failed: no exit handlers of the server
    _pid, status = os.waitpid(pid, 0)
    _say(f"ended {os.waitstatus_to_exitcode(status)}")


def main(argv: list[str]) -> None:
    """``serve ROLE``: ``ready``, then one job per line on stdin (until it closes)."""
    _command, role = argv
    if role == "attn":
        import attn.filebox  # noqa: F401  (imported before "ready": start-up is not timed)

    def wait_for_go() -> None:
        _say("set")
        sys.stdin.readline()

    _say("ready")
    for line in iter(sys.stdin.readline, ""):
        job = {**json.loads(line), "role": role}
        if job.get("crash"):
            _crash({**job, "mode": "crash"})
        else:
            _run({**job, "mode": "count"}, wait_for_go)
            _say("done")


if __name__ == "__main__":
    main(sys.argv[1:])
