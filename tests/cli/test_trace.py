"""``attn replay`` and ``attn import`` options: bad values are one clear line, exit status 2,
no Python terms ("None", exception class names) and no driver messages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from attn.cli.main import app


@pytest.fixture
def trace_file(tmp_path: Path) -> Path:
    path = tmp_path / "t.jsonl"
    path.write_text('{"format": "attn-trace", "version": 1}\n', encoding="utf-8")
    return path


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def _one_line(result: Any, expected: str, exit_code: int = 2) -> None:
    assert result.exit_code == exit_code, (result.stdout, result.stderr)
    assert result.stderr == f"attn: {expected}\n"
    assert result.stdout == ""
    for term in ("None", "Traceback", "Error:", "sqlalche", "OperationalError"):
        assert term not in result.stderr


def test_an_empty_trace_replays(trace_file: Path) -> None:
    result = _run("replay", str(trace_file), "--json")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("speed", ["0", "-1", "nan"])
def test_speed_must_be_positive(trace_file: Path, speed: str) -> None:
    shown = "nan" if speed == "nan" else str(int(speed))
    _one_line(
        _run("replay", str(trace_file), "--speed", speed),
        f"--speed must be a positive factor (10 replays ten times faster), got {shown}; "
        "leave it out to replay as fast as possible",
    )


def test_max_gap_needs_speed_and_no_negative(trace_file: Path) -> None:
    _one_line(
        _run("replay", str(trace_file), "--max-gap", "5"), "--max-gap only applies with --speed"
    )
    _one_line(
        _run("replay", str(trace_file), "--speed", "2", "--max-gap", "-1"),
        "--max-gap must be seconds ≥ 0, got -1",
    )
    ok = _run("replay", str(trace_file), "--speed", "2", "--max-gap", "0", "--json")
    assert ok.exit_code == 0, ok.output


def test_database_in_a_missing_folder_is_one_line(trace_file: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "x.db"
    _one_line(
        _run("replay", str(trace_file), "--database", f"sqlite:///{missing}"),
        f"cannot open the SQLite database '{missing}': the folder '{missing.parent}' "
        "does not exist (create it, or use another path)",
    )
    assert not missing.parent.exists()
    _one_line(
        _run("replay", str(trace_file), "--database", "sqlite:///nope/x.db"),
        "cannot open the SQLite database 'nope/x.db': the folder 'nope' does not exist "
        "(create it, or use another path)",
    )


def test_database_that_is_a_folder_or_unsupported(trace_file: Path, tmp_path: Path) -> None:
    _one_line(
        _run("replay", str(trace_file), "--database", f"sqlite:///{tmp_path}"),
        f"cannot open the SQLite database '{tmp_path}': it is a folder, not a file",
    )
    result = _run("replay", str(trace_file), "--database", "bogus://x")
    assert result.exit_code == 2
    assert result.stderr.startswith("attn: unsupported database URL 'bogus://x'; supported")


def test_store_errors_drop_driver_links() -> None:
    from attn.cli.output import one_line

    raw = (
        "cannot migrate the SQLite database 'x.db': (sqlite3.OperationalError) disk I/O error\n"
        "(Background on this error at: https://sqlalche.me/e/21/e3q8)"
    )
    assert one_line(raw) == (
        "cannot migrate the SQLite database 'x.db': (sqlite3.OperationalError) disk I/O error"
    )
