"""How ``attn filebox`` and ``attn worker run`` show runs, messages and run events.

Everything a worker or a caller wrote is shown as text, never as Rich markup.

Spec: seed 003 ("Mailbox file structure", "Supervisor Contact"); issue 16.
"""

from __future__ import annotations

import shlex
from typing import Any

from rich.table import Table
from rich.text import Text

from attn.cli.events import clock_text
from attn.cli.output import plural, shorten

_TASK_STYLES = {
    "queued": "cyan",
    "running": "yellow",
    "waiting": "bold magenta",
    "completed": "green",
    "failed": "red",
    "cancelled": "dim",
}
_MESSAGE_STYLES = {"queued": "cyan", "delivered": "yellow", "acknowledged": "green"}


def worker_text(view: dict[str, Any]) -> str:
    """``alive (pid 123)``, ``exited 0``, or ``-`` when the run never had one."""
    worker = view.get("worker") or {}
    if view.get("workerAlive"):
        return f"alive (pid {worker.get('pid')})" if worker.get("pid") else "alive"
    if worker.get("exitedAt"):
        return f"exited {worker.get('exitCode')}"
    return "-"


def pending_text(view: dict[str, Any]) -> Text:
    """``steer 2, follow-up 0`` and, above the warning level, the warning in red."""
    pending = view.get("pending") or {}
    text = Text(f"steer {pending.get('steer', 0)}, follow-up {pending.get('followUp', 0)}")
    if pending.get("warning"):
        text.append(f"  ⚠ {pending['warning']}", style="bold red")
    return text


def tasks_text(view: dict[str, Any]) -> Text:
    """Each task with its status, coloured: ``build waiting, test running``."""
    text = Text()
    for n, (task_id, task) in enumerate(sorted((view.get("tasks") or {}).items())):
        status = str(_task(task).get("status", "?"))
        if n:
            text.append(", ")
        text.append(f"{task_id} ")
        text.append(status, style=_TASK_STYLES.get(status, ""))
    return text if text.plain else Text("-", style="dim")


def _task(entry: object) -> dict[str, Any]:
    """A task of the view; {} for an entry a hand-edited ``run.json`` made no object."""
    return entry if isinstance(entry, dict) else {}


def run_table(runs: list[dict[str, Any]]) -> Table:
    """One row per run: id, leader, owner, tasks, pending queues, worker."""
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("RUN", "LEADER", "OWNER", "TASKS", "PENDING", "WORKER"):
        table.add_column(column, overflow="fold")
    for view in runs:
        table.add_row(
            Text(str(view.get("runId", "?")), style="bold"),
            Text(str(view.get("leader") or "-")),
            Text(str(view.get("ownerSessionId") or "-")),
            tasks_text(view),
            pending_text(view),
            Text(worker_text(view)),
        )
    return table


def run_lines(view: dict[str, Any]) -> list[Text]:
    """The run in lines: who leads and owns it, its worker, each task (a waiting
    one with its question and how to answer it), message counts, pending queues."""
    rid = str(view.get("runId", "?"))
    head = Text(rid, style="bold")
    if view.get("createdAt"):
        head.append(f"  created {clock_text(view['createdAt'])}", style="dim")
    lines = [head]
    if view.get("corrupt"):  # the API's view of a run.json that did not read
        lines.append(Text(f"  corrupt: {view['corrupt']}", style="bold red"))
        lines.append(Text(f"  repair:  attn filebox validate {shlex.quote(rid)} --repair"))
    lines.append(Text(f"  leader: {view.get('leader') or '-'}"))
    lines.append(Text(f"  owner:  {view.get('ownerSessionId') or '-'}"))
    worker = view.get("worker") or {}
    line = Text(f"  worker: {worker_text(view)}")
    if worker.get("command"):
        line.append(f"  {shorten(shlex.join(map(str, worker['command'])), 80)}", style="dim")
    lines.append(line)
    tasks = view.get("tasks") or {}
    lines.append(Text(f"  {plural(len(tasks), 'task')}:"))
    for task_id, entry in sorted(tasks.items()):
        task = _task(entry)
        status = str(task.get("status", "?"))
        row = Text(f"    {task_id}  ")
        row.append(status, style=_TASK_STYLES.get(status, ""))
        lines.append(row)
        question = task.get("question")
        if status == "waiting" and isinstance(question, dict):
            lines.extend(question_lines(rid, task_id, question))
    counts = view.get("counts") or {}
    for box in ("inbox", "outbox", "steering"):
        if box in counts:
            shown = ", ".join(f"{n} {status}" for status, n in counts[box].items() if n)
            lines.append(Text(f"  {box}: {shown or 'empty'}"))
    lines.append(Text("  pending: ").append_text(pending_text(view)))
    return lines


def question_lines(run_id: str, task_id: str, question: dict[str, Any]) -> list[Text]:
    """A waiting task's question and the command that answers it."""
    kind = str(question.get("kind", "need_input"))
    asked = Text(f"      {kind}: ", style="magenta")
    asked.append(str(question.get("text", "")), style="bold")
    lines = [asked]
    options = [str(o) for o in question.get("options") or []]
    if options:
        lines.append(Text(f"      options: {' | '.join(options)}"))
    lines.append(Text(f"      answer: {answer_hint(run_id, task_id, kind, options)}", style="dim"))
    return lines


def answer_hint(run_id: str, task_id: str, kind: str, options: list[str]) -> str:
    """The ``attn filebox respond`` command line that answers a question of ``kind``."""
    if kind == "need_confirmation":
        text = "approved"
    elif options:
        text = options[0]
    else:
        text = "ANSWER"
    return f"attn filebox respond {shlex.quote(run_id)} {shlex.quote(task_id)} {shlex.quote(text)}"


def message_line(message: dict[str, Any]) -> Text:
    """``03:00:00.000 inbox message leader→build acknowledged fbm_…: text``."""
    status = str(message.get("status", "?"))
    text = Text(f"{clock_text(message.get('createdAt'))} ", style="dim")
    text.append(f"{message.get('box', '?')} {message.get('kind', '?')} ")
    text.append(f"{message.get('from', '?')}→{message.get('to', '?')} ")
    text.append(status, style=_MESSAGE_STYLES.get(status, ""))
    text.append(f" {message.get('id', '')}", style="dim")
    text.append(f": {shorten(message.get('body'), 120)}")
    return text


def event_line(event: dict[str, Any]) -> Text:
    """``#3 03:00:00.000 supervisor.contact build: Deploy v2?``."""
    text = Text(f"#{event.get('index', '?')} {clock_text(event.get('at'))} ", style="dim")
    kind = str(event.get("type", "?"))
    text.append(kind, style="bold magenta" if kind == "supervisor.contact" else "bold")
    if event.get("taskId"):
        text.append(f" {event['taskId']}")
    if event.get("message"):
        text.append(f": {shorten(event['message'], 120)}")
    return text


def outcome_line(verb: str, task_id: str, outcome: dict[str, Any]) -> str:
    """What a steer, follow-up, nudge or send did, in one line."""
    message = outcome.get("message") or {}
    if outcome.get("queued") and message:  # a nudge: written, but nobody reads it yet
        where = f"{message.get('box', '?')} {message.get('id', '?')}"
        return f"{verb} queued for {task_id} ({where}): no worker reads it now"
    if outcome.get("queued"):
        line = f"queued the {verb} for {task_id}: its worker cannot take it now"
        dropped = outcome.get("dropped") or []
        if dropped:
            oldest = plural(len(dropped), "entry", "entries")
            line += f" (the queue is full: dropped the oldest {oldest})"
        return line
    return f"{verb} delivered to {task_id} ({message.get('box', '?')} {message.get('id', '?')})"


__all__ = [
    "answer_hint",
    "event_line",
    "message_line",
    "outcome_line",
    "pending_text",
    "question_lines",
    "run_lines",
    "run_table",
    "tasks_text",
    "worker_text",
]
