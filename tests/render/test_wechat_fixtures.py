"""WeChat output for small documents, one case per rule, read from a fixture file in
markdown-it's format (title, ``.``, Markdown, ``.``, expected HTML, ``.``).

The expected HTML is the body without the theme: styles are removed except the few
declarations the rules themselves guarantee (cell alignment, image size, scrolling), and
the root ``<section>`` and its empty guard paragraphs are left out. A theme change does
not touch these files; a rule change shows up as a readable diff.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it.utils import read_fixture_file

from crosspost.issue.model import Issue
from crosspost.render.rendered import RenderContext
from crosspost.render.wechat import document as wechat

FIXTURES = Path(__file__).parent / "fixtures" / "wechat" / "skeleton.txt"
_STYLE = re.compile(r'<(\w+)([^>]*?) style="([^"]*)"')
_GUARD = re.compile(r'<p style="[^"]*font-size:0[^"]*">&nbsp;</p>')


def _structural(tag: str, declaration: str) -> bool:
    name = declaration.split(":", 1)[0]
    if name == "text-align":
        return tag in ("th", "td")
    if name in ("width", "height"):
        return tag == "img" and declaration != "height:auto"
    return name == "overflow-x"


def skeleton(body: str) -> str:
    """``body`` without its root, guards and theme styles."""
    assert body.startswith("<section") and body.endswith("</section>")
    inner = _GUARD.sub("", body[body.index(">") + 1 : -len("</section>")])

    def strip(match: re.Match[str]) -> str:
        tag, attributes, style = match.groups()
        declarations = (part.strip().replace(" ", "") for part in style.split(";"))
        kept = [d for d in declarations if d and _structural(tag, d)]
        return f"<{tag}{attributes}" + (f' style="{";".join(kept)}"' if kept else "")

    return _STYLE.sub(strip, inner)


def render_skeleton(markdown: str) -> str:
    issue = Issue(path=Path("/issues/x/issue.md"), id="x", title="t", body=markdown, body_line=1)
    return skeleton(wechat.render(issue, RenderContext()).body)


@pytest.mark.parametrize(
    ("line", "title", "markdown", "expected"),
    read_fixture_file(FIXTURES),
    ids=[case[1][:60] for case in read_fixture_file(FIXTURES)],
)
def test_rule(line: int, title: str, markdown: str, expected: str) -> None:
    assert render_skeleton(markdown) == expected.rstrip("\n"), f"{FIXTURES.name}:{line}: {title}"
