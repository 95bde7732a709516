"""``attn db status`` and ``attn db upgrade`` on SQLite files and the real PostgreSQL
(SRV-21 one-line errors, SRV-22 progress bar)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from attn.cli.main import app
from attn.store import migrate


def attn(runner: CliRunner, *args: str, env: dict[str, str] | None = None) -> Any:
    return runner.invoke(app, list(args), env=env)


def _one_line_error(result: Any, needle: str, exit_code: int) -> None:
    assert result.exit_code == exit_code, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("attn: "), result.stderr
    assert needle in lines[0]


def test_status_upgrade_status_on_a_new_sqlite_file(runner: CliRunner, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    before = attn(runner, "db", "status", "--database", url)
    assert before.exit_code == 0, before.output
    assert "none yet; 'attn db upgrade' creates it at 0007" in before.stdout
    assert not (tmp_path / "new.db").exists()  # status creates nothing
    upgraded = attn(runner, "db", "upgrade", "--database", url)
    assert upgraded.exit_code == 0, upgraded.output
    assert (
        "from an empty database to 0007 (7 migration(s): 0001, 0002, 0003, 0004, 0005, 0006, 0007)"
        in upgraded.stdout
    )
    assert migrate.current(url) == migrate.head()
    again = attn(runner, "db", "upgrade", "--database", url)
    assert again.stdout.strip().endswith("is at 0007 (head); nothing to do")
    status = json.loads(attn(runner, "db", "status", "--database", url, "--json").stdout)
    assert status == {
        "database": url,
        "current": "0007",
        "head": "0007",
        "pending": [],
        "upToDate": True,
        "known": True,
    }


def test_an_older_schema_lists_and_applies_what_is_missing(
    runner: CliRunner, tmp_path: Path
) -> None:
    import sqlalchemy as sa
    from alembic import command

    path = tmp_path / "old.db"
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        command.upgrade(migrate.alembic_config(connection), "0001")
    engine.dispose()
    url = f"sqlite:///{path}"
    status = json.loads(attn(runner, "db", "status", "--database", url, "--json").stdout)
    assert (status["current"], status["pending"], status["upToDate"]) == (
        "0001",
        ["0002", "0003", "0004", "0005", "0006", "0007"],
        False,
    )
    text = attn(runner, "db", "status", "--database", url).stdout
    assert (
        "0001; 6 migration(s) to apply (0002, 0003, 0004, 0005, 0006, 0007): run 'attn db upgrade'"
        in text
    )
    result = json.loads(attn(runner, "db", "upgrade", "--database", url, "--json").stdout)
    assert (result["from"], result["applied"], result["current"]) == (
        "0001",
        ["0002", "0003", "0004", "0005", "0006", "0007"],
        "0007",
    )


def test_the_url_comes_from_env_then_config_then_default(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "team.toml").write_text(
        f'[database]\nurl = "sqlite:///{tmp_path / "from_config.db"}"\n', encoding="utf-8"
    )
    from_config = json.loads(attn(runner, "db", "status", "--config", "team.toml", "--json").stdout)
    assert from_config["database"].endswith("from_config.db")
    env = {"ATTN_DATABASE_URL": f"sqlite:///{tmp_path / 'from_env.db'}"}
    from_env = json.loads(
        attn(runner, "db", "status", "--config", "team.toml", "--json", env=env).stdout
    )
    assert from_env["database"].endswith("from_env.db")
    default = json.loads(attn(runner, "db", "status", "--json").stdout)
    assert default["database"] == "sqlite:///attn.db"


def test_srv21_bad_databases_are_one_line_errors(runner: CliRunner, tmp_path: Path) -> None:
    _one_line_error(attn(runner, "db", "upgrade", "--database", "memory://"), "no schema", 2)
    _one_line_error(attn(runner, "db", "status", "--database", "mysql://h/db"), "unsupported", 2)
    missing = f"sqlite:///{tmp_path / 'nowhere' / 'a.db'}"
    _one_line_error(attn(runner, "db", "upgrade", "--database", missing), "does not exist", 2)
    assert not (tmp_path / "nowhere").exists()
    (tmp_path / "bad.toml").write_text("[database]\nurl = 3\n", encoding="utf-8")
    _one_line_error(attn(runner, "db", "status", "--config", "bad.toml"), "line 2", 2)
    unreachable = "postgresql://postgres:secret@127.0.0.1:1/test"
    result = attn(runner, "db", "status", "--database", unreachable)
    _one_line_error(result, "cannot migrate or read the PostgreSQL database", 1)
    assert "secret" not in result.output


def test_srv22_upgrade_shows_a_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    """SRV-22: Rich draws the bar when stderr is a terminal (forced here by its env vars)."""
    env = {**os.environ, "TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1"}
    env.pop("ATTN_DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "attn", "db", "upgrade", "--database", f"sqlite:///{tmp_path}/p.db"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "migrating to 0007" in done.stderr
    assert "7/7" in done.stderr
    assert "upgraded" in done.stdout


@pytest.mark.postgres
def test_status_and_upgrade_on_postgresql(runner: CliRunner, fresh_pg_url: str) -> None:
    before = json.loads(attn(runner, "db", "status", "--database", fresh_pg_url, "--json").stdout)
    assert (before["current"], before["pending"]) == (
        None,
        ["0001", "0002", "0003", "0004", "0005", "0006", "0007"],
    )
    upgraded = attn(runner, "db", "upgrade", "--database", fresh_pg_url)
    assert upgraded.exit_code == 0, upgraded.output
    assert "to 0007 (7 migration(s): 0001, 0002, 0003, 0004, 0005, 0006, 0007)" in upgraded.stdout
    after = json.loads(attn(runner, "db", "status", "--database", fresh_pg_url, "--json").stdout)
    assert (after["current"], after["upToDate"]) == ("0007", True)
