"""Helpers of the tool schema fuzz: values a JSON Schema rules out, derived from the schema,
and a minimal value it allows.

:func:`violations` covers the keywords :mod:`attn.tools._schema` generates (``type``,
``enum``, ``minimum``, ``maximum``, ``exclusiveMinimum``, ``minLength``, ``maxLength``,
``items``, closed objects) plus ``minItems`` / ``maxItems`` should a schema ever say
them. ``format`` is an annotation and not fuzzed.
"""

from __future__ import annotations

import math
from typing import Any

from attn.types import JSON

#: One value of each JSON type.
_OF_TYPE: dict[str, Any] = {
    "string": "seven",
    "integer": 7,
    "number": 7.5,
    "boolean": True,
    "null": None,
    "array": ["seven"],
    "object": {"seven": 7},
}
#: A number no tool can mean (and one Python's int never overflows on).
HUGE_INT = 2**70


def kinds(schema: JSON) -> list[str]:
    """The JSON types ``schema`` names (none for an ``enum`` or an untyped schema)."""
    found = schema.get("type", [])
    return [found] if isinstance(found, str) else list(found)


def violations(schema: JSON, *, null_ok: bool = False) -> list[tuple[str, Any]]:
    """``(what, value)`` pairs, each value breaking one rule of ``schema``.

    Args:
        schema: a property's JSON Schema.
        null_ok: null means "not given" here (an optional argument whose default is
            None), so it is no violation.
    """
    if "enum" in schema:
        found: list[tuple[str, Any]] = [("a value outside the enum", "no-such-option")]
        found.append(("a number for an enum", 7))
        if not null_ok:
            found.append(("null for an enum", None))
        return found
    types = kinds(schema)
    found = []
    for kind, value in _OF_TYPE.items():
        if kind in types or (kind == "integer" and "number" in types):
            continue
        if kind == "null" and null_ok:
            continue
        label = "a non-integral float" if kind == "number" and "integer" in types else f"a {kind}"
        found.append((label, value))
    if "number" in types or "integer" in types:
        found += _numbers(schema, integral="number" not in types)
    if "string" in types:
        if "maxLength" in schema:
            found.append(("a string over maxLength", "x" * (schema["maxLength"] + 1)))
        if schema.get("minLength", 0) > 0:
            found.append(("a string under minLength", "x" * (schema["minLength"] - 1)))
    if "array" in types:
        found += _arrays(schema)
    if "object" in types and "properties" in schema:
        found += _objects(schema)
    return found


def _numbers(schema: JSON, *, integral: bool) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = [
        ("NaN", math.nan),
        ("infinity", math.inf),
        ("-infinity", -math.inf),
    ]
    step = 1 if integral else 0.5
    if "minimum" in schema:
        found.append(("a number below minimum", schema["minimum"] - step))
        found.append(("a huge negative int", -HUGE_INT))
    if "exclusiveMinimum" in schema:
        found.append(("a number at exclusiveMinimum", schema["exclusiveMinimum"]))
    if "maximum" in schema:
        found.append(("a number above maximum", schema["maximum"] + step))
        found.append(("a huge int", HUGE_INT))
    return found


def _arrays(schema: JSON) -> list[tuple[str, Any]]:
    items: JSON = schema.get("items", {})
    found = [(f"an item that is {what}", [value]) for what, value in violations(items)]
    if "maxItems" in schema:
        found.append(("an array over maxItems", [sample(items)] * (schema["maxItems"] + 1)))
    if schema.get("minItems", 0) > 0:
        found.append(("an array under minItems", [sample(items)] * (schema["minItems"] - 1)))
    return found


def _objects(schema: JSON) -> list[tuple[str, Any]]:
    base = sample(schema)
    found = [
        (f"an object without its {key!r}", {k: v for k, v in base.items() if k != key})
        for key in schema.get("required", ())
    ]
    if schema.get("additionalProperties") is False:
        found.append(("an object with an extra property", {**base, "zzz": 1}))
    for key, prop in schema["properties"].items():
        found += [
            (f"an object whose {key!r} is {what}", {**base, key: value})
            for what, value in violations(prop)
        ]
    return found


def sample(schema: JSON) -> Any:
    """A small value ``schema`` allows (an object with its required properties only)."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = (kinds(schema) or ["string"])[0]
    if kind == "string":
        return "x" * max(1, schema.get("minLength", 1))
    if kind in ("integer", "number"):
        return max(1, schema.get("minimum", 1), schema.get("exclusiveMinimum", 0) + 1)
    if kind == "array":
        return [sample(schema.get("items", {}))] * schema.get("minItems", 0)
    if kind == "object":
        properties = schema.get("properties", {})
        return {key: sample(properties[key]) for key in schema.get("required", ())}
    return _OF_TYPE[kind]


def extremes(schema: JSON) -> list[tuple[str, Any]]:
    """Values ``schema`` allows that a tool must still not crash on: a huge int or
    float where no maximum bounds a number."""
    types = kinds(schema)
    if "maximum" in schema or not {"integer", "number"} & set(types):
        return []
    return [("a huge int (no maximum)", HUGE_INT)] + (
        [("a huge float (no maximum)", 1e308)] if "number" in types else []
    )
