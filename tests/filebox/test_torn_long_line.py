"""FILE-04 with a torn line longer than the 64 KiB the quarantine copies: the record
names where the line really starts and how long it is (found by benchmarks/filebox.py,
whose crash loop tears lines of up to 100 KB)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from attn.filebox.jsonl import MAX_QUARANTINE_BYTES, append_line, encode_line, read_records


def test_file_04_a_torn_line_longer_than_64_kib_is_quarantined_from_where_it_starts(
    tmp_path: Path,
) -> None:
    inbox, quarantine = tmp_path / "inbox.jsonl", tmp_path / "quarantine.jsonl"
    first = encode_line({"id": "fbm_first"})
    torn = encode_line({"id": "fbm_torn", "body": "café ✓ " * 30_000})[:200_001]
    assert len(torn) > 3 * MAX_QUARANTINE_BYTES and b"\n" not in torn
    inbox.write_bytes(first + torn)

    offset = append_line(
        inbox, encode_line({"id": "fbm_after"}), lock=tmp_path / ".lock", quarantine=quarantine
    )

    [record] = [json.loads(line) for line in quarantine.read_text().splitlines()]
    assert (record["offset"], record["bytes"]) == (len(first), len(torn))
    assert base64.b64decode(record["base64"]) == torn[:MAX_QUARANTINE_BYTES]  # its head: the id
    assert offset == len(first) + len(torn) + 1  # after the newline that ends the torn bytes
    records, problems, ended_torn = read_records(inbox)
    assert [r["id"] for r in records] == ["fbm_first", "fbm_after"]
    assert [p.offset for p in problems] == [len(first)] and not ended_torn


def test_file_04_a_torn_first_line_longer_than_64_kib_starts_at_byte_0(tmp_path: Path) -> None:
    inbox, quarantine = tmp_path / "inbox.jsonl", tmp_path / "quarantine.jsonl"
    inbox.write_bytes(b'{"id": "fbm_torn", "body": "' + b"x" * 150_000)

    append_line(
        inbox, encode_line({"id": "fbm_after"}), lock=tmp_path / ".lock", quarantine=quarantine
    )

    [record] = [json.loads(line) for line in quarantine.read_text().splitlines()]
    assert (record["offset"], record["bytes"]) == (0, 150_028)
    assert [r["id"] for r in read_records(inbox)[0]] == ["fbm_after"]
