"""scripts/layers.py: the layer checker CI runs, tried on small trees of its own."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "layers.py"


def load_checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("layers", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "src" / "attn"
    for package in ("core", "store", "models"):
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    return root


def test_a_downward_tree_passes(tree: Path) -> None:
    (tree / "core" / "mailbox.py").write_text(
        "from attn.store import x\nfrom attn.models import y\n"
    )
    (tree / "store" / "base.py").write_text("from ..models import y\n")
    problems, edges = load_checker().check(tree)
    assert problems == []
    assert edges == {"core": {"store", "models"}, "store": {"models"}}


def test_an_upward_import_fails_even_inside_a_function(tree: Path) -> None:
    (tree / "store" / "base.py").write_text("def f():\n    from attn.core import mailbox\n")
    (tree / "core" / "mailbox.py").write_text("from attn.store import base\n")
    problems, _ = load_checker().check(tree)
    assert "import points up: src/attn/store/base.py imports attn.core" in problems
    assert "package cycle: core <-> store" in problems


def test_a_relative_upward_import_is_seen(tree: Path) -> None:
    (tree / "models" / "items.py").write_text("from ..store import base\n")
    problems, _ = load_checker().check(tree)
    assert problems == ["import points up: src/attn/models/items.py imports attn.store"]


def test_a_long_module_fails_unless_allowed(tree: Path) -> None:
    checker = load_checker()
    (tree / "core" / "big.py").write_text("x = 1\n" * (checker.MAX_LINES + 1))
    problems, _ = checker.check(tree)
    assert problems == [f"too long: src/attn/core/big.py has 401 lines (limit {checker.MAX_LINES})"]
    checker.ALLOWED_LONG["src/attn/core/big.py"] = "test"
    assert checker.check(tree)[0] == []


def test_a_package_outside_the_layers_fails(tree: Path) -> None:
    (tree / "gadgets.py").write_text("")
    problems, _ = load_checker().check(tree)
    assert problems == [
        "no layer: attn.gadgets (src/attn/gadgets.py) is not in scripts/layers.py LAYERS"
    ]


def test_the_repository_passes() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout
