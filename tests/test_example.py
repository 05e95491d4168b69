"""The example issue is the seed issue, faithfully: every line of the plain-text seed is in
the canonical document, apart from the few editorial changes listed here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PIL import Image

from crosspost.issue.loader import load_issue

SEED = "seeds/000_c5131b8f50e07dec.txt"

#: Scraper spam injected into the seed's item 12 ("全栈解决方案" → "全栈ag真人官方网的解决方案").
SPAM = "ag真人官方网的"


def _seed_lines(shared_dir: Path) -> list[str]:
    path = shared_dir / SEED
    if not path.is_file():
        pytest.skip(f"{SEED} is not in ../shared")
    return [line.strip() for line in path.read_text("utf-8").splitlines() if line.strip()]


def _visible(body: str) -> str:
    """The body without the Markdown marks the conversion added (headings, quotes, lists)."""
    text = re.sub(r"^(#+ |> ?|- )", "", body, flags=re.MULTILINE)
    return text.replace("<", "").replace(">", "")


def _expected(line: str) -> str | None:
    """What a seed line became in the document; ``None`` for lines that were dropped."""
    if line == "关键词:":  # an empty "keywords" field of the scraped page
        return None
    if line == "(资料图)":  # "(stock picture)": the picture itself, with that alt text
        return "![资料图]("
    line = line.replace(SPAM, "")
    # Translator notes became quotes: "(译注:…)" → "> 译注:…".
    line = re.sub(r"^\(译注:(.*)\)$", r"译注:\1", line)
    line = line.removesuffix("(译注:")  # a note opened at the end of a paragraph …
    line = re.sub(r"。\)$", "。", line)  # … and closed at the end of its last line
    if line.startswith("欢迎体验oneflow v0.8.0:"):  # a link card, kept as one link
        return "欢迎体验oneflow v0.8.0:[github - oneflow-inc/oneflow: oneflow is a deep"
    return line


def test_every_seed_line_is_in_the_example(shared_dir: Path, example_issue: Path) -> None:
    body = load_issue(example_issue).body
    visible = _visible(body)
    missing = [
        line
        for line in _seed_lines(shared_dir)
        if (expected := _expected(line)) is not None
        and expected not in visible
        and expected not in body
    ]
    assert missing == []
    assert SPAM not in body


def test_items_are_numbered_headings_in_seed_order(shared_dir: Path, example_issue: Path) -> None:
    seed_items = [line for line in _seed_lines(shared_dir) if re.match(r"^\d+\.", line)]
    headings = re.findall(r"^## (\d+\..*)$", load_issue(example_issue).body, re.MULTILINE)
    assert len(seed_items) == 12
    assert headings == seed_items


def test_example_images_are_small_and_the_cover_is_wechat_shaped(example_issue: Path) -> None:
    issue = load_issue(example_issue)
    assert issue.cover is not None
    with Image.open(issue.cover) as cover:
        assert (cover.format, cover.size) == ("JPEG", (900, 383))
    for image in (example_issue.parent / "images").iterdir():
        assert image.stat().st_size < 100_000, image.name
