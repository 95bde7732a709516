"""Every error attn raises on purpose.

Each subclass's docstring is its default message; callers pass a more precise
message (naming the identifiers involved) when they have one. One table in
``attn.server`` maps these classes to HTTP status codes and stable codes.
The classes live in ``_core`` (the engine and its features) and ``_filebox``
(file mailboxes, seed 003) and ``_external`` (external agents and the MCP server,
issue 17); import them from here.
"""

from __future__ import annotations

from attn.errors._core import *  # noqa: F403
from attn.errors._core import __all__ as _core_names
from attn.errors._external import *  # noqa: F403
from attn.errors._external import __all__ as _external_names
from attn.errors._filebox import *  # noqa: F403
from attn.errors._filebox import __all__ as _filebox_names

__all__ = [*_core_names, *_filebox_names, *_external_names]
