"""``attn.toml``: the server's database, bind address, defaults and agents.

The file is read with :mod:`tomllib` and validated with pydantic; every error
becomes a :class:`ConfigError` naming the field and, where it can be found, the
line. Environment variables override the file: ``ATTN_DATABASE_URL``,
``ATTN_HOST``, ``ATTN_PORT``, ``ATTN_TOKEN``. Without a file, a demo team of
three agents is used so that ``attn serve`` works on a fresh clone.

Each agent's brain and its ``options`` are checked when the file is loaded (the
brain is built once and thrown away), so an unknown brain or a misspelt option
is reported with the file, the agent and the line, before anything starts.

Example::

    [database]
    url = "sqlite:///var/lib/attn/attn.db"

    [server]
    host = "127.0.0.1"
    port = 8765
    header_timeout_s = 10   # a request's headers must arrive within 10 s
    body_timeout_s = 30     # and its body within 30 s more (else 408, closed)

    [defaults]
    backstop_s = 600
    max_attempts = 3
    coalesce_window_ms = 200      # every AgentConfig field can be set here
    heartbeat_interval_s = 21600  # gives every agent a heartbeat (300 .. 86400)

    [[agents]]
    name = "alice"
    brain = "echo"
    description = "answers by echoing"
    options = { steps = 3 }
    backstop_s = 60        # per-agent override of [defaults]
"""

from __future__ import annotations

import inspect
import ipaddress
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from attn.core.config import AgentConfig
from attn.errors import InvalidInput
from attn.tokens import token_problem

if TYPE_CHECKING:
    from attn.core.focus import Brain
    from attn.time import TimeConfig

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
DEFAULT_CONFIG_PATH = Path("attn.toml")

#: Environment variables that override the file, and the field each one sets.
ENV_OVERRIDES: Mapping[str, tuple[str, str]] = {
    "ATTN_DATABASE_URL": ("database", "url"),
    "ATTN_HOST": ("server", "host"),
    "ATTN_PORT": ("server", "port"),
    "ATTN_TOKEN": ("server", "token"),
}

_AGENT_NAME_RE = r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$"


@dataclass(frozen=True, slots=True)
class ConfigProblem:
    """One thing wrong with a configuration.

    Attributes:
        field: where, dotted as in the file, e.g. ``"agents[0].options.steps"``.
        message: what is wrong.
        line: the 1-based line of the file that defines ``field``, when found.
        env_var: the environment variable the value came from, if any.
        agent: the name of the agent concerned, for brain and option problems.
    """

    field: str
    message: str
    line: int | None = None
    env_var: str | None = None
    agent: str | None = None

    def describe(self) -> str:
        """``"field (line 4): message"``, as in :class:`ConfigError` messages."""
        where = []
        if self.env_var is not None:
            where.append(f"from environment variable {self.env_var}")
        elif self.line is not None:
            where.append(f"line {self.line}")
        if self.agent is not None:
            where.append(f"agent {self.agent!r}")
        return f"{self.field}{' (' + ', '.join(where) + ')' if where else ''}: {self.message}"


class ConfigError(InvalidInput):
    """The configuration is not valid.

    Args:
        message: every problem on one line, starting with the file name.
        problems: the problems one by one (empty for a file that cannot be read
            or parsed at all; ``message`` says why).
    """

    code = "config_error"

    def __init__(
        self, message: str | None = None, problems: tuple[ConfigProblem, ...] = ()
    ) -> None:
        super().__init__(message)
        self.problems = problems


def _int_to_float(value: object) -> object:
    # TOML writes whole seconds as integers; strict mode would refuse them for a float.
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:  # a ValueError is reported as a field problem, not a crash
            raise ValueError("a number this large is not a duration in seconds") from None
    return value


def _heartbeat_or_off(value: object) -> object:
    # ``false`` turns heartbeats off; a number is seconds.
    return None if value is False else _int_to_float(value)


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class DatabaseSection(_Section):
    """``[database]``: where the store lives.

    Attributes:
        url: ``sqlite:///path/attn.db``, ``postgresql://host/db`` or ``memory://``;
            None means the default (``./attn.db``).
    """

    url: str | None = Field(default=None, min_length=1)


def _check_token(value: object) -> object:
    if isinstance(value, str):
        problem = token_problem(value)
        if problem is not None:
            raise ValueError(f"the API token {problem}")
    return value


class ServerSection(_Section):
    """``[server]``: the HTTP bind address and the API token.

    Attributes:
        host: address to bind; anything but loopback requires ``token``.
        port: TCP port, 1..65535.
        token: bearer token every route but ``/health`` requires; None for none.
        header_timeout_s: seconds a client may take to send a request's line
            and headers before it gets 408 and is disconnected (0 < s <= 3600).
        body_timeout_s: seconds a client may take to send a request's body
            after its headers (0 < s <= 3600).
    """

    host: str = Field(default=DEFAULT_HOST, min_length=1)
    port: int = Field(default=DEFAULT_PORT, ge=1, le=65535)
    token: str | None = Field(default=None)
    header_timeout_s: float = Field(default=10.0, gt=0, le=3600, allow_inf_nan=False)
    body_timeout_s: float = Field(default=30.0, gt=0, le=3600, allow_inf_nan=False)

    _seconds = field_validator("header_timeout_s", "body_timeout_s", mode="before")(_int_to_float)

    _token = field_validator("token", mode="after")(_check_token)


_AGENT_DEFAULTS = AgentConfig()

#: Fields of ``[defaults]`` and ``[[agents]]`` that are :class:`AgentConfig` fields.
AGENT_CONFIG_FIELDS = (
    "capacity",
    "backstop_s",
    "approval_backstop_s",
    "max_attempts",
    "max_payload_bytes",
    "dedup",
    "coalesce_window_ms",
    "consolidate",
    "stale_after_s",
    "auto_complete_informational",
)


class _AgentFields(_Section):
    """The per-agent settings of :class:`~attn.core.config.AgentConfig`; None: not set here.

    Attributes:
        capacity: maximum queued items (human chat is always accepted).
        backstop_s: seconds one processing attempt may run (000 §4).
        approval_backstop_s: the backstop while the brain awaits a person's approval.
        max_attempts: attempts before an item is dropped as poisoned.
        max_payload_bytes: largest JSON payload plus metadata accepted, in bytes.
        dedup: merge comments and channel messages into queued items (000 §14).
        coalesce_window_ms: wait this many milliseconds for the rest of a burst
            before triage; 0 disables (000 §14).
        consolidate: fold queued items about one task into one (000 §21).
        stale_after_s: informational items queued longer are dropped (000 §21).
        auto_complete_informational: complete status updates that ask for
            nothing without a brain call (000 §3.4).
    """

    capacity: int | None = Field(default=None, ge=1)
    backstop_s: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    approval_backstop_s: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    max_attempts: int | None = Field(default=None, ge=1, le=100)
    max_payload_bytes: int | None = Field(default=None, ge=1)
    dedup: bool | None = None
    coalesce_window_ms: int | None = Field(default=None, ge=0, le=60_000)
    consolidate: bool | None = None
    stale_after_s: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    auto_complete_informational: bool | None = None

    _seconds = field_validator("backstop_s", "approval_backstop_s", "stale_after_s", mode="before")(
        _int_to_float
    )


class DefaultsSection(_AgentFields):
    """``[defaults]``: agent settings applied unless an agent overrides them.

    Every field of :class:`_AgentFields` (the :class:`~attn.core.config.AgentConfig`
    fields) defaults to AgentConfig's own default, plus:

    Attributes:
        heartbeat_interval_s: every agent gets a heartbeat at this interval
            (300 .. 86,400 s; default 6 hours) unless one was set for it live
            (``PATCH /api/agents/{name}/config``, persisted); ``heartbeat_interval_s
            = false`` in attn.toml turns heartbeats off (000 §11.3, §11.4).
    """

    capacity: int = Field(default=_AGENT_DEFAULTS.capacity, ge=1)
    backstop_s: float = Field(default=_AGENT_DEFAULTS.backstop_s, gt=0, allow_inf_nan=False)
    approval_backstop_s: float = Field(
        default=_AGENT_DEFAULTS.approval_backstop_s, gt=0, allow_inf_nan=False
    )
    max_attempts: int = Field(default=_AGENT_DEFAULTS.max_attempts, ge=1, le=100)
    max_payload_bytes: int = Field(default=_AGENT_DEFAULTS.max_payload_bytes, ge=1)
    dedup: bool = _AGENT_DEFAULTS.dedup
    coalesce_window_ms: int = Field(default=_AGENT_DEFAULTS.coalesce_window_ms, ge=0, le=60_000)
    consolidate: bool = _AGENT_DEFAULTS.consolidate
    stale_after_s: float = Field(default=_AGENT_DEFAULTS.stale_after_s, gt=0, allow_inf_nan=False)
    auto_complete_informational: bool = _AGENT_DEFAULTS.auto_complete_informational
    heartbeat_interval_s: float | None = Field(
        default=6 * 3600.0, ge=300, le=86_400, allow_inf_nan=False
    )

    _heartbeat = field_validator("heartbeat_interval_s", mode="before")(_heartbeat_or_off)


class AgentSection(_AgentFields):
    """One ``[[agents]]`` entry.

    Attributes:
        name: the agent's name (letters, digits, ``_ . -``; at most 64).
        brain: a brain name known to :func:`attn.brains.build_brain`, e.g. ``"echo"``.
        description: one line shown in listings.
        options: table passed to the brain factory.
        capacity, backstop_s, max_attempts, coalesce_window_ms, ...: per-agent
            overrides of ``[defaults]`` (every :class:`_AgentFields` field).
    """

    name: str = Field(pattern=_AGENT_NAME_RE)
    brain: str = Field(min_length=1)
    description: str = ""
    options: dict[str, Any] = Field(default_factory=dict)


class AttnConfig(_Section):
    """The whole configuration, after environment overrides.

    Attributes:
        database, server, defaults: the sections above.
        agents: the agents to host, in order; :func:`load_config` checks that names are unique.
        source: where it came from: a file path, or ``"demo"`` for the built-in team.
    """

    database: DatabaseSection = DatabaseSection()
    server: ServerSection = ServerSection()
    defaults: DefaultsSection = DefaultsSection()
    agents: list[AgentSection] = Field(default_factory=list)
    source: str = Field(default="demo", exclude=True)

    def agent_settings(self, agent: AgentSection) -> AgentSettings:
        """The effective settings of ``agent``: its overrides, else ``[defaults]``."""
        return resolve_settings(self.defaults, agent)

    def time_config(self) -> TimeConfig:
        """The runtime's :class:`~attn.time.TimeConfig`: heartbeats for every agent
        at ``[defaults] heartbeat_interval_s`` when it is set, else none."""
        from attn.time import TimeConfig

        interval = self.defaults.heartbeat_interval_s
        if interval is None:
            return TimeConfig()
        return TimeConfig(heartbeats=True, heartbeat_default_s=interval)


def resolve_settings(defaults: DefaultsSection, overrides: _AgentFields) -> AgentSettings:
    """Each AgentConfig field from ``overrides`` when set there, else from ``defaults``.

    Args:
        defaults: the ``[defaults]`` section.
        overrides: an ``[[agents]]`` entry (or any set of per-agent fields).

    Returns:
        The effective settings; :meth:`AgentSettings.agent_config` makes the AgentConfig.
    """
    values = {}
    for name in AGENT_CONFIG_FIELDS:
        own = getattr(overrides, name)
        values[name] = own if own is not None else getattr(defaults, name)
    return AgentSettings(**values)


@dataclass(frozen=True, slots=True)
class AgentSettings:
    """Effective per-agent settings: the keyword arguments of ``AgentConfig``."""

    backstop_s: float
    max_attempts: int
    capacity: int
    approval_backstop_s: float = _AGENT_DEFAULTS.approval_backstop_s
    max_payload_bytes: int = _AGENT_DEFAULTS.max_payload_bytes
    dedup: bool = _AGENT_DEFAULTS.dedup
    coalesce_window_ms: int = _AGENT_DEFAULTS.coalesce_window_ms
    consolidate: bool = _AGENT_DEFAULTS.consolidate
    stale_after_s: float = _AGENT_DEFAULTS.stale_after_s
    auto_complete_informational: bool = _AGENT_DEFAULTS.auto_complete_informational

    def agent_config(self) -> AgentConfig:
        """These settings as an :class:`~attn.core.config.AgentConfig`.

        Raises:
            InvalidInput: a value AgentConfig refuses.
        """
        return AgentConfig(**{name: getattr(self, name) for name in AGENT_CONFIG_FIELDS})


#: The team ``attn serve`` hosts when there is no ``attn.toml``.
DEMO_AGENTS: tuple[dict[str, Any], ...] = (
    {
        "name": "alice",
        "brain": "echo",
        "description": "echoes your message back, in three steps with yield points between",
        "options": {"steps": 3, "step_s": 0.2},
    },
    {
        "name": "bob",
        "brain": "echo",
        "description": "echoes your message back at once",
        "options": {},
    },
    {
        "name": "carol",
        "brain": "script",
        "description": "follows a short script: says hello, thinks, answers",
        "options": {
            "steps": [
                {"say": "hello, carol here"},
                {"sleep_s": 0.2},
                {"say": "done thinking"},
            ]
        },
    },
)


def load_config(
    path: str | os.PathLike[str] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> AttnConfig:
    """Load the configuration.

    Args:
        path: the file to read. None means ``./attn.toml`` when it exists, else
            the demo team. An explicit path that does not exist is an error.
        environ: environment to read overrides from (default ``os.environ``).

    Returns:
        The validated configuration with environment overrides applied.

    Raises:
        ConfigError: unreadable file, TOML syntax error, unknown or invalid
            field, bad environment value. The message names the file, the field
            and the line where it can be found.
    """
    env = os.environ if environ is None else environ
    if path is None and not DEFAULT_CONFIG_PATH.is_file():
        return _validate({"agents": list(DEMO_AGENTS)}, env, source="demo", text=None)
    file = Path(path) if path is not None else DEFAULT_CONFIG_PATH
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file {str(file)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {str(file)!r}: {exc}") from exc
    return parse_config(text, source=str(file), environ=env)


def parse_config(
    text: str, *, source: str = "attn.toml", environ: Mapping[str, str] | None = None
) -> AttnConfig:
    """Parse and validate TOML text (see :func:`load_config`).

    Args:
        text: the TOML document.
        source: name used in error messages (usually the file path).
        environ: environment to read overrides from (default ``os.environ``).

    Raises:
        ConfigError: see :func:`load_config`.
    """
    env = os.environ if environ is None else environ
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: invalid TOML: {exc}") from None
    return _validate(data, env, source=source, text=text)


def _validate(
    data: dict[str, Any], env: Mapping[str, str], *, source: str, text: str | None
) -> AttnConfig:
    data = {**data}
    env_fields: dict[tuple[str, str], str] = {}
    for var, (section, key) in ENV_OVERRIDES.items():
        raw = env.get(var)
        if raw is None or raw == "":
            continue
        value: object = raw
        if key == "port":
            try:
                value = int(raw)
            except ValueError:
                raise ConfigError(
                    f"environment variable {var} must be a port number, got {raw!r}"
                ) from None
        table = data.get(section)
        data[section] = {**table, key: value} if isinstance(table, dict) else {key: value}
        env_fields[(section, key)] = var
    data["source"] = source
    head = source if source != "demo" else "built-in demo config"
    try:
        config = AttnConfig.model_validate(data)
    except ValidationError as exc:
        problems = _describe(exc, text, env_fields)
        raise ConfigError(_joined(head, problems), problems) from None
    lines = _key_lines(text) if text is not None else {}
    found: list[ConfigProblem] = []
    seen: set[str] = set()
    for i, agent in enumerate(config.agents):
        if agent.name in seen:
            found.append(
                ConfigProblem(
                    f"agents[{i}].name",
                    f"agent name {agent.name!r} is used twice",
                    _find_line(lines, ("agents", i, "name")) if lines else None,
                )
            )
        seen.add(agent.name)
    for i, agent in enumerate(config.agents):
        problem = _brain_problem(agent)
        if problem is None:
            problem = _settings_problem(config, agent)
        if problem is not None:
            loc, message = problem
            line = _find_line(lines, ("agents", i, *loc)) if lines else None
            found.append(
                ConfigProblem(_dotted(("agents", i, *loc)), message, line, agent=agent.name)
            )
    if found:
        raise ConfigError(_joined(head, found), tuple(found))
    return config


def _joined(head: str, problems: tuple[ConfigProblem, ...] | list[ConfigProblem]) -> str:
    return f"{head}: " + "; ".join(p.describe() for p in problems)


def _settings_problem(
    config: AttnConfig, agent: AgentSection
) -> tuple[tuple[str, ...], str] | None:
    """What AgentConfig refuses in the agent's effective settings (its own and ``[defaults]``)."""
    try:
        config.agent_settings(agent).agent_config()
    except InvalidInput as exc:
        return (), exc.message
    return None


def brain_problem(agent: AgentSection) -> tuple[tuple[str, ...], str] | None:
    """What is wrong with an agent's brain and options, checked as for ``attn.toml``.

    Used by ``POST /api/agents`` so an agent created over HTTP is checked like
    one in the file.

    Args:
        agent: the agent entry.

    Returns:
        None when the brain can be built, else (location under the agent, e.g.
        ``("options", "stepz")``, and the message).
    """
    return _brain_problem(agent)


def _brain_problem(agent: AgentSection) -> tuple[tuple[str, ...], str] | None:
    """What is wrong with an agent's brain and options: (location under the agent, message).

    Unknown and missing options are found from the brain class's signature
    (naming the options it takes); other bad values by building the brain once.
    """
    from attn.brains import BRAINS, build_brain

    cls = BRAINS.get(agent.brain)
    if cls is None:
        return ("brain",), f"unknown brain {agent.brain!r}; built-in brains: {', '.join(BRAINS)}"
    params = inspect.signature(cls).parameters
    named = [
        name
        for name, param in params.items()
        if param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY)
    ]
    takes = ", ".join(named) or "none"
    if not any(param.kind is param.VAR_KEYWORD for param in params.values()):
        for key in agent.options:
            if key not in named:
                message = f"the {agent.brain} brain has no option {key!r}; its options: {takes}"
                return ("options", key), message
    for name in named:
        if params[name].default is inspect.Parameter.empty and name not in agent.options:
            return ("options",), f"the {agent.brain} brain needs the option {name!r}"
    try:
        build_brain(agent.brain, dict(agent.options))
    except InvalidInput as exc:
        option = getattr(exc, "option", None)  # OptionError names the option
        return ("options", option) if isinstance(option, str) else ("options",), exc.message
    return None


def build_brains(config: AttnConfig) -> list[Brain]:
    """Build the brain of every agent of ``config``, in order.

    Returns:
        One brain per ``config.agents`` entry.

    Raises:
        ConfigError: a brain is unknown or its options are wrong; the message
            names the config's source and the agent.
    """
    from attn.brains import build_brain

    brains = []
    head = config.source if config.source != "demo" else "built-in demo config"
    for i, agent in enumerate(config.agents):
        try:
            brains.append(build_brain(agent.brain, dict(agent.options)))
        except InvalidInput as exc:
            raise ConfigError(
                f"{head}: agents[{i}].options (agent {agent.name!r}): {exc.message}"
            ) from exc
    return brains


def check_database_url(url: str) -> None:
    """Check what can be checked of a database URL before it is opened.

    For SQLite the folder of the file must exist (the file itself is created);
    other schemes are checked when the store opens.

    Args:
        url: a database URL (``sqlite:///…``, ``memory://``, ``postgresql://…``).

    Raises:
        InvalidInput: unsupported scheme, a malformed SQLite URL, a missing
            folder, or a path that is a folder.
    """
    from attn.store.url import SUPPORTED_SCHEMES, is_postgres_url, is_sqlite_url, parse_sqlite_url

    if is_sqlite_url(url):
        path = parse_sqlite_url(url).path
        folder = path.parent
        if not folder.is_dir():
            raise InvalidInput(
                f"cannot open the SQLite database {str(path)!r}: the folder "
                f"{str(folder)!r} does not exist (create it, or use another path)"
            )
        if path.is_dir():
            raise InvalidInput(
                f"cannot open the SQLite database {str(path)!r}: it is a folder, not a file"
            )
    elif url != "memory://" and not is_postgres_url(url):
        raise InvalidInput(
            f"unsupported database URL {url!r}; supported schemes: {', '.join(SUPPORTED_SCHEMES)}"
        )


def _describe(
    exc: ValidationError, text: str | None, env_fields: dict[tuple[str, str], str]
) -> tuple[ConfigProblem, ...]:
    lines = _key_lines(text) if text is not None else {}
    problems = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown field"
        var = env_fields.get(loc[:2]) if len(loc) == 2 else None  # type: ignore[arg-type]
        line = _find_line(lines, loc) if var is None and text is not None else None
        problems.append(ConfigProblem(_dotted(loc), msg, line, env_var=var))
    return tuple(problems)


def _dotted(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "config"


_HEADER_RE = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY_RE = re.compile(r"^\s*([A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*')\s*(?:\.|=)")


def _key_lines(text: str) -> dict[tuple[int | str, ...], int]:
    """Map TOML paths (as in pydantic locations) to the 1-based line defining them.

    A best-effort scan: headers ``[a.b]`` and ``[[a]]`` and ``key =`` lines;
    enough to point at the line of a bad field in a hand-written file.
    """
    found: dict[tuple[int | str, ...], int] = {}
    arrays: dict[str, int] = {}
    table: tuple[int | str, ...] = ()
    for number, raw in enumerate(text.splitlines(), start=1):
        header = _HEADER_RE.match(raw)
        if header:
            names = [n.strip().strip("\"'") for n in header.group(2).split(".")]
            path: list[int | str] = []
            for i, name in enumerate(names):
                path.append(name)
                last = i == len(names) - 1
                if last and header.group(1) == "[[":
                    key = ".".join(names)
                    arrays[key] = arrays.get(key, -1) + 1
                    path.append(arrays[key])
                elif not last and ".".join(names[: i + 1]) in arrays:
                    path.append(arrays[".".join(names[: i + 1])])
            table = tuple(path)
            found.setdefault(table, number)
            continue
        assignment = _KEY_RE.match(raw)
        if assignment:
            found.setdefault((*table, assignment.group(1).strip("\"'")), number)
    return found


def find_line(text: str, loc: tuple[int | str, ...]) -> int | None:
    """The 1-based line of TOML ``text`` that defines ``loc`` (e.g. ``("server", "host")``),
    or of its nearest enclosing table; None when neither is written in the text."""
    return _find_line(_key_lines(text), loc)


def _find_line(lines: dict[tuple[int | str, ...], int], loc: tuple[int | str, ...]) -> int | None:
    for end in range(len(loc), 0, -1):
        line = lines.get(loc[:end])
        if line is not None:
            return line
    return None


def is_loopback(host: str) -> bool:
    """True when ``host`` names only this machine (``127.x``, ``::1``, ``localhost``)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


__all__ = [
    "AGENT_CONFIG_FIELDS",
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "DEMO_AGENTS",
    "AgentSection",
    "AgentSettings",
    "AttnConfig",
    "ConfigError",
    "ConfigProblem",
    "DatabaseSection",
    "DefaultsSection",
    "ServerSection",
    "brain_problem",
    "build_brains",
    "check_database_url",
    "find_line",
    "is_loopback",
    "load_config",
    "parse_config",
    "resolve_settings",
]
