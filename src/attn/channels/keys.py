"""Channel keys and @mentions: the names of channels, and who a message addresses.

A DM channel's key is ``dm:a2a:{a}:{b}`` with the two agent ids sorted, so the
same pair always meets in the same channel whichever side writes first. A
team's channel is ``group:<team>``; a group created by an agent or a person is
``group:custom:<id>``. The stable session an agent processes a channel in is
``channel_<key>_<agent>``.

Spec: 000 §11.1 (channel key, stable session), §11.2 and §25.2 (group keys,
@mentions); acceptance A2A-01, A2A-02.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from attn.errors import InvalidInput
from attn.limits import MAX_ID_CHARS, check_text
from attn.models import ChannelKind

DM_PREFIX = "dm:a2a:"
GROUP_PREFIX = "group:"
CUSTOM_PREFIX = "group:custom:"

# Agent names (runtime's rule): what may stand between the colons of a key.
_NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}"
_KEY_RE = re.compile(rf"^(?:dm:a2a:{_NAME}:{_NAME}|group:custom:{_NAME}|group:{_NAME})$")
_MENTION_RE = re.compile(rf"(?<![\w@])@({_NAME})")


def dm_key(a: str, b: str) -> str:
    """The DM channel key of two agents: ``dm:a2a:{smaller}:{larger}`` (A2A-01)."""
    first, second = sorted((a, b))
    return f"{DM_PREFIX}{first}:{second}"


def team_key(team: str) -> str:
    """The channel key of a team of ``attn.toml``: ``group:<team>``."""
    return f"{GROUP_PREFIX}{team}"


def custom_key(group_id: str) -> str:
    """The channel key of a custom group: ``group:custom:<id>``."""
    return f"{CUSTOM_PREFIX}{group_id}"


def kind_of(key: str) -> ChannelKind:
    """The kind a well-formed key names."""
    if key.startswith(DM_PREFIX):
        return ChannelKind.DM
    if key.startswith(CUSTOM_PREFIX):
        return ChannelKind.CUSTOM
    return ChannelKind.TEAM


def dm_pair(key: str) -> tuple[str, str]:
    """The two agent ids of a DM key."""
    first, second = key[len(DM_PREFIX) :].split(":", 1)
    return first, second


def check_key(value: object, what: str = "channel_key") -> str:
    """A well-formed channel key.

    Raises:
        InvalidInput: not text, or not ``dm:a2a:<a>:<b>``, ``group:<team>`` or
            ``group:custom:<id>`` with names of letters, digits, ``_ . -``.
    """
    key = check_text(value, what, max_len=MAX_ID_CHARS)
    if not _KEY_RE.match(key):
        raise InvalidInput(
            f"{what} {key[:80]!r} is not a channel key: expected dm:a2a:<agent>:<agent>, "
            "group:<team> or group:custom:<id>"
        )
    if key.startswith(DM_PREFIX):
        a, b = dm_pair(key)
        if a >= b:
            raise InvalidInput(
                f"{what} {key!r}: a DM key names two different agents in sorted order "
                f"({dm_key(a, b)!r})"
            )
    return key


def session_id(key: str, agent_id: str) -> str:
    """The stable session one agent processes one channel in (000 §11.1):
    ``channel_<key>_<agent>``, or, when that is longer than an id may be (200
    characters), ``channel_<digest>_<agent>`` with a digest of the key."""
    session = f"channel_{key}_{agent_id}"
    if len(session) <= MAX_ID_CHARS:
        return session
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    return f"channel_{digest}_{agent_id}"


def mentions_in(text: str, members: Iterable[str]) -> tuple[str, ...]:
    """The members ``text`` mentions with ``@name``, in order of first mention.

    Names that are not members are left out: ``@here`` or an e-mail address
    never narrows delivery by accident.
    """
    known = set(members)
    found: dict[str, None] = {}
    for name in _MENTION_RE.findall(text):
        if name not in known:
            name = name.rstrip("._-")  # "@bob." ends a sentence; "bob" is the name
        if name in known:
            found.setdefault(name)
    return tuple(found)


__all__ = [
    "CUSTOM_PREFIX",
    "DM_PREFIX",
    "GROUP_PREFIX",
    "check_key",
    "custom_key",
    "dm_key",
    "dm_pair",
    "kind_of",
    "mentions_in",
    "session_id",
    "team_key",
]
