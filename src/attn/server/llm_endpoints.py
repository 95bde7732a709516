"""Which model endpoints an LLM agent created over HTTP may use.

An ``llm`` agent sends its API key (read from the environment variable its
``api_key_env`` names) and its system prompt to its ``base_url``. Were those
free over HTTP, one request could send any variable of the server's
environment, or any file the server can read, to any address. So an agent
created with ``POST /api/agents`` may only use an endpoint (provider,
``base_url``, ``api_key_env``) that an agent of the server's ``attn.toml``
already uses, and cannot name a ``system_prompt_file``: both are the
configuration's to decide, where the operator writes them.

Spec: issue 12 (LLM-13: keys never leave through the API).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from attn.brains.llm.settings import PROVIDERS

#: (provider, base_url or None, the key's environment variable).
Endpoint = tuple[str, str | None, str]


def endpoint_of(options: Mapping[str, Any]) -> Endpoint | None:
    """The endpoint ``options`` of an ``llm`` brain name; None when they name no
    known provider (the brain's own checks then say what is wrong)."""
    provider = options.get("provider")
    if not isinstance(provider, str) or provider not in PROVIDERS:
        return None
    base_url = options.get("base_url")
    env = options.get("api_key_env")
    return (
        provider,
        base_url if isinstance(base_url, str) else None,
        env if isinstance(env, str) else PROVIDERS[provider],
    )


def configured_endpoints(agents: Sequence[Any]) -> frozenset[Endpoint]:
    """The endpoints the ``llm`` agents of a configuration use (``config.agents``)."""
    found = set()
    for agent in agents:
        if agent.brain == "llm" and (endpoint := endpoint_of(agent.options)) is not None:
            found.add(endpoint)
    return frozenset(found)


def http_problem(
    brain: str, options: Mapping[str, Any], allowed: Collection[Endpoint]
) -> tuple[tuple[str, ...], str] | None:
    """What an agent created over HTTP may not do, checked before its brain is built.

    Returns:
        None, or (location under the body, message). The message never echoes
        a URL, a path or a variable's value.
    """
    if brain != "llm":
        return None
    if "system_prompt_file" in options:
        return ("options", "system_prompt_file"), (
            "a system_prompt_file can be set only in attn.toml, not over HTTP"
        )
    endpoint = endpoint_of(options)
    if endpoint is not None and endpoint not in allowed:
        return ("options", "base_url"), (
            "over HTTP an llm agent may use only a model endpoint (provider, base_url and "
            "api_key_env together) that an agent of attn.toml uses; "
            f"this server has {len(allowed)}"
        )
    return None


__all__ = ["Endpoint", "configured_endpoints", "endpoint_of", "http_problem"]
