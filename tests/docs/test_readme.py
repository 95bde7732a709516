"""The README's Python examples run as written and print what the README shows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def run_example(heading: str, tmp_path: Path) -> tuple[str, str]:
    """Run the first ``python`` block under ``heading`` in ``tmp_path``; its output,
    and the section's first ``text`` block ("" when it has none)."""
    section = README.read_text(encoding="utf-8").split(heading, 1)[1]
    code = section.split("```python", 1)[1].split("```", 1)[0]
    shown = section.split("```text", 1)[1].split("```", 1)[0] if "```text" in section else ""
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, shown.lstrip("\n")


def test_python_example_runs(tmp_path: Path) -> None:
    printed, _ = run_example("## Use it from Python", tmp_path)
    assert printed.startswith("done: what did you find?")
    assert "'status': 'completed'" in printed


def test_spawn_tree_example_runs(tmp_path: Path) -> None:
    """The seed 002 example: two children report back, and their RESULTs wake the root."""
    printed, shown = run_example("## Agents that spawn agents (seed 002)", tmp_path)
    assert printed == shown


def test_people_example_runs(tmp_path: Path) -> None:
    """Issue 15's example: a parked deploy, a chat served meanwhile, the answer resumes it."""
    printed, shown = run_example("## Agents that ask people: notifications and approvals", tmp_path)
    assert printed == shown


def test_filebox_example_runs(tmp_path: Path) -> None:
    """Issue 16's example: a leader runs two shell workers, one asks, a person answers."""
    printed, shown = run_example("## Command-line workers: file mailboxes (seed 003)", tmp_path)
    assert printed == shown


def test_mcp_example_runs(tmp_path: Path) -> None:
    """Issue 17: two external agents talk through attn's MCP tools (MCP-08's README)."""
    printed, shown = run_example(
        "## Coding agents over MCP: Claude Code, Codex, Gemini CLI", tmp_path
    )
    assert printed == shown
