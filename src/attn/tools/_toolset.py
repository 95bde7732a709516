"""The toolset interface: list tool definitions, call a tool by name with JSON arguments.

:meth:`Toolset.call_tool` checks a call against the tool's definition (a
known tool, a JSON object of known arguments, every required one given,
each value within its advertised JSON Schema: :mod:`attn.tools._arguments`)
before :meth:`Toolset.run` sees it, and raises on bad input, changing
nothing. :meth:`Toolset.call` is the edge an LLM tool loop uses: it always
answers a JSON-ready dict, ``{"ok": true, ...}`` or ``{"ok": false, "error":
code, "message": text}``.

What a schema rules out is refused here, for every toolset, with one kind of
message (``"SendMessage(to) must be a string, got 7"``): a tool cannot accept
a value it does not advertise, and a model gets the same answer from each.
A tool's own checks run after, for what a schema cannot say (an id that
exists, a blank text, a rule across arguments), in its own words; its
Python callers, which bypass this, still meet them.

Spec: 000 §21 ("Agent Mailbox Management Tools"); DESIGN.md invariant 10.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from attn.errors import AttnError, InvalidInput, SendRefused, ToolFailed, shown
from attn.tools._arguments import checked_arguments
from attn.tools._schema import ToolDefinition
from attn.types import JSON


class Toolset(ABC):
    """A set of tools a brain can offer a model."""

    @abstractmethod
    def definitions(self) -> tuple[ToolDefinition, ...]:
        """Every tool of the set, in a stable order."""

    @abstractmethod
    async def run(self, definition: ToolDefinition, arguments: JSON) -> JSON:
        """Run a checked call (use :meth:`call_tool`, which checks it first).

        Args:
            definition: the tool called, one of :meth:`definitions`.
            arguments: known argument names only, every required one present,
                each value within its schema (integral floats of an integer made ints).

        Returns:
            The tool's JSON-ready result.

        Raises:
            AttnError: the tool refused its arguments (having changed nothing)
                or failed.
        """

    def names(self) -> tuple[str, ...]:
        """Every tool's name, in :meth:`definitions` order."""
        return tuple(d.name for d in self.definitions())

    def schemas(self) -> list[JSON]:
        """Every tool as ``{"name", "description", "parameters"}``, for an LLM tool list."""
        return [d.to_dict() for d in self.definitions()]

    def definition(self, name: object) -> ToolDefinition:
        """The tool called ``name``.

        Raises:
            InvalidInput: no tool of this set has that name.
        """
        for definition in self.definitions():
            if definition.name == name:
                return definition
        raise InvalidInput(f"unknown tool {shown(name)}; tools: {', '.join(self.names())}")

    async def call_tool(self, name: object, arguments: object = None) -> JSON:
        """Run the tool ``name`` with the model's JSON ``arguments``.

        Args:
            name: the tool the model asked for.
            arguments: a JSON object of arguments; None for none.

        Returns:
            The tool's JSON-ready result.

        Raises:
            InvalidInput: an unknown tool, arguments that are not an object, an
                unknown argument, a missing required one or a value its schema
                rules out (nothing is run).
            AttnError: whatever the tool raised.
        """
        definition = self.definition(name)
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise InvalidInput(
                f"arguments of {definition.name} must be a JSON object, "
                f"got {type(arguments).__name__}"
            )
        allowed = definition.argument_names
        unknown = sorted(set(arguments) - allowed)
        if unknown:
            raise InvalidInput(
                f"{definition.name} has no argument {', '.join(map(repr, unknown))}; "
                f"its arguments: {', '.join(sorted(allowed)) or 'none'}"
            )
        missing = [r for r in definition.required if r not in arguments]
        if missing:
            raise InvalidInput(
                f"{definition.name} needs the argument {', '.join(map(repr, missing))}"
            )
        return await self.run(definition, checked_arguments(definition, arguments))

    async def call(self, name: object, arguments: object = None) -> JSON:
        """Run a tool as an LLM tool loop does: the answer is always JSON.

        Args:
            name: the tool the model asked for.
            arguments: its JSON object of arguments; None for none.

        Returns:
            ``{"ok": True, ...the tool's result}``, or ``{"ok": False, "error":
            code, "message": text}`` for an unknown tool, unknown or missing
            arguments, or any :class:`~attn.errors.AttnError` the tool raised
            (a refused send adds its ``"outcome": "refused"`` and ``"reason"``,
            A2A-06); any other exception answers ``"error": "tool_failed"``
            (LLM-40).
        """
        try:
            result = await self.call_tool(name, arguments)
        except SendRefused as exc:
            return {
                "ok": False,
                "error": exc.code,
                "message": exc.message,
                "outcome": exc.outcome,
                "reason": exc.reason,
            }
        except AttnError as exc:
            return {"ok": False, "error": exc.code, "message": exc.message}
        except Exception as exc:
            text = f"tool {shown(name)} failed: {type(exc).__name__}: {exc}"
            failed = ToolFailed(text if len(text) <= 1000 else text[:999] + "…")
            return {"ok": False, "error": failed.code, "message": failed.message}
        return {"ok": True, **result}


class CombinedToolset(Toolset):
    """Several toolsets offered as one; a call goes to the set that has the tool.

    Args:
        toolsets: the sets joined, their tools listed in this order.

    Raises:
        InvalidInput: two of the sets have a tool of the same name.
    """

    def __init__(self, *toolsets: Toolset) -> None:
        self.toolsets = toolsets
        self._owners: dict[str, Toolset] = {}
        for toolset in toolsets:
            for name in toolset.names():
                if name in self._owners:
                    raise InvalidInput(
                        f"tool {name!r} is in both {type(self._owners[name]).__name__} "
                        f"and {type(toolset).__name__}"
                    )
                self._owners[name] = toolset
        self._definitions = tuple(d for t in toolsets for d in t.definitions())

    def definitions(self) -> tuple[ToolDefinition, ...]:
        """The tools of every joined set, in order."""
        return self._definitions

    async def run(self, definition: ToolDefinition, arguments: JSON) -> JSON:
        """Run the call in the set that has the tool."""
        return await self._owners[definition.name].run(definition, arguments)


def offered_subset(
    toolset: str, everything: tuple[ToolDefinition, ...], only: object
) -> tuple[ToolDefinition, ...]:
    """The definitions a toolset offers: all of them, or those named in ``only``.

    Raises:
        InvalidInput: ``only`` names a tool ``toolset`` does not have.
    """
    if only is None:
        return everything
    wanted = set(only) if isinstance(only, list | tuple | set | frozenset) else {only}
    unknown = sorted(map(str, wanted - {d.name for d in everything}))
    if unknown:
        raise InvalidInput(f"{toolset} has no tool {', '.join(map(repr, unknown))}")
    return tuple(d for d in everything if d.name in wanted)
