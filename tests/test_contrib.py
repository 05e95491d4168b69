"""The contrib examples install crosspost the way the README does: from its checkout."""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
CONTRIB = REPO_ROOT / "contrib"


def test_no_example_installs_crosspost_from_a_package_index() -> None:
    """crosspost is not published on a package index: ``pip install crosspost…`` fails."""
    for path in sorted(p for p in CONTRIB.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"pip install\s+[\"']?crosspost", text), path


def test_each_example_runs_the_crosspost_of_a_checkout_virtual_environment() -> None:
    workflow = (CONTRIB / "github-actions-run-due.yml").read_text(encoding="utf-8")
    assert 'pip install "./.crosspost[notify]"' in workflow
    assert "repository: ${{ vars.CROSSPOST_REPOSITORY }}" in workflow
    service = (CONTRIB / "systemd" / "crosspost-run-due.service").read_text(encoding="utf-8")
    assert "ExecStart=%h/crosspost/.venv/bin/crosspost run-due" in service
    crontab = (CONTRIB / "crontab").read_text(encoding="utf-8")
    assert "PATH=/home/editor/crosspost/.venv/bin:" in crontab
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert ".venv/bin/pip install ." in readme  # the way the examples follow
