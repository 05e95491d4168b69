"""Every library the code imports is one it declares.

A library that arrives only as another's dependency disappears with it: when premailer
left, lxml (which the WeChat renderer uses directly) went too, and a fresh
``pip install crosspost`` failed at the first render while every test, run in a venv that
still had it, passed. This reads each import of ``src/crosspost`` and asks which
distribution provides it; that distribution must be named in ``pyproject.toml``.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

#: Imported, but guarded (the code works without them) or the dependency a declared
#: library exists to expose, with the reason.
NOT_DECLARED = {
    "pillow_heif": "optional HEIC opener, imported under try/except ImportError",
    "markupsafe": "Jinja2's own Markup type, which crosspost hands back to Jinja2",
    "urllib3": "the transport of requests, configured through requests' adapters",
    "certifi": "requests' CA bundle, used so a pinned fetch trusts what requests trusts",
    "ziafont": "ziamath's font engine, set up as ziamath asks",
}


def _names(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _declared(root: Path) -> set[str]:
    project = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["project"]
    found = {_names(r) for r in project["dependencies"]}
    for extra in project.get("optional-dependencies", {}).values():
        found |= {_names(r) for r in extra}
    return found


def _imported(root: Path) -> set[str]:
    names: set[str] = set()
    for path in (root / "src" / "crosspost").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"crosspost"}


def test_every_imported_library_is_declared_in_pyproject(repo_root: Path) -> None:
    declared = _declared(repo_root)
    providers = packages_distributions()
    missing = []
    for name in sorted(_imported(repo_root) - set(NOT_DECLARED)):
        distributions = {d.lower().replace("_", "-") for d in providers.get(name, [name])}
        if not distributions & declared:
            missing.append(f"{name} (from {', '.join(sorted(distributions))})")
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"
