"""`attn import claude-team` and `attn replay` through the real command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from attn.cli.main import app
from attn.trace.files import read_trace


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

    code, stdout, _ = _run(
        "replay", str(out), "--database", f"sqlite:///{tmp_path / 'r.db'}", "--json"
    )
    assert code == 0
    summary = json.loads(stdout)
    assert summary["ok"] and summary["lost"] == []
    assert summary["completed"] + summary["merged"] == 60  # idle pings may supersede (CORE-76)
    assert set(summary["latency"]) == {"p50S", "p99S", "maxS", "samples"}

    code, stdout, _ = _run("replay", str(out))
    assert code == 0
    assert "replay summary" in stdout and "items lost" in stdout


def test_import_to_stdout(inbox_dir: Path) -> None:
    code, stdout, _ = _run(
        "import", "claude-team", str(inbox_dir / "raw/inboxes/humble-chasing-goose"), "-o", "-"
    )
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


def _on_a_terminal(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``attn ARGS`` with stderr treated as a terminal (Rich's env switches)."""
    env = {**os.environ, "TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1"}
    env.pop("ATTN_DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "attn", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )


def test_srv22_import_and_replay_show_a_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    """SRV-22: importing files and replaying a trace draw a bar on stderr."""
    inboxes = tmp_path / "inboxes"
    inboxes.mkdir()
    for n, name in enumerate(("ann", "ben", "cy")):
        message = {"from": "lead", "text": f"task {n}", "timestamp": f"2026-01-0{n + 1}T10:00:00Z"}
        (inboxes / f"inbox-{name}.json").write_text(json.dumps([message]))
    trace = tmp_path / "t.jsonl"
    imported = _on_a_terminal(tmp_path, "import", "claude-team", str(inboxes), "-o", str(trace))
    assert imported.returncode == 0, imported.stderr
    assert "files read" in imported.stderr and "3/3" in imported.stderr
    replayed = _on_a_terminal(tmp_path, "replay", str(trace))
    assert replayed.returncode == 0, replayed.stderr
    assert "enqueued" in replayed.stderr and "3/3" in replayed.stderr
    # Not a terminal (the CliRunner): no bar at all.
    code, _, stderr = _run("import", "claude-team", str(inboxes), "-o", str(trace))
    assert code == 0 and "files read" not in stderr
