"""The layout is the architecture: a package per pipeline stage, dependencies pointing
one way, no cycles.

Read from the source with :mod:`ast`, so an import inside a function or under
``TYPE_CHECKING`` counts as much as one at the top: a cycle hidden in a function is still
a cycle, it only fails later. ``docs/architecture.md`` draws the same order.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "crosspost"

#: The stages, lowest first. A module may import from its own stage and from the stages
#: before it, never from a later one. The platform declarations come first: every later
#: stage, the settings included, reads its limits and channel names from them. The ledger
#: sits low: it is the record every later stage writes to (an upload, a draft, a URL) and
#: needs only the settings' redactor. ``sandbox`` stands beside the pipeline: it needs
#: only the exception tree and the settings, and only the commands reach for it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("crosspost", "crosspost.errors", "crosspost.patterns"),
    ("crosspost.platforms",),
    ("crosspost.config",),
    ("crosspost.ledger",),
    ("crosspost.issue",),
    ("crosspost.importers",),
    ("crosspost.images",),
    ("crosspost.render",),
    ("crosspost.check",),
    ("crosspost.channels",),
    ("crosspost.publish",),
    ("crosspost.schedule",),
    ("crosspost.sandbox",),
    ("crosspost.preview",),
    ("crosspost.commands",),
    ("crosspost.cli", "crosspost.__main__"),
)

#: The only files allowed at the top of the package: everything else lives in a stage.
#: ``patterns`` is beside the exception tree: every stage names its regular expressions
#: through it.
TOP_LEVEL = {"__init__.py", "__main__.py", "cli.py", "errors.py", "patterns.py"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported(path: Path) -> Iterator[tuple[str, int]]:
    """Every project module ``path`` imports, anywhere in the file, with the line."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            for alias in node.names:
                # `from pkg import module` depends on that module, not on pkg/__init__.
                submodule = f"{source}.{alias.name}"
                yield (submodule if submodule in MODULES else source), node.lineno


def project_imports(path: Path) -> Iterator[tuple[str, int]]:
    for target, line in imported(path):
        if target == "crosspost" or target.startswith("crosspost."):
            yield target, line


GRAPH: dict[str, set[str]] = {
    name: {target for target, _ in project_imports(path) if target in MODULES}
    for name, path in MODULES.items()
}


def layer_of(module: str) -> int:
    best = -1, -1  # (length of the matching prefix, layer)
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                best = max(best, (len(prefix), index))
    assert best[1] >= 0, f"{module} belongs to no stage: add it to LAYERS"
    return best[1]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), plus self-imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph[node]:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    assert cycles(GRAPH) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"], ["e"]]


def test_dependencies_point_down_the_pipeline() -> None:
    upward = [
        f"{MODULES[source].relative_to(SRC)}:{line}: {source} imports {target}"
        for source, path in MODULES.items()
        for target, line in project_imports(path)
        if target in MODULES and layer_of(target) > layer_of(source)
    ]
    assert upward == []


def test_the_top_of_the_package_holds_only_the_cli_and_the_exception_tree() -> None:
    files = {p.name for p in PACKAGE.iterdir() if p.is_file() and p.suffix == ".py"}
    assert files <= TOP_LEVEL
    assert {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"} >= {
        "config",
        "issue",
        "render",
        "check",
        "channels",
        "ledger",
        "publish",
        "schedule",
    }


@pytest.mark.parametrize(
    "init",
    [p for p in sorted(PACKAGE.rglob("__init__.py")) if p.parent != PACKAGE],
    ids=lambda p: str(p.parent.relative_to(PACKAGE)),
)
def test_package_files_import_nothing(init: Path) -> None:
    """A package's ``__init__`` only describes it. Importing ``crosspost.x.y`` runs every
    ``__init__`` above it; if those imported siblings, the AST graph would miss cycles."""
    tree = ast.parse(init.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), f"{init} says nothing about its stage"
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]


@pytest.mark.parametrize(
    "module",
    [
        m
        for m in MODULES
        if m.startswith(("crosspost.channels.wechat.", "crosspost.channels.zhihu."))
    ],
)
def test_no_platform_module_imports_its_adapter(module: str) -> None:
    """A platform's helpers reach it through its Api object, never through the adapter:
    the adapter is the top of its package, the one thing the registry names."""
    assert not {target for target in GRAPH[module] if target.endswith(".adapter")}


def test_wechat_error_advice_does_not_import_the_renderer() -> None:
    assert not {t for t in GRAPH["crosspost.channels.wechat.errors"] if ".render" in t}


def test_the_sandbox_stands_beside_the_client() -> None:
    """The emulators model the platforms from the specs, not from the client's code: of
    crosspost they use only the exception tree and the settings (``--sandbox`` builds
    settings with the emulators' accounts; state files are written atomically)."""
    allowed = ("crosspost.errors", "crosspost.config.", "crosspost.sandbox.")
    borrowed = {
        f"{source} imports {target}"
        for source, targets in GRAPH.items()
        if source.startswith("crosspost.sandbox.")
        for target in targets
        if not target.startswith(allowed)
    }
    assert borrowed == set()
