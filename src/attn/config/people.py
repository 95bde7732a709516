"""The people of ``attn.toml``: :class:`User`, :class:`Users` (with an owner) and
the notification webhook (:class:`WebhookConfig`).

Pure value objects (no pydantic), so the people service can take them without
loading the file schema. ``[users.<id>]`` tables and ``[notifications]`` are
read by :mod:`attn.config.people_sections`.

A runtime without configured people has one: the owner ``user``, the sender
id ``attn chat`` and the REST API use by default.

Spec: 000 §12 (user notifications), §25.1 (the fallback: the last person who
talked to the agent, then the owner); acceptance PPL-01, PPL-09.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: The id of the one person of a runtime without ``[users]``.
DEFAULT_USER_ID = "user"
#: Most people one ``attn.toml`` may name.
MAX_USERS = 1_000
#: The rule of a user id: 1-64 letters, digits, ``_ . @ -``, starting with a letter or digit.
USER_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$"
_USER_ID = re.compile(USER_ID_PATTERN)


@dataclass(frozen=True, slots=True)
class User:
    """One person: ``id`` (the key of ``[users.<id>]``), a display name, owner or not."""

    id: str
    name: str
    owner: bool = False

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "name": self.name, "owner": self.owner}


@dataclass(frozen=True, slots=True)
class Users:
    """The people a runtime knows, in file order, exactly one of them the owner."""

    users: tuple[User, ...] = (User(DEFAULT_USER_ID, "You", owner=True),)

    def __post_init__(self) -> None:
        owners = [u for u in self.users if u.owner]
        if not self.users or len(owners) != 1:
            raise ValueError(f"exactly one user must be the owner, got {len(owners)}")
        ids = [u.id for u in self.users]
        if len(set(ids)) != len(ids):
            raise ValueError("user ids must be unique")
        for user_id in ids:
            if not _USER_ID.match(user_id):
                raise ValueError(f"user id {user_id!r} breaks the rule {USER_ID_PATTERN}")

    @property
    def owner(self) -> User:
        return next(u for u in self.users if u.owner)

    def get(self, user_id: object) -> User | None:
        """The user with exactly that id, or None."""
        return next((u for u in self.users if u.id == user_id), None)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(u.id for u in self.users)


@dataclass(frozen=True, slots=True)
class WebhookConfig:
    """Where notifications are pushed (PPL-09).

    Attributes:
        url: the endpoint; each notification is POSTed once as JSON.
        secret_env: the environment variable holding the signing secret
            (HMAC-SHA256 of the body, header ``X-Attn-Signature: sha256=<hex>``);
            None: unsigned.
        timeout_s: seconds per try.
        max_attempts: tries before the delivery is marked ``failed``.
        types: notification types to push; empty: every type.
    """

    url: str
    secret_env: str | None = None
    timeout_s: float = 10.0
    max_attempts: int = 8
    types: tuple[str, ...] = field(default_factory=tuple)


__all__ = [
    "DEFAULT_USER_ID",
    "MAX_USERS",
    "USER_ID_PATTERN",
    "User",
    "Users",
    "WebhookConfig",
]
