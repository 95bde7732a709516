"""Query parameters shared by the paged listings of the API.

Every listing is paged (:mod:`attn.runtime.views`): a bounded default page, at
most :data:`MAX_PAGE` entries, and ``nextCursor`` to pass back as ``cursor``.

Spec: 000 §5 (paged reads).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Query

from attn.runtime import views

#: Largest page of every listing (mailbox history, decisions, activity logs).
MAX_PAGE = views.MAX_PAGE
#: The ``cursor`` query parameter of every listing.
Cursor = Annotated[
    str | None,
    Query(
        max_length=200,
        description=("the nextCursor of the previous page (empty or absent: the first page)"),
    ),
]
#: The deprecated ``offset`` query parameter (a cursor never repeats entries).
Offset = Annotated[
    int,
    Query(
        ge=0,
        le=views.MAX_OFFSET,
        deprecated=True,
        description=(
            "entries to skip; use cursor instead (offsets repeat entries while others arrive)"
        ),
    ),
]


def split_csv(value: str | None) -> list[str] | None:
    """A comma-separated query value as its non-empty parts.

    Args:
        value: the raw query value, or None when absent.

    Returns:
        The stripped, non-empty parts; None when there are none.
    """
    if value is None:
        return None
    parts = [part.strip() for part in value.split(",") if part.strip()]
    return parts or None


__all__ = ["MAX_PAGE", "Cursor", "Offset", "split_csv"]
