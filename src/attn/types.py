"""Type aliases shared across attn."""

from __future__ import annotations

from typing import Any

__all__ = ["JSON"]

#: A JSON object as Python holds it: what payloads, metadata and ``to_dict()`` give.
JSON = dict[str, Any]
