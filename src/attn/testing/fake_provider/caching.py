"""Anthropic prompt caching as the fake provider reports it in usage.

Each ``cache_control`` breakpoint marks a prefix of the request: the tools,
the system blocks and the message blocks, in that order, up to and including
the marked block (the markers themselves do not count, so a breakpoint can
move on without changing the prefix). As the real API does, a breakpoint looks
for a prefix that an earlier request of the same provider marked at its own
block and up to :data:`LOOKBACK_BLOCKS` block boundaries before it: the
longest found is a cache read; the rest up to the last breakpoint is a cache
write. Sizes are counted as tokens of 4 bytes of JSON; the real API's
minimum cacheable length is not modelled.

So a test sees ``cache_read_input_tokens > 0`` exactly when the bytes before
a breakpoint are the same as in an earlier request (LLM-03, LLM-22).

Spec: issue 12 point 7; acceptance LLM-22.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from typing import Any

from attn.types import JSON

__all__ = ["PromptCache"]

#: Bytes per token when counting cached prefixes.
BYTES_PER_TOKEN = 4
#: Block boundaries before a breakpoint that are checked for a cache hit.
LOOKBACK_BLOCKS = 20


def _items(body: JSON) -> Iterator[tuple[str, bool]]:
    """Each cacheable unit of ``body`` in prefix order: its text and whether it is marked."""

    def unit(kind: str, block: Any) -> tuple[str, bool]:
        if not isinstance(block, dict):
            return kind + json.dumps(block, sort_keys=True), False
        bare = {k: v for k, v in block.items() if k != "cache_control"}
        return kind + json.dumps(bare, sort_keys=True, ensure_ascii=False), "cache_control" in block

    for tool in body.get("tools") or []:
        yield unit("tool:", tool)
    system = body.get("system")
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else system or []:
        yield unit("system:", block)
    for n, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for block in blocks:
            yield unit(f"{n}:{message.get('role')}:", block)


class PromptCache:
    """The prefixes earlier requests marked, by digest."""

    def __init__(self) -> None:
        self._seen: set[bytes] = set()
        self._lock = threading.Lock()

    def usage(self, body: JSON) -> tuple[int, int]:
        """``(cache_creation_input_tokens, cache_read_input_tokens)`` of ``body``,
        remembering its marked prefixes for the requests after it."""
        digest = hashlib.sha256()
        size = 0
        boundaries: list[tuple[bytes, int]] = []  # each block's prefix: digest, bytes
        marks: list[int] = []  # the indexes of the marked blocks
        for text, marked in _items(body):
            data = text.encode()
            digest.update(len(data).to_bytes(8, "big") + data)
            size += len(data)
            boundaries.append((digest.copy().digest(), size))
            if marked:
                marks.append(len(boundaries) - 1)
        with self._lock:
            read = max(
                (
                    boundaries[i][1]
                    for mark in marks
                    for i in range(max(0, mark - LOOKBACK_BLOCKS), mark + 1)
                    if boundaries[i][0] in self._seen
                ),
                default=0,
            )
            self._seen.update(boundaries[mark][0] for mark in marks)
        last = boundaries[marks[-1]][1] if marks else 0
        return (last - read) // BYTES_PER_TOKEN, read // BYTES_PER_TOKEN
