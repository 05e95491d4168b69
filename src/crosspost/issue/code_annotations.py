"""What documentation sites write inside a fenced code block for their highlighter.

A site's highlighter reads comments in the code and draws them, leaving them out of the
code a reader sees and copies:

- Shiki's notation (VitePress, Astro's Expressive Code, Mintlify, Nextra): a trailing
  comment ``// [!code ++]`` (an added line), ``// [!code --]`` (a removed one),
  ``// [!code highlight]`` (also ``hl``), ``// [!code focus]``, ``// [!code error]``,
  ``// [!code warning]``, ``// [!code word:name]``; a count, ``// [!code highlight:3]``,
  takes that many lines. On a line of its own the comment marks the lines after it,
  as Shiki's ``matchAlgorithm: "v3"`` reads it (the line it stood on is gone).
- Docusaurus's magic comments, each on a line of its own: ``// highlight-next-line``,
  ``// highlight-start`` … ``// highlight-end`` (the ones it ships; a site may declare
  others in its config, which a post does not carry).
- Mintlify's title after the language, a bare word or a quoted phrase: ```` ```json 200
  ````, ```` ```bash npm ````, ```` ```tsx "Component.tsx" lines ````.

crosspost showed all of it as code: a reader copying the block got the comments, and a
diff read as two versions of every changed line. Here, once for every channel, each
fence's comments are read and left out, its lines marked (:func:`line_marks`: added,
removed, marked), and a Mintlify title said as Docusaurus says it (``title="200"``), so
:func:`crosspost.issue.dialect.code_title` finds it. A comment counts only in the comment
syntax of the block's language (any of them when the language is unknown), and only at
the end of its line: ``"[!code ++]"`` in a Python string is code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.patterns import pattern

#: What a site draws on a line: ``added`` and ``removed`` are a diff's ``+`` and ``-``;
#: ``marked`` is a highlighted, focused, error or warning line; ``""`` a plain one.
LineMark = Literal["", "added", "removed", "marked"]
#: Where the marks of a fence's lines are kept in its token's ``meta``.
_MARKS = "line_marks"
#: The sign a diff's line starts with on every channel, as ``diff -u`` writes it.
DIFF_SIGNS: dict[LineMark, str] = {"added": "+", "removed": "-"}

# --- comment syntax ------------------------------------------------------------------

#: A comment that runs to the line's end: its opening (a regular expression) and ``""``;
#: or a block comment: its opening and closing.
_Comment = tuple[str, str]
_SLASHES: _Comment = ("/{2,}", "")
_HASH: _Comment = ("#+", "")
_DASHES: _Comment = ("-{2,}", "")
_SEMICOLON: _Comment = (";+", "")
_PERCENT: _Comment = ("%+", "")
_C_BLOCK: _Comment = (r"/\*+", r"\*+/")
_HTML: _Comment = ("<!--", "-->")
_JSX: _Comment = (r"\{[ \t]*/\*+", r"\*+/[ \t]*\}")
#: Every style, for a block whose language is not below (none, ``text``, a rare one):
#: Shiki reads its notation in any of them too. JSX's before C's, which it contains.
_ANY = (_JSX, _C_BLOCK, _HTML, _SLASHES, _HASH, _DASHES, _SEMICOLON, _PERCENT)

_C_LIKE = (_C_BLOCK, _SLASHES)
_MARKUP = (_JSX, _C_BLOCK, _HTML, _SLASHES)  # a component file: markup and script
_COMMENTS: dict[str, tuple[_Comment, ...]] = {
    **dict.fromkeys(
        ("js", "javascript", "mjs", "cjs", "ts", "typescript", "mts", "cts", "java", "c",
         "h", "cpp", "c++", "cc", "cxx", "hpp", "cs", "csharp", "c#", "go", "golang", "rust",
         "rs", "swift", "kotlin", "kt", "kts", "scala", "php", "dart", "groovy", "gradle",
         "objc", "objective-c", "zig", "solidity", "sol", "proto", "protobuf", "glsl", "wgsl",
         "hlsl", "d", "v", "json", "jsonc", "json5", "scss", "sass", "less", "stylus",
         "prisma", "typst", "cuda", "verilog", "jsonnet"),
        _C_LIKE,
    ),
    **dict.fromkeys(("css",), (_C_BLOCK,)),
    **dict.fromkeys(("jsx", "tsx", "vue", "svelte", "astro"), _MARKUP),
    **dict.fromkeys(("html", "xml", "svg", "xhtml", "md", "markdown"), (_HTML,)),
    **dict.fromkeys(("mdx",), (_JSX, _HTML)),
    **dict.fromkeys(
        ("python", "py", "python3", "ipython", "ruby", "rb", "bash", "sh", "shell", "zsh",
         "fish", "console", "shellsession", "shell-session", "powershell", "ps1", "pwsh",
         "yaml", "yml", "toml", "perl", "pl", "r", "dockerfile", "docker", "makefile",
         "make", "cmake", "nginx", "conf", "properties", "dotenv", "env", "elixir", "ex",
         "exs", "nix", "graphql", "gql", "julia", "jl", "tcl", "crystal", "nim", "coffee",
         "coffeescript", "awk", "gitignore", "ignore", "editorconfig", "starlark", "bzl",
         "gdscript", "raku", "just", "justfile", "caddyfile", "cython"),
        (_HASH,),
    ),
    **dict.fromkeys(("hcl", "terraform", "tf"), (_HASH, *_C_LIKE)),
    **dict.fromkeys(
        ("sql", "mysql", "postgres", "postgresql", "psql", "plsql", "pgsql", "sqlite",
         "tsql", "plpgsql"),
        (_DASHES, _C_BLOCK),
    ),
    **dict.fromkeys(("lua", "luau", "haskell", "hs", "elm", "ada", "purescript"), (_DASHES,)),
    **dict.fromkeys(("ini", "cfg"), (_SEMICOLON, _HASH)),
    **dict.fromkeys(
        ("lisp", "clojure", "clj", "cljs", "scheme", "racket", "elisp", "emacs-lisp",
         "asm", "nasm", "wasm", "wat"),
        (_SEMICOLON,),
    ),
    **dict.fromkeys(("tex", "latex", "matlab", "octave", "erlang", "erl", "prolog"), (_PERCENT,)),
}  # fmt: skip


def _comments(language: str) -> tuple[_Comment, ...]:
    return _COMMENTS.get(language.lower(), _ANY)


# --- Shiki's notation and Docusaurus's magic comments ---------------------------------

#: The kinds of Shiki's notes, and one note: ``[!code ++]``, ``[!code highlight:3]`` (it
#: takes three lines), ``[!code word:name]``.
_KINDS = r"\+\+|--|highlight|hl|focus|error|warning|word:(?:\\.|[^:\]])+"
_NOTE = rf"\[!code (?:{_KINDS})(?::\d+)?\]"
#: A note's kind and count, read from the notes of a line.
_NOTES = pattern(rf"\[!code ({_KINDS})(?::(\d+))?\]")
_NOTE_MARKS: dict[str, LineMark] = {
    "++": "added",
    "--": "removed",
    "highlight": "marked",
    "hl": "marked",
    "focus": "marked",
    "error": "marked",
    "warning": "marked",
}  # a word's note (word:name) marks words, which no channel draws: no line mark
#: Docusaurus's magic comments, a line each.
_MAGIC = r"(highlight-next-line|highlight-start|highlight-end)"
#: The strongest first: a line both removed and highlighted is shown removed.
_STRENGTH: tuple[LineMark, ...] = ("removed", "added", "marked")


def _notation(comment: _Comment) -> re.Pattern[str]:
    """A line whose last comment, in the style ``comment``, ends in Shiki's notes: the
    code before it, the gap, the comment's opening and its own words, the notes."""
    opening, closing = comment
    # The comment's words never hold its opening: the last opening on the line starts
    # the comment ('http://a // [!code ++]'), as it does wherever the comment stops.
    words = rf"(?:(?!{opening}).)*?"
    end = rf"[ \t]*(?P<closing>{closing})[ \t]*$" if closing else r"[ \t]*$"
    notes = rf"{_NOTE}(?:[ \t]*{_NOTE})*"
    return pattern(
        rf"^(?P<code>.*?)(?P<gap>[ \t]*)(?P<opening>{opening})(?P<words>{words})"
        rf"(?P<notes>{notes}){end}"
    )


def _magic(comment: _Comment) -> re.Pattern[str]:
    opening, closing = comment
    end = rf"[ \t]*{closing}" if closing else ""
    return pattern(rf"^[ \t]*{opening}[ \t]*{_MAGIC}{end}[ \t]*$")


_NOTATIONS = {comment: _notation(comment) for comment in _ANY}
_MAGICS = {comment: _magic(comment) for comment in _ANY}
#: A cheap look before the line-by-line reading: most fences have neither.
_ANY_ANNOTATION = pattern(r"\[!code |highlight-(?:next-line|start|end)")


def _notes(line: str, comments: Sequence[_Comment]) -> tuple[str, list[tuple[LineMark, int]]]:
    """``line`` without the comment that holds Shiki's notes (a comment with words of its
    own keeps them), and the notes: (mark, lines it takes). No notes: the line, ``[]``."""
    for comment in comments:
        found = _NOTATIONS[comment].match(line)
        if found is None:
            continue
        notes = [
            (_NOTE_MARKS.get(kind, ""), int(count or 1))
            for kind, count in _NOTES.findall(found["notes"])
        ]
        kept = found["code"]
        if found["words"].strip():
            closing = " " + found["closing"] if comment[1] else ""
            kept += found["gap"] + found["opening"] + found["words"].rstrip() + closing
        return kept, notes
    return line, []


def _magic_comment(line: str, comments: Sequence[_Comment]) -> str:
    """The Docusaurus magic comment ``line`` is, ``""`` if none."""
    for comment in comments:
        found = _MAGICS[comment].match(line)
        if found is not None:
            return found.group(1)
    return ""


def read_annotations(code: str, language: str) -> tuple[str, tuple[LineMark, ...]] | None:
    """``code`` without the annotations a site's highlighter reads, and the marks of its
    lines; ``None`` when it has none (the code stays as written)."""
    if _ANY_ANNOTATION.search(code) is None:
        return None
    comments = _comments(language)
    body, end = (code[:-1], "\n") if code.endswith("\n") else (code, "")
    kept: list[str] = []
    marks: list[LineMark] = []
    pending: list[tuple[LineMark, int]] = []  # marks still to give, and to how many lines
    highlighting = False  # inside Docusaurus's highlight-start … highlight-end
    read_any = False
    for line in body.split("\n"):
        magic = _magic_comment(line, comments)
        if magic == "highlight-next-line":
            pending.append(("marked", 1))
        elif magic:
            highlighting = magic == "highlight-start"
        line, notes = (line, []) if magic else _notes(line, comments)
        if magic or notes:
            read_any = True
            pending.extend(notes)
            if not line.strip() or magic:  # alone on its line: it marks the lines after
                continue
        given = {mark for mark, _ in pending} | ({"marked"} if highlighting else set())
        marks.append(next((mark for mark in _STRENGTH if mark in given), ""))
        pending = [(mark, left - 1) for mark, left in pending if left > 1]
        kept.append(line)
    if not read_any:
        return None
    return "\n".join(kept) + end, tuple(marks)


def line_marks(meta: Mapping[str, Any]) -> tuple[LineMark, ...]:
    """The marks of a fence's lines, one per line of its content, from its token's (or
    syntax tree node's) ``meta``; ``()`` when none is marked."""
    marks: tuple[LineMark, ...] = meta.get(_MARKS, ())
    return marks


# --- Mintlify's title ----------------------------------------------------------------

#: One word of an info string after the language: an option ``key=…`` (its value quoted
#: or braced), a quoted phrase, braces (lines to mark), a regular expression (words to
#: mark), a bracketed name (VitePress's title), any other word.
_META_WORD = pattern(
    r"""([\w-]+)=(?:"[^"]*"|'[^']*'|\{[^}]*\}|\S*)|"[^"]*"|'[^']*'|\{[^}]*\}|/\S+/|\[[^\]]*\]|\S+"""
)
#: A language's name, as Mintlify's fences open: ``json``, ``c++``, ``objective-c``.
_LANGUAGE = pattern(r"[\w+#.-]+")
#: Options that already name the title, which :func:`crosspost.issue.dialect.code_title`
#: reads.
_TITLE_OPTIONS = frozenset({"title", "filename", "file"})
#: Bare words sites read as switches, not titles: Mintlify's (``lines``, ``wrap``,
#: ``expandable``, ``twoslash``), Docusaurus's (``showLineNumbers``, ``live``,
#: ``noInline``), Nextra's ``copy``, rustdoc's, line numbers under other names.
_SWITCHES = frozenset(
    {"lines", "wrap", "expandable", "twoslash", "showlinenumbers", "live", "noinline",
     "copy", "nocopy", "no-copy", "no-icon", "line-numbers", "no-line-numbers", "linenums",
     "numberlines", "nolinenumbers", "ignore", "no_run", "should_panic", "compile_fail",
     "preview", "collapse", "collapsed"}
)  # fmt: skip


def mintlify_title(info: str, code: str) -> str:
    """The title Mintlify reads after a fence's language (``""``: none): the quoted
    phrase, else the bare words that are no switch or option. A quoted phrase the code
    holds is Expressive Code's and rehype-pretty-code's text marker (```` ```js "log"
    ```` marks the word), not a title; an info string that names its title with
    ``title=`` or ``[name]`` is left to :func:`~crosspost.issue.dialect.code_title`."""
    parts = info.split(maxsplit=1)
    if len(parts) < 2 or not _LANGUAGE.fullmatch(parts[0]):
        return ""  # a MyST directive's argument (```{figure} a.png) is none
    quoted: list[str] = []
    bare: list[str] = []
    for found in _META_WORD.finditer(parts[1]):
        word, option = found.group(0), found.group(1)
        if (option or "").lower() in _TITLE_OPTIONS or word[0] == "[":
            return ""
        if word[0] in "\"'":
            phrase = word[1:-1].strip()
            if phrase and phrase not in code:
                quoted.append(phrase)
        elif not (
            option
            or word[0] in "{/"
            or "{" in word  # showLineNumbers{10}
            or word.lower() in _SWITCHES
            or not any(char.isalnum() for char in word)
        ):
            bare.append(word)
    return quoted[0] if quoted else " ".join(bare)


# --- the rule ------------------------------------------------------------------------


def _fences(tokens: Sequence[Token]) -> Iterator[Token]:
    """The fences written with backticks or tildes: not a raw ``<pre>`` or a shortcode
    made a fence, whose code no site's highlighter read."""
    return (t for t in tokens if t.type == "fence" and t.markup[:1] in ("`", "~"))


def code_annotations(state: StateCore) -> None:
    """Core rule, after each fence's language is read: each fence's annotations left out
    of its code, the marks of its lines kept in its ``meta`` (:func:`line_marks`), a
    Mintlify title said as Docusaurus says it (``json title="200"``)."""
    for token in _fences(state.tokens):
        info = token.info.strip()
        language = info.split(maxsplit=1)[0] if info else ""
        title = mintlify_title(info, token.content)
        if title and not ('"' in title and "'" in title):
            quote = "'" if '"' in title else '"'
            token.info = f"{language} title={quote}{title}{quote}"
        read = read_annotations(token.content, language)
        if read is not None:
            token.content, marks = read
            if any(marks):
                token.meta = {**(token.meta or {}), _MARKS: marks}
