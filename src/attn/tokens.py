"""API tokens: which strings can work as one.

Spec: DESIGN.md (any bind but loopback needs a token); issue 10 C5.
"""

from __future__ import annotations

#: Shortest API token accepted, in characters.
MIN_TOKEN_CHARS = 8


def token_problem(token: str, *, min_chars: int = MIN_TOKEN_CHARS) -> str | None:
    """What makes ``token`` unusable as an API token, or None when it is fine.

    A client sends the token in ``Authorization: Bearer <token>``: an HTTP
    header keeps only visible ASCII reliably (clients strip surrounding spaces,
    and many refuse other characters), so a token must be at least
    ``min_chars`` visible ASCII characters, with no spaces.

    Args:
        token: the token.
        min_chars: the shortest length accepted (the server's rule; a client checks 0).
    """
    if token.strip() != token or not token.strip():
        return "must not be blank or start or end with spaces (no client can send those)"
    bad = sorted({c for c in token if not "!" <= c <= "~"})
    if bad:
        shown = ", ".join(repr(c) for c in bad[:5])
        return (
            f"may use only visible ASCII characters without spaces (a client sends it "
            f"in an HTTP header), not {shown}"
        )
    if len(token) < min_chars:
        return f"must be at least {min_chars} characters, got {len(token)}"
    return None


__all__ = ["MIN_TOKEN_CHARS", "token_problem"]
