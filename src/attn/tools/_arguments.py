"""A model's argument values checked against the JSON Schema a tool definition advertises.

Covers what :mod:`attn.tools._schema` generates: ``type`` (one or a list),
``enum``, ``items``, ``minItems`` and ``maxItems``, closed objects
(``properties``, ``required``, ``additionalProperties``), ``minimum``,
``maximum``, ``exclusiveMinimum``, ``minLength`` and ``maxLength``;
``format`` is an annotation and not checked. An integral float (``3.0``)
counts as an integer, as JSON Schema says, and is passed on as an ``int``.
:func:`checked_arguments` checks a whole call (:meth:`Toolset.call_tool`
runs it for every toolset).

Spec: DESIGN.md invariant 10 (bad input gets a clear error); acceptance LLM-40.
"""

from __future__ import annotations

import math
from typing import Any

from attn.errors import InvalidInput, shown
from attn.tools._schema import ToolDefinition
from attn.types import JSON

_KIND = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
    "array": "an array",
    "object": "an object",
}


def checked_arguments(definition: ToolDefinition, arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` (known names only) with each value checked against its schema.

    An explicit null for an optional argument that advertises no default (a
    Python default of None) means "not given" and is passed on as None. An
    argument of :attr:`~ToolDefinition.own_checks` is passed on as it is.

    Args:
        definition: the tool called.
        arguments: the model's arguments, by name.

    Raises:
        InvalidInput: the first value that breaks its schema, naming
            ``tool(argument)`` and the rule.
    """
    properties: JSON = definition.parameters["properties"]
    return {
        key: value
        if key in definition.own_checks
        or (value is None and key not in definition.required and "default" not in properties[key])
        else checked(properties[key], value, f"{definition.name}({key})")
        for key, value in arguments.items()
    }


def checked(schema: JSON, value: Any, where: str) -> Any:
    """``value`` if it keeps ``schema`` (integral floats of an integer schema made ints).

    Args:
        schema: the JSON Schema of the value.
        value: what the model sent (decoded JSON).
        where: the value's name in a refusal, e.g. ``"add(a)"``.

    Raises:
        InvalidInput: the first rule ``value`` breaks, naming ``where``.
    """
    if "enum" in schema:
        if not any(_same(value, option) for option in schema["enum"]):
            options = ", ".join(shown(o) for o in schema["enum"])
            raise InvalidInput(f"{where} must be one of {options}, got {shown(value)}")
        return value
    kinds = schema.get("type")
    if kinds is None:
        return value
    for kind in [kinds] if isinstance(kinds, str) else kinds:
        ok, kept = _as_kind(kind, value)
        if ok:
            return _within(schema, kind, kept, where)
    wanted = " or ".join(_KIND.get(k, k) for k in ([kinds] if isinstance(kinds, str) else kinds))
    raise InvalidInput(f"{where} must be {wanted}, got {shown(value)}")


def _same(value: Any, option: Any) -> bool:
    # True == 1 in Python; in JSON they differ.
    return type(value) is type(option) and value == option


def _as_kind(kind: str, value: Any) -> tuple[bool, Any]:
    if kind == "string":
        return isinstance(value, str), value
    if kind == "boolean":
        return isinstance(value, bool), value
    if kind == "null":
        return value is None, value
    if kind == "array":
        return isinstance(value, list), value
    if kind == "object":
        return isinstance(value, dict), value
    if isinstance(value, bool):
        return False, value
    if kind == "integer":
        if isinstance(value, int):
            return True, value
        if isinstance(value, float) and value.is_integer():
            return True, int(value)
        return False, value
    if kind == "number":
        number = isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))
        return number, value
    return False, value


def _within(schema: JSON, kind: str, value: Any, where: str) -> Any:
    if kind in ("integer", "number"):
        if "minimum" in schema and value < schema["minimum"]:
            raise InvalidInput(f"{where} must be at least {schema['minimum']}, got {shown(value)}")
        if "maximum" in schema and value > schema["maximum"]:
            raise InvalidInput(f"{where} must be at most {schema['maximum']}, got {shown(value)}")
        low = schema.get("exclusiveMinimum")
        if low is not None and value <= low:
            raise InvalidInput(f"{where} must be more than {low}, got {shown(value)}")
    elif kind == "string":
        if len(value) < schema.get("minLength", 0):
            raise InvalidInput(
                f"{where} must be at least {_chars(schema['minLength'])}, got {len(value)}"
            )
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            raise InvalidInput(
                f"{where} must be at most {_chars(schema['maxLength'])}, got {len(value):,}"
            )
    elif kind == "array":
        if len(value) < schema.get("minItems", 0):
            raise InvalidInput(
                f"{where} must have at least {_items(schema['minItems'])}, got {len(value)}"
            )
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            raise InvalidInput(
                f"{where} must have at most {_items(schema['maxItems'])}, got {len(value)}"
            )
        if "items" in schema:
            return [checked(schema["items"], v, f"{where}[{i}]") for i, v in enumerate(value)]
    elif kind == "object" and "properties" in schema:
        return _object(schema, value, where)
    return value


def _items(count: int) -> str:
    return "1 item" if count == 1 else f"{count:,} items"


def _chars(count: int) -> str:
    return "1 character" if count == 1 else f"{count:,} characters"


def _object(schema: JSON, value: dict[str, Any], where: str) -> dict[str, Any]:
    properties: JSON = schema["properties"]
    if schema.get("additionalProperties") is False:
        unknown = sorted(set(value) - set(properties))
        if unknown:
            raise InvalidInput(f"{where} has no field {', '.join(map(shown, unknown))}")
    missing = [name for name in schema.get("required", ()) if name not in value]
    if missing:
        raise InvalidInput(f"{where} needs the field {', '.join(map(repr, missing))}")
    return {
        name: checked(properties[name], v, f"{where}.{name}") if name in properties else v
        for name, v in value.items()
    }
