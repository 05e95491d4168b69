"""Lint for Markdown that parses, but not as its editor meant: text lost without an error.

A code fence or an HTML comment left open takes every line after it; a table row with
more cells than its header loses the extra ones; a footnote defined twice or never
referenced is not shown; a shortcode or an Obsidian embed goes out as literal text.
markdown-it accepts all of these quietly, as CommonMark says it must, so each is found
here from the body's token stream and its source lines, and reported as a warning with
the file line where the editor can fix it.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

from markdown_it.common.utils import normalizeReference
from markdown_it.token import Token

from crosspost.check.constructs import INFO, WARNING, Finding, lines_of
from crosspost.issue.ai_citations import CODE as AI_CITATIONS
from crosspost.issue.asciidoc import UNCLOSED as ASCIIDOC_UNCLOSED
from crosspost.issue.attachments import MISSING_ATTACHMENT, UNREADABLE_FILE
from crosspost.issue.blocks import (
    CODE_SPAN,
    PICTURE_ENDING,
    line_at,
    shortened,
    within,
)
from crosspost.issue.body import footnote_definitions
from crosspost.issue.chat_marks import CODE as CHAT_MARKUP
from crosspost.issue.components import JAVASCRIPT_PICTURE, PICTURE_TAGS, SELF_CLOSING
from crosspost.issue.csdn import CODE as CSDN_PICTURE
from crosspost.issue.dialect import (
    CHUNK_OUTPUT,
    DEEPEST_EMPHASIS,
    DEEPEST_HTML,
    MATH_ENVIRONMENT,
    MAX_NESTING,
    TERMINAL_ESCAPE,
    UNSHOWABLE,
    is_cjk,
    tokens_after,
)
from crosspost.issue.directives import UNKNOWN_DIRECTIVE
from crosspost.issue.feishu import BLOCKS as FEISHU_BLOCKS
from crosspost.issue.feishu import INLINE as FEISHU_INLINE
from crosspost.issue.fullwidth_links import CODE as FULL_WIDTH
from crosspost.issue.loader import JSON_FIELD
from crosspost.issue.logseq import MACRO_CODE as LOGSEQ_MACRO
from crosspost.issue.logseq import REFERENCE_CODE as LOGSEQ_REFERENCE
from crosspost.issue.markdown_in_html import UNREAD_MARKDOWN
from crosspost.issue.merge_tags import merge_tags
from crosspost.issue.mkdocs_icons import CODE as MKDOCS_ICON
from crosspost.issue.model import Issue
from crosspost.issue.model_reasoning import CODE as MODEL_REASONING
from crosspost.issue.roam import ALIAS_CODE as ROAM_ALIAS
from crosspost.issue.roam import MACRO_CODE as ROAM_MACRO
from crosspost.issue.roam import REFERENCE_CODE as ROAM_REFERENCE
from crosspost.issue.script_links import CODE as SCRIPT_LINK
from crosspost.issue.snippets import MISSING_SNIPPET
from crosspost.issue.svg_pictures import CODE as PLACEHOLDER_PICTURE
from crosspost.issue.ulysses import ANNOTATION as ULYSSES_ANNOTATION
from crosspost.issue.ulysses import COMMENT as ULYSSES_COMMENT
from crosspost.issue.wechat_cards import WECHAT_CARD
from crosspost.issue.wechat_page_text import WECHAT_PAGE_TEXT
from crosspost.patterns import ClosedOnItsLine, pattern
from crosspost.render.sanitize import EVERNOTE

#: HTML blocks that run to their closing tag, or to the end of the issue without one
#: (CommonMark's HTML block kinds 1 and 2).
_RUNS_TO_CLOSE = pattern(r"\s*<(script|pre|style|textarea)\b", re.IGNORECASE)
_CALLOUT_CLOSE = pattern(r"^[\s>]*:{3,}\s*$")
#: An embed Obsidian shows as a picture (the dialect reads it as an image): not foreign.
_EMBEDDED_IMAGE = rf"[^\]\n|#]*{PICTURE_ENDING}\s*[\]|#]"
#: A key in a bracketed citation: ``@doe2020``, ``-@fig-mau`` (``-``: the author's name
#: left out), the key in group 1.
_CITED_KEY = pattern(r"(?<![\w.])-?(@[A-Za-z_][\w:.#$%&+?<>~/-]*)")
#: Pandoc's bracketed citation: ``[@doe2020]``, ``[see @roe99, p. 3]``.
_CITATION = pattern(rf"\[[^\[\]\n]*?{_CITED_KEY.pattern}[^\[\]\n]*\](?![(:\[])")
#: A link's reference definition: ``[@octocat]: https://github.com/octocat`` (Keep a
#: Changelog thanks contributors so), which makes ``[@octocat]`` a link, not a citation.
_DEFINED = pattern(r"^ {0,3}\[([^\[\]\n]+)\]:", re.MULTILINE)
#: A newsletter service's merge tag or condition in its template language (Buttondown's
#: and Kit's ``{{ subscriber.first_name }}``, ``{{ unsubscribe_url }}``, beehiiv's
#: ``{{rp_refer_url}}``, ``{% if subscriber.tags … %}``): named as what it is, not as a
#: static site's variable.
_NEWSLETTER_TAG = re.compile(
    r"\{([{%])-?\s*(?:(?:if|unless|elsif|elif)\s+)?(?:subscriber[._]|unsubscribe_url\b"
    r"|unsubscribe_link\b|manage_subscription|rp_[a-z_]+\b|email\.|email_url\b)"
    r"[^{}\n]*?-?(?:%\}|\}\})"
)
#: Syntax of static-site generators and editors that Markdown shows as it is written.
_FOREIGN: tuple[tuple[re.Pattern[str] | ClosedOnItsLine, str], ...] = (
    (
        _NEWSLETTER_TAG,
        "a merge tag or condition your newsletter service (Buttondown, Kit, beehiiv) fills "
        "in for each subscriber; WeChat and Zhihu do not, so readers would see it as "
        "written: write the words it stands for, or leave it out",
    ),
    (
        re.compile(r"(?m)^\.\.[ \t]+[A-Za-z][\w:-]*::.*$"),
        "a reStructuredText directive crosspost does not read (it reads admonitions, "
        "code-block and image): it goes out as literal text; write what it stands for in "
        "Markdown, or leave it out",
    ),
    (
        ClosedOnItsLine(r"\{\{<\s*(?:include|embed)\b", r">\}\}"),
        "a shortcode (Quarto's, a site's) that includes another file, whose text is not in "
        "this file: it goes out as literal text; paste that file's text in its place",
    ),
    (
        ClosedOnItsLine(r"\{\{<\s*(?:var|meta|env)\b", r">\}\}"),
        "a shortcode (Quarto's) for a value filled in when the document is rendered: it "
        "goes out as literal text; write its value",
    ),
    (
        ClosedOnItsLine(r"\{\{(?:%|<(?!\s*(?:include|embed|var|meta|env)\b))", r"[>%]\}\}"),
        "a shortcode (Hugo's, Quarto's) crosspost does not read, not Markdown: it goes out "
        "as literal text; write what it stands for in Markdown (an image is "
        "![caption](path))",
    ),
    (
        re.compile(r"\{%\s*[A-Za-z_]\w*\([^(){}]*\)\s*%\}|\{\{\s*[A-Za-z_]\w*\([^(){}]*\)\s*\}\}"),
        "a Zola shortcode or a site's macro (MDN's), not Markdown: it goes out as literal "
        "text; write what it stands for in Markdown",
    ),
    (
        ClosedOnItsLine(
            r"(?<!\{)\{%(?!\s*[A-Za-z_]\w*\([^(){}]*\)\s*%\})(?!\s*end\s*%\})", r"%\}(?!\})"
        ),
        "a Jekyll or Hexo template tag, not Markdown: it goes out as literal text; write "
        "what it stands for in Markdown (an image is ![caption](path))",
    ),
    (
        ClosedOnItsLine(r"\{\{(?!\s*[A-Za-z_]\w*\([^(){}]*\)\s*\}\})[^<%/]", r"\}\}"),
        "a static-site template variable: it goes out as literal text; write its value",
    ),
    (
        re.compile(
            r"\[(?:caption|code|sourcecode|embed|gallery|audio|video|playlist|youtube)"
            r"\s[^\]\n]*=[^\]\n]*\](?!\()"
            r"|\[/(?:caption|code|sourcecode|embed|gallery|audio|video|playlist|youtube)\]"
        ),
        "a WordPress shortcode, not Markdown: it goes out as literal text; write what it "
        "stands for in Markdown (a picture with a caption is ![caption](path), code goes "
        "in a fenced block)",
    ),
    (
        _CITATION,
        "a Pandoc citation, which needs the bibliography Pandoc fills it from: it goes out "
        'as written; write the reference out ("Doe, 2020") and list the works at the end',
    ),
    (
        re.compile(rf"!\[\[(?!{_EMBEDDED_IMAGE})[^\]\n]+\]\](?!\()", re.IGNORECASE),
        "Obsidian's embed of another note, whose text is not in this file: it goes out as "
        "literal text; copy the text in",
    ),
    (
        re.compile(r"(?<!!)\[\[(?!_?toc_?\]\])[^\]\n]+\]\](?!\()", re.IGNORECASE),
        "a wiki link: no reader outside your notes can follow it, so only its words are "
        "shown; write [text](url) to link",
    ),
)


def source_findings(issue: Issue) -> list[Finding]:
    """Every :class:`Finding` of text the body loses or shows as written, in body order."""
    tokens = issue.document.tokens
    lines = lines_of(issue.body)
    found = [
        *_unclosed(issue, tokens, lines),
        *_table_cells(issue, tokens, lines),
        *_footnotes(issue, tokens),
        *_spaced_note_labels(issue, tokens, lines),
        *_paths_as_links(issue, tokens, lines),
        *_foreign(issue, tokens),
        *_unshowable(issue, lines),
        *_ai_citations(issue),
        *_flattened(issue, tokens),
        *_unread_front_matter(issue, lines),
        *_tables_of_contents(issue),
        *_unknown_tags(issue, tokens),
        *_unspaced_headings(issue, tokens, lines),
        *_sentences_over_rules(issue, tokens),
        *_literal_bold(issue, tokens, lines),
        *_diagrams(issue, tokens),
        *_unread_blocks(issue, tokens),
        *_indented_prose(issue, tokens),
        *_shallow_sublists(issue, tokens, lines),
        *_merge_tags(issue, tokens, lines),
        *_tracking_pixels(issue),
        *_github_attachments(issue, tokens),
        *_dialect_notes(issue),
        *_computed_text(issue, tokens, lines),
    ]
    return sorted(found, key=lambda finding: finding.line)


def _unclosed(issue: Issue, tokens: Sequence[Token], lines: Sequence[str]) -> Iterator[Finding]:
    """Fences, comments and ``<script>``-like blocks left open: each takes the rest."""
    for token in tokens:
        if not token.map:
            continue
        start, end = token.map
        line = issue.body_line + start
        fenced = token.type == "fence" and token.markup[:1] in ("`", "~")  # not a tag's
        if fenced and not _fence_closed(token.markup, lines[start + 1 : end]):
            closer = lines[end] if end < len(lines) else ""
            if _CALLOUT_CLOSE.match(closer):  # the callout around it ended inside the code
                message = (
                    f"the '{closer.strip()}' on line {issue.body_line + end} inside this code "
                    "block closes the callout around it, so the code block and the callout "
                    "end there; open the callout with more colons ('::::: tip' … ':::::')"
                )
            else:
                message = (
                    f"the code block opened with {token.markup} is never closed, so every "
                    "line after it (to the end of the issue, or of the list, quote or "
                    f"callout it is in) is shown as code; add a {token.markup} line where "
                    "the code ends"
                )
            yield Finding(line, None, "unclosed-fence", message)
        elif token.type == "inline":
            # CDATA or an instruction within a line (a table cell, a sentence) is left
            # out as surely as one standing alone; one line per paragraph or cell.
            pieces = (c.content for c in token.children or () if c.type == "html_inline")
            hidden = next(filter(None, map(_hidden_html, pieces)), None)
            if hidden:
                yield Finding(line, None, "unseen-html", hidden)
        elif token.type == "html_block":
            content = token.content
            if content.lstrip().startswith("<!--") and "-->" not in content:
                yield Finding(
                    line,
                    None,
                    "unclosed-comment",
                    "the HTML comment '<!--' is never closed with '-->', so every line "
                    "after it is hidden from readers; close it or remove it",
                )
                continue
            hidden = _hidden_html(content)
            if hidden:
                yield Finding(line, None, "unseen-html", hidden)
                continue
            match = _RUNS_TO_CLOSE.match(content)
            name = match.group(1).lower() if match else ""
            if name and f"</{name}" not in content.lower():
                yield Finding(
                    line,
                    None,
                    "unclosed-html",
                    f"<{name}> is never closed, so every line after it is taken as part of "
                    f"it; add </{name}> where it ends",
                )


#: A complete opening tag at the start of a raw HTML block (attributes may span lines).
_WHOLE_TAG = pattern(
    r"<[A-Za-z][A-Za-z0-9-]*(?:\s+[^\s\"'>/=]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?)*"
    r"\s*/?>"
)
_TAG_NAME = pattern(r"<([A-Za-z][A-Za-z0-9-]*)")
_WHOLE_TAG = pattern(r"<[A-Za-z][A-Za-z0-9.-]*(?:\s[^<>]*)?/?>")


def _hidden_html(content: str) -> str | None:
    """Why no reader sees the text of a raw HTML block, if none does: a ``<![CDATA[``
    section or a ``<?…?>`` instruction (a browser skips both), or an opening tag never
    closed with ``>``, which takes the words after it for its attributes."""
    text = content.lstrip()
    if text.startswith("<![CDATA["):
        return (
            "a '<![CDATA[' section is not shown to readers (browsers skip it), so its text "
            "is left out; write it as text, or in a code block"
        )
    if text.startswith("<?"):
        return (
            "a '<?…?>' instruction is not shown to readers, so its text is left out; write "
            "it in a code block to show it"
        )
    name = _TAG_NAME.match(text)
    if name and not _WHOLE_TAG.match(text):
        return (
            f"the raw HTML tag '<{name.group(1)}' is never closed with '>', so the words "
            "after it (to the next blank line) are read as its attributes and not shown; "
            f"close the tag, or write '\\<{name.group(1)}' to show it as text"
        )
    return None


def _fence_closed(markup: str, inside: Sequence[str]) -> bool:
    """Whether the last line of a fence's lines (quote markers and indent aside) closes it."""
    if not inside:
        return False
    closing = re.compile(rf"^[\s>]*{re.escape(markup[0])}{{{len(markup)},}}\s*$")
    return bool(closing.match(inside[-1]))


def _table_cells(issue: Issue, tokens: Sequence[Token], lines: Sequence[str]) -> Iterator[Finding]:
    """Rows with more cells than the header: markdown-it drops the extra ones (GFM)."""
    for index, token in enumerate(tokens):
        if token.type != "table_open" or not token.map or token.markup == "+":
            continue  # a grid table ('+'): its cells are read by their columns, not pipes
        header = 0
        for inner in tokens_after(tokens, index):
            if inner.type == "th_open":
                header += 1
            elif inner.type == "thead_close":
                break
        start, end = token.map
        for row in range(start + 2, min(end, len(lines))):
            cells = _cells(lines[row])
            if cells > header:
                yield Finding(
                    issue.body_line + row,
                    None,
                    "table-cells-dropped",
                    f"this table row has {cells} cells but its header has {header}, so the "
                    "cells past the last column are not shown; a '|' inside a cell, even "
                    "inside `code`, must be written '\\|'",
                )


def _cells(line: str) -> int:
    """How many cells a table row's source line holds, split as GFM splits it: at every
    '|' not escaped, code spans included."""
    row = re.sub(r"^[\s>]*", "", line).strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return len(re.split(r"(?<!\\)\|", row))


#: A footnote reference Markdown left as text: its label has no definition.
_LOOSE_NOTE = pattern(r"\[\^([^\]\s^]{1,40})\](?!:)")


def _footnotes(issue: Issue, tokens: Sequence[Token]) -> Iterator[Finding]:
    """Footnotes defined twice (one is shown) or never referenced (none is shown), and a
    reference to one never defined (its ``[^2]`` is shown as written)."""
    defined = footnote_definitions(issue)
    for token in tokens:
        loose = [
            found.group(0)
            for child in token.children or ()
            if child.type == "text" and "[^" in child.content
            for found in _LOOSE_NOTE.finditer(child.content)
        ]
        if loose and token.map:
            yield Finding(
                issue.body_line + token.map[0],
                None,
                "footnote-undefined",
                f"{loose[0]} refers to a footnote that is never defined, so it is shown as "
                f"written; add a line '{loose[0]}: …' with the note, or remove the mark",
            )
    referenced = Counter(
        str(child.meta.get("label", ""))
        for token in tokens
        for child in token.children or ()
        if child.type == "footnote_ref"
    )
    for label, at in defined.items():
        if len(at) > 1:
            yield Finding(
                at[1],
                None,
                "footnote-defined-twice",
                f"footnote [^{label}] is defined again here (first on line {at[0]}); only "
                "one of the definitions is shown: give each its own label",
            )
        if not referenced[label]:
            yield Finding(
                at[0],
                None,
                "footnote-unused",
                f"footnote [^{label}] is never referenced in the text, so it is not shown; "
                f"refer to it with [^{label}] or remove it",
            )


#: Link targets that are no path: a scheme's (``https:``, ``mailto:``), ``//host``, an
#: anchor, a channel's URL to fill in (``{zhihu.url}``).
_NOT_A_PATH = pattern(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|//|#|\{[A-Za-z]+(?::[\w.-]+)?\.url\})")
#: Pelican's marker of a path of the site (``{filename}/posts/a.md``, ``{static}/a.pdf``).
_SITE_MARKER = pattern(
    r"^(?:\{(?:filename|static|attach|index|tag|category|author)\}|\|filename\|)"
)
#: Schemes a reader's phone opens from a link; any other (``myst-parser:x``, a book's
#: cross-reference) leads nowhere outside the writer's tool.
_OPENED = pattern(r"^(?:https?|mailto|tel|sms|ftp|weixin|zhihu|itms-apps|market):", re.I)
_SCHEME = pattern(r"^[A-Za-z][A-Za-z0-9+.-]*:")
#: A placeholder a newsletter service fills in (Substack's ``%%share_url%%``, a template's
#: ``{{ url }}``, Mailchimp's ``*|ARCHIVE|*``).
_PLACEHOLDER = pattern(r"%%[^%\s]+%%|\{\{.*?\}\}|\*\|[A-Z_:]+\|\*")
#: A host's name without its scheme (``example.com/a``): a web address, if a loose one.
_HOST = pattern(r"^[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}(?:[/?#:]|$)")
_PAGE_FILE = pattern(r"\.(?:md|mdx|markdown|html?)(?:#.*)?$", re.IGNORECASE)
#: A file a writer attaches (Notion's exported database, a deck, a sheet): by its name.
_ATTACHED_FILE = pattern(
    r"\.(?:csv|tsv|pdf|docx?|xlsx?|pptx?|key|numbers|pages|zip|rar|7z|txt|json|ya?ml|epub)$",
    re.IGNORECASE,
)
_PAGE_NAME = pattern(r"[A-Za-z0-9_./#-]+")


def is_path(target: str) -> bool:
    """Whether a link target is a path of the writer's site or disk (``./editors.md``,
    ``../2021/a.md#top``, ``/posts/a.html``, a page's name: ``setup``, ``api#config``),
    not a web address."""
    if _SITE_MARKER.match(target):
        return True
    if not target or _NOT_A_PATH.match(target):
        return False
    if target.startswith(("./", "../", "/")) or _PAGE_FILE.search(target):
        return True
    if _ATTACHED_FILE.search(target) and not (_HOST.match(target) and "/" in target):
        return True  # budget.csv, 附件/预算.pdf; not example.com/a.pdf
    # A page's name is a word of ASCII ("[全栈](会很多)" is words in brackets, not a link)
    return bool(_PAGE_NAME.fullmatch(target)) and not _HOST.match(target)


def unfollowable(target: str) -> str | None:
    """Why no reader can follow a link to ``target``, or None when one can."""
    if is_path(target):
        return "is a path on your site or disk, not a web address"
    if _PLACEHOLDER.search(target):
        return "is a placeholder your newsletter service or site fills in, not a web address"
    if (_SCHEME.match(target) and not _OPENED.match(target)) or target.startswith(":/"):
        return "is a reference of the tool you wrote in, not a web address"  # Joplin's :/id
    return None


#: A raw ``<a href>``: its target.
_RAW_HREF = pattern(r"<a\s[^>]*?\bhref\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))", re.I)


def _paths_as_links(
    issue: Issue, tokens: Sequence[Token], lines: Sequence[str]
) -> Iterator[Finding]:
    """Links no reader can follow, in Markdown or raw HTML: to a page by its path on the
    writer's site or disk, to a placeholder, to another tool's reference. On WeChat and
    Zhihu such a link leads nowhere (a Markdown one is shown as a note, a raw one as its
    words alone). One finding per paragraph or block, and one per table (a table of a
    site's pages gave one per cell)."""
    table_close = -1  # where the table being read ends
    told_until = -1  # a table already named: its other cells are counted, not told
    for index, token in enumerate(tokens):
        if token.type == "table_open":
            table_close = next(
                i for i in range(index, len(tokens)) if tokens[i].type == "table_close"
            )
        if index <= told_until or token.type not in ("inline", "html_block") or not token.map:
            continue
        found = [(t, why) for t in _link_targets(token) if (why := unfollowable(t))]
        if not found:
            continue
        target, why = found[0]
        start, end = token.map
        number = next((n for n in range(start, min(end, len(lines))) if target in lines[n]), start)
        others = list(dict.fromkeys(t for t, _ in found[1:] if t != target))
        more = ""
        if others:  # named all at once: fixing one must not just bring up the next
            shown = ", ".join(f"'{shortened(t)}'" for t in others[:3])
            rest = f" and {len(others) - 3} more" if len(others) > 3 else ""
            more = f" (and {shown}{rest} in the same paragraph)"
        if index < table_close:
            cells = tokens[index:table_close]
            count = sum(1 for cell in cells for t in _link_targets(cell) if unfollowable(t))
            more = f" (and {count - 1} more in this table)" if count > 1 else ""
            told_until = table_close
        yield Finding(
            issue.body_line + number,
            None,
            "path-as-link",
            f"the link to '{shortened(target)}'{more} {why}: WeChat and Zhihu readers cannot "
            "follow it (it is shown as a note, or its words alone); write the page's full "
            "address (https://…)",
        )


def _link_targets(token: Token) -> list[str]:
    """Where the links of an inline or a raw HTML block point, Markdown's and raw ones."""
    targets = [
        str(child.attrGet("href") or "").strip()
        for child in token.children or ()
        if child.type == "link_open"
    ]
    pieces = [token.content] if token.type == "html_block" else []
    pieces += [c.content for c in token.children or () if c.type == "html_inline"]
    targets += [
        next(g for g in found.groups() if g is not None).strip()
        for piece in pieces
        for found in _RAW_HREF.finditer(piece)
    ]
    return targets


#: A footnote label with a space in it (``[^Access Control]``), which Markdown does not
#: read as a label: Typora writes them.
_SPACED_LABEL = pattern(r"\[\^[^\]\s]*\s[^\]]*\]")


def _spaced_note_labels(
    issue: Issue, tokens: Sequence[Token], lines: Sequence[str]
) -> Iterator[Finding]:
    """Footnote references and definitions whose label has a space: both show as written,
    and such a definition joins the note above it (``身份认证 [^Access Control]: 访问控制``)."""
    for token in tokens:
        if token.type != "inline" or not token.map or "[^" not in token.content:
            continue
        label = _SPACED_LABEL.search(_text_of(token))
        if label is None:
            continue
        start, end = token.map
        number = next(
            (n for n in range(start, min(end, len(lines))) if label.group() in lines[n]), start
        )
        written = label.group()
        yield Finding(
            issue.body_line + number,
            None,
            "spaced-note-label",
            f"'{shortened(written, 30)}' is not read as a footnote: a label cannot hold a "
            "space, so the reference shows as written and a definition joins the note "
            f"before it; write it without spaces ('[^{'-'.join(written[2:-1].split())}]') "
            "in both places",
        )


#: Lines a finding about many lines names before "and N more".
_LINES_NAMED = 5


def _lines_named(issue: Issue, numbers: Sequence[int], named: int = _LINES_NAMED) -> str:
    """The file lines of body lines ``numbers``, the first ``named`` of them written out:
    "8, 11, 20 and 4 more"."""
    shown = ", ".join(str(issue.body_line + number) for number in numbers[:named])
    return shown + (f" and {len(numbers) - named} more" if len(numbers) > named else "")


def _unshowable(issue: Issue, lines: Sequence[str]) -> Iterator[Finding]:
    """Control characters (and U+FFFE/U+FFFF) in the body, which the dialect leaves out:
    one finding for the file, on the first line that held one, naming up to five lines.
    One, not one per line: a pasted terminal log can hold hundreds, and the editor needs
    to know where to look, not every spot."""
    where = [number for number, line in enumerate(lines) if UNSHOWABLE.search(line)]
    if not where:
        return
    found = [char for number in where for char in UNSHOWABLE.findall(lines[number])]
    codes = sorted({ord(char) for char in found})
    names = ", ".join(f"U+{code:04X}" for code in codes[:_LINES_NAMED])
    shown = _lines_named(issue, where)
    count = len(found)
    escape = next((code for n in where if (code := TERMINAL_ESCAPE.search(lines[n]))), None)
    codes_too = f", with the terminal codes they begin ('{escape.group()[1:]}')" if escape else ""
    yield Finding(
        issue.body_line + where[0],
        None,
        "invisible-character",
        f"{count} invisible control character{'s' if count > 1 else ''} ({names}) on "
        f"line{'s' if len(where) > 1 else ''} {shown} left out of every channel{codes_too} "
        "(a form feed shown as a space; text pasted from a terminal or another program?); "
        "delete them from the file",
    )


_ITEM_LINE = pattern(r"( *)(\d{1,9})[.)]([ \t]+)")


def _shallow_sublists(
    issue: Issue, tokens: Sequence[Token], lines: Sequence[str]
) -> Iterator[Finding]:
    """Items meant as a sub-list but indented less than the words of the item above them
    (``2. 导入`` then ``  1. 删除``, as feishu2md writes them): Markdown reads them as more
    items of the same list and numbers them on, so ``3. 设置`` is shown as ``5.``. One
    finding per list, on the first such item."""
    for index, token in enumerate(tokens):
        if token.type != "ordered_list_open":
            continue
        items = [
            t
            for t in tokens[index + 1 : _closing(tokens, index)]
            if t.type == "list_item_open" and t.level == token.level + 1 and t.map
        ]
        before: re.Match[str] | None = None
        for item in items:
            assert item.map is not None
            line = lines[item.map[0]] if item.map[0] < len(lines) else ""
            found = _ITEM_LINE.match(line)
            if found is None:
                continue
            if before is not None:
                words_at = len(before.group(0))  # the indent, the number, the gap
                deeper = len(before.group(1)) < len(found.group(1)) < words_at
                if deeper and int(found.group(2)) <= int(before.group(2)):
                    yield Finding(
                        issue.body_line + item.map[0],
                        None,
                        "shallow-sublist",
                        f"'{line.strip()[:24]}' is indented {len(found.group(1))} spaces, "
                        f"less than the {words_at} where the words of the item above begin, "
                        "so Markdown reads it as one more item of the same list, numbered on "
                        "from it; indent the sub-list's lines to the words above "
                        f"({words_at} spaces)",
                    )
                    break
            before = found


def _closing(tokens: Sequence[Token], opening: int) -> int:
    """The index of the token closing the one at ``opening``."""
    level = tokens[opening].level
    close = tokens[opening].type.replace("_open", "_close")
    return next(
        (
            i
            for i in range(opening + 1, len(tokens))
            if tokens[i].type == close and tokens[i].level == level
        ),
        len(tokens),
    )


def _ai_citations(issue: Issue) -> Iterator[Finding]:
    """An AI assistant's citation marks (``[^4^]``, ``【3†source】``, ``[cite: 1]``…),
    which every channel leaves out, as the dialect noted them
    (:mod:`crosspost.issue.ai_citations`; Kimi's marks it read as footnotes are none of
    them): one finding for the file, naming the lines, so the editor links the sources
    the answer used."""
    marks = [(line, mark) for line, code, mark in issue.document.notes if code == AI_CITATIONS]
    if not marks:
        return
    where = [line for line, _ in marks]
    yield Finding(
        issue.body_line + where[0],
        None,
        AI_CITATIONS,
        f"citation marks an AI assistant left (such as {marks[0][1]!r}) "
        f"on line{'s' if len(where) > 1 else ''} {_lines_named(issue, where)} are left out of "
        "every channel: they point at the assistant's search results, which the issue does "
        "not hold; link the sources readers need",
    )


def _flattened(issue: Issue, tokens: Sequence[Token]) -> Iterator[Finding]:
    """Raw HTML or emphasis nested so deep that the dialect showed its inner levels flat,
    and Markdown blocks nested as deep as the parse follows (what lies deeper, and what
    follows it, is not read: markdown-it stops there)."""
    deepest = next((t for t in tokens if t.level >= MAX_NESTING - 1 and t.map), None)
    if deepest is not None and deepest.map:
        yield Finding(
            issue.body_line + deepest.map[0],
            None,
            "nested-too-deep",
            f"blocks (lists, quotes) nested {MAX_NESTING // 2} levels deep: what lies deeper, "
            "and what follows it, may be left out of every channel; nest less",
        )
    for token in tokens:
        if token.meta.get("flattened") and token.map:
            what = (
                f"HTML elements nested more than {DEEPEST_HTML} deep"
                if token.type == "html_block"
                else f"emphasis nested more than {DEEPEST_EMPHASIS} deep"
            )
            yield Finding(
                issue.body_line + token.map[0],
                None,
                "nested-too-deep",
                f"{what}: the inner levels are shown without their tags or marks (their "
                "words are kept); nest less",
            )


#: Element names HTML (and the SVG and MathML a page may hold) knows, beyond lxml's list
#: of HTML's own (``lxml.html.defs.tags``, which stops at HTML 4 and a few of 5's).
_NEWER_ELEMENTS = frozenset(
    {"picture", "template", "slot", "dialog", "search", "math", "mi", "mn", "mo", "mrow",
     "msup", "msub", "mfrac", "msqrt", "mtext", "semantics", "annotation", "path", "g",
     "rect", "circle", "ellipse", "line", "polyline", "polygon", "tspan", "defs", "use",
     "symbol", "clippath", "lineargradient", "radialgradient", "stop", "foreignobject"}
)  # fmt: skip


@functools.cache
def _known_elements() -> frozenset[str]:
    from lxml.html import defs

    return frozenset(defs.tags) | _NEWER_ELEMENTS


def _unknown_tags(issue: Issue, tokens: Sequence[Token]) -> Iterator[Finding]:
    """Words in angle brackets that Markdown reads as an HTML tag of no element
    (``Option<T>``, ``List<String>``, ``Vec<u8>``): every channel drops the tag, as a
    browser does, so the text loses those words and no one was told. A custom element
    (a name with a hyphen, ``<my-card>``) is a page's own, drawn by its script: every
    channel keeps only its words. Evernote's elements are said as what they are
    (:func:`_evernote`)."""
    seen: set[tuple[int, str]] = set()
    # A picture component whose source is JavaScript is named once, by that note.
    unread = {line for line, code, _ in issue.document.notes if code == JAVASCRIPT_PICTURE}
    for token in tokens:
        if not token.map:
            continue
        if token.type == "html_block":  # every tag of the block, each on its line
            content = _UNREAD_HTML.sub(_kept_lines, token.content)
            pieces = [
                (line_at(content, found.start()), found.group(0))
                for found in _WHOLE_TAG.finditer(content)
            ]
            alone = len(pieces) == 1 and not _WHOLE_TAG.sub("", content).strip()
        elif token.type == "inline":
            pieces = [(0, c.content) for c in token.children or () if c.type == "html_inline"]
            alone = False
        else:
            continue
        for offset, piece in pieces:
            line = issue.body_line + token.map[0] + offset
            found = _TAG_NAME.match(piece.lstrip())
            name = found.group(1) if found else ""
            if not name or name.lower() in _known_elements() or name == "image":
                # <image> is a browser's <img> (and every channel's): its picture is read
                continue
            if (line, name) in seen:
                continue
            seen.add((line, name))
            if line - issue.body_line in unread and name.rsplit(".", 1)[-1].lower() in PICTURE_TAGS:
                continue
            component = token.type == "html_block" and SELF_CLOSING.fullmatch(piece.strip())
            severity = WARNING
            feishu = _feishu(name, piece) if name in FEISHU_INLINE | FEISHU_BLOCKS else None
            if name.lower() in EVERNOTE:
                message = _evernote(name.lower(), piece)
                if message is None:
                    continue
            elif feishu is not None:
                message, severity = feishu
            elif "-" in name:
                message = (
                    f"'<{name}>' is a custom element (a page's own, drawn by its script), "
                    "which no channel has: every channel leaves it out and keeps only the "
                    "words inside it; write what it shows here in Markdown if the issue "
                    "needs it"
                )
            elif component and alone:
                message = (
                    f"'<{name} />' is an MDX component that names nothing crosspost can "
                    "show (no video, picture or link), so every channel leaves it out; "
                    "write what it shows on the site here in Markdown if the issue needs it"
                )
            elif component:
                message = (
                    f"'<{name} />' is an MDX component inside raw HTML, which every channel "
                    "leaves out; on a line of its own outside the HTML, crosspost shows the "
                    "video, picture or link it names"
                )
            else:
                message = (
                    f"'<{name}>' is read as an HTML tag of no element, which every channel "
                    f"leaves out as a browser does ('Option<T>' shows as 'Option'); write "
                    f"it as code (`…<{name}>`) or escape the bracket (\\<{name}>)"
                )
            yield Finding(line, None, "unknown-tag", message, severity)


#: Feishu's ``<text>`` as it colours words (an SVG's ``<text>`` has neither attribute).
_FEISHU_COLOUR = pattern(r"\s(?:bg)?color\s*=", re.IGNORECASE)


def _feishu(name: str, tag: str) -> tuple[str, str] | None:
    """What check says of one of Feishu's elements (``tag``, its opening tag), and how
    loud: every channel keeps their words. A block of Feishu's (a callout, columns) is
    read as what it draws when it is closed (:mod:`crosspost.issue.feishu`): one left
    here was never closed."""
    if name == "text":
        if not _FEISHU_COLOUR.search(tag):
            return None  # not Feishu's: said as any other tag of no element
        return (
            "'<text>' is Feishu's coloured or highlighted text: every channel shows its "
            "words, without the colour; if the colour says something, make the words bold "
            "(**…**) or say it in words",
            WARNING,
        )
    if name == "mention-user":
        return (
            "'<mention-user>' is a mention of a person in Feishu: every channel shows the "
            "name as plain text (the person's Feishu profile is not linked)",
            INFO,
        )
    if name == "mention-doc":
        return (
            "'<mention-doc>' is a link to a Feishu document, named by its token, not a web "
            "address: every channel shows its title alone; link the title to the "
            "document's address ([title](https://…)) if readers need it",
            WARNING,
        )
    return (  # read as its block when closed: this one is not
        f"'<{name}>' opens a block of Feishu's that is never closed (no '</{name}>'), so "
        "it is not read as one: every channel leaves the tag out and shows what follows "
        f"it as plain text; add '</{name}>' where the block ends",
        WARNING,
    )


def _evernote(name: str, tag: str) -> str | None:
    """What check says of one of Evernote's elements (``tag``, its opening tag), if
    anything: its wrapper and its tasks' boxes are shown (as their content, as ☑ and ☐);
    an attachment the export did not include, and encrypted text, are not."""
    if name == "en-media":
        kind = _MEDIA_TYPE.search(tag)
        what = f" ({kind.group(1)})" if kind else ""
        return (
            f"'<en-media>' is an Evernote attachment{what} that this export left out: there "
            "is no file to show, so every channel shows nothing in its place; export the "
            "note from Evernote as HTML, which keeps its attachments, or put the file "
            "beside the issue and link it (![](images/…) for a picture, [name](url) for "
            "any other file)"
        )
    if name == "en-crypt":
        return (
            "'<en-crypt>' is text encrypted in Evernote: no reader can read its ciphertext, "
            "so every channel leaves it out; decrypt it in Evernote and export the note "
            "again if it belongs in the issue"
        )
    return None


_MEDIA_TYPE = pattern(r"""\stype\s*=\s*["']?([\w.+-]+/[\w.+-]+)""", re.IGNORECASE)


#: A line that opens with two to six ``#`` and words right after them: a heading to the
#: editors that allowed it (Markdown.pl did), a paragraph to CommonMark, hashes shown.
_UNSPACED_HEADING = pattern(r"^ {0,3}(?:>[ \t]?)*(#{2,6})([^\s#])")


def _unspaced_headings(
    issue: Issue, tokens: Sequence[Token], lines: Sequence[str]
) -> Iterator[Finding]:
    """``###标题`` written without the space CommonMark needs after the hashes: one
    finding, on the first such line, naming up to five (an issue written this way has
    one per item)."""
    where = [
        number
        for token in tokens
        if token.type == "paragraph_open" and token.map
        for number in range(token.map[0], min(token.map[1], len(lines)))
        if _UNSPACED_HEADING.match(lines[number])
    ]
    if not where:
        return
    first = _UNSPACED_HEADING.match(lines[where[0]])
    assert first is not None
    hashes, written = first.group(1), lines[where[0]][first.start(1) :].strip()
    shown = shortened(written, 30)
    others = ""
    if len(where) > 1:  # five lines in all: this one and four more
        also = _lines_named(issue, where[1:], _LINES_NAMED - 1)
        others = f" (also line{'s' if len(where) > 2 else ''} {also})"
    yield Finding(
        issue.body_line + where[0],
        None,
        "unspaced-heading",
        f"'{shown}' is not a heading{others}: Markdown needs a space after the {hashes}, "
        "so they show as text and the line joins the paragraph; write "
        f"'{hashes} {written[len(hashes) :][:12]}…'",
    )


#: How a sentence ends, and no heading does: with its stop (。！？!?…) or a colon.
_SENTENCE_END = pattern(r"[。！？!?…：:；;，,]\s*$|[^.]\.\s*$")


def _sentences_over_rules(issue: Issue, tokens: Sequence[Token]) -> Iterator[Finding]:
    """A sentence with ``---`` right under it (``本期完，感谢阅读！`` then a rule before the
    footer): Markdown reads the two as a heading (a Setext one), and the rule is gone.
    Only when the words end as a sentence does: a heading written so is left alone."""
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.markup != "-" or not token.map:
            continue
        words = tokens[index + 1].content
        if not _SENTENCE_END.search(words):
            continue
        yield Finding(
            issue.body_line + token.map[0],
            None,
            "sentence-as-heading",
            f"'{shortened(words.splitlines()[-1].strip(), 24)}' is read as a heading, with "
            "the '---' under it as its underline, and the rule is gone; leave a blank line "
            "between them for a rule",
        )


#: Loose ``**`` looked for in a paragraph's text, each on every line of the paragraph: a
#: bound, so a pasted page of ten thousand escaped asterisks costs no more than a few.
_MARKS_LOOKED_AT = 8


def _literal_bold(issue: Issue, tokens: Sequence[Token], lines: Sequence[str]) -> Iterator[Finding]:
    """``**`` that Markdown left as written: a closing mark with a space before it
    (``**加粗 **``), a mark with nothing to pair with, or marks CommonMark does not pair
    between letters (``a**'b'**c``). Every channel shows the asterisks and no bold, which
    the editor notices only in the published post. One finding per paragraph.

    Read from the text Markdown left, so marks that made bold are never named; a mark
    is found on its line by the characters beside it, so an escaped ``\\*\\*`` (the same
    text once read, other characters in the file) is not named, and ``5 ** 2``, spaces
    on both sides, reads as meant."""
    for token in tokens:
        if token.type != "inline" or not token.map or not token.children:
            continue
        start, end = token.map
        written = lines[start:end]
        loose = (
            quoted
            for child in token.children
            if child.type == "text" and "**" in child.content
            for quoted in _loose_marks(child.content)
        )
        found = next(
            (
                (number, quoted)
                for quoted in itertools.islice(loose, _MARKS_LOOKED_AT)
                for number, line in enumerate(written, start)
                if quoted in line
            ),
            None,
        )
        if found is not None:
            number, quoted = found
            yield Finding(
                issue.body_line + number,
                None,
                "literal-bold",
                f"'{quoted.strip()}' shows its two asterisks, not bold: Markdown bolds only "
                "between marks that touch their words ('**加粗**', not '**加粗 **') and "
                "pairs each mark with another in the same paragraph; move or add the "
                "mark, or write \\*\\* for asterisks",
            )
            continue
        underscored = next(
            (
                (number, quoted)
                for child in token.children
                if child.type == "text" and "_" in child.content
                for quoted in _underscored(child.content)
                for number, line in enumerate(written, start)
                if quoted in line
            ),
            None,
        )
        if underscored is not None:
            number, quoted = underscored
            double = quoted.startswith("__")
            marks, stars = ("two underscores", "**") if double else ("underscores", "*")
            written_so = stars + quoted.strip("_") + stars
            yield Finding(
                issue.body_line + number,
                None,
                "literal-bold",
                f"'{quoted}' shows its {marks}, not emphasis: Markdown takes '_' and '__' "
                "as marks only where no letter or Chinese character touches them from "
                f"outside; write '{written_so}', which works beside any character",
            )


#: Words between ``_`` or ``__`` that Markdown left as written: ``__强调__中文``.
_UNDERSCORED = pattern(r"(?<![_\\])(__?)(?![_\s])([^_\n]{1,80}?)(?<![_\s])\1(?!_)")
_CHINESE = pattern(r"[\u3400-\u9fff\uf900-\ufaff]")


def _underscored(text: str) -> Iterator[str]:
    """Each run between underscores of ``text`` that a writer meant as emphasis: Chinese
    among its words (a Python name, ``__init__``, has none), and for a single ``_`` no
    word on one side of the pair (``数据_清洗_脚本`` is a name, ``_斜体_字`` a slip)."""
    for found in _UNDERSCORED.finditer(text):
        if not _CHINESE.search(found.group(2)):
            continue
        before = text[found.start() - 1] if found.start() else " "
        after = text[found.end()] if found.end() < len(text) else " "
        if found.group(1) == "_" and before.isalnum() and after.isalnum():
            continue
        yield found.group(0)


def _loose_marks(text: str) -> Iterator[str]:
    """Each ``**`` of ``text`` with a word on one side, quoted with the few characters
    beside it (after it, or before it at the end of the text)."""
    for at in (m.start() for m in re.finditer(r"(?<!\*)\*\*(?!\*)", text)):
        before = text[at - 1] if at else "x"  # another element: a word to the mark
        after = text[at + 2] if at + 2 < len(text) else "x"
        if before.isspace() and after.isspace():
            continue
        following = text[at : at + 8]
        yield following if len(following) > 3 else text[max(0, at - 6) : at + 2]


#: Code fences that editors (Typora, Obsidian, GitHub, VuePress) draw as a diagram.
_DIAGRAMS = frozenset(
    {"mermaid", "plantuml", "puml", "flowchart", "flow", "sequence", "graphviz", "dot",
     "mindmap", "markmap", "echarts", "chart"}
)  # fmt: skip


#: A diagram written in raw HTML for a page's script to draw: ``<pre class="mermaid">``.
_RAW_DIAGRAM = pattern(r"<(?:pre|div)\b[^>]*\bclass\s*=\s*[\"']?(mermaid)\b", re.IGNORECASE)


def _diagrams(issue: Issue, tokens: Sequence[Token]) -> Iterator[Finding]:
    """A diagram written as code (```` ```mermaid ````, or raw ``<pre class="mermaid">``):
    the editor or the site's script drew it, no channel does, so readers get its
    source."""
    for token in tokens:
        kind = token.info.split(maxsplit=1)[0].lower() if token.info.strip() else ""
        raw = _RAW_DIAGRAM.match(token.content) if token.type == "html_block" else None
        if raw is not None:
            kind = raw.group(1).lower()
        if ((token.type == "fence" and kind in _DIAGRAMS) or raw) and token.map:
            yield Finding(
                issue.body_line + token.map[0],
                None,
                "diagram-as-code",
                f"a {kind} diagram is shown as its source code on every channel (neither "
                "WeChat nor Zhihu draws diagrams); export it from your editor as an image "
                "and write ![…](diagram.png) in its place",
            )


#: A MkDocs content tab's label line: ``=== "Linux"``.
_CONTENT_TAB = pattern(r"^={3}[+!]?\s+[\"']")
#: A LaTeX environment written outside ``$$``: ``\begin{equation}``.
_LATEX_ENVIRONMENT = pattern(r"\\begin\{([A-Za-z*]+)\}")


def _unread_blocks(issue: Issue, tokens: Sequence[Token]) -> Iterator[Finding]:
    """Blocks of other tools' syntax that Markdown shows as something else: MyST's
    ```` ```{figure} ```` directives and MkDocs's content tabs become code, Markdown inside
    ``<div markdown="1">`` stays as written (its images lost), and a LaTeX environment
    outside ``$$`` shows its TeX."""
    for token in tokens:
        if not token.map:
            continue
        line = issue.body_line + token.map[0]
        if token.type == "fence" and token.info.startswith("{"):  # admonitions are callouts
            name = f"'```{shortened(token.info.split('}', 1)[0] + '}', 24)}'"
            if name.startswith("'```{="):  # Pandoc's; ```{=html} is read as HTML
                kind, what = "raw-format", "Pandoc's raw block for another output format"
                fix = "leave it out, or write what it says in Markdown"
            else:
                kind, what = "myst-directive", "a MyST directive"
                fix = (
                    "crosspost reads MyST's admonitions, ```{note}, not its other "
                    "directives; write it in Markdown (an image: ![caption](path))"
                )
            yield Finding(
                line, None, kind, f"{name} is {what}, shown as code on every channel; {fix}"
            )
        elif token.type == "html_block" and (unread := UNREAD_MARKDOWN.match(token.content)):
            closing = f"</{unread.group(1)}>"
            yield Finding(
                line,
                None,
                "markdown-in-html",
                "Markdown inside HTML (MkDocs's md_in_html, kramdown's markdown=\"1\") is "
                f"read up to a '{closing}' alone on a line, and none closes this one: its "
                "bold, links and images show as written and the images are not uploaded; "
                f"put '{closing}' on a line of its own where the element ends",
            )
        elif token.type == "inline" and _CONTENT_TAB.match(token.content):
            yield Finding(
                line,
                None,
                "content-tabs",
                f"'{shortened(token.content.splitlines()[0], 24)}' is a MkDocs content tab, "
                "not Markdown: the label shows as written and the tab's indented content "
                "as code; write each tab as a bold line with its content below, not indented",
            )
        elif token.type == "inline" and (environment := _LATEX_ENVIRONMENT.search(_text_of(token))):
            name = environment.group(1)
            if MATH_ENVIRONMENT.match(environment.group()):  # drawn, once it is closed
                what = f"is never closed with '\\end{{{name}}}', so its TeX shows as written"
                fix = "add that line where the formula ends"
            else:
                what = "is LaTeX, not Markdown: it shows as written"
                fix = "write it in Markdown (a list: '- item' lines)"
            yield Finding(
                line,
                None,
                "latex-outside-math",
                f"'\\begin{{{name}}}' {what}; {fix}",
            )


def _text_of(token: Token) -> str:
    """The text of an inline token as shown, code and formulas left out."""
    return "".join(c.content for c in token.children or () if c.type == "text")


#: Chinese characters an indented block holds before it reads as prose shown as code.
_PROSE_CJK = 8


#: What an indented block holds that is no prose's words: a Markdown link's address,
#: a bare address, code in backticks.
_NOT_WORDS = pattern(r"\]\([^()\s]*\)|https?://\S+|`[^`\n]*`")


def _indented_prose(issue: Issue, tokens: Sequence[Token]) -> Iterator[Finding]:
    """Paragraphs indented four spaces (奇舞周刊 indents every item's description):
    Markdown shows them as code, on WeChat one line that scrolls sideways. Told apart
    from code by being mostly Chinese; one finding, naming the lines."""
    where = []
    for token in tokens:
        if token.type != "code_block" or not token.map:
            continue
        # Letters a reader reads: a link's address and code in backticks are not words.
        words = _NOT_WORDS.sub(" ", token.content)
        letters = [char for char in words if char.isalpha()]
        chinese = sum(1 for char in letters if is_cjk(char))
        if chinese >= _PROSE_CJK and chinese * 2 >= len(letters):
            where.append(token.map[0])
    if not where:
        return
    count = len(where)
    yield Finding(
        issue.body_line + where[0],
        None,
        "indented-prose",
        f"{count} block{'s' if count > 1 else ''} of text indented four spaces or more "
        f"(line{'s' if count > 1 else ''} {_lines_named(issue, where)}) "
        f"{'are' if count > 1 else 'is'} shown as code, not as paragraphs (on WeChat one "
        "line that scrolls sideways); take out the indent if it is text",
    )


def _tracking_pixels(issue: Issue) -> Iterator[Finding]:
    """Tracking pixels, which the dialect leaves out: uploaded, one would have been a
    picture of its own in the article (or a download check refused), and it would have
    told the email service nothing. Named so the editor knows where the image went."""
    for line, source, why in issue.document.pixels:
        yield Finding(
            issue.body_line + line,
            None,
            "tracking-pixel",
            f"the image '{shortened(source, 60)}' is a tracking pixel of the email the "
            f"issue came from ({why}), so it is left out of every channel; delete it from "
            "the issue to silence this",
        )


#: A file attached on GitHub, its address alone on a line: ``https://github.com/user-
#: attachments/assets/<uuid>``, which GitHub shows as the file (a video dropped into a
#: release note, an issue or a README is written so).
_GITHUB_ATTACHMENT = pattern(
    r"[ \t]*<?(https://github\.com/user-attachments/(?:assets|files)/[\w./-]+)>?[ \t]*"
)


def _github_attachments(issue: Issue, tokens: Sequence[Token]) -> Iterator[Finding]:
    """GitHub's attachments alone on a line: GitHub shows the file in its place, both
    channels a link to it (which kind of file it is, a video or a picture, only a
    download would tell), so the editor is told, in a note."""
    for token in tokens:
        if token.type != "inline" or "user-attachments" not in token.content or not token.map:
            continue
        for offset, line in enumerate(token.content.split("\n")):
            found = _GITHUB_ATTACHMENT.fullmatch(line)
            if found is None:
                continue
            yield Finding(
                issue.body_line + token.map[0] + offset,
                None,
                "github-attachment",
                f"'{shortened(found.group(1), 60)}' alone on its line is a file attached on "
                "GitHub, which GitHub shows in its place (a video, most often); WeChat and "
                "Zhihu show its address (a link on Zhihu), the file's kind being unknown "
                "without a download; if it is a picture, write ![caption](address) to show it",
                INFO,
            )


#: The kinds of a cross reference Quarto numbers, as its key starts (``fig`` of ``@fig-plot``).
_CROSS_REFERENCE_KIND = r"(?:fig|tbl|sec|eq|lst|thm|lem|cor|prp|def|exm|exr|nte|tip|wrn)"
#: A cross reference Quarto numbers (``@fig-plot``, ``@tbl-perf``, ``@sec-intro``) or a
#: citation key as reference managers make them (``@smith2020``, ``@Knuth_84a``): not a
#: social handle (``@张三``, ``@oneflow``), which is the writer's words.
_BARE_REFERENCE = pattern(
    rf"(?<![\w.@/\\])@(?:{_CROSS_REFERENCE_KIND}-[\w-]+"
    r"|[A-Za-z][A-Za-z_-]{0,40}\d{2,4}[a-z]?(?![\w-]))"
)
#: The cross references of those: never a handle.
_CROSS_REFERENCE = pattern(rf"@{_CROSS_REFERENCE_KIND}-")
#: Where a citation key is a GitHub user's handle (``@newbie123``): in the lines GitHub
#: writes into release notes, "@newbie123 made their first contribution in https://…"
#: and "feat: … by @dev42 in https://github.com/o/r/pull/7".
_FIRST_CONTRIBUTION = pattern(r"\s+made\s+their\s+first\s+contribution\b")
_PULL_REQUEST = pattern(r"\bin\s+[<`]?https?://github\.com/[^\s/]+/[^\s/]+/pull/\d+")
#: A link to GitHub, in a link's address or a raw tag's ``href``.
_GITHUB = pattern(r"https?://(?:www\.)?github\.com/", re.IGNORECASE)
_GITHUB_HREF = pattern(r"\bhref\s*=\s*[\"']?https?://(?:www\.)?github\.com/", re.IGNORECASE)


def _computed_text(
    issue: Issue, tokens: Sequence[Token], lines: Sequence[str]
) -> Iterator[Finding]:
    """R Markdown's inline code (`` `r mean(x)` ``) and Pandoc's bare citations and
    Quarto's cross references (``@smith2020``, ``@fig-plot``): the site runs R, reads the
    bibliography and numbers the figures to fill them in; crosspost shows them as
    written. One warning per kind, naming its lines."""
    inline_r: list[int] = []
    references: list[int] = []
    citations = False  # any key that is not a cross reference
    first = ""  # the first key, as written
    handles = _handles(tokens)
    for token in tokens:
        if token.type != "inline" or not token.map or not token.children:
            continue
        start, end = token.map
        for child in token.children:
            needles: list[str] = []
            found = inline_r
            if child.type == "code_inline" and child.content.startswith("r "):
                needles = [f"`{child.content}`", child.content]
            elif child.type == "text" and "@" in child.content:
                needles, found = (
                    [m.group(0) for m in _BARE_REFERENCE.finditer(child.content)],
                    references,
                )
            for needle in needles[:1] if found is inline_r else needles:
                row = next(
                    (n for n in range(start, min(end, len(lines))) if needle in lines[n]), start
                )
                if found is references and handles(needle, lines[row]):
                    continue
                if _bracketed(lines[row], needle):
                    continue
                if found is references:
                    citations = citations or not _CROSS_REFERENCE.match(needle)
                    first = first or needle
                if row not in found:
                    found.append(row)
    if inline_r:
        yield Finding(
            issue.body_line + inline_r[0],
            None,
            "inline-r",
            f"inline R code (`r …`, line{'s' if len(inline_r) > 1 else ''} "
            f"{_lines_named(issue, inline_r)}) is run by R Markdown or Quarto when the site "
            "is built; crosspost runs nothing, so readers see the code: write its value",
        )
    if references:
        where = f"line{'s' if len(references) > 1 else ''} {_lines_named(issue, references)}"
        if citations:
            message = (
                f"'@…' citations and cross references ({where}) are filled in by Pandoc or "
                "Quarto from the bibliography and the figures' numbers; crosspost shows them "
                'as written: write the reference out ("Smith, 2020", "图 1")'
            )
        else:
            message = (
                f"Quarto's cross references ('{first}', {where}) are numbered by Quarto when "
                "it renders the document; crosspost shows them as written: write the "
                'reference out ("图 1", "表 2")'
            )
        yield Finding(issue.body_line + references[0], None, "bare-citation", message)


def _handles(tokens: Sequence[Token]) -> Callable[[str, str], bool]:
    """Whether a citation key :data:`_BARE_REFERENCE` found on a source line is a GitHub
    handle of release notes: each is in a document that links to GitHub (as release
    notes do, where a paper cites), else one followed by "made their first contribution"
    or on a line naming a pull request "in https://github.com/…/pull/N". A Quarto cross
    reference (``@fig-plot``) is none."""

    @functools.cache
    def linked() -> bool:  # read once, and only for a text that holds a key
        return any(
            (child.type == "link_open" and _GITHUB.match(str(child.attrs.get("href", ""))))
            or (child.type == "html_inline" and _GITHUB_HREF.search(child.content))
            for token in tokens
            for child in (token.children or ())
        ) or any(t.type == "html_block" and _GITHUB_HREF.search(t.content) for t in tokens)

    def handle(needle: str, line: str) -> bool:
        if _CROSS_REFERENCE.match(needle):
            return False
        if _PULL_REQUEST.search(line) or linked():
            return True
        at = line.find(needle)
        return at >= 0 and bool(_FIRST_CONTRIBUTION.match(line, at + len(needle)))

    return handle


def _bracketed(line: str, needle: str) -> bool:
    """Whether ``needle`` stands in ``[…]`` on ``line``: Pandoc's bracketed citation,
    which :data:`_FOREIGN` names already (unless it holds Quarto's cross references
    alone, ``[@fig-mau]``: those are named with the bare ones)."""
    at = line.find(needle)
    opened, closed = line.rfind("[", 0, at), line.rfind("]", 0, at)
    end = line.find("]", at)
    return opened > closed and end >= 0 and not _cross_references_only(line[opened : end + 1])


def _cross_references_only(bracketed: str) -> bool:
    """Whether every key of a bracketed citation is a Quarto cross reference
    (``[@fig-mau]``, ``[-@tbl-top]``): Quarto numbers those, no bibliography does."""
    keys = _CITED_KEY.findall(bracketed)
    return bool(keys) and all(_CROSS_REFERENCE.match(key) for key in keys)


def _dialect_notes(issue: Issue) -> Iterator[Finding]:
    """What the dialect read in another tool's way and the editor should know was read
    so (a content block shown in its place, a note's tags left out), as it noted it."""
    page_text: list[tuple[int, str]] = []
    for line, code, message in issue.document.notes:
        if code == AI_CITATIONS:  # one per line: named in one finding, by _ai_citations
            continue
        if code == WECHAT_PAGE_TEXT:  # one per line left out: named in one finding below
            page_text.append((line, message))
            continue
        severity = WARNING if code in _NOTES_TO_LOOK_AT else INFO
        yield Finding(issue.body_line + line, None, code, message, severity)
    if page_text:
        numbers = [line for line, _ in page_text]
        quoted = ", ".join(f"'{shortened(text)}'" for _, text in page_text[:3])
        more = ", …" if len(page_text) > 3 else ""
        yield Finding(
            issue.body_line + numbers[0],
            None,
            WECHAT_PAGE_TEXT,
            f"line{'s' if len(numbers) > 1 else ''} {_lines_named(issue, numbers)} "
            f"({quoted}{more}) {'are' if len(numbers) > 1 else 'is'} WeChat's own page "
            "text, not the article: the page's buttons and prompts, copied with the article "
            "when it was saved; left out of every channel (write the words in a sentence if "
            "the article means them)",
        )


#: What the dialect noted that takes the writer's words out, or puts a file's in, on a
#: reading that could be wrong: a warning, which the editor should look at.
_NOTES_TO_LOOK_AT = frozenset(
    {
        "page-properties",
        "note-tags",
        "content-file",
        ROAM_ALIAS,
        ROAM_MACRO,
        ROAM_REFERENCE,
        FULL_WIDTH,
        SCRIPT_LINK,
        PLACEHOLDER_PICTURE,
        MODEL_REASONING,
        WECHAT_CARD,
        JAVASCRIPT_PICTURE,
        UNKNOWN_DIRECTIVE,
        LOGSEQ_REFERENCE,
        LOGSEQ_MACRO,
        MISSING_ATTACHMENT,
        MISSING_SNIPPET,
        UNREADABLE_FILE,
        CHUNK_OUTPUT,
        CSDN_PICTURE,
        MKDOCS_ICON,
        CHAT_MARKUP,
        ASCIIDOC_UNCLOSED,
        ULYSSES_COMMENT,
        ULYSSES_ANNOTATION,
    }
)


def _tables_of_contents(issue: Issue) -> Iterator[Finding]:
    """Table-of-contents markers (``[TOC]``, ``[[toc]]``, kramdown's ``{:toc}``), which
    the dialect leaves out: the tool that wrote the issue filled them in, crosspost does
    not."""
    for line, written in issue.document.left_out:
        shown = shortened(written)
        yield Finding(
            issue.body_line + line,
            None,
            "table-of-contents",
            f"'{shown}' asks for a table of contents, which crosspost does not make (a "
            "WeChat article keeps no links to its own sections), so the line is left out "
            "of every channel; write the list of sections yourself if the issue needs one",
        )


_FIELD_LINE = pattern(r"^[A-Za-z_][\w-]*\s*:(?:\s|$)")


def _unread_front_matter(issue: Issue, lines: Sequence[str]) -> Iterator[Finding]:
    """Front matter the loader could not read, at the top of the body, where it goes out
    as the article's first words: Hexo's JSON members (``;;;`` … ``;;;``) or Hexo's YAML
    without its opening ``---`` that do not parse (Markdown reads their fields as a
    paragraph, or a heading underlined by the closing ``---``). Those that parse, and
    Hugo's JSON, are read as front matter."""
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return
    head = lines[first].strip()
    following = lines[first + 1] if first + 1 < len(lines) else ""
    if (head == "{" and JSON_FIELD.match(following)) or head == ";;;":
        kind = "Hugo's JSON front matter" if head == "{" else "Hexo's JSON front matter"
    else:
        end = next((i for i in range(first, len(lines)) if not lines[i].strip()), len(lines))
        block = lines[first:end]
        closing = next((i for i, line in enumerate(block) if line.strip() == "---"), None)
        fields = sum(1 for line in block[:closing] if _FIELD_LINE.match(line))
        if (
            closing is None
            or fields < 2
            or not _FIELD_LINE.match(head)
            or not all(
                _FIELD_LINE.match(line) or line.startswith(("-", " ", "\t"))
                for line in block[:closing]
            )
        ):
            return
        kind = "front matter without its opening '---' line (as Hexo allows)"
    yield Finding(
        issue.body_line + first,
        None,
        "front-matter-not-read",
        f"this looks like {kind}, but it does not parse, so it goes out as the article's "
        "first words; fix it, or write it as YAML between two '---' lines at the top",
    )


def _foreign(issue: Issue, tokens: Sequence[Token]) -> Iterator[Finding]:
    """Static-site and editor syntax in the text, once per kind and line."""
    seen: set[tuple[int, str]] = set()
    read: list[tuple[int, str, str, bool]] = []  # first line, as written, to search, raw
    for token in tokens:
        if token.type not in ("inline", "html_block") or not token.map:
            continue
        raw = token.type == "html_block"
        # Raw HTML reads nothing as Markdown, and its code and scripts are examples.
        written = _UNREAD_HTML.sub(_kept_lines, token.content) if raw else token.content
        # Code spans are blanked, not cut: a tag's quote keeps the code it holds.
        text = CODE_SPAN.sub(lambda code: " " * len(code.group(0)), written)
        read.append((issue.body_line + token.map[0], written, text, raw))
    branches = _newsletter_branches([text for _, _, text, _ in read])
    for at, (first, written, text, raw) in enumerate(read):
        # A newsletter's tag, and the else and end of its condition, are no static
        # site's variable or tag too.
        ours = [found.span() for found in _NEWSLETTER_TAG.finditer(text)]
        ours = sorted([*ours, *branches.get(at, [])])
        in_ours = within(ours)
        for foreign, meaning in _FOREIGN:
            spans = ours if foreign is _NEWSLETTER_TAG else [
                found.span() for found in foreign.finditer(text) if not in_ours(found.start())
            ]  # fmt: skip
            for start, end in spans:
                found = text[start:end]
                if foreign is _CITATION and (
                    _defined(issue.body, found[1:-1])  # a link to its definition
                    or _cross_references_only(found)  # named by _computed_text
                ):
                    continue
                line = first + line_at(text, start)
                if (line, meaning) in seen:
                    continue
                seen.add((line, meaning))
                shown = shortened(" ".join(written[start:end].split()))
                said = f"'{shown}' is {meaning}" + (_IN_RAW_HTML if raw else "")
                yield Finding(line, None, "foreign-syntax", said)


#: A Liquid tag that opens a block (``if``, ``unless``, ``case``, ``for``), goes on with
#: it (``else``, ``elsif``, ``when``) or ends it (``endif``, …): group 1 ``end``, group 2
#: the tag's name.
_LIQUID_BLOCK_TAG = pattern(
    r"\{%-?\s*(end)?(if|unless|case|for|capture|else|elsif|when)\b[^{}\n]*?-?%\}"
)
_LIQUID_GOES_ON = frozenset({"else", "elsif", "when"})


def _newsletter_branches(texts: Sequence[str]) -> dict[int, list[tuple[int, int]]]:
    """The ``{% else %}`` and ``{% endif %}`` (and the like) of a newsletter service's
    condition (``{% if subscriber.tags contains "vip" %}``), by the index of the text
    they stand in, as spans: they are named with the tag that opens the condition, on
    whichever line or paragraph they come, not as a static site's template tags."""
    opened: list[bool] = []  # each open block, innermost last: a newsletter's condition?
    found: dict[int, list[tuple[int, int]]] = {}
    for at, text in enumerate(texts):
        if "{%" not in text:
            continue
        for tag in _LIQUID_BLOCK_TAG.finditer(text):
            ends, name = tag.group(1), tag.group(2)
            if ends or name in _LIQUID_GOES_ON:
                ours = bool(opened) and opened[-1]
                if ends and opened:
                    opened.pop()
                if ours:
                    found.setdefault(at, []).append(tag.span())
            else:
                opened.append(bool(_NEWSLETTER_TAG.fullmatch(tag.group(0))))
    return found


def _defined(body: str, label: str) -> bool:
    """Whether ``body`` defines the link reference ``label`` (as CommonMark matches
    labels: case and runs of blanks aside)."""
    return normalizeReference(label) in _definitions(body)


@functools.lru_cache(maxsize=4)
def _definitions(body: str) -> frozenset[str]:
    return frozenset(normalizeReference(found) for found in _DEFINED.findall(body))


#: What raw HTML holds that is no text of the article: code, scripts, styles, comments.
_UNREAD_HTML = pattern(
    r"<(pre|code|script|style|textarea)\b.*?</\1\s*>|<!--.*?-->", re.DOTALL | re.IGNORECASE
)
_IN_RAW_HTML = (
    " (it stands inside raw HTML, where nothing is read as Markdown: a blank line above and "
    "below it lets crosspost read what it can)"
)


def _kept_lines(found: re.Match[str]) -> str:
    return "\n" * found.group(0).count("\n")


#: A raw tag of an HTML block: its attributes are no text (a placeholder in an ``href``
#: is named as a link no reader can follow).
_RAW_TAG = pattern(r"<[^<>]*>")


def _merge_tags(issue: Issue, tokens: Sequence[Token], lines: Sequence[str]) -> Iterator[Finding]:
    """An email service's merge tags in the text (``%%FirstName%%``, ``*|FNAME|*``):
    the service filled them in for each subscriber, WeChat and Zhihu do not, so a reader
    would see one as written. One finding per tag, on its first line, however often the
    issue uses it (a greeting's name may come back in every section)."""
    first: dict[str, int] = {}
    count: Counter[str] = Counter()
    for token in tokens:
        if not token.map or token.type not in ("inline", "html_block"):
            continue
        if token.type == "html_block":
            texts = [_RAW_TAG.sub(" ", token.content)]
        else:
            texts = [c.content for c in token.children or () if c.type == "text"]
        for text in texts:
            for found in merge_tags(text):
                tag = found.group()
                count[tag] += 1
                if tag not in first:
                    start, end = token.map
                    where = (n for n in range(start, min(end, len(lines))) if tag in lines[n])
                    first[tag] = next(where, start)
    for tag, line in first.items():
        more = count[tag] - 1
        again = f" (and {more} more time{'s' if more > 1 else ''})" if more else ""
        yield Finding(
            issue.body_line + line,
            None,
            "merge-tag",
            f"'{tag}'{again} is a merge tag your email service fills in for each "
            "subscriber; WeChat and Zhihu do not, so readers would see it as written: "
            "write the words it stands for, or leave it out",
        )
