"""Supervisor contact: a worker asks its leader for a decision (seed 003, FILE-10).

Two forms are read from a worker's output, one line each:

* the seed's text line, at the start of the line (after spaces)::

      @supervisor need_confirmation: Deploy v2 to production?
      @supervisor need_input: Which branch should I use?
      @supervisor need_selection: Which region? | eu-west | us-east

  For ``need_selection`` the options follow the question, each after a ``|``.

* a JSON event line (pi-crew's ``supervisor_contact`` event, which
  :mod:`attn.filebox.client` writes)::

      {"type": "supervisor_contact", "kind": "need_selection", "message": "Which region?",
       "options": ["eu-west", "us-east"], "questionId": "q_…", "taskId": "build"}

  ``type`` may also be ``crew_supervisor_contact``; ``reason`` (pi-crew's
  field) stands in for ``kind``: ``approval`` is a confirmation,
  ``decision_needed`` a selection when options are given (else a confirmation),
  ``clarification``, ``error_escalation`` and ``custom`` ask for input.

Anything else is ordinary output: a line that mentions ``@supervisor`` in the
middle, an unknown kind, JSON of another type, broken JSON. The parser never
raises.
"""

from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from attn.filebox.jsonl import nan_as_null

ContactKind = Literal["need_confirmation", "need_input", "need_selection"]
CONTACT_KINDS: tuple[ContactKind, ...] = ("need_confirmation", "need_input", "need_selection")

#: pi-crew's ``reason`` values and the kind each one asks for.
_REASONS: dict[str, ContactKind] = {
    "approval": "need_confirmation",
    "clarification": "need_input",
    "error_escalation": "need_input",
    "custom": "need_input",
}
_JSON_TYPES = frozenset({"supervisor_contact", "crew_supervisor_contact"})
#: No two neighbouring parts can match the same characters, so a long line of
#: spaces costs linear time (``:\s*(.*?)\s*`` took quadratic time: tens of
#: minutes on a megabyte of spaces); ``_made`` strips the text.
_TEXT = re.compile(r"\s*@supervisor\s+([a-z_]+):(.*)")

#: Longest question text kept (characters); longer ones are cut with an ellipsis.
MAX_QUESTION_CHARS = 4_000
#: Most options of a selection, and the longest option.
MAX_OPTIONS = 20
MAX_OPTION_CHARS = 200


#: Most contacts recorded per task in one window (:data:`CONTACT_WINDOW_S`); more
#: are dropped, and a ``contact.dropped`` event says how many.
CONTACTS_PER_WINDOW = 10
CONTACT_WINDOW_S = 60.0


class ContactBudget:
    """How many contacts each task of a worker may still make (a sliding window).

    A worker printing contacts in a loop must not make a notification, an outbox
    message and an event per line: past :data:`CONTACTS_PER_WINDOW` per task in
    :data:`CONTACT_WINDOW_S` seconds they are dropped. The first drop after an
    accepted contact is reported at once, later ones are counted and reported with
    the next accepted contact or when the worker exits (:meth:`unreported`).
    """

    def __init__(
        self, per_window: int = CONTACTS_PER_WINDOW, window_s: float = CONTACT_WINDOW_S
    ) -> None:
        self.per_window = per_window
        self.window_s = window_s
        self._taken: dict[str, deque[datetime]] = {}
        self._dropped: dict[str, int] = {}
        self._told: set[str] = set()

    def take(self, task_id: str, now: datetime) -> bool:
        """Whether ``task_id`` may make one more contact at ``now`` (it is counted)."""
        taken = self._taken.setdefault(task_id, deque())
        while taken and (now - taken[0]).total_seconds() >= self.window_s:
            taken.popleft()
        if len(taken) >= self.per_window:
            self._dropped[task_id] = self._dropped.get(task_id, 0) + 1
            return False
        taken.append(now)
        self._told.discard(task_id)
        return True

    def to_report(self, task_id: str, *, now: bool = False) -> int:
        """How many dropped contacts of ``task_id`` to report now (then forgotten): the
        first drop at once, the rest later; ``now`` reports whatever is counted."""
        count = self._dropped.get(task_id, 0)
        if count == 0 or (not now and task_id in self._told):
            return 0
        self._told.add(task_id)
        self._dropped[task_id] = 0
        return count

    def unreported(self) -> dict[str, int]:
        """Every task's dropped contacts not reported yet (then forgotten)."""
        counts = {t: n for t, n in self._dropped.items() if n}
        self._dropped.clear()
        return counts

    def reason(self, task_id: str) -> str:
        return (
            f"more than {self.per_window} contacts of task {task_id} in "
            f"{self.window_s:g} s: the rest are dropped"
        )


@dataclass(frozen=True, slots=True)
class Contact:
    """One supervisor contact: its kind, the question, options (selection), and the
    worker's own question id and task id when it gave them."""

    kind: ContactKind
    text: str
    options: tuple[str, ...] = ()
    question_id: str | None = None
    task_id: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "options": list(self.options)}


def parse_contact(line: str) -> Contact | None:
    """The contact on ``line``, or None when the line is ordinary output."""
    try:
        if line.lstrip().startswith("{"):
            return _from_json(line)
        return _from_text(line)
    except (ValueError, TypeError, RecursionError):
        return None


def _from_text(line: str) -> Contact | None:
    match = _TEXT.fullmatch(line.rstrip("\r\n"))
    if match is None or match.group(1) not in CONTACT_KINDS:
        return None
    kind: ContactKind = match.group(1)  # type: ignore[assignment]
    text: str = match.group(2)
    options: tuple[str, ...] = ()
    if kind == "need_selection":
        parts = [p.strip() for p in text.split("|")]
        text, options = parts[0], tuple(p for p in parts[1:] if p)
    return _made(kind, text, options)


def _from_json(line: str) -> Contact | None:
    raw = json.loads(line, parse_constant=nan_as_null)  # NaN in its data: not a lost question
    if not isinstance(raw, dict) or raw.get("type") not in _JSON_TYPES:
        return None
    options_raw = raw.get("options")
    options = (
        tuple(o for o in options_raw if isinstance(o, str) and o.strip())
        if isinstance(options_raw, list)
        else ()
    )
    kind = raw.get("kind")
    if kind is None and isinstance(raw.get("reason"), str):
        reason = raw["reason"]
        kind = (
            ("need_selection" if options else "need_confirmation")
            if reason == "decision_needed"
            else _REASONS.get(reason)
        )
    if kind not in CONTACT_KINDS:
        return None
    text = raw.get("message", raw.get("text"))
    if not isinstance(text, str):
        return None
    question = raw.get("questionId")
    task = raw.get("taskId")
    data = raw.get("data")
    return _made(
        kind,
        text,
        options,
        question_id=question if isinstance(question, str) and 0 < len(question) <= 128 else None,
        task_id=task if isinstance(task, str) and task else None,
        data=data if isinstance(data, dict) else {},
    )


def _made(kind: ContactKind, text: str, options: tuple[str, ...], **rest: Any) -> Contact | None:
    text = text.strip()
    if not text:
        return None
    if len(text) > MAX_QUESTION_CHARS:
        text = text[: MAX_QUESTION_CHARS - 1] + "…"
    options = tuple(dict.fromkeys(o.strip()[:MAX_OPTION_CHARS] for o in options))[:MAX_OPTIONS]
    if kind == "need_selection" and not options:
        return None
    return Contact(kind, text, options, **rest)


def contact_line(
    kind: ContactKind,
    text: str,
    *,
    options: tuple[str, ...] = (),
    question_id: str | None = None,
    task_id: str | None = None,
) -> str:
    """The JSON event line for a contact (what :mod:`attn.filebox.client` prints)."""
    record: dict[str, Any] = {"type": "supervisor_contact", "kind": kind, "message": text}
    if options:
        record["options"] = list(options)
    if question_id:
        record["questionId"] = question_id
    if task_id:
        record["taskId"] = task_id
    return json.dumps(record, ensure_ascii=False)


__all__ = [
    "CONTACTS_PER_WINDOW",
    "CONTACT_KINDS",
    "CONTACT_WINDOW_S",
    "Contact",
    "ContactBudget",
    "ContactKind",
    "contact_line",
    "parse_contact",
]
