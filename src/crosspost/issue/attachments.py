"""Files an issue names beside it: iA Writer's content blocks and Bear's attachments.

iA Writer writes a line that is only ``/chart.png``, ``/data.csv``, ``/part.md`` or
``/fib.py`` (a title may follow in quotes or brackets) and shows the file in its place:
the picture, a table, the text, the code. Bear writes ``[image:IMG_0231.png]`` and
``[file:report.pdf]`` for a note's attachments, and its export puts them in a folder
named after the note. Markdown reads each as words, so both channels showed a path.

Which of them name a real file is a question for the disk, and the parse must not ask
it (renderers are pure; a parse is shared by every stage): so the loader asks it once,
with :func:`attachments_of`, and keeps what it found on the issue; the parse reads that
(:func:`content_block`, :func:`bear_attachments`). A line naming no file stays the
writer's words: ``/usr/bin 是系统目录`` is prose.

Every file whose text the issue takes in (a content block's, an MkDocs snippet's:
:mod:`crosspost.issue.snippets`) is read by one reader, :func:`included_text`, as the
issue itself is read (UTF-8, or what its byte-order mark says); one it cannot read, or
too large to be meant, is shown as the line that names it, and check says why.
"""

from __future__ import annotations

import csv
import functools
import io
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.issue.blocks import (
    NOTES,
    destination,
    fence_starts,
    in_fence,
    inline_lines,
    paragraph,
)
from crosspost.issue.encoding import SAVE_AS_UTF8, NotText, text_of
from crosspost.patterns import pattern

#: A content block's line: ``/path/to/file.ext`` and maybe a title, ``"…"`` or ``(…)``.
CONTENT_BLOCK = pattern(
    r"^ {0,3}(/[^\s\"'()]+\.[A-Za-z0-9]{1,10})"
    r"(?:[ \t]+(?:\"([^\"\n]*)\"|'([^'\n]*)'|\(([^()\n]*)\)))?[ \t]*$",
    re.MULTILINE,
)
#: Bear's attachment: ``[image:IMG_0231.png]``, ``[file:report.pdf]`` (not a link's text).
BEAR_ATTACHMENT = pattern(r"\[(image|file):([^\[\]\n]+)\](?![(\[:])")
#: What check is told of a Bear attachment naming no file found (a warning).
MISSING_ATTACHMENT = "missing-attachment"
#: What check is told of a file the issue includes that cannot be read (a warning).
UNREADABLE_FILE = "unreadable-file"
#: Where the parse finds the attachments, in its ``env``: an :class:`Attached`.
ATTACHED = "crosspost_attached"
#: The Markdown files being included, innermost last (a file that includes itself,
#: directly or not, stays a line of text).
_INCLUDING = "crosspost_including"
#: The body line of the outermost content block being read: what it includes, however
#: deep, stands on that line for check.
_INCLUDED_AT = "crosspost_included_at"
#: Past this, a text file is not included: a log or a data dump named by mistake.
MAX_INCLUDED_CHARS = 150_000

_PICTURES = frozenset({"png", "jpg", "jpeg", "gif", "webp", "svg", "bmp", "avif"})
_TABLES = {"csv": ",", "tsv": "\t"}
_TEXTS = frozenset({"md", "markdown", "txt", "text"})
#: Code files iA Writer shows as code, by extension, with the language Pygments knows.
CODE_LANGUAGES = {
    "py": "python", "js": "javascript", "mjs": "javascript", "ts": "typescript",
    "tsx": "tsx", "jsx": "jsx", "go": "go", "rs": "rust", "java": "java", "kt": "kotlin",
    "swift": "swift", "c": "c", "h": "c", "cc": "cpp", "cpp": "cpp", "hpp": "cpp",
    "cs": "csharp", "rb": "ruby", "php": "php", "sh": "bash", "bash": "bash", "zsh": "bash",
    "sql": "sql", "r": "r", "lua": "lua", "pl": "perl", "scala": "scala", "dart": "dart",
    "json": "json", "yaml": "yaml", "yml": "yaml", "toml": "toml", "xml": "xml",
    "html": "html", "css": "css", "scss": "scss", "m": "objectivec", "jl": "julia",
}  # fmt: skip
#: A leading YAML front matter of an included Markdown file: its fields are not text.
_FRONT_MATTER = pattern(r"\A---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.DOTALL)


@dataclass(frozen=True)
class Attachment:
    """A file the issue names that exists: its path relative to the issue's folder
    (``/``-separated), what it is, and what the parse needs of it."""

    #: ``"block"`` (an iA Writer content block), ``"bear"`` or ``"snippet"`` (MkDocs).
    origin: str
    #: For a content block the path relative to the issue's folder; for Bear, as written.
    written: str
    path: str
    #: ``image``, ``table``, ``text``, ``code``, ``file``, ``issue`` (the issue itself),
    #: ``too-large`` or ``unreadable``.
    kind: str
    #: The file's text; for an ``unreadable`` one, what is wrong with it and what to do.
    text: str = ""


class Attached:
    """The issue's attachments, looked up as the parse meets them."""

    def __init__(self, found: Iterable[Attachment]) -> None:
        self.blocks = {a.written: a for a in found if a.origin == "block"}
        self.bear = {a.written: a for a in found if a.origin == "bear"}
        #: MkDocs snippets' files (:mod:`crosspost.issue.snippets`), by the name written.
        self.snippets = {a.written: a for a in found if a.origin == "snippet"}


def _kind(path: str) -> str:
    extension = path.rsplit(".", 1)[-1].lower()
    if extension in _PICTURES:
        return "image"
    if extension in _TABLES:
        return "table"
    if extension in _TEXTS:
        return "text"
    return "code" if extension in CODE_LANGUAGES else ""


def block_path(base: str, written: str) -> str | None:
    """The path a content block's ``/…`` names relative to the issue's folder, read from
    the folder of the file it stands in (``base``); None when it leaves the folder."""
    joined = posixpath.normpath(posixpath.join(base, unquote(written).lstrip("/")))
    return None if joined.startswith("../") or joined == ".." else joined


def attachments_of(issue_path: Path, body: str, names: Sequence[str]) -> tuple[Attachment, ...]:
    """The files ``body`` names that exist beside the issue at ``issue_path``: content
    blocks (and those of the Markdown files they include), and Bear's attachments,
    looked for beside the issue and in a folder named after the note (``names``: its
    file's stem, its title). Reads the disk: the loader's, once per issue."""
    if "/" not in body and "[" not in body:
        return ()
    folder = issue_path.parent
    found: dict[tuple[str, str], Attachment] = {}
    own = issue_path.name
    pending = [("", body)]
    while pending:
        base, text = pending.pop()
        for written in _block_lines(text):
            relative = block_path(base, written)
            if relative is None or ("block", relative) in found:
                continue
            attachment = _read_block(folder, relative, own)
            if attachment is not None:
                found["block", relative] = attachment
                if attachment.kind == "text":
                    pending.append((posixpath.dirname(relative), attachment.text))
    for match in BEAR_ATTACHMENT.finditer(body):
        kind, written = match.group(1), match.group(2).strip()
        for where in ("", *names):
            candidate = posixpath.join(where, written) if where else written
            if ("bear", written) not in found and (folder / candidate).is_file():
                found["bear", written] = Attachment(
                    "bear", written, candidate, "image" if kind == "image" else "file"
                )
    return tuple(found.values())


def _block_lines(text: str) -> Iterable[str]:
    """The paths of the lines of ``text`` that look like content blocks, outside fences."""
    if "/" not in text:
        return
    fences: list[int] | None = None
    for match in CONTENT_BLOCK.finditer(text):
        fences = fence_starts(text) if fences is None else fences
        if not in_fence(fences, match.start()):
            yield match.group(1)


def _read_block(folder: Path, relative: str, own: str) -> Attachment | None:
    kind = _kind(relative)
    file = folder / relative
    if not kind or not file.is_file():
        return None
    if not file.resolve().is_relative_to(folder.resolve()):
        return None  # a link out of the issue's folder: nothing from there is published
    if relative == own:
        return Attachment("block", relative, relative, "issue")
    if kind == "image":
        return Attachment("block", relative, relative, kind)
    read, text = included_text(file)
    if read != "text":
        return Attachment("block", relative, relative, read, text)
    if kind == "text":
        front = _FRONT_MATTER.match(text)
        text = text[front.end() :] if front else text
    return Attachment("block", relative, relative, kind, text)


def included_text(file: Path) -> tuple[str, str]:
    """The text of a file the issue includes (a content block's, a snippet's), read as
    the issue is (:func:`crosspost.issue.encoding.text_of`), with Unix line ends:
    ``("text", …)``; ``("too-large", "")`` past :data:`MAX_INCLUDED_CHARS`; or
    ``("unreadable", why)``, ``why`` what is wrong with it and what to do, in words
    that follow its name (``is not UTF-8 text (its line 3); save it as UTF-8 …``)."""
    try:
        if file.stat().st_size > MAX_INCLUDED_CHARS * 4:
            return "too-large", ""
        text = text_of(file.read_bytes())
    except OSError as error:
        return "unreadable", f"cannot be read ({error.strerror}); check its permissions"
    except NotText as error:
        where = f" (its line {error.line})" if error.line else ""
        return "unreadable", f"{error.what}{where}; {SAVE_AS_UTF8}"
    if len(text) > MAX_INCLUDED_CHARS:
        return "too-large", ""
    return "text", text.replace("\r\n", "\n")


# --- the parse ------------------------------------------------------------------------


def content_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """An iA Writer content block naming a file the loader found: the picture, the table
    (its first row the header), the Markdown read in its place, or the code."""
    attached: Attached | None = state.env.get(ATTACHED)
    if attached is None or not attached.blocks or state.sCount[start] - state.blkIndent >= 4:
        return False
    begin, finish = state.bMarks[start] + state.tShift[start], state.eMarks[start]
    if state.src[begin : begin + 1] != "/":
        return False
    found = CONTENT_BLOCK.fullmatch(state.src[begin:finish])
    if found is None:
        return False
    including: list[str] = state.env.setdefault(_INCLUDING, [])
    relative = block_path(posixpath.dirname(including[-1]) if including else "", found.group(1))
    attachment = attached.blocks.get(relative or "")
    if attachment is None:
        return False
    if silent:
        return True
    title = next((part for part in found.groups()[1:] if part), "").strip()
    written = found.group(1)
    state.line = start + 1
    if attachment.kind in ("unreadable", "issue", "too-large") or attachment.path in including:
        if attachment.kind == "unreadable":
            note(
                state,
                start,
                f"'{written}' is a content block, but {attachment.path} {attachment.text}; "
                "until then the line is shown as it is",
                UNREADABLE_FILE,
            )
        else:
            why = (
                f"'{written}' is larger than {MAX_INCLUDED_CHARS:,} characters"
                if attachment.kind == "too-large"
                else f"'{written}' would include itself"
            )
            note(state, start, f"{why}, so the content block is shown as the line it is")
        paragraph(state, found.group(0).strip().replace("\\", "\\\\"), start)
        return True
    if attachment.kind == "image":
        paragraph(state, f"![{_escaped(title)}]({destination(attachment.path)})", start)
        what = "the picture"
    elif attachment.kind == "code":
        token = state.push("fence", "code", 0)
        token.info = CODE_LANGUAGES[attachment.path.rsplit(".", 1)[-1].lower()]
        # Its markup is the block's own mark: check looks for no closing fence.
        token.content, token.markup, token.map = attachment.text, "/", [start, start + 1]
        if not token.content.endswith("\n"):
            token.content += "\n"
        what = "its code"
    else:
        markdown = attachment.text
        if attachment.kind == "table":
            markdown = _table(attachment.text, _TABLES[attachment.path.rsplit(".", 1)[-1]])
        including.append(attachment.path)
        parsed_here(state, markdown, start)
        including.pop()
        what = "a table" if attachment.kind == "table" else "its text"
    shown = f"'{written}' is a content block: {what} from {attachment.path} is shown"
    if attachment.kind in ("code", "text"):  # a file's words go out: the editor looks
        note(state, start, f"{shown}; check that it is meant for readers", "content-file")
    else:
        note(state, start, shown)
    return True


def note(
    state: StateBlock | StateCore, line: int, message: str, code: str = "content-block"
) -> None:
    """A note for check, on the body line the outermost block stands on."""
    state.env.setdefault(NOTES, []).append((_outer_line(state, line), code, message))


def _outer_line(state: StateBlock | StateCore, line: int) -> int:
    outer: int | None = state.env.get(_INCLUDED_AT)
    return line if outer is None else outer


def parsed_here(state: StateBlock, markdown: str, line: int) -> None:
    """``markdown`` parsed as blocks where the content block stood: every token at the
    block's depth and on its line (check names that line for anything inside)."""
    outer = state.env.get(_INCLUDED_AT)
    if outer is None:
        state.env[_INCLUDED_AT] = line
    tokens: list[Token] = []
    state.md.block.parse(markdown, state.md, state.env, tokens)
    if outer is None:
        del state.env[_INCLUDED_AT]
    mapped = _outer_line(state, line)
    for token in tokens:
        token.level += state.level
        if token.map is not None:
            token.map = [mapped, mapped + 1]
        state.tokens.append(token)


def _escaped(text: str) -> str:
    return re.sub(r"([\\\[\]])", r"\\\1", text)


def _table(text: str, delimiter: str) -> str:
    """A CSV file as a pipe table, its first row the header."""
    rows = [row for row in csv.reader(io.StringIO(text), delimiter=delimiter) if row]
    if not rows:
        return ""
    width = max(len(row) for row in rows)

    def line(row: list[str]) -> str:
        cells = [_cell(cell) for cell in row] + [""] * (width - len(row))
        return "| " + " | ".join(cells) + " |"

    return "\n".join([line(rows[0]), "|" + " --- |" * width, *map(line, rows[1:])]) + "\n"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("\\", "\\\\").replace("|", "\\|") or " "


# --- Bear -----------------------------------------------------------------------------


def bear_attachments(state: StateCore) -> None:
    """Bear's ``[image:…]`` and ``[file:…]`` naming a file the loader found: the picture,
    or a link to the file. One naming no file stays as written, and check warns at its
    line, as for any picture that is missing."""
    if "[image:" not in state.src and "[file:" not in state.src:
        return
    attached: Attached | None = state.env.get(ATTACHED)
    known = attached.bear if attached is not None else {}
    missing: list[tuple[int, str, str]] = []

    def attachment(found: re.Match[str], line: int) -> str:
        named = known.get(found.group(2).strip())
        if named is None:
            missing.append((line, found.group(1), found.group(0)))
            return found.group(0)
        if named.kind == "image":
            return f"![]({destination(named.path)})"
        return f"[{_escaped(named.written)}]({destination(named.path)})"

    def attachments(text: str, line: int) -> str:
        if "[image:" not in text and "[file:" not in text:
            return text
        return BEAR_ATTACHMENT.sub(functools.partial(attachment, line=line), text)

    for token, lines in inline_lines(state.tokens, lambda text: "[" in text, attachments):
        token.content = "\n".join(lines)
    notes = state.env.setdefault(NOTES, []) if missing else []
    for line, kind, written in missing:
        what = "picture" if kind == "image" else "file"
        notes.append(
            (
                line,
                MISSING_ATTACHMENT,
                f"'{written}' is a Bear attachment, but its {what} is not next to the issue "
                "(nor in a folder named after the note, as Bear exports it), so it is shown "
                f"as written; add the {what} there, or remove the line",
            )
        )
