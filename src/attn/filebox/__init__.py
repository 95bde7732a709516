"""File mailboxes for command-line workers (seed 003).

Each run has a folder of append-only JSONL files (inbox, outbox, steering) and a
delivery record; a leader answers a waiting worker (respond), steers it, sends
follow-ups, nudges it, and a worker asks its leader for a decision by printing a
supervisor contact line. See ``docs/architecture.md`` for the modules.

Public: :class:`Run`, :class:`RunPaths`, :class:`RunMailbox`, :class:`FileboxMessage`,
:class:`Contact` and :func:`parse_contact`. Worker scripts use :mod:`attn.filebox.client`.
"""

from __future__ import annotations

from attn.filebox.contact import CONTACT_KINDS, Contact, parse_contact
from attn.filebox.mailbox import RunMailbox, ValidationReport
from attn.filebox.paths import RunPaths
from attn.filebox.records import FileboxMessage
from attn.filebox.run import NUDGE_TEXT, Outcome, Run

__all__ = [
    "CONTACT_KINDS",
    "NUDGE_TEXT",
    "Contact",
    "FileboxMessage",
    "Outcome",
    "Run",
    "RunMailbox",
    "RunPaths",
    "ValidationReport",
    "parse_contact",
]
