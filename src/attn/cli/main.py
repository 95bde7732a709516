"""The ``attn`` command line.

``attn serve`` hosts the agents and the HTTP API; the other commands talk to a
running server. Every command has ``--help`` with an example.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Annotated

import typer

from attn.cli import (
    approvals,
    channel,
    chat,
    commands,
    config_cmd,
    control,
    db,
    filebox,
    mcp,
    people,
    tail,
    time,
    trace,
    tree,
    worker,
)
from attn.cli.client import DEFAULT_URL
from attn.cli.output import OneLineUsageGroup, examples, handle_errors, state, warn
from attn.version import __version__

app = typer.Typer(
    name="attn",
    cls=OneLineUsageGroup,
    help=(
        "Durable mailboxes and a single-threaded attention loop for LLM agents.\n\n"
        "Start a server with 'attn serve', then talk to it from another terminal."
    ),
    epilog=examples("attn serve", "attn send alice 'hello'", "attn mailbox alice"),
    no_args_is_help=True,
    add_completion=False,
    # Plain Click help and errors: no boxes, no "<bool>" type tags, one-line usage errors.
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


@app.callback()
def main(
    debug: Annotated[
        bool, typer.Option("--debug", help="Show tracebacks instead of one-line errors.")
    ] = False,
) -> None:
    """Durable mailboxes and a single-threaded attention loop for LLM agents."""
    state.debug = debug or bool(os.environ.get("ATTN_DEBUG"))


@app.command(
    epilog=examples(
        "attn serve --port 8765",
        "ATTN_DATABASE_URL=postgresql://127.0.0.1/attn attn serve --config team.toml",
        "attn serve --demo-llm",
    )
)
@handle_errors
def serve(
    host: Annotated[
        str | None,
        typer.Option(help="Address to bind (default 127.0.0.1; others need ATTN_TOKEN)."),
    ] = None,
    port: Annotated[
        int | None, typer.Option(min=0, max=65535, help="TCP port (default 8765).")
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="Config file (default ./attn.toml when present, else a demo team).",
            dir_okay=False,
        ),
    ] = None,
    demo_llm: Annotated[
        bool,
        typer.Option(
            "--demo-llm",
            help="Host a demo team with the LLM brain on a local fake model (no network, no key).",
        ),
    ] = False,
) -> None:
    """Run the agents of attn.toml (or a demo team) and the HTTP API until Ctrl+C.

    The database comes from ATTN_DATABASE_URL or [database] url, default ./attn.db (SQLite).
    """
    from attn.brains.from_config import brain_problem
    from attn.config import load_config, parse_config
    from attn.server.serve import ServeInfo, freeze_startup_heap
    from attn.server.serve import serve as run_server

    model = None
    if demo_llm:
        if config is not None:
            raise typer.BadParameter("--demo-llm hosts its own team; leave out --config")
        import importlib.util

        if importlib.util.find_spec("openai") is None:
            raise typer.BadParameter(
                "the LLM demo team speaks to its model through the openai SDK, which is not "
                "installed: pip install 'attn[openai]' (./scripts/run installs it)"
            )
        from attn.testing import FakeProvider
        from attn.testing.demo_model import demo_responder, demo_team_toml

        model = FakeProvider()
        model.responder = demo_responder
        model.start_in_thread()
        text = demo_team_toml(model.openai_base_url)
        settings = parse_config(text, source="demo-llm", check_agent=brain_problem)
    else:
        settings = load_config(config, check_agent=brain_problem)
    if not settings.agents:
        warn(f"{settings.source} defines no agents ([[agents]] tables); serving none")

    def ready(info: ServeInfo) -> None:
        freeze_startup_heap()
        names = ", ".join(info.agents) or "none"
        where = {"demo": "demo team", "demo-llm": "LLM demo team"}.get(
            settings.source, settings.source
        )
        typer.echo(f"attn {__version__} serving {len(info.agents)} agents ({names}) at {info.url}")
        typer.echo(f"  agents from: {where}")
        typer.echo(f"  database:    {info.database_url}")
        hint = "" if info.url == DEFAULT_URL else f"ATTN_URL={info.url} "
        if info.agents:
            first = info.agents[0]
            typer.echo(f"  try:         {hint}attn send {first} 'hello'   (Ctrl+C stops)")
            if demo_llm:
                typer.echo(
                    f"  preempt:     {hint}attn send ada 'write the report' --type a2a_message "
                    f"--no-wait; {hint}attn send ada 'what is 2+3?'   (watch {info.url}/)"
                )
                typer.echo(
                    f"  team:        {hint}attn send lead 'ask the team to plan the launch'; "
                    f"{hint}attn channel history group:demo"
                )
                typer.echo(
                    f"  tree:        {hint}attn send planner 'spawn two helpers to plan the "
                    f"launch'; {hint}attn tail planner   (their results wake it)"
                )
                typer.echo(
                    f"  approval:    {hint}attn send --no-wait ada 'deploy v2'; "
                    f"{hint}attn approvals list   (answer at {info.url}/#/approvals)"
                )
        else:
            typer.echo(f"  next:        add [[agents]] to {where} and restart   (Ctrl+C stops)")
        external = [a.name for a in settings.agents if a.brain == "external"]
        if external:
            typer.echo(
                f"  mcp:         {info.url}/mcp?agent={external[0]}   (for an MCP client; see"
                f" {hint}attn mcp install claude-code --agent {external[0]})"
            )

    # The standard loop, not uvloop: the SQLite store's group commit waits while
    # the loop has ready callbacks, which only the standard loop shows (measured
    # on uvloop: HTTP enqueue about the same, agent processing 12-29% slower).
    try:
        asyncio.run(run_server(settings, host=host, port=port, on_ready=ready))
    finally:
        if model is not None:
            model.stop()


@app.command(epilog=examples("attn version"))
def version() -> None:
    """Print attn's version."""
    typer.echo(f"attn {__version__}")


commands.register(app)
# Trace commands (`attn import`, `attn replay`) live in src/attn/cli/trace.py.
trace.register(app)
# `attn time …` (callbacks, wakeups, heartbeat) lives in src/attn/cli/time.py.
time.register(app)
# `attn tail` (WebSocket events) and `attn chat` (streamed replies): src/attn/cli/tail.py, chat.py.
tail.register(app)
chat.register(app)
# `attn channel …` (channels, posts, sends, the live view): src/attn/cli/channel.py.
channel.register(app)
# `attn tree …` (spawn trees: roots, children, mail, RESULTs, turns): src/attn/cli/tree.py.
tree.register(app)
# `attn notifications …`, `attn session` (cli/people.py); `attn approvals …` (cli/approvals.py).
people.register(app)
approvals.register(app)
# `attn filebox …` (runs of command-line workers: cli/filebox.py, filebox_verbs.py) and
# `attn worker …` (start and follow a worker; a worker's own commands: cli/worker.py).
filebox.register(app)
worker.register(app)
# `attn cancel`, `attn control` (cli/control.py); `attn db …` (cli/db.py); `attn config check`.
control.register(app)
db.register(app)
config_cmd.register(app)
# `attn mcp` (MCP on stdio, hosting or relaying: cli/mcp.py, mcp_stdio.py) and
# `attn mcp install` (each MCP host's registration: cli/mcp_hosts.py).
mcp.register(app)
