"""One run and the leader's verbs: respond, steer, follow-up, nudge, send, cancel.

Spec: seed 003 ("Core Operations", "Queue Depth and Backpressure", "Run
Ownership Enforcement"); FILE-06..08, FILE-11.

Every verb checks its input first, then takes the run lock, re-reads the
manifest, checks ownership and the task's status, and only then writes, so a
refused call writes nothing. Events go to ``events.jsonl`` (seed names:
``task.responded``, ``agent.nudged``, ``supervisor.contact``, …) and to
``on_event``, which the service forwards to the runtime's bus.
"""

from __future__ import annotations

from typing import Any

from attn.echo import shown
from attn.errors import InvalidInput, TaskNotWaiting
from attn.filebox.manifest import (
    CORRUPT,
    FINISHED,
    changing,
    question_of,
    repair_manifest,
    responses_of,
    task_of,
)
from attn.filebox.paths import check_part
from attn.filebox.pending import Queue, load_pending, push, save_pending
from attn.filebox.records import (
    PRIORITIES,
    FileboxMessage,
    Priority,
    check_body,
    check_choice,
    check_data,
    iso,
)
from attn.filebox.run_files import NUDGE_TEXT, Outcome, RunFiles, check_force
from attn.ids import new_id
from attn.limits import check_id


class Run(RunFiles):
    """One run under the run root, with the leader's verbs (arguments as :class:`RunFiles`)."""

    def respond(
        self,
        task_id: str,
        body: str,
        *,
        question_id: str | None = None,
        session: str | None = None,
        force: bool = False,
        priority: Priority = "normal",
        data: dict[str, Any] | None = None,
    ) -> Outcome:
        """Answer a waiting task (FILE-06): one inbox message of kind ``response``
        carrying ``data.questionId``; the task goes back to running.

        A second respond to the same question id changes nothing and returns the
        first response (``duplicate``).

        Raises:
            InvalidInput, UnsafePath: bad arguments. RunNotFound. RunOwned (FILE-08).
            TaskNotWaiting: the task is not waiting (its status named).
        """
        check_part(task_id, "task id")
        body, data = _checked(body, data, priority, force)
        with changing(self.paths, fsync=self.fsync) as manifest:
            self._authorize(manifest, session, force)
            task = task_of(manifest, task_id) or self._open_task(manifest, task_id)
            status = task["status"]
            asked = question_of(task)
            qid: str | None = question_id or asked.get("id")
            earlier = self._response_to(task_id, qid) if qid else None
            if earlier is not None:
                if task is not None and task["status"] == "waiting" and asked.get("id") == qid:
                    self._back_to_running(task)
                return Outcome(earlier, duplicate=True)
            if task is None or status != "waiting":
                raise TaskNotWaiting(
                    f"task {shown(task_id)} of run {shown(self.id)} is {status}, not waiting: "
                    "respond answers only a waiting task",
                    status=status,
                )
            if question_id is not None and question_id != asked.get("id"):
                raise TaskNotWaiting(
                    f"task {shown(task_id)} is waiting on question {shown(asked.get('id'))}, "
                    f"not {shown(question_id)}",
                    status=status,
                )
            options = asked.get("options") or []
            if asked.get("kind") == "need_selection" and options and body.strip() not in options:
                raise InvalidInput(
                    f"task {shown(task_id)} asked to choose one of "
                    f"{', '.join(map(shown, options))}; got {shown(body)}"
                )
            qid = qid or new_id("q")  # a task set waiting without a question
            message = self.append_to_task(
                "inbox", task_id, body, "response", priority, {**data, "questionId": qid}
            )
            responses_of(task)[qid] = message.id
            self.close_contact(qid)
            self._back_to_running(task)
            self.record_event(
                "task.responded", task_id, body, {"questionId": qid, "mailboxMessageId": message.id}
            )
            self.flush_pending(manifest)
        return Outcome(message)

    def steer(self, task_id: str, body: str, **options: Any) -> Outcome:
        """Steer a task (FILE-07): straight to the steering file when its worker is
        alive and the task running, else into the bounded pending queue."""
        return self._live("steer", task_id, body, **options)

    def follow_up(self, task_id: str, body: str, **options: Any) -> Outcome:
        """A non-blocking follow-up (FILE-07): to the inbox when the worker can take
        it, else into the bounded pending queue. Returns at once either way."""
        return self._live("follow_up", task_id, body, **options)

    def nudge(
        self,
        task_id: str,
        body: str | None = None,
        *,
        session: str | None = None,
        force: bool = False,
    ) -> Outcome:
        """Ask a task for its status (FILE-07): a steering message (the seed's text
        when ``body`` is None) and an ``agent.nudged`` event."""
        check_part(task_id, "task id")
        text = NUDGE_TEXT if body is None else check_body(body)
        check_force(force)
        with changing(self.paths, fsync=self.fsync) as manifest:
            self._authorize(manifest, session, force)
            self._open_task(manifest, task_id)
            message = self.append(
                "steering", task_id, text, "nudge", "normal", {"source": "nudge-agent"}
            )
            self.record_event("agent.nudged", task_id, text, {"mailboxMessageId": message.id})
            # In the steering file either way; with no worker to read it now it waits there.
            return Outcome(message, queued=not self.worker_alive(manifest))

    def send(
        self,
        to: str,
        body: str,
        *,
        session: str | None = None,
        force: bool = False,
        priority: Priority = "normal",
        data: dict[str, Any] | None = None,
        own_mailbox: bool = False,
    ) -> Outcome:
        """A plain message to a task (or ``"*"``, every task): the run's inbox, or
        the task's own inbox with ``own_mailbox``."""
        if to != "*":
            check_part(to, "task id")
        body, data = _checked(body, data, priority, force)
        with changing(self.paths, fsync=self.fsync) as manifest:
            self._authorize(manifest, session, force)
            if to != "*":
                self._open_task(manifest, to)
            if own_mailbox and to != "*":
                message = self.append_to_task("inbox", to, body, "message", priority, data)
            else:
                message = self.append("inbox", to, body, "message", priority, data)
        return Outcome(message)

    def cancel(
        self,
        task_id: str,
        *,
        reason: str | None = None,
        session: str | None = None,
        force: bool = False,
    ) -> dict[str, Any]:
        """Cancel a task that has not finished; its pending steers and follow-ups go too,
        and the question it waits on is withdrawn (``question.withdrawn``, reason
        ``cancelled``: its notification is read, its contact acknowledged, and the
        worker's ``ask`` ends). Cancelling a finished task changes nothing. Returns the task."""
        check_part(task_id, "task id")
        check_force(force)
        with changing(self.paths, fsync=self.fsync) as manifest:
            self._authorize(manifest, session, force)
            task = task_of(manifest, task_id) or self._open_task(manifest, task_id)
            if task["status"] in FINISHED:
                return dict(task)
            task.update(status="cancelled", updatedAt=iso(self.now()))
            self.withdraw(task_id, task, "cancelled")
            queues = load_pending(self.paths)
            for name in queues:
                queues[name] = [e for e in queues[name] if e.get("taskId") != task_id]
            save_pending(self.paths, queues, fsync=self.fsync)
            self.record_event("task.cancelled", task_id, reason or "", {})
            return dict(task)

    def _live(
        self,
        queue: Queue,
        task_id: str,
        body: str,
        *,
        session: str | None = None,
        force: bool = False,
        priority: Priority = "normal",
        data: dict[str, Any] | None = None,
    ) -> Outcome:
        check_part(task_id, "task id")
        body, data = _checked(body, data, priority, force)
        with changing(self.paths, fsync=self.fsync) as manifest:
            self._authorize(manifest, session, force)
            task = self._open_task(manifest, task_id)
            if self.worker_alive(manifest) and task is not None and task["status"] == "running":
                message = self._deliver(queue, task_id, body, priority, data)
                self.record_event(
                    f"{queue}.delivered", task_id, body, {"mailboxMessageId": message.id}
                )
                return Outcome(message)
            entry = {
                "id": new_id("fbm"),
                "taskId": task_id,
                "body": body,
                "priority": priority,
                "data": data,
                "queuedAt": iso(self.now()),
            }
            queues = load_pending(self.paths)
            dropped = push(queues[queue], entry, self.limits)
            save_pending(self.paths, queues, fsync=self.fsync)
            self.record_event(
                f"{queue}.queued",
                task_id,
                body,
                {"pendingId": entry["id"], "pending": len(queues[queue])},
            )
            for old in dropped:
                self.record_event(
                    f"{queue}.dropped",
                    old.get("taskId"),
                    old.get("body", ""),
                    {
                        "pendingId": old.get("id"),
                        "reason": f"more than {self.limits.max_pending} waiting: "
                        "the oldest is dropped",
                    },
                )
            return Outcome(None, queued=True, dropped=dropped)

    def acknowledge(self, message_id: str) -> FileboxMessage:
        """Mark a message acknowledged (operator or worker state; history is kept).

        Raises:
            InvalidInput: not a string id. FileboxMessageNotFound.
        """
        check_id(message_id, "message id")
        before = self.mailbox.get(message_id)
        message = self.mailbox.acknowledge(message_id)
        if message.status != before.status:
            self.emit_status([message])
        return message

    def mark_delivered(self, message_ids: list[str]) -> list[FileboxMessage]:
        """Mark messages delivered (read); the ones that changed.

        Raises:
            InvalidInput: not a list of string ids (at most 1,000). FileboxMessageNotFound.
        """
        if not isinstance(message_ids, list) or len(message_ids) > 1000:
            raise InvalidInput("ids must be a list of at most 1,000 message ids")
        for mid in message_ids:
            check_id(mid, "message id")
        changed = self.mailbox.set_status(message_ids, "delivered")
        if changed:
            self.emit_status(changed)
        return changed

    def validate(self, *, repair: bool = False) -> dict[str, Any]:
        """The mailbox's validation report (FILE-05) and whether ``run.json`` is
        corrupt (``manifestCorrupt``); ``repair`` also moves a corrupt ``run.json``
        aside and rebuilds it from the run's events (owner and leader included)."""
        report = self.mailbox.validate(repair=repair).to_dict()
        corrupt = bool(self.manifest().get(CORRUPT))
        if repair and corrupt:
            aside = repair_manifest(self.paths, iso(self.now()), fsync=self.fsync)
            if aside is not None:
                report["repaired"].append(str(self.paths.manifest))
                self.record_event("run.repaired", None, aside, {"movedAside": aside})
            corrupt = bool(self.manifest().get(CORRUPT))
        report["manifestCorrupt"] = corrupt
        report["ok"] = report["ok"] and not corrupt
        return report

    def replay(self, task_id: str | None = None) -> list[FileboxMessage]:
        """Every unacknowledged inbox message (of ``task_id``, or all), oldest first,
        now marked delivered (FILE-12)."""
        if task_id is not None:
            check_part(task_id, "task id")
        before = {m.id: m.status for m in self.mailbox.inbox_for(task_id)}
        messages = self.mailbox.replay(task_id)
        changed = [m for m in messages if before.get(m.id) != m.status]
        if changed:
            self.emit_status(changed)
        return messages


def _checked(
    body: object, data: object, priority: object, force: object
) -> tuple[str, dict[str, Any]]:
    """A verb's common arguments, checked before anything is read or written.

    Raises:
        InvalidInput: a bad body, data, priority or ``force``.
    """
    check_choice(priority, "priority", PRIORITIES)
    check_force(force)
    return check_body(body), check_data(data)


__all__ = ["NUDGE_TEXT", "Outcome", "Run", "check_force"]
