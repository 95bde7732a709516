"""Make a model client from configuration, its key read from the environment.

The API key is read from ONE named environment variable and nowhere else
(never from the config file, the database or an argument a caller could log),
so it never reaches the store, the activity log or the API (LLM-13).

Spec: issue 12 point 1; acceptance LLM-13.
"""

from __future__ import annotations

import os
import re
from typing import Literal
from urllib.parse import urlsplit

from attn.brains.providers.anthropic_messages import AnthropicMessagesClient
from attn.brains.providers.base import ModelClient
from attn.brains.providers.openai_chat import OpenAIChatClient
from attn.clock import SYSTEM_CLOCK, Clock
from attn.errors import InvalidInput, shown
from attn.limits import check_seconds

#: The variable each provider's key is read from by default.
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
#: Sent to an OpenAI-compatible local server that needs no key (the SDK wants one).
PLACEHOLDER_KEY = "not-needed"
#: Longest base URL accepted.
MAX_URL_CHARS = 2000
#: Longest request timeout, in seconds.
MAX_TIMEOUT_S = 3600.0

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")

Provider = Literal["openai", "anthropic"]


def make_client(
    provider: Provider,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    timeout_s: float = 60.0,
    clock: Clock = SYSTEM_CLOCK,
) -> ModelClient:
    """A model client for ``provider``.

    Args:
        provider: ``"openai"`` (Chat Completions, also any OpenAI-compatible
            server) or ``"anthropic"`` (Messages).
        base_url: the server's URL (``http`` or ``https``); None for the
            provider's official API.
        api_key_env: the environment variable holding the key (default
            ``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY``).
        timeout_s: connect and read timeout of each request, in seconds (0 .. 3600,
            0 excluded).
        clock: the time source.

    Returns:
        An :class:`~attn.brains.providers.openai_chat.OpenAIChatClient` or an
        :class:`~attn.brains.providers.anthropic_messages.AnthropicMessagesClient`.

    Raises:
        InvalidInput: an unknown provider, a malformed variable name or URL, a
            timeout out of range, the SDK not installed, or the key's variable
            unset or empty (named in the message; for ``openai`` with a
            ``base_url`` a missing key is allowed: local servers need none).
    """
    if provider not in DEFAULT_KEY_ENV:
        raise InvalidInput(f"provider must be 'openai' or 'anthropic', got {shown(provider)}")
    variable = DEFAULT_KEY_ENV[provider] if api_key_env is None else api_key_env
    if not isinstance(variable, str) or not _ENV_NAME.fullmatch(variable):
        raise InvalidInput(
            f"api_key_env must name an environment variable (letters, digits, _), "
            f"got {shown(variable)}"
        )
    if base_url is not None:
        _check_url(base_url)
    check_seconds(timeout_s, "timeout_s", min_s=0.001, max_s=MAX_TIMEOUT_S)
    key = os.environ.get(variable, "").strip()
    if not key:
        if provider == "openai" and base_url is not None:
            key = PLACEHOLDER_KEY
        else:
            raise InvalidInput(
                f"the {provider} API key is missing: set the environment variable {variable}"
            )
    if provider == "openai":
        return OpenAIChatClient(api_key=key, base_url=base_url, timeout_s=timeout_s, clock=clock)
    return AnthropicMessagesClient(api_key=key, base_url=base_url, timeout_s=timeout_s, clock=clock)


def _check_url(url: object) -> None:
    parts = None
    if isinstance(url, str) and len(url) <= MAX_URL_CHARS:
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 - raises ValueError for a bad port
        except ValueError:
            parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        # Never echo what could be credentials in the URL.
        what = shown(url) if "@" not in str(url) else "a URL with credentials in it"
        raise InvalidInput(f"base_url must be an http or https URL with a host, got {what}")
    if parts.username or parts.password:
        raise InvalidInput(
            "base_url must not hold a user name or password "
            "(they would show in errors and logs); give the key through api_key_env"
        )


__all__ = [
    "DEFAULT_KEY_ENV",
    "MAX_TIMEOUT_S",
    "MAX_URL_CHARS",
    "PLACEHOLDER_KEY",
    "Provider",
    "make_client",
]
