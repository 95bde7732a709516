"""``attn worker``: run a command-line program as a worker, and the worker's own commands.

On the leader's side, over a running server's HTTP API::

    attn worker run [--run R] [--task T] [--leader A] [--owner S] [--detach] -- CMD ARGS...
    attn worker stop RUN

``run`` starts the program on the server (``POST /api/workers``, in this
folder), then follows the run's events (``GET /api/runs/{runId}/events``,
polled) until the worker exits, printing each one; a question the worker asks
is printed with the command that answers it. It exits with the worker's exit
code (128 + N when signal N ended it). ``--detach`` returns once it started.
Ctrl+C stops following; the worker goes on.

On the worker's side, for shell workers (``ATTN_RUN_DIR`` and ``ATTN_TASK_ID``
set by ``attn worker run``; no server needed, the run's files are used
directly through :class:`attn.filebox.client.FileboxClient`)::

    attn worker ask TEXT [--kind K] [--option X]... [--timeout S]
    attn worker inbox | steering         unacknowledged messages as JSON lines (now delivered)
    attn worker ack ID | send TEXT | heartbeat

``ask`` prints the answer's text on stdout and exits 0 when answered (for a
confirmation: approved), 1 when a confirmation was rejected, 4 when no answer
came in ``--timeout`` seconds, 5 when nobody will answer (the task was cancelled
or had finished, or a newer question replaced it). Outside a run these commands
exit 2 with one line.

Spec: seed 003 ("Supervisor Contact", "Core Operations"); FILE-10..12; issue 16.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Annotated, Any

import typer
from rich.text import Text

from attn.cli.channel_api import check_text, check_timeout, present
from attn.cli.client import DEFAULT_URL, ApiClient, CliError
from attn.cli.commands import JsonOption, TokenOption, UrlOption
from attn.cli.filebox_show import answer_hint, event_line
from attn.cli.filebox_verbs import RunArgument, run_path
from attn.cli.output import console, examples, handle_errors, print_json, warn
from attn.cli.tree_control import call
from attn.errors import AttnError, QuestionWithdrawn, RunNotFound
from attn.filebox.client import FileboxClient
from attn.filebox.contact import CONTACT_KINDS

#: Exit status of ``attn worker ask`` when no answer came in time.
ASK_TIMEOUT_EXIT = 4
#: Exit status of ``attn worker ask`` when nobody will answer (task cancelled, question replaced).
ASK_WITHDRAWN_EXIT = 5
#: Seconds between two looks at the run's events while following a worker.
POLL_S = 0.2
#: Events read per look (the server's largest page).
EVENT_PAGE = 1_000

app = typer.Typer(
    name="worker",
    help=(
        "Run a command-line program as a worker of a run and follow it (run, stop), "
        "and the worker's own commands (ask, inbox, steering, ack, send, heartbeat)."
    ),
    epilog=examples(
        "attn worker run -- ./deploy.sh v2",
        "attn worker run --run release --task deploy --leader lead -- ./deploy.sh",
        "attn worker ask 'Deploy v2 to production?'   (inside a worker)",
    ),
    no_args_is_help=True,
)


def register(root: typer.Typer) -> None:
    """Add ``attn worker …`` to ``root``."""
    root.add_typer(app, name="worker")


# ------------------------------------------------------------------ the leader's side


def exit_status(code: object) -> int:
    """A worker's exit code as this process's exit status: 0..255 as is, 128 + N for a
    worker that signal N ended (a negative code), 1 when unknown."""
    if not isinstance(code, int) or isinstance(code, bool):
        return 1
    if code < 0:
        return min(128 - code, 255)
    return code if code <= 255 else 1


def _last_index(client: ApiClient, run: str | None) -> int:
    """The index of the run's newest event (0 for a run that does not exist yet)."""
    if run is None:
        return 0
    after = 0
    while True:
        try:
            page = client.request(
                "GET", run_path(run, "/events"), params={"after": after, "limit": EVENT_PAGE}
            )
        except CliError as exc:
            if exc.code == "run_not_found":
                return 0
            raise
        events = page.get("events") or []
        if not events:
            return after
        after = int(events[-1]["index"])


def _contact_line(run: str, event: dict[str, Any]) -> Text:
    data = event.get("data") or {}
    task = str(event.get("taskId") or "worker")
    kind = str(data.get("contactType", "need_input"))
    options = [str(o) for o in data.get("options") or []]
    text = Text(f"{task} asks ({kind}): ", style="bold magenta")
    text.append(str(event.get("message", "")), style="bold")
    if options:
        text.append(f"  [{' | '.join(options)}]")
    text.append(f"; answer with `{answer_hint(run, task, kind, options)}`")
    return text


def follow(
    client: ApiClient, run: str, after: int, *, as_json: bool, poll_s: float = POLL_S
) -> int:
    """Print the run's events after index ``after`` until a worker exits; its exit code.

    Raises:
        CliError: the server went away or refused.
    """
    out = console()
    while True:
        page = client.request(
            "GET", run_path(run, "/events"), params={"after": after, "limit": EVENT_PAGE}
        )
        events = page.get("events") or []
        for event in events:
            after = int(event["index"])
            if as_json:
                sys.stdout.write(json.dumps(event, ensure_ascii=False) + "\n")
                sys.stdout.flush()
            elif event.get("type") == "supervisor.contact":
                out.print(_contact_line(run, event))
            else:
                out.print(event_line(event))
            if event.get("type") == "worker.exited":
                return exit_status((event.get("data") or {}).get("exitCode"))
        if not events:
            time.sleep(poll_s)


@app.command(
    "run",
    context_settings={"allow_interspersed_args": False},
    epilog=examples(
        "attn worker run -- ./build.sh --fast",
        "attn worker run --run release --task deploy --leader lead -- ./deploy.sh v2",
        "attn worker run --owner ann --detach -- python3 worker.py",
    ),
)
@handle_errors
def run_command(
    command: Annotated[
        list[str], typer.Argument(metavar="CMD", help="The program and its arguments (after --).")
    ],
    run: Annotated[
        str | None, typer.Option("--run", help="The run (default: a new one; made if missing).")
    ] = None,
    task: Annotated[str, typer.Option("--task", help="The worker's task.")] = "worker",
    leader: Annotated[
        str | None, typer.Option("--leader", help="The hosted agent that gets its questions.")
    ] = None,
    owner: Annotated[
        str | None, typer.Option("--owner", help="The session that owns a new run (FILE-08).")
    ] = None,
    detach: Annotated[
        bool, typer.Option("--detach", help="Return once it started; do not follow it.")
    ] = False,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the start answer and each event as JSON.")
    ] = False,
) -> None:
    """Start CMD on the server as the worker of a task (in this folder), print the
    run's events as they come, and exit with the worker's exit code."""
    body = present(
        {
            "command": command,
            "runId": run,
            "taskId": task,
            "leader": leader,
            "owner": owner,
            "cwd": os.getcwd(),
        }
    )
    with ApiClient(url, token=token) as client:
        after = _last_index(client, run)
        started = client.request("POST", "/api/workers", json=body)
        rid = str(started["run"]["runId"])
        if as_json:
            sys.stdout.write(json.dumps(started, ensure_ascii=False) + "\n")
        else:
            typer.echo(
                f"worker pid {started.get('pid')} runs task {task} of run {rid} "
                f"(attn filebox show {rid})"
            )
        sys.stdout.flush()
        if detach:
            return
        try:
            code = follow(client, rid, after, as_json=as_json)
        except KeyboardInterrupt:
            warn(f"stopped following; the worker goes on (stop it: attn worker stop {rid})")
            raise typer.Exit(130) from None
    raise typer.Exit(code)


@app.command("stop", epilog=examples("attn worker stop run_01..."))
@handle_errors
def stop_command(
    run: RunArgument,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Stop the run's worker (SIGTERM, then SIGKILL after 5 s) and wait for its exit."""
    data = call(url, token, "DELETE", run_path(run, "/worker"))
    if as_json:
        print_json(data)
        return
    typer.echo(f"the worker of {run} exited with code {data.get('exitCode')}")


# ------------------------------------------------------------------ the worker's side


def _client() -> FileboxClient:
    """The worker's client, from ``ATTN_RUN_DIR`` and ``ATTN_TASK_ID``.

    Raises:
        CliError: exit status 2 outside a run, or when the folder holds no run.
    """
    try:
        client = FileboxClient.from_env()
        client.run.manifest()
    except RunNotFound:
        raise CliError(
            f"ATTN_RUN_DIR ({os.environ.get('ATTN_RUN_DIR')}) holds no run", exit_code=2
        ) from None
    except AttnError as exc:  # InvalidInput (not set), UnsafePath (not a run folder)
        raise CliError(f"not inside a run: {exc.message}", exit_code=2) from None
    return client


def _json_lines(messages: list[dict[str, Any]]) -> None:
    for message in messages:
        sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
    sys.stdout.flush()


@app.command(
    "ask",
    epilog=examples(
        "attn worker ask 'Deploy v2 to production?'",
        "attn worker ask 'Which branch?' --kind need_input --timeout 600",
        "attn worker ask 'Which region?' --kind need_selection --option eu-west --option us-east",
    ),
)
@handle_errors
def ask_command(
    text: Annotated[str, typer.Argument(metavar="TEXT", help="The question.")],
    kind: Annotated[
        str, typer.Option("--kind", help="need_confirmation, need_input or need_selection.")
    ] = "need_confirmation",
    option: Annotated[
        list[str] | None, typer.Option("--option", help="A choice of a selection; repeatable.")
    ] = None,
    timeout: Annotated[
        float | None, typer.Option("--timeout", help="Give up after S seconds (exit 4).")
    ] = None,
) -> None:
    """Ask the leader for a decision and wait for the answer (a supervisor contact).
    Prints the answer; exit 0 answered or approved, 1 rejected, 4 no answer in time,
    5 nobody will answer (the task was cancelled, or a newer question replaced it)."""
    if kind not in CONTACT_KINDS:
        kinds = ", ".join(CONTACT_KINDS)
        raise CliError(f"--kind must be one of {kinds}, got {kind!r}", exit_code=2)
    check_text(text, "TEXT", "attn worker ask 'Deploy v2 to production?'")
    check_timeout(timeout)
    client = _client()
    try:
        answer = client.ask(text, kind, options=tuple(option or ()), timeout_s=timeout)
    except TimeoutError:
        sys.stderr.write(f"attn: no answer in {timeout:g} s\n")
        raise typer.Exit(ASK_TIMEOUT_EXIT) from None
    except QuestionWithdrawn as exc:
        sys.stderr.write(f"attn: {exc.message}\n")
        raise typer.Exit(ASK_WITHDRAWN_EXIT) from None
    typer.echo(answer.body)
    if answer.approved is False:
        raise typer.Exit(1)


@app.command("inbox", epilog=examples("attn worker inbox", "attn worker inbox | jq -r .body"))
@handle_errors
def inbox_command() -> None:
    """Print every unacknowledged inbox message of this task as a JSON line, oldest
    first, and mark them delivered (replay: read it at start and after each wait)."""
    _json_lines(_client().replay())


@app.command("steering", epilog=examples("attn worker steering | jq -r .body"))
@handle_errors
def steering_command() -> None:
    """Print the unacknowledged steers and nudges for this task as JSON lines, oldest
    first, and mark them delivered."""
    _json_lines(_client().steering())


@app.command("ack", epilog=examples("attn worker ack fbm_01..."))
@handle_errors
def ack_command(
    message: Annotated[str, typer.Argument(metavar="ID", help="The message's id (fbm_…).")],
) -> None:
    """Acknowledge a message: handled (it is not delivered again after a restart)."""
    _client().ack(message)


@app.command("send", epilog=examples("attn worker send 'tests pass; deploying next'"))
@handle_errors
def send_command(
    text: Annotated[str, typer.Argument(metavar="TEXT", help="What to tell the leader.")],
) -> None:
    """Write a message to the leader (the run's outbox); prints its id."""
    check_text(text, "TEXT", "attn worker send 'tests pass'")
    typer.echo(_client().send(text)["id"])


@app.command("heartbeat", epilog=examples("attn worker heartbeat"))
@handle_errors
def heartbeat_command() -> None:
    """Tell the leader this worker is alive (a worker nobody supervises counts as
    alive for 60 s after each heartbeat)."""
    _client().heartbeat()


__all__ = ["ASK_TIMEOUT_EXIT", "ASK_WITHDRAWN_EXIT", "app", "exit_status", "follow", "register"]
