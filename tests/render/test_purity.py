"""Rendering stays pure: no network, no ledger, no image files, no disk but templates.

Renderers are functions of (Issue, theme, context). What they must not reach is checked
on the source of every module under ``crosspost.render`` (imports written anywhere in
the file, inside functions and ``TYPE_CHECKING`` blocks too), and once more in a fresh
interpreter that imports them all: no later stage of the pipeline comes along.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import crosspost.render

#: Module prefixes a renderer may not import: image files (Pillow), the network, the
#: ledger's database, and the stages after rendering.
FORBIDDEN = ("PIL", "requests", "sqlite3", "crosspost.ledger", "crosspost.channels")
#: Stages after rendering, which importing a renderer must not load even indirectly.
LATER_STAGES = (
    "crosspost.check",
    "crosspost.images",
    "crosspost.channels",
    "crosspost.ledger",
    "crosspost.publish",
)
#: Calls that read or write files; only the Jinja2 environment's module may make them.
FILE_CALLS = frozenset({"open", "read_text", "read_bytes", "write_text", "write_bytes"})
TEMPLATES = "crosspost.render.templates"

MODULES = sorted(
    name for _, name, _ in pkgutil.walk_packages(crosspost.render.__path__, "crosspost.render.")
)


def _source(module: str) -> tuple[Path, ast.Module]:
    path = Path(str(importlib.import_module(module).__file__))
    return path, ast.parse(path.read_text("utf-8"), str(path))


def _imports(tree: ast.Module) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
            names += [f"{node.module}.{alias.name}" for alias in node.names]
    return names


def test_every_render_module_is_found() -> None:
    assert {"crosspost.render.wechat.document", "crosspost.render.zhihu.document"} <= set(MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_a_renderer_imports_no_image_network_or_ledger_code(module: str) -> None:
    _, tree = _source(module)
    bad = [
        name
        for name in _imports(tree)
        if any(name == prefix or name.startswith(f"{prefix}.") for prefix in FORBIDDEN)
    ]
    assert not bad, f"{module} imports {', '.join(bad)}"


@pytest.mark.parametrize("module", [m for m in MODULES if m != TEMPLATES])
def test_a_renderer_opens_no_file(module: str) -> None:
    path, tree = _source(module)
    calls = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id in FILE_CALLS)
            or (isinstance(node.func, ast.Attribute) and node.func.attr in FILE_CALLS)
        )
    ]
    assert not calls, f"{path}:{calls[0]} reads or writes a file; templates come via {TEMPLATES}"


def test_importing_every_renderer_loads_no_later_stage() -> None:
    script = (
        "import importlib, sys\n"
        f"for name in {MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        f"print('\\n'.join(m for m in sys.modules if m.startswith({LATER_STAGES!r})"
        " or m.split('.')[0] in ('PIL', 'sqlite3')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == []
