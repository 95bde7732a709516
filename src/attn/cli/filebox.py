"""``attn filebox``: runs of command-line workers on a running server, over its HTTP API.

    attn filebox list                          every run: leader, owner, tasks, pending, worker
    attn filebox show RUN                      one run; a waiting task's question and how to answer
    attn filebox read RUN [--box B] [--task T] [--status S] [--limit N]
    attn filebox send RUN TO TEXT              a plain message to a task (or '*')
    attn filebox ack RUN MSG                   acknowledge a message
    attn filebox respond RUN TASK TEXT [--question Q]   answer a waiting task (FILE-06)
    attn filebox steer RUN TASK TEXT           steer a running task (queued while it cannot)
    attn filebox follow-up RUN TASK TEXT       a non-blocking follow-up (FILE-07)
    attn filebox nudge RUN TASK [TEXT]         ask it for its status
    attn filebox cancel RUN TASK [--reason R]
    attn filebox validate RUN [--repair]       bad lines of the mailbox files (FILE-05)
    attn filebox events RUN [--after N]        what happened, oldest first

The changing commands take ``--session S`` (who acts) and ``--force`` (act on
a run another session owns, FILE-08: sent as the JSON literal ``true``).
``--json`` prints the server's JSON instead. Errors are one line on stderr:
exit status 1 when the server refused or cannot be reached, 2 for bad usage;
nothing is changed then. ``attn worker …`` is :mod:`attn.cli.worker`.

Spec: seed 003 ("Core Operations"); FILE-05..08; issue 16 (runs in the CLI).
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.text import Text

from attn.cli import filebox_verbs
from attn.cli.channel_api import segment
from attn.cli.client import DEFAULT_URL
from attn.cli.commands import JsonOption, TokenOption, UrlOption
from attn.cli.filebox_show import event_line, message_line, run_lines, run_table
from attn.cli.filebox_verbs import RunArgument, choice, run_path
from attn.cli.output import console, examples, handle_errors, plural, print_json, shorten
from attn.cli.tree_control import call

BOXES = ("inbox", "outbox", "steering")
STATUSES = ("queued", "delivered", "acknowledged")
#: Largest ``--limit`` of ``read`` and ``events`` (the server's).
MAX_READ_LIMIT = 5_000
MAX_EVENTS_LIMIT = 1_000

app = typer.Typer(
    name="filebox",
    help=(
        "Runs of command-line workers: their mailboxes, questions and the leader's "
        "verbs (respond, steer, follow-up, nudge). Exit status 1 when the server "
        "refuses, 2 for bad usage."
    ),
    epilog=examples(
        "attn filebox list",
        "attn filebox show run_01...",
        "attn filebox respond run_01... build approved",
    ),
    no_args_is_help=True,
)


def register(root: typer.Typer) -> None:
    """Add ``attn filebox …`` (these commands and :mod:`attn.cli.filebox_verbs`) to ``root``."""
    filebox_verbs.register(app)
    root.add_typer(app, name="filebox")


@app.command("list", epilog=examples("attn filebox list", "attn filebox list --json"))
@handle_errors
def list_command(
    url: UrlOption = DEFAULT_URL, token: TokenOption = None, as_json: JsonOption = False
) -> None:
    """List every run, newest first: leader, owner, task statuses, pending queues
    (with the backpressure warning) and whether the worker is alive."""
    data = call(url, token, "GET", "/api/runs")
    if as_json:
        print_json(data)
        return
    out = console()
    runs = data.get("runs") or []
    if not runs:
        out.print(Text("no runs (start one with: attn worker run -- CMD ...)", style="dim"))
        return
    out.print(run_table(runs))


@app.command("show", epilog=examples("attn filebox show run_01...", "attn filebox show R --json"))
@handle_errors
def show_command(
    run: RunArgument,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show one run: its worker, each task (a waiting one with its question and the
    command that answers it), message counts and pending queues."""
    view = call(url, token, "GET", run_path(run))
    if as_json:
        print_json(view)
        return
    out = console()
    for line in run_lines(view):
        out.print(line)


@app.command(
    "read",
    epilog=examples(
        "attn filebox read run_01...",
        "attn filebox read run_01... --box outbox --task build",
        "attn filebox read run_01... --status queued --limit 20 --json",
    ),
)
@handle_errors
def read_command(
    run: RunArgument,
    box: Annotated[str | None, typer.Option("--box", help="inbox, outbox or steering.")] = None,
    task: Annotated[str | None, typer.Option("--task", help="Only this task's.")] = None,
    status: Annotated[
        str | None, typer.Option("--status", help="queued, delivered or acknowledged.")
    ] = None,
    limit: Annotated[
        int, typer.Option(min=1, max=MAX_READ_LIMIT, help=f"The newest N (1..{MAX_READ_LIMIT}).")
    ] = 100,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Read a run's messages with their status, oldest first (nothing is marked read)."""
    if box is not None:
        choice(box, "--box", BOXES)
    if status is not None:
        choice(status, "--status", STATUSES)
    params = {"box": box, "taskId": task, "status": status, "limit": limit}
    data = call(url, token, "GET", run_path(run, "/messages"), params=params)
    if as_json:
        print_json(data)
        return
    out = console()
    messages = data.get("messages") or []
    if not messages:
        out.print(Text("no messages", style="dim"))
    for message in messages:
        out.print(message_line(message))


@app.command("ack", epilog=examples("attn filebox ack run_01... fbm_01..."))
@handle_errors
def ack_command(
    run: RunArgument,
    message: Annotated[str, typer.Argument(metavar="MSG", help="The message's id (fbm_…).")],
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Acknowledge a message (it stays in the history); again changes nothing."""
    path = run_path(run, f"/messages/{segment(message, 'message id')}/ack")
    data = call(url, token, "POST", path)
    if as_json:
        print_json(data)
        return
    typer.echo(f"acknowledged {data.get('id')}: {shorten(data.get('body'), 80)}")


@app.command(
    "validate",
    epilog=examples("attn filebox validate run_01...", "attn filebox validate run_01... --repair"),
)
@handle_errors
def validate_command(
    run: RunArgument,
    repair: Annotated[
        bool, typer.Option("--repair", help="Rewrite bad files keeping their valid lines.")
    ] = False,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Check a run's mailbox files: lines that are not messages, torn last lines, a
    corrupt delivery record or run.json (--repair rebuilds it from the events). Exit
    status 1 when problems remain (not repaired)."""
    body = {"repair": True} if repair else None
    report = call(url, token, "POST", run_path(run, "/validate"), json=body)
    if as_json:
        print_json(report)
    else:
        out = console()
        problems = report.get("problems") or []
        for problem in problems:
            line = Text(f"{problem.get('path', '?')}:{problem.get('line', '?')}: ")
            out.print(line.append(str(problem.get("reason", "not a message"))))
        for path in report.get("torn") or []:
            out.print(Text(f"{path}: torn last line (skipped by readers)"))
        if report.get("deliveryCorrupt"):
            out.print(Text("the delivery record is corrupt (read as empty)"))
        if report.get("manifestCorrupt"):
            out.print(Text("run.json is corrupt: the run takes no change until --repair"))
        for path in report.get("repaired") or []:
            out.print(Text(f"repaired {path}", style="green"))
        if report.get("ok"):
            out.print(Text("ok: every mailbox line is a message", style="green"))
        elif not report.get("repaired"):
            out.print(Text(f"{plural(len(problems), 'bad line')}; repair with --repair"))
    if not report.get("ok") and not report.get("repaired"):
        raise typer.Exit(1)


@app.command(
    "events",
    epilog=examples("attn filebox events run_01...", "attn filebox events run_01... --after 10"),
)
@handle_errors
def events_command(
    run: RunArgument,
    after: Annotated[
        int, typer.Option("--after", min=0, max=10**9, help="Only events after this index.")
    ] = 0,
    limit: Annotated[
        int, typer.Option(min=1, max=MAX_EVENTS_LIMIT, help=f"Rows (1..{MAX_EVENTS_LIMIT}).")
    ] = 200,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show what happened in a run, oldest first: worker started and exited,
    questions, answers, steers, follow-ups, nudges, cancels."""
    data = call(
        url, token, "GET", run_path(run, "/events"), params={"after": after, "limit": limit}
    )
    if as_json:
        print_json(data)
        return
    out = console()
    events = data.get("events") or []
    if not events:
        out.print(Text("no events", style="dim"))
    for event in events:
        out.print(event_line(event))


__all__ = ["BOXES", "MAX_EVENTS_LIMIT", "MAX_READ_LIMIT", "STATUSES", "app", "register"]
