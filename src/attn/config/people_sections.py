"""The ``[users.<id>]`` and ``[notifications]`` tables of ``attn.toml``.

What they become is :mod:`attn.config.people` (no pydantic there).

Spec: 000 §12 (user notifications); acceptance PPL-01, PPL-09.
"""

from __future__ import annotations

import math

from pydantic import Field, field_validator

from attn.config.people import MAX_USERS, User, Users, WebhookConfig
from attn.config.sections import Section


class UserSection(Section):
    """One ``[users.<id>]`` table: a person who gets notifications and answers approvals."""

    name: str | None = Field(default=None, min_length=1, max_length=200)
    owner: bool = False


class WebhookSection(Section):
    """``[notifications.webhook]``: see :class:`WebhookConfig`."""

    url: str = Field(min_length=8, max_length=2000, pattern=r"^https?://")
    secret_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
    timeout_s: float = Field(default=10.0, gt=0, le=300)
    max_attempts: int = Field(default=8, ge=1, le=50)
    types: list[str] = Field(default_factory=list, max_length=100)

    @field_validator("timeout_s", mode="after")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("must be a finite number of seconds")
        return value


class NotificationsSection(Section):
    """``[notifications]``: the optional webhook sink."""

    webhook: WebhookSection | None = None

    def webhook_config(self) -> WebhookConfig | None:
        hook = self.webhook
        if hook is None:
            return None
        return WebhookConfig(
            url=hook.url,
            secret_env=hook.secret_env,
            timeout_s=hook.timeout_s,
            max_attempts=hook.max_attempts,
            types=tuple(hook.types),
        )


def users_of(sections: dict[str, UserSection]) -> Users:
    """:class:`Users` from the ``[users.*]`` tables; the default owner when there are none.

    A file naming people but no owner makes the first one the owner.

    Raises:
        ValueError: a bad id, two owners, or more than :data:`MAX_USERS`.
    """
    if not sections:
        return Users()
    if len(sections) > MAX_USERS:
        raise ValueError(f"at most {MAX_USERS} users, got {len(sections)}")
    owners = sum(1 for s in sections.values() if s.owner)
    if owners > 1:
        raise ValueError(f"exactly one user may be the owner, got {owners}")
    people = [User(key, s.name or key, s.owner) for key, s in sections.items()]
    if owners == 0:
        people[0] = User(people[0].id, people[0].name, owner=True)
    return Users(tuple(people))


__all__ = ["NotificationsSection", "UserSection", "WebhookSection", "users_of"]
