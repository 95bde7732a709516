"""The worker's side of a run, as the leader's process records it: the worker
started or exited, it is alive (heartbeat), it asked for a decision
(supervisor contact, FILE-10), it finished a task.

Spec: seed 003 ("Supervisor Contact"); FILE-10, FILE-11.
"""

from __future__ import annotations

from typing import Any

from attn.filebox.contact import Contact
from attn.filebox.manifest import FINISHED, TaskStatus, changing, ensure_task
from attn.filebox.records import LEADER, FileboxMessage, iso
from attn.filebox.run import Run
from attn.ids import new_id


def worker_started(run: Run, task_id: str, pid: int, command: list[str]) -> list[FileboxMessage]:
    """Record the worker's start (the task is running) and deliver what was queued
    for it while it was down, oldest first (FILE-11). Returns what was delivered."""
    at = iso(run.now())
    with changing(run.paths, fsync=run.fsync) as manifest:
        manifest["worker"] = {
            "pid": pid,
            "taskId": task_id,
            "command": command,
            "startedAt": at,
            "lastSeenAt": at,
            "exitedAt": None,
            "exitCode": None,
        }
        task = ensure_task(manifest, task_id, at, "running")
        if task["status"] not in FINISHED and task["status"] != "waiting":
            task.update(status="running", updatedAt=at)
        run.record_event("worker.started", task_id, " ".join(command)[:500], {"pid": pid})
        return run.flush_pending(manifest)


def worker_exited(run: Run, code: int | None) -> dict[str, Any]:
    """Record the worker's exit; its task completes (code 0) or fails, unless it
    finished or was cancelled already. Returns the worker record."""
    at = iso(run.now())
    with changing(run.paths, fsync=run.fsync) as manifest:
        worker = manifest["worker"]
        worker.update(exitedAt=at, exitCode=code)
        task_id = worker.get("taskId")
        if isinstance(task_id, str):
            task = ensure_task(manifest, task_id, at)
            if task["status"] not in FINISHED:
                task.update(status="completed" if code == 0 else "failed", updatedAt=at)
                task.pop("waitingSince", None)
        run.record_event("worker.exited", task_id, f"exit code {code}", {"exitCode": code})
        return dict(worker)


def heartbeat(run: Run) -> str:
    """The worker is alive: stamp ``lastSeenAt``. Returns the time."""
    at = iso(run.now())
    with changing(run.paths, fsync=False) as manifest:
        manifest["worker"]["lastSeenAt"] = at
    return at


def set_task_status(run: Run, task_id: str, status: TaskStatus) -> dict[str, Any]:
    """Set a task's status (a worker reporting it done, say); finished tasks stay finished."""
    at = iso(run.now())
    with changing(run.paths, fsync=run.fsync) as manifest:
        task = ensure_task(manifest, task_id, at, status)
        if task["status"] not in FINISHED:
            task.update(status=status, updatedAt=at)
        return dict(task)


def record_contact(
    run: Run, task_id: str, contact: Contact
) -> tuple[dict[str, Any], FileboxMessage | None]:
    """A worker asked for a decision: the task waits on the question, the outbox
    holds it as a ``contact`` message, and a ``supervisor.contact`` event is
    recorded (FILE-10).

    Returns:
        ``(question, message)``; ``message`` is None when this question id was
        recorded before (nothing is written twice).
    """
    at = iso(run.now())
    with changing(run.paths, fsync=run.fsync) as manifest:
        task = ensure_task(manifest, task_id, at, "running")
        qid = contact.question_id or new_id("q")
        asked = task.get("question") or {}
        if asked.get("id") == qid or qid in task.get("responses", {}):
            return dict(asked) or {"id": qid}, None
        question = {"id": qid, **contact.to_dict(), "askedAt": at}
        message = run.mailbox.append(
            "outbox",
            sender=task_id,
            to=LEADER,
            body=contact.text,
            kind="contact",
            priority="high",
            task_id=None,
            data={
                "questionId": qid,
                "contactType": contact.kind,
                "options": list(contact.options),
                **contact.data,
            },
        )
        if task["status"] not in FINISHED:
            task.update(status="waiting", waitingSince=at, question=question, updatedAt=at)
        run.record_event(
            "supervisor.contact",
            task_id,
            contact.text,
            {
                "contactType": contact.kind,
                "questionId": qid,
                "options": list(contact.options),
                "mailboxMessageId": message.id,
            },
        )
        run.emit_message(message)
        return question, message


__all__ = ["heartbeat", "record_contact", "set_task_status", "worker_exited", "worker_started"]
