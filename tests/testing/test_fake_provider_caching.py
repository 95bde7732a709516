"""The fake provider's Anthropic prompt cache: reads need the same bytes before a breakpoint,
found at most 20 blocks back, and the markers themselves do not count."""

from __future__ import annotations

from typing import Any

from attn.testing.fake_provider.caching import LOOKBACK_BLOCKS, PromptCache

MARK = {"type": "ephemeral"}


def text(t: str, marked: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": t}
    if marked:
        block["cache_control"] = MARK
    return block


def body(blocks: list[dict[str, Any]], system: Any = "sys") -> dict[str, Any]:
    return {"system": system, "messages": [{"role": "user", "content": blocks}]}


def test_a_request_without_breakpoints_neither_reads_nor_writes() -> None:
    cache = PromptCache()
    assert cache.usage(body([text("a")])) == (0, 0)
    assert cache.usage(body([text("a")])) == (0, 0)


def test_the_same_marked_prefix_is_read_the_second_time() -> None:
    cache = PromptCache()
    written, read = cache.usage(body([text("a" * 400, marked=True)]))
    assert written > 0 and read == 0
    assert cache.usage(body([text("a" * 400, marked=True)])) == (0, written)


def test_a_prefix_that_differs_in_one_byte_is_a_miss() -> None:
    cache = PromptCache()
    cache.usage(body([text("a" * 400, marked=True)]))
    assert cache.usage(body([text("a" * 399 + "b", marked=True)]))[1] == 0
    assert cache.usage(body([text("a" * 400, marked=True)], system="other"))[1] == 0


def test_a_breakpoint_finds_an_earlier_prefix_up_to_twenty_blocks_back() -> None:
    cache = PromptCache()
    first = [text("a" * 400, marked=True)]
    written, _ = cache.usage(body(first))
    near = (
        [text("a" * 400)] + [text(f"n{i}") for i in range(LOOKBACK_BLOCKS - 1)] + [text("z", True)]
    )
    assert cache.usage(body(near))[1] == written
    far = (
        [text("a" * 400)] + [text(f"f{i}") for i in range(LOOKBACK_BLOCKS + 1)] + [text("z", True)]
    )
    assert cache.usage(body(far))[1] == 0
