"""benchmarks/filebox.py: its file checks on crafted files, and its quick mode end to end.

Speed is measured there, never asserted here; what must hold at any size is
asserted: attn loses no append and no acknowledged append, tears at most one
line per SIGKILL, quarantines every torn line, and the table names every part.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

from filebox_checks import check_counts, check_crash  # noqa: E402


def _line(writer: int, seq: int, message_id: str | None = None) -> bytes:
    record = {"id": message_id or f"m{writer}-{seq}", "from": f"w{writer}", "body": f"{seq} hi"}
    return json.dumps(record).encode() + b"\n"


def test_the_count_check_finds_lost_duplicated_reordered_and_torn_lines(tmp_path: Path) -> None:
    clean = b"".join(_line(w, s) for s in range(3) for w in range(2))
    (tmp_path / "inbox.jsonl").write_bytes(clean)
    assert check_counts(tmp_path, 2, 3, delivery=False).clean

    broken = [_line(0, 1), _line(0, 0), _line(0, 0, "again"), b'{"id": "cut', b"\n", _line(1, 0)]
    (tmp_path / "inbox.jsonl").write_bytes(b"".join(broken))
    check = check_counts(tmp_path, 2, 3, delivery=False)
    assert (check.lost, check.duplicated, check.out_of_order, check.bad_lines) == (3, 1, 1, 1)
    assert not check.clean


def test_the_count_check_counts_messages_delivery_json_does_not_name(tmp_path: Path) -> None:
    (tmp_path / "inbox.jsonl").write_bytes(_line(0, 0) + _line(0, 1))
    (tmp_path / "delivery.json").write_text(json.dumps({"messages": {"m0-1": "queued"}}))
    assert check_counts(tmp_path, 1, 2, delivery=True).delivery_lost == 1
    (tmp_path / "delivery.json").write_text("")  # truncated mid-write: names nothing
    assert check_counts(tmp_path, 1, 2, delivery=True).delivery_lost == 2


def test_the_crash_check_gives_each_torn_line_to_the_cycle_it_started_in(tmp_path: Path) -> None:
    first = _line(0, 0)
    torn = b'{"id": "m0-1", "body": "1 cut h'
    # Cycle 0 wrote a line and tore one; cycle 1's first line was glued onto it
    # (what an appender that never looks at the last byte does), then one more.
    data = first + torn + _line(0, 2) + b'{"id": "x' + b"\n" + _line(0, 3, "restart")
    (tmp_path / "inbox.jsonl").write_bytes(data)
    starts = [0, len(first) + len(torn)]
    quarantine = {"offset": len(first)}
    (tmp_path / "quarantine.jsonl").write_text(json.dumps(quarantine) + "\n")
    acked = {"m0-0", "m0-2", "restart"}
    check = check_crash(tmp_path, starts, acked, "restart", quarantine=True, delivery=False)
    assert (check.lost, check.torn, check.most_torn_in_a_cycle) == (1, 2, 1)
    assert (check.quarantined, check.quarantined_twice, check.torn_not_quarantined) == (1, 0, 1)
    assert check.restart_parses


def test_the_quick_run_loses_nothing_and_names_every_part() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "filebox.py"), "--quick", "--runs", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for needle in ("## Appends/s", "## Read of a", "## SIGKILL loop", "attn / plain", "÷ pi-crew"):
        assert needle in out, needle
    assert "missed:" not in out
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 5:
            rows[cells[0]] = cells[1:]
    assert rows["SIGKILLs that landed"][0] != "0"
    assert rows["acknowledged appends lost"][0] == "0"
    assert rows["torn lines not quarantined"][0] == "0"
    assert rows["the append after the last kill parses"][0] == "yes"
    checked = [line for line in out.splitlines() if line.startswith("| attn | ")]
    assert len(checked) == 4  # 1 and 8 writers, fsync on and off
    for line in checked:
        assert line.split("|")[5:9] == [" 0 "] * 4, line  # unparseable, lost, duplicated, order
