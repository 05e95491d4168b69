"""The sandbox's imports, read from its source: it stands beside crosspost, not inside it.

The emulators know the platforms from the specs, so they import nothing of the client
but the exception tree (and the settings, for ``--sandbox``); inside the sandbox the
imports point one way, with no cycle (not even one only a type checker would follow).
"""

from __future__ import annotations

import ast
from pathlib import Path

import crosspost.sandbox

PACKAGE = Path(crosspost.sandbox.__file__).parent
ALLOWED_OUTSIDE = {"crosspost.errors"}
#: ``--sandbox`` for other commands builds settings with the emulators' accounts.
SETTINGS_USERS = {"crosspost.sandbox.session": {"crosspost.config.settings"}}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _imports(path: Path, known: set[str]) -> set[str]:
    """Every crosspost module ``path`` imports, at any depth of the file."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("crosspost")}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if not node.module.startswith("crosspost"):
                continue
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in known else node.module)
    return found


def test_the_sandbox_imports_only_errors_and_settings_from_crosspost() -> None:
    modules = _modules()
    outside = {
        name: sorted(
            target
            for target in _imports(path, set(modules))
            if not target.startswith("crosspost.sandbox.")
            and target not in ALLOWED_OUTSIDE | SETTINGS_USERS.get(name, set())
        )
        for name, path in modules.items()
    }
    assert {name: targets for name, targets in outside.items() if targets} == {}


def test_no_module_of_the_sandbox_imports_a_package_init() -> None:
    modules = _modules()
    packages = {name for name, path in modules.items() if path.name == "__init__.py"}
    offenders = {
        name: sorted(_imports(path, set(modules)) & packages) for name, path in modules.items()
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_sandbox_has_no_import_cycle() -> None:
    modules = _modules()
    graph = {
        name: {t for t in _imports(path, set(modules)) if t in modules}
        for name, path in modules.items()
    }
    cycles: list[list[str]] = []

    def visit(name: str, trail: list[str], done: set[str]) -> None:
        for target in sorted(graph[name]):
            if target in trail:
                cycles.append([*trail[trail.index(target) :], target])
            elif target not in done:
                done.add(target)
                visit(target, [*trail, target], done)

    for name in sorted(graph):
        visit(name, [name], set())
    assert cycles == []
