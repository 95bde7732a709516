"""Helpers of the provider tests: a request, a key to look for, a client per protocol."""

from __future__ import annotations

from attn.brains.llm.conversation import user
from attn.brains.providers import (
    AnthropicMessagesClient,
    ModelClient,
    ModelEvent,
    ModelRequest,
    OpenAIChatClient,
    ToolSpec,
)
from attn.testing import FakeProvider

#: A recognisable key: a test fails if it shows up anywhere it must not (LLM-13).
KEY = "sk-test-CANARY-7f3a9e51"

TOOLS = [ToolSpec("search", "Search the notes.", {"type": "object", "properties": {}})]


def request(**fields: object) -> ModelRequest:
    """A small valid request; ``fields`` override its parts."""
    base: dict[str, object] = {
        "model": "fake-model",
        "system": "You are Ada.",
        "messages": [user("hello")],
        "tools": TOOLS,
    }
    return ModelRequest(**{**base, **fields})  # type: ignore[arg-type]


async def collect(client: ModelClient, req: ModelRequest | None = None) -> list[ModelEvent]:
    """Every event of one turn."""
    return [event async for event in client.stream(req or request())]


def make(protocol: str, fp: FakeProvider, key: str = KEY) -> ModelClient:
    if protocol == "openai":
        return OpenAIChatClient(api_key=key, base_url=fp.openai_base_url)
    return AnthropicMessagesClient(api_key=key, base_url=fp.anthropic_base_url)
