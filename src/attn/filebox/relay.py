"""What a worker's run tells the people and the leader agent (seed 003, FILE-10).

A supervisor contact becomes a ``worker_contact`` notification for a person (it
opens the run view, where the question is answerable; it is marked read once the
question is answered) and, when the run has a hosted leader agent, a
``worker_contact`` item in that agent's mailbox at priority 1. A worker's outbox
message to its leader and its exit become ``worker_message`` items. Whoever
answers first wins: respond writes exactly one response per question (FILE-06).
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from attn.clock import Clock
from attn.errors import AttnError
from attn.filebox.records import FileboxMessage, iso
from attn.filebox.run import Run

log = logging.getLogger("attn.filebox")

#: What each contact kind asks for, in the leader's words.
_WANTS = {
    "need_confirmation": "a confirmation",
    "need_input": "an answer",
    "need_selection": "a choice",
}


class LeaderAgent(Protocol):
    async def enqueue(
        self,
        source_type: str,
        payload: object,
        priority: object = None,
        metadata: object = None,
        idempotency_key: object = None,
    ) -> str: ...


class Bell(Protocol):
    async def mark_read(self, notification_id: object) -> Any: ...

    async def notify(
        self, user_id: object, type: object, title: object, body: object = "", **kw: Any
    ) -> Any: ...


class AgentHost(Protocol):
    def find_agent(self, name: str) -> Any: ...


class Relay:
    """Carries a run's questions and reports to people and to the leader agent.

    Args:
        clock: the runtime's clock.
        host: finds hosted agents by name (the runtime), or None.
        notifications: the people's bell (``runtime.people.notifications``), or None.
    """

    def __init__(self, clock: Clock, host: AgentHost | None, notifications: Bell | None) -> None:
        self._clock = clock
        self._host = host
        self._notifications = notifications
        #: The notification of each open question, by question id (read once answered).
        self._asked: dict[str, tuple[str, str, str]] = {}  # id -> run, task, notification

    def answered(self, question_id: str) -> str | None:
        """The notification id of a question just answered (forgotten from now on)."""
        asked = self._asked.pop(question_id, None)
        return asked[2] if asked else None

    async def close_questions(self, run_id: str, task_id: str | None = None) -> None:
        """Read the notifications of the run's open questions (of ``task_id`` only, when
        given): its worker exited, or asked again, so nobody waits on them any more."""
        stale = [
            qid
            for qid, (run, task, _note) in self._asked.items()
            if run == run_id and (task_id is None or task == task_id)
        ]
        for qid in stale:
            await self.mark_answered(self._asked.pop(qid)[2])

    async def mark_answered(self, notification_id: str) -> None:
        """An answered question's notification is read: nobody needs to act on it."""
        if self._notifications is None:
            return
        try:
            await self._notifications.mark_read(notification_id)
        except AttnError:
            log.exception(
                "the notification %s of an answered question stays unread", notification_id
            )

    def _leader(self, run: Run) -> LeaderAgent | None:
        leader = run.manifest().get("leader")
        if not isinstance(leader, str) or self._host is None:
            return None
        agent = self._host.find_agent(leader)
        return agent  # type: ignore[no-any-return]

    async def contacted(self, run: Run, task_id: str, question: dict[str, Any]) -> None:
        kind, text, qid = question["kind"], question["text"], question["id"]
        options = question.get("options") or []
        about = {
            "runId": run.id,
            "taskId": task_id,
            "questionId": qid,
            "contactType": kind,
            "options": options,
        }
        leader = self._leader(run)
        if self._notifications is not None:
            try:
                note = await self._notifications.notify(
                    None,
                    "worker_contact",
                    f"{task_id} asks: {text}"[:200],
                    _question_text(run.id, task_id, question),
                    action_target={"path": f"/runs/{run.id}"},
                    metadata={
                        **about,
                        **({"agentId": run.manifest().get("leader")} if leader else {}),
                    },
                )
                await self.close_questions(run.id, task_id)  # a new question replaces them
                self._asked[qid] = (run.id, task_id, note.id)
            except AttnError:
                log.exception("run %s: the notification for a supervisor contact failed", run.id)
        if leader is not None:
            await _enqueue(
                leader,
                "worker_contact",
                _question_text(run.id, task_id, question)
                + f"\nAnswer it with respond_to_worker(run_id={run.id!r}, task_id={task_id!r}, "
                f"question_id={qid!r}, body=...).",
                about,
                f"worker-contact:{run.id}:{qid}",
            )

    async def worker_wrote(self, run: Run, message: FileboxMessage) -> None:
        leader = self._leader(run)
        if leader is not None and message.to in ("leader", "*"):
            about = {"runId": run.id, "taskId": message.sender, "mailboxMessageId": message.id}
            text = f"Worker {message.sender} of run {run.id} writes: {message.body}"
            await _enqueue(
                leader, "worker_message", text, about, f"worker-message:{run.id}:{message.id}"
            )

    async def worker_exited(self, run: Run, task_id: str, code: int | None) -> None:
        await self.close_questions(run.id)
        leader = self._leader(run)
        if leader is not None:
            outcome = "finished" if code == 0 else f"failed (exit code {code})"
            about = {"runId": run.id, "taskId": task_id, "exitCode": code, "event": "worker.exited"}
            text = f"Worker {task_id} of run {run.id} {outcome}."
            await _enqueue(
                leader,
                "worker_message",
                text,
                about,
                f"worker-exit:{run.id}:{iso(self._clock.now())}",
            )


def _question_text(run_id: str, task_id: str, question: dict[str, Any]) -> str:
    wanted = _WANTS.get(question["kind"], "an answer")
    text = f"Worker {task_id} of run {run_id} needs {wanted}: {question['text']}"
    if question.get("options"):
        text += "\nOptions: " + " | ".join(question["options"])
    return text


async def _enqueue(
    agent: LeaderAgent, kind: str, text: str, about: dict[str, Any], key: str
) -> None:
    try:
        await agent.enqueue(
            kind,
            {"content": text, "extra": about},
            metadata={
                "senderId": f"worker:{about['runId']}/{about['taskId']}",
                "senderRole": "agent",
            },
            idempotency_key=key[:200],
        )
    except AttnError:
        log.exception("run %s: the leader's %s item could not be enqueued", about["runId"], kind)


__all__ = ["AgentHost", "Bell", "LeaderAgent", "Relay"]
