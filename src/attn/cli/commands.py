"""Client commands: ``attn agents``, ``attn send``, ``attn mailbox``.

They talk to a running ``attn serve`` over HTTP (``--url``, default
``http://127.0.0.1:8765`` or ``$ATTN_URL``) and print a table, or the server's
JSON with ``--json``.
"""

from __future__ import annotations

import shlex
from typing import Annotated, Any
from urllib.parse import quote

import typer
from rich.markup import escape
from rich.table import Table

from attn.cli.client import DEFAULT_URL, TOKEN_ENV, URL_ENV, ApiClient, CliError
from attn.cli.output import console, examples, handle_errors, print_json, shorten, warn
from attn.cli.tree_show import agent_tree_cell

#: Largest ``--limit`` of ``attn mailbox``: the API's page size (``attn.server.params.MAX_PAGE``).
MAX_LIMIT = 1000
#: Priorities run from 0 (critical) to 4 (background).
PRIORITY_RANGE = range(5)

UrlOption = Annotated[
    str,
    typer.Option("--url", envvar=URL_ENV, help="Base URL of the attn server.", show_default=True),
]
TokenOption = Annotated[
    str | None,
    typer.Option("--token", envvar=TOKEN_ENV, help="API token, when the server requires one."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the server's JSON instead.")]

_STATUS_STYLE = {
    "queued": "cyan",
    "processing": "yellow",
    "completed": "green",
    "deferred": "magenta",
    "merged": "blue",
    "dropped": "red",
}


def register(app: typer.Typer) -> None:
    """Add the client commands to ``app``."""
    app.command(
        "agents",
        epilog=examples("attn agents", "attn agents --url http://127.0.0.1:8765 --json"),
    )(agents)
    app.command(
        "send",
        epilog=examples(
            "attn send alice 'hello there'",
            "attn send bob 'build finished' --type a2a_message --priority 1 --no-wait",
        ),
    )(send)
    app.command(
        "mailbox",
        epilog=examples(
            "attn mailbox alice",
            "attn mailbox alice --status completed,dropped --limit 10 --json",
            "attn mailbox alice --limit 50 --cursor 1234",
        ),
    )(mailbox)


@handle_errors
def agents(
    url: UrlOption = DEFAULT_URL, token: TokenOption = None, as_json: JsonOption = False
) -> None:
    """List the agents of a running server: attention state, queue depth, current focus,
    and (when any agent is in a spawn tree) its tree, path and run state."""
    with ApiClient(url, token=token) as client:
        data = client.request("GET", "/api/agents")
    if as_json:
        print_json(data)
        return
    table = Table(title=escape(f"agents at {url}"))
    listed = data.get("agents", [])
    trees = any(isinstance(agent.get("tree"), dict) for agent in listed)
    columns = ("agent", "state", "queued", "focus", *(("tree",) if trees else ()), "description")
    for column in columns:
        table.add_column(column, justify="right" if column == "queued" else "left")
    for agent in listed:
        focus = agent.get("currentFocus")
        focus_text = f"{focus['sourceType']}: {shorten(focus.get('summary'), 40)}" if focus else ""
        focus_text = escape(focus_text)
        state = agent.get("state", "")
        if agent.get("paused"):
            state += " (paused)"
        elif not agent.get("running", True):
            state += " (stopped)"
        if agent.get("external"):
            state += ", external"  # its turns run in an MCP client (issue 17)
        tree = (agent_tree_cell(agent),) if trees else ()
        table.add_row(
            escape(str(agent["agentId"])),
            state,
            str(agent.get("queueDepth", "")),
            focus_text,
            *tree,
            escape(shorten(agent.get("description"), 50)),
        )
    console().print(table)


@handle_errors
def send(
    agent: Annotated[str, typer.Argument(metavar="AGENT", help="Name of the receiving agent.")],
    text: Annotated[str, typer.Argument(metavar="TEXT", help="The message text.")],
    source_type: Annotated[
        str, typer.Option("--type", help="Mailbox item type, e.g. human_chat, a2a_message.")
    ] = "human_chat",
    priority: Annotated[
        int | None,
        typer.Option(
            help="0 (critical) .. 4 (background); default: the type's own. Needs --no-wait."
        ),
    ] = None,
    wait: Annotated[
        bool | None,
        typer.Option(
            "--wait/--no-wait",
            help="Wait for the agent's reply and print it. Default: wait for human_chat only.",
            show_default=False,
        ),
    ] = None,
    sender: Annotated[str, typer.Option(help="Sender id recorded with the item.")] = "user",
    session: Annotated[str | None, typer.Option(help="Conversation (session) id.")] = None,
    timeout: Annotated[
        float | None,
        typer.Option("--timeout", help="Seconds to wait for the reply (default: no limit)."),
    ] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Put a message in an agent's mailbox; for a chat, wait for the reply and print it."""
    should_wait = (source_type == "human_chat") if wait is None else wait
    if not text.strip():
        raise CliError(
            f"TEXT is empty: say what to send, e.g. attn send {agent or 'alice'} "
            "'hello' (nothing was sent)",
            exit_code=2,
        )
    if priority is not None and priority not in PRIORITY_RANGE:
        raise CliError(
            f"--priority must be from 0 (critical) to 4 (background), got {priority}", exit_code=2
        )
    if timeout is not None and not timeout > 0:
        raise CliError(f"--timeout must be positive seconds, got {timeout:g}", exit_code=2)
    if should_wait and priority is not None:
        raise CliError(
            "--priority applies to a queued message: add --no-wait (a waited message "
            "gets its type's priority)",
            exit_code=2,
        )
    with ApiClient(url, token=token) as client:
        if should_wait:
            state = client.request("GET", f"/api/agents/{_path(agent)}")
            if not state.get("running") or state.get("paused"):
                how = "paused" if state.get("running") else "stopped"
                warn(
                    f"{agent} is {how}: the message waits in its mailbox and the reply comes "
                    f"once it runs (attn control {agent} start|resume); Ctrl+C leaves it queued"
                )
            body: dict[str, Any] = {"text": text, "senderId": sender, "sourceType": source_type}
            if session is not None:
                body["sessionId"] = session
            if timeout is not None:
                body["timeoutS"] = timeout
            data = client.request(
                "POST",
                f"/api/agents/{_path(agent)}/chat",
                json=body,
                read_timeout_s=None if timeout is None else timeout + 10.0,
                wait_forever=timeout is None,
            )
            if as_json:
                print_json(data)
            else:
                typer.echo(data.get("reply", ""))
            return
        metadata: dict[str, Any] = {"senderId": sender, "senderRole": "user"}
        if session is not None:
            metadata["sessionId"] = session
        enqueue: dict[str, Any] = {
            "sourceType": source_type,
            "payload": {"content": text},
            "metadata": metadata,
        }
        if priority is not None:
            enqueue["priority"] = priority
        data = client.request("POST", f"/api/agents/{_path(agent)}/mailbox", json=enqueue)
    if as_json:
        print_json(data)
    else:
        typer.echo(f"queued {data['id']} for {agent}")


@handle_errors
def mailbox(
    agent: Annotated[str, typer.Argument(metavar="AGENT", help="Name of the agent.")],
    status: Annotated[
        str | None,
        typer.Option(help="Only these statuses, comma-separated (queued, completed, ...)."),
    ] = None,
    source_type: Annotated[
        str | None, typer.Option("--type", help="Only these item types, comma-separated.")
    ] = None,
    limit: Annotated[
        int, typer.Option(min=1, max=MAX_LIMIT, help=f"History rows to show (1..{MAX_LIMIT}).")
    ] = 20,
    cursor: Annotated[
        str | None,
        typer.Option(help="Continue the history after an earlier page (the cursor it printed)."),
    ] = None,
    offset: Annotated[
        int, typer.Option(min=0, hidden=True, help="History rows to skip (use --cursor).")
    ] = 0,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show an agent's queue and history: each item with its status and decisions."""
    params: dict[str, Any] = {
        "status": status,
        "type": source_type,
        "limit": limit,
        "cursor": cursor,
    }
    if offset:
        params["offset"] = offset
    with ApiClient(url, token=token) as client:
        data = client.request("GET", f"/api/agents/{_path(agent)}/mailbox", params=params)
    if as_json:
        print_json(data)
        return
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for item in [*data.get("queued", []), *data.get("history", [])]:
        if item.get("id") not in seen:
            seen.add(item.get("id", ""))
            rows.append(item)
    queued = data.get("queueDepth", len(data.get("queued", [])))
    total = data.get("total", len(data.get("history", [])))
    table = Table(title=escape(f"{agent}: {queued} queued, {total} in history"))
    for column in ("id", "type", "priority", "status", "summary", "decisions"):
        table.add_column(
            column,
            justify="right" if column == "priority" else "left",
            no_wrap=column != "summary",
            min_width=len(column),
        )
    for item in rows:
        item_status = str(item.get("status", ""))
        style = _STATUS_STYLE.get(item_status, "")
        shown_status = escape(item_status)
        if item.get("mergedInto"):
            shown_status += escape(f" → {item['mergedInto']}")
        made = [d for d in item.get("decisions") or [] if d]
        decisions = ", ".join(str(d.get("decisionType", "")) for d in made)
        if made and made[-1].get("reasoning"):
            # The latest decision's reasoning: why it was merged, triaged, dropped…
            decisions += f": {shorten(str(made[-1]['reasoning']))}"
        originals = item.get("payload", {}).get("mergedItemIds") or []
        summary = shorten(item.get("summary"))
        if originals:
            summary += f" (merged: {', '.join(str(i) for i in originals)})"
        table.add_row(
            escape(str(item.get("id", ""))),
            escape(str(item.get("sourceType", ""))),
            str(item.get("priority", "")),
            f"[{style}]{shown_status}[/]" if style else shown_status,
            escape(summary),
            escape(decisions),
        )
    console().print(table)
    if data.get("nextCursor"):
        console().print(
            escape(
                f"more history: attn mailbox {shlex.quote(agent)} --cursor {data['nextCursor']}"
            ),
            style="dim",
        )


def _path(name: str) -> str:
    """``name`` as one URL path segment."""
    if not name.strip():
        raise CliError("the agent name is empty", exit_code=2)
    return quote(name, safe="")
