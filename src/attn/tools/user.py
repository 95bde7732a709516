"""User tools: plain Python functions offered to the model, registered with a decorator.

Example::

    toolset = Tools()

    @toolset.tool
    def add(a: int, b: int) -> int:
        \"\"\"Add two integers.

        Args:
            a: The first.
            b: The second.
        \"\"\"
        return a + b

    await runtime.add_agent("alice", brain, tools=[toolset])

The definition comes from the signature, type hints and Google docstring,
as for :func:`attn.tools.tool` (see :mod:`attn.tools._schema`). A call's
argument values are checked against that schema before the function runs
(by :meth:`~attn.tools.Toolset.call_tool`, as for every toolset);
a function returning something other than a dict answers ``{"result":
value}``. Through :meth:`~attn.tools.Toolset.call` a bad argument answers
``{"ok": false, "error": "invalid_input", ...}`` and anything the function
raises ``{"ok": false, "error": "tool_failed", ...}`` (an
:class:`~attn.errors.AttnError` it raises keeps its own code): never an
exception into the tool loop.

A coroutine function is awaited; a plain function runs on the event loop
(keep it quick, or make it ``async``).

Spec: issue 12 point 5; acceptance LLM-40.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar, overload

from attn.errors import AttnError, InvalidInput, ToolFailed, shown
from attn.jsontext import dumps
from attn.tools._schema import ToolDefinition, define_tool
from attn.tools._toolset import Toolset
from attn.types import JSON

_F = TypeVar("_F", bound=Callable[..., Any])
#: A tool name every provider accepts.
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: Most characters of an exception's text shown to the model.
_MAX_ERROR_CHARS = 1_000


@dataclass(frozen=True, slots=True)
class _Registered:
    definition: ToolDefinition
    func: Callable[..., Any]


class Tools(Toolset):
    """A toolset of plain (sync or async) functions, in registration order."""

    def __init__(self) -> None:
        self._tools: dict[str, _Registered] = {}
        self._definitions: tuple[ToolDefinition, ...] = ()

    @overload
    def tool(self, func: _F, /) -> _F: ...

    @overload
    def tool(
        self, func: None = None, /, *, name: str | None = None, read_only: bool = False
    ) -> Callable[[_F], _F]: ...

    def tool(
        self, func: _F | None = None, /, *, name: str | None = None, read_only: bool = False
    ) -> _F | Callable[[_F], _F]:
        """Register ``func`` as a tool; use as ``@tools.tool`` or ``@tools.tool(name="x")``.

        Args:
            func: the function; it is returned unchanged.
            name: the tool's name (default: the function's), 1-64 letters,
                digits, ``_`` or ``-``.
            read_only: the tool only reads or observes (it changes nothing
                outside the conversation): it is offered in read-only turns too,
                which offer no other user tool (seed 002, A2A-19).

        Raises:
            TypeError: not a function, a ``*args``, ``**kwargs`` or
                positional-only parameter, or a
                parameter the schema cannot describe (see :func:`define_tool`).
            InvalidInput: a bad name or ``read_only``, or a tool of that name is
                already registered.
        """
        if not isinstance(read_only, bool):
            raise InvalidInput(f"read_only must be true or false, got {shown(read_only)}")

        def register(f: _F) -> _F:
            self._register(f, name, read_only)
            return f

        return register(func) if func is not None else register

    def _register(self, func: Callable[..., Any], name: str | None, read_only: bool) -> None:
        if not inspect.isfunction(func):
            raise TypeError(f"a tool must be a function, got {type(func).__name__}")
        params = inspect.signature(func).parameters.values()
        by_position = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD,
                       inspect.Parameter.POSITIONAL_ONLY)  # fmt: skip
        loose = [p.name for p in params if p.kind in by_position]
        if loose:
            raise TypeError(
                f"tool {func.__name__}: every parameter must be passable by name"
                f" (not *args, **kwargs or positional-only): {', '.join(loose)}"
            )
        definition = define_tool(func, read_only=read_only)
        if name is not None:
            definition = replace(definition, name=name)
        if not isinstance(definition.name, str) or not _NAME.match(definition.name):
            raise InvalidInput(
                f"tool name must be 1-64 letters, digits, '_' or '-', got {shown(definition.name)}"
            )
        if definition.name in self._tools:
            raise InvalidInput(f"a tool named {definition.name!r} is already registered")
        self._tools[definition.name] = _Registered(definition, func)
        self._definitions = (*self._definitions, definition)

    def definitions(self) -> tuple[ToolDefinition, ...]:
        """The registered tools, in registration order."""
        return self._definitions

    async def run(self, definition: ToolDefinition, arguments: JSON) -> JSON:
        """Run the function on a checked call (:meth:`call_tool` checked the values
        against the schema), wrap its result.

        Raises:
            ToolFailed: the function raised (its text is the message), or its
                result is not JSON.
            AttnError: one the function raised, as it is.
        """
        registered = self._tools[definition.name]
        try:
            result = registered.func(**arguments)
            if inspect.isawaitable(result):
                result = await result
        except AttnError:
            raise
        except Exception as exc:
            text = f"tool {definition.name} failed: {type(exc).__name__}: {exc}"
            raise ToolFailed(_cut(text)) from exc
        answer: JSON = result if isinstance(result, dict) else {"result": result}
        try:
            dumps(answer)
        except (TypeError, ValueError, RecursionError) as exc:
            raise ToolFailed(
                _cut(f"tool {definition.name} returned what JSON cannot hold: {exc}")
            ) from exc
        return answer


def _cut(text: str) -> str:
    return text if len(text) <= _MAX_ERROR_CHARS else text[: _MAX_ERROR_CHARS - 1] + "…"


__all__ = ["Tools"]
