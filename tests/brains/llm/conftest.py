"""Fixtures of the LLM brain's tests: the fake provider and the protocol to speak."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from attn.testing import FakeProvider
from tests.brains.llm.loop_kit import KEY_ENV

#: The two provider protocols every acceptance test runs on.
PROTOCOLS = ["openai", "anthropic"]


@pytest.fixture(params=PROTOCOLS)
def protocol(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """``"openai"`` or ``"anthropic"``, with the brain's key variable set to a fake key."""
    monkeypatch.setenv(KEY_ENV, "sk-test-fake-key")
    return str(request.param)


@pytest.fixture
async def fp() -> AsyncIterator[FakeProvider]:
    """A fake provider on loopback, in the test's event loop."""
    async with FakeProvider() as provider:
        yield provider
