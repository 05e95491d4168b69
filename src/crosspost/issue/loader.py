"""Reading an issue file: front matter and body, validated into a frozen Issue.

Editors bring files from elsewhere, so the front matter may be YAML (``---``), TOML
(``+++``, Hugo) or absent (the title is then the first ``# `` heading, else the file
name), and the keys static-site generators use map onto ours (``ALIASES`` in
:mod:`crosspost.issue.fields`). Front matter is normalised by a table of field → parser
(``FIELDS``), so adding a field is one line, and every problem names the file and the
line of the offending key. Problems do not stop the reading: they are kept on the issue
(:attr:`Issue.notices`) so ``render`` and ``preview`` still show it and ``check`` lists
them all; :func:`load_issue` is the strict form for publishing. The body's ``::: only``
blocks are checked here too, on the one parse of the body that lint and the renderers
share.
"""

from __future__ import annotations

import errno
import functools
import json
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from crosspost.errors import IssueError
from crosspost.issue.attachments import attachments_of
from crosspost.issue.body import check_containers
from crosspost.issue.canvas import canvas_problem, is_canvas_text
from crosspost.issue.carriage_returns import with_terminal_lines
from crosspost.issue.dialect import parse_document
from crosspost.issue.encoding import SAVE_AS_UTF8, NotText, as_utf8, text_of
from crosspost.issue.fields import (
    ALIASES,
    FIELDS,
    KNOWN_KEYS,
    PROSE_FIELDS,
    RECORD_DATES,
    TEXT_FIELDS,
    FieldContext,
    ImpossibleMoment,
    PartlyRead,
    meant_field,
    moment_problem,
)
from crosspost.issue.model import Issue, Notice
from crosspost.issue.remembered import recall, remember
from crosspost.issue.snippets import snippet_files
from crosspost.issue.wide_spaces import front_matter_indents, front_matter_spaces
from crosspost.patterns import pattern
from crosspost.platforms.registry import PLATFORMS

__all__ = [
    "JSON_FIELD",
    "default_issue_id",
    "load_issue",
    "opens_front_matter",
    "read_front_matter",
    "read_issue",
    "read_text",
    "split_front_matter",
    "unreadable",
]

if TYPE_CHECKING:
    import yaml
    from markdown_it.token import Token

#: The fences of the two front-matter kinds editors bring: YAML (Jekyll, Hexo, Hugo,
#: Astro, VuePress, …) and TOML (Hugo). YAML's may also end with ``...``, YAML's own
#: end-of-document line (Pandoc and R Markdown write it).
_YAML_FENCE = pattern(r"^---[ \t]*$")
_YAML_END = pattern(r"^(?:---|\.\.\.)[ \t]*$")
_TOML_FENCE = pattern(r"^\+\+\+[ \t]*$")
#: The start of a file that may have front matter, as bytes: the fence on the first line,
#: or after blank lines and then followed at once by a field (a key and ``:`` or ``=``);
#: a JSON object (``{"…``, ``{`` and a ``"key":`` line), Hexo's ``;;;``, or a first line
#: that is a field (Hexo's front matter without its opening line, a Pelican header).
#: A look, not a parse: what it lets through is read by :func:`split_front_matter`.
_OPENING = pattern(
    rb"\A(?:\xef\xbb\xbf)?(?:(?:---|\+\+\+)[ \t]*\r?(?:\n|\Z)"
    rb"|(?:[ \t]*\r?\n)+(?:---|\+\+\+)[ \t]*\r?\n[ \t]*[^\s:=]+[ \t]*[:=]"
    rb"|\{\s*\"|;{3,}[ \t]*\r?\n|\"[^\"\r\n]+\"[ \t]*:"
    rb"|[A-Za-z_][\w-]*[ \t]*:[^\r\n]*\r?\n[A-Za-z_][\w-]*[ \t]*:)"
)
#: A front-matter field's first line: ``title: …`` (YAML) or ``title = …`` (TOML).
_FIELD = pattern(r"^[ \t]*[^\s:=]+[ \t]*[:=]")
#: Front matter is a few fields; anything this long is a mistake (a pasted body, a log).
MAX_FRONT_MATTER_CHARS = 64_000
#: Deep enough for any field crosspost reads (``zhihu: {topics: [...]}`` is 2).
MAX_FRONT_MATTER_DEPTH = 10


# --- loading --------------------------------------------------------------------------


def load_issue(path: Path | str) -> Issue:
    """Read and validate one issue file; :class:`IssueError` (file:line) for its first error.

    For ``publish`` and the scheduler, which must not go on with a file that has one.
    ``check``, ``render`` and ``preview`` use :func:`read_issue`, which reports them all.
    """
    issue = read_issue(path)
    for notice in issue.notices:
        if notice.severity == "error":
            raise IssueError(Path(path), notice.message, notice.line)
    return issue


def read_issue(path: Path | str, *, lenient: bool = False) -> Issue:
    """Read one issue file, keeping what is wrong with it in :attr:`Issue.notices`.

    Raises :class:`IssueError` only for a file that cannot be read at all (missing, not
    UTF-8 nor marked UTF-16 or UTF-32, front matter that does not parse): anything else
    (a bad field, an unclosed block, no title) is a notice, so an editor can still render
    and look at the issue.
    ``lenient`` (``render``, ``preview``): front matter that does not parse is an error
    notice too, and the body is read without it; ``check`` keeps it the one line it is.
    """
    path = Path(path)
    wrong = _not_an_issue(path)
    if wrong:
        raise IssueError(path, wrong)
    text = read_text(path)
    if text.startswith("{") and is_canvas_text(text):  # no front matter: no issue at all
        raise IssueError(path, canvas_problem(text), 1)
    if not text.strip():
        raise IssueError(path, "is empty; write a '# title' line and the issue below it", 1)
    return _build_issue(path, _split(path, text, lenient=lenient))


#: Files an editor may name by mistake (the config, a page crosspost wrote, a picture),
#: by suffix → what they are. Read as Markdown they gave "needs a cover" and a publish of
#: the file's raw text once one was added. Any other file may hold an issue (``.txt``).
_NOT_ISSUES = {
    **dict.fromkeys((".toml", ".ini", ".cfg", ".env"), "a settings file"),
    **dict.fromkeys((".yaml", ".yml", ".json", ".jsonl"), "a data file"),
    **dict.fromkeys((".html", ".htm", ".xhtml"), "a web page"),
    **dict.fromkeys((".py", ".sh", ".js", ".css", ".j2"), "a program or template"),
    **dict.fromkeys((".sqlite3", ".db"), "a database"),
    **dict.fromkeys(
        (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".svg", ".heic"), "a picture"
    ),
    **dict.fromkeys((".pdf", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx"), "a document"),
    **dict.fromkeys((".zip", ".gz", ".tgz"), "an archive"),
}


def _not_an_issue(path: Path) -> str | None:
    """What is wrong with naming ``path`` as an issue, when its suffix says it is no
    Markdown at all; None for any file that may be one."""
    what = _NOT_ISSUES.get(path.suffix.lower())
    if what is None or not path.is_file():
        return None
    if what == "a web page":
        from crosspost.config.advice import command_line  # only for a page named as an issue

        command = command_line("import", str(path), rehearsal=False)
        return (
            "is a web page, not an issue (Markdown): name the issue's .md file; a page "
            "crosspost wrote (build/…/wechat.html) is its output, and a saved WeChat or "
            f"Zhihu article becomes an issue with '{command}'"
        )
    if what == "a document":
        fix = "export it as Markdown (Word: a converter such as pandoc) and name that file"
        return f"is {what} ({path.suffix}), not an issue (Markdown); {fix}"
    return f"is {what} ({path.suffix}), not an issue (Markdown); name the issue's .md file"


def read_front_matter(path: Path | str) -> tuple[dict[str, Any], dict[str, int]]:
    """Only the front matter (for the scheduler, which must not parse 1,000 bodies)."""
    path = Path(path)
    text = read_text(path)
    front, lines, _, _ = split_front_matter(path, text)
    return front, lines


def opens_front_matter(head: bytes) -> bool:
    """Whether a file that starts with ``head`` has front matter (a quick look for the
    scanners of issue folders: a README in the folder has none). A UTF-16 or UTF-32 file
    is looked at as the loader reads it, by its byte-order mark."""
    return _OPENING.match(as_utf8(head)) is not None


def unreadable(path: Path | str, error: OSError) -> IssueError:
    """The one line for an issue file the system will not read, by what stands in the way:
    a missing file and a link to nowhere, a link that leads back to itself, permissions."""
    if error.errno == errno.ENOENT:
        if Path(path).is_symlink():
            return IssueError(
                path, "is a symbolic link to a file that does not exist; fix or remove the link"
            )
        return IssueError(path, "no such file; check the path")
    if error.errno == errno.ELOOP:
        return IssueError(
            path, "is a symbolic link that leads back to itself; point it at a file or remove it"
        )
    if error.errno in (errno.EACCES, errno.EPERM):
        return IssueError(path, "cannot be read (permission denied); check its permissions")
    return IssueError(path, f"cannot be read ({error.strerror}); check the path")


def read_text(path: Path) -> str:
    """A text file as str with Unix line ends; IssueError (file:line, the fix) if it isn't.

    UTF-8, or UTF-16 or UTF-32 with the byte-order mark that says so (Notepad's
    "Unicode"): see :mod:`crosspost.issue.encoding`."""
    if path.is_dir():
        raise IssueError(path, "is a folder, not an issue file; name the .md file inside it")
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise unreadable(path, error) from None
    try:
        text = text_of(raw)
    except NotText as error:
        raise IssueError(path, f"{error.what}; {SAVE_AS_UTF8}", error.line) from None
    return with_terminal_lines(text)


def split_front_matter(path: Path, text: str) -> tuple[dict[str, Any], dict[str, int], str, int]:
    """Split the front matter from the body; return (data, key lines, body, body line).

    ``---`` opens YAML front matter (closed by ``---`` or ``...``) and ``+++`` TOML, on
    the file's first line or after blank lines only; a file that starts otherwise has
    none (its data is empty and the whole file is the body).
    """
    front = _split(path, text)
    return front.data, front.lines, front.body, front.body_line


@dataclass(frozen=True)
class _Front:
    """A file split: its front matter (data, key lines, what the parse noticed) and body."""

    data: dict[str, Any]
    lines: dict[str, int]
    body: str
    body_line: int
    notices: tuple[Notice, ...] = ()


def _split(path: Path, text: str, *, lenient: bool = False) -> _Front:
    """``text`` split; front matter that does not parse is an error notice when
    ``lenient`` (the issue is read without it), else an :class:`IssueError`."""
    lines = text.split("\n")
    # Blank lines before the fence are no reason to publish the front matter as text;
    # but then the fence must be followed at once by a field, or it is a body that
    # opens with a rule (``---``, a blank line, a paragraph).
    start = next((index for index, line in enumerate(lines) if line.strip(" \t")), 0)
    if start and not _FIELD.match(lines[start + 1] if start + 1 < len(lines) else ""):
        return _Front({}, {}, text, 1)
    if _YAML_FENCE.match(lines[start]):
        closing, parse = _YAML_END, _parse_yaml
    elif _TOML_FENCE.match(lines[start]):
        closing, parse = _TOML_FENCE, _parse_toml
    elif start == 0 and lines[0].startswith("{"):
        return _json_front(path, text, lines, lenient=lenient)
    elif start == 0 and (headless := _headless_end(lines)) is not None:
        end, marker = headless
        parse = _parse_json_fields if marker.startswith(";") else _parse_yaml
        first = 1 if _HEXO_JSON_FENCE.match(lines[0]) else 0
        try:
            return _read_front(path, lines, (first, end), end + 1, parse, marker, lenient=False)
        except IssueError:
            # Hexo reads these lines as front matter only when they parse; otherwise they
            # are the body's first words (and `check` says they look like front matter).
            return _Front({}, {}, text, 1)
    elif start == 0 and _PAGE_PROPERTY.match(lines[0]):
        return _page_properties(lines)
    elif start == 0 and _METADATA_TITLE.match(lines[0]):
        return _metadata_header(lines)
    else:
        return _Front({}, {}, text, 1)
    marker = lines[start].strip()
    for index in range(start + 1, len(lines)):
        if closing.match(lines[index]):
            end = index
            break
    else:
        raise IssueError(
            path, f"front matter is not closed; add a '{marker}' line after it", start + 1
        )
    return _read_front(path, lines, (start + 1, end), end + 1, parse, marker, lenient=lenient)


def _read_front(
    path: Path,
    lines: list[str],
    span: tuple[int, int],
    body_start: int,
    parse: _FrontParser,
    marker: str,
    *,
    lenient: bool,
) -> _Front:
    """The front matter in ``lines[span[0]:span[1]]`` read by ``parse``, the body from
    ``lines[body_start]`` on; ``lenient``: front matter that does not parse is an error
    notice and the body is read without it."""
    start, end = span
    size = sum(len(line) + 1 for line in lines[start:end])
    if size > MAX_FRONT_MATTER_CHARS:
        raise IssueError(
            path,
            f"front matter is {size:,} characters long (at most "
            f"{MAX_FRONT_MATTER_CHARS:,}); long text belongs in the body, below the "
            f"'{marker}'",
            max(start, 1),  # the opening fence's line (the object's first, in JSON)
        )
    body = "\n".join(lines[body_start:])
    try:
        # start + 1: the 1-based file line of the front matter's first line.
        data, key_lines, notices = parse(path, lines[start:end], start + 1)
    except IssueError as error:
        if not lenient:
            raise
        # The body is readable all the same: render and preview show it (its title from
        # its heading or the file's name), and check and publish refuse the file.
        notice = Notice(error.line, "front-matter", error.problem)
        return _Front({}, {}, body, body_start + 1, (notice,))
    return _Front(data, key_lines, body, body_start + 1, notices)


_FrontParser = Callable[
    [Path, list[str], int], tuple[dict[str, Any], dict[str, int], tuple[Notice, ...]]
]

#: A JSON object's member line: ``"title": …`` (Hugo's and Hexo's JSON front matter).
JSON_FIELD = pattern(r'^\s*"[^"]+"\s*:')
_JSON_KEY = pattern(r'^\s*"((?:[^"\\]|\\.)+)"\s*:')
#: What ends Hexo's front matter written without an opening line: ``---`` for YAML,
#: ``;;;`` for JSON (Hexo reads the lines above as ``{`` … ``}``).
_HEXO_JSON_FENCE = pattern(r"^;{3,}[ \t]*$")
_HEADLESS_YAML_END = pattern(r"^-{3,}[ \t]*$")
_YAML_KEY_LINE = pattern(r"^[A-Za-z_][\w-]*[ \t]*:(?:[ \t]|$)")


def _json_front(path: Path, text: str, lines: list[str], *, lenient: bool) -> _Front:
    """``text`` split when it opens with ``{``: Hugo's JSON front matter, or a body
    that opens with a brace of its own."""
    try:
        end = _json_object_end(path, text, lines)
    except IssueError as error:
        if not lenient:
            raise
        closing = next((i for i, line in enumerate(lines) if line.rstrip() == "}"), -1)
        notice = Notice(error.line, "front-matter", error.problem)
        return _Front({}, {}, "\n".join(lines[closing + 1 :]), closing + 2, (notice,))
    if end is None:
        return _Front({}, {}, text, 1)
    return _read_front(path, lines, (0, end + 1), end + 1, _parse_json, "}", lenient=lenient)


def _json_object_end(path: Path, text: str, lines: list[str]) -> int | None:
    """The line (0-based) where the JSON object opening ``text`` closes, when the file
    opens with one (Hugo's JSON front matter); ``None`` when the opening ``{`` is the
    body's (a ``{{< shortcode >}}``, a ``{% tag %}``). An object announced as front
    matter (``{`` alone, a ``"key":`` line under it) that does not parse is an error."""
    announced = lines[0].strip() == "{" and len(lines) > 1 and bool(JSON_FIELD.match(lines[1]))
    try:
        data, end = json.JSONDecoder().raw_decode(text)
    except json.JSONDecodeError as error:
        if not announced:
            return None
        raise IssueError(
            path, f"front matter is not valid JSON ({error.msg}); fix that line", error.lineno
        ) from None
    except RecursionError:
        raise IssueError(
            path, "front matter nests objects too deep; an issue needs two levels, flatten it", 1
        ) from None
    line = text.count("\n", 0, end)
    line_end = text.find("\n", end)
    rest = text[end : line_end if line_end >= 0 else len(text)]
    if not isinstance(data, dict) or not data or rest.strip():
        if not announced:
            return None
        raise IssueError(
            path,
            "front matter opens with '{' but is not one JSON object ending its line; write "
            "the object, then the body from the next line",
            line + 1,
        )
    return line


def _headless_end(lines: list[str]) -> tuple[int, str] | None:
    """``(line, marker)`` of the line that ends front matter written without its opening
    line, as Hexo allows: ``title: …`` lines, then ``---``; or ``"title": …`` lines (an
    object's members without braces), then ``;;;``, which may also open them. Every line
    above the end must be a field or a field's continuation, and YAML needs two fields
    (one ``key: value`` line above a ``---`` is a heading more often than not); else
    ``None``."""
    first = 1 if _HEXO_JSON_FENCE.match(lines[0]) else 0
    json_members = bool(first) or bool(JSON_FIELD.match(lines[0]))
    field, end, more = (
        (JSON_FIELD, _HEXO_JSON_FENCE, ("\t", " ", "}", "]"))
        if json_members
        else (_YAML_KEY_LINE, _HEADLESS_YAML_END, ("\t", " ", "-"))
    )
    fields = 0
    for index in range(first, min(len(lines), 200)):
        line = lines[index]
        if end.match(line):
            return (index, line.strip()) if fields >= (1 if json_members else 2) else None
        if field.match(line):
            fields += 1
        elif not line.strip() or not line.startswith(more):
            return None
    return None


def _parse_json(
    path: Path, lines: list[str], first: int
) -> tuple[dict[str, Any], dict[str, int], tuple[Notice, ...]]:
    """JSON front matter (Hugo's: one object), whose first line is the file's ``first``."""
    try:
        data = json.loads("\n".join(lines))
    except json.JSONDecodeError as error:
        raise IssueError(
            path,
            f"front matter is not valid JSON ({error.msg}); fix that line",
            error.lineno + first - 1,
        ) from None
    if not isinstance(data, dict):
        raise IssueError(path, 'front matter must be one JSON object ({ "title": … })', first)
    return data, _json_key_lines(lines, first), ()


def _parse_json_fields(
    path: Path, lines: list[str], first: int
) -> tuple[dict[str, Any], dict[str, int], tuple[Notice, ...]]:
    """Hexo's JSON front matter: an object's members without its braces, up to ``;;;``."""
    return _parse_json(path, ["{", *lines, "}"], first - 1)


def _json_key_lines(lines: list[str], first: int) -> dict[str, int]:
    """Each key's file line, found by a scan (a nested object's keys under its name)."""
    key_lines: dict[str, int] = {}
    for index, text in enumerate(lines):
        key = _JSON_KEY.match(text)
        if key:
            key_lines.setdefault(key.group(1), index + first)
    return key_lines


#: A line's indent holding a tab (see :func:`_parse_yaml`).
_TAB_INDENT = pattern(r"^ *\t[ \t]*", re.MULTILINE)


#: The first line of a Pelican or MultiMarkdown metadata header (This Week in Rust
#: writes every issue so): ``Title: …``, then ``Key: value`` lines to a blank line.
_METADATA_TITLE = pattern(r"^Title:[ \t]*\S", re.IGNORECASE)
_METADATA_LINE = pattern(r"^([A-Za-z][A-Za-z0-9_ -]{0,40}):[ \t]*(.*?)[ \t]*$")
#: Metadata keys whose value is a comma-separated list.
_METADATA_LISTS = frozenset({"tags", "keywords", "authors"})


def _metadata_header(lines: list[str]) -> _Front:
    """The Pelican/MultiMarkdown header that opens ``lines``, as front matter: each key
    lower-cased (``Title`` is ``title``, ``Tags`` ``zhihu.topics`` by the aliases),
    a list where Pelican reads one, ``Status: draft`` as ``draft: true``. Without it
    the header was the issue's first paragraph and its title the file's name."""
    data: dict[str, Any] = {}
    key_lines: dict[str, int] = {}
    end = 0
    while end < len(lines) and lines[end].strip():
        found = _METADATA_LINE.match(lines[end])
        if found is None:  # not a header after all: the file is all body
            return _Front({}, {}, "\n".join(lines), 1)
        key, value = found.group(1).strip().lower().replace(" ", "_"), found.group(2)
        if key in _METADATA_LISTS:
            data[key] = [part.strip() for part in value.split(",") if part.strip()]
        elif key == "status":
            data["draft"] = value.lower() == "draft"
            key = "draft"
        else:
            data[key] = value
        key_lines[key] = end + 1
        end += 1
    return _Front(data, key_lines, "\n".join(lines[end + 1 :]), end + 2)


#: A Logseq page property, on the page's first lines: ``title:: …``, ``tags:: a, [[b]]``.
_PAGE_PROPERTY = pattern(r"^([A-Za-z][\w-]{0,40})::[ \t]+(.*?)[ \t]*$")
_PAGE_LINK = pattern(r"\[\[([^\]]*)\]\]|#\[\[([^\]]*)\]\]")


def _page_names(text: str) -> str:
    """``text`` with each ``[[page]]`` (or ``#[[page]]``) link written as the page's name."""
    return _PAGE_LINK.sub(lambda link: link.group(1) or link.group(2) or "", text)


def _page_properties(lines: list[str]) -> _Front:
    """Logseq's page properties (``title:: …`` lines up to a blank line or the first
    block) as front matter: ``title``, ``tags`` (Zhihu's topics, ``[[links]]`` read as
    their names), ``alias``, ``public`` … Logseq shows them as the page's, not as text;
    without this the title was the file's name."""
    data: dict[str, Any] = {}
    key_lines: dict[str, int] = {}
    end = 0
    while end < len(lines) and (found := _PAGE_PROPERTY.match(lines[end])):
        key, value = found.group(1).lower(), found.group(2)
        if key in _METADATA_LISTS or key == "alias":
            names = (_page_names(part).strip() for part in value.split(","))
            data[key] = [name for name in names if name]
        elif value.lower() in ("true", "false"):
            data[key] = value.lower() == "true"
        else:
            data[key] = _page_names(value)
        key_lines[key] = end + 1
        end += 1
    blank = end < len(lines) and not lines[end].strip()
    return _Front(data, key_lines, "\n".join(lines[end + blank :]), end + blank + 1)


def _parse_yaml(
    path: Path, lines: list[str], first: int
) -> tuple[dict[str, Any], dict[str, int], tuple[Notice, ...]]:
    """YAML front matter whose first line is the file's line ``first``: (data, key lines,
    warnings about values YAML read otherwise than the editor wrote them)."""
    source = "\n".join(lines)
    kept = recall(source, first)  # an earlier run's read of the same lines
    if kept is not None:
        return kept
    import yaml  # here, not at the top: `crosspost --help` must not pay for PyYAML

    # A no-break or full-width space after a key's colon, pasted from a web page or a
    # chat, looks like a space and is none to YAML: read as one, and named.
    source, wide = front_matter_spaces(source)
    tabbed: tuple[Notice, ...] = () if wide is None else (_wide_space(wide + first),)
    try:
        try:
            data, node = _yaml_document(source)
        except yaml.MarkedYAMLError:
            # Hexo reads a tab in a line's indent as two spaces, and blogs moved from it
            # indent their lists that way; YAML forbids it, and the whole file was refused.
            spaced = _TAB_INDENT.sub(lambda indent: indent.group().replace("\t", "  "), source)
            spaced, wide_indent = front_matter_indents(spaced)
            if spaced == source:
                raise
            data, node = _yaml_document(spaced)
            tab_line = next((n for n, line in enumerate(lines) if _TAB_INDENT.match(line)), None)
            if tab_line is not None:
                tabbed += (
                    Notice(
                        tab_line + first,
                        "front-matter-tab",
                        "front matter indented with tabs, which YAML does not allow: read as "
                        "two spaces each, as Hexo reads them; indent with spaces",
                        "warning",
                    ),
                )
            if wide_indent is not None and wide is None:
                tabbed += (_wide_space(wide_indent + first),)
            source = spaced
    except yaml.reader.ReaderError as error:
        raise IssueError(
            path, _unprintable(error.character), source[: error.position].count("\n") + first
        ) from None
    except _TooDeep as error:
        raise IssueError(
            path,
            f"front matter nests lists or blocks more than {MAX_FRONT_MATTER_DEPTH} deep; "
            "an issue needs two levels (wechat: {title: …}), flatten it",
            error.line + first,
        ) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + first if mark else first - 1
        problem = " ".join(str(error.problem or error.context or "invalid YAML").split())
        raise IssueError(
            path, f"front matter is not valid YAML ({problem}); fix that line", line
        ) from None
    except yaml.YAMLError as error:
        problem = " ".join(str(error).split())
        raise IssueError(path, f"front matter is not valid YAML ({problem})", first - 1) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise IssueError(
            path, "front matter must be 'key: value' lines (a mapping), not a list or text", first
        )
    key_lines = _key_lines(path, node, first)
    _keep_text_as_written(data, node)
    read = data, key_lines, tabbed + _cut_by_comments(node, source, first)
    remember("\n".join(lines), first, read)
    return read


def _wide_space(line: int) -> Notice:
    """The warning for front matter whose spaces YAML needs were wide ones, from ``line``."""
    return Notice(
        line,
        "front-matter-space",
        "front matter has a no-break or full-width space where YAML needs a plain one (text "
        "copied from a web page or a chat?): read as a plain space; retype it as one",
        "warning",
    )


def _yaml_document(source: str) -> tuple[Any, yaml.Node | None]:
    """(data, node tree) of YAML ``source``: one parse, the node tree giving each key's
    line and the data built from it."""
    loader = _bounded_loader()(source)  # refuses unprintable characters here
    try:
        node = loader.get_single_node()
        return (loader.construct_document(node) if node is not None else None), node
    finally:
        loader.dispose()


def _unprintable(code: int) -> str:
    """The message for a character YAML refuses to read (NUL, ESC, DEL, …)."""
    kind = "control character" if unicodedata.category(chr(code)) == "Cc" else "character"
    return (
        f"front matter holds the {kind} U+{code:04X}, which YAML does not allow; remove it "
        "(most editors do not show it: delete and retype the text around it)"
    )


def _plain_non_text(node: yaml.Node) -> bool:
    """Whether ``node`` is an unquoted scalar YAML 1.1 reads as something other than text
    or nothing (``1.10``, ``010``, ``12:30``, ``yes``, ``No``, ``on``, ``2024-02-30``)."""
    import yaml

    return (
        isinstance(node, yaml.ScalarNode)
        and node.style is None
        and node.tag not in ("tag:yaml.org,2002:str", "tag:yaml.org,2002:null")
    )


def _keep_text_as_written(data: dict[str, Any], node: yaml.Node | None, prefix: str = "") -> None:
    """Give each text field (:data:`TEXT_FIELDS`) its value as the file writes it.

    YAML 1.1 turns ``title: 1.10`` into the float 1.1, ``title: 010`` into 8 and
    ``author: No`` into False; ``str()`` of those is not what the editor wrote. Typed
    fields (``publish_at``, ``draft``, lists) keep what YAML made of them.
    """
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return
    for key_node, value_node in node.value:
        key = f"{prefix}{key_node.value}"
        if not isinstance(key_node.value, str) or key_node.value not in data:
            continue
        if key in TEXT_FIELDS and _plain_non_text(value_node):
            data[key_node.value] = value_node.value
        elif not prefix and key in PLATFORMS and isinstance(data[key_node.value], dict):
            _keep_text_as_written(data[key_node.value], value_node, prefix=f"{key}.")


#: Where a line ends for YAML: U+0085, U+2028 and U+2029 end one too.
_YAML_LINE_END = pattern("[\n\x85\u2028\u2029]")


def _cut_by_comments(node: yaml.Node | None, source: str, first: int) -> tuple[Notice, ...]:
    """A warning for each prose field (:data:`PROSE_FIELDS`) whose unquoted value a `` #``
    cut short.

    YAML reads `` #`` as the start of a comment, so ``title: iOS Weekly #349`` is
    "iOS Weekly", silently. A comment on a line of its own, or after a quoted value, is
    what the editor meant and says nothing.
    """
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return ()
    found: list[Notice] = []
    for key_node, value_node in node.value:
        key = key_node.value
        if not isinstance(key, str) or key not in PROSE_FIELDS:
            continue
        if not isinstance(value_node, yaml.ScalarNode):
            continue
        if value_node.style is not None or not value_node.value:
            continue  # quoted or block text keeps its '#'; an empty value lost nothing
        end = value_node.end_mark.index
        line_end = _YAML_LINE_END.search(source, end)
        rest = source[end : line_end.start() if line_end else len(source)].rstrip()
        if not rest[:1].isspace() or not rest.lstrip().startswith("#"):
            continue
        example = json.dumps(value_node.value + rest, ensure_ascii=False)
        message = (
            f"'{key}' was cut at ' #' (YAML reads the rest of the line as a comment), so it "
            f"is {value_node.value!r}; quote the value to keep it all, e.g. {key}: {example}"
        )
        found.append(
            Notice(source.count("\n", 0, end) + first, "cut-by-comment", message, "warning")
        )
    return tuple(found)


_TOML_ERROR_LINE = pattern(r"\(at (?:line (\d+)|end of document)")
_TOML_TABLE = pattern(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_TOML_KEY = pattern(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_.-]+)\s*=""")
#: tomllib's words for a value in the shape of a date that names no day (2024-02-30),
#: and where it is: "(at line 3, column 8)".
_TOML_NO_DAY = pattern(r"^Invalid date or datetime \(at line (\d+), column (\d+)\)")
#: A TOML date, date-time or local date-time as written (TOML's own shapes).
_TOML_MOMENT = pattern(
    r"\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?"
)
#: Stands in for such a value while the rest is read (a string no editor writes).
_NO_DAY_MARK = "\x00crosspost-no-real-date-{}"


def _parse_toml(
    path: Path, lines: list[str], first: int
) -> tuple[dict[str, Any], dict[str, int], tuple[Notice, ...]]:
    """Hugo's ``+++`` front matter, read by :mod:`tomllib`; key lines found by a scan
    (tomllib keeps no positions), enough for messages: top-level keys and one table level.
    TOML types nothing behind the editor's back; but a date in TOML's shape that names no
    day (``date = 2024-02-30``) stops tomllib, so it is read as written instead (an
    :class:`ImpossibleMoment`, as YAML's loader keeps one) with an error notice: ``render``
    and ``preview`` still show the issue, ``check`` and ``publish`` refuse it, since the
    file is not TOML any tool will read."""
    key_lines = _toml_key_lines(lines, first)
    source = "\n".join(lines)
    #: mark → (the value as written, its line in the front matter); each pass of the
    #: loop quotes one more such value, so it ends when none is left.
    moments: dict[str, tuple[str, int]] = {}
    while True:
        try:
            data = _read_toml(path, source, len(lines), first)
            break
        except _NoDay as no_day:
            source, mark, written = no_day.quoted(source, len(moments))
            moments[mark] = (written, no_day.line)
    if not moments:
        return data, key_lines, ()
    notices: list[Notice] = []
    for mark, (written, line) in moments.items():
        moment = ImpossibleMoment(written, _no_day_reason(written))
        where = _mark_path(data, mark)
        if where:
            _place(data, where, moment)
        quoted = json.dumps(str(moment))
        if where and isinstance(where[-1], str):  # a key's value, in a table or inline one
            what, example = f"'{_dotted(where)}'", f"{where[-1]} = {quoted}"
        elif where:  # an item of an array: quote the item where it stands
            what, example = f"'{_dotted(where)}'", f"{quoted} in that list"
        else:
            what, example = "a date", quoted
        message = (
            f"{what} is {moment}, which is no real date ({moment.reason}), so the front "
            f"matter is not valid TOML; fix the date, or quote it to keep it as written: "
            f"{example}"
        )
        notices.append(Notice(line + first - 1, "impossible-toml-date", message))
    return data, key_lines, tuple(notices)


class _NoDay(Exception):
    """tomllib met a value in the shape of a date that names no day, at ``line`` and
    ``column`` (1-based, of the front matter)."""

    def __init__(self, line: int, column: int) -> None:
        super().__init__(line, column)
        self.line, self.column = line, column

    def quoted(self, source: str, index: int) -> tuple[str, str, str]:
        """``source`` with the value replaced by a mark in quotes; the mark, the value."""
        lines = source.split("\n")
        text = lines[self.line - 1]
        found = _TOML_MOMENT.match(text, self.column - 1)
        assert found is not None, "raised only where the value has a date's shape"
        mark = _NO_DAY_MARK.format(index)
        lines[self.line - 1] = f"{text[: found.start()]}{json.dumps(mark)}{text[found.end() :]}"
        return "\n".join(lines), mark, found.group(0)


def _read_toml(path: Path, source: str, count: int, first: int) -> dict[str, Any]:
    """:func:`tomllib.loads`, its errors as :class:`IssueError` with the file's line, but
    a date that names no day as :class:`_NoDay` (it is no reason to stop reading)."""
    import tomllib

    try:
        return tomllib.loads(source)
    except tomllib.TOMLDecodeError as error:
        no_day = _TOML_NO_DAY.match(str(error))
        if no_day and _TOML_MOMENT.match(
            source.split("\n")[int(no_day.group(1)) - 1], int(no_day.group(2)) - 1
        ):
            raise _NoDay(int(no_day.group(1)), int(no_day.group(2))) from None
        found = _TOML_ERROR_LINE.search(str(error))
        # "at end of document" has no number: the front matter's last line is meant.
        line = int(found.group(1)) if found and found.group(1) else count
        line += first - 1
        problem = _TOML_ERROR_LINE.split(str(error))[0].strip() or "invalid TOML"
        raise IssueError(
            path, f"front matter is not valid TOML ({problem}); fix that line", line
        ) from None
    except RecursionError:
        # tomllib reads nested arrays and tables by recursion and takes no depth limit:
        # thousands of '[' exhaust the stack before it can say where.
        raise IssueError(
            path,
            "front matter nests arrays or tables too deep; an issue needs two levels "
            "([wechat] title = …), flatten it",
            first - 1,
        ) from None


def _toml_key_lines(lines: list[str], first: int) -> dict[str, int]:
    """Each key's file line (``wechat.title`` for a table's), found by a scan."""
    key_lines: dict[str, int] = {}
    prefix = ""
    for index, text in enumerate(lines):
        table = _TOML_TABLE.match(text)
        if table:
            prefix = table.group(1).strip("\"'") + "."
            key_lines.setdefault(prefix[:-1], index + first)
            continue
        key = _TOML_KEY.match(text)
        if key:
            key_lines.setdefault(prefix + key.group(1).strip("\"'"), index + first)
    return key_lines


def _no_day_reason(written: str) -> str:
    """Why ``written`` (a date in TOML's shape) names no day, in :mod:`datetime`'s words."""
    try:
        datetime.fromisoformat(written.replace("t", "T").replace("z", "Z"))
    except ValueError as error:
        return moment_problem(error)
    return "not a date"


def _mark_path(value: Any, mark: str) -> tuple[str | int, ...] | None:
    """Where the string ``mark`` stands in ``value``: the keys and array indexes leading
    to it (``("wechat", "publish_at")``, ``("dates", 0)``), ``None`` when nowhere."""
    if value == mark:
        return ()
    items: list[tuple[str | int, Any]] = []
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    for step, item in items:
        below = _mark_path(item, mark)
        if below is not None:
            return (step, *below)
    return None


def _dotted(path: tuple[str | int, ...]) -> str:
    """``("wechat", "publish_at")`` as ``wechat.publish_at``; ``("dates", 0)`` as
    ``dates[0]``."""
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out


def _place(data: dict[str, Any], where: tuple[str | int, ...], moment: ImpossibleMoment) -> None:
    """Put ``moment`` where :func:`_mark_path` found its mark: a key of its own, an item
    of an array, a key of a table (the tables and arrays are tomllib's, made for this
    read alone)."""
    parent: Any = data
    for step in where[:-1]:
        parent = parent[step]
    parent[where[-1]] = moment


class _TooDeep(Exception):
    """Raised by the bounded loader at the first node nested too deeply (0-based line of
    the front matter)."""

    def __init__(self, line: int) -> None:
        self.line = line
        super().__init__(line)


@functools.cache
def _bounded_loader() -> type[yaml.SafeLoader]:
    """PyYAML's SafeLoader, refusing nesting deeper than :data:`MAX_FRONT_MATTER_DEPTH`,
    and never raising anything but a YAML error with a line.

    PyYAML builds the node tree by recursion, so a few thousand ``[`` exhaust Python's
    stack (a RecursionError, not a line a person can act on). Counting depth where the
    tree is built stops it at the first node too deep, in the same single parse.

    PyYAML's constructors raise plain ValueErrors for values in the right shape that mean
    nothing (``2024-02-30``, ``!!int abc``): a date that names no day is kept as written
    (an :class:`ImpossibleMoment`, for its field to judge), anything else becomes a
    ConstructorError at its node, which the loader reports with the line.
    """
    import yaml

    class BoundedLoader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
            if self.depth >= MAX_FRONT_MATTER_DEPTH:
                raise _TooDeep(self.peek_event().start_mark.line)  # type: ignore[no-untyped-call]
            self.depth += 1
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
            try:
                return super().construct_object(node, deep)
            except yaml.YAMLError:
                raise
            except Exception as error:  # any constructor's failure is a bad value, here
                what = repr(node.value) if isinstance(node, yaml.ScalarNode) else "a value"
                problem = f"cannot read {what} as {node.tag.rsplit(':', 1)[-1]}"
                raise yaml.constructor.ConstructorError(
                    None, None, f"{problem}: {error}", node.start_mark
                ) from None

        def construct_yaml_timestamp(self, node: yaml.ScalarNode) -> Any:
            if not self.timestamp_regexp.match(node.value):
                return ImpossibleMoment(node.value, "not a date")  # an explicit !!timestamp
            try:
                return super().construct_yaml_timestamp(node)
            except ValueError as error:
                return ImpossibleMoment(node.value, moment_problem(error))

    BoundedLoader.add_constructor(
        "tag:yaml.org,2002:timestamp", BoundedLoader.construct_yaml_timestamp
    )
    return BoundedLoader


def _key_lines(path: Path, node: yaml.Node | None, first: int, prefix: str = "") -> dict[str, int]:
    """Map each key (``wechat.title`` for nested ones) to its 1-based file line (the
    front matter's own first line is the file's ``first``).

    YAML quietly keeps the last of two equal keys; an editor who wrote ``title`` twice
    meant one of them, so a duplicate is an error here rather than a silent choice.
    """
    import yaml

    found: dict[str, int] = {}
    if not isinstance(node, yaml.MappingNode):
        return found
    for key_node, value_node in node.value:
        key = f"{prefix}{key_node.value}"
        line = key_node.start_mark.line + first
        if key in found:
            raise IssueError(
                path, f"'{key}' appears twice (also on line {found[key]}); keep one", line
            )
        found[key] = line
        if isinstance(value_node, yaml.MappingNode) and not prefix:
            found.update(_key_lines(path, value_node, first, prefix=f"{key}."))
    return found


def _unknown_fields(front: Mapping[str, Any], lines: Mapping[str, int]) -> Notice | None:
    """One warning naming every key crosspost does not use, with a likely fix for each.

    Files from static-site generators carry keys of their own (``layout``,
    ``categories``); they are no reason to stop, but a typo of ours should be seen.
    """
    unknown: list[str] = []
    for raw_key in front:
        key = str(raw_key)
        if key in KNOWN_KEYS:
            continue
        meant = meant_field(key)
        unknown.append(f"'{key}' (did you mean '{meant}'?)" if meant else f"'{key}'")
    if not unknown:
        return None
    first = next(str(k) for k in front if str(k) not in KNOWN_KEYS)
    message = (
        f"front matter field{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} "
        f"not used by crosspost, so ignored; the fields it reads are listed in the README"
    )
    return Notice(lines.get(first), "unknown-field", message, "warning")


def _aliases(front: dict[str, Any], lines: dict[str, int], notices: list[Notice]) -> dict[str, str]:
    """Which key each field is read from: its own, else a static-site alias of it.

    Returns field → key (``{"digest": "summary"}``); ``tags``/``keywords`` become the
    Zhihu block's ``topics`` when it has none. An alias beside the field itself is noted.
    """
    source: dict[str, str] = {}
    for alias, target in ALIASES.items():
        if alias not in front:
            continue
        if target == "zhihu.topics":
            block = front.get("zhihu")
            if block is None:
                block = front["zhihu"] = {}
            if not isinstance(block, dict) or "topics" in block:
                continue
            value = front[alias]
            if isinstance(value, str):
                value = [part for part in re.split(r"[,，]\s*", value) if part.strip()]
            front["zhihu"] = {**block, "topics": value}
            if alias in lines:
                lines.setdefault("zhihu.topics", lines[alias])
            continue
        if front.get(target) is not None or target in source:
            used = source.get(target, target)
            message = f"'{alias}' is not used: '{used}' already gives the {target}"
            notices.append(Notice(lines.get(alias), "alias-ignored", message, "info"))
            continue
        value = front[alias]
        if alias == "authors":
            value, keys = _author_keys(value)
            if keys:
                message = (
                    f"'authors' names the site's authors by their keys in its authors file "
                    f"({', '.join(keys)}), not by name, so no author is taken from it; set "
                    "'author:' to the name readers should see"
                )
                notices.append(Notice(lines.get(alias), "alias-ignored", message, "info"))
            front[alias] = value
        if isinstance(value, dict) and target == "cover":  # Hugo Academic's image: {…}
            value = next((value[k] for k in _IMAGE_KEYS if isinstance(value.get(k), str)), value)
            front[alias] = value
        if value is None or value == "" or value == []:
            continue  # an empty value of another tool's (slug: []): nothing to use
        if isinstance(value, (dict, list)) and target != "author":  # names, joined
            message = (
                f"'{alias}' holds a list or mapping, not a {target}, so it is not used; "
                f"set '{target}:' if the issue needs one"
            )
            notices.append(Notice(lines.get(alias), "alias-ignored", message, "warning"))
            continue
        source[target] = alias
    return source


#: A key of a site's authors file (Docusaurus's ``authors.yml``, Hugo Academic's
#: ``admin``): small letters, digits and ``_.-``, as a handle is written, never a name.
_AUTHOR_KEY = pattern(r"[a-z][a-z0-9_.-]*")


def _author_keys(value: Any) -> tuple[Any, list[str]]:
    """``authors`` without the keys into a site's authors file (``[slorber, yangshun]``),
    and those keys: its mappings (``{name: …}``, Docusaurus's authors written in place)
    are kept. Where any entry written as text looks like a name (a capital, a space, a
    letter past ASCII), every entry is a name: the value is kept whole."""
    entries = value if isinstance(value, list) else [value]
    written = [entry for entry in entries if isinstance(entry, str)]
    if not written or not all(_AUTHOR_KEY.fullmatch(entry.strip()) for entry in written):
        return value, []
    kept = [entry for entry in entries if not isinstance(entry, str)]
    return kept or None, [entry.strip() for entry in written]


#: Where a static-site generator's ``image:`` mapping names its file.
_IMAGE_KEYS = ("filename", "src", "url", "path", "file")


def _title_from_body(path: Path, body: str) -> tuple[str, str, int | None]:
    """(title, body without it, its body line) from the ``# `` heading that opens the body
    and is its only top-level one; else the file name, and the body as it is.

    Only pictures and raw HTML (a banner, badges, a comment) may stand before it. A ``# ``
    heading after words, or inside a list (Logseq writes each block as an item), is a
    section of the body: taken for the title, it went missing from its place, as did the
    first of several ``# `` headings (``# 1 引言``, ``# 2 概要``)."""
    tokens = parse_document(body).tokens
    sections = sum(1 for t in tokens if t.type == "heading_open" and t.tag == "h1" and not t.level)
    if sections > 1:
        return path.stem, body, None
    for index, token in enumerate(tokens):
        if token.level or token.type in ("html_block", "paragraph_close"):
            continue
        if token.type == "paragraph_open" and _pictures_only(tokens[index + 1]):
            continue
        if token.type == "heading_open" and token.tag == "h1" and token.markup == "#":
            inline = tokens[index + 1]
            title = "".join(
                child.content
                for child in inline.children or []
                if child.type in ("text", "code_inline", "html_inline")
            ).strip()
            if title and token.map:
                lines = body.split("\n")
                start, end = token.map
                # Blank lines, not removed ones: every later body line keeps its number.
                lines[start:end] = [""] * (end - start)
                return " ".join(title.split()), "\n".join(lines), start
        break
    return path.stem, body, None


def _pictures_only(inline: Token) -> bool:
    """Whether a paragraph holds pictures and nothing a reader reads (a banner above the
    title, a row of badges, each maybe a link)."""
    return all(
        child.type in ("image", "link_open", "link_close", "softbreak", "hardbreak")
        or (child.type in ("text", "html_inline") and not child.content.strip())
        or (child.type == "html_inline" and child.content.lower().startswith(("<img", "<a", "</a")))
        for child in inline.children or ()
    )


def _build_issue(path: Path, split: _Front) -> Issue:
    front, lines, body, body_line = split.data, split.lines, split.body, split.body_line
    notices: list[Notice] = list(split.notices)
    unknown = _unknown_fields(front, lines)
    if unknown:
        notices.append(unknown)
    source = _aliases(front, lines, notices)
    values: dict[str, Any] = {}
    for key, parse in FIELDS.items():
        written = source.get(key, key)
        context = FieldContext(path, lines, written)
        try:
            values[key] = parse(front.get(written), context)
        except PartlyRead as error:
            notices += [Notice(one.line, "invalid-field", one.problem) for one in error.errors]
            values[key] = error.value
        except IssueError as error:
            if written == key or key != "id":
                notices.append(Notice(error.line, "invalid-field", error.problem))
            else:  # another tool's slug (Web/HTML/aside, a path): no id of ours
                message = f"{error.problem}, so it is not used as the {key}; set '{key}:' if needed"
                notices.append(Notice(error.line, "alias-ignored", message, "warning"))
            values[key] = parse(None, context)
        if written != key and written in lines:
            lines[key] = lines[written]
    # A TOML date that names no day has its notice from the parse (an error: the file is
    # not TOML); a field that judged it already, with words of its own, says it alone.
    told = {n.line for n in notices if n.code == "invalid-field"}
    notices = [n for n in notices if n.code != "impossible-toml-date" or n.line not in told]
    told = {n.line for n in notices if n.code == "impossible-toml-date"}
    for key in RECORD_DATES:
        value = front.get(key)
        if isinstance(value, ImpossibleMoment) and lines.get(key) not in told:
            message = (
                f"'{key}' is {value}, which is no real date ({value.reason}); it is only "
                "kept for the record (it schedules nothing), so fix or remove it"
            )
            notices.append(Notice(lines.get(key), "impossible-date", message, "warning"))
    if not values["title"]:
        values["title"], body, heading = _title_from_body(path, body)
        if heading is None:
            message = (
                "no title: no 'title:' in front matter and no '# ' heading opening the body "
                "(one after the body's first words, and several, are its sections); the file "
                f"name '{path.stem}' is used (add 'title: …', or a '# Title' line on top)"
            )
            notices.append(Notice(lines.get("title", 1), "no-title", message, "warning"))
        else:
            lines["title"] = body_line + heading
    attachments = attachments_of(path, body, (path.stem, str(values["title"])))
    attachments += snippet_files(path, body)
    notices += check_containers(path, parse_document(body, attachments), body_line)
    overrides = {name: values.pop(name) for name in PLATFORMS if front.get(name) is not None}
    for name in PLATFORMS:
        values.pop(name, None)
    issue_id = values.pop("id") or default_issue_id(path)
    dates = {key: _as_text(front[key]) for key in RECORD_DATES if front.get(key) is not None}
    return Issue(
        path=path.resolve(),
        id=issue_id,
        body=body,
        body_line=body_line,
        overrides=MappingProxyType(overrides),
        field_lines=MappingProxyType(dict(lines)),
        dates=MappingProxyType(dates),
        notices=tuple(notices),
        attachments=attachments,
        **values,
    )


def _as_text(value: Any) -> str:
    """A date as written (YAML and TOML read ``2023-05-13`` as a date object)."""
    return value.isoformat() if isinstance(value, (date, datetime)) else str(value)


def default_issue_id(path: Path) -> str:
    """The file stem, or the folder's name for ``issue.md``/``index.md`` in a folder of its own."""
    stem = path.stem
    if stem.lower() in {"issue", "index", "readme"}:
        stem = path.parent.name
    # Letters of any script stay (两会.md and 三中全会.md are two issues, not one "issue");
    # path separators, spaces and punctuation become "-", and no id starts with a dot.
    return re.sub(r"[^\w.-]+", "-", stem).strip("-.") or "issue"
