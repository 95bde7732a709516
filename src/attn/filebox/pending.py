"""``pending.json``: steers and follow-ups waiting until the worker can take them.

Seed 003 ("Queue Depth and Backpressure"): each queue holds at most
``max_pending`` (50 by default); at the cap the oldest is dropped (and an event
says so); above ``warn_pending`` (20) the run view carries a backpressure warning.
Unlike the seed's in-memory queues these are on disk, so they survive the
leader's restart too. The caller holds the run lock.

Shape: ``{"steer": [entry, …], "follow_up": [entry, …]}``; an entry is
``{"id", "taskId", "body", "priority", "data", "queuedAt"}``.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Literal

from attn.filebox.jsonl import nan_as_null, read_regular, rewrite_atomically
from attn.filebox.paths import RunPaths
from attn.jsontext import dumps

log = logging.getLogger("attn.filebox")

Queue = Literal["steer", "follow_up"]
QUEUES: tuple[Queue, ...] = ("steer", "follow_up")
#: The seed's defaults.
MAX_PENDING = 50
WARN_PENDING = 20


@dataclass(frozen=True, slots=True)
class Limits:
    """Queue bounds: ``max_pending`` 1..10,000, ``warn_pending`` 0..max_pending."""

    max_pending: int = MAX_PENDING
    warn_pending: int = WARN_PENDING


def load_pending(paths: RunPaths) -> dict[str, list[dict[str, Any]]]:
    """Both queues; empty when the file is missing or unreadable (logged)."""
    try:
        raw = json.loads(
            read_regular(paths.check(paths.pending)).decode("utf-8"), parse_constant=nan_as_null
        )
    except FileNotFoundError:
        raw = {}
    except (ValueError, RecursionError) as error:
        log.error(
            "%s is corrupt (%s); its queued steers and follow-ups are lost", paths.pending, error
        )
        raw = {}
    if not isinstance(raw, dict):
        raw = {}
    queues: dict[str, list[Any]] = {}
    for queue in QUEUES:
        entries = raw.get(queue)
        queues[queue] = [e for e in entries if _entry_ok(e)] if isinstance(entries, list) else []
    return queues


def _entry_ok(entry: object) -> bool:
    """An entry :meth:`~attn.filebox.run_files.RunFiles.flush_pending` can deliver."""
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("taskId"), str)
        and isinstance(entry.get("body"), str)
        and entry.get("priority", "normal") in ("low", "normal", "high")
        and isinstance(entry.get("data") or {}, dict)
    )


def save_pending(paths: RunPaths, queues: dict[str, list[dict[str, Any]]], *, fsync: bool) -> None:
    rewrite_atomically(paths.pending, [dumps(queues).encode() + b"\n"], fsync=fsync)


def push(
    queue: list[dict[str, Any]], entry: dict[str, Any], limits: Limits
) -> list[dict[str, Any]]:
    """Add ``entry``; drop the oldest while over the cap. Returns the dropped entries."""
    queue.append(entry)
    dropped: list[dict[str, Any]] = []
    while len(queue) > limits.max_pending:
        dropped.append(queue.pop(0))
    return dropped


def counts(queues: dict[str, list[dict[str, Any]]], limits: Limits) -> dict[str, Any]:
    """``{"steer": n, "followUp": n, "max": cap, "warnAbove": w, "warning": text | None}``."""
    steer, follow = len(queues["steer"]), len(queues["follow_up"])
    over = [
        name for name, n in (("steers", steer), ("follow-ups", follow)) if n > limits.warn_pending
    ]
    warning = (
        f"{' and '.join(over)} waiting for the worker: more than {limits.warn_pending} "
        f"(the oldest is dropped at {limits.max_pending})"
        if over
        else None
    )
    return {
        "steer": steer,
        "followUp": follow,
        "max": limits.max_pending,
        "warnAbove": limits.warn_pending,
        "warning": warning,
    }


__all__ = [
    "MAX_PENDING",
    "QUEUES",
    "WARN_PENDING",
    "Limits",
    "Queue",
    "counts",
    "load_pending",
    "push",
    "save_pending",
]
