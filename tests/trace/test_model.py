"""The trace file format: writing, reading, and line-numbered errors for bad input."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from attn.core.item_type import Category, ItemType
from attn.errors import InvalidTrace
from attn.trace.files import read_trace, write_trace
from attn.trace.model import (
    Trace,
    TraceAgent,
    TraceEvent,
)

SPEC = ItemType(
    "custom_ping",
    "Ping",
    3,
    Category.SYSTEM,
    "!",
    "internal",
    invokes_llm=False,
    merge_key="pingId",
    user_priority=1,
    description="a ping",
)


def _event(key: str = "k1", **changes: object) -> TraceEvent:
    fields: dict[str, object] = dict(
        at=datetime(2026, 2, 9, 15, 8, 17, 410000, tzinfo=UTC),
        agent="team.alice",
        source_type="custom_ping",
        payload={"content": "hi"},
        metadata={"senderId": "team.bob"},
        priority=None,
        key=key,
    )
    fields.update(changes)
    return TraceEvent(**fields)  # type: ignore[arg-type]


def _trace() -> Trace:
    return Trace(
        {"kind": "test"},
        (SPEC,),
        (TraceAgent("team.alice", "A"),),
        (_event("k1"), _event("k2", priority=0)),
    )


def test_round_trip(tmp_path: Path) -> None:
    trace = _trace()
    path = write_trace(trace, tmp_path / "t.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["format"] == "attn-trace"
    assert len(lines) == 3
    assert read_trace(path) == trace
    assert ItemType.from_dict(SPEC.to_dict()) == SPEC
    assert _event().sender == "team.bob"
    assert _event(metadata={}).sender == "unknown"


def test_agents_missing_from_the_header_come_from_events(tmp_path: Path) -> None:
    trace = Trace({}, (), (), (_event(agent="x.y"),))
    assert [a.name for a in read_trace(write_trace(trace, tmp_path / "t.jsonl")).agents] == ["x.y"]


def _lines(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


HEADER = json.dumps({"format": "attn-trace", "version": 1, "types": [SPEC.to_dict()]})
GOOD = json.dumps(_event().to_json(), separators=(",", ":"))


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ((), r"empty file"),
        (("",), r"empty file"),
        (("[1]",), r":1: expected the trace header"),
        ((GOOD,), r":1: expected the trace header"),
        ((HEADER, GOOD, "{nope"), r":3: not valid JSON"),
        ((HEADER, "", GOOD, "[]"), r":4: an event must be a JSON object, got an array"),
        ((HEADER, GOOD, GOOD), r":3: duplicate key 'k1' for agent 'team.alice' \(first used on"),
        ((HEADER, GOOD.replace('"at"', '"when"')), r":2: event is missing 'at'"),
        ((HEADER, GOOD.replace('"key":"k1"', '"key":"k1","x":1')), r":2: event has unknown fi"),
        ((HEADER, GOOD.replace("+00:00", "")), r":2: 'at' needs a timezone"),
        ((HEADER, GOOD.replace('"priority":null', '"priority":9')), r":2: priority must be"),
        ((HEADER, GOOD.replace('"priority":null', '"priority":true')), r":2: priority must be"),
        ((HEADER, GOOD.replace('{"content":"hi"}', '"hi"')), r":2: 'payload' must be a JSON"),
        ((HEADER, GOOD.replace('"agent":"team.alice"', '"agent":""')), r":2: 'agent' must be"),
        ((HEADER.replace('"version": 1', '"version": 2'), GOOD), r":1: unsupported trace ver"),
        (
            (HEADER.replace('"category": "system"', '"category": "misc"'),),
            r":1: types\[0\]: category must be one of",
        ),
        (
            (HEADER.replace('"name": "custom_ping"', '"name": "Bad Name"'),),
            r":1: types\[0\]: type name must match",
        ),
        (
            (HEADER.replace('"defaultPriority": 3', '"defaultPriority": "3"'),),
            r":1: types\[0\]: item type field 'defaultPriority' has the wrong type",
        ),
    ],
)
def test_bad_lines_name_the_line(tmp_path: Path, lines: tuple[str, ...], expected: str) -> None:
    with pytest.raises(InvalidTrace, match=expected):
        read_trace(_lines(tmp_path, *lines))


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(InvalidTrace, match="cannot read trace file"):
        read_trace(tmp_path / "missing.jsonl")
    (tmp_path / "bin.jsonl").write_bytes(HEADER.encode() + b"\n\xff\xfe\n")
    with pytest.raises(InvalidTrace, match=r"bin\.jsonl:2: not UTF-8"):
        read_trace(tmp_path / "bin.jsonl")


def test_write_failure_is_a_clear_error(tmp_path: Path) -> None:
    from attn.errors import InvalidInput

    with pytest.raises(InvalidInput, match="cannot write trace file"):
        write_trace(_trace(), tmp_path / "no-such-dir" / "t.jsonl")


DEEP = '{"content":"hi","deep":' + "[" * 40 + "]" * 40 + "}"


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (DEEP, r":2: payload: nested more than 32 levels deep"),
        ('{"content":"hi","n":NaN}', r":2: payload: numbers must be finite"),
        ('{"content":"hi","n":' + "9" * 30 + "}", r":2: payload: integers must fit in 64 bits"),
        ('{"content":"hi","n":' + "9" * 5000 + "}", r":2: a number has more than 4,300 digits"),
        ('{"content":' + "[" * 100_000 + "]" * 100_000 + "}", r":2: JSON nested too deeply"),
    ],
)
def test_c4_trace_lines_outside_the_json_limits_name_the_line(
    tmp_path: Path, payload: str, expected: str
) -> None:
    """Issue 10 C4: a trace file gets the limits of an enqueue (attn.limits), refused
    with the line number before anything is replayed, never a traceback."""
    line = GOOD.replace('{"content":"hi"}', payload)
    with pytest.raises(InvalidTrace, match=expected):
        read_trace(_lines(tmp_path, HEADER, line))
