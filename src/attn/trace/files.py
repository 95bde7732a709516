"""Trace files: write a :class:`~attn.trace.model.Trace` as JSON Lines, read one back.

The format is described in :mod:`attn.trace.model`. Writing is atomic (a
temporary file, then a rename). Reading validates every line and raises
:class:`~attn.errors.InvalidTrace` naming the file and the first bad line;
nothing is half-read.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from attn.core.item_type import ItemType, validate_priority
from attn.errors import InvalidInput, InvalidTrace
from attn.jsontext import dumps
from attn.limits import check_json, json_kind
from attn.trace.model import (
    TRACE_FORMAT,
    TRACE_VERSION,
    Trace,
    TraceAgent,
    TraceEvent,
)
from attn.types import JSON


def write_trace(trace: Trace, path: str | os.PathLike[str]) -> Path:
    """Write ``trace`` to ``path`` atomically (a temporary file, then rename).

    Returns:
        The path written.

    Raises:
        InvalidInput: when the file cannot be written.
    """
    target = Path(path)
    text = trace_text(trace)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise InvalidInput(f"cannot write trace file {target}: {exc.strerror or exc}") from exc
    return target


def trace_text(trace: Trace) -> str:
    """The whole trace file as text: the header line, then one line per event."""
    lines = [dumps(trace.header_json())]
    lines.extend(dumps(event.to_json()) for event in trace.events)
    return "\n".join(lines) + "\n"


def read_trace(path: str | os.PathLike[str]) -> Trace:
    """Read and validate a whole trace file.

    Returns:
        The trace, events in file order.

    Raises:
        InvalidTrace: when the file cannot be read or any line is invalid; the
            message names the file and the 1-based line number.
    """
    source = Path(path)
    try:
        raw = source.read_bytes()
    except OSError as exc:
        raise InvalidTrace(f"cannot read trace file {source}: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InvalidTrace(f"{source}:{line}: not UTF-8 text") from exc
    return parse_trace(text.splitlines(), name=str(source))


def parse_trace(lines: Iterable[str], *, name: str = "<trace>") -> Trace:
    """Parse trace lines (header first); see :func:`read_trace`.

    Raises:
        InvalidTrace: naming ``name`` and the 1-based line number of the first bad line.
    """
    header: JSON | None = None
    header_line = 0
    events: list[TraceEvent] = []
    seen: dict[tuple[str, str], int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidTrace(f"{name}:{number}: not valid JSON ({exc.msg})") from exc
        except RecursionError:
            raise InvalidTrace(f"{name}:{number}: JSON nested too deeply to parse") from None
        except ValueError:  # an integer longer than Python converts (4,300 digits)
            raise InvalidTrace(f"{name}:{number}: a number has more than 4,300 digits") from None
        if header is None:
            if not isinstance(data, dict) or data.get("format") != TRACE_FORMAT:
                raise InvalidTrace(
                    f"{name}:{number}: expected the trace header "
                    f'{{"format": "{TRACE_FORMAT}", ...}} as the first line'
                )
            header, header_line = data, number
            continue
        try:
            event = event_from_json(data)
        except InvalidInput as exc:
            raise InvalidTrace(f"{name}:{number}: {exc.message}") from exc
        first = seen.setdefault((event.agent, event.key), number)
        if first != number:
            raise InvalidTrace(
                f"{name}:{number}: duplicate key {event.key!r} for agent {event.agent!r} "
                f"(first used on line {first})"
            )
        events.append(event)
    if header is None:
        raise InvalidTrace(f"{name}: empty file, expected a trace header line")
    try:
        return _build(header, events)
    except InvalidInput as exc:
        raise InvalidTrace(f"{name}:{header_line}: {exc.message}") from exc


def event_from_json(data: object) -> TraceEvent:
    """Validate one event object.

    Raises:
        InvalidInput: naming the bad field.
    """
    if not isinstance(data, dict):
        raise InvalidInput(f"an event must be a JSON object, got {json_kind(data)}")
    missing = [k for k in ("at", "agent", "sourceType", "payload", "key") if k not in data]
    if missing:
        raise InvalidInput(f"event is missing {', '.join(repr(k) for k in missing)}")
    unknown = sorted(
        set(data) - {"at", "agent", "sourceType", "payload", "metadata", "priority", "key"}
    )
    if unknown:
        raise InvalidInput(f"event has unknown fields: {', '.join(unknown)}")
    at = parse_instant(data["at"], "at")
    agent = _nonempty_str(data, "agent")
    source_type = _nonempty_str(data, "sourceType")
    key = _nonempty_str(data, "key")
    payload = data["payload"]
    metadata = data.get("metadata", {})
    for field_name, value in (("payload", payload), ("metadata", metadata)):
        if not isinstance(value, dict):
            raise InvalidInput(f"{field_name!r} must be a JSON object, got {json_kind(value)}")
        check_json(value, field_name)  # the limits of an enqueue, before any is replayed
    priority = data.get("priority")
    if priority is not None:
        validate_priority(priority)
    return TraceEvent(at, agent, source_type, payload, metadata, priority, key)


def parse_instant(value: object, field_name: str) -> datetime:
    """An ISO 8601 string with a timezone as an aware UTC datetime.

    Raises:
        InvalidInput: for anything else (naive times included).
    """
    if not isinstance(value, str):
        raise InvalidInput(f"{field_name!r} must be an ISO 8601 string, got {json_kind(value)}")
    try:
        instant = datetime.fromisoformat(value)
    except ValueError as exc:
        raise InvalidInput(f"{field_name!r} is not an ISO 8601 time: {value!r}") from exc
    if instant.tzinfo is None:
        raise InvalidInput(f"{field_name!r} needs a timezone (e.g. Z or +00:00): {value!r}")
    return instant.astimezone(UTC)


def _build(header: Mapping[str, Any], events: list[TraceEvent]) -> Trace:
    version = header.get("version")
    if version != TRACE_VERSION:
        raise InvalidInput(
            f"unsupported trace version {version!r} (this attn reads {TRACE_VERSION})"
        )
    origin = header.get("origin", {})
    if not isinstance(origin, dict):
        raise InvalidInput(f"'origin' must be a JSON object, got {json_kind(origin)}")
    created_at = parse_instant(header.get("createdAt", datetime.now(UTC).isoformat()), "createdAt")
    raw_types = header.get("types", [])
    if not isinstance(raw_types, list):
        raise InvalidInput(f"'types' must be a JSON array, got {json_kind(raw_types)}")
    types: list[ItemType] = []
    for index, raw in enumerate(raw_types):
        try:
            spec = ItemType.from_dict(raw)
        except InvalidInput as exc:
            raise InvalidInput(f"types[{index}]: {exc.message}") from exc
        if any(t.name == spec.name for t in types):
            raise InvalidInput(f"types[{index}]: type {spec.name!r} is listed twice")
        types.append(spec)
    raw_agents = header.get("agents", [])
    if not isinstance(raw_agents, list):
        raise InvalidInput(f"'agents' must be a JSON array, got {json_kind(raw_agents)}")
    agents: dict[str, TraceAgent] = {}
    for index, raw in enumerate(raw_agents):
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not raw["name"]:
            raise InvalidInput(f"agents[{index}] must be an object with a non-empty 'name'")
        description = raw.get("description", "")
        if not isinstance(description, str):
            raise InvalidInput(f"agents[{index}].description must be a string")
        agents.setdefault(raw["name"], TraceAgent(raw["name"], description))
    for event in events:  # recipients missing from the header are still agents
        agents.setdefault(event.agent, TraceAgent(event.agent))
    return Trace(dict(origin), tuple(types), tuple(agents.values()), tuple(events), created_at)


def _nonempty_str(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{key!r} must be a non-empty string, got {value!r}")
    return value


__all__ = [
    "event_from_json",
    "parse_instant",
    "parse_trace",
    "read_trace",
    "trace_text",
    "write_trace",
]
