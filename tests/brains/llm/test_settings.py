"""LLMSettings: every option of ``brain = "llm"`` bounded; a bad value is an OptionError
naming the option, and nothing is built (issue 12 point 8)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import pytest

from attn.brains.llm.settings import PROVIDERS, LLMSettings, option_names
from attn.errors import ConfigError, OptionError

BASE: dict[str, Any] = {"provider": "openai", "model": "gpt-4o-mini"}


def build(**options: Any) -> LLMSettings:
    return LLMSettings.from_options({**BASE, **options})


def test_defaults() -> None:
    settings = build()
    assert settings == LLMSettings(provider="openai", model="gpt-4o-mini")
    assert (settings.max_turns, settings.max_tokens, settings.request_timeout_s) == (20, 4096, 120)
    assert settings.api_key_env == "OPENAI_API_KEY"
    assert LLMSettings(provider="anthropic", model="claude").api_key_env == "ANTHROPIC_API_KEY"
    assert settings.temperature is None and settings.base_url is None
    assert settings.classifier is None and settings.deliberator is None
    assert settings.system_prompt_text is None
    assert set(PROVIDERS) == {"openai", "anthropic"}


def test_every_bound_is_accepted() -> None:
    low = build(
        max_turns=1, max_tokens=1, temperature=0, request_timeout_s=1,
        classifier_max_tokens=1, deliberator_max_tokens=1, model="m",
    )  # fmt: skip
    high = build(
        max_turns=200, max_tokens=200_000, temperature=2.0, request_timeout_s=3600,
        classifier_max_tokens=200_000, deliberator_max_tokens=200_000, model="m" * 200,
        base_url="https://llm.example.test:8443/v1", api_key_env="_" + "A1" * 49 + "Z",
    )  # fmt: skip
    assert (low.max_turns, low.temperature, low.request_timeout_s) == (1, 0.0, 1.0)
    assert isinstance(low.temperature, float) and isinstance(low.request_timeout_s, float)
    assert (high.max_tokens, high.temperature, len(high.api_key_env or "")) == (200_000, 2.0, 100)
    assert build(base_url="http://127.0.0.1:8080").base_url == "http://127.0.0.1:8080"


def test_tier_models_same_or_named() -> None:
    settings = build(classifier_model="same", deliberator_model="gpt-4o")
    assert settings.classifier == "gpt-4o-mini" and settings.deliberator == "gpt-4o"
    assert settings.classifier_model == "same"
    assert build(deliberator_model="same").deliberator == "gpt-4o-mini"


BAD: list[tuple[str, object]] = [
    ("provider", "OpenAI"),
    ("provider", "litellm"),
    ("provider", None),
    ("model", ""),
    ("model", "  "),
    ("model", "gpt 4"),
    ("model", "m" * 201),
    ("model", 4),
    ("model", "same"),
    ("model", "a\nb"),
    ("model", "bad\ud800"),
    ("base_url", "ftp://host/v1"),
    ("base_url", "llm.example.test"),
    ("base_url", "https://"),
    ("base_url", "https://host:99999"),
    ("base_url", "https://[::1"),
    ("base_url", "https://host/ v1"),
    ("base_url", "https://" + "h" * 2000),
    ("base_url", 8080),
    ("api_key_env", "openai_api_key"),
    ("api_key_env", "1KEY"),
    ("api_key_env", "MY-KEY"),
    ("api_key_env", "A" * 101),
    ("api_key_env", ""),
    ("api_key_env", ["KEY"]),
    ("max_turns", 0),
    ("max_turns", 201),
    ("max_turns", 2.0),
    ("max_turns", True),
    ("max_turns", 10**400),
    ("max_tokens", 0),
    ("max_tokens", 200_001),
    ("max_tokens", "4096"),
    ("temperature", -0.1),
    ("temperature", 2.01),
    ("temperature", float("nan")),
    ("temperature", float("inf")),
    ("temperature", True),
    ("temperature", "0.5"),
    ("request_timeout_s", 0.99),
    ("request_timeout_s", 3601),
    ("request_timeout_s", None),
    ("request_timeout_s", 10**400),
    ("system_prompt_file", ""),
    ("system_prompt_file", 3),
    ("system_prompt_file", "no/such/file.md"),
    ("classifier_model", ""),
    ("classifier_model", "two words"),
    ("classifier_max_tokens", 0),
    ("classifier_max_tokens", 200_001),
    ("deliberator_model", 1),
    ("deliberator_max_tokens", -1),
]


@pytest.mark.parametrize(("option", "value"), BAD)
def test_a_bad_value_names_its_option(option: str, value: object) -> None:
    with pytest.raises(OptionError) as info:
        build(**{option: value})
    assert info.value.option == option
    assert option in info.value.message
    with pytest.raises(OptionError):  # the constructor checks the same way
        LLMSettings(**{**BASE, option: value})


def test_unknown_and_missing_options() -> None:
    with pytest.raises(OptionError) as info:
        build(max_turn=3)
    assert info.value.option == "max_turn" and "its options: provider, model" in str(info.value)
    with pytest.raises(OptionError) as info:
        build(api_key="sk-live-123")
    assert info.value.option == "api_key" and "api_key_env" in str(info.value)
    for name in ("provider", "model"):
        with pytest.raises(OptionError) as info:
            LLMSettings.from_options({k: v for k, v in BASE.items() if k != name})
        assert info.value.option == name
    assert "system_prompt_text" not in option_names()
    assert option_names()[:2] == ("provider", "model") and len(option_names()) == 14


def test_settings_are_frozen() -> None:
    settings = build()
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.max_turns = 500  # type: ignore[misc]
    assert settings.max_turns == 20
    with pytest.raises(OptionError):
        dataclasses.replace(settings, max_turns=500)


def test_the_system_prompt_file_is_read_once(tmp_path: Path) -> None:
    path = tmp_path / "prompt.md"
    path.write_text("Be brief. ✂\n", encoding="utf-8")
    settings = build(system_prompt_file=str(path))
    path.write_text("changed", encoding="utf-8")
    assert settings.system_prompt_text == "Be brief. ✂\n"
    assert settings.system_prompt_file == str(path)
    assert "Be brief" not in repr(settings)
    assert build(system_prompt_file=path).system_prompt_text == "changed"  # a Path is taken


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"x" * (100 * 1024 + 1), "larger than 100 KB"),
        (b"caf\xe9", "not UTF-8 text"),
        (b"a\x00b", "not text"),
    ],
)
def test_a_bad_system_prompt_file(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "prompt.md"
    path.write_bytes(content)
    with pytest.raises(OptionError) as info:
        build(system_prompt_file=str(path))
    assert info.value.option == "system_prompt_file" and problem in str(info.value)
    path.write_bytes(b"x" * (100 * 1024))
    assert len(build(system_prompt_file=str(path)).system_prompt_text or "") == 100 * 1024


def test_a_folder_is_not_a_system_prompt_file(tmp_path: Path) -> None:
    with pytest.raises(OptionError) as info:
        build(system_prompt_file=str(tmp_path))
    assert info.value.option == "system_prompt_file"
    assert "cannot be read" in str(info.value) or "not a regular file" in str(info.value)


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    """Opening a FIFO would block until someone writes (it once froze a server)."""
    fifo = tmp_path / "prompt.fifo"
    os.mkfifo(fifo)
    with pytest.raises(OptionError, match="not a regular file") as info:
        build(system_prompt_file=str(fifo))
    assert info.value.option == "system_prompt_file"


def test_the_key_is_read_from_the_named_variable_when_asked() -> None:
    settings = build(api_key_env="TEAM_LLM_KEY")
    assert settings.read_api_key({"TEAM_LLM_KEY": "k-1"}) == "k-1"
    for environ in ({}, {"TEAM_LLM_KEY": " "}, {"OPENAI_API_KEY": "k-2"}):
        with pytest.raises(ConfigError) as info:
            settings.read_api_key(environ)
        assert "TEAM_LLM_KEY" in str(info.value) and "k-2" not in str(info.value)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_background_exec_must_be_a_boolean(value: object) -> None:
    with pytest.raises(OptionError) as info:
        build(background_exec=value)
    assert info.value.option == "background_exec"
