"""What the run routes read and check on disk besides the run's own verbs: the tail of a
worker's output, and whether a worker's program and folder exist before any run is made.

Spec: seed 003 ("Supervisor Contact": the worker's output); issue 16 (runs over REST).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from attn.echo import shown
from attn.errors import InvalidInput
from attn.filebox.paths import check_part
from attn.filebox.run import Run
from attn.filebox.service import check_command

#: Most lines one output request returns.
MAX_OUTPUT_LINES = 2_000
#: Most bytes read from the end of ``output.log`` for one request (1 MiB).
MAX_TAIL_BYTES = 1 << 20
#: Longest line returned (characters); longer ones are cut with an ellipsis.
MAX_LINE_CHARS = 4_000
_BLOCK = 64 * 1024


def output_tail(run: Run, lines: int) -> tuple[list[str], bool]:
    """The last ``lines`` lines of the run's ``output.log``, oldest first.

    Reads at most :data:`MAX_TAIL_BYTES` from the end of the file (a line cut by
    that window is left out), decodes UTF-8 leniently and cuts each line to
    :data:`MAX_LINE_CHARS` characters. Never creates the file.

    Args:
        run: the run.
        lines: how many lines, 1..:data:`MAX_OUTPUT_LINES`.

    Returns:
        ``(lines, truncated)``: ``truncated`` is True when earlier output was left out.

    Raises:
        UnsafePath: ``output.log`` (or a folder above it) is a symbolic link.
    """
    path = run.paths.check(run.paths.output)
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below, after the seeks
    except (FileNotFoundError, NotADirectoryError):
        return [], False
    with handle:
        end = handle.seek(0, os.SEEK_END)
        start = end
        data = b""
        while start > 0 and data.count(b"\n") <= lines and end - start < MAX_TAIL_BYTES:
            step = min(_BLOCK, start, MAX_TAIL_BYTES - (end - start))
            start -= step
            handle.seek(start)
            data = handle.read(step) + data
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()  # the file ends with a newline
    if start > 0 and parts:
        parts.pop(0)  # the window cut the first one: not a whole line
    truncated = start > 0 or len(parts) > lines
    chosen = parts[-lines:]
    text = [p.decode("utf-8", "replace").rstrip("\r") for p in chosen]
    return [t if len(t) <= MAX_LINE_CHARS else t[: MAX_LINE_CHARS - 1] + "…" for t in text], (
        truncated
    )


def check_start(
    command: list[str], run_id: str | None, task_id: str, cwd: str | None
) -> Path | None:
    """Check a worker's start before anything is made: the command, the ids, that
    ``cwd`` is a directory and that the program exists and may be executed (looked
    up on the ``PATH`` the worker gets: the server's ``bin`` folder first).

    Args:
        command: the program and its arguments.
        run_id: its run, or None for a new one.
        task_id: its task.
        cwd: its folder (relative: to the server's), or None for the server's.

    Returns:
        The folder as an absolute path, or None for the server's own.

    Raises:
        InvalidInput, UnsafePath: naming what is wrong; nothing was created.
    """
    check_command(command)
    check_part(task_id, "task id")
    if run_id is not None:
        check_part(run_id, "run id")
    folder = Path(cwd).absolute() if cwd is not None else None
    if folder is not None and not folder.is_dir():
        raise InvalidInput(f"cwd: {shown(cwd)} is not a directory")
    program = command[0]
    base = folder or Path.cwd()
    if "/" in program:
        found = Path(program) if Path(program).is_absolute() else base / program
        runnable = found.is_file() and os.access(found, os.X_OK)
    else:
        path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        runnable = shutil.which(program, path=path) is not None
    if not runnable:
        raise InvalidInput(
            f"command: {shown(program)} is not an executable program "
            f"(looked {'in ' + shown(str(base)) if '/' in program else 'on the PATH'}); "
            "nothing was started"
        )
    return folder


__all__ = ["MAX_LINE_CHARS", "MAX_OUTPUT_LINES", "MAX_TAIL_BYTES", "check_start", "output_tail"]
