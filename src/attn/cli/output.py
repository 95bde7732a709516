"""What every CLI command shares: one-line errors, ``--debug``, JSON and tables.

Errors are one line on stderr (``attn: <what went wrong>``) and a non-zero exit
status: 1 when the operation failed, 2 for bad usage or configuration. With
``attn --debug`` (or ``ATTN_DEBUG=1``) the traceback is shown instead.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn, ParamSpec, TypeVar

import click
import typer
from rich.console import Console

from attn.cli.client import CliError
from attn.errors import AttnError, InvalidInput

P = ParamSpec("P")
R = TypeVar("R")


class _State:
    debug: bool = bool(os.environ.get("ATTN_DEBUG"))


state = _State()


def fail(message: str, exit_code: int = 1) -> NoReturn:
    """Print ``attn: message`` on one line of stderr and exit with ``exit_code``."""
    line = " ".join(message.split())
    sys.stderr.write(f"attn: {line}\n")
    sys.stderr.flush()
    raise typer.Exit(exit_code)


def handle_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Decorate a command so that every failure is one line on stderr and an exit status."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except (typer.Exit, typer.Abort, click.exceptions.ClickException):
            raise
        except KeyboardInterrupt:
            raise typer.Exit(130) from None
        except CliError as exc:
            if state.debug:
                raise
            fail(str(exc), exc.exit_code)
        except AttnError as exc:
            if state.debug:
                raise
            fail(exc.message, 2 if isinstance(exc, InvalidInput) else 1)
        except Exception as exc:
            if state.debug:
                raise
            fail(
                f"unexpected error: {type(exc).__name__}: {exc} "
                "(run `attn --debug ...` for details)"
            )

    return wrapper


def print_json(data: Any) -> None:
    """Print ``data`` as indented JSON on stdout."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def console() -> Console:
    """A Rich console on stdout.

    On a terminal it uses the terminal's width; piped or captured output gets
    a wide page (``$COLUMNS`` or 200) so tables are not squeezed into 80 columns.
    """
    if sys.stdout.isatty():
        return Console(highlight=False)
    try:
        width = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        width = 200
    return Console(highlight=False, width=max(width, 80))


def shorten(text: object, width: int = 60) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
