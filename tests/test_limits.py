"""The generic input checks of :mod:`attn.limits`: one rule each, one message shape."""

from __future__ import annotations

import pytest

from attn.errors import InvalidInput
from attn.limits import (
    MAX_ID_CHARS,
    check_id,
    check_int,
    check_optional_text,
    check_seconds,
    check_text,
    check_unicode,
    json_kind,
)


def test_check_text_keeps_good_text_unchanged() -> None:
    assert check_text(" hi ", "note", max_len=4) == " hi "
    assert check_text("", "prefix", max_len=4, blank_ok=True) == ""
    assert check_optional_text(None, "note", max_len=4) is None
    assert check_optional_text(" ", "note", max_len=4) == " "


@pytest.mark.parametrize(
    ("value", "kwargs", "message"),
    [
        (None, {}, r"note must be a non-blank string, got None"),
        ("  ", {}, r"note must be a non-blank string, got '  '"),
        (7, {"blank_ok": True}, r"note must be a string, got 7"),
        ("x" * 1001, {}, r"note must be at most 1,000 characters, got 1,001"),
        ("ok \ud800", {}, r"note is not valid Unicode \(a lone surrogate at position 3\)"),
    ],
)
def test_check_text_names_the_rule(value: object, kwargs: dict[str, bool], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        check_text(value, "note", max_len=1000, **kwargs)


def test_check_optional_text_refuses_other_types() -> None:
    with pytest.raises(InvalidInput, match="note must be a string or null, got 3"):
        check_optional_text(3, "note", max_len=10)


def test_check_id() -> None:
    assert check_id("k-1", "idempotency key") == "k-1"
    for bad in ("", " ", "a\x00b", "x" * (MAX_ID_CHARS + 1), 5):
        with pytest.raises(InvalidInput, match="idempotency key must be a non-blank string of at"):
            check_id(bad, "idempotency key")


def test_check_int_is_exact_for_huge_integers_and_refuses_bools() -> None:
    assert check_int(1000, "limit", low=1, high=1000) == 1000
    with pytest.raises(InvalidInput, match="from 1 to 1,000, got an integer of about 401 digits"):
        check_int(10**400, "limit", low=1, high=1000)
    for bad in (True, 1.0, "1", 0):
        with pytest.raises(InvalidInput, match="limit must be an integer from 1 to 1,000, got"):
            check_int(bad, "limit", low=1, high=1000)


def test_check_seconds() -> None:
    assert check_seconds(-2, "delay_s") == -2.0
    assert check_seconds(3600, "step_s", min_s=0, max_s=3600) == 3600.0
    with pytest.raises(InvalidInput, match=r"delay_s must be a number of seconds, got nan"):
        check_seconds(float("nan"), "delay_s")
    with pytest.raises(InvalidInput, match=r"seconds from 0 to 3600, got an integer of about"):
        check_seconds(10**400, "step_s", min_s=0, max_s=3600)
    with pytest.raises(InvalidInput, match=r"seconds of at least 1, got 0.5"):
        check_seconds(0.5, "timeout_s", min_s=1)
    with pytest.raises(InvalidInput, match=r"got True"):
        check_seconds(True, "timeout_s")


def test_check_unicode_and_json_kind() -> None:
    assert check_unicode("é", "x") == "é"
    assert [json_kind(v) for v in ({}, [], "", True, None, 1.5)] == [
        "an object",
        "an array",
        "a string",
        "a boolean",
        "null",
        "float",
    ]
