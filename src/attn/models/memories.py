"""Long-term memory: what an agent chose to remember, kept in the database.

One :class:`Memory` is one entry an agent saved (``memory_save``): free text,
optionally under a key that names it, so saving again under the same key
replaces the entry instead of adding one. Entries are found by their words
(``memory_search``): see :meth:`attn.store.base.Store.search_memories`.

Spec: 000 §8 (the agent's memory layers), §21 (memory_save and memory_search
during deliberation), §24 (the episodic buffer).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from attn.models._wire import iso
from attn.types import JSON

#: Most characters of one entry's content.
MAX_MEMORY_CHARS = 4_000
#: Most characters of an entry's key.
MAX_MEMORY_KEY_CHARS = 100
#: Most entries one agent keeps; saving one more is refused.
MAX_MEMORIES_PER_AGENT = 10_000
#: Most characters of a search query.
MAX_MEMORY_QUERY_CHARS = 1_000
#: Most entries one search answers.
MAX_MEMORY_RESULTS = 50


@dataclass(frozen=True, slots=True)
class Memory:
    """One long-term memory entry of one agent (the ``memories`` table).

    Attributes:
        id: the entry's id (``mem_…``); kept when a save under its key replaces it.
        agent_id: the agent that saved it.
        content: the text, 1..4,000 characters.
        key: a label of at most 100 characters naming the entry, or None.
        created_at: when it was first saved (UTC).
        updated_at: when it was last saved (UTC); equals ``created_at`` until replaced.
    """

    id: str
    agent_id: str
    content: str
    created_at: datetime
    updated_at: datetime
    key: str | None = None

    def to_dict(self) -> JSON:
        return {
            "id": self.id,
            "agentId": self.agent_id,
            "content": self.content,
            "key": self.key,
            "createdAt": iso(self.created_at),
            "updatedAt": iso(self.updated_at),
        }
