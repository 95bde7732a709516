"""Long-term memory search, written once for every backend: words, their column, the ranking.

An entry's words are the distinct lower-case word tokens (``\\w+``, Unicode)
of its content and key. The SQL backends keep them in the ``words`` column as
``" w1 w2 … "`` (sorted, space-framed), so a word is found with one substring
test; the memory store keeps the same words in a dict. Either way the order
is: most distinct query words held, then newest ``updated_at``, then the
larger id.

Spec: 000 §8 (long-term memory, searched by the agent), §21 (memory_search).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from attn.errors import InvalidInput
from attn.limits import check_int
from attn.models import MAX_MEMORY_QUERY_CHARS, MAX_MEMORY_RESULTS, Memory

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """The distinct lower-case word tokens of ``text``, in first-seen order."""
    return list(dict.fromkeys(_WORD.findall(text.lower())))


def entry_words(memory: Memory) -> frozenset[str]:
    """The words an entry is found by: those of its content and of its key."""
    return frozenset(words(memory.content) + words(memory.key or ""))


def words_column(memory: Memory) -> str:
    """The ``words`` column of ``memory``: its words, sorted, each framed by spaces."""
    return f" {' '.join(sorted(entry_words(memory)))} "


def framed(query_words: Iterable[str]) -> list[str]:
    """Each query word as the SQL backends look for it in ``words``: ``" word "``."""
    return [f" {word} " for word in query_words]


def check_search(query: Any, limit: Any) -> list[str]:
    """Check the arguments of :meth:`~attn.store.base.Store.search_memories`.

    Returns:
        The query's words (possibly none).

    Raises:
        InvalidInput: ``query`` is not text of at most 1,000 characters, or
            ``limit`` is not an integer in 1..50.
    """
    if not isinstance(query, str):
        raise InvalidInput(f"query must be text, got {type(query).__name__}")
    if len(query) > MAX_MEMORY_QUERY_CHARS:
        raise InvalidInput(
            f"query must be at most {MAX_MEMORY_QUERY_CHARS} characters, got {len(query)}"
        )
    check_int(limit, "limit", low=1, high=MAX_MEMORY_RESULTS)
    return words(query)
