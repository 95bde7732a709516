"""``run.json``: who owns a run, its tasks and their statuses, its worker.

Shape::

    {"runId": "r1", "createdAt": "…", "ownerSessionId": "agent:lead" | null,
     "leader": "lead" | null, "command": ["./build.sh"] | null,
     "tasks": {"build": {"status": "waiting", "waitingSince": "…",
                         "question": {"id": "q_…", "kind": "need_confirmation",
                                      "text": "…", "options": [], "askedAt": "…"},
                         "responses": {"q_…": "fbm_…"}, "updatedAt": "…"}},
     "worker": {"pid": 123, "startedAt": "…", "exitedAt": null, "exitCode": null,
                "lastSeenAt": "…"}}

Every change re-reads the file inside the run lock and writes it back by an
atomic rename (seed 003: "Mutating mailbox actions must use run locks and
re-read state inside the lock").
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

from attn.echo import shown
from attn.errors import RunCorrupt, RunNotFound
from attn.filebox.jsonl import folder_lock, nan_as_null, read_regular, rewrite_atomically
from attn.filebox.paths import RunPaths
from attn.jsontext import dumps

log = logging.getLogger("attn.filebox")

TaskStatus = Literal["queued", "running", "waiting", "completed", "failed", "cancelled"]
TASK_STATUSES: tuple[TaskStatus, ...] = (
    "queued",
    "running",
    "waiting",
    "completed",
    "failed",
    "cancelled",
)
#: The key a corrupt ``run.json`` reads with: why it could not be read.
CORRUPT = "corrupt"
#: Statuses no verb moves a task out of; only a new worker started on it does (a new attempt).
FINISHED: frozenset[str] = frozenset({"completed", "failed", "cancelled"})


def load_manifest(paths: RunPaths) -> dict[str, Any]:
    """The run's ``run.json``.

    Raises:
        RunNotFound: no run folder, or no ``run.json`` in it.
        UnsafePath: a symbolic link on the way.
    """
    path = paths.check(paths.manifest)
    try:
        raw = json.loads(read_regular(path).decode("utf-8"), parse_constant=nan_as_null)
    except FileNotFoundError:
        raise RunNotFound(f"no run {shown(paths.run_id)} under {shown(str(paths.root))}") from None
    except (ValueError, RecursionError) as error:
        log.error(
            "%s is corrupt (%s): the run reads as having no tasks, and nothing changes it "
            "until `attn filebox validate %s --repair`",
            path,
            error,
            paths.run_id,
        )
        raw = {CORRUPT: f"run.json does not parse: {str(error)[:200]}"}
    if not isinstance(raw, dict):
        raw = {CORRUPT: "run.json is not a JSON object"}
    owner = raw.get("ownerSessionId")
    if owner is not None and not (isinstance(owner, str) and owner) and CORRUPT not in raw:
        # A hand-edited owner of 5 or "" is unreadable, not "no owner" (FILE-08).
        raw[CORRUPT] = f"run.json's ownerSessionId is not a session's name ({owner!r:.40})"
    raw["runId"] = paths.run_id  # the folder names the run, whatever the file says
    if not isinstance(raw.get("tasks"), dict):
        raw["tasks"] = {}
    if not isinstance(raw.get("worker"), dict):
        raw["worker"] = {}
    return raw


def check_readable(manifest: dict[str, Any], run_id: str) -> None:
    """Refuse to change a run whose ``run.json`` did not parse: its owner is unknown.

    Raises:
        RunCorrupt: ``manifest`` was read from a corrupt file.
    """
    if manifest.get(CORRUPT):
        raise RunCorrupt(
            f"run {shown(run_id)} cannot be changed: {manifest[CORRUPT]}, so its owner is "
            f"unknown. Repair it with `attn filebox validate {run_id} --repair` (the file is "
            "moved aside and rebuilt from the run's events)"
        )


def repair_manifest(paths: RunPaths, at: str, *, fsync: bool = True) -> str | None:
    """Move a corrupt ``run.json`` aside (``run.json.corrupt-<time>``) and write one
    rebuilt from ``events.jsonl``: the owner, leader and creation time of its
    ``run.created`` event, each task named by an event with the status its last
    event implies. The path moved aside, or None when the file was readable."""
    with folder_lock(paths.run_lock):
        if not load_manifest(paths).get(CORRUPT):
            return None
        aside = paths.manifest.with_name(f"run.json.corrupt-{at.replace(':', '')}")
        os.replace(paths.manifest, aside)
        rebuilt = _from_events(paths, at)
        rewrite_atomically(paths.manifest, [dumps(rebuilt).encode() + b"\n"], fsync=fsync)
        log.error("%s was corrupt: moved aside to %s and rebuilt", paths.manifest, aside.name)
        return str(aside)


#: The status a task has after each kind of event (worker.exited: by its exit code).
_STATUS_AFTER = {
    "worker.started": "running",
    "task.restarted": "running",
    "task.responded": "running",
    "question.withdrawn": "running",
    "task.cancelled": "cancelled",
}


def _from_events(paths: RunPaths, at: str) -> dict[str, Any]:
    manifest: dict[str, Any] = {"runId": paths.run_id, "createdAt": at, "ownerSessionId": None}
    manifest.update(leader=None, tasks={}, worker={}, repairedAt=at)
    try:
        lines = read_regular(paths.check(paths.events)).split(b"\n")
    except FileNotFoundError:
        lines = []
    for line in lines:
        try:
            event = json.loads(line, parse_constant=nan_as_null)
        except (ValueError, RecursionError):
            continue
        if not isinstance(event, dict) or not isinstance(event.get("data"), dict):
            continue
        kind, data, task_id = event.get("type"), event["data"], event.get("taskId")
        if kind == "run.created":
            manifest.update(ownerSessionId=data.get("owner"), leader=data.get("leader"))
            manifest["createdAt"] = event.get("at", at)
            for named in data.get("tasks") or []:
                if isinstance(named, str) and named:
                    manifest["tasks"].setdefault(named, {"status": "queued", "updatedAt": at})
        if not isinstance(task_id, str) or not task_id:
            continue
        task = manifest["tasks"].setdefault(task_id, {"status": "queued", "updatedAt": at})
        if kind == "worker.exited":
            task["status"] = "completed" if data.get("exitCode") == 0 else "failed"
        elif kind in _STATUS_AFTER:
            task["status"] = _STATUS_AFTER[str(kind)]
    return manifest


def create_manifest(paths: RunPaths, manifest: dict[str, Any], *, fsync: bool = True) -> bool:
    """Write ``run.json`` for a new run; False (nothing written) when the run exists."""
    paths.ensure()
    with folder_lock(paths.run_lock):
        if paths.check(paths.manifest).exists():
            return False
        rewrite_atomically(paths.manifest, [dumps(manifest).encode() + b"\n"], fsync=fsync)
        return True


@contextmanager
def changing(paths: RunPaths, *, fsync: bool = True) -> Iterator[dict[str, Any]]:
    """Hold the run lock, yield the manifest as it is now, write it back if the
    block ends without an exception (an exception writes nothing).

    Raises:
        RunNotFound: no such run. RunCorrupt: ``run.json`` does not parse.
    """
    if not paths.exists():
        raise RunNotFound(f"no run {shown(paths.run_id)} under {shown(str(paths.root))}")
    with folder_lock(paths.run_lock):
        manifest = load_manifest(paths)
        check_readable(manifest, paths.run_id)
        before = dumps(manifest)
        yield manifest
        if dumps(manifest) != before:
            rewrite_atomically(paths.manifest, [dumps(manifest).encode() + b"\n"], fsync=fsync)


def task_of(manifest: dict[str, Any], task_id: str) -> dict[str, Any] | None:
    """The task's entry; None when missing or not an object with a known status
    (a hand-edited ``run.json``): such an entry is no task, and a new one replaces it."""
    task = manifest["tasks"].get(task_id)
    if not isinstance(task, dict) or task.get("status") not in TASK_STATUSES:
        return None
    return task


def question_of(task: dict[str, Any]) -> dict[str, Any]:
    """The question a task waits on, or {} (none, or not an object)."""
    question = task.get("question")
    return question if isinstance(question, dict) else {}


def responses_of(task: dict[str, Any]) -> dict[str, Any]:
    """The task's ``responses`` (question id -> message id), made an object if it was not."""
    responses = task.get("responses")
    if not isinstance(responses, dict):
        responses = task["responses"] = {}
    return responses


def ensure_task(
    manifest: dict[str, Any], task_id: str, at: str, status: TaskStatus = "queued"
) -> dict[str, Any]:
    """The task's entry, created with ``status`` when missing."""
    task = task_of(manifest, task_id)
    if task is None:
        task = manifest["tasks"][task_id] = {"status": status, "createdAt": at, "updatedAt": at}
    return task


def owner_of(manifest: dict[str, Any]) -> str | None:
    owner = manifest.get("ownerSessionId")
    return owner if isinstance(owner, str) and owner else None


def pid_alive(pid: object) -> bool:
    """Whether a process with that id exists (the worker may be ours or not)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or not 0 < pid < 2**31:
        return False  # true is not process 1, and 10**20 is no process at all
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


__all__ = [
    "CORRUPT",
    "FINISHED",
    "TASK_STATUSES",
    "TaskStatus",
    "changing",
    "check_readable",
    "create_manifest",
    "ensure_task",
    "load_manifest",
    "owner_of",
    "pid_alive",
    "question_of",
    "repair_manifest",
    "responses_of",
    "task_of",
]
