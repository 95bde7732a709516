"""File mailboxes' settings (seed 003), as ``[filebox]`` of ``attn.toml`` gives them.

Spec: seed 003 ("Mailbox file structure", "Queue Depth and Backpressure").
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from attn.errors import InvalidInput

#: Where run folders go when nothing says: ``<state dir>/runs`` with this state dir.
DEFAULT_STATE_DIR = ".attn"
#: The environment variable that overrides the state dir.
STATE_DIR_ENV = "ATTN_STATE_DIR"


@dataclass(frozen=True, slots=True)
class FileboxConfig:
    """How runs are kept.

    Attributes:
        state_dir: run folders live in ``<state_dir>/runs/<run id>/``.
        fsync: fsync every append and every delivery change (off: faster, a power
            cut may lose the last writes; a crash of attn alone loses nothing).
        max_pending: most steers (and, apart, follow-ups) waiting for a worker,
            1..10,000; at the cap the oldest is dropped.
        warn_pending: above this many, the run view carries a warning, 0..max_pending.
    """

    state_dir: Path = Path(DEFAULT_STATE_DIR)
    fsync: bool = True
    max_pending: int = 50
    warn_pending: int = 20

    def __post_init__(self) -> None:
        if not 1 <= self.max_pending <= 10_000:
            raise InvalidInput(f"max_pending must be 1..10000, got {self.max_pending}")
        if not 0 <= self.warn_pending <= self.max_pending:
            raise InvalidInput(
                f"warn_pending must be 0..max_pending ({self.max_pending}), got {self.warn_pending}"
            )

    @property
    def runs_root(self) -> Path:
        """``<state dir>/runs``, absolute."""
        return (self.state_dir / "runs").absolute()

    @classmethod
    def from_env(cls, state_dir: str | Path | None = None) -> FileboxConfig:
        """The defaults, with the state dir from ``state_dir``, else ``$ATTN_STATE_DIR``."""
        chosen = state_dir or os.environ.get(STATE_DIR_ENV) or DEFAULT_STATE_DIR
        return cls(state_dir=Path(chosen))


__all__ = ["DEFAULT_STATE_DIR", "STATE_DIR_ENV", "FileboxConfig"]
