"""The built wheel carries the default templates and themes, so ``pip install .`` (not
editable) renders from any folder. ``.ci/run`` installs that wheel for the whole suite;
this test catches a packaging slip quickly and says which file is missing.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds a wheel: a few seconds


@pytest.fixture(scope="module")
def wheel_names(repo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    pytest.importorskip("setuptools")
    pytest.importorskip("wheel")
    out = tmp_path_factory.mktemp("wheel")
    # A copy of the sources keeps setuptools' build/ and egg-info out of the checkout.
    source = out / "src-copy"
    _copy_sources(repo_root, source)
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    result = subprocess.run(
        [*command, "-q", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    (wheel,) = out.glob("crosspost-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def _copy_sources(repo_root: Path, target: Path) -> None:
    import shutil

    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "dist", ".*cache")
    target.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        if (repo_root / name).is_file():
            shutil.copy2(repo_root / name, target / name)
    for folder in ("src", "templates"):
        shutil.copytree(repo_root / folder, target / folder, ignore=ignore)


def test_wheel_holds_every_shipped_template(repo_root: Path, wheel_names: set[str]) -> None:
    shipped = {
        "crosspost/templates/" + path.relative_to(repo_root / "templates").as_posix()
        for path in (repo_root / "templates").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert "crosspost/templates/wechat/article.html.j2" in shipped
    assert "crosspost/templates/wechat/themes/default.css" in shipped
    assert "crosspost/templates/preview/preview.html.j2" in shipped
    assert shipped <= wheel_names, sorted(shipped - wheel_names)


def test_wheel_is_typed_and_has_the_cli(wheel_names: set[str]) -> None:
    assert "crosspost/py.typed" in wheel_names
    assert "crosspost/__main__.py" in wheel_names
    assert any(name.endswith("entry_points.txt") for name in wheel_names)
