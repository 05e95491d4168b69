"""WeChat HTML size: characters of HTML per character a reader sees, per document.

    python bench/bench_html_ratio.py               # the example and the corpus
    python bench/bench_html_ratio.py --no-corpus   # the example only (the smoke test's run)
    python bench/bench_html_ratio.py --write       # also rewrite its part of bench/README.md

WeChat counts the whole HTML string of an article against its size limits, tags and
``style`` attributes included, so every inline declaration that changes nothing costs an
editor room for text. For each document this renders the WeChat article in every shipped
theme and divides the length of the HTML by the length of the text it shows (the article's
text content, references included). Target: a median of at most 2.0 over the example and
the corpus in the default theme. The corpus documents are loaded as ``bench_render.py``
loads them.

A formula is an ``<svg>`` of glyph outlines, so the text content counts it as nothing,
although a reader sees its symbols as surely as letters. A second figure therefore adds
each formula's glyphs, one per character drawn (ziamath draws each glyph as one
``<path>``; fraction bars and other rules, ``<rect>``, are not counted): ``E=mc^2`` is five.
The target and its verdict stay on the first figure, the text content alone.
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
from run_all import END, README

from crosspost.errors import CrosspostError
from crosspost.issue.model import Issue
from crosspost.render.rendered import RenderContext, render

THEMES = ("default", "grace")
TARGET = 2.0
_STYLE = re.compile(r' style="[^"]*"')


@dataclass(frozen=True)
class Size:
    """One rendered article: its HTML, the text it shows, its formulas' glyphs and its
    ``style`` attributes."""

    html: int
    text: int
    styles: int
    glyphs: int = 0

    @property
    def ratio(self) -> float:
        return self.html / self.text if self.text else float("inf")

    @property
    def ratio_with_glyphs(self) -> float:
        """HTML per character seen, a formula's glyphs counted as characters."""
        seen = self.text + self.glyphs
        return self.html / seen if seen else float("inf")


def measure(issue: Issue, theme: str) -> Size:
    """The sizes of ``issue``'s WeChat article in ``theme``."""
    body = render(issue, "wechat", RenderContext(theme=theme)).body
    root = lxml.html.fragment_fromstring(body)
    text = root.text_content().strip()
    styles = sum(len(found) for found in _STYLE.findall(body))
    glyphs = sum(1 for svg in root.iter("svg") for _ in svg.iter("path"))
    return Size(len(body), len(text), styles, glyphs)


def report(corpus: bool = True) -> str:
    """The section as Markdown: one row per document, then the median and its verdict."""
    header = " | ".join(f"{theme}: HTML ÷ text" for theme in THEMES)
    lines = [
        "### WeChat HTML per visible character",
        "",
        f"| document | HTML chars | text chars | {header} | `style` share (default) "
        "| formula glyphs | default: HTML ÷ (text + glyphs) |",
        "|---|---:|---:|" + "---:|" * len(THEMES) + "---:|---:|---:|",
    ]
    ratios: list[float] = []
    with_glyphs: list[float] = []
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
            with_glyphs.append(first.ratio_with_glyphs)
            cells = " | ".join(f"{size.ratio:.2f}" for size in sizes)
            lines.append(
                f"| {name} | {first.html:,} | {first.text:,} | {cells} "
                f"| {first.styles / first.html:.0%} | {first.glyphs:,} "
                f"| {first.ratio_with_glyphs:.2f} |"
            )
    median = statistics.median(ratios)
    verdict = "met" if median <= TARGET else "missed"
    lines += [""] + [f"Not measured: {note}" for note in skipped]
    lines += [
        "",
        f"Median over {len(ratios)} documents, default theme: {median:.2f} "
        f"(target ≤ {TARGET:.1f}, {verdict}); with formula glyphs counted as text: "
        f"{statistics.median(with_glyphs):.2f}.",
        f"SUMMARY: WeChat HTML ÷ visible text, median over the example and corpus "
        f"({len(ratios)} documents) | ≤ {TARGET:.1f} | {median:.2f} | {verdict}",
    ]
    return "\n".join(lines)


def write_readme(section: str, readme: Path = README) -> None:
    """Put ``section`` (this script's output) in its place in the generated block of the
    README, and its SUMMARY line in the block's table, leaving the other benchmarks'
    figures as ``run_all.py`` last wrote them."""
    text = readme.read_text(encoding="utf-8")
    body = "\n".join(line for line in section.splitlines() if not line.startswith("SUMMARY:"))
    summary = next(line for line in section.splitlines() if line.startswith("SUMMARY:"))
    row = "| " + summary.removeprefix("SUMMARY:").strip() + " |"
    text = re.sub(r"^\| WeChat HTML ÷ visible text, median .*$", lambda _: row, text, flags=re.M)
    heading = "### WeChat HTML per visible character"
    if heading not in text or END not in text:
        raise SystemExit(f"{readme} has no generated section to rewrite: run run_all.py")
    head, rest = text.split(heading, 1)
    tail = rest[rest.index(END) :]
    readme.write_text(f"{head}{body.strip()}\n\n{tail}", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-corpus", action="store_true", help="the example only")
    parser.add_argument("--write", action="store_true", help="rewrite its part of README.md")
    args = parser.parse_args(argv)
    section = report(corpus=not args.no_corpus)
    print(section)
    if args.write:
        write_readme(section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
