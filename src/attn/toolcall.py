"""Running a brain-facing tool from an LLM's JSON call: one dispatcher for every tool set.

A tool set is an object whose async methods are tools, each described by a
JSON schema (``{"name", "description", "parameters": {"properties",
"required"}}``). :func:`call_tool` checks the arguments against the schema,
runs the method and turns any :class:`~attn.errors.AttnError` into an
``{"ok": False, ...}`` answer, so a model always gets JSON back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from attn.errors import AttnError, InvalidInput, shown


def _resolve(
    owner: object, schemas: Mapping[str, dict[str, Any]], name: object
) -> tuple[Callable[..., Awaitable[Any]], list[str], set[str]]:
    schema = schemas.get(name) if isinstance(name, str) else None
    if schema is None:
        raise InvalidInput(f"unknown tool {shown(name)}; tools: {', '.join(schemas)}")
    params = schema["parameters"]
    method: Callable[..., Awaitable[Any]] = getattr(owner, schema["name"])
    return method, list(params.get("required", [])), set(params["properties"])


async def call_tool(
    owner: object, schemas: Mapping[str, dict[str, Any]], name: object, arguments: object
) -> tuple[bool, Any]:
    """Run tool ``name`` of ``owner`` with JSON ``arguments``.

    Args:
        owner: the tool set (its methods are the tools).
        schemas: tool name → JSON schema.
        name: the tool the model asked for.
        arguments: the model's arguments (a JSON object, or None for none).

    Returns:
        ``(True, result)`` or ``(False, {"ok": False, "error": code, "message": text})``
        for an unknown tool, unknown or missing arguments, or any AttnError raised.
    """
    try:
        method, required, allowed = _resolve(owner, schemas, name)
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise InvalidInput(
                f"arguments of {name} must be a JSON object, got {type(arguments).__name__}"
            )
        unknown = sorted(set(arguments) - allowed)
        if unknown:
            raise InvalidInput(
                f"{name} has no argument {', '.join(map(repr, unknown))}; "
                f"its arguments: {', '.join(sorted(allowed)) or 'none'}"
            )
        missing = [r for r in required if r not in arguments]
        if missing:
            raise InvalidInput(f"{name} needs the argument {', '.join(map(repr, missing))}")
        return True, await method(**arguments)
    except AttnError as exc:
        return False, {"ok": False, "error": exc.code, "message": exc.message}


__all__ = ["call_tool"]
