"""attn.filebox.jsonl.TailReader: reads a JSONL file once, then only what was
appended; a replaced or truncated file is read again from the start."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from attn.filebox.jsonl import MAX_LINE_BYTES, TailReader, encode_line, read_records


def _append(path: Path, data: bytes) -> None:
    with open(path, "ab") as file:
        file.write(data)


def test_a_missing_file_reads_as_empty_and_is_not_created(tmp_path: Path) -> None:
    path = tmp_path / "inbox.jsonl"
    reader = TailReader(path)
    assert reader.read() == ([], [], False)
    assert not path.exists()


def test_reads_are_incremental(tmp_path: Path) -> None:
    path = tmp_path / "inbox.jsonl"
    _append(path, encode_line({"n": 1}) + encode_line({"n": 2}))
    reader = TailReader(path)
    records, problems, torn = reader.read()
    assert (records, problems, torn) == ([{"n": 1}, {"n": 2}], [], False)
    first = records[0]

    # Change the first line in place (same size, same file): an incremental
    # reader does not read it again, so it still has the old value.
    with open(path, "r+b") as file:
        file.write(encode_line({"n": 9}))
    _append(path, encode_line({"n": 3}))
    records, _problems, _torn = reader.read()

    assert records == [{"n": 1}, {"n": 2}, {"n": 3}]
    assert records[0] is first  # kept, not parsed again
    assert reader.read()[0] == [{"n": 1}, {"n": 2}, {"n": 3}]  # nothing new: same records
    assert read_records(path)[0] == [{"n": 9}, {"n": 2}, {"n": 3}]  # a fresh read sees it


def test_a_replaced_file_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "inbox.jsonl"
    _append(path, encode_line({"n": 1}) + encode_line({"n": 2}))
    reader = TailReader(path)
    assert len(reader.read()[0]) == 2

    # Replaced by rename (as repair does): a new file, even if it is longer.
    new = tmp_path / "new.jsonl"
    new.write_bytes(encode_line({"n": 7}) + encode_line({"n": 8}) + encode_line({"n": 9}))
    os.replace(new, path)

    assert reader.read()[0] == [{"n": 7}, {"n": 8}, {"n": 9}]


def test_a_truncated_file_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "inbox.jsonl"
    _append(path, encode_line({"n": 1}) + encode_line({"n": 2}))
    reader = TailReader(path)
    assert len(reader.read()[0]) == 2

    with open(path, "r+b") as file:
        file.truncate(0)
        file.write(encode_line({"n": 5}))

    assert reader.read()[0] == [{"n": 5}]


def test_a_deleted_file_reads_as_empty_then_as_new(tmp_path: Path) -> None:
    path = tmp_path / "inbox.jsonl"
    _append(path, encode_line({"n": 1}))
    reader = TailReader(path)
    assert reader.read()[0] == [{"n": 1}]
    path.unlink()
    assert reader.read() == ([], [], False)
    _append(path, encode_line({"n": 2}))
    assert reader.read()[0] == [{"n": 2}]


def test_a_line_without_its_newline_waits_until_it_is_whole(tmp_path: Path) -> None:
    path = tmp_path / "inbox.jsonl"
    whole = encode_line({"body": "café ✓"})
    _append(path, encode_line({"n": 1}) + whole[:-5])
    reader = TailReader(path)

    assert reader.read() == ([{"n": 1}], [], True)
    assert reader.read() == ([{"n": 1}], [], True)  # read again, still torn
    _append(path, whole[-5:])
    assert reader.read() == ([{"n": 1}, {"body": "café ✓"}], [], False)


def test_bad_lines_are_skipped_and_reported_with_their_line_and_offset(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "inbox.jsonl"
    lines = [
        encode_line({"n": 1}),
        b"\n",  # blank: skipped, but it is a line
        b"not json\n",
        b"\xff\xfe\n",
        b'"a string"\n',
        b"[" * 100_000 + b"\n",
        encode_line({"n": 2}),
        encode_line({"n": "rejected"}),
        b"x" * (MAX_LINE_BYTES + 1) + b"\n",
    ]
    _append(path, b"".join(lines))
    caplog.set_level(logging.WARNING, logger="attn.filebox")

    def check(record: dict[str, object]) -> str:
        return "n is not a number" if not isinstance(record.get("n"), int) else ""

    records, problems, torn = TailReader(path, check).read()

    assert (records, torn) == ([{"n": 1}, {"n": 2}], False)
    assert [(p.line, p.reason) for p in problems] == [
        (3, "not JSON"),
        (4, "not UTF-8 (a cut multi-byte character?)"),
        (5, "not a JSON object"),
        (6, "not JSON"),
        (8, "n is not a number"),
        (9, f"longer than {MAX_LINE_BYTES:,} bytes"),
    ]
    starts = [sum(len(line) for line in lines[:i]) for i in range(len(lines))]
    assert [p.offset for p in problems] == [starts[i - 1] for i in (3, 4, 5, 6, 8, 9)]
    assert problems[0].path == str(path) and problems[0].preview == "not json"
    assert len(problems[-1].preview) == 120
    assert len([r for r in caplog.records if "skipped" in r.getMessage()]) == 6


def test_line_numbers_carry_on_across_incremental_reads(tmp_path: Path) -> None:
    path = tmp_path / "inbox.jsonl"
    _append(path, encode_line({"n": 1}) + b"bad\n")
    reader = TailReader(path)
    assert [p.line for p in reader.read()[1]] == [2]
    _append(path, encode_line({"n": 2}) + b"worse\n")
    assert [p.line for p in reader.read()[1]] == [2, 4]
    assert reader.read()[1][1].offset == len(
        encode_line({"n": 1}) + b"bad\n" + encode_line({"n": 2})
    )


def test_a_symlinked_file_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "target.jsonl"
    target.write_bytes(encode_line({"n": 1}))
    link = tmp_path / "inbox.jsonl"
    link.symlink_to(target)
    with pytest.raises(OSError):
        TailReader(link).read()
