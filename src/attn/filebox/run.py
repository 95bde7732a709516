"""One run: its manifest, mailbox, pending queues and event log, and the verbs.

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
from attn.errors import InvalidInput, RunOwned, TaskNotWaiting
from attn.filebox.contact import Contact
from attn.filebox.jsonl import TailReader, append_line, encode_line
from attn.filebox.mailbox import RunMailbox
from attn.filebox.manifest import FINISHED, changing, ensure_task, load_manifest, owner_of, pid_alive, task_of
from attn.filebox.paths import RunPaths, check_part
from attn.filebox.pending import Limits, Queue, counts, load_pending, push, save_pending
from attn.filebox.records import LEADER, FileboxMessage, Priority, check_body, check_choice, check_data, iso, PRIORITIES
from attn.ids import new_id

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


class Run:
    """One run under the run root.

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

    @property
    def id(self) -> str:
        return self.paths.run_id

    # ------------------------------------------------------------ views

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
        """Events ``after`` index (0 = from the start), at most ``limit``, each with its ``index``."""
        records, _problems, _torn = self._events.read()
        return [{**e, "index": after + i + 1} for i, e in enumerate(records[after : after + limit])]

    def worker_alive(self, manifest: dict[str, Any] | None = None) -> bool:
        worker = (manifest or self.manifest())["worker"]
        return bool(worker.get("startedAt")) and worker.get("exitedAt") is None and pid_alive(worker.get("pid"))

    # ------------------------------------------------------------ leader's verbs

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
        body, data = check_body(body), check_data(data)
        check_choice(priority, "priority", PRIORITIES)
        check_force(force)
        with changing(self.paths, fsync=self.fsync) as manifest:
            self._authorize(manifest, session, force)
            task = task_of(manifest, task_id)
            status = task["status"] if task else "unknown"
            asked = (task or {}).get("question") or {}
            qid = question_id or asked.get("id")
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
                    f"task {shown(task_id)} is waiting on question {shown(asked.get('id'))}, not {shown(question_id)}",
                    status=status,
                )
            message = self.append_to_task(
                "inbox", task_id, body, "response", priority, {**data, "questionId": qid}
            )
            task.setdefault("responses", {})[qid] = message.id
            self._back_to_running(task)
            self.record_event("task.responded", task_id, body, {"questionId": qid, "mailboxMessageId": message.id})
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
        self, task_id: str, body: str | None = None, *, session: str | None = None, force: bool = False
    ) -> Outcome:
        """Ask a task for its status (FILE-07): a steering message (the seed's text
        when ``body`` is None) and an ``agent.nudged`` event."""
        check_part(task_id, "task id")
        text = NUDGE_TEXT if body is None else check_body(body)
        check_force(force)
        with changing(self.paths, fsync=self.fsync) as manifest:
            self._authorize(manifest, session, force)
            message = self.append("steering", task_id, text, "nudge", "normal", {"source": "nudge-agent"})
            self.record_event("agent.nudged", task_id, text, {"mailboxMessageId": message.id})
        return Outcome(message)

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
        body, data = check_body(body), check_data(data)
        check_choice(priority, "priority", PRIORITIES)
        check_force(force)
        with changing(self.paths, fsync=self.fsync) as manifest:
            self._authorize(manifest, session, force)
            if own_mailbox and to != "*":
                message = self.append_to_task("inbox", to, body, "message", priority, data)
            else:
                message = self.append("inbox", to, body, "message", priority, data)
        return Outcome(message)

    def cancel(self, task_id: str, *, reason: str | None = None, session: str | None = None, force: bool = False) -> dict[str, Any]:
        """Cancel a task that has not finished; its pending steers and follow-ups go too.
        Cancelling a finished task changes nothing. Returns the task."""
        check_part(task_id, "task id")
        check_force(force)
        with changing(self.paths, fsync=self.fsync) as manifest:
            self._authorize(manifest, session, force)
            task = ensure_task(manifest, task_id, iso(self.now()))
            if task["status"] in FINISHED:
                return dict(task)
            task.update(status="cancelled", updatedAt=iso(self.now()))
            task.pop("waitingSince", None)
            queues = load_pending(self.paths)
            for name in queues:
                queues[name] = [e for e in queues[name] if e.get("taskId") != task_id]
            save_pending(self.paths, queues, fsync=self.fsync)
            self.record_event("task.cancelled", task_id, reason or "", {})
            return dict(task)

    # ------------------------------------------------------------ helpers

    def _authorize(self, manifest: dict[str, Any], session: str | None, force: bool) -> None:
        owner = owner_of(manifest)
        if owner is not None and session != owner and force is not True:
            raise RunOwned(
                f"run {shown(self.id)} is owned by session {shown(owner)}; cannot change it "
                f"from session {shown(session)}. Pass force=true to override.",
                owner=owner,
            )

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
        body, data = check_body(body), check_data(data)
        check_choice(priority, "priority", PRIORITIES)
        check_force(force)
        with changing(self.paths, fsync=self.fsync) as manifest:
            self._authorize(manifest, session, force)
            task = task_of(manifest, task_id)
            if self.worker_alive(manifest) and task is not None and task["status"] == "running":
                message = self._deliver(queue, task_id, body, priority, data)
                self.record_event(f"{queue}.delivered", task_id, body, {"mailboxMessageId": message.id})
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
            self.record_event(f"{queue}.queued", task_id, body, {"pendingId": entry["id"], "pending": len(queues[queue])})
            for old in dropped:
                self.record_event(
                    f"{queue}.dropped",
                    old.get("taskId"),
                    old.get("body", ""),
                    {"pendingId": old.get("id"), "reason": f"more than {self.limits.max_pending} waiting; the oldest is dropped"},
                )
            return Outcome(None, queued=True, dropped=dropped)

    def _deliver(self, queue: Queue, task_id: str, body: str, priority: Priority, data: dict[str, Any], message_id: str | None = None) -> FileboxMessage:
        box = "steering" if queue == "steer" else "inbox"
        return self.append(box, task_id, body, queue, priority, data, message_id)

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
                    self._deliver(queue, entry["taskId"], entry["body"], entry.get("priority", "normal"), entry.get("data") or {}, entry.get("id"))
                )
            queues[queue] = keep
        if delivered:
            save_pending(self.paths, queues, fsync=self.fsync)
        return delivered

    def _back_to_running(self, task: dict[str, Any]) -> None:
        task.update(status="running", updatedAt=iso(self.now()))
        task.pop("waitingSince", None)
        task.pop("question", None)

    def _response_to(self, task_id: str, question_id: str) -> FileboxMessage | None:
        for message in self.mailbox.inbox_for(task_id):
            if message.kind == "response" and message.data.get("questionId") == question_id:
                return message
        return None

    def append(self, box: Any, to: str, body: str, kind: Any, priority: Priority, data: dict[str, Any], message_id: str | None = None) -> FileboxMessage:
        sender, target = (to, LEADER) if box == "outbox" else (LEADER, to)
        message = self.mailbox.append(
            box, sender=sender, to=target, body=body, kind=kind, priority=priority, data=data, message_id=message_id,
            task_id=None,
        )
        self._emit("message", {"message": message.to_dict()})
        return message

    def append_to_task(self, box: Any, task_id: str, body: str, kind: Any, priority: Priority, data: dict[str, Any]) -> FileboxMessage:
        sender, target = (task_id, LEADER) if box == "outbox" else (LEADER, task_id)
        message = self.mailbox.append(box, sender=sender, to=target, body=body, kind=kind, priority=priority, data=data, task_id=task_id)
        self._emit("message", {"message": message.to_dict()})
        return message

    def emit_message(self, message: FileboxMessage) -> None:
        """Tell ``on_event`` about a message written outside :meth:`append`."""
        self._emit("message", {"message": message.to_dict()})

    def record_event(self, kind: str, task_id: str | None, message: str, data: dict[str, Any]) -> dict[str, Any]:
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
        append_line(self.paths.events, encode_line(event), lock=self.paths.run_lock, fsync=self.fsync)
        self._emit("event", {"event": event})
        return event

    def _emit(self, name: str, payload: dict[str, Any]) -> None:
        if self._on_event is not None:
            self._on_event(name, {"runId": self.id, **payload})


__all__ = ["NUDGE_TEXT", "Outcome", "Run", "check_force"]
