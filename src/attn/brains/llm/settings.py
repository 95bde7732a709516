"""The options of ``brain = "llm"`` in ``attn.toml``, each bounded and checked.

An agent entry such as::

    [[agents]]
    name = "alice"
    brain = "llm"
    options = { provider = "anthropic", model = "claude-sonnet-4-5", max_turns = 30 }

becomes one :class:`LLMSettings` (:meth:`LLMSettings.from_options`). A value of
the wrong type or out of bounds raises :class:`~attn.errors.OptionError`
naming the option, so ``attn config check`` points at its line, and nothing
is built.

The settings never hold an API key: only the NAME of the environment variable
it is read from (``api_key_env``), read when a client is made
(:meth:`LLMSettings.read_api_key`). No repr, error or check output holds a
key's value (LLM-13): an ``api_key_env`` that is not a variable name may be a
key pasted in the wrong place, so it is never echoed, nor is ``base_url``
(a URL may carry credentials, which are refused), nor the value of an option
the brain does not take.

Spec: 000 §4, §21 (tiers 1 and 2 by model); issue 12 point 8; acceptance LLM-13.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from attn.brains.options import (
    bounded_choice,
    bounded_int,
    bounded_number,
    bounded_seconds,
    bounded_text,
)
from attn.errors import ConfigError, OptionError

_BRAIN = "llm"
#: The providers, and the environment variable each reads its key from by default.
PROVIDERS: Mapping[str, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
#: Longest model name, in characters.
MAX_MODEL_CHARS = 200
#: Longest environment variable name, in characters.
MAX_ENV_NAME_CHARS = 100
#: Longest ``base_url``, in characters.
MAX_URL_CHARS = 2000
#: Most model turns per item.
MAX_TURNS = 200
#: Most output tokens of one turn (main model, classifier and deliberator).
MAX_TOKENS = 200_000
#: Longest ``request_timeout_s``, in seconds.
MAX_REQUEST_TIMEOUT_S = 3600.0
#: Largest system prompt file, in bytes (UTF-8).
MAX_PROMPT_FILE_BYTES = 100 * 1024
#: Longest ``system_prompt_file`` path, in characters.
MAX_PATH_CHARS = 4096
#: The tier model value that means "the main model".
SAME = "same"

_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """Every option of the LLM brain, checked when built.

    Attributes:
        provider: ``"openai"`` (OpenAI-compatible Chat Completions) or ``"anthropic"``.
        model: the provider's model name, 1..200 characters, no spaces.
        base_url: the API's ``http``/``https`` URL (at most 2,000 characters,
            no credentials in it); None for the provider's own.
        api_key_env: the NAME of the environment variable holding the key
            (``[A-Z_][A-Z0-9_]*``, at most 100 characters); None means the
            provider's default (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``),
            filled in when built.
        max_turns: most model turns per item, 1..200 (LLM-06).
        max_tokens: most output tokens of one turn, 1..200,000.
        temperature: 0..2, None for the provider's default.
        request_timeout_s: seconds one model request may take, 1..3600.
        system_prompt_file: a UTF-8 text file of at most 100 KB whose text goes
            into every system prompt, read once when built (a relative path is
            from the working directory here; ``attn.toml`` makes it relative to
            the file's folder); None for none.
        classifier_model: the tier-1 interrupt classifier's model (000 §21):
            None for no classifier, ``"same"`` for :attr:`model`, else a model name.
        classifier_max_tokens: its most output tokens, 1..200,000.
        deliberator_model: the tier-2 deliberation's model, as ``classifier_model``.
        deliberator_max_tokens: its most output tokens, 1..200,000.
        background_exec: offer the model the ``background_exec`` tool, which runs
            shell commands on this machine (default false: not offered).
        system_prompt_text: the text of ``system_prompt_file`` (not an option).

    Raises:
        OptionError: a value of the wrong type or out of bounds, naming the option;
            a ``system_prompt_file`` that is missing, too large or not UTF-8 text.
    """

    provider: str
    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    max_turns: int = 20
    max_tokens: int = 4096
    temperature: float | None = None
    request_timeout_s: float = 120.0
    system_prompt_file: str | None = None
    classifier_model: str | None = None
    classifier_max_tokens: int = 64
    deliberator_model: str | None = None
    deliberator_max_tokens: int = 4096
    background_exec: bool = False
    system_prompt_text: str | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        checked: dict[str, Any] = {
            "provider": bounded_choice(_BRAIN, "provider", self.provider, tuple(PROVIDERS)),
            "model": _model_name("model", self.model, same_ok=False),
            "base_url": _base_url(self.base_url),
        }
        checked["api_key_env"] = _env_name(self.api_key_env, checked["provider"])
        for name in ("max_turns", "max_tokens", "classifier_max_tokens", "deliberator_max_tokens"):
            high = MAX_TURNS if name == "max_turns" else MAX_TOKENS
            checked[name] = bounded_int(_BRAIN, name, getattr(self, name), 1, high)
        if self.temperature is not None:
            checked["temperature"] = bounded_number(_BRAIN, "temperature", self.temperature, 0, 2)
        checked["request_timeout_s"] = bounded_seconds(
            _BRAIN, "request_timeout_s", self.request_timeout_s, MAX_REQUEST_TIMEOUT_S, low_s=1
        )
        for name in ("classifier_model", "deliberator_model"):
            value = getattr(self, name)
            checked[name] = None if value is None else _model_name(name, value, same_ok=True)
        if not isinstance(self.background_exec, bool):
            raise OptionError(
                "background_exec",
                f"llm brain background_exec must be true or false, got "
                f"{type(self.background_exec).__name__}",
            )
        path, text = _prompt_file(self.system_prompt_file)
        checked["system_prompt_file"] = path
        checked["system_prompt_text"] = text
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @classmethod
    def from_options(cls, options: Mapping[str, object]) -> LLMSettings:
        """Build the settings from an agent's ``options`` table.

        Raises:
            OptionError: an option the brain does not take (named, its value not
                shown), a missing ``provider`` or ``model``, or a bad value.
        """
        takes = option_names()
        for key in options:
            if key not in takes:
                if key == "api_key":
                    message = (
                        "the llm brain takes no api_key: put the key in an environment "
                        "variable and name that variable with api_key_env"
                    )
                else:
                    message = f"the llm brain has no option {str(key)[:60]!r}; its options: "
                    message += ", ".join(takes)
                raise OptionError(str(key)[:60], message)
        for name in ("provider", "model"):
            if name not in options:
                raise OptionError(name, f"the llm brain needs the option {name!r}")
        return cls(**options)  # type: ignore[arg-type]

    @property
    def classifier(self) -> str | None:
        """The tier-1 classifier's model name (``"same"`` resolved), or None for none."""
        return self.model if self.classifier_model == SAME else self.classifier_model

    @property
    def deliberator(self) -> str | None:
        """The tier-2 deliberation's model name (``"same"`` resolved), or None for none."""
        return self.model if self.deliberator_model == SAME else self.deliberator_model

    def read_api_key(self, environ: Mapping[str, str] | None = None) -> str:
        """The API key, read now from the environment variable :attr:`api_key_env`.

        The key is returned, never kept.

        Args:
            environ: where to read it (default ``os.environ``).

        Raises:
            ConfigError: the variable is not set or empty (the message names the
                variable, never a value).
        """
        name = str(self.api_key_env)
        value = (os.environ if environ is None else environ).get(name, "")
        if not value.strip():
            raise ConfigError(
                f"the llm brain reads its API key from the environment variable {name}, "
                "which is not set (or empty)"
            )
        return value


def option_names() -> tuple[str, ...]:
    """The options ``brain = "llm"`` takes, in the order of :class:`LLMSettings`."""
    return tuple(f.name for f in fields(LLMSettings) if f.init)


def _model_name(option: str, value: object, *, same_ok: bool) -> str:
    name = bounded_text(_BRAIN, option, value, MAX_MODEL_CHARS)
    if not name or any(ch.isspace() or not ch.isprintable() for ch in name):
        raise OptionError(
            option,
            f"llm brain {option} must be a model name of 1 to {MAX_MODEL_CHARS} characters "
            f"without spaces, got {name[:60]!r}",
        )
    if name == SAME and not same_ok:
        raise OptionError(option, f"llm brain {option} must name a model, not {SAME!r}")
    return name


def _env_name(value: object, provider: str) -> str:
    if value is None:
        return PROVIDERS[provider]
    if (
        not isinstance(value, str)
        or len(value) > MAX_ENV_NAME_CHARS
        or not _ENV_NAME.fullmatch(value)
    ):
        # Never echoed: a value that is not a variable name may be the key itself.
        raise OptionError(
            "api_key_env",
            "llm brain api_key_env must be the NAME of an environment variable "
            f"([A-Z_][A-Z0-9_]*, at most {MAX_ENV_NAME_CHARS} characters), not the key; "
            "the value given is not shown",
        )
    return value


def _base_url(value: object) -> str | None:
    if value is None:
        return None
    problem: str | None = f"must be an http or https URL or null, got a {type(value).__name__}"
    if isinstance(value, str):
        problem = _url_problem(value)
    if problem is not None:
        # The URL is not echoed: it may carry a key in its user part or query.
        raise OptionError("base_url", f"llm brain base_url {problem}; the value is not shown")
    return str(value)


def _url_problem(value: str) -> str | None:
    if not value or len(value) > MAX_URL_CHARS:
        return f"must be an http or https URL of 1 to {MAX_URL_CHARS:,} characters"
    if any(ch.isspace() or not ch.isprintable() for ch in value):
        return "must be a URL without spaces or control characters"
    try:
        parts = urlsplit(value)
        _ = parts.port  # raises for a port out of range or not a number
    except ValueError:
        return "is not a valid URL"
    if parts.scheme not in ("http", "https"):
        return "must start with http:// or https://"
    if not parts.hostname:
        return "must name a host"
    if parts.username is not None or parts.password is not None:
        return "must not hold credentials: name the key's variable with api_key_env"
    return None


def _prompt_file(value: object) -> tuple[str | None, str | None]:
    if value is None:
        return None, None
    option = "system_prompt_file"
    raw = os.fspath(value) if isinstance(value, os.PathLike) else value
    path_text = bounded_text(_BRAIN, option, raw, MAX_PATH_CHARS)
    if not path_text.strip() or "\x00" in path_text:
        raise OptionError(option, "llm brain system_prompt_file must be a file's path")
    path = Path(path_text)
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer (it would hold the
        # server's event loop); anything but a regular file is then refused.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise OptionError(
                    option,
                    f"llm brain system_prompt_file {path_text[:200]!r} is not a regular file",
                )
            data = handle.read(MAX_PROMPT_FILE_BYTES + 1)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise OptionError(
            option, f"llm brain system_prompt_file {path_text[:200]!r} cannot be read: {reason}"
        ) from None
    if len(data) > MAX_PROMPT_FILE_BYTES:
        raise OptionError(
            option,
            f"llm brain system_prompt_file {path_text[:200]!r} is larger than "
            f"{MAX_PROMPT_FILE_BYTES // 1024} KB",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise OptionError(
            option,
            f"llm brain system_prompt_file {path_text[:200]!r} is not UTF-8 text "
            f"(at byte {exc.start})",
        ) from None
    if "\x00" in text:
        raise OptionError(
            option, f"llm brain system_prompt_file {path_text[:200]!r} is not text (holds NUL)"
        )
    return path_text, text


__all__ = ["PROVIDERS", "SAME", "LLMSettings", "option_names"]
