"""What every CLI command shares: one-line errors, ``--debug``, JSON and tables.

Errors are one line on stderr (``attn: <what went wrong>``) and a non-zero exit
status: 1 when the operation failed, 2 for bad usage or configuration. With
``attn --debug`` (or ``ATTN_DEBUG=1``) the traceback is shown instead. Usage
errors found by Click (a missing argument, a value out of range, an unknown
option) are one line too, through :class:`OneLineUsageGroup`.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Callable
from typing import IO, Any, NoReturn, ParamSpec, TypeVar

import typer
from rich.console import Console

# Typer (0.26 on) vendors Click and raises its own copies of Click's classes, not
# the click package's; these are the classes `attn` sees. Kept to this one place.
from typer._click import Context
from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError
from typer._click.utils import echo
from typer.core import TyperGroup

from attn.cli.client import CliError
from attn.errors import AttnError, InvalidInput

P = ParamSpec("P")
R = TypeVar("R")


class _State:
    debug: bool = bool(os.environ.get("ATTN_DEBUG"))


state = _State()


def fail(message: str, exit_code: int = 1) -> NoReturn:
    """Print ``attn: message`` on one line of stderr and exit with ``exit_code``."""
    line = one_line(message)
    sys.stderr.write(f"attn: {line}\n")
    sys.stderr.flush()
    raise typer.Exit(exit_code)


#: SQLAlchemy's "(Background on this error at: https://sqlalche.me/…)" suffix.
_SQLALCHEMY_LINK = re.compile(r"\s*\(Background on this error at: [^)]*\)")


def warn(message: str) -> None:
    """Print ``attn: warning: message`` on one line of stderr; the command goes on."""
    sys.stderr.write(f"attn: warning: {one_line(message)}\n")
    sys.stderr.flush()


def examples(*lines: str) -> str:
    """A help epilog listing example command lines, one per line (Click keeps them as is)."""
    title = "Example:" if len(lines) == 1 else "Examples:"
    return "\b\n" + "\n".join([title, *(f"  {line}" for line in lines)])


def one_line(message: str) -> str:
    """``message`` on one line, without links to a driver's documentation."""
    return " ".join(_SQLALCHEMY_LINK.sub("", message).split())


class OneLineUsageError(UsageError):
    """A Click usage error shown as ``attn: <problem> (see 'attn CMD --help')``; exit status 2."""

    def show(self, file: IO[Any] | None = None) -> None:
        hint = f" (see '{self.ctx.command_path} --help')" if self.ctx is not None else ""
        problem = one_line(self.format_message()).rstrip(".")
        echo(f"attn: {problem}{hint}", file=file, err=True)


class OneLineUsageGroup(TyperGroup):
    """The root command group: Click's usage errors become :class:`OneLineUsageError`.

    Click's own display is three lines (usage, a hint, the error); a person
    needs the error and where to look. ``attn`` and ``attn import`` without a
    command still print their help.
    """

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: Context | None = None,
        **extra: Any,
    ) -> Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except UsageError as exc:
            raise _one_line(exc) from None

    def invoke(self, ctx: Context) -> Any:
        try:
            return super().invoke(ctx)
        except UsageError as exc:
            raise _one_line(exc) from None


def _one_line(exc: UsageError) -> UsageError:
    if isinstance(exc, NoArgsIsHelpError | OneLineUsageError):
        return exc
    return OneLineUsageError(exc.format_message(), ctx=exc.ctx)


def handle_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Decorate a command so that every failure is one line on stderr and an exit status."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except (typer.Exit, typer.Abort, ClickException):
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


def clip_words(text: object, width: int = 120) -> str:
    """``text`` on one line; when longer than ``width`` characters, cut after its last
    whole word that fits, with an ellipsis (a single word longer than ``width`` is cut)."""
    flat = " ".join(str(text or "").split())
    if len(flat) <= width:
        return flat
    head = flat[: width - 1]
    cut = head.rfind(" ")
    return (head[:cut] if cut > 0 else head) + "…"


def plural(count: object, word: str, words: str | None = None) -> str:
    """``"1 channel"``, ``"0 channels"``, ``"3 channels"`` (``words``: the plural when
    not ``word + "s"``)."""
    return f"{count} {word if count == 1 else (words or word + 's')}"
