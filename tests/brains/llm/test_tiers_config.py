"""The model tiers built from an ``llm`` agent's options (classifier_model, deliberator_model)."""

from __future__ import annotations

import pytest

from attn import AgentConfig, Reply, Runtime
from attn.brains.llm.tiers import LazyClient, build_tiers
from attn.errors import OptionError
from attn.models import MailboxItem
from attn.testing import FakeProvider, FakeToolCall, Turn, eventually

KEY_ENV = "ATTN_TEST_TIERS_CONFIG_KEY"


def test_only_llm_agents_that_name_a_model_get_tiers() -> None:
    assert build_tiers("echo", {"steps": 1}).classifier is None
    plain = build_tiers("llm", {"provider": "openai", "model": "main"})
    assert plain.classifier is None and plain.deliberator is None


def test_tier_models_and_bounds_come_from_the_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)  # the key is read on first use only
    tiers = build_tiers(
        "llm",
        {
            "provider": "anthropic",
            "model": "main",
            "api_key_env": KEY_ENV,
            "classifier_model": "same",
            "classifier_max_tokens": 8,
            "deliberator_model": "thinker",
            "deliberator_max_tokens": 900,
        },
    )
    assert tiers.classifier is not None and tiers.deliberator is not None
    assert (tiers.classifier.model, tiers.classifier.max_tokens) == ("main", 8)
    assert (tiers.deliberator.model, tiers.deliberator.max_tokens) == ("thinker", 900)
    assert tiers.classifier.client is tiers.deliberator.client  # one client, made lazily
    assert isinstance(tiers.classifier.client, LazyClient)


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"classifier_model": ""}, "classifier_model"),
        ({"deliberator_max_tokens": 0}, "deliberator_max_tokens"),
        ({"judge": "x"}, "judge"),
    ],
)
def test_bad_tier_options_name_the_option(options: dict[str, object], option: str) -> None:
    with pytest.raises(OptionError) as caught:
        build_tiers("llm", {"provider": "openai", "model": "m", **options})
    assert caught.value.option == option


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
async def test_configured_tiers_deliberate_over_http_with_the_key_from_the_environment(
    runtime: Runtime, fp: FakeProvider, monkeypatch: pytest.MonkeyPatch, protocol: str
) -> None:
    monkeypatch.setenv(KEY_ENV, "tiers-secret")
    base_url = fp.openai_base_url if protocol == "openai" else fp.anthropic_base_url
    tiers = build_tiers(
        "llm",
        {
            "provider": protocol,
            "model": "main",
            "base_url": base_url,
            "api_key_env": KEY_ENV,
            "deliberator_model": "thinker",
        },
    )
    seen: list[str] = []

    async def brain(item: MailboxItem, focus: object) -> Reply:
        seen.append(item.content)
        return Reply("ok")

    agent = await runtime.add_agent(
        "a", brain, AgentConfig(coalesce_window_ms=0), deliberator=tiers.deliberator, start=False
    )
    tiers.bind(agent)
    await agent.enqueue("a2a_message", {"content": "one"}, priority=2)
    two = await agent.enqueue("a2a_message", {"content": "two"}, priority=2)
    fp.script(
        Turn(
            tool_calls=[
                FakeToolCall("complete_deliberation", {"process_item_id": two, "reasoning": "r"})
            ]
        )
    )
    agent.start()
    await eventually(lambda: len(seen) == 2, what="both items processed")
    (request,) = fp.requests
    assert request.body is not None and request.body["model"] == "thinker"
    auth = request.headers.get("authorization", "") + request.headers.get("x-api-key", "")
    assert "tiers-secret" in auth
    assert seen == ["two", "one"]
    await tiers.aclose()


async def test_a_missing_key_makes_the_judge_continue(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    tiers = build_tiers(
        "llm",
        {"provider": "anthropic", "model": "m", "api_key_env": KEY_ENV, "classifier_model": "j"},
    )
    assert tiers.classifier is not None
    agent = await runtime.add_agent("a", lambda item, focus: None, start=False)  # type: ignore[arg-type, return-value]
    focus = await agent.mailbox.enqueue("a2a_message", {"content": "publish"})
    new = await agent.mailbox.enqueue("a2a_message", {"content": "stop publishing"})
    assert await tiers.classifier.classify(focus, new, [], []) == "continue"
