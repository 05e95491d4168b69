"""kramdown's (Jekyll's) and PHP Markdown Extra's markup that a site reads and never shows.

kramdown hides text between ``{::comment}`` and ``{:/comment}`` (or ``{:/}``), reads its
options from ``{::options … /}``, passes what ``{::nomarkdown}`` … ``{:/nomarkdown}`` holds
through as it is, and reads ``*[HTML]: HyperText Markup Language`` lines as the
definitions of abbreviations, shown as tooltips. Read as Markdown, a comment was published
(only its markers went), and each definition was a line of the article. An attribute
list written on the line under a table (``{: .table}``) was one more row of it, and one
after a reference definition's address (``[img1]: a.png {width=50%}``, as Pandoc writes it
too) kept the definition from being read.

Here the comments, the options and the definitions are left out, and a nomarkdown
extension's content stays where it is (it is raw HTML most often, which every channel
reads as raw HTML). Lines keep their numbers; code is code.
"""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.issue.blocks import fence_starts, in_fence, outside_fences
from crosspost.patterns import pattern

#: A comment, from its opening to its closing (``{:/comment}``, or ``{:/}``).
_COMMENT = pattern(r"\{::comment\}.*?\{:/(?:comment)?\}", re.DOTALL)
#: The markers of a nomarkdown extension and an options line, left out by themselves.
_MARKERS = pattern(r"\{::nomarkdown\}|\{:/nomarkdown\}|\{::options\b[^}\n]*/\}")
#: An abbreviation's definition, a line of its own.
_ABBREVIATION = pattern(r"[ \t]{0,3}\*\[[^\]\n]+\]:.*")
#: A link's reference definition with an attribute list after its address (and title):
#: ``[img1]: a.png {width=50%}`` (Pandoc), ``[x]: https://… "T" {: .c}`` (kramdown).
#: Markdown read no definition, and the picture it names was shown as ``![Fig][img1]``.
_DEFINITION_ATTRIBUTES = pattern(
    r"^( {0,3}\[[^\]\n]+\]:[ \t]*\S+(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?)"
    r"[ \t]+\{:?[^{}\n]*\}[ \t]*$",
    re.MULTILINE,
)
#: kramdown's attribute list, the whole of a line or a table cell.
_ATTRIBUTES = pattern(r"\{:[^{}\n]*\}")


def kramdown_extensions(state: StateCore) -> None:
    """Core rule, before the block parse: comments, options lines and abbreviation
    definitions left out of the source, a nomarkdown extension's markers and a reference
    definition's attribute list too; a comment over several lines leaves its lines blank,
    so every later line keeps its number."""
    if "]:" in state.src and "{" in state.src:
        state.src = _outside_code(_DEFINITION_ATTRIBUTES, state.src, r"\1")
    if "{::" not in state.src and "{:/" not in state.src and "*[" not in state.src:
        return
    source = _outside_code(_COMMENT, state.src)
    source = _outside_code(_MARKERS, source)
    if "*[" in source:
        fences = fence_starts(source)
        lines = source.split("\n")
        at = 0
        for index, line in enumerate(lines):
            if not in_fence(fences, at) and _ABBREVIATION.fullmatch(line):
                lines[index] = ""
            at += len(line) + 1
        source = "\n".join(lines)
    state.src = source


def _outside_code(found_by: re.Pattern[str], source: str, kept: str = "") -> str:
    """``source`` with what ``found_by`` finds outside code fences left out (but for
    ``kept``, a template of its groups), its line breaks kept."""
    return outside_fences(
        found_by,
        source,
        lambda found: found.expand(kept) if kept else "\n" * found.group(0).count("\n"),
    )


def table_attribute_rows(state: StateCore) -> None:
    """Core rule: a table's last row that holds only an attribute list (``{: .table}``,
    written on the line under the table, which Markdown read as one more row) left out.
    The row's own line is read too: SiYuan's ``{: colgroup="||" id="…"}`` holds pipes,
    which cut it into cells (the row showed ``{: colgroup="``)."""
    if "{:" not in state.src:
        return
    tokens = state.tokens
    source = state.src.split("\n")
    kept: list[Token] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "tr_open":
            close = next(i for i in range(index, len(tokens)) if tokens[i].type == "tr_close")
            cells = [t.content.strip() for t in tokens[index:close] if t.type == "inline"]
            written = [cell for cell in cells if cell]
            line = source[token.map[0]].strip() if token.map else ""
            alone = len(written) == 1 and _ATTRIBUTES.fullmatch(written[0]) and cells[0]
            if alone or _ATTRIBUTES.fullmatch(line.strip("|").strip()):
                index = close + 1
                continue
        kept.append(token)
        index += 1
    state.tokens = [
        token
        for at, token in enumerate(kept)
        if not (token.type == "tbody_open" and kept[at + 1].type == "tbody_close")
        and not (token.type == "tbody_close" and kept[at - 1].type == "tbody_open")
    ]
