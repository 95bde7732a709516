"""`attn import claude-team` and `attn replay` through the real command line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from attn.cli.main import app
from attn.trace.model import read_trace


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_import_then_replay(inbox_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "team.jsonl"
    code, stdout, _ = _run("import", "claude-team", str(inbox_dir), "-o", str(out), "--json")
    assert code == 0
    report = json.loads(stdout)
    assert report["events"] == 60 and report["agents"] == 20
    assert len(read_trace(out).events) == 60

    code, stdout, _ = _run("replay", str(out), "--database", f"sqlite:///{tmp_path / 'r.db'}",
                           "--json")
    assert code == 0
    summary = json.loads(stdout)
    assert summary["ok"] and summary["completed"] == 60 and summary["lost"] == []
    assert set(summary["latency"]) == {"p50S", "p99S", "maxS", "samples"}

    code, stdout, _ = _run("replay", str(out))
    assert code == 0
    assert "replay summary" in stdout and "items lost" in stdout


def test_import_to_stdout(inbox_dir: Path) -> None:
    code, stdout, _ = _run("import", "claude-team",
                           str(inbox_dir / "raw/inboxes/humble-chasing-goose"), "-o", "-")
    assert code == 0
    lines = stdout.splitlines()
    assert json.loads(lines[0])["format"] == "attn-trace"
    assert len(lines) == 1 + 6


def test_bad_inbox_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "lead.json").write_text('[{"from": "a"}]', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    code, stdout, stderr = _run("import", "claude-team", str(tmp_path), "-o", str(out))
    assert code == 2
    assert stderr == "attn: team/lead.json: message [0]: 'text' is missing\n"
    assert "Traceback" not in stdout + stderr
    assert not out.exists()


def test_bad_trace_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "attn-trace", "version": 1}\n{"at": 1}\n', encoding="utf-8")
    code, stdout, stderr = _run("replay", str(bad))
    assert code == 2
    assert stderr.startswith(f"attn: {bad}:2: event is missing")
    assert "Traceback" not in stdout + stderr
    code, _, stderr = _run("replay", str(tmp_path / "missing.jsonl"))
    assert code == 2 and "cannot read trace file" in stderr
