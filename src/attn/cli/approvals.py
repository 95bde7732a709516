"""``attn approvals``: decisions agents asked people for, on a running server, over its
HTTP API.

    attn approvals list [--state S ...] [--agent A]   oldest first (default: every state)
    attn approvals show ID                            one approval: options, expiry, answer
    attn approvals answer ID [OPTION] [--comment T] [--user U]
    attn approvals cancel ID [--reason T]

The first answer wins, from any surface (web UI, CLI, REST): a later one is
refused with the approval's current state (exit status 1) and changes nothing.
``--json`` prints the server's JSON instead. Errors are one line on stderr:
exit status 1 when the server refused or cannot be reached, 2 for bad usage.

Spec: 000 §13.2 (request_user_approval); acceptance PPL-04, PPL-05, PPL-08;
issue 15 (approvals in the CLI).
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.text import Text

from attn.cli.channel_api import present, segment
from attn.cli.client import DEFAULT_URL, CliError
from attn.cli.commands import JsonOption, TokenOption, UrlOption
from attn.cli.output import console, examples, handle_errors, print_json
from attn.cli.people_show import approval_lines, approval_table, closed_line
from attn.cli.tree_control import call

#: The states an approval can be in.
STATES = ("pending", "approved", "rejected", "answered", "expired", "cancelled")
#: Largest ``--limit`` of ``attn approvals list`` (the server's).
MAX_APPROVAL_LIMIT = 1000

app = typer.Typer(
    name="approvals",
    help=(
        "Decisions agents asked people for: list, show, answer, cancel. "
        "Exit status 1 when the server refuses, 2 for bad usage."
    ),
    epilog=examples(
        "attn approvals list --state pending",
        "attn approvals answer apr_01... approve --comment 'go ahead'",
        "attn approvals cancel apr_01... --reason 'not needed'",
    ),
    no_args_is_help=True,
)

ApprovalArgument = Annotated[str, typer.Argument(metavar="ID", help="The approval's id (apr_…).")]


def register(root: typer.Typer) -> None:
    """Add ``attn approvals …`` to ``root``."""
    root.add_typer(app, name="approvals")


def _path(approval: str, rest: str = "") -> str:
    return f"/api/approvals/{segment(approval, 'approval id')}{rest}"


@app.command(
    "list",
    epilog=examples(
        "attn approvals list",
        "attn approvals list --state pending --agent alice",
        "attn approvals list --state approved --state rejected --json",
    ),
)
@handle_errors
def list_command(
    state: Annotated[
        list[str] | None,
        typer.Option("--state", help=f"Only this state ({', '.join(STATES)}); repeatable."),
    ] = None,
    agent: Annotated[str | None, typer.Option("--agent", help="Only this agent's.")] = None,
    limit: Annotated[
        int, typer.Option(min=1, max=MAX_APPROVAL_LIMIT, help=f"Rows (1..{MAX_APPROVAL_LIMIT}).")
    ] = 100,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """List approvals oldest first: agent, state, title, options, and who answered how."""
    states = list(dict.fromkeys(state or []))
    bad = [s for s in states if s not in STATES]
    if bad:
        raise CliError(
            f"--state {bad[0]!r} is not a state; use one of {', '.join(STATES)}", exit_code=2
        )
    params = {"state": states or None, "agentId": agent, "limit": limit}
    page = call(url, token, "GET", "/api/approvals", params=params)
    if as_json:
        print_json(page)
        return
    out = console()
    if not page.get("approvals"):
        which = f"{' or '.join(states)} " if states else ""
        out.print(Text(f"no {which}approvals" + (f" of {agent}" if agent else ""), style="dim"))
        return
    out.print(approval_table(page))


@app.command(
    "show", epilog=examples("attn approvals show apr_01...", "attn approvals show ID --json")
)
@handle_errors
def show_command(
    approval: ApprovalArgument,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show one approval: what is asked, its options, expiry and answer."""
    data = call(url, token, "GET", _path(approval))
    if as_json:
        print_json(data)
        return
    out = console()
    for line in approval_lines(data.get("approval") or {}):
        out.print(line)


@app.command(
    "answer",
    epilog=examples(
        "attn approvals answer apr_01... approve",
        "attn approvals answer apr_01... reject --comment 'too risky now'",
        "attn approvals answer apr_01... --comment 'use the staging cluster'",
    ),
)
@handle_errors
def answer_command(
    approval: ApprovalArgument,
    option: Annotated[
        str | None,
        typer.Argument(
            metavar="OPTION", help="The chosen option's id (approve, reject, or its own)."
        ),
    ] = None,
    comment: Annotated[str, typer.Option("--comment", help="Free text with the answer.")] = "",
    user: Annotated[
        str | None, typer.Option("--user", help="Who answers (default: the owner).")
    ] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Answer a pending approval; the first answer wins and resumes the parked work."""
    if option is None and not comment.strip():
        raise CliError(
            f"name an OPTION or give --comment, e.g. attn approvals answer {approval} approve "
            "(nothing was answered)",
            exit_code=2,
        )
    body = present({"option": option, "comment": comment or None, "userId": user})
    data = call(url, token, "POST", _path(approval, "/answer"), json=body)
    if as_json:
        print_json(data)
        return
    typer.echo(closed_line(data, "answered"))


@app.command(
    "cancel",
    epilog=examples(
        "attn approvals cancel apr_01...", "attn approvals cancel apr_01... --reason 'obsolete'"
    ),
)
@handle_errors
def cancel_command(
    approval: ApprovalArgument,
    reason: Annotated[str, typer.Option("--reason", help="Why; the resumed work reads it.")] = "",
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Cancel a pending approval: the parked work resumes with status cancelled."""
    data = call(
        url, token, "POST", _path(approval, "/cancel"), json=present({"reason": reason or None})
    )
    if as_json:
        print_json(data)
        return
    typer.echo(closed_line(data, "cancelled"))


__all__ = ["MAX_APPROVAL_LIMIT", "STATES", "app", "register"]
