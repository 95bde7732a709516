"""benchmarks/approvals.py end to end in its quick mode: the crash counts must be zero.

Latency is measured but not asserted here (a tiny run on a busy machine says little).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "approvals.py"


def test_the_quick_run_loses_no_approval_and_runs_nothing_twice() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = dict(
        line.strip("|").split("|")[:2]
        for line in done.stdout.splitlines()
        if line.startswith("| ") and line.count("|") == 4
    )
    counts = {k.strip(): v.strip() for k, v in rows.items()}
    assert counts["approvals asked"] == "2"
    for key in ("approvals lost", "jobs asked twice", "actions run twice", "jobs not completed"):
        assert counts[key] == "0", key
