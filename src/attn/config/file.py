"""The whole configuration, :class:`AttnConfig`: every table of ``attn.toml``.

Spec: issue 3 (attn.toml); 000 §11.4 (the heartbeat default for every agent);
000 §11 and issue 13 (teams and their group channels).
"""

from __future__ import annotations

from functools import cached_property

from pydantic import Field, model_validator

from attn.config.filebox_section import FileboxSection
from attn.config.people import Users, WebhookConfig
from attn.config.people_sections import NotificationsSection, UserSection, users_of
from attn.config.sections import (
    AgentSection,
    DatabaseSection,
    DefaultsSection,
    Section,
    ServerSection,
    TeamSection,
)
from attn.config.settings import AgentSettings, resolve_settings
from attn.config.team import Team
from attn.config.time import TimeConfig


class AttnConfig(Section):
    """The whole configuration, after environment overrides.

    Attributes:
        database, server, defaults: the sections (:mod:`attn.config.sections`).
        agents: the agents to host, in order; :func:`~attn.config.load_config`
            checks that names are unique.
        team_sections: the ``[teams.<name>]`` tables as written (key ``teams``
            in the file); :attr:`teams` is what to use.
        user_sections: the ``[users.<id>]`` tables as written (key ``users``);
            :attr:`users` is what to use.
        notifications: ``[notifications]`` (the webhook sink).
        filebox: ``[filebox]`` (where runs of command-line workers live, seed 003).
        source: where it came from: a file path, or ``"demo"`` for the built-in team.
    """

    database: DatabaseSection = DatabaseSection()
    server: ServerSection = ServerSection()
    defaults: DefaultsSection = DefaultsSection()
    agents: list[AgentSection] = Field(default_factory=list)
    team_sections: dict[str, TeamSection] = Field(default_factory=dict, alias="teams")
    user_sections: dict[str, UserSection] = Field(default_factory=dict, alias="users")
    notifications: NotificationsSection = NotificationsSection()
    filebox: FileboxSection = FileboxSection()
    source: str = Field(default="demo", exclude=True)

    @model_validator(mode="after")
    def _people(self) -> AttnConfig:
        users_of(self.user_sections)  # raises on two owners or a bad id
        return self

    @cached_property
    def users(self) -> Users:
        """The people (000 §12): the ``[users.*]`` tables, else the one owner ``user``."""
        return users_of(self.user_sections)

    @property
    def webhook(self) -> WebhookConfig | None:
        """The notification webhook (PPL-09), or None."""
        return self.notifications.webhook_config()

    @cached_property
    def teams(self) -> dict[str, Team]:
        """The teams, by name, in file order (:func:`~attn.config.load_config` checked
        their names and members; the demo team is ``demo``, of every demo agent)."""
        return {
            key: Team(name=key, display_name=section.name, members=tuple(section.members))
            for key, section in self.team_sections.items()
        }

    @property
    def label(self) -> str:
        """How messages name the source: the file path, or ``built-in demo config``."""
        return self.source if self.source != "demo" else "built-in demo config"

    def agent_settings(self, agent: AgentSection) -> AgentSettings:
        """The effective settings of ``agent``: its overrides, else ``[defaults]``."""
        return resolve_settings(self.defaults, agent)

    def time_config(self) -> TimeConfig:
        """The runtime's :class:`~attn.config.TimeConfig`: heartbeats for every agent
        at ``[defaults] heartbeat_interval_s`` when it is set, else none."""
        interval = self.defaults.heartbeat_interval_s
        if interval is None:
            return TimeConfig()
        return TimeConfig(heartbeats=True, heartbeat_default_s=interval)


__all__ = ["AttnConfig"]
