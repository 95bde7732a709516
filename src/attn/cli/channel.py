"""``attn channel``: channels between agents on a running server, over its HTTP API.

    attn channel list [--member A] [--kind K]      channels ordered by key
    attn channel history KEY [--before N]          one page of a channel's history
    attn channel post KEY TEXT [--as NAME]         a person's message (@mentions narrow it;
                                                   --as-agent: the agent NAME's message)
    attn channel create NAME --member A ...        a custom group
    attn channel send FROM TO TEXT [--await]       a DM from one agent to another
    attn channel broadcast FROM TEXT [--to A ...]  a status line, no turn
    attn channel delegate FROM TO GOAL             a delegated task
    attn channel delegations AGENT [--limit N]     delegations it made or was given
    attn channel watch KEY                         the channel's messages live, until Ctrl+C

Every send prints each recipient's delivery outcome (started, steered,
queued (reason), refused (reason)) and says "partial" when some recipients
were refused (A2A-04, A2A-06). ``--json`` prints the server's JSON instead.
A send exits 1 when every recipient or some refused it (after printing the
receipt) and 2 for bad usage, such as an empty text (nothing is sent);
:mod:`attn.cli.receipts` has the table.

Spec: 000 §11.1, §11.2, §25.2; issue 13 point 5 (people in channels).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from attn.cli.channel_api import check_text, check_timeout, messages_path, present, segment
from attn.cli.client import DEFAULT_URL, ApiClient, CliError
from attn.cli.commands import JsonOption, TokenOption, UrlOption
from attn.cli.events import channel_message_line
from attn.cli.output import console, examples, handle_errors, plural, print_json, shorten
from attn.cli.receipts import EXIT_HELP, finish, print_receipt, show_receipt
from attn.models import ChannelKind

#: Largest ``--limit`` of a history page (the server's).
MAX_HISTORY_LIMIT = 500
#: Largest ``--limit`` of ``attn channel delegations`` (the server's), and its default.
MAX_DELEGATION_LIMIT = 1_000
DEFAULT_DELEGATION_LIMIT = 100

app = typer.Typer(
    name="channel",
    help=(
        "Channels between agents (DMs, teams, groups): history, posts, sends, live view. "
        "post, send, broadcast and delegate print each recipient's outcome. " + EXIT_HELP
    ),
    epilog=examples(
        "attn channel list",
        "attn channel post group:research 'status, @alice?' --as maya",
        "attn channel watch dm:a2a:alice:bob",
    ),
    no_args_is_help=True,
)

KeyArgument = Annotated[
    str,
    typer.Argument(
        metavar="KEY", help="Channel key: dm:a2a:<a>:<b>, group:<team> or group:custom:<id>."
    ),
]
TimeoutOption = Annotated[
    float | None,
    typer.Option("--timeout", help="Seconds the answer is awaited, 0 < s ≤ 86400 (default 1800)."),
]
ConversationOption = Annotated[
    str | None, typer.Option("--conversation", help="Continue this conversation (conv_…).")
]


def register(root: typer.Typer) -> None:
    """Add ``attn channel …`` to ``root``."""
    root.add_typer(app, name="channel")


def _call(url: str, token: str | None, method: str, path: str, **kwargs: Any) -> Any:
    with ApiClient(url, token=token) as client:
        return client.request(method, path, **kwargs)


@app.command("list", epilog=examples("attn channel list", "attn channel list --member alice"))
@handle_errors
def list_command(
    member: Annotated[str | None, typer.Option(help="Only this agent's channels.")] = None,
    kind: Annotated[ChannelKind | None, typer.Option(help="Only channels of this kind.")] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the channels of a running server, ordered by key."""
    params = {"member": member, "kind": kind.value if kind else None}
    data = _call(url, token, "GET", "/api/channels", params=params)
    if as_json:
        print_json(data)
        return
    channels: list[dict[str, Any]] = data.get("channels", [])
    count = data.get("count", len(channels))
    table = Table(title=escape(f"{plural(count, 'channel')} at {url}"))
    for column in ("key", "kind", "name", "members", "created by"):
        table.add_column(column, no_wrap=column in ("key", "kind"))
    for channel in channels:
        table.add_row(
            escape(str(channel.get("key", ""))),
            escape(str(channel.get("kind", ""))),
            escape(shorten(channel.get("name"), 40)),
            escape(shorten(", ".join(channel.get("members", [])), 60)),
            escape(str(channel.get("createdBy") or "-")),
        )
    console().print(table)


@app.command(
    "history",
    epilog=examples(
        "attn channel history dm:a2a:alice:bob", "attn channel history KEY --before 42"
    ),
)
@handle_errors
def history_command(
    key: KeyArgument,
    before: Annotated[
        int | None, typer.Option(min=1, max=2**63 - 1, help="Only messages older than this seq.")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=MAX_HISTORY_LIMIT, help="Messages.")] = 50,
    conversation: Annotated[
        str | None,
        typer.Option("--conversation", help="Only the messages of this conversation (conv_…)."),
    ] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show one page of a channel's history, oldest first, with each message's outcomes."""
    params = {"before": before, "limit": limit, "conversationId": conversation}
    data = _call(url, token, "GET", messages_path(key), params=params)
    if as_json:
        print_json(data)
        return
    out = console()
    messages: list[dict[str, Any]] = data.get("messages", [])
    if not messages:
        out.print(Text(f"{key}: no messages", style="dim"))
    for message in messages:
        line = Text(f"{str(message.get('createdAt', ''))[:19]} ", style="dim")
        line.append_text(channel_message_line(message, 200))
        out.print(line)
    if data.get("nextBefore") is not None:
        out.print(
            Text(f"older: attn channel history {key} --before {data['nextBefore']}", style="dim")
        )


@app.command(
    "post",
    epilog=examples(
        "attn channel post group:research 'who has the numbers?'",
        "attn channel post group:research 'please check' --mention bob --as maya",
        "attn channel post group:research 'done' --as alice --as-agent",
    ),
)
@handle_errors
def post_command(
    key: KeyArgument,
    text: Annotated[str, typer.Argument(help="The message (@name of a member narrows it).")],
    sender: Annotated[
        str, typer.Option("--as", help="Who posts it: a person's name, not an agent's.")
    ] = "user",
    as_agent: Annotated[
        bool, typer.Option("--as-agent", help="Post as the agent named by --as, not a person.")
    ] = False,
    mention: Annotated[
        list[str] | None, typer.Option("--mention", help="Address only this member (repeat).")
    ] = None,
    conversation: ConversationOption = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Post a person's message on a channel; the agents it reaches answer on the channel.

    The message is a person's (senderKind person), as in the web UI, so an
    agent's name in --as is refused; --as-agent posts as that agent instead
    (an agent's message asks for no answer). Exit status: 0 when every
    recipient got it, 1 when all or some refused it (after the receipt), 2 for
    bad usage such as an empty TEXT (nothing is posted).
    """
    check_text(text, "TEXT", f"attn channel post {key} 'hello'")
    path = messages_path(key)
    body: dict[str, Any] = {"senderId": sender, "text": text, "mentions": mention or None}
    body |= {"senderKind": "agent" if as_agent else "person", "conversationId": conversation}
    try:
        receipt = _call(url, token, "POST", path, json=present(body))
    except CliError as exc:
        if not as_agent and "is an agent's name" in str(exc):
            raise CliError(f"{exc}; --as-agent posts as that agent") from None
        raise
    show_receipt(receipt, "posted", as_json)


@app.command("create", epilog=examples("attn channel create 'Launch' --member alice --member bob"))
@handle_errors
def create_command(
    name: Annotated[str, typer.Argument(help="What people see.")],
    member: Annotated[list[str], typer.Option("--member", help="A member agent (repeat).")],
    sender: Annotated[str, typer.Option("--as", help="Who creates it.")] = "user",
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Create a custom group channel group:custom:<id> of hosted agents."""
    body = {"name": name, "members": member, "createdBy": sender}
    channel = _call(url, token, "POST", "/api/channels", json=body)
    if as_json:
        print_json(channel)
        return
    members = ", ".join(channel.get("members", []))
    typer.echo(f"created {channel.get('key')} {channel.get('name')!r} ({members})")


@app.command(
    "send",
    epilog=examples(
        "attn channel send alice bob 'can you review PR 12?'",
        "attn channel send alice bob 'ETA?' --await --timeout 600",
    ),
)
@handle_errors
def send_command(
    sender: Annotated[str, typer.Argument(metavar="FROM", help="The sending agent.")],
    to: Annotated[str, typer.Argument(metavar="TO", help="The receiving agent.")],
    text: Annotated[str, typer.Argument(help="The message.")],
    await_reply: Annotated[
        bool, typer.Option("--await", help="Await the answer in the sender's session.")
    ] = False,
    timeout_s: TimeoutOption = None,
    conversation: ConversationOption = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Send a DM from one agent to another; returns at once with the delivery outcome.

    Exit status: 0 when the recipient got it (started, steered or queued), 1
    when it refused it (after the receipt) or the server refused the send, 2
    for bad usage such as an empty TEXT (nothing is sent).
    """
    check_text(text, "TEXT", f"attn channel send {sender} {to} 'hello'")
    path = f"/api/agents/{segment(sender, 'sender')}/send"
    body: dict[str, Any] = {"to": to, "text": text, "awaitReply": await_reply}
    body |= {"timeoutS": check_timeout(timeout_s), "conversationId": conversation}
    show_receipt(_call(url, token, "POST", path, json=present(body)), "sent", as_json)


@app.command("broadcast", epilog=examples("attn channel broadcast alice 'deploying v2'"))
@handle_errors
def broadcast_command(
    sender: Annotated[str, typer.Argument(metavar="FROM", help="The agent whose status it is.")],
    text: Annotated[str, typer.Argument(help="The status line.")],
    to: Annotated[
        list[str] | None, typer.Option("--to", help="Only this agent (repeat; default: all).")
    ] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write a status line to colleagues' activity logs, with no turn and no model call.

    Exit status: 0 when every recipient logged it, 1 when all or some refused
    it (after the receipt, 'partial' when some did), 2 for bad usage such as an
    empty TEXT (nothing is sent).
    """
    check_text(text, "TEXT", f"attn channel broadcast {sender} 'deploying v2'")
    path = f"/api/agents/{segment(sender, 'sender')}/broadcast"
    body: dict[str, Any] = {"text": text, **({"to": to} if to else {})}
    show_receipt(_call(url, token, "POST", path, json=body), "broadcast", as_json)


@app.command("delegate", epilog=examples("attn channel delegate lead alice 'summarize the logs'"))
@handle_errors
def delegate_command(
    sender: Annotated[str, typer.Argument(metavar="FROM", help="The delegating agent.")],
    to: Annotated[str, typer.Argument(metavar="TO", help="The delegate.")],
    goal: Annotated[str, typer.Argument(help="What is to be done.")],
    timeout_s: TimeoutOption = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Delegate a task; the delegate's reply answers it and resumes the delegator.

    Exit status: 0 when the delegate got it, 1 when it refused it (after the
    receipt) or the server refused the delegation, 2 for bad usage such as an
    empty GOAL (nothing is sent).
    """
    check_text(goal, "GOAL", f"attn channel delegate {sender} {to} 'summarize the logs'")
    path = f"/api/agents/{segment(sender, 'sender')}/delegations"
    body: dict[str, Any] = {"to": to, "goal": goal, "timeoutS": check_timeout(timeout_s)}
    receipt = _call(url, token, "POST", path, json=present(body))
    if as_json:
        print_json(receipt)
    else:
        print_receipt(receipt, "delegated")
        delegation = receipt.get("delegation") or {}
        console().print(Text(f"  delegation {delegation.get('id')} is {delegation.get('status')}"))
    finish(receipt, as_json)


@app.command(
    "delegations",
    epilog=examples("attn channel delegations lead", "attn channel delegations lead --limit 10"),
)
@handle_errors
def delegations_command(
    agent: Annotated[str, typer.Argument(help="The agent.")],
    limit: Annotated[
        int,
        typer.Option(min=1, max=MAX_DELEGATION_LIMIT, help="The newest this many delegations."),
    ] = DEFAULT_DELEGATION_LIMIT,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the delegations an agent made or was given, oldest first."""
    path = f"/api/agents/{segment(agent, 'agent')}/delegations"
    data = _call(url, token, "GET", path, params={"limit": limit})
    if as_json:
        print_json(data)
        return
    shown = plural(data.get("count", 0), "delegation")
    table = Table(title=escape(f"{agent}: {shown}"))
    for column in ("id", "from", "to", "status", "goal", "answer"):
        table.add_column(column, no_wrap=column != "goal")
    for record in data.get("delegations", []):
        table.add_row(
            escape(str(record.get("id", ""))),
            escape(str(record.get("delegator", ""))),
            escape(str(record.get("delegate", ""))),
            escape(str(record.get("status", ""))),
            escape(shorten(record.get("goal"), 60)),
            escape(str(record.get("answerMessageId") or "-")),
        )
    console().print(table)


@app.command(
    "watch", epilog=examples("attn channel watch group:research", "attn channel watch KEY --json")
)
@handle_errors
def watch_command(
    key: KeyArgument,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print each server message as one JSON line.")
    ] = False,
) -> None:
    """Follow a channel's messages live, each with its delivery outcomes, until Ctrl+C.

    Reconnects by itself; the messages a reconnect missed (a restarted server)
    are read from the channel's history and printed once, in order.
    """
    from attn.cli.tail import Follower

    if not key.strip():
        raise CliError("the key is empty", exit_code=2)
    try:
        Follower(url, token, [], as_json, channels=[key]).run()
    except KeyboardInterrupt:
        return


__all__ = ["app", "register"]
