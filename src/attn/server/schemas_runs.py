"""Bodies of the run routes (file mailboxes of command-line workers), and the shapes
they answer with.

Request models are strict and refuse unknown fields (like :mod:`attn.server.schemas`):
snake_case in Python, camelCase on the wire. Texts, lists and numbers are
bounded here; ``force`` must be the JSON literal ``true`` or ``false`` (FILE-08:
``"true"``, ``1`` or ``null`` are refused, nothing is written). What the run
checks itself (a safe run or task id, a body's blankness, a data object's JSON
limits, the task's status, ownership) is checked again by
:class:`attn.filebox.Run`, which names the rule. The answer models only
document the answers: the routes return the records' own ``to_dict()`` forms.

Spec: seed 003 ("Core Operations", "Supervisor Contact", "Run Ownership
Enforcement"); FILE-06..08, FILE-10; issue 16 (runs over REST).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from attn.errors import InvalidInput
from attn.filebox.paths import MAX_PART_CHARS
from attn.filebox.records import MAX_BODY_CHARS
from attn.filebox.run_files import check_force
from attn.filebox.service import MAX_COMMAND_ARG_CHARS, MAX_COMMAND_ARGS
from attn.server.schemas import check_json
from attn.server.schemas_control import check_utf8_strings

#: Longest session id (``session``, ``owner``) and longest cancel reason.
MAX_SESSION_CHARS = 200
MAX_REASON_CHARS = 2_000
#: Most tasks a new run starts with; longest worker folder (characters).
MAX_TASKS = 1_000
MAX_CWD_CHARS = 4_096

Priority = Literal["low", "normal", "high"]

_Part = Field(default=None, min_length=1, max_length=MAX_PART_CHARS)
_Session = Field(
    default=None,
    min_length=1,
    max_length=MAX_SESSION_CHARS,
    description="the calling session; a run owned by another session refuses it unless force",
)
_Force = Field(
    default=False,
    description="true: act on a run another session owns (the JSON literal true only)",
)


def _literal_bool(value: Any) -> Any:
    """``force``: the JSON literal true or false only (:func:`~attn.filebox.run_files.check_force`).

    Raises:
        ValueError: anything else, naming what was sent (a 422, nothing written).
    """
    try:
        return check_force(value)
    except InvalidInput as exc:  # pydantic reports a ValueError as a 422 on the field
        raise ValueError(exc.message) from None


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, alias_generator=to_camel)


class _Verb(_Body):
    session: str | None = _Session
    force: bool = _Force

    _force = field_validator("force", mode="before")(_literal_bool)


class CreateRunBody(_Body):
    """``POST /api/runs``: a new run folder.

    Attributes:
        run_id (``runId``): its id, 1..128 of ``[A-Za-z0-9_.-]`` (default: a fresh ``run_…``).
        owner: the session that owns it (FILE-08); none by default.
        leader: the hosted agent that gets its workers' questions; none by default.
        tasks: task ids to create as queued (at most 1,000).
    """

    run_id: str | None = _Part
    owner: str | None = Field(default=None, min_length=1, max_length=MAX_SESSION_CHARS)
    leader: str | None = _Part
    tasks: list[str] = Field(default_factory=list, max_length=MAX_TASKS)

    _text = field_validator("run_id", "owner", "leader", "tasks")(check_utf8_strings)


class SendBody(_Verb):
    """``POST /api/runs/{runId}/messages``: a plain message to a task (or ``"*"``, all).

    Attributes:
        to: a task id, or ``*``.
        body: the text, 1..65,536 characters.
        priority: ``low``, ``normal`` (default) or ``high``.
        data: a JSON object kept with it.
        session, force: who sends, and whether to override another session's run.
        own_mailbox (``ownMailbox``): into the task's own inbox, not the run's.
    """

    to: str = Field(min_length=1, max_length=MAX_PART_CHARS)
    body: str = Field(min_length=1, max_length=MAX_BODY_CHARS)
    priority: Priority = "normal"
    data: dict[str, Any] | None = None
    own_mailbox: bool = False

    _text = field_validator("to", "body", "data", "session")(check_utf8_strings)
    _json = field_validator("data")(check_json)


class RespondBody(_Verb):
    """``POST /api/runs/{runId}/tasks/{taskId}/respond``: answer a waiting task (FILE-06).

    Attributes:
        body: the answer, 1..65,536 characters (for a selection: the option).
        question_id (``questionId``): the question answered (default: the one it waits on).
        priority: ``low``, ``normal`` (default) or ``high``.
        data: a JSON object with the answer, e.g. ``{"approved": true}``.
        session, force: who answers, and whether to override another session's run.
    """

    body: str = Field(min_length=1, max_length=MAX_BODY_CHARS)
    question_id: str | None = Field(default=None, min_length=1, max_length=MAX_SESSION_CHARS)
    priority: Priority = "normal"
    data: dict[str, Any] | None = None

    _text = field_validator("body", "question_id", "data", "session")(check_utf8_strings)
    _json = field_validator("data")(check_json)


class LiveBody(_Verb):
    """``POST /api/runs/{runId}/tasks/{taskId}/steer`` and ``/follow-up`` (FILE-07).

    Attributes:
        body: the text, 1..65,536 characters.
        priority: ``low``, ``normal`` (default) or ``high``.
        data: a JSON object kept with it.
        session, force: who sends, and whether to override another session's run.
    """

    body: str = Field(min_length=1, max_length=MAX_BODY_CHARS)
    priority: Priority = "normal"
    data: dict[str, Any] | None = None

    _text = field_validator("body", "data", "session")(check_utf8_strings)
    _json = field_validator("data")(check_json)


class NudgeBody(_Verb):
    """``POST /api/runs/{runId}/tasks/{taskId}/nudge`` (the body may be left out).

    Attributes:
        body: the status request (default: seed 003's text).
        session, force: who nudges, and whether to override another session's run.
    """

    body: str | None = Field(default=None, min_length=1, max_length=MAX_BODY_CHARS)

    _text = field_validator("body", "session")(check_utf8_strings)


class CancelTaskBody(_Verb):
    """``POST /api/runs/{runId}/tasks/{taskId}/cancel`` (the body may be left out).

    Attributes:
        reason: why, at most 2,000 characters (in the ``task.cancelled`` event).
        session, force: who cancels, and whether to override another session's run.
    """

    reason: str | None = Field(default=None, max_length=MAX_REASON_CHARS)

    _text = field_validator("reason", "session")(check_utf8_strings)


class StopWorkerBody(_Verb):
    """``DELETE /api/runs/{runId}/worker`` (optional): ``session`` and ``force`` (FILE-08)."""


class ReplayBody(_Body):
    """``POST /api/runs/{runId}/replay`` (the body may be left out).

    Attributes:
        task_id (``taskId``): only this task's inbox messages (default: every task's).
    """

    task_id: str | None = _Part

    _text = field_validator("task_id")(check_utf8_strings)


class ValidateBody(_Body):
    """``POST /api/runs/{runId}/validate`` (the body may be left out).

    Attributes:
        repair: rewrite each bad mailbox file keeping its valid lines, and move a
            corrupt delivery record aside (FILE-05); default false (report only).
    """

    repair: bool = False


class StartWorkerBody(_Verb):
    """``POST /api/workers``: start a command-line program as the worker of a run.

    Attributes:
        command: the program and its arguments (no shell), 1..256 strings.
        run_id (``runId``): its run (default: a new one; made when missing).
        task_id (``taskId``): its task (default ``worker``).
        leader: the hosted agent that leads a new run.
        owner: the session that owns a new run.
        cwd: its working folder, an existing directory (default: the server's).
        session, force: who starts it, and whether to override another session's
            ownership of an existing run (FILE-08).
    """

    command: list[str] = Field(min_length=1, max_length=MAX_COMMAND_ARGS)
    run_id: str | None = _Part
    task_id: str = Field(default="worker", min_length=1, max_length=MAX_PART_CHARS)
    leader: str | None = _Part
    owner: str | None = Field(default=None, min_length=1, max_length=MAX_SESSION_CHARS)
    cwd: str | None = Field(default=None, min_length=1, max_length=MAX_CWD_CHARS)

    @field_validator("command")
    @classmethod
    def _arguments(cls, value: list[str]) -> list[str]:
        for arg in value:
            if len(arg) > MAX_COMMAND_ARG_CHARS or "\x00" in arg:
                raise ValueError(
                    f"each argument must be at most {MAX_COMMAND_ARG_CHARS} characters without NUL"
                )
        return value

    _text = field_validator("command", "run_id", "task_id", "leader", "owner", "cwd")(
        check_utf8_strings
    )


# ------------------------------------------------------------------- answers


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class PendingView(_Out):
    """Steers and follow-ups waiting for the worker, their cap, and the warning
    shown above ``warnAbove`` (null when under it)."""

    steer: int
    followUp: int
    max: int
    warnAbove: int
    warning: str | None


class RunView(_Out):
    """A run: ``run.json`` (owner, leader, tasks, worker), message counts per box
    and status, the pending queues and whether the worker is alive."""

    runId: str
    createdAt: str | None = None
    ownerSessionId: str | None = None
    leader: str | None = None
    tasks: dict[str, dict[str, Any]]
    worker: dict[str, Any]
    counts: dict[str, dict[str, int]]
    pending: PendingView
    workerAlive: bool


class RunListView(_Out):
    """``GET /api/runs``: every run, newest first."""

    runs: list[RunView]


class MessageView(_Out):
    """A message of a run's mailbox files (:meth:`attn.filebox.FileboxMessage.to_dict`)."""

    id: str
    runId: str
    box: str
    direction: str
    kind: str
    body: str
    status: str
    priority: str
    createdAt: str


class MessageListView(_Out):
    """Messages, oldest first."""

    messages: list[MessageView]


class OutcomeView(_Out):
    """What a verb did: the message written (or, ``duplicate``, the earlier one),
    or ``queued`` (null message) with what the queue's cap ``dropped``."""

    message: MessageView | None
    queued: bool
    duplicate: bool
    dropped: list[dict[str, Any]]


class TaskView(_Out):
    """A task of a run: its ``status`` and times (a waiting one: its ``question``)."""

    status: str


class RunEventView(_Out):
    """A line of ``events.jsonl`` with its 1-based ``index``."""

    id: str
    type: str
    index: int


class RunEventListView(_Out):
    """``GET /api/runs/{runId}/events``: oldest first; pass the last ``index`` as ``after``."""

    events: list[RunEventView]


class OutputView(_Out):
    """``GET /api/runs/{runId}/output``: the worker's last output lines (``[err] ``
    marks standard error); ``truncated`` when earlier lines were left out."""

    lines: list[str]
    truncated: bool


class ValidationView(_Out):
    """``POST /api/runs/{runId}/validate``: the bad lines, torn files, a corrupt
    delivery record or ``run.json``, and (with ``repair``) the files rewritten."""

    ok: bool
    problems: list[dict[str, Any]]
    torn: list[str]
    deliveryCorrupt: bool
    manifestCorrupt: bool
    repaired: list[str]


class WorkerStartedView(_Out):
    """``POST /api/workers``: the worker's run and its process id."""

    run: RunView
    pid: int


class WorkerStoppedView(_Out):
    """``DELETE /api/runs/{runId}/worker``: the stopped worker's exit code (negative:
    the signal that ended it)."""

    exitCode: int | None


__all__ = [
    "MAX_CWD_CHARS",
    "MAX_REASON_CHARS",
    "MAX_SESSION_CHARS",
    "MAX_TASKS",
    "CancelTaskBody",
    "CreateRunBody",
    "LiveBody",
    "MessageListView",
    "MessageView",
    "NudgeBody",
    "OutcomeView",
    "OutputView",
    "PendingView",
    "ReplayBody",
    "RespondBody",
    "RunEventListView",
    "RunEventView",
    "RunListView",
    "RunView",
    "SendBody",
    "StartWorkerBody",
    "TaskView",
    "ValidateBody",
    "ValidationView",
    "WorkerStartedView",
    "WorkerStoppedView",
]
