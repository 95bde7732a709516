"""Hosting the agents of a configuration: what ``attn serve`` and ``attn mcp`` both do.

:class:`ConfiguredAgents` builds every brain (and an ``llm`` agent's triage
tiers) from ``attn.toml`` before anything touches the database, so a typo fails
fast; :meth:`ConfiguredAgents.host` then adds them, the webhook and the teams'
channels to a started runtime. :func:`configured_runtime` is the runtime of a
configuration on its database.

Spec: issue 3 (attn.toml); issue 17 point 1 (``attn mcp`` hosts like ``attn serve``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn.brains.from_config import build_brains
from attn.brains.llm.tiers import ModelTiers, build_tiers
from attn.config import AttnConfig
from attn.store import open_store

if TYPE_CHECKING:
    from attn.runtime import Runtime


class ConfiguredAgents:
    """The agents of ``config`` with their brains built (nothing is opened yet).

    Args:
        config: the configuration.

    Raises:
        ConfigError: an agent's brain cannot be built.
    """

    def __init__(self, config: AttnConfig) -> None:
        self.config = config
        self.brains = build_brains(config)
        self.tiers: list[ModelTiers] = [
            build_tiers(section.brain, dict(section.options)) for section in config.agents
        ]

    async def host(self, runtime: Runtime) -> None:
        """Start the webhook, add every agent, and make each team's channel ``group:<team>``.

        Args:
            runtime: a started runtime.
        """
        config = self.config
        if config.webhook is not None:
            await runtime.people.start_webhook(config.webhook)
        for section, brain, tier in zip(config.agents, self.brains, self.tiers, strict=True):
            agent = await runtime.add_agent(
                section.name,
                brain,
                config.agent_settings(section).agent_config(),
                description=section.description,
                classifier=tier.classifier,
                deliberator=tier.deliberator,
            )
            tier.bind(agent)
        for team in config.teams.values():
            await runtime.channels.ensure_team(team.name, team.members, team.display_name)

    async def aclose(self) -> None:
        """Close the model clients of the triage tiers."""
        for tier in self.tiers:
            await tier.aclose()


def configured_runtime(config: AttnConfig, database_url: str) -> Runtime:
    """The runtime of ``config`` on ``database_url`` (not started).

    Raises:
        InvalidInput: the database URL is unsupported.
    """
    from attn.runtime import Runtime

    return Runtime(
        open_store(database_url),
        time=config.time_config(),
        users=config.users,
        filebox=config.filebox.config(),
    )


__all__ = ["ConfiguredAgents", "configured_runtime"]
