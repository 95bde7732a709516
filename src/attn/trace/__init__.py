"""Traces: recorded mailbox traffic as JSON Lines, imported and replayed through a runtime.

Above the runtime (it replays through one), below the entry points (``attn
import``, ``attn replay``). :class:`Trace` and its file format are in
``attn.trace.model``, reading and writing it in ``attn.trace.files``
(:func:`read_trace`, :func:`write_trace`);
:func:`import_claude_team` turns a Claude Code team's inboxes into a trace;
:func:`replay` enqueues a trace and :func:`summarize` checks, from the store
alone, what became of every event (:class:`ReplaySummary`). Invalid files
raise :class:`~attn.errors.InvalidTrace` or :class:`~attn.errors.InvalidInbox`.
"""

from attn.trace.claude_team import import_claude_team
from attn.trace.files import read_trace, write_trace
from attn.trace.model import Trace, TraceAgent, TraceEvent
from attn.trace.replay import ReplayProgress, replay
from attn.trace.summary import ReplaySummary, summarize

__all__ = [
    "ReplayProgress",
    "ReplaySummary",
    "Trace",
    "TraceAgent",
    "TraceEvent",
    "import_claude_team",
    "read_trace",
    "replay",
    "summarize",
    "write_trace",
]
