"""reStructuredText pasted into Markdown: Sphinx's and docutils' directives, links, roles.

A passage copied from a project's README.rst or its Sphinx docs keeps reST's syntax:
``.. note::`` with its text indented under it, ``.. code-block:: python``, ``.. image::
a.png`` with its ``:alt:``, links written ``\\`words <https://…>\\`_`` (or ``\\`words\\`_``
with ``.. _words: https://…`` below, ``\\`words\\`__`` with ``__ https://…``) and roles
such as ``:ref:\\`setup\\```. Read as Markdown, each went out as written: the note's name
as a paragraph, the code as a paragraph, the picture never uploaded, the link as code
followed by ``_``.

Here a directive standing at a line's start is what Sphinx shows: an admonition (note,
tip, warning, seealso, ``admonition`` with its title …) a callout of its kind, its text
on the directive's line included; ``code-block``, ``code`` and ``sourcecode`` a code
block of their language; ``image`` and ``figure`` the picture (its ``:alt:``, a
figure's caption as its title). A link is a link, its targets' lines are left out, and a
role is read as MyST's (``{ref}\\`setup\\```, see ``myst``). Any other directive
(``toctree``, ``include``) is shown as written, and check names it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import escaped, inner, line_match, line_text, paragraph
from crosspost.issue.callouts import CALLOUT_LABELS, CALLOUT_SYNONYMS, callout_kind
from crosspost.patterns import pattern

#: A directive's line: its name (group 1) and its argument (group 2).
_DIRECTIVE = pattern(r"\.\.[ \t]+([A-Za-z][\w:-]*)::(?:[ \t]+(.*?))?[ \t]*")
#: A link target's line, ``.. _words: https://…``, or a label's, ``.. _intro:``.
_TARGET = pattern(r"\.\.[ \t]+_(?:`[^`]+`|[^:`]+):(?:[ \t]+\S+)?[ \t]*")
#: An anonymous target's line: ``__ https://…``.
_ANONYMOUS = pattern(r"__[ \t]+(?:[a-z][\w+.-]*:|/|\.\.?/)\S*[ \t]*")
#: A directive's option line: ``:alt: 图``.
_OPTION = pattern(r"[ \t]*:([\w-]+):(?:[ \t]+(.*?))?[ \t]*")
_CODE = frozenset({"code-block", "code", "sourcecode", "highlight"})
_PICTURES = frozenset({"image", "figure"})
#: Admonitions Sphinx and docutils know, each a callout.
_ADMONITIONS = (
    frozenset(CALLOUT_LABELS) | frozenset(CALLOUT_SYNONYMS) | {"admonition", "seealso"}
) - {"details", "spoiler", "quote", "cite"}

#: A link with its address: ```words <https://…>`_`` (``__``: anonymous).
_EMBEDDED = pattern(r"(?<![`\w])`([^`<>\n]*?)\s*<([^<>\s`]+)>`(__?)(?![\w`])")
#: A link to a target named elsewhere: ```words`_``, ```words`__``.
_NAMED = pattern(r"(?<![`\w])`([^`<>\n]+)`(__?)(?![\w`])")
#: A role: ``:ref:`setup```, ``:py:func:`len```.
_ROLE = pattern(r"(?<![\w:`]):([a-z][\w+-]*(?::[a-z][\w+-]*)?):(?=`[^`\n]+`(?!`))")
#: Code written in two backticks or more (``\`\`x\`\```, reST's own inline literal too):
#: kept as written, so a code sample of reST's links and roles shows them. One backtick is
#: reST's link and role, so single-backtick spans are read.
_LITERAL = pattern(r"(?<!`)(`{2,})(?!`).+?(?<!`)\1(?!`)")
#: Where the targets the links name are kept while the body is read.
TARGETS = "crosspost_rst_targets"


def rst_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: a directive Sphinx shows as a callout, code or a picture, or a link
    target's line (left out)."""
    if state.sCount[start] - state.blkIndent >= 4:
        return False
    target = line_match(state, start, "..", _TARGET) or line_match(state, start, "__", _ANONYMOUS)
    if target is not None:
        if not silent:
            state.line = start + 1
        return True
    found = line_match(state, start, "..", _DIRECTIVE)
    if found is None:
        return False
    name = found.group(1).lower()
    if name not in _ADMONITIONS and name not in _CODE and name not in _PICTURES:
        return False
    if name in _PICTURES and not (found.group(2) or "").strip():
        return False  # a picture of no file: shown as written, and check names it
    if silent:
        return True
    close = _body_end(state, start, end)
    first = start + 1
    options: dict[str, str] = {}
    while first < close and (option := _OPTION.fullmatch(_line(state, first))):
        options[option.group(1).lower()] = option.group(2) or ""
        first += 1
    argument = (found.group(2) or "").strip()
    if name in _CODE:
        token = state.push("fence", "code", 0)
        token.info = argument or options.get("language", "")
        lines = [_line(state, n, keep_indent=True) for n in range(first, close)]
        token.content = _dedented(lines)
        token.markup, token.map = "..", [start, close]  # no fence for check to look for
    elif name in _PICTURES:
        alt = options.get("alt", "")
        caption = " ".join(" ".join(_line(state, n).split()) for n in range(first, close))
        title = f' "{escaped(caption.strip()).replace(chr(34), chr(92) + chr(34))}"'
        paragraph(
            state, f"![{escaped(alt)}](<{argument}>{title if caption.strip() else ''})", start
        )
    else:
        title = argument if name == "admonition" else ""
        token = state.push("container_callout_open", "div", 1)
        token.info = f"{callout_kind(name)} {title}".strip()
        token.markup, token.map = ":::", [start, close]
        if argument and name != "admonition":
            paragraph(state, argument, start)
        if first < close:
            inner(state, first - 1, close, dedent=True)
        state.push("container_callout_close", "div", -1).markup = ":::"
    state.line = close
    return True


def _line(state: StateBlock, line: int, keep_indent: bool = False) -> str:
    if not keep_indent:
        return line_text(state, line)
    return state.src[state.bMarks[line] : state.eMarks[line]]


def _body_end(state: StateBlock, start: int, end: int) -> int:
    """The line after a directive's body: its lines are those indented more than the
    directive, blank lines among them."""
    last = start
    for line in range(start + 1, end):
        if state.isEmpty(line):
            continue
        if state.sCount[line] <= state.sCount[start]:
            break
        last = line
    return last + 1


def _dedented(lines: list[str]) -> str:
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return "".join(line[indent:] + "\n" for line in lines)


#: A target's line anywhere in the body, to read before the links that name it.
_TARGET_LINE = pattern(r"^[ \t]*(?:\.\.[ \t]+_(`[^`]+`|[^:`\n]+):|__)[ \t]+(\S+)[ \t]*$", re.M)


def rst_links(state: StateCore) -> None:
    """Core rule, before inline parsing: reST's links as Markdown's, its roles as MyST's
    (see the module)."""
    if "`_" not in state.src and "`__" not in state.src and ":`" not in state.src:
        return
    named: dict[str, str] = {}
    anonymous: list[str] = []
    for found in _TARGET_LINE.finditer(state.src):
        if found.group(1) is None:
            anonymous.append(found.group(2))
        else:
            named[_label(found.group(1))] = found.group(2)
    for token in state.tokens:
        if token.type != "inline" or "`" not in token.content:
            continue
        text = _outside_literals(_EMBEDDED, token.content, _embedded)
        text = _outside_literals(_NAMED, text, lambda found: _named(found, named, anonymous))
        token.content = _outside_literals(_ROLE, text, lambda found: f"{{{found.group(1)}}}")


def _outside_literals(
    found_by: re.Pattern[str], text: str, rewrite: Callable[[re.Match[str]], str]
) -> str:
    """``text`` with each match of ``found_by`` rewritten but those in a literal
    (:data:`_LITERAL`), read in the whole text so a pattern sees what stands before it."""
    literals = [literal.span() for literal in _LITERAL.finditer(text)] if "``" in text else []

    def rewritten(found: re.Match[str]) -> str:
        inside = any(start <= found.start() < end for start, end in literals)
        return found.group(0) if inside else rewrite(found)

    return found_by.sub(rewritten, text)


def _label(written: str) -> str:
    return " ".join(written.strip("`").split()).lower()


def _embedded(found: re.Match[str]) -> str:
    words, address = found.group(1).strip(), found.group(2)
    return f"[{escaped(words or address)}](<{address}>)"


def _named(found: re.Match[str], named: dict[str, str], anonymous: list[str]) -> str:
    words = found.group(1)
    address = anonymous.pop(0) if found.group(2) == "__" and anonymous else named.get(_label(words))
    if address is None or address.endswith("_"):  # no target, or one naming another
        return found.group(0)
    return f"[{escaped(words)}](<{address}>)"
