"""The adapters, their helpers and the ledger depend one way: read from the source.

Every import counts, including those under ``TYPE_CHECKING`` and inside functions: a
dependency hidden there is still a dependency, and a cycle through it still ties two
modules together.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import crosspost

SOURCE = Path(crosspost.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in SOURCE.rglob("*.py")}


def imports(module: str) -> set[str]:
    """Every crosspost module ``module`` imports, wherever the import statement is."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name in MODULES and name != module}


def under(*packages: str) -> Iterator[str]:
    return (m for m in sorted(MODULES) if any(m.startswith(p + ".") for p in packages))


@pytest.mark.parametrize(
    "module", list(under("crosspost.channels.wechat", "crosspost.channels.zhihu"))
)
def test_no_platform_module_imports_its_adapter(module: str) -> None:
    """Helpers reach the platform through its Api object, never through the adapter."""
    assert not {name for name in imports(module) if name.endswith(".adapter")}


@pytest.mark.parametrize("module", list(under("crosspost.ledger")))
def test_the_ledger_depends_only_on_errors_and_config(module: str) -> None:
    allowed = ("crosspost.errors", "crosspost.config", "crosspost.ledger")
    assert {name for name in imports(module) if not name.startswith(allowed)} == set()


def test_wechat_error_advice_does_not_import_the_renderer() -> None:
    assert not {n for n in imports("crosspost.channels.wechat.errors") if "render" in n}


def test_channels_and_the_ledger_have_no_import_cycle() -> None:
    scope = set(under("crosspost.channels", "crosspost.ledger"))

    def reaches(start: str, goal: str) -> bool:
        seen: set[str] = set()
        todo = [start]
        while todo:
            current = todo.pop()
            for name in imports(current) & scope:
                if name == goal:
                    return True
                if name not in seen:
                    seen.add(name)
                    todo.append(name)
        return False

    assert [module for module in sorted(scope) if reaches(module, module)] == []
