"""Runs of command-line workers over HTTP: their mailboxes, the leader's verbs, workers.

Mounted by :func:`attn.server.app.create_app` with :func:`runs_router`::

    GET    /api/runs                                   {runs}: every run's view, newest first
    POST   /api/runs                                   {runId?, owner?, leader?, tasks?} -> 201 view
    GET    /api/runs/{runId}                           the run's view
    GET    /api/runs/{runId}/messages                  ?box=, ?taskId=, ?status=, ?limit= (500,
                                                       at most 5000: the newest) -> {messages},
                                                       oldest first
    POST   /api/runs/{runId}/messages                  {to, body, ...} -> 201 outcome
    POST   /api/runs/{runId}/messages/{messageId}/ack  -> the message, acknowledged
    POST   /api/runs/{runId}/replay                    {taskId?} -> {messages} (now delivered)
    POST   /api/runs/{runId}/tasks/{taskId}/respond    {body, questionId?, ...} -> outcome
    POST   /api/runs/{runId}/tasks/{taskId}/steer      {body, ...} -> outcome
    POST   /api/runs/{runId}/tasks/{taskId}/follow-up  {body, ...} -> outcome
    POST   /api/runs/{runId}/tasks/{taskId}/nudge      {body?, ...} -> outcome
    POST   /api/runs/{runId}/tasks/{taskId}/cancel     {reason?, ...} -> the task
    GET    /api/runs/{runId}/events                    ?after= (an index), ?limit= (200, at
                                                       most 1000) -> {events}
    GET    /api/runs/{runId}/output                    ?lines= (200, 1..2000) -> {lines, truncated}
    POST   /api/runs/{runId}/validate                  {repair?} -> the validation report
    POST   /api/workers                                {command, runId?, ...} -> 201 {run, pid}
    DELETE /api/runs/{runId}/worker                    -> {exitCode}

Every route goes through ``runtime.filebox`` (:class:`attn.filebox.service.Fileboxes`),
so REST, the leader's brain tools, the CLI and the web UI change a run the same
way, and respond writes exactly one response per question (a second one
answers ``duplicate: true`` with the first, FILE-06). The files are read and
written in worker threads (``asyncio.to_thread``), never on the event loop.
Errors use the app's error shape: a bad run or task id is 422 ``unsafe_path``,
other bad input 422 (``invalid_input``, ``validation_error``) naming the
field, an unknown run or message 404 (``run_not_found``,
``filebox_message_not_found``), a task that is not waiting 409
``task_not_waiting`` with its ``status``, a run another session owns 403
``run_owned`` with its ``owner`` unless ``force`` is the literal ``true``
(FILE-08). Input is checked before anything is written, so a refused call
changes no file. The live side (``filebox:*`` events to every connection) is
:mod:`attn.server.runs_live`.

Spec: seed 003 ("Core Operations", "Supervisor Contact", "Run Ownership
Enforcement", "Queue Depth and Backpressure"); FILE-05..08, FILE-10..12; issue 16.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Path, Query

from attn.echo import shown
from attn.errors import InvalidInput
from attn.filebox.paths import MAX_PART_CHARS, check_part
from attn.filebox.records import FileboxMessage
from attn.filebox.run import Run
from attn.limits import MAX_ID_CHARS
from attn.server import schemas_runs as shapes
from attn.server.routes_control import OptionalJsonBodyRoute
from attn.server.run_output import MAX_OUTPUT_LINES, check_start, output_tail
from attn.server.schemas_channels import created
from attn.server.schemas_views import answers

if TYPE_CHECKING:
    from attn.runtime import Runtime

T = TypeVar("T")

#: Default and largest ``limit`` of a message listing and of an event page.
DEFAULT_MESSAGES = 500
MAX_MESSAGES = 5_000
DEFAULT_EVENTS = 200
MAX_EVENTS = 1_000
#: Largest ``after`` of an event page (an index into ``events.jsonl``).
MAX_EVENT_INDEX = 10**9
DEFAULT_OUTPUT_LINES = 200

RunIdPath = Annotated[
    str,
    Path(
        alias="runId",
        min_length=1,
        max_length=MAX_PART_CHARS,
        description="the run: 1..128 of [A-Za-z0-9_.-], not starting with . or -",
    ),
]
TaskIdPath = Annotated[
    str, Path(alias="taskId", min_length=1, max_length=MAX_PART_CHARS, description="the task")
]
MessageIdPath = Annotated[str, Path(alias="messageId", min_length=1, max_length=MAX_ID_CHARS)]


def runs_router(runtime: Runtime) -> APIRouter:
    """The routes above, bound to ``runtime``.

    Returns:
        The router, for :meth:`fastapi.FastAPI.include_router`.
    """
    router = APIRouter(route_class=OptionalJsonBodyRoute, tags=["runs"])
    fileboxes = runtime.filebox

    async def on_run(run_id: str, act: Callable[[Run], T]) -> T:
        """Open the run and act on it, both in a worker thread (blocking file I/O)."""
        return await asyncio.to_thread(lambda: act(fileboxes.run(run_id)))

    # ------------------------------------------------------------ runs

    @router.get("/api/runs", **answers(shapes.RunListView))
    async def list_runs() -> dict[str, Any]:
        """Every run under the state dir, newest first (unreadable ones are left out)."""
        return {"runs": await asyncio.to_thread(fileboxes.summaries)}

    @router.post("/api/runs", **created(shapes.RunView))
    async def create_run(body: shapes.CreateRunBody | None = None) -> dict[str, Any]:
        """Make a new run folder (no worker yet); 409 ``run_exists`` when the id is
        taken, 404 ``unknown_agent`` when no agent has the leader's name."""
        made = body or shapes.CreateRunBody()

        def create() -> dict[str, Any]:
            run = fileboxes.create_run(
                made.run_id, owner=made.owner, leader=made.leader, tasks=tuple(made.tasks)
            )
            return run.view()

        return await asyncio.to_thread(create)

    @router.get("/api/runs/{runId}", **answers(shapes.RunView))
    async def get_run(run_id: RunIdPath) -> dict[str, Any]:
        """The run: owner, leader, tasks (a waiting one with its question), worker,
        message counts per box and status, pending queues with the backpressure
        warning, and whether the worker is alive."""
        return await on_run(run_id, lambda run: run.view())

    # ------------------------------------------------------------ messages

    @router.get("/api/runs/{runId}/messages", **answers(shapes.MessageListView))
    async def list_messages(
        run_id: RunIdPath,
        box: Annotated[Literal["inbox", "outbox", "steering"] | None, Query()] = None,
        task_id: Annotated[
            str | None,
            Query(
                alias="taskId",
                min_length=1,
                max_length=MAX_PART_CHARS,
                description="only messages from, to or of this task (and to * for inboxes)",
            ),
        ] = None,
        status: Annotated[Literal["queued", "delivered", "acknowledged"] | None, Query()] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_MESSAGES)] = DEFAULT_MESSAGES,
    ) -> dict[str, Any]:
        """The run's messages with their delivery status, oldest first: the newest
        ``limit`` of those that match."""

        if task_id is not None:
            check_part(task_id, "taskId")  # the same ids as everywhere: no '..', no '/'

        def concerns(message: FileboxMessage) -> bool:
            if task_id in (message.task_id, message.to, message.sender):
                return True
            return message.to == "*" and message.direction == "inbox"

        def read(run: Run) -> list[dict[str, Any]]:
            found = [
                m.to_dict()
                for m in run.mailbox.everything()
                if (box is None or m.box == box)
                and (status is None or m.status == status)
                and (task_id is None or concerns(m))
            ]
            return found[-limit:]

        return {"messages": await on_run(run_id, read)}

    @router.post("/api/runs/{runId}/messages", **created(shapes.OutcomeView))
    async def send(run_id: RunIdPath, body: shapes.SendBody) -> dict[str, Any]:
        """A plain message to a task (or ``*``, every task): the run's inbox, or the
        task's own with ``ownMailbox``."""
        outcome = await on_run(
            run_id,
            lambda run: run.send(
                body.to,
                body.body,
                session=body.session,
                force=body.force,
                priority=body.priority,
                data=body.data,
                own_mailbox=body.own_mailbox,
            ),
        )
        return outcome.to_dict()

    @router.post("/api/runs/{runId}/messages/{messageId}/ack", **answers(shapes.MessageView))
    async def acknowledge(run_id: RunIdPath, message_id: MessageIdPath) -> dict[str, Any]:
        """Mark a message acknowledged (it stays in the history); again: unchanged."""
        message = await on_run(run_id, lambda run: run.acknowledge(message_id))
        return message.to_dict()

    @router.post("/api/runs/{runId}/replay", **answers(shapes.MessageListView))
    async def replay(run_id: RunIdPath, body: shapes.ReplayBody | None = None) -> dict[str, Any]:
        """Every unacknowledged inbox message (of ``taskId``, or all), oldest first,
        now marked delivered: what a worker reads when it (re)starts (FILE-12)."""
        task_id = (body or shapes.ReplayBody()).task_id
        messages = await on_run(run_id, lambda run: run.replay(task_id))
        return {"messages": [m.to_dict() for m in messages]}

    # ------------------------------------------------------------ the leader's verbs

    waiting = answers(shapes.OutcomeView)
    waiting["responses"][409] = {
        "description": "the task is not waiting (task_not_waiting): the body's status "
        "says what it is"
    }

    @router.post("/api/runs/{runId}/tasks/{taskId}/respond", **waiting)
    async def respond(
        run_id: RunIdPath, task_id: TaskIdPath, body: shapes.RespondBody
    ) -> dict[str, Any]:
        """Answer a waiting task: one inbox response per question, the task back to
        running. A second answer to the same question changes nothing and returns the
        first (``duplicate: true``); a task that is not waiting is 409 (FILE-06)."""
        outcome = await on_run(
            run_id,
            lambda run: run.respond(
                task_id,
                body.body,
                question_id=body.question_id,
                session=body.session,
                force=body.force,
                priority=body.priority,
                data=body.data,
            ),
        )
        return outcome.to_dict()

    async def live(
        verb: Literal["steer", "follow_up"], run_id: str, task_id: str, body: shapes.LiveBody
    ) -> dict[str, Any]:
        def act(run: Run) -> Any:
            method = run.steer if verb == "steer" else run.follow_up
            return method(
                task_id,
                body.body,
                session=body.session,
                force=body.force,
                priority=body.priority,
                data=body.data,
            )

        return dict((await on_run(run_id, act)).to_dict())

    @router.post("/api/runs/{runId}/tasks/{taskId}/steer", **answers(shapes.OutcomeView))
    async def steer(
        run_id: RunIdPath, task_id: TaskIdPath, body: shapes.LiveBody
    ) -> dict[str, Any]:
        """Steer a task: to its steering file at once when its worker is alive and the
        task running, else into the bounded pending queue (``queued``; at the cap the
        oldest is ``dropped``) (FILE-07)."""
        return await live("steer", run_id, task_id, body)

    @router.post("/api/runs/{runId}/tasks/{taskId}/follow-up", **answers(shapes.OutcomeView))
    async def follow_up(
        run_id: RunIdPath, task_id: TaskIdPath, body: shapes.LiveBody
    ) -> dict[str, Any]:
        """A non-blocking follow-up: to the inbox when the worker can take it, else
        queued like a steer (FILE-07)."""
        return await live("follow_up", run_id, task_id, body)

    @router.post("/api/runs/{runId}/tasks/{taskId}/nudge", **answers(shapes.OutcomeView))
    async def nudge(
        run_id: RunIdPath, task_id: TaskIdPath, body: shapes.NudgeBody | None = None
    ) -> dict[str, Any]:
        """Ask a task for its status: a steering message (seed 003's text when no body)
        and an ``agent.nudged`` event (FILE-07)."""
        asked = body or shapes.NudgeBody()
        outcome = await on_run(
            run_id,
            lambda run: run.nudge(task_id, asked.body, session=asked.session, force=asked.force),
        )
        return outcome.to_dict()

    @router.post("/api/runs/{runId}/tasks/{taskId}/cancel", **answers(shapes.TaskView))
    async def cancel(
        run_id: RunIdPath, task_id: TaskIdPath, body: shapes.CancelTaskBody | None = None
    ) -> dict[str, Any]:
        """Cancel a task that has not finished (its pending steers and follow-ups go
        too, and its worker is stopped); a finished task is answered unchanged."""
        asked = body or shapes.CancelTaskBody()
        return await fileboxes.cancel_task(
            run_id, task_id, reason=asked.reason, session=asked.session, force=asked.force
        )

    # ------------------------------------------------------------ what happened

    @router.get("/api/runs/{runId}/events", **answers(shapes.RunEventListView))
    async def events(
        run_id: RunIdPath,
        after: Annotated[
            int, Query(ge=0, le=MAX_EVENT_INDEX, description="only events after this index")
        ] = 0,
        limit: Annotated[int, Query(ge=1, le=MAX_EVENTS)] = DEFAULT_EVENTS,
    ) -> dict[str, Any]:
        """The run's events oldest first, each with its ``index`` (1-based): pass the
        last one as ``after`` for the next page."""
        return {"events": await on_run(run_id, lambda run: run.events(after, limit))}

    @router.get("/api/runs/{runId}/output", **answers(shapes.OutputView))
    async def output(
        run_id: RunIdPath,
        lines: Annotated[int, Query(ge=1, le=MAX_OUTPUT_LINES)] = DEFAULT_OUTPUT_LINES,
    ) -> dict[str, Any]:
        """The last ``lines`` lines of the worker's output (standard error's marked
        ``[err] ``); ``truncated`` when earlier ones were left out."""
        shown_lines, truncated = await on_run(run_id, lambda run: output_tail(run, lines))
        return {"lines": shown_lines, "truncated": truncated}

    @router.post("/api/runs/{runId}/validate", **answers(shapes.ValidationView))
    async def validate(
        run_id: RunIdPath, body: shapes.ValidateBody | None = None
    ) -> dict[str, Any]:
        """Report every mailbox line that is not a message, torn last lines, a
        corrupt delivery record and a corrupt ``run.json``; with ``repair``, rewrite
        the bad files atomically keeping only their valid lines, and move a corrupt
        ``run.json`` aside, rebuilt from the run's events (FILE-05)."""
        repair = (body or shapes.ValidateBody()).repair
        return await on_run(run_id, lambda run: run.validate(repair=repair))

    # ------------------------------------------------------------ workers

    @router.post("/api/workers", **created(shapes.WorkerStartedView))
    async def start_worker(body: shapes.StartWorkerBody) -> dict[str, Any]:
        """Start a program (no shell) as the worker of a task: in the run ``runId``
        (made, with ``owner`` and ``leader``, when missing) or a new one. Its
        environment names the run (``ATTN_RUN_DIR``, ``ATTN_TASK_ID``); its
        supervisor contacts make the task wait and reach people and the leader.
        A program that cannot be found or run is 422 and makes no run."""
        folder = await asyncio.to_thread(
            check_start, body.command, body.run_id, body.task_id, body.cwd
        )
        try:
            worker = await fileboxes.start_worker(
                body.command,
                run_id=body.run_id,
                task_id=body.task_id,
                leader=body.leader,
                owner=body.owner,
                cwd=folder,
                session=body.session,
                force=body.force,
            )
        except OSError as exc:
            raise InvalidInput(
                f"command: cannot start {shown(body.command[0])}: {exc.strerror or exc}"
            ) from None
        view = await asyncio.to_thread(worker.run.view)
        return {"run": view, "pid": worker.pid}

    @router.delete("/api/runs/{runId}/worker", **answers(shapes.WorkerStoppedView))
    async def stop_worker(
        run_id: RunIdPath, body: shapes.StopWorkerBody | None = None
    ) -> dict[str, Any]:
        """Stop the run's worker (SIGTERM to its process group, SIGKILL after 5 s) and
        wait until its exit is recorded; 404 when this server started none for it,
        403 ``run_owned`` for another session's run without ``force: true``."""
        who = body or shapes.StopWorkerBody()
        code = await fileboxes.stop_worker(run_id, session=who.session, force=who.force)
        return {"exitCode": code}

    return router


__all__ = [
    "DEFAULT_EVENTS",
    "DEFAULT_MESSAGES",
    "DEFAULT_OUTPUT_LINES",
    "MAX_EVENTS",
    "MAX_EVENT_INDEX",
    "MAX_MESSAGES",
    "runs_router",
]
