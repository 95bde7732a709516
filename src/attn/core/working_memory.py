"""Working memory: short keyed notes an agent keeps in view across items.

Each entry is a key (an agent-chosen label such as ``"deliberation"`` or
``"task-priorities"``), its text and the time it was last written (from the
runtime clock). Every prompt the agent's brain builds can include
:meth:`WorkingMemory.render`, a ``## Working Memory`` section listing each
entry with its age, so the agent decides what to keep, update or clear.

Sources: deliberation's situational awareness (key ``"deliberation"``) and
memory updates (:meth:`WorkingMemory.apply_deliberation`), and the agent's own
``update_working_memory`` / ``clear_working_memory`` tools
(:mod:`attn.tools.mailbox`). Working memory lives in memory only; attn has no
long-term memory yet, so long-term updates are handed back unapplied.

Spec: 000 §21 ("Working Memory Injection", "Memory Updates During
Deliberation"); acceptance COAL-33.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from attn.clock import Clock
from attn.core.deliberation import DeliberationResult, MemoryUpdate
from attn.errors import InvalidInput
from attn.limits import check_unicode

log = logging.getLogger("attn.working_memory")

#: The key deliberation's situational awareness is stored under (000 §21).
DELIBERATION_KEY = "deliberation"
#: Default bounds: most entries, most UTF-8 bytes of one entry's text, longest key.
MAX_ENTRIES = 64
MAX_ENTRY_BYTES = 4096
MAX_KEY_CHARS = 100


@dataclass(frozen=True, slots=True)
class MemoryEntry:
    """One working-memory entry.

    Attributes:
        key: the entry's label.
        content: its text.
        updated_at: when it was last written (UTC, runtime clock).
    """

    key: str
    content: str
    updated_at: datetime

    def to_dict(self) -> dict[str, str]:
        """JSON-ready form: ``{"key", "content", "updatedAt"}``."""
        return {"key": self.key, "content": self.content, "updatedAt": self.updated_at.isoformat()}


class WorkingMemory:
    """One agent's keyed working memory, bounded and validated.

    Args:
        clock: the runtime clock; ``updated_at`` comes from ``clock.now()``.
        max_entries: most keys held at once (default 64).
        max_entry_bytes: most UTF-8 bytes of one entry's content (default 4 KB).

    Raises:
        InvalidInput: a bound that is not a positive integer.
    """

    def __init__(
        self,
        clock: Clock,
        *,
        max_entries: int = MAX_ENTRIES,
        max_entry_bytes: int = MAX_ENTRY_BYTES,
    ) -> None:
        for name, value in (("max_entries", max_entries), ("max_entry_bytes", max_entry_bytes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInput(f"{name} must be a positive integer, got {value!r}")
        self._clock = clock
        self.max_entries = max_entries
        self.max_entry_bytes = max_entry_bytes
        self._entries: dict[str, MemoryEntry] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def get(self, key: str) -> MemoryEntry | None:
        """The entry called ``key``, or None."""
        return self._entries.get(key)

    def entries(self) -> list[MemoryEntry]:
        """Every entry, ordered by key (a stable order for prompts)."""
        return [self._entries[k] for k in sorted(self._entries)]

    def check(self, key: object, content: object) -> tuple[str, str]:
        """Validate one write without doing it; return ``(key, content)``.

        The key is stripped of surrounding spaces. Nothing changes.

        Raises:
            InvalidInput: the key is not a non-blank string of at most 100
                characters on one line; the content is not a non-blank string, is
                larger than ``max_entry_bytes`` in UTF-8, or holds a lone surrogate.
        """
        if not isinstance(key, str) or not key.strip():
            raise InvalidInput(f"working memory key must be a non-blank string, got {key!r}")
        key = key.strip()
        if len(key) > MAX_KEY_CHARS or "\n" in key or "\r" in key:
            shown = key if len(key) <= 40 else f"{key[:39]}…"
            raise InvalidInput(
                f"working memory key must be one line of at most "
                f"{MAX_KEY_CHARS} characters, got {shown!r}"
            )
        if not isinstance(content, str):
            raise InvalidInput(
                f"working memory content for {key!r} must be a string, got {type(content).__name__}"
            )
        if not content.strip():
            raise InvalidInput(
                f"working memory content for {key!r} is blank; clear the key to remove it"
            )
        size = len(check_unicode(content, f"working memory content for {key!r}").encode("utf-8"))
        if size > self.max_entry_bytes:
            raise InvalidInput(
                f"working memory content for {key!r} takes {size} bytes; "
                f"the limit is {self.max_entry_bytes} bytes"
            )
        return key, content

    def update(self, key: str, content: str) -> MemoryEntry:
        """Write ``content`` under ``key`` (replacing any earlier text) at the clock's now.

        Returns:
            The stored entry.

        Raises:
            InvalidInput: what :meth:`check` raises, or a new key when
                ``max_entries`` keys are held already. Nothing changes then.
        """
        return self.update_many([(key, content)])[0]

    def update_many(self, writes: Iterable[tuple[str, str]]) -> list[MemoryEntry]:
        """Apply several writes in order, all or nothing.

        Returns:
            The stored entries, one per write.

        Raises:
            InvalidInput: any write is invalid or the new keys would exceed
                ``max_entries``; nothing changes then.
        """
        checked = [self.check(key, content) for key, content in writes]
        new_keys = {key for key, _ in checked} - self._entries.keys()
        if len(self._entries) + len(new_keys) > self.max_entries:
            raise InvalidInput(
                f"working memory holds {len(self._entries)} of {self.max_entries} entries; "
                f"cannot add {', '.join(repr(k) for k in sorted(new_keys))} "
                "(clear stale keys first)"
            )
        now = self._clock.now()
        stored = []
        for key, content in checked:
            entry = MemoryEntry(key, content, now)
            self._entries[key] = entry
            stored.append(entry)
        return stored

    def clear(self, key: str) -> bool:
        """Remove the entry called ``key``.

        Returns:
            True when an entry was removed, False when there was none.

        Raises:
            InvalidInput: ``key`` is not a non-blank string.
        """
        if not isinstance(key, str) or not key.strip():
            raise InvalidInput(f"working memory key must be a non-blank string, got {key!r}")
        return self._entries.pop(key.strip(), None) is not None

    def clear_all(self) -> list[str]:
        """Remove every entry; return the removed keys in key order."""
        keys = sorted(self._entries)
        self._entries.clear()
        return keys

    def apply_deliberation(self, result: DeliberationResult) -> list[MemoryUpdate]:
        """Store a deliberation's notes (000 §21, COAL-33).

        ``situational_awareness`` (when not blank) goes under ``"deliberation"``;
        then the ``working`` memory updates are written in order, all or nothing.
        Long-term updates are not working memory: each is logged and returned
        (a hosted agent saves them to its long-term memory, 000 §8).

        Returns:
            The memory updates that were not applied (the long-term ones).

        Raises:
            InvalidInput: a working update or the situational awareness is
                invalid or too large, or too many new keys; nothing changes then.
        """
        writes: list[tuple[str, str]] = []
        awareness = result.situational_awareness
        if awareness is not None and awareness.strip():
            writes.append((DELIBERATION_KEY, awareness))
        skipped: list[MemoryUpdate] = []
        for update in result.memory_updates:
            if update.type == "working":
                writes.append((update.key, update.content))
            else:
                skipped.append(update)
        self.update_many(writes)
        for update in skipped:
            log.info("long-term memory update %r not applied to working memory", update.key)
        return skipped

    def remember_deliberation(self, result: DeliberationResult) -> None:
        """Like :meth:`apply_deliberation`, but never raises: for the attention loop.

        Registered as a triage listener, it runs while the loop applies a
        deliberation, which must not fail over a note. A situational awareness
        over the size limit is cut to fit; each invalid working update (or one
        that finds the memory full) is skipped with a warning; the rest apply.
        """
        awareness = result.situational_awareness
        if awareness is not None and awareness.strip():
            data = awareness.encode("utf-8", "replace")
            if len(data) > self.max_entry_bytes:
                awareness = data[: self.max_entry_bytes - 3].decode("utf-8", "ignore") + "…"
            self._try_update(DELIBERATION_KEY, awareness)
        for update in result.memory_updates:
            if update.type == "working":
                self._try_update(update.key, update.content)
            else:
                log.debug("long-term memory update %r left to the agent", update.key)

    def _try_update(self, key: str, content: str) -> None:
        try:
            self.update(key, content)
        except InvalidInput as exc:
            log.warning("working memory update from deliberation skipped: %s", exc.message)

    def render(self, now: datetime | None = None) -> str:
        """The ``## Working Memory`` prompt section, or ``""`` when empty.

        Args:
            now: the instant ages are measured from; the clock's now when None.

        Returns:
            A heading, then one ``- key (updated 3 min ago): content`` line per
            entry in key order; continuation lines of multi-line content are
            indented by two spaces.
        """
        if not self._entries:
            return ""
        now = now if now is not None else self._clock.now()
        lines = ["## Working Memory", ""]
        for entry in self.entries():
            age = format_age((now - entry.updated_at).total_seconds())
            body = entry.content.strip().replace("\n", "\n  ")
            lines.append(f"- {entry.key} (updated {age}): {body}")
        return "\n".join(lines)

    def to_list(self) -> list[dict[str, str]]:
        """Every entry as a JSON-ready dict, in key order."""
        return [e.to_dict() for e in self.entries()]


def format_age(age_s: float) -> str:
    """A short age label: ``just now``, ``42 s ago``, ``3 min ago``, ``2 h ago``, ``5 d ago``.

    Args:
        age_s: seconds since the event; negative ages (clock skew) read ``just now``.
    """
    if age_s < 1:
        return "just now"
    if age_s < 60:
        return f"{int(age_s)} s ago"
    if age_s < 3600:
        return f"{int(age_s // 60)} min ago"
    if age_s < 86_400:
        return f"{int(age_s // 3600)} h ago"
    return f"{int(age_s // 86_400)} d ago"


__all__ = ["DELIBERATION_KEY", "MemoryEntry", "WorkingMemory", "format_age"]
