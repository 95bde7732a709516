"""Brains from a configuration: check an agent entry's brain and options, build every brain.

:mod:`attn.config` sits below the brains, so it cannot build them; the entry
points pass :func:`brain_problem` to :func:`attn.config.load_config` as
``check_agent`` and call :func:`build_brains` before they start the runtime.

Spec: issue 3 (brain and options checked with the file, agent and line).
"""

from __future__ import annotations

import inspect

from attn.brains import BRAINS, build_brain
from attn.config import AgentSection, AttnConfig
from attn.core.focus import Brain
from attn.errors import ConfigError, InvalidInput


def brain_problem(agent: AgentSection) -> tuple[tuple[str, ...], str] | None:
    """What is wrong with an agent's brain and options, checked as for ``attn.toml``.

    Unknown and missing options are found from the brain class's signature
    (naming the options it takes); other bad values by building the brain once.
    ``POST /api/agents`` uses it too, so an agent created over HTTP is checked
    like one in the file.

    Args:
        agent: the agent entry.

    Returns:
        None when the brain can be built, else (location under the agent, e.g.
        ``("options", "stepz")``, and the message).
    """
    cls = BRAINS.get(agent.brain)
    if cls is None:
        return ("brain",), f"unknown brain {agent.brain!r}; built-in brains: {', '.join(BRAINS)}"
    params = inspect.signature(cls).parameters
    named = [
        name
        for name, param in params.items()
        if param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY)
    ]
    takes = ", ".join(named) or "none"
    if not any(param.kind is param.VAR_KEYWORD for param in params.values()):
        for key in agent.options:
            if key not in named:
                message = f"the {agent.brain} brain has no option {key!r}; its options: {takes}"
                return ("options", key), message
    for name in named:
        if params[name].default is inspect.Parameter.empty and name not in agent.options:
            return ("options",), f"the {agent.brain} brain needs the option {name!r}"
    try:
        build_brain(agent.brain, dict(agent.options))
    except InvalidInput as exc:
        option = getattr(exc, "option", None)  # OptionError names the option
        return ("options", option) if isinstance(option, str) else ("options",), exc.message
    return None


def build_brains(config: AttnConfig) -> list[Brain]:
    """Build the brain of every agent of ``config``, in order.

    Returns:
        One brain per ``config.agents`` entry.

    Raises:
        ConfigError: a brain is unknown or its options are wrong; the message
            names the config's source and the agent.
    """
    brains = []
    for i, agent in enumerate(config.agents):
        try:
            brains.append(build_brain(agent.brain, dict(agent.options)))
        except InvalidInput as exc:
            raise ConfigError(
                f"{config.label}: agents[{i}].options (agent {agent.name!r}): {exc.message}"
            ) from exc
    return brains


__all__ = ["brain_problem", "build_brains"]
