"""The one JSON encoder: compact, UTF-8 kept, and NaN never written."""

from __future__ import annotations

import json
import math

import pytest

from attn.jsontext import dumps, dumps_bytes, dumps_shown

VALUE = {"b": [1, 2.5, None, True], "a": "é ✓", "c": {"z": 1, "y": 2}}


def test_dumps_is_compact_and_reads_back() -> None:
    text = dumps(VALUE)
    assert text == '{"b":[1,2.5,null,true],"a":"é ✓","c":{"z":1,"y":2}}'
    assert json.loads(text) == VALUE
    assert text == json.dumps(VALUE, separators=(",", ":"), ensure_ascii=False)


def test_sorted_and_bytes_variants() -> None:
    assert dumps(VALUE, sort_keys=True) == json.dumps(
        VALUE, separators=(",", ":"), ensure_ascii=False, sort_keys=True
    )
    assert dumps_bytes(VALUE) == dumps(VALUE).encode("utf-8")
    assert dumps_bytes(VALUE, sort_keys=True).startswith(b'{"a":')


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_the_nan_rule(bad: float) -> None:
    for strict in (dumps, dumps_bytes):
        with pytest.raises(ValueError, match="not JSON compliant"):
            strict({"x": [bad]})
    assert dumps_shown({"x": [bad], "y": (bad, 1)}) == '{"x":[null],"y":[null,1]}'


def test_unserializable_values() -> None:
    with pytest.raises(TypeError, match="Object of type object is not JSON serializable"):
        dumps({"x": object()})
    assert dumps_shown({"x": 1j}) == '{"x":"1j"}'
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(RecursionError):
        dumps(loop)
