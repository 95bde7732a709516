"""``attn mcp``: the MCP server on stdio, and ``attn mcp install HOST``.

    attn mcp [--agent NAME] [--config FILE] [--database URL] [--url URL]
    attn mcp install claude-code|codex|gemini [--agent NAME] [--url URL | --stdio] [--write]

``attn mcp`` is started by an MCP host (Claude Code, Codex, Gemini CLI) and
speaks the protocol on stdin/stdout for one external agent (``brain =
"external"``); how it decides between hosting the agents itself and relaying
to a running ``attn serve`` is :mod:`attn.cli.mcp_stdio`. ``attn mcp install``
prints, or with ``--write`` writes, the registration each host expects
(:mod:`attn.cli.mcp_hosts`). Errors are one line on stderr: exit status 1 when
the server cannot be reached, 2 for bad usage or a file that cannot be merged
(nothing is written then).

Spec: issue 17 points 1 and 4; acceptance MCP-01, MCP-08.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path
from typing import Annotated

import typer

from attn.cli.client import TOKEN_ENV, CliError
from attn.cli.mcp_hosts import HOSTS, SERVER_NAME, printed, registration, write
from attn.cli.output import examples, handle_errors

#: The environment variable naming the agent of ``attn mcp`` (as ``--agent``).
AGENT_ENV = "ATTN_AGENT"

app = typer.Typer(
    name="mcp",
    help=(
        "Serve attn's mailbox tools over MCP on stdio, for Claude Code, Codex, Gemini CLI"
        ' or any MCP client speaking for an agent with brain = "external". Hosts the'
        " agents of attn.toml, or relays to the 'attn serve' that hosts them. Only the"
        " protocol goes to stdout; messages go to stderr."
    ),
    epilog=examples(
        "attn mcp --agent ada",
        "attn mcp --agent ada --url http://127.0.0.1:8765",
        "attn mcp install claude-code --agent ada",
        "attn mcp install codex --agent bob --write",
    ),
    invoke_without_command=True,
)

AgentOption = Annotated[
    str | None,
    typer.Option(
        "--agent",
        envvar=AGENT_ENV,
        help="The external agent this connection speaks for (else the client calls register).",
    ),
]


def register(root: typer.Typer) -> None:
    """Add ``attn mcp`` and ``attn mcp install`` to ``root``."""
    root.add_typer(app, name="mcp")


@app.callback()
@handle_errors
def mcp_command(
    ctx: typer.Context,
    agent: AgentOption = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="Config file (default ./attn.toml; needed unless --url).",
            dir_okay=False,
        ),
    ] = None,
    database: Annotated[
        str | None,
        typer.Option(
            "--database",
            "--db",
            help="Database URL (default ATTN_DATABASE_URL, else [database] url, else ./attn.db).",
            show_default=False,
        ),
    ] = None,
    url: Annotated[
        str | None,
        typer.Option(
            "--url",
            help="Always relay to this attn server (its base URL or /mcp) instead of hosting.",
            show_default=False,
        ),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option("--token", envvar=TOKEN_ENV, help="API token of the server relayed to."),
    ] = None,
) -> None:
    """Serve MCP on stdin/stdout for one external agent, until stdin ends.

    Without --url it hosts the agents of the config on its database (as 'attn serve'
    does, without HTTP); when another process already hosts that database, it relays
    to that server: ATTN_URL, else [server] host and port of the config.
    """
    if ctx.invoked_subcommand is not None:
        return
    from attn.brains.from_config import brain_problem
    from attn.cli.mcp_stdio import serve_stdio
    from attn.config import DEFAULT_CONFIG_PATH, load_config
    from attn.store.url import check_database_url, default_database_url

    if sys.stdin.isatty():
        sys.stderr.write(
            "attn: serving MCP on stdin/stdout; an MCP host starts this command"
            " (see 'attn mcp install --help'). Ctrl+D ends it.\n"
        )
    if url is None and config is None and not DEFAULT_CONFIG_PATH.is_file():
        # The demo team has no external agent: hosting it here would only make ./attn.db.
        raise CliError(
            f"no ./attn.toml in {Path.cwd()}: pass --config FILE (its agents with brain ="
            ' "external" are served), or --url URL to relay to a running attn serve',
            exit_code=2,
        )
    settings = load_config(config, check_agent=brain_problem)
    database_url = database or settings.database.url or default_database_url()
    check_database_url(database_url)
    token = token or settings.server.token
    asyncio.run(serve_stdio(settings, database_url, agent=agent, url=url, token=token))


@app.command(
    "install",
    epilog=examples(
        "attn mcp install claude-code --agent ada",
        "attn mcp install claude-code --agent ada --stdio",
        "attn mcp install codex --agent bob --write",
        "attn mcp install gemini --agent cy --url http://127.0.0.1:9000 --write",
    ),
)
@handle_errors
def install_command(
    host: Annotated[
        str, typer.Argument(help=f"The MCP host: {', '.join(HOSTS)}.", show_default=False)
    ],
    agent: Annotated[
        str | None, typer.Option("--agent", help="The external agent the host speaks for.")
    ] = None,
    url: Annotated[
        str | None,
        typer.Option(
            "--url",
            help="The attn server the host calls over HTTP (default ATTN_URL, else [server]"
            " host and port of the config, else http://127.0.0.1:8765).",
            show_default=False,
        ),
    ] = None,
    stdio: Annotated[
        bool, typer.Option("--stdio", help="The host starts 'attn mcp' itself (no server).")
    ] = False,
    write_it: Annotated[
        bool,
        typer.Option(
            "--write",
            help="Write it: ./.mcp.json (Claude Code), ~/.codex/config.toml or"
            " ~/.gemini/settings.json.",
        ),
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="With --write: replace a different attn entry.")
    ] = False,
    token_env: Annotated[
        str | None,
        typer.Option(
            "--token-env",
            help="The variable holding the server's API token (HTTP; default ATTN_TOKEN when"
            " it is set). Only its name is written, never the token.",
            show_default=False,
        ),
    ] = None,
    command: Annotated[
        str, typer.Option("--command", help="The program the host starts (with --stdio).")
    ] = "attn",
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="The attn.toml (default ./attn.toml): with --stdio, the one 'attn mcp'"
            " reads; over HTTP, its [server] host and port give the URL.",
            dir_okay=False,
        ),
    ] = None,
) -> None:
    """Print (or --write) how Claude Code, Codex or Gemini CLI registers attn's MCP server.

    Over HTTP (the default) the host calls a running 'attn serve' at /mcp?agent=NAME;
    with --stdio it starts 'attn mcp --agent NAME' itself.
    """
    if agent is not None:
        from attn.config import AGENT_NAME_PATTERN

        if not re.fullmatch(AGENT_NAME_PATTERN, agent):
            raise CliError(f"--agent must be an agent's name, got {agent!r:.80}", exit_code=2)
    if url is None and not stdio:
        url, needs_token = _configured_server(config)
        if needs_token and token_env is None:  # the server wants one: name where it will be
            token_env = TOKEN_ENV
    if token_env is None and not stdio and os.environ.get(TOKEN_ENV):
        token_env = TOKEN_ENV
    reg = registration(
        host,
        agent=agent,
        url=url,
        stdio=stdio,
        token_env=token_env,
        command=command,
        config=config,
    )
    if not write_it:
        if force:
            raise CliError("--force goes with --write", exit_code=2)
        sys.stdout.write(printed(reg))
        return
    path, outcome = write(reg, force=force)
    what = {
        "added": f"added the {SERVER_NAME!r} MCP server to",
        "replaced": f"replaced the {SERVER_NAME!r} MCP server in",
        "unchanged": f"the {SERVER_NAME!r} MCP server is already registered, unchanged, in",
    }[outcome]
    typer.echo(f"{what} {path}")
    if reg.host == "claude-code":
        typer.echo("  Claude Code asks to approve a project's .mcp.json servers on its next start")


def _configured_server(config: Path | None) -> tuple[str | None, bool]:
    """The server of ``config`` (else ``./attn.toml`` when there is one): ``$ATTN_URL``,
    else its ``[server]`` host and port, and whether it has an API token. (None, False)
    without a config file: the default URL.

    Raises:
        ConfigError: the file cannot be read or is not a valid config (exit 2).
    """
    from attn.config import DEFAULT_CONFIG_PATH, load_config

    if config is None and not DEFAULT_CONFIG_PATH.is_file():
        return None, False
    from attn.cli.mcp_stdio import bridge_url

    settings = load_config(config)
    return bridge_url(settings), bool(settings.server.token)


__all__ = ["AGENT_ENV", "app", "register"]
