"""``attn channel``: channels between agents on a running server, over its HTTP API.

    attn channel list [--member A] [--kind K]      channels ordered by key
    attn channel history KEY [--before N]          one page of a channel's history
    attn channel post KEY TEXT [--as NAME]         a person's message (@mentions narrow it)
    attn channel create NAME --member A ...        a custom group
    attn channel send FROM TO TEXT [--await]       a DM from one agent to another
    attn channel broadcast FROM TEXT [--to A ...]  a status line, no turn
    attn channel delegate FROM TO GOAL             a delegated task
    attn channel delegations AGENT                 delegations it made or was given
    attn channel watch KEY                         the channel's messages live, until Ctrl+C

Every send prints each recipient's delivery outcome (started, steered,
queued (reason), refused (reason)) and says "partial" when some recipients
were refused (A2A-04, A2A-06). ``--json`` prints the server's JSON instead.

Spec: 000 §11.1, §11.2, §25.2; issue 13 point 5 (people in channels).
"""

from __future__ import annotations

import math
from typing import Annotated, Any
from urllib.parse import quote

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from attn.cli.client import DEFAULT_URL, ApiClient, CliError
from attn.cli.commands import JsonOption, TokenOption, UrlOption
from attn.cli.events import channel_message_line, deliveries_text
from attn.cli.output import console, examples, handle_errors, print_json, shorten

#: Largest ``--limit`` of a history page (the server's).
MAX_HISTORY_LIMIT = 500
#: Longest ``--timeout``: a day, in seconds (the server's bound).
MAX_TIMEOUT_S = 86_400.0

app = typer.Typer(
    name="channel",
    help="Channels between agents (DMs, teams, groups): history, posts, sends, live view.",
    epilog=examples(
        "attn channel list",
        "attn channel post group:research 'status, @alice?'",
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
    typer.Option("--timeout", help="Seconds the answer is awaited (default 1800).", min=0.001),
]
ConversationOption = Annotated[
    str | None, typer.Option("--conversation", help="Continue this conversation (conv_…).")
]


def register(root: typer.Typer) -> None:
    """Add ``attn channel …`` to ``root``."""
    root.add_typer(app, name="channel")


def _segment(value: str, what: str) -> str:
    """``value`` as one URL path segment (a channel key keeps its colons readable)."""
    if not value.strip():
        raise CliError(f"the {what} is empty", exit_code=2)
    return quote(value, safe=":")


def _timeout(value: float | None) -> float | None:
    if value is not None and (not math.isfinite(value) or value > MAX_TIMEOUT_S):
        raise CliError(
            f"--timeout must be a number of seconds up to {MAX_TIMEOUT_S:.0f}, got {value}",
            exit_code=2,
        )
    return value


def _call(url: str, token: str | None, method: str, path: str, **kwargs: Any) -> Any:
    with ApiClient(url, token=token) as client:
        return client.request(method, path, **kwargs)


def print_receipt(receipt: dict[str, Any], verb: str) -> None:
    """Print what one send did: the message, then each recipient's outcome."""
    head = Text(f"{verb} ")
    if receipt.get("messageId"):
        head.append(str(receipt["messageId"]), style="bold")
        head.append(
            f" on {receipt.get('channelKey')} (conversation {receipt.get('conversationId')})"
        )
    else:
        head.append("a status line", style="bold")
    if receipt.get("duplicate"):
        head.append("  (a repeat: nothing new stored)", style="yellow")
    out = console()
    out.print(head)
    if receipt.get("callbackId"):
        out.print(Text(f"  the answer is awaited (callback {receipt['callbackId']})", style="dim"))
    deliveries = receipt.get("deliveries") or []
    if not deliveries:
        out.print(Text("  no recipient", style="yellow"))
    for delivery in deliveries:
        line = Text("  ")
        line.append_text(deliveries_text([delivery]))
        target = delivery.get("mailboxItemId") or delivery.get("activityId")
        if target:
            line.append(f"  {target}", style="dim")
        out.print(line)
    refused = sum(d.get("outcome") == "refused" for d in deliveries)
    if receipt.get("partial"):
        out.print(Text(f"partial: {refused} of {len(deliveries)} refused", style="bold yellow"))
    elif receipt.get("refused"):
        out.print(Text("refused: no recipient got it", style="bold red"))


@app.command("list", epilog=examples("attn channel list", "attn channel list --member alice"))
@handle_errors
def list_command(
    member: Annotated[str | None, typer.Option(help="Only this agent's channels.")] = None,
    kind: Annotated[str | None, typer.Option(help="dm, team or custom.")] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the channels of a running server, ordered by key."""
    data = _call(url, token, "GET", "/api/channels", params={"member": member, "kind": kind})
    if as_json:
        print_json(data)
        return
    channels: list[dict[str, Any]] = data.get("channels", [])
    table = Table(title=escape(f"{data.get('count', len(channels))} channels at {url}"))
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
    conversation: ConversationOption = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show one page of a channel's history, oldest first, with each message's outcomes."""
    params = {"before": before, "limit": limit, "conversationId": conversation}
    data = _call(url, token, "GET", f"/api/channels/{_segment(key, 'key')}/messages", params=params)
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
        "attn channel post group:research 'please check' --mention bob --as carol",
    ),
)
@handle_errors
def post_command(
    key: KeyArgument,
    text: Annotated[str, typer.Argument(help="The message (@name of a member narrows it).")],
    sender: Annotated[str, typer.Option("--as", help="Who posts it (a person).")] = "user",
    mention: Annotated[
        list[str] | None, typer.Option("--mention", help="Address only this member (repeat).")
    ] = None,
    conversation: ConversationOption = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Post a message on a channel; the agents it reaches answer on the channel."""
    body: dict[str, Any] = {"senderId": sender, "text": text, "mentions": mention or None}
    body["conversationId"] = conversation
    path = f"/api/channels/{_segment(key, 'key')}/messages"
    receipt = _call(url, token, "POST", path, json={k: v for k, v in body.items() if v is not None})
    if as_json:
        print_json(receipt)
    else:
        print_receipt(receipt, "posted")


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
    """Send a DM from one agent to another; returns at once with the delivery outcome."""
    body: dict[str, Any] = {"to": to, "text": text, "awaitReply": await_reply}
    body |= {"timeoutS": _timeout(timeout_s), "conversationId": conversation}
    path = f"/api/agents/{_segment(sender, 'sender')}/send"
    receipt = _call(url, token, "POST", path, json={k: v for k, v in body.items() if v is not None})
    if as_json:
        print_json(receipt)
    else:
        print_receipt(receipt, "sent")


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
    """Write a status line to colleagues' activity logs, with no turn and no model call."""
    body: dict[str, Any] = {"text": text, **({"to": to} if to else {})}
    receipt = _call(
        url, token, "POST", f"/api/agents/{_segment(sender, 'sender')}/broadcast", json=body
    )
    if as_json:
        print_json(receipt)
    else:
        print_receipt(receipt, "broadcast")


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
    """Delegate a task; the delegate's reply answers it and resumes the delegator."""
    body: dict[str, Any] = {"to": to, "goal": goal, "timeoutS": _timeout(timeout_s)}
    path = f"/api/agents/{_segment(sender, 'sender')}/delegations"
    receipt = _call(url, token, "POST", path, json={k: v for k, v in body.items() if v is not None})
    if as_json:
        print_json(receipt)
        return
    print_receipt(receipt, "delegated")
    delegation = receipt.get("delegation") or {}
    console().print(Text(f"  delegation {delegation.get('id')} is {delegation.get('status')}"))


@app.command("delegations", epilog=examples("attn channel delegations lead"))
@handle_errors
def delegations_command(
    agent: Annotated[str, typer.Argument(help="The agent.")],
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the delegations an agent made or was given, oldest first."""
    data = _call(url, token, "GET", f"/api/agents/{_segment(agent, 'agent')}/delegations")
    if as_json:
        print_json(data)
        return
    table = Table(title=escape(f"{agent}: {data.get('count', 0)} delegations"))
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
    """Follow a channel's messages live, each with its delivery outcomes, until Ctrl+C."""
    from attn.cli.tail import Follower

    if not key.strip():
        raise CliError("the key is empty", exit_code=2)
    try:
        Follower(url, token, [], as_json, channels=[key]).run()
    except KeyboardInterrupt:
        return


__all__ = ["app", "print_receipt", "register"]
