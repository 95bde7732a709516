"""The worker toolset: a leader agent runs command-line workers and answers them.

``start_worker`` starts a program as the worker of a run this agent leads; the
worker's questions (supervisor contacts) then arrive in the agent's mailbox as
``worker_contact`` items and its reports as ``worker_message`` items.
``respond_to_worker`` answers a waiting worker (exactly one response per
question: a person may have answered first, and then it says so),
``steer_worker`` steers or follows up a running one (queued while it cannot take
it), ``nudge_worker`` asks it for its status, and ``list_workers`` shows the
runs this agent leads. The agent acts as session ``agent:<id>``: a run owned by
another session refuses it (FILE-08).

Spec: seed 003 ("Core Operations", "Supervisor Contact"); FILE-06, FILE-07, FILE-10.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

from attn.filebox.contact import MAX_QUESTION_CHARS
from attn.filebox.records import MAX_BODY_CHARS
from attn.filebox.service import Fileboxes
from attn.tools._function import FunctionToolset, tool
from attn.tools._schema import Param
from attn.types import JSON

#: Most runs ``list_workers`` shows.
MAX_LISTED_RUNS = 20


class WorkerToolset(FunctionToolset):
    """The worker tools bound to one leader agent.

    Args:
        filebox: the runtime's file mailbox service.
        agent_id: the leader the tools act for (session ``agent:<id>``).
    """

    def __init__(self, filebox: Fileboxes, agent_id: str) -> None:
        self.filebox = filebox
        self.agent_id = agent_id
        self.session = f"agent:{agent_id}"

    @tool
    async def start_worker(
        self,
        command: list[str],
        task_id: Annotated[str, Param(min_length=1, max_length=128)] = "worker",
        run_id: Annotated[str | None, Param(max_length=128)] = None,
    ) -> JSON:
        """Start a command-line program as a worker you lead. Its questions come to
        you as worker_contact items (answer them with respond_to_worker), its reports
        and its exit as worker_message items.

        Args:
            command: The program and its arguments, e.g. ["./deploy.sh", "v2"] (no shell).
            task_id: The task it works on (letters, digits, _ . -).
            run_id: The run to start it in; a new run when omitted.

        Returns:
            ``{"runId", "taskId", "pid"}``.
        """
        worker = await self.filebox.start_worker(
            command, run_id=run_id, task_id=task_id, leader=self.agent_id, session=self.session
        )
        return {"runId": worker.run.id, "taskId": worker.task_id, "pid": worker.pid}

    @tool
    async def respond_to_worker(
        self,
        run_id: Annotated[str, Param(min_length=1, max_length=128)],
        task_id: Annotated[str, Param(min_length=1, max_length=128)],
        body: Annotated[str, Param(min_length=1, max_length=MAX_BODY_CHARS)],
        question_id: Annotated[str | None, Param(max_length=128)] = None,
        approved: bool | None = None,
    ) -> JSON:
        """Answer a worker that waits on a question; it goes back to running.

        Args:
            run_id: The worker's run.
            task_id: The waiting task.
            body: Your answer (for a selection, the option you choose).
            question_id: The question you answer (from the worker_contact item).
            approved: For a confirmation: true approves, false rejects.

        Returns:
            ``{"status": "sent" | "already_answered", "answer"}``: already_answered
            when somebody answered that question first (``answer`` is theirs).
        """
        run = self.filebox.run(run_id)
        data = {"approved": approved} if approved is not None else None
        outcome = await asyncio.to_thread(
            run.respond, task_id, body, question_id=question_id, session=self.session, data=data
        )
        message = outcome.message
        return {
            "status": "already_answered" if outcome.duplicate else "sent",
            "answer": message.body if message else None,
        }

    @tool
    async def steer_worker(
        self,
        run_id: Annotated[str, Param(min_length=1, max_length=128)],
        task_id: Annotated[str, Param(min_length=1, max_length=128)],
        body: Annotated[str, Param(min_length=1, max_length=MAX_BODY_CHARS)],
        mode: Literal["steer", "follow_up"] = "steer",
    ) -> JSON:
        """Steer a running worker, or send it a follow-up; queued while it cannot
        take it (it gets queued messages, oldest first, when it can).

        Args:
            run_id: The worker's run.
            task_id: Its task.
            body: What to tell it.
            mode: steer (change what it is doing) or follow_up (more work after it).

        Returns:
            ``{"status": "delivered" | "queued", "dropped"}`` (``dropped``: how many
            old queued messages the queue's cap dropped).
        """
        run = self.filebox.run(run_id)
        verb = run.steer if mode == "steer" else run.follow_up
        outcome = await asyncio.to_thread(verb, task_id, body, session=self.session)
        return {
            "status": "queued" if outcome.queued else "delivered",
            "dropped": len(outcome.dropped),
        }

    @tool
    async def nudge_worker(
        self,
        run_id: Annotated[str, Param(min_length=1, max_length=128)],
        task_id: Annotated[str, Param(min_length=1, max_length=128)],
        body: Annotated[str | None, Param(max_length=MAX_QUESTION_CHARS)] = None,
    ) -> JSON:
        """Ask a worker to report its status, blocker or next step.

        Args:
            run_id: The worker's run.
            task_id: Its task.
            body: Your words; a standard status request when omitted.

        Returns:
            ``{"status": "sent", "messageId"}``.
        """
        run = self.filebox.run(run_id)
        outcome = await asyncio.to_thread(run.nudge, task_id, body, session=self.session)
        return {"status": "sent", "messageId": outcome.message.id if outcome.message else None}

    @tool(read_only=True)
    async def list_workers(self) -> JSON:
        """The runs you lead (newest first): their tasks' statuses, open questions,
        and how many steers and follow-ups wait for each worker.

        Returns:
            ``{"runs": [{"runId", "workerAlive", "tasks", "pending"}]}``.
        """
        views = await asyncio.to_thread(self.filebox.summaries)
        mine = [v for v in views if v.get("leader") == self.agent_id][:MAX_LISTED_RUNS]
        return {
            "runs": [
                {
                    "runId": v["runId"],
                    "workerAlive": v["workerAlive"],
                    "tasks": {
                        tid: {"status": t.get("status"), "question": t.get("question")}
                        for tid, t in v["tasks"].items()
                    },
                    "pending": v["pending"],
                }
                for v in mine
            ]
        }


__all__ = ["MAX_LISTED_RUNS", "WorkerToolset"]
