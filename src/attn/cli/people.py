"""``attn notifications`` and ``attn session``: people's bell and an agent's main session,
on a running server, over its HTTP API.

    attn notifications list [--user U] [--type T] [--unread] [--limit N]
    attn notifications read ID                       mark one read
    attn notifications read-all [--user U]           mark all of a person's read
    attn session AGENT [--mind] [--limit N]          the agent's main session, oldest first

``attn approvals …`` is :mod:`attn.cli.approvals`. ``--json`` prints the server's
JSON instead. Errors are one line on stderr: exit status 1 when the server
refused or cannot be reached, 2 for bad usage; nothing is changed then.

Spec: 000 §12.4 (the bell's REST), §20 (the main session); acceptance PPL-01;
issue 15 (people in the CLI).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.text import Text

from attn.cli.channel_api import segment
from attn.cli.client import DEFAULT_URL
from attn.cli.commands import JsonOption, TokenOption, UrlOption
from attn.cli.output import console, examples, handle_errors, plural, print_json
from attn.cli.people_show import notification_table, session_line
from attn.cli.tree_control import AgentArgument, agent_path, call

#: Largest ``--limit`` of ``attn notifications list`` and ``attn session`` (the server's).
MAX_NOTIFICATION_LIMIT = 500
MAX_SESSION_LIMIT = 500

UserOption = Annotated[
    str | None, typer.Option("--user", help="Whose notifications (default: the owner's).")
]

notifications_app = typer.Typer(
    name="notifications",
    help=(
        "People's notification bell: list, mark read. "
        "Exit status 1 when the server refuses, 2 for bad usage."
    ),
    epilog=examples(
        "attn notifications list --unread",
        "attn notifications read ntf_01...",
        "attn notifications read-all --user ann",
    ),
    no_args_is_help=True,
)


def register(root: typer.Typer) -> None:
    """Add ``attn notifications …`` and ``attn session`` to ``root``."""
    root.add_typer(notifications_app, name="notifications")
    root.command(
        "session",
        epilog=examples(
            "attn session alice",
            "attn session alice --mind --limit 100",
            "attn session alice --json",
        ),
    )(session_command)


@notifications_app.command(
    "list",
    epilog=examples(
        "attn notifications list",
        "attn notifications list --user ann --unread",
        "attn notifications list --type approval_request --limit 10 --json",
    ),
)
@handle_errors
def list_command(
    user: UserOption = None,
    type_: Annotated[
        str | None, typer.Option("--type", help="Only this type (approval_request, ...).")
    ] = None,
    unread: Annotated[bool, typer.Option("--unread", help="Only unread ones.")] = False,
    limit: Annotated[
        int,
        typer.Option(
            min=1, max=MAX_NOTIFICATION_LIMIT, help=f"Rows (1..{MAX_NOTIFICATION_LIMIT})."
        ),
    ] = 20,
    offset: Annotated[int, typer.Option(min=0, max=1_000_000, help="Rows to skip.")] = 0,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """List a person's notifications, newest first, with their unread count."""
    params: dict[str, Any] = {"userId": user, "type": type_, "limit": limit, "offset": offset}
    if unread:
        params["unread"] = "true"
    page = call(url, token, "GET", "/api/notifications", params=params)
    if as_json:
        print_json(page)
        return
    out = console()
    if not page.get("notifications"):
        what = "unread notifications" if unread else "notifications"
        out.print(Text(f"no {what} ({page.get('unreadCount', 0)} unread)", style="dim"))
        return
    out.print(notification_table(page, user))


@notifications_app.command(
    "read",
    epilog=examples("attn notifications read ntf_01...", "attn notifications read ID --json"),
)
@handle_errors
def read_command(
    notification: Annotated[str, typer.Argument(metavar="ID", help="The notification's id.")],
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Mark one notification read (marking it again changes nothing)."""
    path = f"/api/notifications/{segment(notification, 'notification id')}/read"
    data = call(url, token, "POST", path)
    if as_json:
        print_json(data)
        return
    shown = data.get("notification") or {}
    typer.echo(f"read {shown.get('id')}: {shown.get('title', '')}")


@notifications_app.command(
    "read-all",
    epilog=examples("attn notifications read-all", "attn notifications read-all --user ann"),
)
@handle_errors
def read_all_command(
    user: UserOption = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Mark every notification of a person read."""
    body = {"userId": user} if user is not None else {}
    data = call(url, token, "POST", "/api/notifications/mark-all-read", json=body)
    if as_json:
        print_json(data)
        return
    typer.echo(
        f"marked {plural(data.get('updated', 0), 'notification')} read; "
        f"{data.get('unreadCount', 0)} unread"
    )


@handle_errors
def session_command(
    agent: AgentArgument,
    mind: Annotated[
        bool, typer.Option("--mind", help="Also the activity lines (the Mind view).")
    ] = False,
    limit: Annotated[
        int, typer.Option(min=1, max=MAX_SESSION_LIMIT, help=f"Messages (1..{MAX_SESSION_LIMIT}).")
    ] = 50,
    before: Annotated[
        int | None, typer.Option(min=1, max=2**62, help="Only older than this seq.")
    ] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show an agent's main session: people's chat, its replies and notify messages, and
    with --mind one activity line per processed non-chat item."""
    params = {"view": "mind" if mind else "chat", "limit": limit, "beforeSeq": before}
    page = call(url, token, "GET", agent_path(agent, "/session"), params=params)
    if as_json:
        print_json(page)
        return
    out = console()
    messages: list[dict[str, Any]] = page.get("messages", [])
    if not messages:
        out.print(Text(f"{agent}: the main session is empty", style="dim"))
    if page.get("nextBeforeSeq") is not None:
        more = " --mind" if mind else ""
        older = page["nextBeforeSeq"]
        out.print(Text(f"older: attn session {agent}{more} --before {older}", style="dim"))
    for message in messages:
        out.print(session_line(message))


__all__ = ["MAX_NOTIFICATION_LIMIT", "MAX_SESSION_LIMIT", "notifications_app", "register"]
