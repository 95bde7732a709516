"""LLM-11: the retry policy: bounded tries, deterministic backoff, retry-after, the backstop."""

from __future__ import annotations

import dataclasses

import pytest

from attn.brains.providers import RetryPolicy
from attn.errors import InvalidInput, ModelError, ModelStreamError

RETRYABLE = ModelError("503", status=503, retryable=True)


def test_llm_11_backoff_doubles_up_to_the_cap_and_is_deterministic() -> None:
    policy = RetryPolicy(max_tries=10, base_s=1.0, cap_s=5.0)
    delays = [policy.delay_for(RETRYABLE, tries) for tries in range(1, 10)]
    assert delays == [1.0, 2.0, 4.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0]
    assert delays == [policy.delay_for(RETRYABLE, tries) for tries in range(1, 10)]


def test_llm_11_at_most_four_tries_by_default() -> None:
    policy = RetryPolicy()
    assert policy.max_tries == 4
    assert [policy.delay_for(RETRYABLE, tries) is not None for tries in (1, 2, 3, 4)] == [
        True,
        True,
        True,
        False,
    ]


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_llm_11_a_refusal_is_not_retried(status: int) -> None:
    assert RetryPolicy().delay_for(ModelError("no", status=status), 1) is None


def test_llm_11_a_cut_stream_is_retried() -> None:
    assert RetryPolicy(base_s=2.0).delay_for(ModelStreamError("cut"), 1) == 2.0


def test_llm_11_retry_after_replaces_the_backoff_even_past_the_cap() -> None:
    policy = RetryPolicy(base_s=1.0, cap_s=4.0)
    assert policy.delay_for(ModelError(status=429, retryable=True, retry_after_s=0.5), 3) == 0.5
    assert policy.delay_for(ModelError(status=429, retryable=True, retry_after_s=20.0), 1) == 20.0


def test_llm_11_never_waits_past_the_backstop() -> None:
    policy = RetryPolicy(base_s=1.0, cap_s=30.0)
    assert policy.delay_for(RETRYABLE, 3, remaining_s=4.5) == 4.0
    assert policy.delay_for(RETRYABLE, 3, remaining_s=4.0) is None
    late = ModelError(status=429, retryable=True, retry_after_s=60.0)
    assert policy.delay_for(late, 1, remaining_s=59.0) is None


@pytest.mark.parametrize(
    "fields",
    [
        {"max_tries": 0},
        {"max_tries": 21},
        {"max_tries": True},
        {"base_s": -1.0},
        {"base_s": float("nan")},
        {"cap_s": 3601.0},
        {"base_s": 10.0, "cap_s": 5.0},
    ],
)
def test_a_bad_policy_is_refused(fields: dict[str, object]) -> None:
    with pytest.raises(InvalidInput):
        RetryPolicy(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("tries", "remaining"), [(0, None), (-1, None), (1, float("nan")), (1, float("inf"))]
)
def test_bad_arguments_are_refused(tries: int, remaining: float | None) -> None:
    with pytest.raises(InvalidInput):
        RetryPolicy().delay_for(RETRYABLE, tries, remaining)


def test_a_huge_try_count_does_not_overflow() -> None:
    policy = RetryPolicy(max_tries=20, cap_s=7.0)
    assert policy.backoff_s(2**31) == 7.0
    assert dataclasses.replace(policy, cap_s=8.0).cap_s == 8.0
