"""``attn cancel`` and ``attn control``: steer an agent of a running server.

    attn cancel AGENT [--reason TEXT] [--hard]     stop the current work for good
    attn control AGENT start|stop|pause|resume      the agent's attention loop

They call ``POST /api/agents/{agentId}/cancel`` and
``POST /api/agents/{agentId}/control/{action}`` (see :mod:`attn.server.routes_control`).

Spec: 000 §5 (control); issue 3 point 6.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any
from urllib.parse import quote

import typer

from attn.cli.client import DEFAULT_URL, ApiClient, CliError
from attn.cli.commands import JsonOption, TokenOption, UrlOption
from attn.cli.output import examples, handle_errors, print_json


class Action(StrEnum):
    """What ``attn control`` does to the agent's loop."""

    START = "start"
    STOP = "stop"
    PAUSE = "pause"
    RESUME = "resume"


def register(app: typer.Typer) -> None:
    """Add ``attn cancel`` and ``attn control`` to ``app``."""
    app.command(
        "cancel",
        epilog=examples(
            "attn cancel alice",
            "attn cancel alice --reason 'wrong repository' --hard --json",
        ),
    )(cancel)
    app.command(
        "control",
        epilog=examples("attn control alice pause", "attn control alice resume --json"),
    )(control)


def _path(name: str) -> str:
    if not name.strip():
        raise CliError("the agent name is empty", exit_code=2)
    return quote(name, safe="")


@handle_errors
def cancel(
    agent: Annotated[str, typer.Argument(metavar="AGENT", help="Name of the agent.")],
    reason: Annotated[
        str, typer.Option(help="Why; recorded with the item (1..500 characters).")
    ] = "cancelled by user",
    hard: Annotated[
        bool,
        typer.Option("--hard", help="Stop the brain at once instead of at its next yield point."),
    ] = False,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Cancel what an agent is working on; the item ends and is not retried."""
    if not reason.strip() or len(reason) > 500:
        raise CliError("--reason must be 1 to 500 characters", exit_code=2)
    body: dict[str, Any] = {"reason": reason, "hard": hard}
    with ApiClient(url, token=token) as client:
        data = client.request("POST", f"/api/agents/{_path(agent)}/cancel", json=body)
    if as_json:
        print_json(data)
    elif data.get("mailboxItemId"):
        how = "now" if hard else "at its next yield point"
        typer.echo(f"cancelling {data['mailboxItemId']} of {agent} ({how})")
    else:
        typer.echo(f"{agent} is idle; nothing to cancel")


@handle_errors
def control(
    agent: Annotated[str, typer.Argument(metavar="AGENT", help="Name of the agent.")],
    action: Annotated[
        Action,
        typer.Argument(
            metavar="ACTION",
            help="start, stop, pause or resume (stop and pause requeue the current item).",
            case_sensitive=False,
        ),
    ],
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Start, stop, pause or resume an agent's attention loop."""
    with ApiClient(url, token=token) as client:
        data = client.request("POST", f"/api/agents/{_path(agent)}/control/{action.value}")
    if as_json:
        print_json(data)
        return
    if not data.get("running"):
        now = "stopped"
    elif data.get("paused"):
        now = "paused"
    else:
        now = f"running ({data.get('state', '?')}, {data.get('queueDepth', 0)} queued)"
    typer.echo(f"{data.get('agentId', agent)}: {now}")
