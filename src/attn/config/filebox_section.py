"""``[filebox]`` of ``attn.toml``: where runs live and how their queues are bounded.

Spec: seed 003 ("Queue Depth and Backpressure").
"""

from __future__ import annotations

from pydantic import Field, model_validator

from attn.config.filebox import FileboxConfig
from attn.config.sections import Section


class FileboxSection(Section):
    """``[filebox]``: where runs live and how their queues are bounded (seed 003)."""

    state_dir: str | None = Field(default=None, min_length=1, max_length=4096)
    fsync: bool = True
    max_pending: int = Field(default=50, ge=1, le=10_000)
    warn_pending: int = Field(default=20, ge=0, le=10_000)

    @model_validator(mode="after")
    def _bounds(self) -> FileboxSection:
        if self.warn_pending > self.max_pending:
            raise ValueError(f"warn_pending ({self.warn_pending}) must not exceed max_pending")
        return self

    def config(self) -> FileboxConfig:
        """The section as a :class:`FileboxConfig` (state dir unset: ``$ATTN_STATE_DIR``)."""
        base = FileboxConfig.from_env(self.state_dir)
        return FileboxConfig(base.state_dir, self.fsync, self.max_pending, self.warn_pending)


__all__ = ["FileboxSection"]
