"""Marker oracle: put a unique token (``qzx0001``…) into every run of visible text of a
document, render it for every channel, and list the tokens a channel does not show on a
line ``check`` does not name.

    python bench/marker_oracle.py FILE... [--code] [--keep DIR]

Unlike tests/properties/test_reader_words.py (which compares each channel with the
project's own parse), the tokens are put into the source, so a dialect rule that drops
words before the parse is seen too. ``--code`` also puts tokens into fenced code.
Output: one line per token missing from an output file (``LOST`` when check names no
line, ``named`` when it does), shown twice (``DUP``), and a summary. Documents that
hold tokens already are taken as marked by hand: ``bench/marker_documents/`` holds one
per family of dialects, written as the tools export them.

    python bench/marker_oracle.py bench/marker_documents/*.md ../shared/corpus/*.md

What it still lists as ``LOST`` there is left out on purpose, and check names none of
it: comments (HTML, Obsidian's ``%%``, kramdown's, MDX's, Liquid's ``{% comment %}``,
Org's ``#+BEGIN_COMMENT``, ``[//]: #``), abbreviations' definitions (tooltips), a
Notion page's properties (read as front matter), a picture's alt beside its title.
Not a test: the marking is a heuristic (a token may land in syntax it breaks), so its
findings are read, not asserted.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import re
import sys
import tempfile
from pathlib import Path

from bs4 import BeautifulSoup, Comment
from markdown_it import MarkdownIt

from crosspost.cli import main

MARK = re.compile(r"qzx\d{4}")
#: Stretches of a line that are not words a reader sees: code spans, tags, link targets,
#: addresses, the names of shortcodes, directives and callouts, attribute keys and the
#: values of attributes never shown, heading attributes, footnote labels, formulas.
_SYNTAX = re.compile(
    r"""
      `+[^`]*`+
    | <!--.*?-->
    | </?[A-Za-z][^<>]*>
    | \]\([^)]*\)
    | \]\[[^\]]*\]
    | ^\s*\[[^\]]+\]:\s*\S+
    | \b(?:https?|ftp|mailto):[^\s)\]>"']+
    | \bwww\.[^\s)\]>"']+
    | [\w.-]+@[\w-]+\.[\w.]+
    | \{\{[<%]?\s*/?[\w.-]+
    | [%>]?\}\}
    | \{%-?\s*\w+ | -?%\}
    | \b(?:src|href|link|url|class|id|width|height|align|target|rel|lang|style|type|ref
          |size|icon|color|theme|position|layout|format|mode|loading|data-[\w-]+)
          \s*=\s*(?:"[^"]*"|'[^']*'|\S+)
    | \b[\w-]+\s*=
    | \[![\w-]+\][+-]?
    | ^\s*(?:>\s*)*(?::{3,}|!{3}|\?{3}\+?|\.\.\s+[\w:-]+::|\#\+\w+:?)\s*[\w-]*
    | \{[#.:][^}]*\}
    | \[\^[^\]]*\]
    | \$[^$\s][^$]*\$
    | \\\(.*?\\\)
    | &\#?\w+;
    | \^[\w-]+\s*$
    """,
    re.VERBOSE | re.MULTILINE,
)
_WORD = re.compile(r"[A-Za-z\u4e00-\u9fff][A-Za-z'\u4e00-\u9fff]*")
_FENCE = re.compile(r"^\s*(?:>\s*)*(`{3,}|~{3,})")


class Marker:
    def __init__(self) -> None:
        self.count = 0

    def next(self) -> str:
        self.count += 1
        return f"qzx{self.count:04d}"


def mark_line(line: str, marker: Marker) -> str:
    spans = [(m.start(), m.end()) for m in _SYNTAX.finditer(line)]
    out: list[str] = []
    at = 0
    for start, end in [*spans, (len(line), len(line))]:
        out.append(_mark_run(line[at:start], marker))
        out.append(line[start:end])
        at = end
    return "".join(out)


def _mark_run(run: str, marker: Marker) -> str:
    pieces = re.split(r"(\||\]|!?\[|\*\*|__|\s[-+*]\s)", run)
    out = []
    for index, piece in enumerate(pieces):
        word = _WORD.search(piece) if index % 2 == 0 else None
        if word:
            piece = piece[: word.end()] + " " + marker.next() + piece[word.end() :]
        out.append(piece)
    return "".join(out)


def mark_document(text: str, *, code: bool = False) -> str:
    """``text`` with a token in every run of visible text (and of code with ``code``)."""
    marker = Marker()
    lines = text.split("\n")
    out = []
    fence: str | None = None
    front = bool(lines) and lines[0].strip() in ("---", "+++")
    for index, line in enumerate(lines):
        if front:
            out.append(line)
            if index > 0 and line.strip() in ("---", "+++"):
                front = False
            continue
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
            out.append(line)
            continue
        if fence is not None:
            if (
                opened
                and opened.group(1).startswith(fence[0] * len(fence))
                and not line[opened.end() :].strip()
            ):
                fence = None
                out.append(line)
            elif code and line.strip():
                out.append(line + " " + marker.next())
            else:
                out.append(line)
            continue
        out.append(mark_line(line, marker) if not code else line)
    return "\n".join(out)


_BLOCKS = [
    "p", "div", "section", "li", "td", "th", "tr", "caption", "pre", "blockquote",
    "figure", "figcaption", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "summary",
]  # fmt: skip


def visible(markup: str, *, alt: bool = False, references: bool = True) -> str:
    """The text a reader sees of ``markup`` (HTML), with Zhihu's captions and formulas;
    ``alt``: an image's alt too (Zhihu makes it the caption of a Markdown image);
    ``references``: WeChat's list of links at the end too (a link's words said again)."""
    soup = BeautifulSoup(markup, "html.parser")
    if not references:
        for heading in soup.find_all("h3", string="引用链接"):
            if heading.parent is not None:
                heading.parent.decompose()
    for comment in soup.find_all(string=lambda node: isinstance(node, Comment)):
        comment.extract()
    for tag in soup.find_all(["script", "style", "template"]):
        tag.decompose()
    for svg in soup.find_all("svg"):
        svg.replace_with(f" {svg.get('aria-label') or ''} ")
    for tag in soup.find_all(True):
        said = [str(tag.get(name) or "") for name in ("data-text", "data-url", "data-caption")]
        if tag.name == "img" and (tag.get("eeimg") or alt):
            said.append(str(tag.get("title") or "") if alt else "")
            said.append(str(tag.get("alt") or ""))
        if any(said):
            tag.append(f" {' '.join(said)} ")
    for tag in soup.find_all(_BLOCKS):
        tag.insert(0, " ")
        tag.append(" ")
    return soup.get_text("")


def run_oracle(path: Path, *, code: bool = False, keep: Path | None = None) -> dict[str, object]:
    text = path.read_text("utf-8")
    # A document that holds tokens already was marked by hand.
    marked = text if MARK.search(text) else mark_document(text, code=code)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        source = work / path.name
        if path.parent.joinpath("images").is_dir():
            (work / "images").symlink_to(path.parent.resolve() / "images")
        source.write_text(marked, "utf-8")
        config = work / "crosspost.toml"
        config.write_text("", "utf-8")
        flags = ["--config", str(config), "--state-dir", str(work / "state")]
        out = work / "out"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main(["render", str(source), "-o", str(out), *flags])
        checked = io.StringIO()
        with contextlib.redirect_stdout(checked), contextlib.redirect_stderr(io.StringIO()):
            main(["check", str(source), "--json", *flags])
        report = json.loads(checked.getvalue())
        files = {
            p.name: p.read_text("utf-8") for p in out.glob("*") if p.suffix in (".html", ".md")
        }
        if keep:
            keep.mkdir(parents=True, exist_ok=True)
            (keep / path.name).write_text(marked, "utf-8")
            for name, content in files.items():
                (keep / name).write_text(content, "utf-8")
    problems = [p for f in report["files"] for p in f["problems"]]
    named: dict[int, list[dict[str, object]]] = collections.defaultdict(list)
    for problem in problems:
        if problem.get("line"):
            named[int(problem["line"])].append(problem)
    where = {}
    for number, line in enumerate(marked.split("\n"), 1):
        for token in MARK.findall(line):
            where[token] = (number, line)
    shown = {}
    for name, content in files.items():
        page = (
            MarkdownIt("commonmark").enable("table").render(content)
            if name.endswith(".md")
            else content
        )
        md = name.endswith(".md")
        shown[name] = (visible(page, alt=md), visible(page, alt=md, references=False), content)
    findings = []
    for token, (number, line) in where.items():
        for name, (seen, body, raw) in shown.items():
            count = seen.count(token)
            if count == 0:
                said = named.get(number, [])
                kind = "named" if said else "LOST"
                findings.append(
                    (
                        kind,
                        token,
                        name,
                        number,
                        line.strip()[:160],
                        "in-markup" if token in raw else "",
                        ";".join(f"{p['severity']}:{p['code']}" for p in said),
                    )
                )
            elif body.count(token) > 1:
                findings.append(("DUP", token, name, number, line.strip()[:160], str(count), ""))
    return {"markers": len(where), "findings": findings}


def cli() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--code", action="store_true")
    parser.add_argument("--keep", type=Path)
    parser.add_argument("--all", action="store_true", help="also list the named ones")
    args = parser.parse_args()
    for path in args.files:
        result = run_oracle(path, code=args.code, keep=args.keep)
        findings = result["findings"]
        assert isinstance(findings, list)
        counts = collections.Counter(f[0] for f in findings)
        print(f"== {path}: {result['markers']} markers, {dict(counts)}")
        for finding in findings:
            if args.all or finding[0] != "named":
                print("  ", " | ".join(str(x) for x in finding))
    return 0


if __name__ == "__main__":
    sys.exit(cli())
