"""Brain tools: toolsets a brain offers an LLM, with schemas generated from the code.

A :class:`Toolset` lists its tools (:meth:`~Toolset.definitions`, or
:meth:`~Toolset.schemas` for an LLM tool list) and runs one by name with the
model's JSON arguments (:meth:`~Toolset.call`, which always answers JSON).
A :class:`FunctionToolset` turns its :func:`tool` methods into tools: each
definition comes from the method's signature, type hints (bounds from
``Annotated[..., Param(...)]``) and Google docstring. :class:`Tools` does
the same for plain functions registered with its ``@tools.tool`` decorator
(the user's own tools) and also checks the model's argument values against
their schema. A :class:`CombinedToolset` offers several sets as one, and
:class:`ReadOnlyTools` only the tools marked ``read_only`` (a read-only turn,
seed 002). The runtime composes an agent's brain tools (``agent.tools()``,
``agent.tools_for(focus)``).

Public: the names in ``__all__``, and the modules :mod:`attn.tools.mailbox`,
:mod:`attn.tools.time`, :mod:`attn.tools.memory`, :mod:`attn.tools.channels`,
:mod:`attn.tools.tree`, :mod:`attn.tools.filebox` (one toolset each) and
:mod:`attn.tools.user` (:class:`Tools`). Modules whose names start with
an underscore are internal.

Layering: above :mod:`attn.core`, :mod:`attn.time`, :mod:`attn.channels`
and :mod:`attn.tree` and :mod:`attn.filebox`, below :mod:`attn.runtime`; nothing in core, time,
channels, tree, store or models imports it.

Spec: 000 §21 (mailbox tools), §3.4 and §11.3 (time tools), §8 (memory
tools), §11.2 and §25 (channel tools); seed 002 (tree tools, read-only
turns); seed 003 (worker tools); acceptance LLM-40 (user tools), A2A-19 and A2A-20.
"""

from attn.tools._function import FunctionToolset, tool
from attn.tools._mailbox_checks import MAX_DELAY_MINUTES, MemoryUpdateArgument
from attn.tools._mailbox_items import ToolHost
from attn.tools._read_only import ReadOnlyTools
from attn.tools._schema import Param, ToolDefinition
from attn.tools._toolset import CombinedToolset, Toolset
from attn.tools.channels import ChannelToolset
from attn.tools.filebox import WorkerToolset
from attn.tools.mailbox import MailboxToolset
from attn.tools.memory import MemoryToolset
from attn.tools.people import PeopleToolset
from attn.tools.time import TimeToolset
from attn.tools.tree import TreeToolset
from attn.tools.user import Tools

__all__ = [
    "MAX_DELAY_MINUTES",
    "ChannelToolset",
    "CombinedToolset",
    "FunctionToolset",
    "MailboxToolset",
    "MemoryToolset",
    "MemoryUpdateArgument",
    "Param",
    "PeopleToolset",
    "ReadOnlyTools",
    "TimeToolset",
    "ToolDefinition",
    "ToolHost",
    "Tools",
    "Toolset",
    "TreeToolset",
    "WorkerToolset",
    "tool",
]
