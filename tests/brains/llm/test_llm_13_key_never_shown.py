"""LLM-13: the API key's value never appears in the settings' repr, in errors, or in
``attn config check`` output; the settings hold only the variable's name."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from attn.brains import BRAINS
from attn.brains.llm.settings import LLMSettings
from attn.cli.main import app
from attn.errors import AttnError, OptionError

SECRET = "sk-live-9f8e7d6c5b4a39281706"


class SettingsOnlyBrain:
    """Stands in for the LLM brain in ``BRAINS``: it builds its settings and nothing else."""

    def __init__(self, **options: Any) -> None:
        self.settings = LLMSettings.from_options(options)


@pytest.fixture
def key_in_env(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("TEAM_LLM_KEY", SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setitem(BRAINS, "llm", SettingsOnlyBrain)  # type: ignore[arg-type]
    return SECRET


def test_the_settings_hold_the_name_not_the_key(key_in_env: str) -> None:
    settings = LLMSettings(provider="openai", model="m", api_key_env="TEAM_LLM_KEY")
    assert settings.read_api_key() == key_in_env
    for shown in (repr(settings), str(settings), str(dataclasses.asdict(settings))):
        assert key_in_env not in shown and "TEAM_LLM_KEY" in shown
    assert key_in_env not in repr(LLMSettings(provider="openai", model="m"))


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("api_key_env", SECRET),
        ("api_key_env", SECRET.upper().replace("-", "_") + "!"),
        ("api_key", SECRET),
        ("apikey", SECRET),
        ("base_url", f"https://user:{SECRET}@llm.example.test/v1"),
        ("base_url", f"ftp://llm.example.test/v1?key={SECRET}"),
        ("base_url", f"https://llm.example.test/v1 {SECRET}"),
    ],
)
def test_no_error_shows_a_key_given_in_the_wrong_place(option: str, value: str) -> None:
    with pytest.raises(OptionError) as info:
        LLMSettings.from_options({"provider": "openai", "model": "m", option: value})
    assert info.value.option == option
    secret = SECRET.upper().replace("-", "_") if option == "api_key_env" else SECRET
    for text in (str(info.value), repr(info.value), info.value.message):
        assert SECRET not in text and secret not in text


def test_a_missing_key_names_the_variable_only(key_in_env: str) -> None:
    settings = LLMSettings(provider="anthropic", model="claude")
    with pytest.raises(AttnError) as info:
        settings.read_api_key({"OTHER": key_in_env})
    assert "ANTHROPIC_API_KEY" in str(info.value) and key_in_env not in str(info.value)


def check(runner: CliRunner, options: str, *args: str) -> Any:
    text = f"[[agents]]\nname = 'alice'\nbrain = 'llm'\noptions = {{ {options} }}\n"
    Path("team.toml").write_text(text, encoding="utf-8")
    return runner.invoke(app, ["config", "check", "team.toml", *args])


@pytest.mark.parametrize(
    "options",
    [
        "provider = 'openai', model = 'm', api_key_env = 'TEAM_LLM_KEY'",
        f"provider = 'openai', model = 'm', api_key_env = '{SECRET}'",
        f"provider = 'openai', model = 'm', api_key = '{SECRET}'",
        f"provider = 'openai', model = 'm', base_url = 'https://u:{SECRET}@h.test'",
    ],
)
def test_config_check_never_shows_the_key(runner: CliRunner, key_in_env: str, options: str) -> None:
    ok = "TEAM_LLM_KEY" in options
    for args in ((), ("--json",)):
        result = check(runner, options, *args)
        assert result.exit_code == (0 if ok else 1), result.output
        assert key_in_env not in result.output
    if not ok:
        problems = json.loads(check(runner, options, "--json").stdout)["problems"]
        assert len(problems) == 1 and key_in_env not in json.dumps(problems)
        named = options.rsplit(",", 1)[1].split("=")[0].strip()
        assert named in json.dumps(problems)
