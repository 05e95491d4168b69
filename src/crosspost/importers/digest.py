"""Plain-text digests (how an issue arrives from a translator or an older post) → an issue.

A digest is an intro, numbered items (``1.``, ``1、``, ``①``) each with a title and
optional ``链接:``/``作者:``/``发表时间:``/``摘要:`` fields and free paragraphs, notes in
parentheses (``(译注:…)``, ``(注:…)``, possibly over several lines), a
"其他人都在看" list, a closing line and a trailing ``关键词:`` line. Half- and
full-width punctuation are the same to it.

The importer never drops text: whatever it cannot place is kept as a paragraph and
reported as a :class:`DigestWarning` with its line number, so the editor can look.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from crosspost.issue.loader import read_text
from crosspost.patterns import pattern
from crosspost.platforms.registry import PLATFORMS

_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
_ITEM = pattern(rf"^\s*(?:(\d{{1,3}})\s*[.、．)）]|([{_CIRCLED}]))\s*(\S.*)$")
_FIELD = pattern(r"^\s*(链接|作者|发表时间|摘要)\s*[:：]\s*(.*)$")
_NOTE_OPEN = pattern(r"[(（]\s*(译注|注)\s*[:：]")
_PLACEHOLDER = pattern(r"^\s*[(（]\s*(资料图|图片|配图|图)\s*[)）]\s*$")
_KEYWORDS = pattern(r"^\s*关键词\s*[:：]\s*(.*)$")
_ISSUE_NUMBER = pattern(r"第\s*(\d+)\s*期")
_BOOK_TITLE = pattern(r"《([^》]{2,40})》")
_URL = pattern(r"https?://[A-Za-z0-9\-._~:/?#\[\]@!$&'*+;=%]+[A-Za-z0-9/\-_~#=&%]")
_SEE_ALSO = {"其他人都在看", "往期推荐", "推荐阅读", "相关阅读"}
# A reading-list entry is a title; a longer line (or one with a URL) is the closing line.
_SEE_ALSO_MAX = 48


@dataclass(frozen=True)
class DigestWarning:
    """Something the importer kept but could not place with confidence."""

    line: int
    message: str


@dataclass(frozen=True)
class ImportResult:
    """The canonical issue document and what the editor should look at."""

    document: str
    warnings: tuple[DigestWarning, ...] = ()
    items: int = 0


@dataclass
class _Item:
    number: str
    title: str
    line: int
    fields: dict[str, str] = field(default_factory=dict)
    blocks: list[str] = field(default_factory=list)


@dataclass
class _Digest:
    intro: list[str] = field(default_factory=list)
    items: list[_Item] = field(default_factory=list)
    see_also_heading: str = ""
    see_also: list[str] = field(default_factory=list)
    closing: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    warnings: list[DigestWarning] = field(default_factory=list)


#: What only Markdown writes, at a line's start (a heading, a quote, a fence, a bullet, a
#: table row) or inside it (a link or picture, bold, code). A digest's numbered lines
#: are both Markdown's and a digest's, so they say nothing either way.
_MARKDOWN = pattern(
    r"^[ \t]*(?:#{1,6}[ \t]|>|```|~~~|[-*+][ \t]|\|.*\|[ \t]*$)|\]\(|!\[|\*\*|`", re.M
)


def digest_items(text: str) -> int:
    """How many items of a plain-text digest ``text`` is, when it is one: numbered items,
    at least one with its ``链接:``/``作者:``/``摘要:`` lines, and no Markdown of its own
    (0 otherwise). Such a file, named as an issue, is read as Markdown into one run of
    paragraphs (its links, authors and notes run together, no title, no cover);
    ``crosspost import`` makes an issue of it."""
    if _MARKDOWN.search(text):
        return 0
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    items = _parse(lines).items
    return len(items) if any(item.fields for item in items) else 0


def import_digest(path: Path | str) -> ImportResult:
    """Read a plain-text digest file and return a canonical issue document."""
    return convert_digest(read_text(Path(path)))


def convert_digest(text: str) -> ImportResult:
    """Turn digest text into a canonical issue document (front matter + Markdown)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    digest = _parse(lines)
    document = _front_matter(digest) + _body(digest)
    return ImportResult(document, tuple(digest.warnings), len(digest.items))


# --- parsing ---------------------------------------------------------------------------


def _logical_lines(lines: list[str], digest: _Digest) -> Iterator[tuple[int, str]]:
    """Yield (line number, text) with multi-line parenthesised notes joined into one."""
    pending: list[str] = []
    start = 0
    depth = 0
    for number, raw in enumerate(lines, start=1):
        line = raw.strip().replace("\u3000", " ")
        if pending:
            pending.append(line)
            depth += _balance(line)
            if depth <= 0:
                yield start, "\n".join(pending)
                pending, depth = [], 0
            continue
        note = _NOTE_OPEN.search(line)
        if note and _balance(line[note.start() :]) > 0:
            pending, start, depth = [line], number, _balance(line[note.start() :])
            continue
        yield number, line
    if pending:
        digest.warnings.append(
            DigestWarning(start, "a note's parenthesis is never closed; kept as text")
        )
        yield start, "\n".join(pending)


def _balance(text: str) -> int:
    return sum(text.count(c) for c in "(（") - sum(text.count(c) for c in ")）")


def _parse(lines: list[str]) -> _Digest:
    digest = _Digest()
    item: _Item | None = None
    expected = 1
    section = "body"  # body → see_also → closing
    for number, line in _logical_lines(lines, digest):
        if not line:
            continue
        keywords = _KEYWORDS.match(line)
        if keywords:
            digest.keywords = [k for k in re.split(r"[,，、;；\s]+", keywords.group(1)) if k]
            continue
        if line in _SEE_ALSO:
            digest.see_also_heading, section, item = line, "see_also", None
            continue
        if section == "see_also":
            if len(line) <= _SEE_ALSO_MAX and not _URL.search(line):
                digest.see_also.append(line)
                continue
            section = "closing"
        if section == "closing":
            digest.closing.append(_paragraph(line))
            continue
        heading = _ITEM.match(line)
        if heading:
            label = heading.group(1) or str(_CIRCLED.index(heading.group(2)) + 1)
            if int(label) == expected or (item is None and int(label) == 1):
                item = _Item(label, heading.group(3).strip(), number)
                digest.items.append(item)
                expected = int(label) + 1
                continue
            digest.warnings.append(
                DigestWarning(
                    number, f"'{label}.' does not continue the numbering; kept as a paragraph"
                )
            )
        placeholder = _PLACEHOLDER.match(line)
        if placeholder:
            digest.warnings.append(
                DigestWarning(
                    number, f"image placeholder ({placeholder.group(1)}): add the image here"
                )
            )
            block = f"<!-- {line}: an image belongs here -->"
            (item.blocks if item else digest.intro).append(block)
            continue
        field_match = _FIELD.match(line)
        if field_match and item is not None:
            name, value = field_match.groups()
            if name in item.fields:
                digest.warnings.append(
                    DigestWarning(number, f"second '{name}' in one item; kept as text")
                )
                item.blocks.append(_paragraph(line))
                continue
            item.fields[name] = value.strip()
            item.blocks.append(_field(name, value.strip()))
            continue
        if item is None:
            digest.intro.append(_note(line) if _NOTE_OPEN.search(line) else _paragraph(line))
        elif _NOTE_OPEN.match(line) and line.rstrip().endswith((")", "）")):
            item.blocks.append(_note(line))
        else:
            item.blocks.extend(_split_trailing_note(line))
    if section == "see_also" and not digest.see_also:
        digest.warnings.append(DigestWarning(len(lines), "an empty reading list heading; kept"))
    return digest


def _split_trailing_note(line: str) -> list[str]:
    """A paragraph that ends in '(译注:…)' becomes the paragraph and a note quote."""
    note = _NOTE_OPEN.search(line)
    if note and note.start() > 0 and line.rstrip().endswith((")", "）")):
        return [_paragraph(line[: note.start()]), _note(line[note.start() :])]
    return [_paragraph(line)]


# --- writing Markdown -----------------------------------------------------------------

_ESCAPE = pattern(r"([\\`*_\[\]<>|~])")
_LINE_START = pattern(r"^(\s*)([#>+\-=]|\d+[.)])")


def _escape(text: str) -> str:
    """Escape Markdown syntax in plain text, leaving URLs readable and intact."""
    parts: list[str] = []
    last = 0
    for match in _URL.finditer(text):
        parts.append(_ESCAPE.sub(r"\\\1", text[last : match.start()]))
        parts.append(match.group(0))
        last = match.end()
    parts.append(_ESCAPE.sub(r"\\\1", text[last:]))
    escaped = "".join(parts)
    return _LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), escaped)


def _paragraph(text: str) -> str:
    return "\n".join(_escape(part) for part in text.split("\n"))


def _note(text: str) -> str:
    inner = text.strip()
    return "\n".join(f"> {_escape(part)}" if part else ">" for part in inner.split("\n"))


def _field(name: str, value: str) -> str:
    """``链接:``-style fields as a bold label; a bare URL becomes an autolink."""
    return f"**{name}**：{_autolink(value) if name == '链接' else _escape(value)}"


def _autolink(value: str) -> str:
    match = _URL.search(value)
    if match and match.group(0) == value.strip():
        return f"<{value.strip()}>"
    return _escape(value)


def _title(digest: _Digest) -> str:
    intro = " ".join(digest.intro)
    number = _ISSUE_NUMBER.search(intro)
    name = _BOOK_TITLE.search(intro)
    if number and name:
        return f"{name.group(1)} 第{number.group(1)}期"
    if number:
        after = re.split(r"[,，。:：;；(（]", intro[number.end() :], maxsplit=1)[0].strip()
        return f"{after} 第{number.group(1)}期" if after else f"第{number.group(1)}期"
    if digest.items:
        return digest.items[0].title
    return "Untitled issue"


#: The digest is cut to the shortest any platform takes, so every channel accepts it.
_DIGEST_CHARS = min(p.limits.digest_chars for p in PLATFORMS.values() if p.limits.digest_chars)


def _front_matter(digest: _Digest) -> str:
    data: dict[str, object] = {"title": _title(digest)}
    intro = " ".join(digest.intro)
    source = _URL.search(intro)
    if source:
        data["source_url"] = source.group(0).rstrip("。.,，)")
    if digest.items:
        data["digest"] = ";".join(i.title for i in digest.items[:2])[:_DIGEST_CHARS]
    if digest.keywords:
        data["zhihu"] = {"topics": digest.keywords}
    import yaml  # here: check asks digest_items of files without front matter, no YAML

    dumped = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=1000)
    return f"---\n{dumped}---\n\n"


def _item_markdown(item: _Item) -> str:
    title = _escape(item.title)
    return "\n\n".join([f"## {item.number}. {title}", *item.blocks])


def _body(digest: _Digest) -> str:
    blocks: list[str] = list(digest.intro)
    blocks.extend(_item_markdown(item) for item in digest.items)
    if digest.see_also_heading:
        blocks.append(f"## {digest.see_also_heading}")
        if digest.see_also:
            blocks.append("\n".join(f"- {_escape(line)}" for line in digest.see_also))
    blocks.extend(digest.closing)
    return "\n\n".join(blocks) + "\n"
