"""Built-in brains: ``echo`` and ``script`` (no network), ``llm`` (the tool loop) and
``external`` (turns run in an MCP client, issue 17).

A feature package above core: a brain is a :class:`~attn.core.focus.Brain`
(an async callable given the item and its focus). :func:`build_brain` makes
one from its name and options as written in ``attn.toml``; every option is
bounded (``attn.brains.options``) and a bad one raises
:class:`~attn.errors.OptionError` naming it. The ``llm`` brain loads no
provider SDK until its first model request.
"""

from __future__ import annotations

from typing import Any

from attn.brains.echo import EchoBrain
from attn.brains.external import ExternalBrain
from attn.brains.llm import LLMBrain
from attn.brains.script import ScriptBrain
from attn.core.focus import Brain
from attn.errors import InvalidInput

BRAINS: dict[str, type[EchoBrain] | type[ScriptBrain] | type[LLMBrain] | type[ExternalBrain]] = {
    "echo": EchoBrain,
    "script": ScriptBrain,
    "llm": LLMBrain,
    "external": ExternalBrain,
}


def build_brain(name: str, options: dict[str, Any] | None = None) -> Brain:
    """Make a built-in brain from its name and options (as written in ``attn.toml``).

    Raises:
        InvalidInput: unknown brain name or options it does not take;
            :class:`~attn.errors.OptionError` (an InvalidInput naming the option) for an
            option value out of bounds.
    """
    cls = BRAINS.get(name)
    if cls is None:
        raise InvalidInput(f"unknown brain {name!r}; built-in brains: {', '.join(BRAINS)}")
    try:
        return cls(**(options or {}))
    except TypeError as exc:
        raise InvalidInput(f"brain {name!r} does not take those options: {exc}") from exc


__all__ = ["BRAINS", "EchoBrain", "ExternalBrain", "LLMBrain", "ScriptBrain", "build_brain"]
