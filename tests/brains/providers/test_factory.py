"""make_client: the key only from the named environment variable (LLM-13), bounded inputs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from attn.brains.providers import (
    AnthropicMessagesClient,
    OpenAIChatClient,
    TextDelta,
    make_client,
)
from attn.brains.providers.factory import PLACEHOLDER_KEY
from attn.brains.providers.neutral import require_sdk
from attn.errors import InvalidInput
from attn.testing import FakeProvider, Turn
from tests.brains.providers.providerhelp import KEY, collect


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MY_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


async def test_the_key_comes_from_the_named_variable(
    fp: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-this-one")
    client = make_client("anthropic", base_url=fp.anthropic_base_url, api_key_env="MY_KEY")
    assert isinstance(client, AnthropicMessagesClient)
    fp.script(Turn(text="ok"))
    await collect(client)
    await client.aclose()
    assert fp.requests[0].accepted  # the fake accepts only KEY
    assert KEY not in repr(client)


async def test_default_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-1234")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-1234")
    openai_client = make_client("openai")
    anthropic_client = make_client("anthropic")
    assert isinstance(openai_client, OpenAIChatClient)
    assert openai_client.base_url == "https://api.openai.com/v1"
    assert isinstance(anthropic_client, AnthropicMessagesClient)
    await openai_client.aclose()
    await anthropic_client.aclose()


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_llm_13_a_missing_key_names_the_variable(provider: str) -> None:
    with pytest.raises(InvalidInput, match="set the environment variable MY_KEY"):
        make_client(provider, api_key_env="MY_KEY")  # type: ignore[arg-type]


async def test_a_local_openai_compatible_server_needs_no_key() -> None:
    async with FakeProvider() as local:  # takes any key
        client = make_client("openai", base_url=local.openai_base_url, api_key_env="MY_KEY")
        local.script(Turn(text="hi"))
        try:
            events = await collect(client)
        finally:
            await client.aclose()
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "hi"
        assert local.requests[0].headers["authorization"] == f"Bearer {PLACEHOLDER_KEY}"


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ({"provider": "gemini"}, "provider must be"),
        ({"provider": "openai", "api_key_env": "no spaces"}, "api_key_env"),
        ({"provider": "openai", "api_key_env": ""}, "api_key_env"),
        ({"provider": "openai", "base_url": "ftp://x"}, "base_url"),
        ({"provider": "openai", "base_url": "http://"}, "base_url"),
        ({"provider": "openai", "base_url": "http://h:99999/v1"}, "base_url"),
        ({"provider": "openai", "base_url": "x" * 3000}, "base_url"),
        ({"provider": "openai", "base_url": "http://u:secret@h/v1"}, "user name or password"),
        ({"provider": "openai", "base_url": "http://h/v1", "timeout_s": 0}, "timeout_s"),
        ({"provider": "openai", "base_url": "http://h/v1", "timeout_s": 1e9}, "timeout_s"),
    ],
)
def test_bad_settings_are_refused(args: dict[str, object], match: str) -> None:
    with pytest.raises(InvalidInput, match=match) as caught:
        make_client(**args)  # type: ignore[arg-type]
    assert "secret" not in caught.value.message


def test_a_missing_sdk_says_which_extra_to_install() -> None:
    with pytest.raises(InvalidInput, match=r"pip install 'attn\[nosuchsdk\]'"):
        require_sdk("nosuchsdk")


def test_importing_attn_imports_no_sdk() -> None:
    code = (
        "import sys, attn, attn.brains.providers, attn.brains.llm;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('openai', 'anthropic')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_client_must_say_how_it_opens_and_reads_a_stream() -> None:
    """``SDKClient`` is abstract: a provider that leaves out a hook cannot be made."""
    from attn.brains.providers.sdk_client import SDKClient

    class Half(SDKClient):
        provider = "openai"

        def _make(self, api_key: str, timeout_s: float) -> object:
            return object()

    with pytest.raises(TypeError, match="_open"):
        Half(api_key="k")  # type: ignore[abstract]
