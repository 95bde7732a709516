"""``attn tree interrupt|start|stop|remove|plan AGENT``: the controls of a retained agent,
and the HTTP helpers of ``attn tree`` (:mod:`attn.cli.tree`).

``start`` and ``stop`` are the agents' control routes, which go through the
spawn tree for its agents (an explicit start wakes unread mail; a stop is kept
across a restart); ``remove`` refuses a root (it would stop hosting the agent).

Spec: seed 002 (explicit start, interrupt, Plan); acceptance A2A-16, A2A-17, A2A-19.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from attn.cli.channel_api import check_text, segment
from attn.cli.client import DEFAULT_URL, ApiClient, CliError
from attn.cli.commands import JsonOption, TokenOption, UrlOption
from attn.cli.output import examples, handle_errors, print_json

AgentArgument = Annotated[str, typer.Argument(metavar="AGENT", help="The agent's id (lead.ada).")]

_COMMANDS: list[tuple[str, str, Callable[..., Any]]] = []


def _command(name: str, *, epilog: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def add(function: Callable[..., Any]) -> Callable[..., Any]:
        _COMMANDS.append((name, epilog, function))
        return function

    return add


def register(app: typer.Typer) -> None:
    """Add the control commands to ``attn tree`` (``app``)."""
    for name, epilog, function in _COMMANDS:
        app.command(name, epilog=epilog)(function)


def call(url: str, token: str | None, method: str, path: str, **kwargs: Any) -> Any:
    with ApiClient(url, token=token) as client:
        return client.request(method, path, **kwargs)


def agent_path(agent: str, rest: str = "") -> str:
    return f"/api/agents/{segment(agent, 'agent id')}{rest}"


@_command("interrupt", epilog=examples("attn tree interrupt lead.ada --reason 'not needed'"))
@handle_errors
def interrupt_command(
    agent: AgentArgument,
    reason: Annotated[str, typer.Option(help="Why; its RESULT carries it.")] = "interrupted",
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Interrupt an agent: its wake marks go and its turn, if any, ends as interrupted."""
    check_text(reason, "--reason", f"attn tree interrupt {agent} --reason 'not needed'")
    data = call(url, token, "POST", agent_path(agent, "/interrupt"), json={"reason": reason})
    if as_json:
        print_json(data)
        return
    item = data.get("interruptedItemId")
    typer.echo(
        f"interrupted the turn on {item}"
        if item
        else f"{agent} was in no turn; its wake marks are cleared"
    )


def _control(action: str, agent: str, url: str, token: str | None, as_json: bool) -> None:
    data = call(url, token, "POST", agent_path(agent, f"/control/{action}"))
    if as_json:
        print_json(data)
        return
    typer.echo(f"{agent}: {action}{'ped' if action == 'stop' else 'ed'}")


@_command("start", epilog=examples("attn tree start lead.ada"))
@handle_errors
def start_command(
    agent: AgentArgument,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Start an agent explicitly: its unread mail wakes it (also after a restart)."""
    _control("start", agent, url, token, as_json)


@_command("stop", epilog=examples("attn tree stop lead.ada"))
@handle_errors
def stop_command(
    agent: AgentArgument,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Stop an agent (kept across a restart); its mail waits until it is started."""
    _control("stop", agent, url, token, as_json)


@_command("remove", epilog=examples("attn tree remove lead.ada"))
@handle_errors
def remove_command(
    agent: AgentArgument, url: UrlOption = DEFAULT_URL, token: TokenOption = None
) -> None:
    """Remove a child of a tree with its whole subtree (their stored items stay)."""
    with ApiClient(url, token=token) as client:
        found = client.request("GET", agent_path(agent))
        tree = found.get("tree")
        if not isinstance(tree, dict):
            raise CliError(f"{agent} is in no spawn tree; nothing was removed", exit_code=2)
        if tree.get("path") == "/root":
            raise CliError(
                f"{agent} is the root of tree {tree.get('treeId')}: remove its children "
                "instead (nothing was removed)",
                exit_code=2,
            )
        client.request("DELETE", agent_path(agent))
    typer.echo(f"removed {tree.get('path')} ({agent}) and its subtree")


@_command("plan", epilog=examples("attn tree plan lead.ada on", "attn tree plan lead.ada off"))
@handle_errors
def plan_command(
    agent: AgentArgument,
    mode: Annotated[str, typer.Argument(metavar="on|off", help="Plan (read-only) mode on or off.")],
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: JsonOption = False,
) -> None:
    """Put an agent in Plan mode (mail it sends wakes its readers read-only) or out of it."""
    if mode not in ("on", "off"):
        raise CliError(f"the mode is 'on' or 'off', got {mode!r}", exit_code=2)
    data = call(url, token, "PUT", agent_path(agent, "/plan"), json={"on": mode == "on"})
    if as_json:
        print_json(data)
        return
    typer.echo(f"{agent}: plan {'on' if data.get('plan') else 'off'}")


__all__ = ["AgentArgument", "agent_path", "call", "register"]
