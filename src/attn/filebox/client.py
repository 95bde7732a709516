"""The worker's side, for Python worker scripts run by ``attn worker run``.

A worker reads what its leader sent, acknowledges it, reports, and asks for
decisions; everything goes through its run's files under the same locks as the
leader's side::

    from attn.filebox.client import FileboxClient

    box = FileboxClient.from_env()          # ATTN_RUN_DIR and ATTN_TASK_ID
    for message in box.replay():            # unacknowledged inbox messages, oldest first
        ...
        box.ack(message["id"])
    answer = box.ask("Deploy v2 to production?")   # blocks until the leader responds
    if answer.approved:
        ...
    box.send("deployed")                    # an outbox message to the leader

Under ``attn worker run`` (``ATTN_SUPERVISED=1``) :meth:`FileboxClient.ask` prints
the supervisor contact as a JSON event line on standard error, where the
supervisor reads it; otherwise it records the contact in the run's files itself.

Spec: seed 003 ("Supervisor Contact", "Core Operations"); FILE-10..12.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from attn.echo import shown
from attn.errors import InvalidInput, QuestionWithdrawn
from attn.filebox.contact import CONTACT_KINDS, Contact, ContactKind, contact_line
from attn.filebox.paths import RunPaths, check_part
from attn.filebox.records import LEADER, check_body, check_data
from attn.filebox.run import Run
from attn.filebox.supervision import heartbeat, record_contact, withdraw_question
from attn.ids import new_id

#: Words that approve a confirmation when the response carries no ``approved`` flag.
YES = frozenset(
    {"y", "yes", "ok", "okay", "approve", "approved", "confirm", "confirmed", "true", "go"}
)


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Answer:
    """The leader's response to :meth:`FileboxClient.ask`.

    Attributes:
        body: the response text.
        approved: for a confirmation, whether it approves (``data.approved`` when
            the responder set it, else the text is a yes-word); None otherwise.
        message: the response message (JSON shape of :class:`~attn.filebox.records.FileboxMessage`).
    """

    body: str
    approved: bool | None
    message: dict[str, Any]


class FileboxClient:
    """A worker's handle on its run.

    Args:
        run_dir: ``<state dir>/runs/<run id>``.
        task_id: the worker's task.
        fsync: fsync each write (default True).

    Raises:
        UnsafePath: a bad run folder name or task id.
    """

    def __init__(self, run_dir: str | Path, task_id: str, *, fsync: bool = True) -> None:
        path = Path(run_dir).absolute()
        self.task_id = check_part(task_id, "task id")
        self.run = Run(RunPaths(path.parent, path.name), _now, fsync=fsync)
        self.supervised = os.environ.get("ATTN_SUPERVISED") == "1"

    @classmethod
    def from_env(cls) -> FileboxClient:
        """The client for the run ``attn worker run`` started this process in.

        Raises:
            InvalidInput: ``ATTN_RUN_DIR`` or ``ATTN_TASK_ID`` is not set.
        """
        run_dir, task = os.environ.get("ATTN_RUN_DIR"), os.environ.get("ATTN_TASK_ID")
        if not run_dir or not task:
            raise InvalidInput(
                "ATTN_RUN_DIR and ATTN_TASK_ID are not set: run this under `attn worker run -- …`"
            )
        return cls(run_dir, task)

    # ------------------------------------------------------------ reading

    def replay(self) -> list[dict[str, Any]]:
        """Every unacknowledged inbox message for this task, oldest first, now
        marked delivered (FILE-11, FILE-12). Call it at start and after each wait."""
        return [m.to_dict() for m in self.run.mailbox.replay(self.task_id)]

    def steering(self) -> list[dict[str, Any]]:
        """Unacknowledged steers and nudges for this task, oldest first, now delivered."""
        pending = [
            m
            for m in self.run.mailbox.messages("steering")
            if m.to in (self.task_id, "*") and m.status != "acknowledged"
        ]
        changed = self.run.mailbox.set_status(
            [m.id for m in pending if m.status == "queued"], "delivered"
        )
        now = {m.id: m for m in changed}
        return [now.get(m.id, m).to_dict() for m in pending]

    def ack(self, message_id: str) -> None:
        """Acknowledge a message (it stays in the history). Raises FileboxMessageNotFound."""
        self.run.mailbox.acknowledge(message_id)

    # ------------------------------------------------------------ writing

    def send(
        self, body: str, *, to: str = LEADER, data: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Write an outbox message (to the leader by default); returns it."""
        message = self.run.mailbox.append(
            "outbox", sender=self.task_id, to=to, body=check_body(body), data=check_data(data)
        )
        return message.to_dict()

    def heartbeat(self) -> None:
        """Tell the leader this worker is alive: touch the run's heartbeat file (the
        supervisor stamps ``lastSeenAt`` from it), or, with no supervisor, stamp it
        here; a worker nobody supervises counts as alive for 60 s after each beat."""
        path = self.run.paths.check(self.run.paths.heartbeat)
        path.touch()
        os.utime(path)
        if not self.supervised:
            heartbeat(self.run)

    def ask(
        self,
        text: str,
        kind: ContactKind = "need_confirmation",
        *,
        options: tuple[str, ...] | list[str] = (),
        timeout_s: float | None = None,
        poll_s: float = 0.1,
    ) -> Answer:
        """Ask the leader for a decision and wait for its response (supervisor contact).

        Args:
            text: the question, 1..4,000 characters.
            kind: ``need_confirmation`` (default), ``need_input`` or ``need_selection``.
            options: the choices of a selection (1..20).
            timeout_s: give up after this many seconds; None waits for good.
            poll_s: how often the inbox is looked at (0.01..5 s).

        Raises:
            InvalidInput: a bad question, kind or options. TimeoutError: no response
                in time; the question is withdrawn (``question.withdrawn``) and the
                task runs again, unless an answer came at the last moment (then it
                is returned).
            QuestionWithdrawn: nobody will answer: the task was cancelled or had
                finished, a newer question replaced this one, or it was dropped
                (``reason`` says which; the event names the question).
        """
        if kind not in CONTACT_KINDS:
            raise InvalidInput(f"kind must be one of {', '.join(CONTACT_KINDS)}, got {shown(kind)}")
        question = check_body(text)
        choices = tuple(check_body(o) for o in options)
        if kind == "need_selection" and not choices:
            raise InvalidInput("a need_selection question needs at least one option")
        qid = new_id("q")
        seen = len(self.run.event_records())
        if self.supervised:
            line = contact_line(
                kind, question, options=choices, question_id=qid, task_id=self.task_id
            )
            print(line, file=sys.stderr, flush=True)
        else:
            record_contact(
                self.run, self.task_id, Contact(kind, question, choices, qid, self.task_id)
            )
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        wait = min(max(poll_s, 0.01), 5.0)
        while True:
            for message in self.run.mailbox.inbox_for(self.task_id):
                if message.kind == "response" and message.data.get("questionId") == qid:
                    self.run.mailbox.acknowledge(message.id)
                    return Answer(
                        message.body, _approved(kind, message.body, message.data), message.to_dict()
                    )
            reason, seen = self._ended(qid, seen)
            if reason is not None:
                raise QuestionWithdrawn(
                    f"question {qid} of task {self.task_id} will not be answered: {reason}",
                    reason=reason,
                )
            late = deadline is not None and time.monotonic() >= deadline
            if late and withdraw_question(self.run, self.task_id, qid):
                raise TimeoutError(f"no response to question {qid} in {timeout_s} s")
            time.sleep(wait)

    def _ended(self, question_id: str, seen: int) -> tuple[str | None, int]:
        """Why the question was withdrawn (a cancel, a newer question) or dropped (its
        task had finished, the contact bounds), or None; and how many events were read."""
        events = self.run.event_records()
        for event in events[seen:]:
            data = event.get("data")
            if (
                event.get("type") in _ENDS_A_QUESTION
                and isinstance(data, dict)
                and data.get("questionId") == question_id
            ):
                return str(data.get("reason") or event["type"]), len(events)
        return None, len(events)


#: Events after which a question will get no answer.
_ENDS_A_QUESTION = frozenset({"question.withdrawn", "contact.dropped"})


def _approved(kind: str, body: str, data: dict[str, Any]) -> bool | None:
    if kind != "need_confirmation":
        return None
    flag = data.get("approved")
    if isinstance(flag, bool):
        return flag
    return body.strip().lower().rstrip(".!") in YES


__all__ = ["YES", "Answer", "FileboxClient"]
