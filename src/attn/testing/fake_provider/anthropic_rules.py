"""anthropic request rules (filled in next)."""

from __future__ import annotations

from attn.types import JSON

__all__ = ["check_anthropic"]


def check_anthropic(body: JSON) -> str | None:
    """Why the API refuses ``body``, or None."""
    return None
