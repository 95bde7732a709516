"""A run's files and the writes every verb shares: append, record an event, deliver
queued steers and follow-ups, check ownership.

Spec: seed 003 ("Core Operations", "Supervisor Contact", "Queue Depth and
Backpressure", "Run Ownership Enforcement"); FILE-06..08, FILE-11.

Every verb checks its input first, then takes the run lock, re-reads the
manifest, checks ownership and the task's status, and only then writes, so a
refused call writes nothing. Events go to ``events.jsonl`` (seed names:
``task.responded``, ``agent.nudged``, ``supervisor.contact``, …) and to
``on_event``, which the service forwards to the runtime's bus.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from attn.echo import shown
from attn.errors import InvalidInput, RunOwned, TaskFinished, TaskNotFound
from attn.filebox.jsonl import TailReader, append_line, encode_line
from attn.filebox.mailbox import RunMailbox
from attn.filebox.manifest import (
    FINISHED,
    check_readable,
    load_manifest,
    owner_of,
    pid_alive,
    question_of,
    task_of,
)
from attn.filebox.paths import RunPaths
from attn.filebox.pending import Limits, Queue, counts, load_pending, save_pending
from attn.filebox.records import (
    LEADER,
    FileboxMessage,
    Priority,
    iso,
)
from attn.ids import new_id

#: How long a heartbeat keeps a worker nobody supervises alive (seconds).
HEARTBEAT_FRESH_S = 60.0
#: What a nudge says when the leader gives no text (seed 003).
NUDGE_TEXT = "Please report your current status, blocker, or smallest next step."

EventSink = Callable[[str, dict[str, Any]], None]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a verb did: the message written (or found), whether it was queued
    instead of delivered, whether it changed nothing, and entries dropped at the cap."""

    message: FileboxMessage | None
    queued: bool = False
    duplicate: bool = False
    dropped: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message.to_dict() if self.message else None,
            "queued": self.queued,
            "duplicate": self.duplicate,
            "dropped": self.dropped,
        }


def check_force(value: object) -> bool:
    """``force`` must be the literal boolean true or false (FILE-08).

    Raises:
        InvalidInput: anything else (``"true"``, 1, None): nothing is forced.
    """
    if value is not True and value is not False:
        raise InvalidInput(f"force must be the literal boolean true or false, got {shown(value)}")
    return value


class RunFiles:
    """A run's files and the writes the verbs share (:class:`~attn.filebox.run.Run` adds the verbs).

    Args:
        paths: where its files are.
        now: the time source.
        fsync: fsync every write (default True).
        limits: the pending queues' bounds.
        on_event: called with ``(name, payload)`` after each change: ``"event"``
            (``{"event"}``), ``"message"`` (``{"message"}``), ``"status"`` (``{"messages"}``).
    """

    def __init__(
        self,
        paths: RunPaths,
        now: Callable[[], datetime],
        *,
        fsync: bool = True,
        limits: Limits | None = None,
        on_event: EventSink | None = None,
    ) -> None:
        self.paths = paths
        self.now = now
        self.fsync = fsync
        self.limits = limits or Limits()
        self.mailbox = RunMailbox(paths, now, fsync=fsync)
        self._on_event = on_event
        self._events = TailReader(paths.events)
        #: Status of each message already reported to ``on_event`` (what a watcher skips).
        self.seen: dict[str, str] = {}
        #: Ids of the events this process recorded (a watcher reports only the others').
        self.seen_events: set[str] = set()

    @property
    def id(self) -> str:
        return self.paths.run_id

    def manifest(self) -> dict[str, Any]:
        """``run.json`` as it is now. Raises RunNotFound."""
        return load_manifest(self.paths)

    def view(self) -> dict[str, Any]:
        """The run for people and the API: manifest, counts per box and status,
        pending queues with the backpressure warning, whether the worker is alive."""
        manifest = self.manifest()
        messages = self.mailbox.everything()
        per_box: dict[str, dict[str, int]] = {}
        for message in messages:
            box = per_box.setdefault(message.box, {"queued": 0, "delivered": 0, "acknowledged": 0})
            box[message.status] += 1
        return {
            **manifest,
            "counts": per_box,
            "pending": counts(load_pending(self.paths), self.limits),
            "workerAlive": self.worker_alive(manifest),
        }

    def events(self, after: int = 0, limit: int = 200) -> list[dict[str, Any]]:
        """Events after index ``after`` (0: all), at most ``limit``, each with its ``index``."""
        records, _problems, _torn = self._events.read()
        return [{**e, "index": after + i + 1} for i, e in enumerate(records[after : after + limit])]

    def worker_alive(self, manifest: dict[str, Any] | None = None) -> bool:
        """Whether the run's worker can take messages now: its process (started by
        a supervisor) runs, or, for a worker nobody supervises (no pid), it sent a
        heartbeat in the last :data:`HEARTBEAT_FRESH_S` seconds."""
        worker = (manifest or self.manifest())["worker"]
        if worker.get("exitedAt") is not None:
            return False
        if worker.get("pid") is not None:
            return bool(worker.get("startedAt")) and pid_alive(worker.get("pid"))
        seen = worker.get("lastSeenAt")
        if not isinstance(seen, str):
            return False
        try:
            age = (self.now() - datetime.fromisoformat(seen)).total_seconds()
        except (ValueError, TypeError):  # not a time, or one without its zone
            return False
        return abs(age) <= HEARTBEAT_FRESH_S  # either side: two processes, two clocks

    def _open_task(self, manifest: dict[str, Any], task_id: str) -> dict[str, Any]:
        """The task, which must exist and not have finished.

        Raises:
            TaskNotFound: no such task. TaskFinished: it completed, failed or was cancelled.
        """
        task = task_of(manifest, task_id)
        if task is None:
            known = ", ".join(sorted(manifest["tasks"])[:20]) or "none yet"
            raise TaskNotFound(
                f"run {shown(self.id)} has no task {shown(task_id)} (tasks: {known})"
            )
        if task["status"] in FINISHED:
            raise TaskFinished(
                f"task {shown(task_id)} of run {shown(self.id)} is {task['status']}: "
                "it takes no more messages",
                status=task["status"],
            )
        return task

    def authorize(self, session: str | None, force: bool) -> None:
        """Refuse ``session`` unless it owns the run or ``force`` is True (FILE-08).

        Raises:
            RunOwned: another session owns the run. RunCorrupt: its owner cannot be read.
        """
        self._authorize(self.manifest(), session, force)

    def _authorize(self, manifest: dict[str, Any], session: str | None, force: bool) -> None:
        check_readable(manifest, self.id)  # an owner that cannot be read is not "no owner"
        owner = owner_of(manifest)
        if owner is not None and session != owner and force is not True:
            raise RunOwned(
                f"run {shown(self.id)} is owned by session {shown(owner)}; cannot change it "
                f"from {'session ' + shown(session) if session else 'no session'}. "
                "Pass force=true to override.",
                owner=owner,
            )

    def _deliver(
        self,
        queue: Queue,
        task_id: str,
        body: str,
        priority: Priority,
        data: dict[str, Any],
        message_id: str | None = None,
        created_at: str | None = None,
    ) -> FileboxMessage:
        box = "steering" if queue == "steer" else "inbox"
        return self.append(box, task_id, body, queue, priority, data, message_id, created_at)

    def flush_pending(self, manifest: dict[str, Any]) -> list[FileboxMessage]:
        """Deliver queued steers and follow-ups of running tasks, oldest first (FILE-11)."""
        if not self.worker_alive(manifest):
            return []
        queues = load_pending(self.paths)
        delivered: list[FileboxMessage] = []
        for queue in ("steer", "follow_up"):
            keep = []
            for entry in queues[queue]:
                task = task_of(manifest, str(entry.get("taskId")))
                if task is None or task["status"] != "running":
                    keep.append(entry)
                    continue
                delivered.append(
                    self._deliver(
                        queue,
                        entry["taskId"],
                        entry["body"],
                        entry.get("priority", "normal"),
                        entry.get("data") or {},
                        entry.get("id"),
                        entry.get("queuedAt") if isinstance(entry.get("queuedAt"), str) else None,
                    )
                )
            queues[queue] = keep
        if delivered:
            save_pending(self.paths, queues, fsync=self.fsync)
        return delivered

    def _back_to_running(self, task: dict[str, Any]) -> None:
        task.update(status="running", updatedAt=iso(self.now()))
        task.pop("waitingSince", None)
        task.pop("question", None)

    def withdraw(self, task_id: str, task: dict[str, Any], reason: str) -> str | None:
        """Nobody will answer the question ``task`` waits on (the caller holds the run
        lock and writes the manifest): it leaves the task, its contact message is
        acknowledged and a ``question.withdrawn`` event names it and ``reason`` (the
        service reads its notification; the worker's ``ask`` ends). The question's
        id, or None when the task waited on none."""
        qid = question_of(task).get("id")
        task.pop("question", None)
        task.pop("waitingSince", None)
        if not isinstance(qid, str):
            return None
        self.close_contact(qid)
        self.record_event(
            "question.withdrawn", task_id, reason, {"questionId": qid, "reason": reason}
        )
        return qid

    def close_contact(self, question_id: str) -> None:
        """The contact message of a question answered or withdrawn is acknowledged."""
        asked = [
            m.id
            for m in self.mailbox.messages("outbox")
            if m.kind == "contact" and m.data.get("questionId") == question_id
        ]
        changed = self.mailbox.set_status(asked, "acknowledged")
        if changed:
            self.emit_status(changed)

    def _response_to(self, task_id: str, question_id: str) -> FileboxMessage | None:
        for message in self.mailbox.inbox_for(task_id):
            if message.kind == "response" and message.data.get("questionId") == question_id:
                return message
        return None

    def append(
        self,
        box: Any,
        to: str,
        body: str,
        kind: Any,
        priority: Priority,
        data: dict[str, Any],
        message_id: str | None = None,
        created_at: str | None = None,
        *,
        own_mailbox: bool = False,
    ) -> FileboxMessage:
        """Write one message to or from task ``to`` (the leader is the other end) and
        tell ``on_event``; in the task's own mailbox with ``own_mailbox``."""
        sender, target = (to, LEADER) if box == "outbox" else (LEADER, to)
        message = self.mailbox.append(
            box,
            sender=sender,
            to=target,
            body=body,
            kind=kind,
            priority=priority,
            data=data,
            message_id=message_id,
            task_id=to if own_mailbox else None,
            created_at=created_at,
        )
        self._emit("message", {"message": message.to_dict()})
        return message

    def append_to_task(
        self, box: Any, task_id: str, body: str, kind: Any, priority: Priority, data: dict[str, Any]
    ) -> FileboxMessage:
        """:meth:`append` into the task's own mailbox (``mailbox/tasks/<task id>/``)."""
        return self.append(box, task_id, body, kind, priority, data, own_mailbox=True)

    def emit_message(self, message: FileboxMessage) -> None:
        """Tell ``on_event`` about a message written outside :meth:`append`."""
        self._emit("message", {"message": message.to_dict()})

    def events_since(self, count: int) -> tuple[list[dict[str, Any]], int]:
        """Events after the first ``count`` that another process recorded, and the
        new count (what a watcher reports)."""
        records, _problems, _torn = self._events.read()
        fresh = [e for e in records[count:] if e.get("id") not in self.seen_events]
        return fresh, len(records)

    def event_records(self) -> list[dict[str, Any]]:
        """Every event so far, oldest first (read incrementally; do not change the list)."""
        return self._events.read()[0]

    def emit_event(self, event: dict[str, Any]) -> None:
        """Tell ``on_event`` about an event another process recorded."""
        self._emit("event", {"event": event})

    def emit_status(self, messages: list[FileboxMessage]) -> None:
        """Tell ``on_event`` that ``messages`` changed status."""
        self._emit("status", {"messages": [m.to_dict() for m in messages]})

    def record_event(
        self, kind: str, task_id: str | None, message: str, data: dict[str, Any]
    ) -> dict[str, Any]:
        event = {
            "id": new_id("fbe"),
            "type": kind,
            "runId": self.id,
            "taskId": task_id,
            "message": message,
            "data": data,
            "at": iso(self.now()),
        }
        self.paths.ensure()
        append_line(
            self.paths.events, encode_line(event), lock=self.paths.run_lock, fsync=self.fsync
        )
        self._emit("event", {"event": event})
        return event

    def _emit(self, name: str, payload: dict[str, Any]) -> None:
        if name == "message":
            self.seen[payload["message"]["id"]] = payload["message"]["status"]
        elif name == "event":
            self.seen_events.add(payload["event"]["id"])
        elif name == "status":
            self.seen.update({m["id"]: m["status"] for m in payload["messages"]})
        if self._on_event is not None:
            self._on_event(name, {"runId": self.id, **payload})


__all__ = ["HEARTBEAT_FRESH_S", "NUDGE_TEXT", "EventSink", "Outcome", "RunFiles", "check_force"]
