"""The trace commands' tests read the real Claude Code team inboxes the trace tests use."""

from tests.trace.conftest import inbox_dir

__all__ = ["inbox_dir"]
