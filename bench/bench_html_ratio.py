"""WeChat HTML size: characters of HTML per character a reader sees, per document.

    python bench/bench_html_ratio.py               # the example and the corpus
    python bench/bench_html_ratio.py --no-corpus   # the example only (the smoke test's run)

WeChat counts the whole HTML string of an article against its size limits, tags and
``style`` attributes included, so every inline declaration that changes nothing costs an
editor room for text. For each document this renders the WeChat article in every shipped
theme and divides the length of the HTML by the length of the text it shows (the article's
text content, references included). Target: a median of at most 2.0 over the example and
the corpus in the default theme. The corpus documents are loaded as ``bench_render.py``
loads them.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import lxml.html
from bench_render import documents

from crosspost.errors import CrosspostError
from crosspost.issue.model import Issue
from crosspost.render.rendered import RenderContext, render

THEMES = ("default", "grace")
TARGET = 2.0
_STYLE = re.compile(r' style="[^"]*"')


@dataclass(frozen=True)
class Size:
    """One rendered article: its HTML, the text it shows and its ``style`` attributes."""

    html: int
    text: int
    styles: int

    @property
    def ratio(self) -> float:
        return self.html / self.text if self.text else float("inf")


def measure(issue: Issue, theme: str) -> Size:
    """The sizes of ``issue``'s WeChat article in ``theme``."""
    body = render(issue, "wechat", RenderContext(theme=theme)).body
    text = lxml.html.fragment_fromstring(body).text_content().strip()
    styles = sum(len(found) for found in _STYLE.findall(body))
    return Size(len(body), len(text), styles)


def report(corpus: bool = True) -> str:
    """The section as Markdown: one row per document, then the median and its verdict."""
    header = " | ".join(f"{theme}: HTML ÷ text" for theme in THEMES)
    lines = [
        "### WeChat HTML per visible character",
        "",
        f"| document | HTML chars | text chars | {header} | `style` share (default) |",
        "|---|---:|---:|" + "---:|" * len(THEMES) + "---:|",
    ]
    ratios: list[float] = []
    skipped: list[str] = []
    with tempfile.TemporaryDirectory(prefix="crosspost-bench-ratio-") as tmp:
        for name, issue in documents(Path(tmp), corpus):
            if isinstance(issue, str):
                skipped.append(f"{name} does not load as an issue: {issue}")
                continue
            try:
                sizes = [measure(issue, theme) for theme in THEMES]
            except CrosspostError as error:
                skipped.append(f"{name} does not render: {error}")
                continue
            first = sizes[0]
            ratios.append(first.ratio)
            cells = " | ".join(f"{size.ratio:.2f}" for size in sizes)
            lines.append(
                f"| {name} | {first.html:,} | {first.text:,} | {cells} "
                f"| {first.styles / first.html:.0%} |"
            )
    median = statistics.median(ratios)
    verdict = "met" if median <= TARGET else "missed"
    lines += [""] + [f"Not measured: {note}" for note in skipped]
    lines += [
        "",
        f"Median over {len(ratios)} documents, default theme: {median:.2f} "
        f"(target ≤ {TARGET:.1f}, {verdict}).",
        f"SUMMARY: WeChat HTML ÷ visible text, median over the example and corpus "
        f"({len(ratios)} documents) | ≤ {TARGET:.1f} | {median:.2f} | {verdict}",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-corpus", action="store_true", help="the example only")
    args = parser.parse_args(argv)
    print(report(corpus=not args.no_corpus))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
