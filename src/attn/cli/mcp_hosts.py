"""What each MCP host expects to register attn: Claude Code, Codex CLI, Gemini CLI (MCP-08).

:func:`registration` says how one host reaches attn, over streamable HTTP
(``attn serve``'s ``/mcp``, the agent in ``?agent=``) or over stdio (the host
starts ``attn mcp --agent NAME``). :func:`printed` is what ``attn mcp install``
prints: the ``claude mcp add`` command, the ``[mcp_servers.attn]`` table of
Codex's ``config.toml``, the ``mcpServers.attn`` entry of Gemini's
``settings.json``. :func:`write` puts it in the host's file: a project
``.mcp.json`` for Claude Code (``claude mcp add`` keeps its own config, so
printing is its usual form), ``~/.codex/config.toml``, ``~/.gemini/settings.json``.

Writing merges: other servers, tables and keys stay as they are (Codex's TOML
is edited as text, so its comments stay too), the file is replaced atomically
(a symlink stays a link: its target is replaced),
and a file that cannot be read as TOML or JSON, or an ``attn`` entry that
differs from the new one (without ``force``), is refused with nothing written.
A token is never written, only the name of the environment variable that holds it.

Spec: issue 17 point 4; acceptance MCP-08.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from attn.cli.client import CliError, default_url

#: The hosts ``attn mcp install`` knows.
HOSTS = ("claude-code", "codex", "gemini")
#: The name attn is registered under in every host.
SERVER_NAME = "attn"


@dataclass(frozen=True, slots=True)
class Registration:
    """How one host reaches attn.

    Attributes:
        host: one of :data:`HOSTS`.
        url: the ``/mcp`` endpoint (HTTP), or None for stdio.
        command: the program and arguments the host starts (stdio), or ().
        token_env: the environment variable holding the API token (HTTP), or None.
    """

    host: str
    url: str | None = None
    command: tuple[str, ...] = ()
    token_env: str | None = None


def endpoint_url(url: str, agent: str | None) -> str:
    """``url`` as the ``/mcp`` endpoint (``/mcp`` added to a bare server URL), with ``?agent=``.

    Raises:
        CliError: (exit 2) not an http(s) URL, or its ``agent`` differs from ``agent``.
    """
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise CliError(f"--url must be an http:// or https:// URL, got {url!r:.200}", exit_code=2)
    path = parts.path.rstrip("/") or "/mcp"
    query = parse_qsl(parts.query, keep_blank_values=True)
    given = [v for k, v in query if k == "agent"]
    if agent is not None:
        if given and given != [agent]:
            raise CliError(
                f"--url names the agent {given[0]!r:.80}, --agent {agent!r:.80}", exit_code=2
            )
        if not given:
            query.append(("agent", agent))
    return urlunsplit((parts.scheme, parts.netloc, path, urlencode(query), ""))


def registration(
    host: str,
    *,
    agent: str | None,
    url: str | None,
    stdio: bool,
    token_env: str | None = None,
    command: str = "attn",
    config: Path | None = None,
) -> Registration:
    """The registration of ``host`` (see the module docstring).

    Args:
        host: one of :data:`HOSTS`.
        agent: the external agent the host speaks for (None: it calls ``register``).
        url: the server (HTTP); None and not ``stdio``: ``$ATTN_URL``, else
            ``http://127.0.0.1:8765`` (:func:`attn.cli.client.default_url`).
        stdio: the host starts ``attn mcp`` itself.
        token_env: the variable holding the API token (HTTP only).
        command: the program the host starts (stdio).
        config: the ``attn.toml`` the started ``attn mcp`` reads (made absolute).

    Raises:
        CliError: (exit 2) an unknown host, ``url`` with ``stdio``, a bad URL or name.
    """
    if host not in HOSTS:
        raise CliError(f"unknown host {host!r:.80}; one of: {', '.join(HOSTS)}", exit_code=2)
    if token_env is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,127}", token_env):
        raise CliError(f"--token-env must name a variable, got {token_env!r:.80}", exit_code=2)
    if stdio:
        if url is not None:
            raise CliError("--url and --stdio exclude each other", exit_code=2)
        args = [command, "mcp"]
        if agent is not None:
            args += ["--agent", agent]
        if config is not None:
            args += ["--config", str(config.expanduser().resolve())]
        return Registration(host, command=tuple(args))
    return Registration(host, url=endpoint_url(url or default_url(), agent), token_env=token_env)


def entry(reg: Registration) -> dict[str, Any]:
    """The host's own description of the server (its JSON object or TOML table)."""
    if reg.url is None:
        program, *args = reg.command
        stdio: dict[str, Any] = {"command": program, "args": args}
        return {"type": "stdio", **stdio} if reg.host == "claude-code" else stdio
    if reg.host == "codex":
        table: dict[str, Any] = {"url": reg.url}
        if reg.token_env:
            table["bearer_token_env_var"] = reg.token_env
        return table
    if reg.host == "gemini":  # settings.json expands $VAR
        value: dict[str, Any] = {"httpUrl": reg.url}
        ref = f"${reg.token_env}"
    else:  # Claude Code's .mcp.json expands ${VAR}
        value = {"type": "http", "url": reg.url}
        ref = f"${{{reg.token_env}}}"
    if reg.token_env:
        value["headers"] = {"Authorization": f"Bearer {ref}"}
    return value


def printed(reg: Registration) -> str:
    """What ``attn mcp install HOST`` prints (without ``--write``): text ending in a newline."""
    if reg.host == "claude-code":
        if reg.url is None:
            return shlex.join(["claude", "mcp", "add", SERVER_NAME, "--", *reg.command]) + "\n"
        line = shlex.join(["claude", "mcp", "add", "--transport", "http", SERVER_NAME, reg.url])
        if reg.token_env:
            # Single quotes: the shell must not expand it, or the token itself would be
            # stored in Claude Code's config. Claude Code expands ${VAR} when it connects.
            line += " --header " + shlex.quote(f"Authorization: Bearer ${{{reg.token_env}}}")
        return line + "\n"
    if reg.host == "codex":
        return f"[mcp_servers.{SERVER_NAME}]\n" + _toml_body(entry(reg))
    return json.dumps({"mcpServers": {SERVER_NAME: entry(reg)}}, indent=2) + "\n"


def config_path(host: str, *, cwd: Path | None = None) -> Path:
    """The file ``--write`` changes: ``./.mcp.json`` (Claude Code's project file),
    ``~/.codex/config.toml`` or ``~/.gemini/settings.json`` (the home from :meth:`Path.home`)."""
    if host == "claude-code":
        return (cwd or Path.cwd()) / ".mcp.json"
    if host == "codex":
        return Path.home() / ".codex" / "config.toml"
    return Path.home() / ".gemini" / "settings.json"


def write(reg: Registration, *, force: bool = False, cwd: Path | None = None) -> tuple[Path, str]:
    """Put ``reg`` in its host's file (see the module docstring).

    Returns:
        The file and what happened: ``"added"``, ``"replaced"`` or ``"unchanged"``.

    Raises:
        CliError: (exit 2) the file is not valid TOML or JSON, holds an ``attn``
            entry that differs (without ``force``), or cannot be written; nothing changed.
    """
    path = config_path(reg.host, cwd=cwd)
    try:
        old = path.read_text(encoding="utf-8") if path.exists() else None
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read {path}: {exc}", exit_code=2) from exc
    merge = _merge_toml if reg.host == "codex" else _merge_json
    text, outcome = merge(path, old, entry(reg), force)
    if outcome != "unchanged":
        # A project's .mcp.json is shared like any source file; a home config may hold secrets.
        _replace(path, text, 0o644 if reg.host == "claude-code" else 0o600)
    return path, outcome


def _refuse(path: Path, current: object, force: bool) -> None:
    if not force:
        raise CliError(
            f"{path} already registers a different {SERVER_NAME!r} server"
            f" ({json.dumps(current)[:300]}); nothing was written. Pass --force to replace it",
            exit_code=2,
        )


def _merge_json(path: Path, old: str | None, value: dict[str, Any], force: bool) -> tuple[str, str]:
    data: Any = {}
    if old is not None and old.strip():
        try:
            data = json.loads(old)
        except json.JSONDecodeError as exc:
            raise CliError(
                f"{path} is not valid JSON ({exc}); nothing was written. Fix it or move it aside",
                exit_code=2,
            ) from None
    servers = data.get("mcpServers", {}) if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(servers, dict):
        what = "its mcpServers is not" if isinstance(data, dict) else "it is not"
        raise CliError(f"{path}: {what} a JSON object; nothing was written", exit_code=2)
    current = servers.get(SERVER_NAME)
    if current == value:
        return old or "", "unchanged"
    if current is not None:
        _refuse(path, current, force)
    data = {**data, "mcpServers": {**servers, SERVER_NAME: value}}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n", (
        "added" if current is None else "replaced"
    )


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")


def _merge_toml(path: Path, old: str | None, value: dict[str, Any], force: bool) -> tuple[str, str]:
    text = old or ""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CliError(
            f"{path} is not valid TOML ({exc}); nothing was written. Fix it or move it aside",
            exit_code=2,
        ) from None
    servers = data.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise CliError(f"{path}: mcp_servers is not a table; nothing was written", exit_code=2)
    current = servers.get(SERVER_NAME)
    table = f"[mcp_servers.{SERVER_NAME}]\n" + _toml_body(value)
    if current == value:
        return text, "unchanged"
    if current is None:
        new = text + ("\n" if text and not text.endswith("\n") else "")
        new += ("\n" if new.strip() else "") + table
    else:
        _refuse(path, current, force)
        new = _replace_table(path, text, table)
    try:  # what the edit made must still be the same file plus attn
        check = tomllib.loads(new)
    except tomllib.TOMLDecodeError:
        # ``mcp_servers = { ... }`` (or ``mcp_servers.x = ...`` in another table): an
        # inline table is closed, so no [mcp_servers.attn] table can be added to it.
        raise CliError(
            f"{path} writes mcp_servers as an inline table (mcp_servers = {{ ... }}), which"
            f" a [mcp_servers.{SERVER_NAME}] table cannot be added to; nothing was written."
            " Turn it into [mcp_servers.NAME] tables, or add the printed entry by hand",
            exit_code=2,
        ) from None
    if check.get("mcp_servers", {}).get(SERVER_NAME) != value or _without_attn(
        check
    ) != _without_attn(data):
        raise CliError(
            f"{path}: could not merge the table safely; nothing was written", exit_code=2
        )
    return new, "added" if current is None else "replaced"


def _replace_table(path: Path, text: str, table: str) -> str:
    """``text`` with the ``[mcp_servers.attn]`` table (and its sub-tables) replaced by ``table``."""
    lines = text.splitlines(keepends=True)
    own = f"mcp_servers.{SERVER_NAME}"
    start = end = None
    for i, line in enumerate(lines):
        match = _HEADER.match(line)
        if match is None:
            continue
        name = re.sub(r"\s*\.\s*", ".", match.group(1)).replace('"', "")
        if start is None and name == own:
            start = i
        elif start is not None and not name.startswith(own + "."):
            end = i
            break
    if start is None:  # defined inline or with dotted keys: not ours to rewrite
        raise CliError(
            f"{path} defines mcp_servers.{SERVER_NAME} without its own [mcp_servers.{SERVER_NAME}]"
            " table; edit it by hand. Nothing was written",
            exit_code=2,
        )
    tail = lines[end:] if end is not None else []
    return "".join(lines[:start]) + table + ("\n" if tail else "") + "".join(tail)


def _without_attn(data: dict[str, Any]) -> dict[str, Any]:
    servers = {k: v for k, v in data.get("mcp_servers", {}).items() if k != SERVER_NAME}
    rest = {k: v for k, v in data.items() if k != "mcp_servers"}
    return {**rest, "mcp_servers": servers} if servers else rest


def _toml_body(value: dict[str, Any]) -> str:
    """``key = value`` lines of a flat table of strings and string lists (JSON strings are TOML)."""
    lines = []
    for key, item in value.items():
        if isinstance(item, list):
            rendered = "[" + ", ".join(json.dumps(v, ensure_ascii=False) for v in item) + "]"
        else:
            rendered = json.dumps(item, ensure_ascii=False)
        lines.append(f"{key} = {rendered}\n")
    return "".join(lines)


def _replace(path: Path, text: str, new_mode: int) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file beside it, then a rename);
    a new file gets ``new_mode``, an existing one keeps its mode. A symlink (dotfiles
    kept in a repository) stays a link: its target is the file replaced."""
    path = Path(os.path.realpath(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777 if path.exists() else new_mode
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc}; nothing was written", exit_code=2) from exc


__all__ = [
    "HOSTS",
    "SERVER_NAME",
    "Registration",
    "config_path",
    "endpoint_url",
    "entry",
    "printed",
    "registration",
    "write",
]
