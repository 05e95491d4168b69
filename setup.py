"""Ship the top-level templates/ inside the wheel as crosspost/templates.

The editor-facing folder stays at the top of the repository (where people look for
it), while an installed crosspost still finds its default templates and themes.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithTemplates(build_py):
    def run(self) -> None:
        super().run()
        source = Path(__file__).parent / "templates"
        target = Path(self.build_lib) / "crosspost" / "templates"
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildWithTemplates})
