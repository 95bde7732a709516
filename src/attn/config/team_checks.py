"""What is wrong with the ``[teams.<name>]`` tables of a configuration.

These are the team rules that need the whole file (pydantic checks each
table's shape in :class:`~attn.config.sections.TeamSection`): the team name
follows the agent-name rule, a team has 1 .. :data:`~attn.config.team.MAX_TEAM_MEMBERS`
members, each one an agent of ``[[agents]]``, none listed twice.

Spec: 000 §11 (team group channels ``group:<teamId>``); issue 13.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from attn.config.problems import KeyLines, Location, dotted, line_in
from attn.config.sections import AGENT_NAME_PATTERN, TeamSection
from attn.config.team import MAX_TEAM_MEMBERS
from attn.errors import ConfigProblem

_NAME_RE = re.compile(AGENT_NAME_PATTERN)


def team_problems(
    teams: Mapping[str, TeamSection], agents: Collection[str], lines: KeyLines
) -> list[ConfigProblem]:
    """Every problem of ``teams``, in file order, each with its line when found.

    Args:
        teams: the ``[teams.*]`` tables, by team name.
        agents: the names of the agents of ``[[agents]]``.
        lines: the file's key lines (:func:`~attn.config.problems.key_lines`);
            empty for the built-in demo team.

    Returns:
        The problems; empty when every team is valid.
    """
    found: list[ConfigProblem] = []

    def add(loc: Location, message: str) -> None:
        line = line_in(lines, loc) if lines else None
        found.append(ConfigProblem(dotted(loc), message, line))

    for team, section in teams.items():
        if not _NAME_RE.fullmatch(team):
            add(
                ("teams", team),
                f"team name {team!r} must be 1-64 letters, digits, '_', '.' or '-', "
                "starting with a letter or digit",
            )
        members = section.members
        where: Location = ("teams", team, "members")
        if not members:
            add(where, f"team {team!r} has no members")
            continue
        if len(members) > MAX_TEAM_MEMBERS:
            add(where, f"team {team!r} has {len(members)} members; at most {MAX_TEAM_MEMBERS}")
            continue
        seen: set[str] = set()
        for i, member in enumerate(members):
            if member in seen:
                add((*where, i), f"team {team!r} lists member {member!r} twice")
            elif member not in agents:
                add((*where, i), f"team {team!r} member {member!r} is not an agent of [[agents]]")
            seen.add(member)
    return found


__all__ = ["team_problems"]
