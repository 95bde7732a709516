"""The CLI's side of the channel routes: URL path parts, body checks, history paging.

Shared by ``attn channel …`` (:mod:`attn.cli.channel`) and the live view
(``attn channel watch``, :class:`attn.cli.tail.Follower`), which pages a
channel's history to show what it missed while the server was away.

Spec: 000 §11.1, §25.2; acceptance A2A-08 (history pages).
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import quote

from attn.cli.client import ApiClient, CliError
from attn.models import MAX_HISTORY_PAGE

#: Most pages of 500 messages one catch-up reads.
MAX_CATCH_UP_PAGES = 10
#: Longest ``--timeout``: a day, in seconds (the server's bound).
MAX_TIMEOUT_S = 86_400.0


def check_timeout(value: float | None) -> float | None:
    """``value`` (seconds) unless it is outside 0 < s ≤ 86400 or not finite.

    Raises:
        CliError: exit status 2, naming the bounds.
    """
    if value is not None and not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT_S):
        raise CliError(
            f"--timeout must be seconds, 0 < s ≤ {MAX_TIMEOUT_S:.0f}, got {value:g}",
            exit_code=2,
        )
    return value


def check_text(value: str, what: str, example: str) -> str:
    """``value`` unless it is empty or blank (like ``attn send AGENT ''``).

    Raises:
        CliError: exit status 2 with an ``example`` command line; nothing is sent.
    """
    if not value.strip():
        raise CliError(
            f"{what} is empty: say what to send, e.g. {example} (nothing was sent)", exit_code=2
        )
    return value


def present(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` without its None fields (the server's defaults apply)."""
    return {k: v for k, v in body.items() if v is not None}


def segment(value: str, what: str) -> str:
    """``value`` as one percent-encoded URL path segment (``:``, ``/``, ``?``, ``#``,
    ``%`` and dots included, so ``.`` and ``..`` stay a name, not a path step).

    Raises:
        CliError: exit status 2 when ``value`` is blank, or holds ``/``: the server
            routes on the decoded path, so no key or agent name can hold one.
    """
    if not value.strip():
        raise CliError(f"the {what} is empty", exit_code=2)
    if "/" in value:
        hint = (
            " (keys are dm:a2a:<agent>:<agent>, group:<team> or group:custom:<id>)"
            if "channel" in what
            else ""
        )
        raise CliError(
            f"the {what} {value[:80]!r} holds '/', which no id can hold{hint}", exit_code=2
        )
    return quote(value, safe="").replace(".", "%2E")


def messages_path(key: str) -> str:
    """``/api/channels/{key}/messages`` with ``key`` encoded (:func:`segment`)."""
    return f"/api/channels/{segment(key, 'channel key')}/messages"


def newest_seq(client: ApiClient, key: str) -> int:
    """The seq of the channel's newest message, 0 when it has none.

    Raises:
        CliError: the server cannot be reached or refused the request.
    """
    page = client.request("GET", messages_path(key), params={"limit": 1})
    messages = page.get("messages") or []
    return int(messages[-1]["seq"]) if messages else 0


def history_since(
    client: ApiClient,
    key: str,
    after_seq: int,
    *,
    page_size: int = MAX_HISTORY_PAGE,
    max_pages: int = MAX_CATCH_UP_PAGES,
) -> tuple[list[dict[str, Any]], int | None]:
    """The channel's messages with a seq greater than ``after_seq``, oldest first.

    Pages back from the newest message (``before=``, ``page_size`` messages a
    page, at most 500) until a page reaches ``after_seq`` or the start of the
    history, at most ``max_pages`` pages.

    Returns:
        ``(messages, older)``: ``older`` is None when every message after
        ``after_seq`` is in ``messages``, else the ``before`` of the page the
        reading stopped at (``attn channel history KEY --before older``).

    Raises:
        CliError: the server cannot be reached or refused the request.
    """
    found: list[dict[str, Any]] = []
    before: int | None = None
    for _ in range(max_pages):
        page = client.request(
            "GET", messages_path(key), params={"limit": page_size, "before": before}
        )
        messages: list[dict[str, Any]] = page.get("messages") or []
        newer = [m for m in messages if int(m.get("seq", 0)) > after_seq]
        found[:0] = newer
        before = page.get("nextBefore")
        if len(newer) < len(messages) or before is None:
            return found, None
    return found, before


__all__ = [
    "MAX_CATCH_UP_PAGES",
    "MAX_TIMEOUT_S",
    "check_text",
    "check_timeout",
    "history_since",
    "messages_path",
    "newest_seq",
    "present",
    "segment",
]
