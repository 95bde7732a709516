"""What ``filebox.py`` checks in the files the writers left: nothing lost, nothing torn twice.

Every contender writes one message per line to ``mailbox/inbox.jsonl``; message
``seq`` of writer ``w`` has ``from`` = ``"w<w>"`` and a body starting ``"<seq> "``
(``filebox_writers.py``). pi-crew's peer also keeps ``mailbox/delivery.json``,
``{"messages": {id: status}, …}``, which should name every message.
"""

from __future__ import annotations

import bisect
import itertools
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(slots=True)
class Lines:
    """A JSONL file split into whole lines: the records that parse (with their
    byte offsets), the offsets of lines that do not, and a torn tail's length."""

    records: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    bad: list[int] = field(default_factory=list)
    torn_tail: int = 0

    @property
    def ids(self) -> set[str]:
        return {str(r.get("id")) for _, r in self.records}


def read_lines(path: Path) -> Lines:
    """Parse ``path`` line by line, the way a strict reader would (a missing file is empty)."""
    out = Lines()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return out
    parts = data.split(b"\n")
    out.torn_tail = len(parts.pop())
    offset = 0
    for raw in parts:
        if raw.strip():
            try:
                value = json.loads(raw.decode("utf-8"))
            except ValueError:
                value = None
            if isinstance(value, dict) and isinstance(value.get("id"), str):
                out.records.append((offset, value))
            else:
                out.bad.append(offset)
        offset += len(raw) + 1
    return out


def delivery_ids(path: Path) -> set[str] | None:
    """The ids ``delivery.json`` names; None when it is missing or does not parse."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None
    messages = raw.get("messages") if isinstance(raw, dict) else None
    return set(messages) if isinstance(messages, dict) else None


@dataclass(slots=True)
class CountCheck:
    """A throughput run's file against what the writers were asked to append."""

    expected: int = 0
    lines: int = 0
    bad_lines: int = 0  # lines that do not parse (interleaved or torn writes)
    lost: int = 0  # (writer, seq) pairs not in any line that parses
    duplicated: int = 0  # lines beyond the first for one (writer, seq) or one id
    out_of_order: int = 0  # writers whose messages are not in their own order
    delivery_lost: int | None = None  # messages delivery.json does not name (pi-crew)

    @property
    def clean(self) -> bool:
        counts = (self.bad_lines, self.lost, self.duplicated, self.out_of_order)
        return not (any(counts) or self.delivery_lost)

    def add(self, other: CountCheck) -> None:
        """Sum ``other`` into this one (over runs)."""
        for name in ("expected", "lines", "bad_lines", "lost", "duplicated", "out_of_order"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        if other.delivery_lost is not None:
            self.delivery_lost = (self.delivery_lost or 0) + other.delivery_lost

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def check_counts(mailbox: Path, writers: int, per_writer: int, *, delivery: bool) -> CountCheck:
    """Every line parses, every message once, each writer's messages in its own order."""
    lines = read_lines(mailbox / "inbox.jsonl")
    check = CountCheck(expected=writers * per_writer, lines=len(lines.records) + len(lines.bad))
    check.bad_lines = len(lines.bad) + bool(lines.torn_tail)
    seen: dict[str, list[int]] = {}
    ids: set[str] = set()
    for _, record in lines.records:
        seq = int(str(record.get("body", "")).split(" ", 1)[0])
        seen.setdefault(str(record.get("from")), []).append(seq)
        check.duplicated += record["id"] in ids
        ids.add(record["id"])
    for w in range(writers):
        seqs = seen.get(f"w{w}", [])
        distinct = set(seqs)
        check.lost += sum(1 for s in range(per_writer) if s not in distinct)
        check.duplicated += len(seqs) - len(distinct)
        check.out_of_order += any(b <= a for a, b in itertools.pairwise(seqs))
    if delivery:
        named = delivery_ids(mailbox / "delivery.json") or set()
        check.delivery_lost = len(ids - named)
    return check


@dataclass(slots=True)
class CrashCheck:
    """What a SIGKILL loop left: acknowledged appends against the file."""

    cycles: int = 0
    kills: int = 0
    acknowledged: int = 0
    lost: int = 0  # acknowledged ids in no line that parses
    torn: int = 0  # lines that do not parse, and a torn tail
    most_torn_in_a_cycle: int = 0
    quarantined: int | None = None  # attn: records in quarantine.jsonl
    quarantined_twice: int | None = None  # attn: records naming a torn line named before
    torn_not_quarantined: int | None = None  # attn: bad lines no quarantine record names
    delivery_lost: int | None = None  # pi-crew: acknowledged ids delivery.json does not name
    delivery_unreadable: bool | None = None  # pi-crew: delivery.json did not parse at the end
    restart_parses: bool = False  # the append after the last kill is a whole line that parses

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def check_crash(
    mailbox: Path,
    starts: list[int],
    acknowledged: set[str],
    restart_id: str,
    *,
    quarantine: bool,
    delivery: bool,
) -> CrashCheck:
    """Attribute each bad line to the cycle whose bytes it starts in (``starts``:
    the file's size when each cycle began) and count the acknowledged ids lost.
    ``quarantine``: the writer keeps a ``quarantine.jsonl`` (attn); ``delivery``:
    a ``delivery.json`` (pi-crew)."""
    lines = read_lines(mailbox / "inbox.jsonl")
    check = CrashCheck(cycles=len(starts), acknowledged=len(acknowledged))
    ids = lines.ids
    check.lost = len(acknowledged - ids)
    per_cycle = [0] * max(1, len(starts))
    for offset in lines.bad:
        per_cycle[max(0, bisect.bisect_right(starts, offset) - 1)] += 1
    if lines.torn_tail:
        per_cycle[-1] += 1
    check.torn = sum(per_cycle)
    check.most_torn_in_a_cycle = max(per_cycle)
    check.restart_parses = bool(lines.records) and lines.records[-1][1]["id"] == restart_id
    check.restart_parses = check.restart_parses and not lines.torn_tail
    if quarantine:
        kept = read_lines_any(mailbox / "quarantine.jsonl")
        named = {q.get("offset") for q in kept}
        check.quarantined = len(kept)
        check.quarantined_twice = len(kept) - len(named)
        check.torn_not_quarantined = len(set(lines.bad) - named)
    if delivery:
        named = delivery_ids(mailbox / "delivery.json")
        check.delivery_unreadable = named is None
        check.delivery_lost = len(acknowledged - (named or set()))
    return check


def read_lines_any(path: Path) -> list[dict[str, Any]]:
    """Every line of ``path`` that parses as a JSON object ([] when it is missing)."""
    out: list[dict[str, Any]] = []
    if not path.exists():
        return out
    for raw in path.read_bytes().split(b"\n"):
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out
