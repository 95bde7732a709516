"""How records write instants on the wire: ISO 8601 text, ``None`` kept."""

from __future__ import annotations

from datetime import datetime


def iso(value: datetime | None) -> str | None:
    """Return ``value`` as ISO 8601 text, or ``None`` for ``None``."""
    return value.isoformat() if value is not None else None
