"""A team of ``attn.toml``: :class:`Team`, the agents that share one group channel.

A pure value object (no pydantic), so the runtime and the channels can take
one without loading the file schema. ``[teams.<name>]`` in ``attn.toml`` is
read by :class:`attn.config.sections.TeamSection` and checked by
:func:`attn.config.team_checks.team_problems`.

Spec: 000 §11 (``agent_send_group_message``: team group channels
``group:<teamId>``), §25 (channel keys); issue 13.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Most members one team may have.
MAX_TEAM_MEMBERS = 500

#: The prefix of a team's channel key.
GROUP_PREFIX = "group:"


@dataclass(frozen=True, slots=True)
class Team:
    """One team: a name, an optional display name and its member agents.

    Attributes:
        name: the team's key in ``attn.toml`` (``[teams.<name>]``), with the
            agent-name rule (1-64 letters, digits, ``_ . -``).
        display_name: what listings show; None: show ``name``.
        members: the member agents' names, in file order, each hosted and
            listed once (1 .. :data:`MAX_TEAM_MEMBERS`).
    """

    name: str
    display_name: str | None
    members: tuple[str, ...]

    @property
    def channel_key(self) -> str:
        """The team's group channel key, ``group:<name>`` (000 §11)."""
        return f"{GROUP_PREFIX}{self.name}"

    @property
    def label(self) -> str:
        """The display name when set, else the name."""
        return self.display_name if self.display_name is not None else self.name


__all__ = ["GROUP_PREFIX", "MAX_TEAM_MEMBERS", "Team"]
