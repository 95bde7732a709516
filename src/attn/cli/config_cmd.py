"""``attn config check [PATH]``: is ``attn.toml`` valid, and if not, where is it wrong.

It checks what ``attn serve`` would check before starting: TOML syntax, every
field (with environment overrides), each agent's brain and options, the
database URL, and the rule that a non-loopback bind needs a token. Every
problem is printed on its own line as ``FILE:LINE: field: message``; the exit
status is 0 when the file is valid ("ok ...", then one line per team) and 1
when it is not.

Spec: issue 3 point 5 (``attn config check`` prints what is wrong with line
numbers); issue 13 (the teams).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated, Any

import typer

from attn.cli.output import examples, handle_errors, print_json

app = typer.Typer(
    name="config",
    help="Check attn.toml before starting a server.",
    epilog=examples("attn config check", "attn config check team.toml --json"),
    no_args_is_help=True,
)

#: Where tomllib says a syntax error is: "... (at line 3, column 7)".
_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def register(root: typer.Typer) -> None:
    """Add ``attn config …`` to ``root``."""
    root.add_typer(app, name="config")


def check(path: Path | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Check a configuration as ``attn serve`` would.

    Args:
        path: the file; None means ``./attn.toml`` when it exists, else the demo team.

    Returns:
        (facts about a valid config, problems); each problem has ``field``, ``line``
        (or None), ``message``, ``envVar`` and ``agent`` (or None).
    """
    from attn.brains.from_config import brain_problem
    from attn.channels import team_key
    from attn.config import find_line, load_config
    from attn.errors import ConfigError, InvalidInput
    from attn.server.serve import check_bind
    from attn.store.url import check_database_url, default_database_url

    source = str(path) if path is not None else "attn.toml"
    try:
        config = load_config(path, check_agent=brain_problem)
    except ConfigError as exc:
        if exc.problems:
            problems = [
                _problem(p.field, p.message, p.line, p.env_var, p.agent) for p in exc.problems
            ]
            # The field check stops before the brain, database and bind checks: run them
            # on what the file says, so one run reports every kind of problem.
            problems += _other_kinds(path, problems)
        else:
            found = _TOML_AT.search(exc.message)
            message = exc.message.removeprefix(f"{source}: ")
            problems = [_problem(None, message, int(found.group(1)) if found else None)]
        return {"source": source}, problems
    problems = []
    text = Path(config.source).read_text(encoding="utf-8") if config.source != "demo" else ""

    def line(*loc: str) -> int | None:
        return find_line(text, loc) if text else None

    url = config.database.url or default_database_url()
    try:
        check_database_url(url)
    except InvalidInput as exc:
        var = "ATTN_DATABASE_URL" if os.environ.get("ATTN_DATABASE_URL") else None
        where = None if var else line("database", "url")
        problems.append(_problem("database.url", exc.message, where, var))
    try:
        check_bind(config.server.host, config.server.token)
    except InvalidInput as exc:
        var = "ATTN_HOST" if os.environ.get("ATTN_HOST") else None
        problems.append(
            _problem("server.host", exc.message, None if var else line("server", "host"), var)
        )
    hook = config.webhook
    if hook is not None and hook.secret_env is not None and not os.environ.get(hook.secret_env):
        where = line("notifications", "webhook", "secret_env")
        message = f"the webhook's secret_env {hook.secret_env} is not set in the environment"
        problems.append(_problem("notifications.webhook.secret_env", message, where))
    facts = {
        "source": config.source,
        "agents": [agent.name for agent in config.agents],
        "database": url,
        "host": config.server.host,
        "port": config.server.port,
        "keys": _keys(config.agents),
        "teams": [
            {
                "id": team.name,
                "displayName": team.display_name,
                "members": list(team.members),
                "channelKey": team_key(team.name),
            }
            for team in config.teams.values()
        ],
    }
    return facts, problems


def _keys(agents: Any) -> list[dict[str, Any]]:
    """Where each llm agent reads its API key from, and whether it is set now
    (never its value). A key is needed unless an OpenAI-compatible base_url is given."""
    from attn.server.llm_endpoints import endpoint_of

    keys = []
    for agent in agents:
        endpoint = endpoint_of(agent.options) if agent.brain == "llm" else None
        if endpoint is not None:
            provider, base_url, variable = endpoint
            keys.append(
                {
                    "agent": agent.name,
                    "variable": variable,
                    "set": bool(os.environ.get(variable, "").strip()),
                    "needed": provider == "anthropic" or base_url is None,
                }
            )
    return keys


@app.command("check", epilog=examples("attn config check", "attn config check team.toml --json"))
@handle_errors
def check_command(
    path: Annotated[
        Path | None,
        typer.Argument(
            metavar="[PATH]",
            help="The file to check (default ./attn.toml).",
            dir_okay=False,
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead.")] = False,
) -> None:
    """Check a config file: print "ok" (exit 0) or each problem with its line (exit 1)."""
    facts, problems = check(path)
    if as_json:
        print_json({"ok": not problems, **facts, "problems": problems})
    elif not problems:
        agents = facts["agents"]
        if facts["source"] == "demo":
            typer.echo(
                f"ok: no attn.toml here; 'attn serve' would host the demo team "
                f"({', '.join(agents)})"
            )
        else:
            names = f" ({', '.join(agents)})" if agents else ""
            typer.echo(
                f"ok: {facts['source']}: {len(agents)} agent(s){names}, "
                f"database {facts['database']}"
            )
        for team in facts["teams"]:
            typer.echo(_team_line(team))
        for key in facts.get("keys", []):
            state = "set" if key["set"] else "NOT SET"
            if not key["set"] and key["needed"]:
                state += ": its model requests will fail until it is"
            typer.echo(f"  agent {key['agent']} reads its API key from {key['variable']} ({state})")
    else:
        for problem in problems:
            typer.echo(_line(str(facts["source"]), problem))
    if problems:
        raise typer.Exit(1)


def _other_kinds(path: Path | None, reported: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Brain, database URL and bind problems of a file whose fields are not all valid.

    Each check runs on the raw value when no problem was reported for its field yet.
    """
    import tomllib

    from pydantic import ValidationError

    from attn.brains.from_config import brain_problem
    from attn.config import DEFAULT_HOST, AgentSection, find_line
    from attn.errors import InvalidInput
    from attn.server.serve import check_bind
    from attn.store.url import check_database_url, default_database_url

    file = path if path is not None else Path("attn.toml")
    try:
        text = file.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []
    seen = {str(p["field"]) for p in reported if p["field"]}
    found: list[dict[str, Any]] = []
    agents = data.get("agents")
    for i, raw in enumerate(agents if isinstance(agents, list) else []):
        if not isinstance(raw, dict) or any(
            f.startswith((f"agents[{i}].brain", f"agents[{i}].options", f"agents[{i}].name"))
            for f in seen
        ):
            continue
        try:
            agent = AgentSection.model_validate(
                {k: raw[k] for k in ("name", "brain", "options") if k in raw}
            )
        except ValidationError:
            continue
        problem = brain_problem(agent)
        if problem is not None:
            loc, message = problem
            field = f"agents[{i}]." + ".".join(loc)
            found.append(
                _problem(field, message, find_line(text, ("agents", i, *loc)), agent=agent.name)
            )

    def table(name: str) -> dict[str, Any]:
        value = data.get(name)
        return value if isinstance(value, dict) else {}

    def setting(var: str, section: str, key: str) -> tuple[object, str | None, int | None]:
        if os.environ.get(var):
            return os.environ[var], var, None
        return table(section).get(key), None, find_line(text, (section, key))

    url, var, line = setting("ATTN_DATABASE_URL", "database", "url")
    if "database.url" not in seen and (url is None or isinstance(url, str)):
        try:
            check_database_url(url or default_database_url())
        except InvalidInput as exc:
            found.append(_problem("database.url", exc.message, line, var))
    host, var, line = setting("ATTN_HOST", "server", "host")
    token, _, _ = setting("ATTN_TOKEN", "server", "token")
    if (
        not seen & {"server.host", "server.token"}
        and isinstance(host or "", str)
        and (token is None or isinstance(token, str))
    ):
        try:
            check_bind(str(host or DEFAULT_HOST), token)
        except InvalidInput as exc:
            found.append(_problem("server.host", exc.message, line, var))
    return found


#: Members a team's line names before it says how many more there are.
_SHOWN_MEMBERS = 20


def _team_line(team: dict[str, Any]) -> str:
    """``  team research (Research): 3 member(s) (lead, alice, bob), channel group:research``."""
    members: list[str] = team["members"]
    names = ", ".join(members[:_SHOWN_MEMBERS])
    if len(members) > _SHOWN_MEMBERS:
        names += f", and {len(members) - _SHOWN_MEMBERS} more"
    shown = f" ({team['displayName']})" if team["displayName"] is not None else ""
    return (
        f"  team {team['id']}{shown}: {len(members)} member(s) ({names}), "
        f"channel {team['channelKey']}"
    )


def _problem(
    field: str | None,
    message: str,
    line: int | None = None,
    env_var: str | None = None,
    agent: str | None = None,
) -> dict[str, Any]:
    return {"field": field, "line": line, "message": message, "envVar": env_var, "agent": agent}


def _line(source: str, problem: dict[str, Any]) -> str:
    """``FILE:LINE: field: message`` (or ``FILE: ...`` without a line)."""
    where = f"{source}:{problem['line']}" if problem["line"] is not None else source
    field = problem["field"]
    extra = []
    if problem["envVar"]:
        extra.append(f"from environment variable {problem['envVar']}")
    if problem["agent"]:
        extra.append(f"agent {problem['agent']!r}")
    label = f"{field} ({', '.join(extra)})" if extra else field
    return f"{where}: {label}: {problem['message']}" if label else f"{where}: {problem['message']}"
