"""``attn tree``: spawn trees of retained agents on a running server, over its HTTP API.

    attn tree list                                 every tree: slots in use, holders, waiting
    attn tree show TREE                            the tree's nodes (path, state, unread) and slots
    attn tree root AGENT [--capacity N]            make AGENT the root (/root) of a tree
    attn tree spawn PARENT NAME [TASK]             a retained child (--description, --brain)
    attn tree mail AGENT TEXT [--as SENDER]        SendMessage; prints what became of it
    attn tree interrupt|start|stop|remove AGENT    controls (remove takes the subtree)
    attn tree plan AGENT on|off                    Plan (read-only) mode
    attn tree results AGENT                        RESULTs it received, newest first
    attn tree take AGENT [--child C]               take the oldest unread RESULT
    attn tree turn AGENT ITEM                      one turn, read only: its text and logs
    attn tree watch TREE                           the tree's events live, until Ctrl+C

``--json`` prints the server's JSON instead. Errors are one line on stderr:
exit status 1 when the server refused or cannot be reached, 2 for bad usage
(an empty TEXT, a root given to ``remove``); nothing is changed then.

Spec: seed 002; acceptance A2A-10..22; issue 14 (trees in the CLI).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.text import Text

from attn.cli import tree_control
from attn.cli.channel_api import check_text, present, segment
from attn.cli.client import DEFAULT_URL, CliError
from attn.cli.commands import JsonOption, TokenOption, UrlOption
from attn.cli.output import console, examples, handle_errors, plural, print_json
from attn.cli.tree_control import AgentArgument, agent_path, call
from attn.cli.tree_show import delivery_line, result_line, slots_text, tree_view, turn_lines

#: Largest ``--limit`` of ``attn tree results`` (the server's).
MAX_RESULT_LIMIT = 200

app = typer.Typer(
    name="tree",
    help=(
        "Spawn trees of retained agents: roots, children, mail, RESULTs, turns. "
        "Exit status 1 when the server refuses, 2 for bad usage."
    ),
    epilog=examples(
        "attn tree root lead --capacity 3",
        "attn tree spawn lead ada 'read the logs' --description researcher",
        "attn tree show lead",
    ),
    no_args_is_help=True,
)

TreeArgument = Annotated[str, typer.Argument(metavar="TREE", help="The tree's id (its root's).")]


def register(root: typer.Typer) -> None:
    """Add ``attn tree …`` to ``root``."""
    root.add_typer(app, name="tree")


@app.command("list", epilog=examples("attn tree list", "attn tree list --json"))
@handle_errors
def list_command(
    url: UrlOption = DEFAULT_URL, token: TokenOption = None, as_json: JsonOption = False
) -> None:
    """List the spawn trees of a running server: slots in use, holders, waiting agents."""
    data = call(url, token, "GET", "/api/trees")
    if as_json:
        print_json(data)
        return
    trees: list[dict[str, Any]] = data.get("trees", [])
    out = console()
    if not trees:
        out.print(Text(f"no spawn trees at {url} (attn tree root AGENT makes one)", style="dim"))
    for view in trees:
        line = Text(f"{view.get('treeId')}", style="bold")
        line.append(f"  {plural(view.get('agents', 0), 'agent')}  {slots_text(view)}")
        out.print(line)


@app.command("show", epilog=examples("attn tree show lead"))
@handle_errors
def show_command(
    tree: TreeArgument,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show one tree: each node's path, run state and unread count, and the slots."""
    data = call(url, token, "GET", f"/api/trees/{segment(tree, 'tree id')}")
    if as_json:
        print_json(data)
        return
    console().print(tree_view(data))


@app.command("root", epilog=examples("attn tree root lead", "attn tree root lead --capacity 5"))
@handle_errors
def root_command(
    agent: AgentArgument,
    capacity: Annotated[
        int | None, typer.Option(min=1, max=256, help="Turn slots of the tree (default 3).")
    ] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Make a hosted agent the root (/root) of a tree, or change its tree's capacity."""
    node = call(
        url, token, "POST", "/api/trees", json=present({"agentId": agent, "capacity": capacity})
    )
    if as_json:
        print_json(node)
        return
    slots = f"{node.get('capacity')} slots"
    typer.echo(f"{node.get('agentId')} is /root of tree {node.get('treeId')} ({slots})")


@app.command(
    "spawn",
    epilog=examples(
        "attn tree spawn lead ada",
        "attn tree spawn lead ada 'summarize the logs' --description researcher",
        "attn tree spawn lead.ada probe --brain echo --options '{\"steps\": 2}'",
    ),
)
@handle_errors
def spawn_command(
    parent: Annotated[str, typer.Argument(metavar="PARENT", help="The spawning agent.")],
    name: Annotated[
        str, typer.Argument(metavar="NAME", help="The child's name: a-z, 0-9, '_' or '-'.")
    ],
    task: Annotated[
        str | None, typer.Argument(metavar="TASK", help="Its first task, sent as mail.")
    ] = None,
    description: Annotated[str, typer.Option(help="Its role, shown in views.")] = "",
    brain: Annotated[
        str | None,
        typer.Option(help="Its own brain (echo, script, llm); default: like its parent's."),
    ] = None,
    options: Annotated[str | None, typer.Option(help="The brain's options, a JSON object.")] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Spawn a retained child of PARENT; prints its canonical path and its task's delivery."""
    if task is not None:
        check_text(task, "TASK", f"attn tree spawn {parent} {name} 'read the logs'")
    body: dict[str, Any] = {"name": name, "task": task, "description": description}
    if options is not None and brain is None:
        raise CliError("--options needs --brain", exit_code=2)
    if brain is not None:
        body["brain"] = {"kind": brain, "options": _options(options)}
    made = call(url, token, "POST", agent_path(parent, "/children"), json=present(body))
    if as_json:
        print_json(made)
        return
    node = made.get("node") or {}
    typer.echo(f"spawned {node.get('path')} ({node.get('agentId')}) in tree {node.get('treeId')}")
    if made.get("delivery"):
        line = Text("task: ")
        line.append_text(delivery_line(made["delivery"]))
        console().print(line)


def _options(text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise CliError(f"--options is not JSON: {exc}", exit_code=2) from None
    if not isinstance(value, dict):
        raise CliError("--options must be a JSON object, e.g. '{\"steps\": 2}'", exit_code=2)
    return value


@app.command(
    "mail",
    epilog=examples(
        "attn tree mail lead.ada 'also check the tests'", "attn tree mail lead.ada 'hi' --as lead"
    ),
)
@handle_errors
def mail_command(
    agent: AgentArgument,
    text: Annotated[str, typer.Argument(metavar="TEXT", help="The message: plain text.")],
    sender: Annotated[
        str, typer.Option("--as", help="Who sends it: an agent id or a person.")
    ] = "user",
    key: Annotated[
        str | None, typer.Option("--key", help="An idempotency key: a repeat sends nothing.")
    ] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """SendMessage to a retained agent: it starts, joins the running turn, or waits (why)."""
    check_text(text, "TEXT", f"attn tree mail {agent} 'hello'")
    body = present({"text": text, "senderId": sender, "idempotencyKey": key})
    sent = call(url, token, "POST", agent_path(agent, "/mail"), json=body)
    if as_json:
        print_json(sent)
        return
    console().print(delivery_line(sent.get("delivery") or {}))


@app.command(
    "results", epilog=examples("attn tree results lead", "attn tree results lead --limit 5")
)
@handle_errors
def results_command(
    agent: AgentArgument,
    limit: Annotated[int, typer.Option(min=1, max=MAX_RESULT_LIMIT, help="RESULTs.")] = 20,
    before: Annotated[
        int | None, typer.Option(min=1, max=2**63 - 1, help="Only older than this seq.")
    ] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """The RESULTs an agent received from its children, newest first, read or not."""
    page = call(
        url, token, "GET", agent_path(agent, "/results"), params={"limit": limit, "before": before}
    )
    if as_json:
        print_json(page)
        return
    out = console()
    entries: list[dict[str, Any]] = page.get("results", [])
    if not entries:
        out.print(Text(f"{agent}: no RESULTs", style="dim"))
    for entry in entries:
        out.print(result_line(entry))
    if page.get("nextBefore") is not None:
        out.print(
            Text(f"older: attn tree results {agent} --before {page['nextBefore']}", style="dim")
        )


@app.command("take", epilog=examples("attn tree take lead", "attn tree take lead --child lead.ada"))
@handle_errors
def take_command(
    agent: AgentArgument,
    child: Annotated[
        str | None, typer.Option("--child", help="Only a RESULT of this child.")
    ] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Take the oldest unread RESULT (an explicit fetch): it is read once, no wake delivers it."""
    data = call(
        url, token, "POST", agent_path(agent, "/results/take"), json=present({"childId": child})
    )
    if as_json:
        print_json(data)
        return
    result = data.get("result")
    if result is None:
        typer.echo(f"{agent}: no unread RESULT" + (f" from {child}" if child else ""))
        return
    typer.echo(f"took {result.get('id')} from {(result.get('metadata') or {}).get('senderId')}")
    typer.echo(str((result.get("payload") or {}).get("content", "")))


@app.command("turn", epilog=examples("attn tree turn lead.ada mbx_01..."))
@handle_errors
def turn_command(
    agent: AgentArgument,
    item: Annotated[
        str, typer.Argument(metavar="ITEM", help="The turn's item id (a RESULT's turnItemId).")
    ],
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show one turn, read only: its item, its text and its activity's log lines."""
    data = call(url, token, "GET", agent_path(agent, f"/turns/{segment(item, 'item id')}"))
    if as_json:
        print_json(data)
        return
    out = console()
    for line in turn_lines(data):
        out.print(line)


@app.command("watch", epilog=examples("attn tree watch lead", "attn tree watch lead --json"))
@handle_errors
def watch_command(
    tree: TreeArgument,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print each server message as one JSON line.")
    ] = False,
) -> None:
    """Follow a tree's events live (states, spawns, removals, RESULTs) until Ctrl+C."""
    from attn.cli.tail import Follower

    try:
        Follower(url, token, [], as_json, trees=[tree]).run()
    except KeyboardInterrupt:
        return


# interrupt, start, stop, remove and plan live in src/attn/cli/tree_control.py.
tree_control.register(app)

__all__ = ["MAX_RESULT_LIMIT", "app", "register"]
