"""benchmarks/mcp_bench.py end to end in its quick mode: it runs and prints its table.

Speed is measured there, never asserted here (a tiny run on a busy machine says
little); a lost wakeup or a refused send makes the script fail, and so this test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "mcp_bench.py"


@pytest.mark.timeout(300)
def test_the_quick_run_prints_every_figure() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--runs", "1", "--no-peer"],
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for label in (
        "send p99",
        "sends/s, 30 clients",
        "lock errors",
        "wait_for_mail p99",
        "peek_inbox p99",
        "mcp_agent_mail",
    ):
        assert label in out, label
    assert "server: " in out and "load average" in out
