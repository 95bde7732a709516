"""``delivery.json``: message id -> status, the mutable truth of a run's mailbox.

Shape (pi-crew's, plus the times)::

    {"messages": {"fbm_…": "acknowledged"},
     "times": {"fbm_…": {"deliveredAt": "…", "acknowledgedAt": "…"}},
     "updatedAt": "…"}

Appends never touch it, so marking a message read while another process
appends can never lose the new message (FILE-03); changes to it are
read-modify-write under the mailbox lock and land by an atomic rename. A record
that does not parse is treated as empty with an error in the log; the next
writer moves it aside to ``delivery.json.corrupt-<time>`` first (FILE-05).
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from attn.filebox.jsonl import read_regular, rewrite_atomically
from attn.filebox.records import STATUS_RANK
from attn.jsontext import dumps

log = logging.getLogger("attn.filebox")


@dataclass(slots=True)
class Delivery:
    """The parsed record: ``entries`` maps id -> ``{"status", "deliveredAt"?, "acknowledgedAt"?}``.

    ``corrupt`` is True when the file was there but did not parse (it reads as empty).
    """

    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    updated_at: str | None = None
    corrupt: bool = False

    def advance(self, message_id: str, status: str, at: str) -> bool:
        """Move ``message_id`` forward to ``status`` (never back); True when it changed."""
        entry = self.entries.get(message_id)
        if (
            entry is not None
            and STATUS_RANK.get(entry.get("status", ""), -1) >= STATUS_RANK[status]
        ):
            return False
        entry = dict(entry or {})
        entry["status"] = status
        if status == "delivered":
            entry.setdefault("deliveredAt", at)
        if status == "acknowledged":
            entry.setdefault("deliveredAt", at)
            entry["acknowledgedAt"] = at
        self.entries[message_id] = entry
        self.updated_at = at
        return True

    def to_json(self) -> dict[str, Any]:
        messages = {mid: entry["status"] for mid, entry in self.entries.items()}
        times = {
            mid: {k: v for k, v in entry.items() if k != "status"}
            for mid, entry in self.entries.items()
            if len(entry) > 1
        }
        return {"messages": messages, "times": times, "updatedAt": self.updated_at}


def load_delivery(path: Path) -> Delivery:
    """The record at ``path``: empty when missing; empty and ``corrupt`` when unreadable."""
    try:
        text = read_regular(path)
    except FileNotFoundError:
        return Delivery()
    try:
        raw = json.loads(text.decode("utf-8"))
        return _parsed(raw)
    except (ValueError, TypeError, RecursionError) as error:
        log.error(
            "%s is corrupt (%s): it is treated as empty, so every message reads as "
            "its line's status; the next change moves it aside",
            path,
            error,
        )
        return Delivery(corrupt=True)


def _parsed(raw: Any) -> Delivery:
    if not isinstance(raw, dict) or not isinstance(raw.get("messages", {}), dict):
        raise ValueError("not an object with a messages object")
    times_raw = raw.get("times")
    times: dict[str, Any] = times_raw if isinstance(times_raw, dict) else {}
    entries: dict[str, dict[str, Any]] = {}
    for mid, status in raw.get("messages", {}).items():
        if isinstance(mid, str) and status in STATUS_RANK:
            entry: dict[str, Any] = {"status": status}
            stamp = times.get(mid)
            if isinstance(stamp, dict):
                entry.update(
                    {
                        k: v
                        for k, v in stamp.items()
                        if k in ("deliveredAt", "acknowledgedAt") and isinstance(v, str)
                    }
                )
            entries[mid] = entry
    updated = raw.get("updatedAt")
    return Delivery(entries, updated if isinstance(updated, str) else None)


def save_delivery(path: Path, record: Delivery, *, at: str, fsync: bool = True) -> None:
    """Write ``record`` atomically; a corrupt file there is moved aside first (logged).

    The caller holds the mailbox lock.
    """
    if record.corrupt and path.exists():
        aside = path.with_name(f"{path.name}.corrupt-{at.replace(':', '')}")
        os.replace(path, aside)
        log.error(
            "%s was corrupt: moved aside to %s; statuses start again from the message lines",
            path,
            aside.name,
        )
        record.corrupt = False
    rewrite_atomically(path, [dumps(record.to_json()).encode() + b"\n"], fsync=fsync)


__all__ = ["Delivery", "load_delivery", "save_delivery"]
