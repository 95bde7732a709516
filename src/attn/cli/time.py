"""``attn time``: an agent's pending callbacks, wakeups and heartbeat on a running server.

    attn time list AGENT             pending callbacks and wakeups, with next fire time
    attn time cancel AGENT ID        cancel one
    attn time wakeup AGENT --in S    schedule a wakeup (or --at TIME, --every S, --note)
    attn time heartbeat AGENT        show the heartbeat; --interval S changes it

Spec: issue 5 point 7 (REST and CLI: list with next fire time, cancel one).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any
from urllib.parse import quote

import typer
from rich.markup import escape
from rich.table import Table

from attn.cli.client import DEFAULT_URL, ApiClient, CliError
from attn.cli.commands import JsonOption, TokenOption, UrlOption
from attn.cli.output import console, examples, handle_errors, print_json, shorten

app = typer.Typer(
    name="time",
    help="Pending callbacks, wakeups and heartbeats of an agent on a running server.",
    epilog=examples("attn time list alice", "attn time wakeup alice --in 3600 --note 'check CI'"),
    no_args_is_help=True,
)


def _path(name: str) -> str:
    """``name`` as one URL path segment."""
    if not name.strip():
        raise CliError("the agent name is empty", exit_code=2)
    return quote(name, safe="")


def register(root: typer.Typer) -> None:
    """Add ``attn time …`` to ``root``."""
    root.add_typer(app, name="time")


@app.command(
    "list", epilog=examples("attn time list alice", "attn time list alice --type wakeup --json")
)
@handle_errors
def list_command(
    agent: Annotated[str, typer.Argument(help="Name of the agent.")],
    types: Annotated[
        str | None,
        typer.Option(
            "--type", help="Only these types, comma-separated (wakeup, background_exec, a2a_reply)."
        ),
    ] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """List an agent's pending callbacks and wakeups with their next fire time."""
    with ApiClient(url, token=token) as client:
        data = client.request(
            "GET", f"/api/agents/{_path(agent)}/callbacks", params={"type": types}
        )
    if as_json:
        print_json(data)
        return
    callbacks: list[dict[str, Any]] = data.get("callbacks", [])
    total = data.get("count", len(callbacks))
    shown = f" (the first {len(callbacks)} shown)" if data.get("nextCursor") else ""
    table = Table(title=escape(f"{agent}: {total} pending callbacks and wakeups{shown}"))
    for column in ("id", "type", "next fire", "every", "expires", "status", "what"):
        table.add_column(column, no_wrap=column != "what")
    for callback in callbacks:
        every = callback.get("recurringS")
        table.add_row(
            escape(str(callback.get("id", ""))),
            escape(str(callback.get("type", ""))),
            escape(callback.get("nextFireAt") or "-"),
            f"{every:g} s" if isinstance(every, int | float) else "-",
            escape(callback.get("expiresAt") or "never"),
            escape(str(callback.get("status", ""))),
            escape(
                shorten(
                    callback.get("note")
                    or callback.get("command")
                    or callback.get("correlationId")
                    or ""
                )
            ),
        )
    console().print(table)


@app.command("cancel", epilog=examples("attn time cancel alice cb_0192f3a4b5c6"))
@handle_errors
def cancel_command(
    agent: Annotated[str, typer.Argument(help="Name of the agent.")],
    callback_id: Annotated[
        str, typer.Argument(metavar="ID", help="The callback or wakeup id (cb_…).")
    ],
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Cancel one pending callback or wakeup (a running background command is killed)."""
    if not callback_id.strip():
        raise CliError("the callback id is empty", exit_code=2)
    with ApiClient(url, token=token) as client:
        data = client.request(
            "DELETE", f"/api/agents/{_path(agent)}/callbacks/{_path(callback_id)}"
        )
    if as_json:
        print_json(data)
    else:
        cancelled = data.get("cancelled", {})
        typer.echo(
            f"cancelled {cancelled.get('type', 'callback')} {cancelled.get('id')} of {agent}"
        )


def example_at(now: datetime | None = None) -> str:
    """An ``--at`` value for examples: 08:00 UTC on the day after ``now`` (default: today).

    A fixed date in the help text would lie once it has passed.
    """
    day = (now or datetime.now(UTC)).astimezone(UTC).date() + timedelta(days=1)
    return f"{day.isoformat()}T08:00:00Z"


@app.command(
    "wakeup",
    epilog=examples(
        "attn time wakeup alice --in 3600 --note 'check the build'",
        f"attn time wakeup alice --at {example_at()} --every 86400 --note 'daily review'",
    ),
)
@handle_errors
def wakeup_command(
    agent: Annotated[str, typer.Argument(help="Name of the agent.")],
    delay_s: Annotated[
        float | None, typer.Option("--in", help="Seconds from now.", show_default=False)
    ] = None,
    at: Annotated[
        str | None, typer.Option("--at", help="An ISO 8601 time with a timezone.")
    ] = None,
    every_s: Annotated[
        float | None, typer.Option("--every", help="Repeat every this many seconds (>= 60).")
    ] = None,
    note: Annotated[str | None, typer.Option(help="What the agent should do when woken.")] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Schedule a wakeup for an agent: a system event with your note at that time."""
    if (delay_s is None) == (at is None):
        raise CliError("give exactly one of --in SECONDS or --at TIME", exit_code=2)
    _require_finite("--in", delay_s)
    _require_finite("--every", every_s)
    body: dict[str, Any] = {"delayS": delay_s, "at": at, "recurringS": every_s, "note": note}
    with ApiClient(url, token=token) as client:
        data = client.request(
            "POST",
            f"/api/agents/{_path(agent)}/wakeups",
            json={k: v for k, v in body.items() if v is not None},
        )
    if as_json:
        print_json(data)
    else:
        wakeup = data.get("wakeup", {})
        typer.echo(f"wakeup {wakeup.get('id')} for {agent} at {wakeup.get('nextFireAt')}")


@app.command(
    "heartbeat",
    epilog=examples("attn time heartbeat alice", "attn time heartbeat alice --interval 1800"),
)
@handle_errors
def heartbeat_command(
    agent: Annotated[str, typer.Argument(help="Name of the agent.")],
    interval_s: Annotated[
        float | None,
        typer.Option("--interval", help="New interval in seconds (clamped to 300 .. 86400)."),
    ] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show an agent's heartbeat (interval, next and last time); --interval changes it."""
    _require_finite("--interval", interval_s)
    path = f"/api/agents/{_path(agent)}/heartbeat"
    with ApiClient(url, token=token) as client:
        if interval_s is None:
            data = client.request("GET", path)
        else:
            data = client.request("PUT", path, json={"intervalS": interval_s})
    if as_json:
        print_json(data)
        return
    if not data.get("enabled"):
        typer.echo(f"{agent}: no heartbeat (set one with --interval SECONDS)")
        return
    typer.echo(
        f"{agent}: heartbeat every {data.get('intervalS'):g} s, next at "
        f"{data.get('nextAt')}, last at {data.get('lastAt') or 'never'}"
    )


def _require_finite(option: str, value: float | None) -> None:
    if value is not None and not math.isfinite(value):
        raise CliError(f"{option} must be a finite number of seconds, got {value}", exit_code=2)
