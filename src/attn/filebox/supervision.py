"""The worker's side of a run, as the leader's process records it: the worker
started or exited, it is alive (heartbeat), it asked for a decision
(supervisor contact, FILE-10), it finished a task.

Spec: seed 003 ("Supervisor Contact"); FILE-10, FILE-11.
"""

from __future__ import annotations

from typing import Any

from attn.filebox.contact import Contact
from attn.filebox.manifest import (
    FINISHED,
    TaskStatus,
    changing,
    ensure_task,
    pid_alive,
    question_of,
    responses_of,
    task_of,
)
from attn.filebox.records import LEADER, FileboxMessage, iso
from attn.filebox.run import Run
from attn.ids import new_id


def worker_started(run: Run, task_id: str, pid: int, command: list[str]) -> list[FileboxMessage]:
    """Record the worker's start (the task is running) and deliver what was queued
    for it while it was down, oldest first (FILE-11). Returns what was delivered.

    A task that had finished (completed, failed, a lost worker's, cancelled) runs
    again as a new attempt: its ``attempt`` counts up and a ``task.restarted``
    event names the status it left, so the new worker's questions can be answered
    and mail can be queued for it (README: "start a worker in the same run to go
    on"). Starting a worker is the leader's own act, checked for ownership (FILE-08).
    """
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
        if task["status"] in FINISHED:
            previous = task["status"]
            attempt = task.get("attempt")
            attempt = attempt + 1 if isinstance(attempt, int) and attempt > 0 else 2
            task.update(status="running", attempt=attempt, updatedAt=at)
            task.pop("waitingSince", None)
            task.pop("question", None)
            run.record_event(
                "task.restarted",
                task_id,
                f"{previous} before; attempt {attempt}",
                {"previous": previous, "attempt": attempt},
            )
        elif task["status"] != "waiting":
            task.update(status="running", updatedAt=at)
        run.record_event("worker.started", task_id, " ".join(command)[:500], {"pid": pid})
        return run.flush_pending(manifest)


def worker_exited(run: Run, code: int | None, *, lost: bool = False) -> dict[str, Any]:
    """Record the worker's exit; its task completes (code 0) or fails, unless it
    finished or was cancelled already, and a question it left open is closed.
    ``lost``: nobody saw it exit (its supervisor stopped first). Returns the
    worker record."""
    at = iso(run.now())
    with changing(run.paths, fsync=run.fsync) as manifest:
        worker = manifest["worker"]
        worker.update(exitedAt=at, exitCode=code)
        if lost:
            worker["lost"] = True
        task_id = worker.get("taskId")
        if isinstance(task_id, str):
            task = ensure_task(manifest, task_id, at)
            if task["status"] not in FINISHED:
                task.update(status="completed" if code == 0 else "failed", updatedAt=at)
            run.withdraw(task_id, task, "the worker exited")
        text = "lost: its supervisor stopped before it" if lost else f"exit code {code}"
        run.record_event("worker.exited", task_id, text, {"exitCode": code, "lost": lost})
        return dict(worker)


def withdraw_question(run: Run, task_id: str, question_id: str) -> bool:
    """The worker stopped waiting for an answer (``ask`` timed out): the task runs
    again and a ``question.withdrawn`` event (reason ``timed out``) says so. False
    when the task no longer waits on that question (it was answered meanwhile)."""
    at = iso(run.now())
    with changing(run.paths, fsync=run.fsync) as manifest:
        task = task_of(manifest, task_id)
        if task is None or question_of(task).get("id") != question_id:
            return False
        run.withdraw(task_id, task, "timed out")
        if task["status"] == "waiting":
            task.update(status="running", updatedAt=at)
        return True


def lost_worker(run: Run) -> bool:
    """Whether the run records a worker that started, never exited, and whose
    process is gone: its supervisor died before it (a crash, a SIGKILL)."""
    worker = run.manifest()["worker"]
    return (
        bool(worker.get("startedAt"))
        and worker.get("exitedAt") is None
        and worker.get("pid") is not None
        and not pid_alive(worker.get("pid"))
    )


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
    recorded (FILE-10). A contact for a finished task writes only a
    ``contact.dropped`` event naming its question (the asker's ``ask`` ends). A
    task waits on one question at a time: a new one withdraws the open one
    (``question.withdrawn``, reason ``replaced by a newer question``).

    Returns:
        ``(question, message)``; ``message`` is None when this question id was
        recorded before (nothing is written twice).
    """
    at = iso(run.now())
    with changing(run.paths, fsync=run.fsync) as manifest:
        task = ensure_task(manifest, task_id, at, "running")
        qid = contact.question_id or new_id("q")
        asked = question_of(task)
        if asked.get("id") == qid or qid in responses_of(task):
            return dict(asked) or {"id": qid}, None
        question = {"id": qid, **contact.to_dict(), "askedAt": at}
        if task["status"] in FINISHED:  # nobody can answer it: the asker must not wait
            run.record_event(
                "contact.dropped",
                task_id,
                contact.text[:200],
                {
                    "questionId": qid,
                    "contactType": contact.kind,
                    "dropped": 1,
                    "reason": f"task {task_id} is {task['status']}: nobody can answer it",
                },
            )
            return question, None
        if asked.get("id"):  # one open question a task: the newer one replaces it
            run.withdraw(task_id, task, "replaced by a newer question")
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


__all__ = [
    "heartbeat",
    "lost_worker",
    "record_contact",
    "set_task_status",
    "withdraw_question",
    "worker_exited",
    "worker_started",
]
