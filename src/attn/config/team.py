"""A team of ``attn.toml``: :class:`Team`, the agents that share one group channel.

A pure value object (no pydantic), so the runtime and the channels can take
one without loading the file schema. Its channel is
``attn.channels.team_key(team.name)``, made by ``Channels.ensure_team(team.name,
team.members, team.display_name)``. ``[teams.<name>]`` in ``attn.toml`` is
read by :class:`attn.config.sections.TeamSection` and checked by
:func:`attn.config.team_checks.team_problems`.

Spec: 000 §11 (``agent_send_group_message``: team group channels
``group:<teamId>``), §25 (channel keys); issue 13.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Most members one team may have: a channel's most
#: (:data:`attn.models.channels.MAX_CHANNEL_MEMBERS`; a test holds them equal).
MAX_TEAM_MEMBERS = 500


@dataclass(frozen=True, slots=True)
class Team:
    """One team: a name, an optional display name and its member agents.

    Attributes:
        name: the team's key in ``attn.toml`` (``[teams.<name>]``), with the
            agent-name rule (1-64 letters, digits, ``_ . -``).
        display_name: what listings show; None: show ``name``.
        members: the member agents' names, in file order, each an agent of
            ``[[agents]]`` listed once (1 .. :data:`MAX_TEAM_MEMBERS`).
    """

    name: str
    display_name: str | None
    members: tuple[str, ...]


__all__ = ["MAX_TEAM_MEMBERS", "Team"]
