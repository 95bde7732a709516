"""Read-only turns: only the tools marked ``read_only`` while the turn reads Plan mail.

A retained agent's turn that reads mail sent under a read-only (Plan) session
runs read-only (seed 002, A2A-19). It is offered only the tools whose
definition says :attr:`~attn.tools.ToolDefinition.read_only`: looking at the
mailbox and its own working notes, searching memory, recalling channels,
observing the spawn tree, waiting for a child's result, and ``SendMessage``
(the mail it sends carries the stamp on). A user tool is offered only when it
was registered with ``read_only=True``.

A turn can also become read-only while it runs (stamped mail steered into it
at a safe boundary): the model was already shown every tool, so a call to one
that is not read-only is refused from then on, and runs nothing.

Spec: seed 002 (Plan stamps, "Wakes use current session permissions and sticky
Plan state"); acceptance A2A-19.
"""

from __future__ import annotations

from collections.abc import Callable

from attn.errors import InvalidInput, shown
from attn.tools._schema import ToolDefinition
from attn.tools._toolset import Toolset
from attn.types import JSON


def _always() -> bool:
    return True


class ReadOnlyTools(Toolset):
    """``tools`` limited to their read-only ones while ``active()`` is true.

    Args:
        tools: every tool the agent has.
        active: whether the turn is read-only now (asked at each listing and
            call); the default: always.
    """

    def __init__(self, tools: Toolset, active: Callable[[], bool] = _always) -> None:
        self.tools = tools
        self.active = active

    def definitions(self) -> tuple[ToolDefinition, ...]:
        """The read-only tools while :attr:`active`, else every tool."""
        everything = self.tools.definitions()
        if not self.active():
            return everything
        return tuple(d for d in everything if d.read_only)

    def definition(self, name: object) -> ToolDefinition:
        """The tool called ``name``.

        Raises:
            InvalidInput: no such tool, or it is not read-only and the turn is.
        """
        found = self.tools.definition(name)
        self._check(found)
        return found

    async def run(self, definition: ToolDefinition, arguments: JSON) -> JSON:
        """Run the call in the wrapped set (checked again: the turn may have turned read-only)."""
        self._check(definition)
        return await self.tools.run(definition, arguments)

    def _check(self, definition: ToolDefinition) -> None:
        if not definition.read_only and self.active():
            raise InvalidInput(
                f"{shown(definition.name)} is not offered in a read-only turn (this turn reads "
                "mail sent under Plan); read-only tools: "
                + (", ".join(d.name for d in self.definitions()) or "none")
            )


__all__ = ["ReadOnlyTools"]
