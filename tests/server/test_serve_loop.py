"""The event loop `attn serve` runs on: uvloop where installed, the standard one on request."""

from __future__ import annotations

import asyncio

import pytest

from attn.server.serve import fast_loop_factory


def test_uvloop_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    uvloop = pytest.importorskip("uvloop", reason="uvloop is not installed on this platform")
    monkeypatch.delenv("ATTN_EVENT_LOOP", raising=False)
    factory = fast_loop_factory()
    assert factory is uvloop.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        assert isinstance(runner.get_loop(), uvloop.Loop)


@pytest.mark.parametrize("value", ["asyncio", " AsyncIO "])
def test_attn_event_loop_asyncio_picks_the_standard_loop(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("ATTN_EVENT_LOOP", value)
    assert fast_loop_factory() is None
