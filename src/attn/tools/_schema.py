"""Tool definitions generated from a function's signature, type hints and Google docstring.

The tool's description is the docstring's text before its first section
(``Args:``, ``Returns:``, ``Raises:``, ``Spec:`` ...); each parameter's
description is its entry under ``Args:``. Types map to JSON Schema: ``str``,
``int``, ``float``, ``bool``, ``list[T]``, ``Literal[...]`` (an ``enum``) and
``TypedDict`` (a closed object). ``X | None`` with the default None makes an
optional parameter whose schema is that of ``X``; bounds, formats and an
advertised ``null`` come from :class:`Param` in ``Annotated[...]`` metadata.
A default other than None is shown as ``default``.

Spec: 000 §21 (tool descriptions in the shape LLM tool lists take).
"""

from __future__ import annotations

import inspect
import re
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from attn.types import JSON

_SIMPLE: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_SECTION = re.compile(
    r"^(Args|Arguments|Returns|Yields|Raises|Spec|Note|Notes|Example|Examples|Attributes):"
)
_ARG = re.compile(r"^(\w+)(?: \([^)]*\))?: ?(.*)$")


@dataclass(frozen=True, slots=True)
class Param:
    """JSON Schema keywords for one parameter: ``Annotated[int, Param(minimum=1)]``.

    Attributes:
        minimum: smallest number allowed (``minimum``).
        maximum: largest number allowed (``maximum``).
        exclusive_minimum: numbers must be larger than this (``exclusiveMinimum``).
        min_length: fewest characters of a string (``minLength``).
        max_length: most characters of a string (``maxLength``).
        min_items: fewest items of an array (``minItems``).
        max_items: most items of an array (``maxItems``).
        format: a JSON Schema format such as ``"date-time"``.
        nullable: whether the schema names ``null`` as a type too (for an
            ``X | None`` parameter where null means something to the model).
        own_check: the tool refuses a value outside the schema itself, with an
            error code of its own (COAL-31's ``invalid_priority``), so
            :meth:`~attn.tools.Toolset.call_tool` leaves it unchecked.
    """

    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    format: str | None = None
    nullable: bool = False
    own_check: bool = False

    def apply(self, schema: JSON) -> None:
        """Add these keywords to ``schema`` (in place).

        Raises:
            TypeError: ``nullable`` on a schema without a single ``type``.
        """
        for key, value in (
            ("exclusiveMinimum", self.exclusive_minimum),
            ("minimum", self.minimum),
            ("maximum", self.maximum),
            ("minLength", self.min_length),
            ("maxLength", self.max_length),
            ("minItems", self.min_items),
            ("maxItems", self.max_items),
            ("format", self.format),
        ):
            if value is not None:
                schema[key] = value
        if self.nullable:
            if not isinstance(schema.get("type"), str):
                raise TypeError(f"nullable needs a schema with one type, got {schema}")
            schema["type"] = [schema["type"], "null"]


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """What a model is told about one tool.

    Attributes:
        name: the tool's name, as the model calls it.
        description: what the tool does, for the model.
        parameters: a JSON Schema object describing the arguments (closed:
            ``additionalProperties`` is false).
        required: the arguments a call must give, in signature order.
        read_only: the tool changes nothing but the agent's own notes (it reads,
            searches or observes, or sends tree mail, which carries the turn's
            read-only stamp): it is offered in read-only turns (seed 002, A2A-19).
            Not shown to the model.
        own_checks: the arguments the tool checks against their schema itself
            (:attr:`Param.own_check`); not shown to the model.
    """

    name: str
    description: str
    parameters: JSON
    required: tuple[str, ...] = field(default=())
    read_only: bool = False
    own_checks: frozenset[str] = frozenset()

    @property
    def argument_names(self) -> frozenset[str]:
        """Every argument the tool takes."""
        return frozenset(self.parameters["properties"])

    def to_dict(self) -> JSON:
        """``{"name", "description", "parameters"}``: the shape OpenAI-style
        ``function`` tools and Anthropic ``input_schema`` take."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


def define_tool(func: Callable[..., Any], *, read_only: bool = False) -> ToolDefinition:
    """The :class:`ToolDefinition` of ``func`` (a method: ``self`` is skipped).

    ``read_only`` marks a tool offered in read-only turns (:attr:`ToolDefinition.read_only`).

    Raises:
        TypeError: a parameter without a type hint or with a type that has no
            JSON Schema here, or an ``Args:`` entry for no parameter.
    """
    description, documented = parse_docstring(inspect.getdoc(func) or "")
    hints = get_type_hints(func, include_extras=True)
    properties: JSON = {}
    required: list[str] = []
    own_checks: set[str] = set()
    for name, param in inspect.signature(func).parameters.items():
        if name == "self":
            continue
        if name not in hints:
            raise TypeError(f"tool {func.__name__}: parameter {name} has no type hint")
        schema = type_schema(hints[name], f"{func.__name__}({name})")
        if any(isinstance(m, Param) and m.own_check for m in get_args(hints[name])[1:]):
            own_checks.add(name)
        if name in documented:
            schema["description"] = documented.pop(name)
        if param.default is inspect.Parameter.empty:
            required.append(name)
        elif param.default is not None:
            schema["default"] = param.default
        properties[name] = schema
    if documented:
        raise TypeError(f"tool {func.__name__} documents no parameter {', '.join(documented)}")
    parameters: JSON = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    return ToolDefinition(
        func.__name__, description, parameters, tuple(required), read_only, frozenset(own_checks)
    )


def type_schema(hint: Any, where: str) -> JSON:
    """The JSON Schema of a type hint.

    Args:
        hint: the hint (``Annotated`` metadata of type :class:`Param` is applied).
        where: what to name in an error, e.g. ``"check_mailbox(limit)"``.

    Raises:
        TypeError: a type with no JSON Schema here.
    """
    origin = get_origin(hint)
    if origin is Annotated:
        base, *metadata = get_args(hint)
        schema = type_schema(base, where)
        for meta in metadata:
            if isinstance(meta, Param):
                meta.apply(schema)
        return schema
    if origin in (Required, NotRequired):
        return type_schema(get_args(hint)[0], where)
    if origin in (Union, types.UnionType):
        options = [arg for arg in get_args(hint) if arg is not type(None)]
        if len(options) == 1:  # X | None: optional, None means "not given"
            return type_schema(options[0], where)
    elif origin is Literal:
        return {"enum": list(get_args(hint))}
    elif origin in (list, tuple) and (origin is list or get_args(hint)[1:] == (...,)):
        return {"type": "array", "items": type_schema(get_args(hint)[0], where)}
    elif hint in _SIMPLE:
        return {"type": _SIMPLE[hint]}
    elif is_typeddict(hint):
        return _object_schema(hint, where)
    raise TypeError(f"{where}: no JSON Schema for the type {hint!r}")


def _object_schema(hint: Any, where: str) -> JSON:
    fields = get_type_hints(hint, include_extras=True)
    # __required_keys__ misses NotRequired under `from __future__ import annotations`.
    required = [
        key
        for key, t in fields.items()
        if get_origin(t) is Required or (get_origin(t) is not NotRequired and hint.__total__)
    ]
    return {
        "type": "object",
        "properties": {key: type_schema(t, f"{where}.{key}") for key, t in fields.items()},
        "required": required,
        "additionalProperties": False,
    }


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """A Google docstring's description and its ``Args:`` entries.

    Args:
        doc: the cleaned docstring (``inspect.getdoc``).

    Returns:
        ``(description, {parameter: description})``: the text before the first
        section, paragraphs kept and lines joined; each entry's lines joined.
    """
    paragraphs: list[list[str]] = [[]]
    args: dict[str, str] = {}
    section = None
    current = None
    for line in doc.splitlines():
        found = _SECTION.match(line)
        if found:
            section = found.group(1)
            continue
        if section is None:
            if line.strip():
                paragraphs[-1].append(line.strip())
            elif paragraphs[-1]:
                paragraphs.append([])
        elif section in ("Args", "Arguments") and line.strip():
            entry = _ARG.match(line.strip()) if len(line) - len(line.lstrip()) <= 4 else None
            if entry:
                current = entry.group(1)
                args[current] = entry.group(2)
            elif current is not None:
                args[current] = f"{args[current]} {line.strip()}".strip()
    return "\n\n".join(" ".join(p) for p in paragraphs if p), args
