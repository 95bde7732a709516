"""A toolset whose tools are its own coroutine methods, marked with :func:`tool`.

Each marked method is one tool: its name is the tool's name, and its
definition is generated when the class is created, from the signature, the
type hints and the Google docstring (see :mod:`attn.tools._schema`). The
methods stay plain coroutines for Python callers; :meth:`Toolset.call` is
the JSON edge.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, TypeVar, overload

from attn.tools._schema import ToolDefinition, define_tool
from attn.tools._toolset import Toolset
from attn.types import JSON

_Method = TypeVar("_Method", bound=Callable[..., Awaitable[Any]])
_MARK = "__attn_tool__"
_READ_ONLY = "__attn_read_only__"


@overload
def tool(method: _Method, /) -> _Method: ...


@overload
def tool(*, read_only: bool = False) -> Callable[[_Method], _Method]: ...


def tool(
    method: _Method | None = None, /, *, read_only: bool = False
) -> _Method | Callable[[_Method], _Method]:
    """Mark a coroutine method of a :class:`FunctionToolset` subclass as a tool:
    ``@tool``, or ``@tool(read_only=True)`` for a tool offered in read-only turns
    (:attr:`~attn.tools.ToolDefinition.read_only`; seed 002, A2A-19)."""

    def mark(m: _Method) -> _Method:
        setattr(m, _MARK, True)
        setattr(m, _READ_ONLY, read_only)
        return m

    return mark(method) if method is not None else mark


class FunctionToolset(Toolset):
    """A toolset of the subclass's :func:`tool` methods, in definition order.

    A subclass whose tools return something other than a JSON object
    overrides :meth:`to_json`.
    """

    _definitions: ClassVar[tuple[ToolDefinition, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = [
            define_tool(f, read_only=getattr(f, _READ_ONLY, False))
            for f in vars(cls).values()
            if getattr(f, _MARK, False)
        ]
        inherited = [d for d in cls._definitions if d.name not in {o.name for o in own}]
        cls._definitions = (*inherited, *own)

    @classmethod
    def tool_definitions(cls) -> tuple[ToolDefinition, ...]:
        """The class's tools, without an instance (for docs and tests)."""
        return cls._definitions

    def definitions(self) -> tuple[ToolDefinition, ...]:
        """The class's tools."""
        return self._definitions

    async def run(self, definition: ToolDefinition, arguments: JSON) -> JSON:
        """Await the method named ``definition.name`` with ``arguments``."""
        method: Callable[..., Awaitable[Any]] = getattr(self, definition.name)
        return self.to_json(definition.name, await method(**arguments))

    def to_json(self, name: str, result: Any) -> JSON:
        """The JSON object answered for ``result`` of tool ``name``.

        Raises:
            TypeError: ``result`` is not a dict (override this for such tools).
        """
        if not isinstance(result, dict):
            raise TypeError(f"tool {name} returned a {type(result).__name__}, not a JSON object")
        return result
