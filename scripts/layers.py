#!/usr/bin/env python3
"""Check attn's package layering: imports point down, modules stay small.

Usage: scripts/layers.py [--src src/attn] [--graph]

Every top-level package or module under ``src/attn`` sits in one layer of
``LAYERS`` (top first). An import may only reach the same package or a package
in a lower layer; anything else is reported as an upward import, and any cycle
between packages is reported as such. Every import counts: module level,
``TYPE_CHECKING`` blocks and imports inside functions alike, because a reader
has to hold each of them in their head.

A module longer than ``MAX_LINES`` lines fails unless it is on ``ALLOWED_LONG``,
which says why. Exit status 1 when anything is reported. ``docs/architecture.md``
describes the same layers in prose; keep the two together.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from pathlib import Path

#: The layers, top first. A package may import its own layer's other members
#: only where the pair is listed in ``SIDEWAYS``; otherwise only lower layers.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("__main__",),
    ("cli", "server"),
    ("mcp",),
    ("trace",),
    ("testing",),
    ("runtime",),
    ("tools",),
    ("tree",),
    ("channels",),
    ("time", "brains", "people", "filebox"),
    ("core",),
    ("store",),
    ("config",),
    ("models",),
    ("limits", "jsontext", "tokens"),
    ("errors", "types", "ids", "clock", "version", "asgi"),
    ("echo",),
)

#: Imports between members of one layer that are allowed, as (importer, imported).
SIDEWAYS: frozenset[tuple[str, str]] = frozenset({("cli", "server")})

MAX_LINES = 400

#: Modules allowed over ``MAX_LINES``, each with the reason it stays whole.
ALLOWED_LONG: dict[str, str] = {}


def layer_of() -> dict[str, int]:
    return {name: depth for depth, names in enumerate(LAYERS) for name in names}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(tree: ast.AST, module: str, is_package: bool) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                if node.module:
                    yield node.module
                continue
            base = module.split(".")
            if not is_package:
                base = base[:-1]
            base = base[: len(base) - (node.level - 1)]
            yield ".".join([*base, *([node.module] if node.module else [])])


def top_package(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "attn" and len(parts) > 1 else None


def find_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def check(root: Path) -> tuple[list[str], dict[str, set[str]]]:
    """Return the problems found under ``root`` and the package import graph."""
    layers = layer_of()
    problems: list[str] = []
    edges: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent.parent).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        if lines > MAX_LINES and "/migrations/" not in rel and rel not in ALLOWED_LONG:
            problems.append(f"too long: {rel} has {lines} lines (limit {MAX_LINES})")
        module = module_name(path, root)
        me = top_package(module)
        if me is None:
            continue
        if me not in layers:
            problems.append(f"no layer: attn.{me} ({rel}) is not in scripts/layers.py LAYERS")
            continue
        for target in imported_modules(ast.parse(text), module, path.name == "__init__.py"):
            other = top_package(target)
            if other is None or other == me:
                continue
            edges.setdefault(me, set()).add(other)
            if other not in layers:
                continue
            upward = layers[other] < layers[me]
            sideways = layers[other] == layers[me] and (me, other) not in SIDEWAYS
            if upward or sideways:
                problems.append(f"import points up: {rel} imports {target}")
    for component in find_cycles(edges):
        problems.append("package cycle: " + " <-> ".join(component))
    for rel in sorted(ALLOWED_LONG):
        if not (root.parent.parent / rel).exists():
            problems.append(f"stale allow-list entry: {rel} does not exist")
    return problems, edges


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--src", type=Path, default=Path(__file__).parent.parent / "src/attn")
    parser.add_argument("--graph", action="store_true", help="print the package import graph")
    args = parser.parse_args(argv)
    problems, edges = check(args.src.resolve())
    if args.graph:
        for name in sorted(edges):
            print(f"{name} -> {', '.join(sorted(edges[name]))}")
    for problem in problems:
        print(problem)
    print(f"layers: {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
