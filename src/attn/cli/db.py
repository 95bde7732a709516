"""``attn db upgrade`` and ``attn db status``: attn's schema in a database.

The database is ``--database URL``, else ``ATTN_DATABASE_URL``, else
``[database] url`` of ``attn.toml`` (or ``--config``), else ``./attn.db``.
Both commands work on SQLite and PostgreSQL through :mod:`attn.store.migrate`
(Alembic); neither needs a running server. Upgrading is safe while a server
runs on the same database and from several processes at once.

Spec: 000 §6.2 (versioned migrations); issue 3 point 6; acceptance SRV-22
(migrating a database shows a progress bar).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from attn.cli.client import CliError
from attn.cli.output import examples, handle_errors, print_json

app = typer.Typer(
    name="db",
    help="Create, upgrade and inspect attn's schema in a database (SQLite or PostgreSQL).",
    epilog=examples("attn db status", "attn db upgrade --database postgresql://127.0.0.1/attn"),
    no_args_is_help=True,
)

DatabaseOption = Annotated[
    str | None,
    typer.Option(
        "--database",
        help="Database URL (sqlite:///path or postgresql://...). Default: ATTN_DATABASE_URL, "
        "else [database] url of the config, else sqlite:///attn.db.",
        show_default=False,
    ),
]
ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config", help="Config file to read the URL from (default ./attn.toml).", dir_okay=False
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead.")]

_PASSWORD = re.compile(r"(://[^:/@]+:)[^@]*@")


def register(root: typer.Typer) -> None:
    """Add ``attn db …`` to ``root``."""
    root.add_typer(app, name="db")


@dataclass(frozen=True, slots=True)
class SchemaStatus:
    """Where a database's schema is.

    Attributes:
        database: the URL, password hidden.
        current: the revision the database is at; None when it has no attn schema.
        head: the newest revision this attn knows.
        pending: revisions an upgrade would apply, oldest first.
        known: False when ``current`` is a revision this attn does not know (a newer attn
            migrated it).
    """

    database: str
    current: str | None
    head: str
    pending: tuple[str, ...]
    known: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "database": self.database,
            "current": self.current,
            "head": self.head,
            "pending": list(self.pending),
            "upToDate": self.known and not self.pending,
            "known": self.known,
        }


def database_url(database: str | None, config: Path | None) -> str:
    """The URL the ``db`` commands work on (see the module docstring).

    Raises:
        CliError: ``memory://``, which has no schema.
        ConfigError, InvalidInput: a bad config file, or an SQLite folder that does not exist.
    """
    from attn.brains.from_config import brain_problem
    from attn.config import load_config
    from attn.store.url import check_database_url, default_database_url

    url = (
        database
        or load_config(config, check_agent=brain_problem).database.url
        or default_database_url()
    )
    if url.startswith("memory://"):
        raise CliError("memory:// keeps nothing, so it has no schema to migrate", exit_code=2)
    check_database_url(url)
    return url


def schema_status(url: str) -> SchemaStatus:
    """Read the revision of the database at ``url`` and what an upgrade would apply.

    Raises:
        InvalidInput: not an SQLite or PostgreSQL URL. StoreError: cannot read it.
    """
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    from attn.store import migrate

    current = migrate.current(url)
    script = ScriptDirectory.from_config(migrate.alembic_config())
    head = migrate.head()
    try:
        pending = [r.revision for r in script.iterate_revisions("head", current or "base")]
    except CommandError:
        return SchemaStatus(_shown(url), current, head, (), known=False)
    return SchemaStatus(_shown(url), current, head, tuple(reversed(pending)))


def _shown(url: str) -> str:
    return _PASSWORD.sub(r"\1***@", url)


@app.command("status", epilog=examples("attn db status", "attn db status --json"))
@handle_errors
def status(
    database: DatabaseOption = None, config: ConfigOption = None, as_json: JsonOption = False
) -> None:
    """Show the database's schema revision and the migrations an upgrade would apply."""
    found = schema_status(database_url(database, config))
    if as_json:
        print_json(found.to_dict())
        return
    typer.echo(f"database: {found.database}")
    if not found.known:
        typer.echo(
            f"schema:   {found.current}, unknown to this attn (head {found.head}); "
            "a newer attn migrated it"
        )
    elif found.current is None:
        typer.echo(f"schema:   none yet; 'attn db upgrade' creates it at {found.head}")
    elif not found.pending:
        typer.echo(f"schema:   {found.current} (head), up to date")
    else:
        typer.echo(
            f"schema:   {found.current}; {len(found.pending)} migration(s) to apply "
            f"({', '.join(found.pending)}): run 'attn db upgrade'"
        )


@app.command(
    "upgrade",
    epilog=examples(
        "attn db upgrade",
        "ATTN_DATABASE_URL=postgresql://127.0.0.1/attn attn db upgrade --json",
    ),
)
@handle_errors
def upgrade(
    database: DatabaseOption = None, config: ConfigOption = None, as_json: JsonOption = False
) -> None:
    """Create attn's schema, or upgrade it to the newest revision. Safe to repeat."""
    from attn.store import migrate

    url = database_url(database, config)
    before = schema_status(url)
    if not before.known:
        raise CliError(
            f"{before.database} is at revision {before.current}, which this attn does not "
            f"know (its newest is {before.head}); upgrade attn instead"
        )
    if before.pending:
        err = Console(stderr=True)
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=err, disable=not err.is_terminal) as bar:
            task = bar.add_task(f"migrating to {before.head}", total=len(before.pending))
            # One transaction for every step: the bar completes when it commits.
            migrate.upgrade(url)
            bar.update(task, completed=len(before.pending))
    after = schema_status(url)
    if as_json:
        print_json({**after.to_dict(), "from": before.current, "applied": list(before.pending)})
    elif before.pending:
        start = before.current or "an empty database"
        typer.echo(
            f"upgraded {after.database} from {start} to {after.current} "
            f"({len(before.pending)} migration(s): {', '.join(before.pending)})"
        )
    else:
        typer.echo(f"{after.database} is at {after.current} (head); nothing to do")
