"""Where a configuration is wrong: pydantic errors as :class:`~attn.errors.ConfigProblem`
lines, and the TOML line that defines a field.

The line scan is best effort (headers ``[a.b]`` and ``[[a]]``, ``key =`` lines):
enough to point at the line of a bad field in a hand-written file.

Spec: issue 3 point 5 (problems with line numbers).
"""

from __future__ import annotations

import re
import tomllib

from pydantic import ValidationError

from attn.errors import ConfigProblem

#: A TOML path as in pydantic locations, e.g. ``("agents", 0, "options", "steps")``.
Location = tuple[int | str, ...]
#: Every TOML path written in a text, to the 1-based line that defines it.
KeyLines = dict[Location, int]

_HEADER_RE = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY_RE = re.compile(r"^\s*([A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*')\s*(?:\.|=)")
#: One part of a dotted header: a quoted key (which may hold dots) or a bare one.
_PART_RE = re.compile(r"\s*(?:\"(?:[^\"\\]|\\.)*\"|'[^']*')\s*|[^.]+")


def _key_name(part: str) -> str:
    """A header part as the key TOML reads: quotes removed, escapes (``\\n``) decoded."""
    part = part.strip()
    if part.startswith('"'):
        try:
            return next(iter(tomllib.loads(f"{part} = 0")))
        except (tomllib.TOMLDecodeError, StopIteration):
            pass
    return part.strip("\"'")


def describe_errors(
    exc: ValidationError, text: str | None, env_fields: dict[tuple[str, str], str]
) -> tuple[ConfigProblem, ...]:
    """One problem per pydantic error, with its line in ``text`` or its environment variable.

    Args:
        exc: the validation error of the whole configuration.
        text: the TOML document, or None for the built-in demo team.
        env_fields: ``(section, key)`` set from the environment, to the variable's name.
    """
    lines = key_lines(text) if text is not None else {}
    problems = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown field"
        var = env_fields.get(loc[:2]) if len(loc) == 2 else None  # type: ignore[arg-type]
        line = line_in(lines, loc) if var is None and text is not None else None
        problems.append(ConfigProblem(dotted(loc), msg, line, env_var=var))
    return tuple(problems)


def dotted(loc: Location) -> str:
    """``("agents", 0, "options")`` as ``"agents[0].options"`` (``"config"`` when empty)."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "config"


def key_lines(text: str) -> KeyLines:
    """Map TOML paths (as in pydantic locations) to the 1-based line defining them."""
    found: KeyLines = {}
    arrays: dict[str, int] = {}
    table: Location = ()
    for number, raw in enumerate(text.splitlines(), start=1):
        header = _HEADER_RE.match(raw)
        if header:
            names = [_key_name(n) for n in _PART_RE.findall(header.group(2))]
            path: list[int | str] = []
            for i, name in enumerate(names):
                path.append(name)
                last = i == len(names) - 1
                if last and header.group(1) == "[[":
                    key = ".".join(names)
                    arrays[key] = arrays.get(key, -1) + 1
                    path.append(arrays[key])
                elif not last and ".".join(names[: i + 1]) in arrays:
                    path.append(arrays[".".join(names[: i + 1])])
            table = tuple(path)
            found.setdefault(table, number)
            continue
        assignment = _KEY_RE.match(raw)
        if assignment:
            found.setdefault((*table, assignment.group(1).strip("\"'")), number)
    return found


def find_line(text: str, loc: Location) -> int | None:
    """The 1-based line of TOML ``text`` that defines ``loc`` (e.g. ``("server", "host")``),
    or of its nearest enclosing table; None when neither is written in the text."""
    return line_in(key_lines(text), loc)


def line_in(lines: KeyLines, loc: Location) -> int | None:
    """As :func:`find_line`, on the lines :func:`key_lines` found."""
    for end in range(len(loc), 0, -1):
        line = lines.get(loc[:end])
        if line is not None:
            return line
    return None


__all__ = [
    "KeyLines",
    "Location",
    "describe_errors",
    "dotted",
    "find_line",
    "key_lines",
    "line_in",
]
