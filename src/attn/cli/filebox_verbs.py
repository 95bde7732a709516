"""The leader's verbs of ``attn filebox``: send, respond, steer, follow-up, nudge, cancel,
and what every ``attn filebox`` command shares (arguments, paths, bodies).

The changing commands take ``--session S`` (who acts) and ``--force`` (act on a
run another session owns, FILE-08: sent as the JSON literal ``true``, never
as text). Registered on ``attn filebox`` by :func:`register`.

Spec: seed 003 ("Core Operations", "Run Ownership Enforcement"); FILE-06..08; issue 16.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from attn.cli.channel_api import check_text, present, segment
from attn.cli.client import DEFAULT_URL, CliError
from attn.cli.commands import JsonOption, TokenOption, UrlOption
from attn.cli.filebox_show import outcome_line
from attn.cli.output import examples, handle_errors, print_json, shorten
from attn.cli.tree_control import call

PRIORITIES = ("low", "normal", "high")

RunArgument = Annotated[str, typer.Argument(metavar="RUN", help="The run's id.")]
TaskArgument = Annotated[str, typer.Argument(metavar="TASK", help="The task's id.")]
TextArgument = Annotated[str, typer.Argument(metavar="TEXT", help="What to send.")]
SessionOption = Annotated[
    str | None, typer.Option("--session", help="The session acting (a run's owner).")
]
ForceOption = Annotated[
    bool, typer.Option("--force", help="Act on a run another session owns (FILE-08).")
]
PriorityOption = Annotated[str, typer.Option("--priority", help="low, normal or high.")]

_COMMANDS: list[tuple[str, str, Callable[..., Any]]] = []


def _command(name: str, *, epilog: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def add(function: Callable[..., Any]) -> Callable[..., Any]:
        _COMMANDS.append((name, epilog, function))
        return function

    return add


def register(app: typer.Typer) -> None:
    """Add the verbs to ``attn filebox`` (``app``)."""
    for name, epilog, function in _COMMANDS:
        app.command(name, epilog=epilog)(function)


def run_path(run: str, rest: str = "") -> str:
    """``/api/runs/{run}…`` with the run id encoded as one path segment.

    Raises:
        CliError: exit status 2 for a blank id or one holding ``/``.
    """
    return f"/api/runs/{segment(run, 'run id')}{rest}"


def task_path(run: str, task: str, verb: str) -> str:
    """``/api/runs/{run}/tasks/{task}/{verb}``, both ids encoded."""
    return run_path(run, f"/tasks/{segment(task, 'task id')}/{verb}")


def choice(value: str, what: str, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices``.

    Raises:
        CliError: exit status 2, naming the choices; nothing is sent.
    """
    if value not in choices:
        raise CliError(f"{what} {value!r} is not one of {', '.join(choices)}", exit_code=2)
    return value


def verb_body(session: str | None, force: bool, **fields: Any) -> dict[str, Any]:
    """A verb's JSON body: the fields that are set, ``session``, and ``force: true``
    only when ``--force`` was given."""
    return present({**fields, "session": session, "force": True if force else None})


@_command(
    "send",
    epilog=examples(
        "attn filebox send run_01... build 'use the staging cluster'",
        "attn filebox send run_01... '*' 'stop at the next checkpoint' --priority high",
    ),
)
@handle_errors
def send_command(
    run: RunArgument,
    to: Annotated[str, typer.Argument(metavar="TO", help="A task id, or '*' for every task.")],
    text: TextArgument,
    priority: PriorityOption = "normal",
    own_mailbox: Annotated[
        bool, typer.Option("--own-mailbox", help="Into the task's own inbox, not the run's.")
    ] = False,
    session: SessionOption = None,
    force: ForceOption = False,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Send a plain message to a task's inbox."""
    check_text(text, "TEXT", f"attn filebox send {run} {to} 'hello'")
    body = verb_body(
        session,
        force,
        to=to,
        body=text,
        priority=choice(priority, "--priority", PRIORITIES),
        ownMailbox=True if own_mailbox else None,
    )
    data = call(url, token, "POST", run_path(run, "/messages"), json=body)
    if as_json:
        print_json(data)
        return
    typer.echo(f"sent {(data.get('message') or {}).get('id')} to {to}")


@_command(
    "respond",
    epilog=examples(
        "attn filebox respond run_01... build approved",
        "attn filebox respond run_01... build 'use eu-west' --question q_01...",
        "attn filebox respond run_01... build rejected --session lead --force",
    ),
)
@handle_errors
def respond_command(
    run: RunArgument,
    task: TaskArgument,
    text: Annotated[
        str, typer.Argument(metavar="TEXT", help="The answer (a selection: the option).")
    ],
    question: Annotated[
        str | None,
        typer.Option("--question", help="The question answered (default: the open one)."),
    ] = None,
    session: SessionOption = None,
    force: ForceOption = False,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Answer a waiting task's question; the task runs again. A question answered
    before is not answered twice (the first answer is shown, nothing changes)."""
    check_text(text, "TEXT", f"attn filebox respond {run} {task} approved")
    body = verb_body(session, force, body=text, questionId=question)
    data = call(url, token, "POST", task_path(run, task, "respond"), json=body)
    if as_json:
        print_json(data)
        return
    message = data.get("message") or {}
    qid = (message.get("data") or {}).get("questionId", "?")
    if data.get("duplicate"):
        typer.echo(
            f"question {qid} of {task} was answered already: "
            f"{shorten(message.get('body'), 80)} (nothing changed)"
        )
    else:
        typer.echo(f"responded to {task} (question {qid}): {shorten(text, 80)}")


@_command(
    "steer",
    epilog=examples(
        "attn filebox steer run_01... build 'skip the slow tests'",
        "attn filebox steer run_01... build 'stop now' --priority high",
    ),
)
@handle_errors
def steer_command(
    run: RunArgument,
    task: TaskArgument,
    text: TextArgument,
    priority: PriorityOption = "normal",
    session: SessionOption = None,
    force: ForceOption = False,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Steer a running task: delivered at once when its worker can take it, else
    queued (the oldest is dropped when the queue is full)."""
    _send_live("steer", run, task, text, priority, session, force, url, token, as_json)


@_command(
    "follow-up", epilog=examples("attn filebox follow-up run_01... build 'then update the docs'")
)
@handle_errors
def follow_up_command(
    run: RunArgument,
    task: TaskArgument,
    text: TextArgument,
    priority: PriorityOption = "normal",
    session: SessionOption = None,
    force: ForceOption = False,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Send a non-blocking follow-up: into the inbox when the worker can take it,
    else queued like a steer."""
    _send_live("follow-up", run, task, text, priority, session, force, url, token, as_json)


def _send_live(
    verb: str,
    run: str,
    task: str,
    text: str,
    priority: str,
    session: str | None,
    force: bool,
    url: str,
    token: str | None,
    as_json: bool,
) -> None:
    check_text(text, "TEXT", f"attn filebox {verb} {run} {task} 'focus on the tests'")
    body = verb_body(session, force, body=text, priority=choice(priority, "--priority", PRIORITIES))
    data = call(url, token, "POST", task_path(run, task, verb), json=body)
    if as_json:
        print_json(data)
        return
    typer.echo(outcome_line(verb, task, data))


@_command(
    "nudge",
    epilog=examples(
        "attn filebox nudge run_01... build",
        "attn filebox nudge run_01... build 'are you stuck on the migration?'",
    ),
)
@handle_errors
def nudge_command(
    run: RunArgument,
    task: TaskArgument,
    text: Annotated[
        str | None, typer.Argument(metavar="[TEXT]", help="The request (default: seed 003's).")
    ] = None,
    session: SessionOption = None,
    force: ForceOption = False,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Ask a task for its status, blocker or next step (a steering message)."""
    if text is not None:
        check_text(text, "TEXT", f"attn filebox nudge {run} {task}")
    data = call(
        url,
        token,
        "POST",
        task_path(run, task, "nudge"),
        json=verb_body(session, force, body=text),
    )
    if as_json:
        print_json(data)
        return
    typer.echo(outcome_line("nudge", task, data))


@_command("cancel", epilog=examples("attn filebox cancel run_01... build --reason 'not needed'"))
@handle_errors
def cancel_command(
    run: RunArgument,
    task: TaskArgument,
    reason: Annotated[str | None, typer.Option("--reason", help="Why (in the event).")] = None,
    session: SessionOption = None,
    force: ForceOption = False,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Cancel a task that has not finished; its queued steers and follow-ups go too."""
    body = verb_body(session, force, reason=reason)
    data = call(url, token, "POST", task_path(run, task, "cancel"), json=body)
    if as_json:
        print_json(data)
        return
    typer.echo(f"{task}: {data.get('status')}")


__all__ = [
    "PRIORITIES",
    "ForceOption",
    "RunArgument",
    "SessionOption",
    "TaskArgument",
    "choice",
    "register",
    "run_path",
    "task_path",
    "verb_body",
]
