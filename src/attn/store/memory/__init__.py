"""The in-memory store: same contract as the SQL backends, nothing persisted.

Public: :class:`MemoryStore`. The other modules (``tables``, ``reads``,
``writes``, ``store``) are its implementation.

Spec: 000 §6; DESIGN.md "Choices already made" (``memory://``).
"""

from attn.store.memory.store import MemoryStore

__all__ = ["MemoryStore"]
