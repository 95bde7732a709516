"""Fixtures of the fake provider tests: a provider in the test's loop and the real SDK
clients pointed at it (no retries, so each fault reaches the test as it is)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anthropic
import openai
import pytest

from attn.testing import FakeProvider


@pytest.fixture
async def fp() -> AsyncIterator[FakeProvider]:
    """A started fake provider, closed afterwards."""
    async with FakeProvider() as provider:
        yield provider


@pytest.fixture
async def oai(fp: FakeProvider) -> AsyncIterator[openai.AsyncOpenAI]:
    """The official OpenAI client on ``fp``."""
    client = openai.AsyncOpenAI(base_url=fp.openai_base_url, api_key="k", max_retries=0)
    yield client
    await client.close()


@pytest.fixture
async def ant(fp: FakeProvider) -> AsyncIterator[anthropic.AsyncAnthropic]:
    """The official Anthropic client on ``fp``."""
    client = anthropic.AsyncAnthropic(base_url=fp.anthropic_base_url, api_key="k", max_retries=0)
    yield client
    await client.close()
