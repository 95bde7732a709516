"""The README's Python example runs as written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_python_example_runs(tmp_path: Path) -> None:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Use it from Python", 1)[1]
    code = section.split("```python", 1)[1].split("```", 1)[0]
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
    assert done.stdout.startswith("done: what did you find?")
    assert "'status': 'completed'" in done.stdout


def test_spawn_tree_example_runs(tmp_path: Path) -> None:
    """The seed 002 example: two children report back, and their RESULTs wake the root."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Agents that spawn agents (seed 002)", 1)[1]
    code = section.split("```python", 1)[1].split("```", 1)[0]
    shown = section.split("```text", 1)[1].split("```", 1)[0]
    script = tmp_path / "tree_example.py"
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
    assert done.stdout == shown.lstrip("\n")


def test_people_example_runs(tmp_path: Path) -> None:
    """Issue 15's example: a parked deploy, a chat served meanwhile, the answer resumes it."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Agents that ask people: notifications and approvals", 1)[1]
    code = section.split("```python", 1)[1].split("```", 1)[0]
    shown = section.split("```text", 1)[1].split("```", 1)[0]
    script = tmp_path / "people_example.py"
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
    assert done.stdout == shown.lstrip("\n")


def test_filebox_example_runs(tmp_path: Path) -> None:
    """Issue 16's example: a leader runs two shell workers, one asks, a person answers."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Command-line workers: file mailboxes (seed 003)", 1)[1]
    code = section.split("```python", 1)[1].split("```", 1)[0]
    shown = section.split("```text", 1)[1].split("```", 1)[0]
    script = tmp_path / "filebox_example.py"
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
    assert done.stdout == shown.lstrip("\n")
