"""A fake provider and a client of it for each protocol.

``client`` is parametrized over both protocols, so a test that takes it runs
once against OpenAI Chat Completions and once against Anthropic Messages,
each through its official SDK and real loopback HTTP.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from attn.brains.providers import ModelClient
from attn.testing import FakeProvider
from tests.brains.providers.providerhelp import KEY, make


@pytest.fixture
async def fp() -> AsyncIterator[FakeProvider]:
    async with FakeProvider(api_key=KEY) as provider:
        yield provider


@pytest.fixture(params=["openai", "anthropic"])
async def client(request: pytest.FixtureRequest, fp: FakeProvider) -> AsyncIterator[ModelClient]:
    model_client = make(request.param, fp)
    yield model_client
    await model_client.aclose()
