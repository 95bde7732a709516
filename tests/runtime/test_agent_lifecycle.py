"""Adding and removing agents: concurrent calls for one name stay consistent."""

from __future__ import annotations

import asyncio

from attn import Focus, MailboxItem, Runtime
from attn.errors import AgentExists, UnknownAgent
from attn.testing import MemoryStore


async def _brain(item: MailboxItem, focus: Focus) -> None:
    return None


async def test_concurrent_adds_and_removes_of_one_name_stay_consistent() -> None:
    async with Runtime(MemoryStore()) as runtime:
        added = removed = 0

        async def add() -> None:
            nonlocal added
            try:
                await runtime.add_agent("x", _brain)
                added += 1
            except AgentExists:
                pass

        async def remove() -> None:
            nonlocal removed
            try:
                await runtime.remove_agent("x")
                removed += 1
            except UnknownAgent:
                pass

        await asyncio.gather(*(add() if i % 2 == 0 else remove() for i in range(100)))
        hosted = runtime.find_agent("x") is not None
        assert added - removed == (1 if hosted else 0)
        # The timekeeper knows exactly the hosted agents: nothing half-added or left behind.
        try:
            runtime.time.agent("x")
            attached = True
        except UnknownAgent:
            attached = False
        assert attached == hosted
