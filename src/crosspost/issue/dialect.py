"""The Markdown dialect of an issue, and the one parse of its body every stage shares.

CommonMark plus tables, strikethrough, footnotes, task lists, formulas (``$…$``,
``$$…$$``, ``\\(…\\)``, ``\\[…\\]``), ``::: only CHANNEL`` containers, and callouts: the
``::: tip [title]`` containers of VuePress and doocs and GitHub's ``> [!NOTE]`` alerts,
both delivered to the renderers as one pair of ``callout_open``/``callout_close``
tokens (see :func:`_callouts`), ``==highlights==``, emoji shortcodes (``:tada:``),
bare web addresses as links, and images with a size (``![](a.png =150x)``).
Emphasis follows CommonMark's CJK-friendly amendment (``**注意：**这里`` is bold); what
site generators read and never show (heading attributes, table-of-contents markers) is
left out, and a paragraph listed line by line (``1、…`` / ``2、…``) keeps its lines. An
issue body is parsed once per process into a :class:`Document` (:func:`parse_document`):
the loader's container check, lint and both renderers read that one token stream.
Parsing was half of a warm ``check``; copying the tokens a renderer may change costs
about a tenth of a parse.
"""

from __future__ import annotations

import functools
import html
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_core.text_join import text_join
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.state_inline import Delimiter, Scanned
from markdown_it.token import Token
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.myst_role import myst_role_plugin
from mdit_py_plugins.subscript import sub_plugin
from mdit_py_plugins.superscript import superscript_plugin

from crosspost.issue.ai_citations import drop_ai_citations
from crosspost.issue.asciidoc import asciidoc_block, asciidoc_links
from crosspost.issue.attachments import (
    ATTACHED,
    Attached,
    Attachment,
    bear_attachments,
    content_block,
)
from crosspost.issue.bare_links import bare_links, schemeless_addresses
from crosspost.issue.bear import bear_highlights, bear_tags
from crosspost.issue.blocks import (
    FENCE_LINE,
    IMG_SOURCE,
    IMG_TAG,
    LAZY_SOURCE_NAMES,
    NOTES,
    PLACEHOLDER_SOURCE,
    copy_token,
    fence_starts,
    first_group,
    in_fence,
    outside_code,
    outside_fences,
    source_of,
)
from crosspost.issue.callouts import (
    CALLOUT_LABELS,
    CALLOUT_SYNONYMS,
    PLAIN_CALLOUT,
    callout_kind,
)
from crosspost.issue.chat_marks import chat_marks
from crosspost.issue.citation_links import citation_links
from crosspost.issue.code_annotations import code_annotations
from crosspost.issue.collector import collector_paused
from crosspost.issue.components import component_block, mdx_lines, mdx_pictures, mdx_statement
from crosspost.issue.converted_notes import mammoth_footnotes, zhihu_redirects, zhihu_reference
from crosspost.issue.csdn import csdn_pictures
from crosspost.issue.definition_lists import definition_lists
from crosspost.issue.directives import directives
from crosspost.issue.empty_anchors import empty_anchors
from crosspost.issue.feishu import feishu_block
from crosspost.issue.fullwidth_links import fullwidth_links
from crosspost.issue.hackmd import quote_tags
from crosspost.issue.hugo_shortcodes import shortcode_block
from crosspost.issue.hugo_shortcodes import shortcodes as hugo_shortcodes
from crosspost.issue.kimi_notes import kimi_notes
from crosspost.issue.kramdown import kramdown_extensions, table_attribute_rows
from crosspost.issue.logseq import logseq_pages
from crosspost.issue.mail_links import mail_links
from crosspost.issue.markdown_in_html import figure_captions, markdown_block
from crosspost.issue.merge_tags import mailchimp_tag
from crosspost.issue.mkdocs_icons import mkdocs_icons
from crosspost.issue.model_reasoning import model_reasoning
from crosspost.issue.myst import roles, targets_and_labels
from crosspost.issue.notion import notion_icons, notion_properties, wordless_links
from crosspost.issue.org_blocks import org_block, org_emptied
from crosspost.issue.pandoc_spans import ATTRIBUTE_WORDS, attribute_parts, span_attributes
from crosspost.issue.pandoc_tables import (
    grid_table,
    multiline_table,
    simple_table,
    table_captions,
)
from crosspost.issue.private_notes import private_notes
from crosspost.issue.restructuredtext import rst_block, rst_links
from crosspost.issue.roam import roam_export, roam_italics
from crosspost.issue.script_links import script_links_plugin
from crosspost.issue.shortcodes import emojized, shortcodes
from crosspost.issue.sized_images import sized_image, sizes_in_alt
from crosspost.issue.snippets import snippet_block, snippet_fences
from crosspost.issue.substack_notes import lightbox_links, substack_footnotes
from crosspost.issue.svg_pictures import accept_svg_addresses, svg_pictures
from crosspost.issue.tabs import mkdocs_tab, next_tab
from crosspost.issue.task_states import task_states
from crosspost.issue.template_tags import template_block, template_tags
from crosspost.issue.tracked_changes import tracked_changes
from crosspost.issue.tracking_pixels import PIXELS, tracking_pixels
from crosspost.issue.ulysses import ulysses_marks
from crosspost.issue.video_pictures import video_pictures
from crosspost.issue.wechat_cards import wechat_cards
from crosspost.issue.wechat_page_text import wechat_page_text
from crosspost.issue.wide_spaces import wide_spaces
from crosspost.issue.wiki_links import wiki_link
from crosspost.issue.wordpress_shortcodes import code_shortcode, wordpress_shortcodes
from crosspost.issue.yuque import yuque_formulas
from crosspost.issue.zhihu_formulas import zhihu_formulas
from crosspost.issue.zola_shortcodes import body_shortcode, calls
from crosspost.patterns import pattern

if TYPE_CHECKING:
    from mdit_py_plugins.texmath.index import RuleDictType

BlockRule = Callable[[StateBlock, int, int, bool], bool]
InlineRule = Callable[[StateInline, bool], bool]

ONLY_MARKER = pattern(r"^only\s+([A-Za-z][\w-]*)\s*$")
#: How deep blocks may nest (each list level counts two: the list and its item).
#: markdown-it's CommonMark preset stops at 20 and drops the rest of the document
#: without a word, which a list ten levels deep (an outliner's export) reaches.
MAX_NESTING = 200
#: Characters that join without a space when a Markdown line break falls between them
#: (CJK radicals to ideographs, Hangul, compatibility ideographs, full-width forms and
#: CJK punctuation), as (first, last) code points. The one definition every renderer uses.
CJK_RANGES = (
    (0x2E80, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
    (0xFF00, 0xFFEF),
    (0x3000, 0x303F),
)


def is_cjk(text: str) -> bool:
    """Whether ``text`` starts with a character of :data:`CJK_RANGES`.

    A comparison of code points, not a regular expression: a character class this wide
    takes ~4 ms to compile, which every ``check`` and ``render`` would pay at start."""
    if not text:
        return False
    code = ord(text[0])
    return any(first <= code <= last for first, last in CJK_RANGES)


def _cjk_friendly_delimiters(state: StateInline, start: int, can_split_word: bool) -> Scanned:
    """markdown-it's scan of an emphasis or strikethrough run, with the flanking rules of
    the CommonMark CJK-friendly amendment (github.com/tats-u/markdown-cjk-friendly).

    CommonMark lets a run close only if, when punctuation stands before it, whitespace or
    punctuation follows it. Chinese writes no space there: in ``**注意：**这里`` the
    closing ``**`` has "：" before and "这" after, and both channels showed the asterisks
    and no bold (likewise ``这是**“引号”**内容``). The amendment counts a CJK character
    on the outer side as CommonMark counts whitespace there. Runs with no CJK character
    beside them are scanned exactly as CommonMark says.
    """
    scanned = StateInline.scanDelims(state, start, can_split_word)
    end = start + scanned.length
    before = state.src[start - 1] if start > 0 else " "
    after = state.src[end] if end < state.posMax else " "
    if not (is_cjk(before) or is_cjk(after)):
        return scanned
    before_punct = isMdAsciiPunct(ord(before)) or isPunctChar(before)
    after_punct = isMdAsciiPunct(ord(after)) or isPunctChar(after)
    # CJK punctuation (：【】《》，。) flanks a run as a letter does, not as punctuation:
    # ``**注意：**Python`` is bold, as ``**注意**Python`` is.
    before_other = before_punct and not is_cjk(before)
    after_other = after_punct and not is_cjk(after)
    before_space = isWhiteSpace(ord(before))
    after_space = isWhiteSpace(ord(after))
    left = not after_space and (not after_other or before_space or before_other or is_cjk(before))
    right = not before_space and (not before_other or after_space or after_other or is_cjk(after))
    can_open = left and (can_split_word or not right or before_punct)
    can_close = right and (can_split_word or not left or after_punct)
    return Scanned(can_open, can_close, scanned.length)


def _cjk_friendly(rule: InlineRule) -> InlineRule:
    """``rule`` (emphasis or strikethrough) scanning its runs with
    :func:`_cjk_friendly_delimiters`, for this parse's state alone."""

    def tokenize(state: StateInline, silent: bool) -> bool:
        if "scanDelims" not in vars(state):
            state.scanDelims = functools.partial(  # type: ignore[method-assign]
                _cjk_friendly_delimiters, state
            )
        return rule(state, silent)

    return tokenize


#: ``=``: the mark of highlighted text; ``+`` and ``^``: of inserted text.
_EQUALS = 0x3D
_PLUS = 0x2B
_CARET = 0x5E
#: What a matched pair of each becomes: (token type, tag, markup, content) for its
#: opening and its closing. Inserted text is raw ``<ins>``, which each channel already
#: shows as it shows that tag written by hand.
_PAIRED = {
    _EQUALS: (("mark_open", "mark", "==", ""), ("mark_close", "mark", "==", "")),
    _PLUS: (("html_inline", "", "", "<ins>"), ("html_inline", "", "", "</ins>")),
    _CARET: (("html_inline", "", "", "<ins>"), ("html_inline", "", "", "</ins>")),
}


def _paired_marks(char: str) -> InlineRule:
    """The inline rule of a mark written twice around words: ``==highlighted==``
    (Typora, Obsidian, markdown-it-mark; markdownguide.org lists it among the extended
    syntax), ``++inserted++`` (Joplin, markdown-it-ins) or ``^^inserted^^`` (MkDocs
    Material's Caret, whose ``^one^`` is superscript). The marks become text tokens
    and delimiters, under the rules of emphasis, as ``~~`` does; :func:`_highlight_pairs`
    turns the matched ones into what :data:`_PAIRED` says. Without it the marks went out
    as written."""
    marker = ord(char)

    def rule(state: StateInline, silent: bool) -> bool:
        start = state.pos
        if silent or state.src[start] != char:
            return False
        # Inside a word only beside CJK text, which has no spaces between words: between
        # Latin letters or digits (x==1 and y==2, C++ and g++, written outside code) it
        # stays as written.
        end = start
        while end < state.posMax and state.src[end] == char:
            end += 1
        before = state.src[start - 1] if start else ""
        after = state.src[end : end + 1]
        scanned = state.scanDelims(start, any(is_cjk(c) for c in before + after))
        length = scanned.length
        if length < 2:
            return False
        can_open, can_close = scanned.can_open, scanned.can_close
        if char == "+":
            # Inserted text only around Chinese words, and never glued to a name before
            # it: 'C++语言和C++标准库', 'g++' and 'Use ++i and j++' are a language, a
            # compiler and code, which an underline between them would garble.
            glued = bool(before) and ((before.isascii() and before.isalnum()) or before == "+")
            can_open = can_open and not glued and is_cjk(after)
            can_close = can_close and bool(before) and is_cjk(before)
        elif char == "^":
            # Carets only apart from the words around them, as Caret's smart mode reads
            # them: '谢谢^^下次见^^' is a smile twice, no inserted text.
            can_open = can_open and _apart(before)
            can_close = can_close and _apart(after)
        if length % 2:  # ===x=== is = then ==x== … as ~~~ is for strikethrough
            state.push("text", "", 0).content = char
            length -= 1
        for _ in range(0, length, 2):
            state.push("text", "", 0).content = char * 2
            state.delimiters.append(
                Delimiter(
                    marker=marker,
                    length=0,  # no "rule of 3": pairs of two only
                    token=len(state.tokens) - 1,
                    end=-1,
                    open=can_open,
                    close=can_close,
                )
            )
        state.pos += scanned.length
        return True

    return rule


def _apart(char: str) -> bool:
    """Whether ``char``, beside a mark, sets it apart: nothing, a blank or punctuation
    (a CJK one too), not a letter, a digit or an ideograph."""
    if not char or char.isspace():
        return True
    return (isMdAsciiPunct(ord(char)) or isPunctChar(char)) and char != "^"


_highlight = _paired_marks("=")
_inserted = _paired_marks("+")
_caret_inserted = _paired_marks("^")

#: PyMdown Caret's ``^^^x^^^`` (MkDocs Material): inserted and superscript at once, a word
#: with no blank in it (a superscript's rule). The pairs rule read it as a caret, ``^^x^^``
#: and a caret: ``^<u>x</u>^``.
_INSERTED_SUPERSCRIPT = pattern(r"\^{3}([^\^\s]+?)\^{3}")
#: The ``meta`` key of a superscript a writer asked for by its marks alone, with no word
#: before it (:func:`_scripts` keeps it).
_CARET_SUPERSCRIPT = "caret_superscript"


def _inserted_superscript(state: StateInline, silent: bool) -> bool:
    """Inline rule, before the pairs of carets: ``^^^x^^^`` as Caret shows it,
    ``<ins><sup>x</sup></ins>``, apart from the words around it as its smart mode asks."""
    start = state.pos
    if not state.src.startswith("^^^", start):
        return False
    found = _INSERTED_SUPERSCRIPT.match(state.src, start, state.posMax)
    if found is None:
        return False
    before = state.src[start - 1] if start else ""
    if not (_apart(before) and _apart(state.src[found.end() : found.end() + 1])):
        return False
    if not silent:
        state.push("html_inline", "", 0).content = "<ins>"
        state.push("sup_open", "sup", 1).meta[_CARET_SUPERSCRIPT] = True
        state.push("text", "", 0).content = found.group(1)
        state.push("sup_close", "sup", -1)
        state.push("html_inline", "", 0).content = "</ins>"
    state.pos = found.end()
    return True


def _highlight_pairs(state: StateInline) -> None:
    """The second half of :func:`_paired_marks`, for the paragraph and every nested
    delimiter list (a link's text, an emphasis)."""
    _pair_marks(state, state.delimiters)
    for meta in state.tokens_meta:
        if meta and "delimiters" in meta:
            _pair_marks(state, meta["delimiters"])


def _pair_marks(state: StateInline, delimiters: list[Delimiter]) -> None:
    lone: list[int] = []
    for opener in delimiters:
        if opener.marker not in _PAIRED or opener.end == -1:
            continue
        closer = delimiters[opener.end]
        opening, closing = _PAIRED[opener.marker]
        for index, (kind, tag, markup, content) in (
            (opener.token, opening),
            (closer.token, closing),
        ):
            token = state.tokens[index]
            token.type, token.tag, token.markup, token.content = kind, tag, markup, content
            token.nesting = 0 if kind == "html_inline" else 1 if index == opener.token else -1
        before = state.tokens[closer.token - 1]
        if before.type == "text" and before.content == chr(opener.marker):
            lone.append(closer.token - 1)
    # The odd "=" of a run sits before its closing pair: it goes after the closings.
    closings = {kind for _, (kind, *_) in _PAIRED.values()} | {"html_inline"}
    for index in reversed(lone):
        end = index + 1
        while end < len(state.tokens) and state.tokens[end].type in closings:
            end += 1
        end -= 1
        if end != index:
            state.tokens[index], state.tokens[end] = state.tokens[end], state.tokens[index]


#: Containers that group without being a box: VitePress's ``::: code-group`` (its blocks
#: keep their titles), Quarto's cells and page columns (``::: {.cell}``,
#: ``{.column-margin}``), its tab sets (each tab's heading stays), and Juejin's alignment
#: wrappers (``::: hljs-center``, ``hljs-left``, ``hljs-right``: the text set centred or to
#: a side, no note; read as callouts they got a "注" label nobody wrote). Left out,
#: content kept.
_GROUPING = pattern(
    r"code-group|cell(?:-[\w-]+)?|columns?(?:-[\w-]+)?|panel-[\w-]+|content-[\w-]+"
    r"|hljs-(?:center|left|right)"
)


def _grouping(info: str) -> bool:
    """Whether a ``:::`` container opened with ``info`` groups without being a box: a
    name of :data:`_GROUPING`, or a Pandoc div that names no class, only an id or a
    layout (Quarto's ``::: {layout-ncol=2}`` lays out the pictures in it, ``::: {#id}``
    names them; MyST's ``{note}`` has neither ``#`` nor ``=``). Neither is a note: its
    content is shown alone."""
    if _GROUPING.fullmatch(callout_marker(info)[0]):
        return True
    div = _DIV_ATTRIBUTES.match(info.strip())
    if div is None or div.group(2) or _DIV_CLASS.search(div.group(1)):
        return False
    return "#" in div.group(1) or "=" in div.group(1)


#: An admonition's own title: ``!!! note "标题"`` (``""``: none).
_QUOTED_TITLE = pattern(r"\"(.*)\"|'(.*)'")
#: ``name title``, or MyST's ``{name} title`` (Jupyter Book), whose name may hold a
#: domain (``{prf:definition}``).
_CALLOUT_MARKER = pattern(r"^(?:\{([^\s{}]+)\}|([^\s:{]+))\s*(.*?)\s*$")
#: Docusaurus 3's ``:::note[Title]``; remark-directive's attributes after the name or
#: the title (Starlight's ``:::tip{icon="heart"}``), which the site reads, not shows, but
#: for a ``title`` where no brackets give one (Rspress's ``:::tip{title="标题"}``).
_BRACKET_TITLE = pattern(r"^([A-Za-z][\w-]*)(?:\[(.*)\](?:\{([^{}]*)\})?|\{([^{}]*)\})\s*$")
#: Pandoc's attributes after the colons: ``{#id .class key="value"}``, then any words.
_DIV_ATTRIBUTES = pattern(r"^\{([^{}]*)\}\s*(.*?)\s*$")
_DIV_CLASS = pattern(r"(?:^|\s)\.([\w-]+)")
_DIV_TITLE = pattern(r"\btitle\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")


def _validate_only(params: str, *args: object) -> bool:
    return bool(ONLY_MARKER.match(params.strip()))


def _validate_callout(params: str, *args: object) -> bool:
    """Any ``::: name [title]`` but ``only``: an unknown name is a plain callout (lint
    names it), never text that swallows the block's closing line."""
    name, _ = callout_marker(params)
    return name not in ("", "only")


def _ends_line(src: str, last: int) -> bool:
    """Whether only spaces follow ``src[last]`` on its line."""
    end = src.find("\n", last + 1)
    return not src[last + 1 : end if end >= 0 else len(src)].strip()


def _use_bracket_math(md: MarkdownIt) -> None:
    """``\\(…\\)`` and ``\\[…\\]`` formulas, by texmath's own rules, with one guard: a
    ``\\[…\\]`` is a display formula only when nothing follows its ``\\]`` on the line.
    Editors write ``\\[1\\]`` and ``\\[文字\\]{注音}`` for literal brackets; texmath alone
    would draw those as formulas and eat the text after them.

    texmath compiles the rules of all its five notations when imported (1.5 ms of every
    ``check``), so each rule here is a stand-in that loads the real one at the first
    backslash-bracket an issue holds."""

    def inline(state: StateInline, silent: bool) -> bool:
        if not state.src.startswith("\\(", state.pos):
            return False
        return _bracket_rule("math_inline")(state, silent)

    def block(name: str) -> BlockRule:
        def rule(state: StateBlock, start: int, end: int, silent: bool) -> bool:
            begin = state.bMarks[start] + state.tShift[start]
            if not state.src.startswith("\\[", begin):
                return False
            one_line = _ESCAPED_BRACKETS.match(state.src, begin, state.eMarks[start])
            if one_line is not None and not _is_tex(one_line.group(1)):
                return False  # turndown's '\[Sponsored\]': brackets it escaped
            return _bracket_rule(name)(state, start, end, silent)

        return rule

    md.inline.ruler.before("escape", "math_inline", inline)
    md.inline.ruler.before("escape", "math_inline_doubled", _doubled_bracket_math)
    md.inline.ruler.before("escape", "math_in_a_sentence", _bracket_math_in_a_sentence)
    for name in ("math_block_eqno", "math_block"):  # texmath's own order
        md.block.ruler.before("fence", name, block(name))


#: ``\[ … \]`` inside a sentence that holds TeX: a command (``\frac``), a power or an
#: index. ``\[1\]`` and ``\[文字\]`` hold none and stay literal brackets.
_SENTENCE_DISPLAY = pattern(r"\\\[((?:(?!\\\]).){1,500}?)\\\]")
_TEX_INSIDE = pattern(r"\\[A-Za-z]{2,}|\^\{?\w|(?<!\\)_\{?\w")
#: A line that is ``\[ … \]`` and nothing else.
_ESCAPED_BRACKETS = pattern(r"\\\[(.*)\\\][ \t]*$")
#: What Markdown escapes and TeX does not write: a converter's ``\_`` and ``\*`` (turndown
#: writes ``\[--max\_retries=3\]`` for the words ``[--max_retries=3]``).
_MARKDOWN_ESCAPE = pattern(r"\\[_*#`]")
#: Signs of a formula in a line's ``\[ … \]``: a command, a power or an index, an
#: operator or a relation between terms.
_FORMULA_SIGN = pattern(r"\\[A-Za-z]{2,}|[\^_=+<>]|\d\s*[-*/]\s*\w")


def _is_tex(content: str, signs: re.Pattern[str] = _FORMULA_SIGN) -> bool:
    """Whether a bracketed ``content`` reads as TeX rather than words a converter
    escaped: one of ``signs`` of a formula (in a sentence, :data:`_TEX_INSIDE`: words
    hold ``=`` and ``+`` too) and no Markdown escape."""
    return bool(signs.search(content)) and not _MARKDOWN_ESCAPE.search(content)


def _bracket_math_in_a_sentence(state: StateInline, silent: bool) -> bool:
    r"""Inline rule: ``由不等式 \[\frac{a+b}{2} \ge \sqrt{ab}\] 可知`` is a formula, drawn
    in the line (a display in mid-sentence, as ChatGPT writes one); it was shown as
    ``[\frac{a+b}{2} …]``, its backslashes gone. Only TeX inside makes it one."""
    if not state.src.startswith("\\[", state.pos):
        return False
    found = _SENTENCE_DISPLAY.match(state.src, state.pos, state.posMax)
    if found is None or not _is_tex(found.group(1), _TEX_INSIDE):
        return False  # '\[1\]', turndown's '\[docs/release\_notes.md\]': words
    return _inline_formula(state, silent, found)


#: ``\\( … \\)``: Hexo's and Hugo's way to write ``\( … \)`` (their Markdown takes
#: one backslash away before MathJax reads the page).
_DOUBLED_INLINE = pattern(r"\\\\\((.+?)\\\\\)", re.DOTALL)


def _doubled_bracket_math(state: StateInline, silent: bool) -> bool:
    """Inline rule: a formula written ``\\\\( … \\\\)``, which Markdown alone showed as
    ``\\( … \\)`` (the site's MathJax drew it)."""
    if not state.src.startswith("\\\\(", state.pos):
        return False
    found = _DOUBLED_INLINE.match(state.src, state.pos, state.posMax)
    if found is None or not found.group(1).strip():
        return False
    return _inline_formula(state, silent, found)


def _inline_formula(state: StateInline, silent: bool, found: re.Match[str]) -> bool:
    """The formula ``found`` holds in its first group, as the ``\\( … \\)`` rule makes one."""
    if not silent:
        token = state.push("math_inline", "math", 0)
        token.content, token.markup = found.group(1).strip(), "\\("
    state.pos = found.end()
    return True


@functools.cache
def _bracket_rule(name: str) -> Callable[..., bool]:
    """texmath's rule ``name`` of its ``brackets`` notation (see :func:`_use_bracket_math`)."""
    from mdit_py_plugins.texmath.index import make_block_func, make_inline_func, rules

    brackets = rules["brackets"]
    for inline in brackets["inline"]:
        if inline["name"] == name:
            return make_inline_func(inline)
    (block,) = [block for block in brackets["block"] if block["name"] == name]
    guarded: RuleDictType = {**block, "post": _ends_line}
    rule = make_block_func(guarded)
    # the eqno form's info is its real label; the plain form's would be the formula again
    return _unlabelled(rule) if name == "math_block" else rule


def _unlabelled(rule: BlockRule) -> BlockRule:
    """texmath's block rule puts its last group in ``info``, the equation label of a form
    that has one; ``\\[…\\]`` has none, so ``info`` would hold the formula again and the
    renderers would print its TeX beside the drawing as a label."""

    def block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        found = rule(state, start, end, silent)
        if found and not silent:
            state.tokens[-1].info = ""
        return found

    return block


#: What lies between the dollars of ``$HOME/$USER`` or ``${PATH}:$PWD``: a shell
#: variable's name (capitals) and the separator after it, not TeX.
_SHELL_NAME = pattern(r"^\{?[A-Z_][A-Z0-9_]*\}?[/:.\-]?$")
#: Between two dollars, what marks prose rather than TeX: a shell variable's name and
#: the Chinese list mark after it (``$HOME、$PWD``), or Chinese sentence punctuation
#: (``$1-$9表示一到九个参数，…，如${10}``). TeX writes neither.
_PROSE_BETWEEN_DOLLARS = pattern(r"^\{?[A-Za-z_][A-Za-z0-9_]*\}?[、，。；]|[，。、；！？]")


def _not_before_a_word(rule: InlineRule) -> InlineRule:
    """The dollar rule, except for shell variables: a closing ``$`` that runs straight
    into a letter after a capitalised name (``$HOME/$USER``, ``${PATH}:$PWD``), and
    text between two dollars that Chinese punctuation marks as prose (``$HOME、$PWD``).
    A formula followed by a word (``the $n$th row``) stays a formula."""

    def inline(state: StateInline, silent: bool) -> bool:
        start = state.pos
        if not rule(state, True):  # a dry run: how far would the formula go?
            return False
        after = state.src[state.pos : state.pos + 1]
        inside = state.src[start + 1 : state.pos - 1]
        state.pos = start
        if after.isascii() and after.isalpha() and _SHELL_NAME.match(inside):
            return False
        if _PROSE_BETWEEN_DOLLARS.search(inside) and not inside.lstrip().startswith("\\"):
            return False
        return rule(state, silent)

    return inline


#: What a MyST role starts with: its name in braces, then a backtick (the plugin's own
#: test of the name, and the first of its ticks), matched where the inline rule stands.
_ROLE_START = pattern(r"\{[a-zA-Z0-9_\-+:]+\}`")


def _role_ahead(rule: InlineRule) -> InlineRule:
    """The MyST role rule, asked only where a role starts: the plugin copies the rest of
    the source (``state.src[state.pos:]``) before it looks at the name, at every ``{``,
    so a long line with many braces was copied once per brace."""

    def inline(state: StateInline, silent: bool) -> bool:
        return bool(_ROLE_START.match(state.src, state.pos)) and rule(state, silent)

    return inline


def callout_marker(info: str) -> tuple[str, str]:
    """(name as written, lower-cased; title) of a ``::: name title`` line's parameters.

    Pandoc's and Quarto's attribute form names the kind by its first class:
    ``::: {.callout-tip title="标题"}``, ``::: {#id .warning}``; Docusaurus 3 puts the
    title in brackets: ``:::tip[标题]``, Rspress in attributes: ``:::tip{title="标题"}``."""
    bracketed = _BRACKET_TITLE.match(info.strip())
    if bracketed:
        title = (bracketed.group(2) or "").strip()
        attributes = _DIV_TITLE.search(bracketed.group(3) or bracketed.group(4) or "")
        if not title and attributes:
            title = (attributes.group(1) or attributes.group(2) or "").strip()
        return bracketed.group(1).lower(), title
    div = _DIV_ATTRIBUTES.match(info.strip())
    classes = _DIV_CLASS.findall(div.group(1)) if div else []
    if div and classes:
        title = _DIV_TITLE.search(div.group(1))
        name = classes[0].lower().removeprefix("callout-")
        return name, (title.group(1) or title.group(2)) if title else div.group(2)
    match = _CALLOUT_MARKER.match(info.strip())
    if not match:
        return "", ""
    return (match.group(1) or match.group(2)).lower(), match.group(3)


_RAW_TAG = pattern(r"^<(/?)([A-Za-z][A-Za-z0-9-]*)\b.*?(/?)>$", re.DOTALL)
#: Elements whose content a reader does not see as text where they work (a player, a
#: frame, code, Evernote's encrypted text): a channel drops that content with them.
#: Written like an image and never closed (``<video src="a.mp4">``), one would take the
#: rest of its paragraph along.
HIDDEN_CONTENT = frozenset(
    {"video", "audio", "iframe", "object", "canvas", "script", "style", "template", "noscript",
     "en-crypt"}
)  # fmt: skip
#: Void children such an element may have: they are its content, the text after them not.
_VOID_CHILDREN = frozenset({"source", "track", "param"})
#: Elements that never have content or a closing tag (HTML Living Standard, §13.1.2); the
#: sanitisers read raw HTML by the same list.
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
     "track", "wbr"}
)  # fmt: skip


def left_open(pieces: Sequence[str]) -> list[tuple[int, str]]:
    """Where to close each :data:`HIDDEN_CONTENT` element that raw HTML leaves open.

    ``pieces`` are the HTML's tags and texts in order; the answer is (index, name) pairs,
    last first: ``</name>`` belongs before ``pieces[index]``, right after the element's
    ``<source>``/``<track>`` children. An element a browser would close with an outer one
    (``<span><video></span>``) counts as left open too.
    """
    opened: list[tuple[str, int]] = []
    unclosed: list[tuple[str, int]] = []
    for index, piece in enumerate(pieces):
        match = _RAW_TAG.match(piece.strip())
        if not match or match.group(3):
            continue
        name = match.group(2).lower()
        if not match.group(1):
            opened.append((name, index))
        elif name in [n for n, _ in opened]:
            at = max(i for i, (n, _) in enumerate(opened) if n == name)
            unclosed += opened[at + 1 :]
            del opened[at:]
    found = []
    for name, index in sorted(unclosed + opened, key=lambda item: -item[1]):
        if name in HIDDEN_CONTENT:
            end = index + 1
            while end < len(pieces) and _inside(pieces[end]):
                end += 1
            found.append((end, name))
    return found


def _inside(piece: str) -> bool:
    """Whether ``piece`` still belongs to an element left open: a void child (``<source>``)
    or the blank between two."""
    match = _RAW_TAG.match(piece.strip())
    if match is None:
        return not piece.strip()
    return not match.group(1) and match.group(2).lower() in _VOID_CHILDREN


#: Characters no reader can see and no HTML or XML document may hold (or should: DEL
#: and the C1 controls): the C0 controls other than tab, line feed and carriage return,
#: DEL, C1, and the non-characters U+FFFE and U+FFFF. Pasted from a terminal (``ESC[31m``)
#: or a PDF, they go unseen in the editor; lint says on which lines
#: (``invisible-character``). A form feed or vertical tab is a blank: it becomes one.
UNSHOWABLE = pattern(r"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]")
#: What each :data:`UNSHOWABLE` character becomes when it is not simply left out.
BLANKS = {"\x0b": " ", "\x0c": " "}
#: A terminal's escape sequence, which a program's output pasted from a terminal holds,
#: and ``jupyter nbconvert --to markdown`` writes from a cell's coloured output: a colour
#: or cursor move (``ESC[0;31m``, CSI), a title or link (``ESC]8;;url ESC\``, OSC) or a
#: character set's choice (``ESC(B``). Left out whole: without its ESC, the rest of it
#: (``[0;31m``) is no invisible character, and it was shown around every coloured word.
TERMINAL_ESCAPE = pattern(r"\x1b(?:\[[0-?]*[@-~]|\][^\x07\x1b\n]*(?:\x07|\x1b\\)|[()][0-9A-Za-z])")


#: A page break written for Pandoc's LaTeX and Word output, alone on its line, or
#: Quarto's shortcode for one.
_PAGE_BREAK = pattern(
    r"^ {0,3}(?:\\(?:newpage|pagebreak|clearpage)|\{\{<\s*pagebreak\s*>\}\})[ \t]*$",
    re.MULTILINE,
)


def _page_breaks(state: StateCore) -> None:
    """Pandoc's ``\\newpage`` (``\\pagebreak``, ``\\clearpage``) and Quarto's
    ``{{< pagebreak >}}`` alone on a line, left out: an article on a screen has no pages,
    and the command was shown as written. The line stays, empty (the lines keep their
    numbers); code keeps it."""
    if "page" in state.src and _PAGE_BREAK.search(state.src):
        state.src = outside_fences(_PAGE_BREAK, state.src, lambda found: "")


def _drop_unshowable(state: StateCore) -> None:
    """Remove :data:`UNSHOWABLE` characters (a terminal's escape sequences whole, see
    :data:`TERMINAL_ESCAPE`) from the source before the block parse reads it, as
    markdown-it's own normalisation replaces NUL: no token, and so no channel, holds one
    (WeChat's HTML tree refuses them outright). Lines keep their numbers."""
    if UNSHOWABLE.search(state.src):
        src = TERMINAL_ESCAPE.sub("", state.src) if "\x1b" in state.src else state.src
        state.src = UNSHOWABLE.sub(lambda found: BLANKS.get(found.group(), ""), src)


#: How deep raw HTML elements, and emphasis inside emphasis, may nest before the inner
#: levels are shown flat (their words kept, their tags or marks left out). Every stage
#: walks these trees recursively, and Python's stack ends near 1,000 frames: a page of
#: 1,000 nested <div>s, or 250 emphasis marks within each other, stopped every command
#: with a RecursionError. No document meant to be read nests anywhere near this deep.
DEEPEST_HTML = 100
DEEPEST_EMPHASIS = 20
_BLOCK_TAG = pattern(
    r"<!--.*?(?:-->|$)|<(/?)([A-Za-z][A-Za-z0-9-]*)\b(?:[^>\"']|\"[^\"]*\"|'[^']*')*?(/?)>",
    re.DOTALL,
)
#: Elements HTML closes when another of their kind opens in the same place (a list's
#: ``<li>`` written without ``</li>``): counted once, not once per sibling.
_SELF_ENDING = {"li": {"li"}, "p": {"p"}, "dt": {"dt", "dd"}, "dd": {"dt", "dd"},
                "tr": {"tr", "td", "th"}, "td": {"td", "th"}, "th": {"td", "th"},
                "option": {"option"}}  # fmt: skip
#: What the depth count takes as void: :data:`VOID` and ``<param>``, which parsers still
#: close at once though the standard dropped it.
_VOID_TAGS = VOID | _VOID_CHILDREN


def flatten_deep_html(raw: str, limit: int = DEEPEST_HTML) -> str:
    """``raw`` with the tags of elements nested deeper than ``limit`` left out (their text
    stays where it was), so no later walk of its tree runs out of stack."""
    if raw.count("<") <= limit:
        return raw
    stack: list[tuple[str, bool]] = []
    kept_depth = 0
    pieces: list[str] = []
    last = 0
    for found in _BLOCK_TAG.finditer(raw):
        closing, name, self_closed = found.group(1), (found.group(2) or "").lower(), found.group(3)
        if not name or name in _VOID_TAGS or self_closed:
            continue
        keep = True
        if closing:
            at = next((i for i in range(len(stack) - 1, -1, -1) if stack[i][0] == name), None)
            if at is not None:
                keep = stack[at][1]
                kept_depth -= sum(1 for _, kept in stack[at:] if kept)
                del stack[at:]
        else:
            while stack and stack[-1][0] in _SELF_ENDING.get(name, ()):
                kept_depth -= stack.pop()[1]
            keep = kept_depth < limit
            stack.append((name, keep))
            kept_depth += keep
        if not keep:
            pieces.append(raw[last : found.start()])
            last = found.end()
    return "".join(pieces) + raw[last:] if pieces else raw


def _flatten_deep(state: StateCore) -> None:
    """Apply :data:`DEEPEST_HTML` to raw HTML blocks and :data:`DEEPEST_EMPHASIS` to
    emphasis and strikethrough; each token flattened says so in ``meta["flattened"]``
    (lint names its line)."""
    for token in state.tokens:
        if token.type == "html_block":
            flat = flatten_deep_html(token.content)
            if flat != token.content:
                token.content = flat
                token.meta["flattened"] = True
        elif token.type == "inline" and token.children and _flatten_emphasis(token.children):
            token.meta["flattened"] = True


def _flatten_emphasis(children: list[Token]) -> bool:
    """Drop the marks of emphasis nested deeper than :data:`DEEPEST_EMPHASIS`, in place."""
    opened: list[bool] = []  # per open inline element: whether its marks were dropped
    depth = 0
    flattened = False
    for index, child in enumerate(children):
        if child.nesting == 1:
            drop = child.type in ("em_open", "strong_open", "s_open") and depth >= (
                DEEPEST_EMPHASIS
            )
            opened.append(drop)
            depth += not drop
        elif child.nesting == -1 and opened:
            drop = opened.pop()
            depth -= not drop
        else:
            continue
        if drop:
            children[index] = Token("text", "", 0, content="")
            flattened = True
    return flattened


def _close_hidden_content(state: StateCore) -> None:
    """Close each :data:`HIDDEN_CONTENT` element a paragraph leaves open (see
    :func:`left_open`) with a closing tag token of its own.

    markdown-it hands inline HTML over one tag at a time and an element opened in one
    paragraph cannot close in another; every channel's sanitiser then sees balanced tags,
    shows the element's line (a video's link) and keeps the text that follows.
    """
    for token in state.tokens:
        if token.type != "inline" or not token.children:
            continue
        children = token.children
        # Text is never a tag, even one written as text (``\\<video>``): only its blanks count.
        pieces = [
            child.content if child.type == "html_inline" else
            " " if child.type in ("text", "softbreak") and not child.content.strip() else "\0"
            for child in children
        ]  # fmt: skip
        for index, name in left_open(pieces):
            children.insert(index, Token("html_inline", "", 0, content=f"</{name}>"))


def _callouts(state: StateCore) -> None:
    """One token pair for both callout syntaxes, so each renderer has one rule for them.

    ``callout_open`` carries ``meta["kind"]`` (a key of :data:`CALLOUT_LABELS`),
    ``meta["name"]`` (as written: differs from the kind for an unknown container),
    ``meta["title"]`` (the editor's, else the kind's label) and the source ``map``.
    GitHub alerts lose markdown-it's title paragraph: the title is in the meta. An alert
    with a title of its own (``> [!TIP] 标题``, as Obsidian and others write it, also
    ``[!tip]-`` folded) is a quote to markdown-it: it becomes a callout here.
    """
    _titled_alerts(state)
    tokens: list[Token] = []
    skip_title = 0
    unwrapped: list[bool] = []  # per open callout: left out, its content kept
    for index, token in enumerate(state.tokens):
        if skip_title:
            skip_title -= 1
            continue
        if token.type == "container_callout_open" and _empty_anchor(state.tokens, index):
            # Pandoc's and Quarto's ``::: {#refs}`` / ``:::``: where the site puts the
            # bibliography; empty here, it was an empty note box.
            if token.map:
                state.env.setdefault(GROUPED, []).append(tuple(token.map))
            skip_title = 1  # its closing token
            continue
        if token.type == "container_callout_open":
            unwrapped.append(_grouping(token.info))
            if unwrapped[-1]:
                if token.map:  # its ':::' lines are read: check must not call them text
                    state.env.setdefault(GROUPED, []).append(tuple(token.map))
                continue
        elif token.type == "container_callout_close" and unwrapped and unwrapped.pop():
            continue
        if token.type in ("container_callout_open", "alert_open", "admonition_open"):
            if token.type == "alert_open":
                name = str(token.meta.get("kind", "")).lower()
                title = str(token.meta.get("title", ""))
                # markdown-it's own alerts: alert_title_open, its inline, alert_title_close
                skip_title = 0 if title else 3
            elif token.type == "admonition_open":  # MkDocs: !!! note "title", ??? folded
                written = str(token.meta.get("tag", "")).lower()
                name = CALLOUT_SYNONYMS.get(written, written)
                quoted = _QUOTED_TITLE.search(token.info)
                title = (quoted.group(1) or quoted.group(2) or "") if quoted else ""
                # the plugin's title: admonition_title_open, its inline, its close
                following = state.tokens[index + 1 : index + 2]
                skip_title = 3 if following and following[0].type == "admonition_title_open" else 0
            else:
                name, title = callout_marker(token.info)
                name = CALLOUT_SYNONYMS.get(name, name)
            kind = name if name in CALLOUT_LABELS else PLAIN_CALLOUT
            token.type = "callout_open"
            token.tag = "section"
            token.attrs = {}
            title = _words(state, title) if title else CALLOUT_LABELS[kind]
            token.meta = {"kind": kind, "name": name, "title": title}
        elif token.type in ("container_callout_close", "alert_close", "admonition_close"):
            token.type = "callout_close"
            token.tag = "section"
        tokens.append(token)
    state.tokens = tokens


def _empty_anchor(tokens: Sequence[Token], index: int) -> bool:
    """Whether the container opened at ``index`` is an empty div with an id alone
    (``::: {#refs}``), a place the site fills in."""
    name = callout_marker(tokens[index].info)[0]
    following = tokens[index + 1] if index + 1 < len(tokens) else None
    return (
        name.startswith("#")
        and following is not None
        and following.type == "container_callout_close"
    )


#: A MyST directive's fence: ```` ```{note} title ````.
_MYST_DIRECTIVE = pattern(r"^\{([A-Za-z][\w:-]*)\}\s*(.*?)\s*$")
#: MyST's option lines at the top of a directive: ``:class: tip`` lines, or a ``---``
#: block of YAML.
_MYST_OPTIONS = pattern(r"\A(?:(?:[ \t]*:[\w-]+:.*\n)+|---\n(?:.*\n)*?---\n)")


#: Languages a code chunk names in braces: knitr's and Quarto's engines (```` ```{r} ````,
#: ```` ```{python} ````) and MyST's code directives (```` ```{code-cell} python ````).
_CHUNK_ENGINES = frozenset(
    {"r", "python", "py", "julia", "bash", "sh", "zsh", "sql", "ojs", "js", "javascript",
     "ts", "typescript", "stan", "rcpp", "cpp", "c", "dot", "mermaid", "octave", "perl",
     "ruby", "scala", "go", "rust", "java", "powershell", "ipython", "ipython3", "html",
     "css", "yaml", "json", "markdown", "md", "latex", "tex", "sas", "stata", "matlab"}
)  # fmt: skip
_CODE_DIRECTIVES = frozenset({"code-cell", "code-block", "code", "sourcecode"})
#: ```` ```{r, echo=FALSE} ````, ```` ```{.r .cell-code} ````, ```` ```{code-cell} ipython3 ````.
_CHUNK = pattern(r"^\{\.?([\w+-]+)[^}]*\}\s*(.*)$")
#: Pandoc's attributes, the first class the language: ``{#mycode .go .numberLines}``.
_PANDOC_ATTRIBUTES = pattern(r"^\{\s*(?:#[^\s}]+\s+)?\.([\w+#-]+)(?:\s[^}]*)?\}$")
#: Hugo's highlighting options after the language: ``go {linenos=table,hl_lines=[8]}``.
_HUGO_OPTIONS = pattern(r"^([\w+#-]+)\s+\{[^}]*=[^}]*\}$")
#: Pandoc's fence of raw HTML, passed to the page as it is: ```` ```{=html} ````.
_RAW_HTML_FENCE = pattern(r"^\{=html5?\}\s*$")
#: VitePress's marks after the language: lines to highlight (``js{2,5}``), line numbers
#: (``ts:line-numbers``).
_VITEPRESS_MARKS = pattern(r"^([\w+#-]+)(?::(?:no-)?line-numbers(?:=\d+)?)?(?:\s*\{[\d,\s-]*\})?")


#: HackMD's (CodiMD's) marks after the language: line numbers (``js=``), from a number
#: (``js=101``) or on from the block above (``js=+``), and wrapped lines (``js!``).
_HACKMD_MARKS = pattern(r"^([\w+#-]*)(?:=\d*\+?)?!?$")


def fence_language(info: str) -> str:
    """A fence's info string with its language said plainly: ``{r}`` and ``{.r
    .cell-code}`` are R, ``{code-cell} python`` is Python, ``js{2,5}`` and
    ``ts:line-numbers`` are JavaScript and TypeScript (and HackMD's ``js=``, ``js=101``,
    ``js=+`` and ``js!``), Pandoc's ``{#id .go .numberLines}`` and Hugo's ``go
    {linenos=table}`` are Go; anything else as it is."""
    attributes = _PANDOC_ATTRIBUTES.match(info.strip())
    if attributes:
        return attributes.group(1)
    hugo = _HUGO_OPTIONS.match(info.strip())
    if hugo:
        return hugo.group(1)
    chunk = _CHUNK.match(info.strip())
    if chunk:
        name, rest = chunk.group(1).lower(), chunk.group(2).strip()
        if name in _CODE_DIRECTIVES:
            return rest
        return name if name in _CHUNK_ENGINES else info
    hackmd = _HACKMD_MARKS.match(info.strip())
    if hackmd and hackmd.end() > len(hackmd.group(1)):
        return hackmd.group(1)
    marked = _VITEPRESS_MARKS.match(info.strip())
    if marked and marked.end() > len(marked.group(1)):
        return marked.group(1) + info.strip()[marked.end() :]
    return info


#: A Quarto chunk's option line, at the top of its code: ``#| echo: false``.
_CHUNK_OPTION = pattern(r"[ \t]*#\|[ \t]*([\w.-]+)[ \t]*:[ \t]*(.*?)[ \t]*")
#: An R Markdown chunk's option in its braces: ``include=FALSE``, ``echo = F``,
#: ``fig.cap="趋势图"``.
_BRACE_OPTION = pattern(r"""([\w.-]+)\s*=\s*("[^"]*"|'[^']*'|[^,\s}]+)""")
_FALSE = frozenset({"false", "no", "FALSE", "F"})
#: The options that hide a chunk's code: ``include`` its output too.
_HIDING = ("include", "echo")
#: The options that say a chunk makes a figure or a table (a caption; Quarto's label
#: of one, ``fig-…``/``tbl-…``): what the site shows in its place, by what it is.
_MADE = (("fig-cap", "figure"), ("fig.cap", "figure"), ("tbl-cap", "table"))
_MADE_LABEL = pattern(r"(fig|tbl)-[\w-]+")
#: Codes of what check is told: a chunk the site hides whole (a note), and one whose
#: output the site shows and crosspost cannot (a warning: the reader misses it).
HIDDEN_CHUNK, CHUNK_OUTPUT = "hidden-chunk", "chunk-output"


def _chunk_options(state: StateCore) -> None:
    """An executable chunk (```` ```{r} ````, ```` ```{python} ````) as its site shows it:
    the ``#| key: value`` lines that open it are options for Quarto, never shown; a chunk
    with ``include=FALSE`` (``#| include: false``) is hidden by the site whole, so it is
    left out (check notes it). crosspost runs no code: a chunk with ``echo=FALSE`` shows
    its output alone on the site, and so nothing here (left out, check warns: the reader
    misses a figure); a chunk shown that makes a figure or a table (a caption or a
    ``fig-``/``tbl-`` label) shows its code without it, and check warns too."""
    if "```{" not in state.src and "~~~{" not in state.src:
        return
    kept: list[Token] = []
    for token in state.tokens:
        if token.type != "fence" or not token.info.startswith("{"):
            kept.append(token)
            continue
        chunk = _CHUNK.match(token.info.strip())
        if chunk is None or chunk.group(1).lower() not in _CHUNK_ENGINES:
            kept.append(token)
            continue
        lines = token.content.split("\n")
        options = [_CHUNK_OPTION.fullmatch(line) for line in lines]
        count = next((n for n, option in enumerate(options) if option is None), len(lines))
        # Each option as written, by name: the braces' first, Quarto's lines after them.
        written: dict[str, tuple[str, str]] = {}
        for found in _BRACE_OPTION.finditer(token.info):
            written[found.group(1)] = (found.group(2).strip("\"'"), found.group(0))
        for option in options[:count]:
            if option is not None:
                value = option.group(2).strip("\"'")
                written[option.group(1)] = (value, f"#| {option.group(1)}: {option.group(2)}")
        line = token.map[0] if token.map else 0
        notes = state.env.setdefault(NOTES, [])
        hiding = [(name, w) for name, (v, w) in written.items() if name in _HIDING and v in _FALSE]
        shown = _chunk_output(written)
        if hiding and (shown is None or any(name == "include" for name, _ in hiding)):
            notes.append(
                (
                    line,
                    HIDDEN_CHUNK,
                    f"this code chunk has '{hiding[0][1]}', so the site hides it and it is "
                    "left out of every channel (crosspost runs no code: its output is not "
                    "shown either)",
                )
            )
            continue
        if shown is not None:
            notes.append((line, CHUNK_OUTPUT, shown))
        if hiding:
            continue  # its code hidden, its output not here: nothing to show
        if count:
            token.content = "\n".join(lines[count:])
        kept.append(token)
    state.tokens = kept


def _chunk_output(written: dict[str, tuple[str, str]]) -> str | None:
    """What check says of a chunk whose output its site shows (None: it shows none, or
    none that is more than the code's own printout), from its options as written."""
    value = {name: read for name, (read, _) in written.items()}
    if any(value.get(name, "") in _FALSE for name in ("include", "eval", "output")):
        return None  # nothing run, or nothing of it shown
    if value.get("results") == "hide" and value.get("fig.show") == "hide":
        return None
    kind, named = next(((kind, value[name]) for name, kind in _MADE if value.get(name)), ("", ""))
    label = value.get("label", "")
    if not kind and _MADE_LABEL.fullmatch(label):
        kind, named = ("figure" if label.startswith("fig") else "table"), label
    made = f"the {kind} '{named}'" if kind else "its output"
    advice = (
        "render the document first (quarto render FILE --to gfm writes the output in) or "
        f"paste the {kind or 'output'} here"
    )
    if value.get("echo", "") in _FALSE:
        return (
            f"this code chunk has '{written['echo'][1]}': the site shows {made} in its "
            "place, but crosspost runs no code, so readers see nothing of it; " + advice
        )
    if not kind:
        return None
    return (
        f"this code chunk makes {made}, which the site shows under its code, but crosspost "
        "runs no code, so readers see the code alone; " + advice
    )


#: Languages whose names hold a space, as editors write them after a fence: Feishu's and
#: Notion's exports (```` ```plain text ````, ```` ```visual basic ````, Feishu's ``Power
#: Shell``, Notion's ``LLVM IR`` and ``Notion Formula``), each as the one word
#: highlighters know it by. Read as a language and a title (Mintlify's ```` ```json 200
#: ````), ``text`` showed above the code on every channel.
_SPACED_LANGUAGES = {
    "plain text": "text", "visual basic": "vbnet", "power shell": "powershell",
    "llvm ir": "llvm", "notion formula": "text", "opengl shading language": "glsl",
    "protocol buffers": "protobuf", "objective c": "objective-c",
}  # fmt: skip
_SPACED_NAMES = "|".join(name.replace(" ", r"[ \t]+") for name in _SPACED_LANGUAGES)
_SPACED_LANGUAGE = pattern(rf"(?:{_SPACED_NAMES})(?=\s|$)", re.IGNORECASE)


def _one_word_language(info: str) -> str:
    """``info`` with a language whose name holds a space (``Plain Text``) written as one
    word (``text``), what follows it kept (``plain text title="a.txt"``)."""
    found = _SPACED_LANGUAGE.match(info.strip())
    if found is None:
        return info
    name = " ".join(found.group(0).lower().split())
    return _SPACED_LANGUAGES[name] + info.strip()[found.end() :]


def _fence_languages(state: StateCore) -> None:
    """Each fence's language as :func:`fence_language` reads it: renderers colour by it
    (Zhihu's ``<pre lang>`` showed ``{r}`` and ``js{2,5}``), check names diagrams by it;
    a language whose name holds a space as one word (:data:`_SPACED_LANGUAGES`).
    A fence of ``math`` is a display formula, as GitHub, GitLab and Joplin show it."""
    for token in state.tokens:
        if token.type == "fence" and _RAW_HTML_FENCE.match(token.info):
            # Pandoc's raw HTML (```{=html}): the HTML itself, as a block of it would be.
            token.type, token.tag, token.info, token.markup = "html_block", "", "", ""
            continue
        if token.type == "fence" and " " in token.info.strip():
            token.info = _one_word_language(token.info)
        if token.type == "fence" and any(mark in token.info for mark in "{:=!"):
            token.info = fence_language(token.info)
        if token.type == "fence" and token.info.strip().lower() == "math":
            # GitHub's, GitLab's and Joplin's display formula (```math): drawn like $$…$$,
            # not shown as its TeX in a code block.
            token.type, token.tag, token.info, token.markup = "math_block", "math", "", "$$"
            continue
        if token.type == "fence" and ("<" in token.content or ")!" in token.content):
            token.content = _ANNOTATION_MARK.sub(r"\1 (\2\3)", token.content)


def _empty_formulas(state: StateCore) -> None:
    """A formula with nothing in it (```` ```math ```` closed at once, ``$$`` then ``$$``),
    left out with a note: there is nothing to draw, and WeChat showed ``$$$$`` in code
    while Zhihu drew an empty equation. A placeholder the writer meant to fill in."""
    kept: list[Token] = []
    for token in state.tokens:
        if token.type == "math_block" and not token.content.strip():
            _note_empty_formula(state, token.map[0] if token.map else 0)
            continue
        if token.type == "inline" and token.children:
            children = [
                child
                for child in token.children
                if child.type not in ("math_inline", "math_inline_double") or child.content.strip()
            ]
            if len(children) != len(token.children):
                _note_empty_formula(state, token.map[0] if token.map else 0)
                token.children = children
        kept.append(token)
    state.tokens = kept


def _note_empty_formula(state: StateCore, line: int) -> None:
    message = "an empty formula is left out of every channel; write its TeX, or delete it"
    state.env.setdefault(NOTES, []).append((line, "empty-formula", message))


#: A block of raw HTML that is one code block: ``<pre …>``, maybe ``<code …>``, the code.
_RAW_CODE = pattern(
    r"\s*<pre\b([^>]*)>\s*(?:<code\b([^>]*)>)?(.*?)(?:</code>\s*)?</pre>\s*",
    re.DOTALL | re.IGNORECASE,
)
#: Where a raw code block names its language: ``class="language-bash"`` (Prism,
#: highlight.js, GitBook), ``lang-bash``, ``highlight-source-python`` (GitHub),
#: ``lang="bash"``, ``data-lang="bash"``, Pandoc's and knitr's ``class="sourceCode r"``.
_CODE_LANGUAGE = pattern(
    r"\bclass\s*=\s*[\"'][^\"']*?\b(?:language|lang|highlight-source|highlight)-([\w+#.-]+)"
    r"|\b(?:data-)?lang(?:uage)?\s*=\s*[\"']([\w+#.-]+)[\"']"
    r"|\bclass\s*=\s*[\"']sourceCode\s+([\w+#.-]+)"
    r"|\bclass\s*=\s*[\"']?(mermaid|plantuml|flowchart|graphviz)\b",  # a diagram's script
    re.IGNORECASE,
)
_CODE_TAG = pattern(r"<br\s*/?>|<[^>]*>", re.IGNORECASE)


#: A line of HTML: it starts with a tag (``<p …>``, ``</section>``, ``<br/>``), not with
#: an autolink (``<https://…>``) or words.
_TAG_LINE = pattern(r"[ \t]*</?[A-Za-z][A-Za-z0-9-]*(?:[ \t/>]|$)")
#: Each tag of a stretch of HTML: closing (group 1), its name, self-closed (group 3).
_TAG = pattern(r"<(/?)([A-Za-z][A-Za-z0-9-]*)\b[^<>]*?(/?)>")


def _depths(html_text: str) -> tuple[int, int]:
    """(how many elements ``html_text`` leaves open, less those it closes that it did not
    open; the lowest that count falls to on the way): ``<p>`` is 1, ``</p>`` is -1."""
    depth = lowest = 0
    for closing, name, self_closed in _TAG.findall(html_text):
        if closing:
            depth -= 1
            lowest = min(lowest, depth)
        elif not self_closed and name.lower() not in VOID:
            depth += 1
    return depth, lowest


#: A tag with an inline style, as a WeChat editor writes every one.
_STYLED = pattern(r"<[A-Za-z][^<>]*\sstyle\s*=", re.IGNORECASE)


def _indented_html(state: StateCore) -> None:
    """HTML indented four spaces inside raw HTML is HTML, not code.

    135editor and 秀米 indent the HTML they make; pasted into an issue, a line of it
    after a blank line (or after a wrapper's tag line read as a block of its own) is an
    indented code block to CommonMark, and both channels showed the HTML's source. An
    indented code block is read as raw HTML when all three hold: each of its lines that
    is not blank starts with a tag; raw HTML before it left an element open (the
    indented lines stand inside it); and either the block right before it is that raw
    HTML or its lines close an element they did not open; and the HTML is styled as an
    editor styles it (a ``style=`` on some tag). A Markdown tutorial's example of HTML is
    indented after its words, with its tags balanced, and one inside a ``<details>``
    is bare: both stay code.
    Each one read so is noted for check (``indented-html``)."""
    if "    <" not in state.src and "\t<" not in state.src:
        return
    depth = 0
    previous: Token | None = None
    for token in state.tokens:
        if token.type == "code_block" and depth > 0:
            lines = [line for line in token.content.split("\n") if line.strip()]
            lowest = _depths(token.content)[1]
            if (
                lines
                and all(_TAG_LINE.match(line) for line in lines)
                and any(_STYLED.search(line) for line in lines)
                and ((previous is not None and previous.type == "html_block") or lowest < 0)
            ):
                token.type, token.tag, token.markup, token.info = "html_block", "", "", ""
                first, last = token.map if token.map else (0, 1)
                these = "this line is" if last - first == 1 else f"these {last - first} lines are"
                message = (
                    f"{these} HTML indented four spaces or more, "
                    "which Markdown reads as code; inside the raw HTML around them they are "
                    "read as HTML, as the editor they came from shows them (unindent them to "
                    "be sure)"
                )
                state.env.setdefault(NOTES, []).append((first, "indented-html", message))
        if token.type == "html_block":
            depth = max(0, depth + _depths(token.content)[0])
        previous = token


#: What holds no element, whatever it looks like: a comment, a script's or a style's code.
_NO_ELEMENTS = pattern(r"<!--.*?-->|<(script|style)\b.*?</\1\s*>", re.DOTALL | re.IGNORECASE)


def _split_elements(state: StateCore) -> None:
    """Blocks of raw HTML one element spans are one block.

    CommonMark ends a block of raw HTML at a blank line, and WordPress's block editor
    writes one between the items of a list (``<ol class="wp-block-list"><!--
    wp:list-item -->``, each item between its comments, ``… --></ol>``): the first block
    closed the list after its first item, and the items after it stood in no list (bare
    ``<li>`` on WeChat, paragraphs on Zhihu), their numbers gone. Blocks that follow one
    another with only blank lines between are joined wherever an element opened in one
    is closed in a later one, the blank lines kept (each line keeps its place). An
    element never closed joins nothing (old HTML leaves ``<p>`` and ``<li>`` open), and
    Markdown between two blocks keeps them apart, read as Markdown inside the HTML."""
    if "<" not in state.src:
        return
    out: list[Token] = []
    for raw, group in itertools.groupby(state.tokens, _raw_html_block):
        run = list(group)
        if not raw or len(run) == 1:
            out += run
            continue
        groups = [[run[0]]]
        for block, joins in zip(run[1:], _joins(run), strict=True):
            if joins:
                groups[-1].append(block)
            else:
                groups.append([block])
        out += [_joined(group) if len(group) > 1 else group[0] for group in groups]
    state.tokens = out


def _raw_html_block(token: Token) -> bool:
    return token.type == "html_block" and token.map is not None


def _joins(run: Sequence[Token]) -> list[bool]:
    """Per block of ``run`` after the first: whether it belongs with the block before
    it, as an element open before it is closed in it or in a later block."""
    joins = [False] * (len(run) - 1)
    opened: list[tuple[str, int]] = []  # per element open, innermost last: name, block
    for block, token in enumerate(run):
        for closing, name, self_closed in _TAG.findall(_NO_ELEMENTS.sub("", token.content)):
            name = name.lower()
            if not closing:
                if not self_closed and name not in _VOID_TAGS:
                    opened.append((name, block))
                continue
            at = next((i for i in range(len(opened) - 1, -1, -1) if opened[i][0] == name), None)
            if at is None:
                continue  # it closes nothing the run opened
            for spanned in range(opened[at][1], block):
                joins[spanned] = True
            del opened[at:]  # with what it holds, as a browser closes them
    return joins


def _joined(blocks: Sequence[Token]) -> Token:
    """Raw HTML ``blocks``, one after another, as one block, the blank lines between
    them kept."""
    joined = copy_token(blocks[0])
    parts = [joined.content]
    for before, block in itertools.pairwise(blocks):
        assert before.map is not None and block.map is not None  # see _raw_html_block
        parts.append("\n" * max(0, block.map[0] - before.map[1]) + block.content)
        joined.meta.update(block.meta)
    joined.content = "".join(parts)
    joined.map = [(blocks[0].map or [0])[0], (blocks[-1].map or [0, 0])[1]]
    return joined


def _raw_code_blocks(state: StateCore) -> None:
    """A block of raw HTML that is only a code block (``<pre><code class="language-bash">``,
    as exports from GitBook, WordPress or Medium write one) becomes a fenced block of its
    language: coloured on WeChat like any other, ``<pre lang>`` on Zhihu. Markup inside
    it (a highlighter's ``<span>``s, a linked name) is left out, its text kept."""
    for token in state.tokens:
        if token.type != "html_block" or "<pre" not in token.content.lower():
            continue
        found = _RAW_CODE.fullmatch(token.content)
        if found is None or "<pre" in found.group(3).lower():
            continue
        named = _CODE_LANGUAGE.search(f"{found.group(2) or ''} {found.group(1)}")
        language = next((g for g in named.groups() if g), "") if named else ""
        code = _CODE_TAG.sub(
            lambda tag: "\n" if tag.group(0)[1:3].lower() == "br" else "", found.group(3)
        )
        token.type, token.tag, token.markup = "fence", "code", "<pre>"
        token.info, token.content = language.lower(), html.unescape(code).strip("\n") + "\n"


#: A code annotation's mark at a line's end: Quarto's ``# <1>``, MkDocs Material's
#: ``# (1)!``. The site draws a numbered bubble the list under the code explains; here
#: it is the comment ``# (1)``, a number the reader finds in that list.
_ANNOTATION_MARK = pattern(
    r"([ \t]*(?:#|//|--|;|%))[ \t]*(?:<(\d{1,2})>|\((\d{1,2})\)!)[ \t]*$", re.M
)


#: Docsify's notes: a paragraph opening with ``!>`` (important) or ``?>`` (a tip).
_DOCSIFY_NOTE = {"!>": "warning", "?>": "tip"}


def _docsify_notes(state: StateCore) -> None:
    """Docsify's ``!> 重要的话`` and ``?> 提示`` paragraphs as the callouts they are;
    Markdown showed the marks as written."""
    tokens: list[Token] = []
    inside = False  # in a note's paragraph (paragraphs do not nest)
    for index, token in enumerate(state.tokens):
        if token.type == "paragraph_open":
            inline = state.tokens[index + 1]
            kind = _DOCSIFY_NOTE.get(inline.content[:2])
            if kind is not None and inline.content[2:3].isspace():
                opening = Token("container_callout_open", "div", 1, info=kind, markup=":::")
                opening.map, opening.block = token.map, True
                tokens.append(opening)
                inline.content = inline.content[2:].lstrip()
                inside = True
        tokens.append(token)
        if token.type == "paragraph_close" and inside:
            tokens.append(Token("container_callout_close", "div", -1, markup=":::"))
            inside = False
    state.tokens = tokens


def _myst_callouts(state: StateCore) -> None:
    """MyST's admonition directives (```` ```{note} title ```` … ```` ``` ````, as Jupyter
    Book writes them) and the callouts of Obsidian's Admonition plugin (```` ```ad-tip ````,
    maybe ``title: …`` on top) as the callout ``::: note title`` makes: their content is
    Markdown, parsed here; both channels showed it as code, its title lost. Other
    directives (``{figure}``, ``{code-cell}``) stay code, and check names them."""
    tokens: list[Token] = []
    for token in state.tokens:
        found = _MYST_DIRECTIVE.match(token.info.strip()) if token.type == "fence" else None
        kind = found.group(1).lower() if found else ""
        kind = CALLOUT_SYNONYMS.get(kind, kind)
        title = found.group(2) if found else ""
        content = _MYST_OPTIONS.sub("", token.content, count=1)
        plugin = _OBSIDIAN_ADMONITION.fullmatch(token.info.strip())
        if token.type == "fence" and plugin is not None:  # any kind, as Obsidian shows any
            written = plugin.group(1).lower()
            kind = callout_kind(written)
            options = _ADMONITION_OPTIONS.match(token.content)
            content = token.content[options.end() :] if options else token.content
            titles = _ADMONITION_TITLE.findall(options.group(0)) if options else []
            named = CALLOUT_LABELS[kind] if written == kind else written.capitalize()
            title = titles[0] if titles else named
        elif found is None or kind not in CALLOUT_LABELS or token.map is None:
            tokens.append(token)
            continue
        opening = Token("container_callout_open", "div", 1, info=f"{kind} {title}".strip())
        opening.map, opening.block, opening.markup = list(token.map or (0, 0)), True, ":::"
        inner: list[Token] = []
        state.md.block.parse(content, state.md, state.env, inner)
        for nested in inner:
            nested.level += 1
            if nested.map is not None and token.map:  # the file's lines, not the fence's
                nested.map = [line + token.map[0] + 1 for line in nested.map]
        closing = Token("container_callout_close", "div", -1, markup=":::")
        closing.block = True
        tokens += [opening, *inner, closing]
    state.tokens = tokens


#: The fence of a callout of Obsidian's Admonition plugin: ```` ```ad-note ````.
_OBSIDIAN_ADMONITION = pattern(r"ad-([A-Za-z][\w-]*)")
#: Its option lines on top (``title: …``, ``collapse: open``, ``icon:``, ``color:``).
_ADMONITION_OPTIONS = pattern(r"(?:[ \t]*(?:title|collapse|icon|color)[ \t]*:.*(?:\n|$))+")
_ADMONITION_TITLE = pattern(r"^[ \t]*title[ \t]*:[ \t]*(.*?)[ \t]*$", re.MULTILINE)

#: ``[!kind]``, ``[!kind] title`` or ``[!kind]-`` (Obsidian's folded callout) on a quote's
#: first line. Obsidian takes any word for a kind (``[!question]``, ``[!AI_SUMMARY]``).
_TITLED_ALERT = pattern(r"\[!([A-Za-z][\w-]*)\][+-]?(?:[ \t]+([^\n]*\S))?[ \t]*(?:\n|$)")


#: An admonition's opening line as MkDocs writes it: ``!!! kind``, ``??? kind`` or
#: ``???+ kind`` (folded), then at most a quoted title.
_ADMONITION_LINE = pattern(
    r"(?:!!!|\?\?\?\+?)[ \t]+([A-Za-z]+)(?:[ \t]+inline(?:[ \t]+end)?)?"
    r"(?:[ \t]+(?:\"[^\"]*\"|'[^']*'))?[ \t]*$"
)
#: An admonition's first line, MkDocs's: its indent.
_ADMONITION_START = pattern(r"^( *)(?:!!!|\?\?\?\+?)[ \t]+[A-Za-z]", re.MULTILINE)


def _admonition_gaps(state: StateCore) -> None:
    """Blank lines inside a MkDocs admonition keep it open, as Python-Markdown reads it:
    the admonition plugin closed one at two blank lines in a row, and what followed (an
    indented paragraph, a content tab) went out as code. Such lines get the content's
    indent; a line indented less still ends the admonition."""
    if "!!!" not in state.src and "???" not in state.src:
        return
    lines = state.src.split("\n")
    changed = False
    for found in _ADMONITION_START.finditer(state.src):
        indent = len(found.group(1)) + 4
        first = state.src.count("\n", 0, found.start()) + 1
        gap: list[int] = []
        for index in range(first, len(lines)):
            line = lines[index]
            if not line.strip():
                gap.append(index)
                continue
            if len(line) - len(line.lstrip(" ")) < indent:
                break
            if len(gap) > 1:
                for blank in gap:
                    lines[blank] = " " * indent
                changed = True
            gap = []
    if changed:
        state.src = "\n".join(lines)


#: Pandoc's and Quarto's label after a display formula's closing ``$$``: ``$$ {#eq-x}``.
_EQUATION_LABEL = pattern(r"\$\$[ \t]*\{#[\w:.-]+\}[ \t]*$", re.MULTILINE)


def _equation_labels(state: StateCore) -> None:
    """Leave out a display formula's label (``$$ {#eq-cover}``): crosspost numbers no
    equations, and with the label after it the ``$$`` closed nothing (the formula's TeX
    ran into the words around it)."""
    if "{#" in state.src:
        state.src = _EQUATION_LABEL.sub("$$", state.src)


#: A ``<style>`` or ``<script>`` element, which may hold blank lines, opening its line
#: (maybe after other tags) as an HTML block does: one named in a code span of prose
#: (`` `<style>` ``) is no element.
_SCRIPTED = pattern(
    r"^[ \t]*(?:<[A-Za-z][^<>\n]*>[ \t]*)*<(style|script)\b[^>]*>.*?</\1\s*>",
    re.DOTALL | re.IGNORECASE | re.MULTILINE,
)
_BLANK_LINE = pattern(r"\n[ \t]*(?=\n)")
#: A ``<pre>`` element of raw HTML opening its line (maybe after other tags) and closed.
_RAW_PRE = pattern(
    r"^[ \t]*(?:<[A-Za-z][^<>\n]*>[ \t]*)*<pre\b[^>]*>.*?</pre\s*>", re.DOTALL | re.MULTILINE
)


#: A line that is only ``\[`` or ``\]`` (in a quote, a list item's indent), as ChatGPT and
#: LaTeX writers set a display formula.
_BRACKET_LINE = pattern(r"^([ \t>]*)\\([\[\]])[ \t]*$", re.MULTILINE)


def _bracket_display_lines(state: StateCore) -> None:
    r"""A display formula set between a ``\[`` line and a ``\]`` line is read as one set
    between ``$$`` lines (the same length: lines and offsets stay where they were).
    Written under a line of text or in a quote it was a paragraph showing ``[ a = b ]``,
    its backslashes gone; ``$$`` is read there. Code fences are left alone."""
    if "\\[" not in state.src:
        return
    fences = fence_starts(state.src)
    source = list(state.src)
    opened: re.Match[str] | None = None
    for found in _BRACKET_LINE.finditer(state.src):
        if in_fence(fences, found.start()):
            continue
        if found.group(2) == "[":
            opened = found
        elif opened is not None and opened.group(1).strip() == found.group(1).strip():
            for mark in (opened, found):
                source[mark.start(2) - 1 : mark.end(2)] = "$$"
            opened = None
    state.src = "".join(source)


#: A heading of a level Markdown does not have: Feishu's documents go to nine levels and
#: its export writes them ``####### 附：规范``, which Markdown shows as written.
_DEEP_HEADING = pattern(r"^( {0,3})#{7,9}(?=[ \t])", re.M)


def _deep_headings(state: StateCore) -> None:
    """Headings of levels 7 to 9 are read as level 6, the deepest Markdown has (each
    channel shows it as its smallest heading); code fences are left alone."""
    if "#######" in state.src:
        state.src = outside_fences(
            _DEEP_HEADING, state.src, lambda found: found.group(1) + "######"
        )


#: A list item's marker padded to a tab stop, as Word's lists come out of html2text
#: (``1.      Log in``): five spaces or more after a marker make the item's words code.
_PADDED_MARKER = pattern(r"^([ \t]{0,3}(?:\d{1,9}[.)]|[-*+]))(?: {5,}|\t[ \t]*)(?=\S)", re.M)
#: A picture linked across lines, as turndown writes a linked figure of a page
#: (Substack's): ``[`` alone, the picture, then ``](https://…/full.png)``.
_LINE_LINKED_PICTURE = pattern(
    r"^[ \t]*\[[ \t]*\n((?:[ \t]*\n)*)[ \t]*(!\[[^\]\n]*\]\([^()\n]*\))[ \t]*\n"
    r"((?:[ \t]*\n)*)[ \t]*\]\(([^()\s]+)\)[ \t]*$",
    re.M,
)
#: A link's address broken at a hyphen by a converter wrapping its lines (html2text):
#: ``(https://github.com/a/tiny-`` then ``bloom)`` on the next line.
_BROKEN_ADDRESS = pattern(r"(\]\(https?://[^\s()]*-)\n[ \t]*([^\s()]+\))")


#: A line that starts with a number sign, a blank and a number, then a word in lower case:
#: html2text wraps "…ranked # 2 in the charts" at 78 columns, and the sign can land first
#: on a line (``# 2 in the charts``), which CommonMark reads as a heading.
_WRAPPED_NUMBER_SIGN = pattern(r"^#(?=[ \t]+\d[\d,.]*[ \t]+[a-z])", re.M)
#: How long the line above must be to have been wrapped (html2text's is 78 columns wide):
#: a line written by hand above a heading is short, or ends a sentence.
_WRAPPED_WIDTH = 60
#: How a wrapped line of a sentence ends: a word or a comma, not a sentence's end.
_MID_SENTENCE = pattern(r"[A-Za-z0-9,]")


def _number_sign(found: re.Match[str]) -> str:
    """The sign escaped (``\\#``) when the line above is a wrapped line of the same
    sentence: at least :data:`_WRAPPED_WIDTH` characters, no blank line between, not a
    block of its own (a heading, a list item, a quote, a table row …) and not ending a
    sentence. A heading under such a line is a heading still: a writer's heading is
    not in lower case after its number, or follows a blank line, a short line or a
    sentence's end."""
    text, at = found.string, found.start()
    above = text[text.rfind("\n", 0, max(at - 1, 0)) + 1 : max(at - 1, 0)].rstrip()
    if at == 0 or len(above) < _WRAPPED_WIDTH or _BLOCK_START.match(above):
        return found.group()
    if above.startswith("    ") or not _MID_SENTENCE.fullmatch(above[-1]):
        return found.group()
    return "\\#"


def _picture_linked_on_one_line(found: re.Match[str]) -> str:
    """The picture and its link on the picture's line; the lines around it left blank."""
    before, picture, after, href = found.groups()
    return "\n" + before + f"[{picture}]({href})\n" + after


def _converter_wraps(state: StateCore) -> None:
    """What converters from HTML (html2text, turndown) write for things a page shows
    plainly: a list item's words padded far from their marker (shown as code), a linked
    picture written over lines (its brackets shown as paragraphs), an address cut at a
    hyphen by the line's end (the link shown as written) and a number sign wrapped to
    the start of a line (``# 2 in the charts``, shown as a heading). The marker gets one
    space; the picture is linked on its own line; the address is joined, the rest of its
    line moved after it; the sign is escaped (see :func:`_number_sign`); lines stay where
    they were. Code fences are left alone."""
    if "     " in state.src or "\t" in state.src:
        state.src = outside_fences(_PADDED_MARKER, state.src, lambda found: found.group(1) + " ")
    if "\n](" in state.src:
        state.src = outside_fences(_LINE_LINKED_PICTURE, state.src, _picture_linked_on_one_line)
    if "-\n" in state.src and "](http" in state.src:
        state.src = outside_fences(
            _BROKEN_ADDRESS, state.src, lambda found: found.group(1) + found.group(2) + "\n"
        )
    if "\n#" in state.src:
        state.src = outside_fences(_WRAPPED_NUMBER_SIGN, state.src, _number_sign)


#: A quote's line that opens a GitHub or Obsidian alert: ``> [!TIP]``, ``>[!note]- 标题``.
_ALERT_LINE = pattern(r"^([ \t]{0,3}>[ \t]?)\[![A-Za-z][\w-]*\][+-]?(?:[ \t][^\n]*)?$", re.M)
#: A line that would start a block of its own rather than continue a paragraph.
_BLOCK_START = pattern(
    r"[ \t]*(?:$|>|#{1,6}(?:[ \t]|$)|[-*+][ \t]|\d{1,9}[.)][ \t]|```|~~~|<|\$\$|:::|\|)"
)


def _lazy_alert_lines(state: StateCore) -> None:
    """The lines under an alert's ``> [!TIP]`` that its writer did not start with ``>``
    (Feishu and hand-written notes do: ``>[!TIP]`` then the text) are the alert's, as
    a quote's paragraph takes its lazy lines: the callout went out empty, its text after
    it. Each such line gets the quote's marker (the same line, so lines stay put), up to
    a blank line or a line that starts a block; code fences are left alone."""
    if "[!" not in state.src:
        return
    fences = fence_starts(state.src)
    lines = state.src.split("\n")
    offsets = list(itertools.accumulate((len(line) + 1 for line in lines), initial=0))
    changed = False
    for number, line in enumerate(lines):
        opened = _ALERT_LINE.match(line)
        if opened is None or in_fence(fences, offsets[number]):
            continue
        for following in range(number + 1, len(lines)):
            if _BLOCK_START.match(lines[following]):
                break
            lines[following] = opened.group(1) + lines[following]
            changed = True
    if changed:
        state.src = "\n".join(lines)


def _unbroken_styles(state: StateCore) -> None:
    """A ``<style>`` or ``<script>`` inside a block of raw HTML keeps that block whole. A
    block opened by ``<div>`` ends at a blank line, and Jupyter writes one into the
    ``<style scoped>`` above every table of data it exports: the rest of the rules came
    out as a code block on both channels. Their blank lines are filled with a CSS comment
    (the element is left out with what it holds anyway); lines stay where they were, and
    code fences are left alone."""
    styled = "<s" in state.src or "<S" in state.src
    if not styled and "<pre" not in state.src:
        return

    def filler(fill: str) -> Callable[[re.Match[str]], str]:
        return lambda found: _BLANK_LINE.sub(fill, found.group(0))

    if styled:
        state.src = outside_fences(_SCRIPTED, state.src, filler("\n/**/"))
    if "<pre" in state.src:
        # Code in raw HTML (knitr's and pkgdown's <div class="sourceCode"><pre>): a blank
        # line ended the block, and the rest of the code went out as paragraphs. An
        # HTML comment, which the sanitiser leaves out, keeps the line blank in the code.
        state.src = outside_fences(_RAW_PRE, state.src, filler("\n<!---->"))


#: A line of a ``:::`` block's fence (at most three spaces in): its colons, what follows.
_DIV_FENCE = pattern(r"^( {0,3})(:{3,})[ \t]*(.*?)[ \t]*$")


def _nested_divs(state: StateCore) -> None:
    """Blocks nested with fences of one length read as Pandoc and Quarto read them: a
    fence with a name or attributes after its colons opens a block, a bare one closes the
    innermost open one. markdown-it closes a block at the first bare fence at least as
    long as its own, so ``::: {.callout-note}`` holding a ``::: {.callout-tip}`` ended
    at the tip's closing line, and the note's own closing line was shown as text. Each
    pair's fences are rewritten to three colons more than the depth of blocks inside it
    (an outer block's are longer than any inner one's, as markdown-it needs); lines stay
    where they were, code fences are left alone, and a block never closed keeps its
    fence as written."""
    if ":::" not in state.src:
        return
    lines = state.src.split("\n")
    open_blocks: list[list[int]] = []  # [line, depth of blocks inside]
    pairs: list[tuple[int, int, int]] = []
    fence = ""
    for index, line in enumerate(lines):
        code_fence = FENCE_LINE.match(line)
        if fence:
            if (
                code_fence
                and code_fence.group(1)[0] == fence[0]
                and len(code_fence.group(1)) >= len(fence)
                and not line[code_fence.end() :].strip()
            ):
                fence = ""
            continue
        if code_fence:
            fence = code_fence.group(1)
            continue
        found = _DIV_FENCE.match(line)
        if found is None:
            continue
        if found.group(3) and not found.group(3).startswith(":"):
            open_blocks.append([index, 0])
        elif not found.group(3) and open_blocks:
            opened, depth = open_blocks.pop()
            pairs.append((opened, index, depth))
            if open_blocks:
                open_blocks[-1][1] = max(open_blocks[-1][1], depth + 1)
    if not any(depth for _, _, depth in pairs):
        return
    for opened, closed, depth in pairs:
        colons = ":" * (3 + depth)
        for index in (opened, closed):
            found = _DIV_FENCE.match(lines[index])
            assert found is not None
            lines[index] = found.group(1) + colons + lines[index][found.end(2) :]
    state.src = "\n".join(lines)


#: pymdownx's keys: ``++ctrl+alt+del++``, each key a name or one character.
_KEYS = pattern(
    r"(?<![\w+])\+\+((?:[A-Za-z][\w-]*|[^\s+])(?:\+(?:[A-Za-z][\w-]*|[^\s+]))*)\+\+(?![\w+])"
)
#: How a key's name is written when it is not the name capitalised.
_KEY_NAMES = {"ctrl": "Ctrl", "cmd": "Cmd", "alt": "Alt", "del": "Del", "esc": "Esc",
              "pgup": "PgUp", "pgdn": "PgDn", "arrow-up": "↑", "arrow-down": "↓",
              "arrow-left": "←", "arrow-right": "→", "win": "Win", "opt": "Option"}  # fmt: skip


def _empty_headings(state: StateCore) -> None:
    """A heading with no words (``## `` alone, as a placeholder or a divider) is left out:
    WeChat drew a heading's rule under nothing, Zhihu got an empty ``<h2>``."""
    tokens = state.tokens
    empty = {
        at
        for at, token in enumerate(tokens[:-2])
        if token.type == "heading_open" and not tokens[at + 1].content.strip()
    }
    if empty:  # each with its inline and its closing
        state.tokens = [t for at, t in enumerate(tokens) if not {at, at - 1, at - 2} & empty]


#: A link or picture whose path holds a bare space, as Typora writes them: ``![图](assets/my
#: image.png "标题")``. The path ends in a file's extension; a title may follow.
_SPACED_PATH = pattern(
    r"""(\]\()((?:[^()<>"'\s][^()<>"'\n]*?[ \t][^()<>"'\n]*?\.[A-Za-z0-9]{1,5}"""
    r"""|https?://[^()<>"'\s]+(?:[ \t]+[^()<>"'\s=][^()<>"'\s]*)+?))"""
    r"""([ \t]+(?:"[^"\n]*"|'[^'\n]*'))?\)"""
)


def _spaced_paths(state: StateCore) -> None:
    """A link's or a picture's path with a bare space in it (Typora writes them so, and
    shows them) is read as the path in angle brackets, CommonMark's way to write it: the
    picture went out as the words ``![图](assets/my image.png)``. A web address with one
    (a search pasted as typed, ``?q=hello world``) has each space written ``%20``, as a
    browser sends it: an address holds no space. A word after a space that begins with
    ``=`` is a picture's size (``logo.png =150x150``), read by ``sized_images``."""
    for token in state.tokens:
        if token.type == "inline" and "](" in token.content and " " in token.content:
            token.content = outside_code(token.content, lambda t: _SPACED_PATH.sub(_spaced, t))


def _spaced(found: re.Match[str]) -> str:
    opening, path, title = found.group(1), found.group(2), found.group(3) or ""
    if path.startswith(("http://", "https://")):
        encoded = path.replace(" ", "%20").replace("\t", "%09")
        return f"{opening}{encoded}{title})"
    return f"{opening}<{path}>{title})"


def _keys(state: StateCore) -> None:
    """MkDocs Material's keyboard keys (``++ctrl+alt+del++``) as the keys, in code: Ctrl+
    Alt+Del. They were shown as written, with their pluses."""
    if "++" not in state.src:
        return
    for token in state.tokens:
        if token.type == "inline" and "++" in token.content:
            token.content = outside_code(token.content, _written_keys)


#: Keys pymdownx names that are words (a letter or a digit alone is a key too): one word
#: between ``++`` marks that is none of them is inserted text (Joplin's and
#: markdown-it-ins's ``++inserted++``), not a key.
_KEY_WORDS = frozenset(
    {*_KEY_NAMES, "shift", "enter", "return", "tab", "space", "backspace", "delete",
     "insert", "home", "end", "page-up", "page-down", "up", "down", "left", "right",
     "escape", "control", "command", "option", "meta", "super", "fn", "caps-lock",
     "print-screen", "num-lock", "scroll-lock", "pause", "break", "menu", "windows",
     *(f"f{number}" for number in range(1, 25))}
)  # fmt: skip


def _written_keys(text: str) -> str:
    def keys(found: re.Match[str]) -> str:
        written = found.group(1)
        if "+" not in written and len(written) > 1 and written.lower() not in _KEY_WORDS:
            return found.group(0)  # inserted text (see _KEY_WORDS)
        names = written.split("+")
        shown = "+".join(_KEY_NAMES.get(n.lower(), n[:1].upper() + n[1:]) for n in names)
        return f"`{shown}`"

    return _KEYS.sub(keys, text) if "++" in text else text


#: A brace written with two backslashes in a formula (``\\{1, 2\\}``).
_DOUBLED_BRACE = pattern(r"\\\\([{}])")


def _escaped_braces(state: StateCore) -> None:
    r"""A brace escaped twice in a formula within a line (``$A = \\{1, 2\\}$``), as
    Hexo's posts write it because their Markdown renderer takes one backslash away, is
    the set's brace ``\{``: a line break, what ``\\`` says, means nothing within a
    line, and the formula could not be drawn. Display formulas keep what they say."""
    if "\\\\{" not in state.src and "\\\\}" not in state.src:
        return
    for token in state.tokens:
        for child in token.children or ():
            if child.type == "math_inline" and "\\\\" in child.content:
                child.content = _DOUBLED_BRACE.sub(r"\\\1", child.content)


#: What a sub- or superscript may hold: a few letters, digits and signs (``H~2~O``,
#: ``x^-1^``, ``1^st^``, ``2^10^``).
_SCRIPT = pattern(r"[A-Za-z0-9+\-−=().,']{1,12}")
#: What a sub- or superscript must follow: the letter, number or bracket it belongs to.
_SCRIPT_BASE = pattern(r"[A-Za-z0-9)\]}]$")
#: A superscript in Chinese or Japanese (``数学^上标^``, Typora's): a few of its letters,
#: right after a letter of its own. Not a subscript: a tilde between Chinese words joins
#: them (``杭州~黄山~婺源``, a route), as it does numbers (``5~10分钟``).
_CJK_SCRIPT = pattern(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{1,8}")
_CJK_SCRIPT_BASE = pattern(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]$")
#: What a one-tilde pair's opening follows when it is no subscript: nothing (the line's
#: start), a space or a punctuation mark (a subscript is glued to its word, ``H~2~O``).
_LOOSE_TILDE = pattern(r"(?:^|[\s\W_])$")


#: An attribute a lazy-loading page names its picture by, and its value.
_LAZY_SOURCE = pattern(rf"""\s{LAZY_SOURCE_NAMES}\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)


def _names_no_picture(source: str) -> bool:
    """Whether a ``src`` is a lazy page's stand-in: nothing, a ``data:`` placeholder
    picture, or ``about:blank`` and its kind."""
    written = source.strip()
    return (
        not written
        or written.lower().startswith("data:")
        or bool(PLACEHOLDER_SOURCE.match(written))
    )


def _lazy_image(found: re.Match[str]) -> str:
    """A raw ``<img>`` whose ``src`` is a stand-in takes the first lazy attribute that
    names a picture (``data-src=""`` beside ``data-original="a.png"``: the second)."""
    tag = found.group(0)
    named = (first_group(lazy) for lazy in _LAZY_SOURCE.finditer(tag))
    picture = next((value for value in named if not _names_no_picture(value)), None)
    if picture is None:
        return tag
    source = IMG_SOURCE.search(tag)
    if source is not None and not _names_no_picture(source_of(source)):
        return tag  # the picture is named where every reader looks for it
    attribute = f' src="{html.escape(html.unescape(picture))}"'
    if source is None:
        return f"{tag[:4]}{attribute}{tag[4:]}"
    return tag[: source.start()] + attribute + tag[source.end() :]


#: One line of raw HTML that is a wrapper around words written in Markdown, as footers
#: centre them: ``<center>👉 [订阅](https://…) 👈</center>``, ``<p align="center">**谢谢**</p>``.
_WRAPPED_LINE = pattern(
    r"(\s*<(center|p|div|span|font|section|h[1-6])\b[^<>]*>)([^<>\n]*)(</\2\s*>\s*)",
    re.IGNORECASE,
)
_INLINE_MARKS = ("](", "**", "__", "`", "~~", "==")


def _markdown_in_wrapped_lines(state: StateCore) -> None:
    """The Markdown in a line of raw HTML that only wraps it (a centred footer's link or
    bold) is read as Markdown, the wrapper kept: every channel showed
    ``👉 [点击订阅](https://…) 👈`` as written, its link lost, and check said nothing."""
    for token in state.tokens:
        if token.type != "html_block" or "\n" in token.content.strip():
            continue
        found = _WRAPPED_LINE.fullmatch(token.content)
        if found is None or not any(mark in found.group(3) for mark in _INLINE_MARKS):
            continue
        words = state.md.renderInline(found.group(3), {}).strip()
        token.content = f"{found.group(1)}{words}{found.group(4)}"


def _lazy_images(state: StateCore) -> None:
    """A raw ``<img>`` whose picture is named by ``data-src`` (an article copied from
    WeChat, CSDN or Substack, where a script loads it as the reader scrolls) shows that
    picture: without the script, the picture was left out, or a 1×1 placeholder shown."""
    if "data-" not in state.src:
        return
    for token in state.tokens:
        pieces = [token] if token.type == "html_block" else []
        pieces += [child for child in token.children or () if child.type == "html_inline"]
        for piece in pieces:
            if "<img" in piece.content.lower() and "data-" in piece.content:
                piece.content = IMG_TAG.sub(_lazy_image, piece.content)


#: A raw link to a place in its own page (``href="#footnote-1"``), opening and closing,
#: and a note's number as its words.
_ANCHOR_OPEN = pattern(r"""<a\b[^>]*\shref\s*=\s*["']?#[^>]*>""", re.IGNORECASE)
_ANCHOR_NUMBER = pattern(r"""(<a\b[^>]*\shref\s*=\s*["']?#[^>]*>)\s*(\d{1,3})\s*(</a\s*>)""", re.I)
_NUMBER = pattern(r"\s*\d{1,3}\s*")
#: The words of a link from a note back to its mark.
_BACK_LINKS = frozenset({"^", "↑", "↩", "↩\ufe0e", "↩\ufe0f", "⤴"})
#: Where a note's way back leads: its mark's anchor (``#footnote-ref-1``, ``#fnref1``,
#: Zhihu's ``#ref_1_0``), not the page's top (``[↑](#top)`` is the writer's link).
_NOTE_TARGET = pattern(r"#(?:footnote-ref|endnote-ref|fnref|ref_|cite_ref|r)[-_:]?\d")


def _anchor_numbers(state: StateCore) -> None:
    """A raw link to a note of its own page whose words are the note's number (Substack's
    and Ghost's footnotes, ``90.0%<a href="#footnote-1">1</a>``) shows the number in
    brackets, ``90.0%[1]``: the link leads nowhere off its page and is left out, and the
    bare number ran into the figure before it (90.0%1). A link back from a note to its
    mark (``[↑](#footnote-ref-1)``) is left out with its words."""
    if "#" not in state.src:
        return
    for token in state.tokens:
        if token.type == "html_block" and "#" in token.content:
            token.content = _ANCHOR_NUMBER.sub(r"\1[\2]\3", token.content)
        children = token.children or []
        for before, child, after in zip(children, children[1:], children[2:], strict=False):
            raw = (
                before.type == "html_inline"
                and _ANCHOR_OPEN.fullmatch(before.content)
                and after.type == "html_inline"
                and after.content.lower().startswith("</a")
            )
            # The same note written in Markdown by markdownify and turndown, which turn
            # the page into Markdown: '40%[1](#footnote-1)'.
            written = (
                before.type == "link_open"
                and str(before.attrGet("href") or "").startswith("#")
                and after.type == "link_close"
            )
            if (raw or written) and child.type == "text" and _NUMBER.fullmatch(child.content):
                child.content = f"[{child.content.strip()}]"
            elif (
                written
                and child.type == "text"
                and child.content.strip() in _BACK_LINKS
                and _NOTE_TARGET.match(str(before.attrGet("href") or ""))
            ):
                # A note's way back to its mark (Zhihu's '[^](#ref_1_0)', mammoth's
                # '[↑](#footnote-ref-1)'): it leads nowhere off its page, and its mark
                # was shown as a stray '^' or '↑' before the note's words.
                for token in (before, child, after):
                    token.type, token.tag, token.nesting, token.content = "text", "", 0, ""
                    token.attrs = {}


def _scripts(state: StateCore) -> None:
    """Sub- and superscripts (Pandoc's and Typora's ``H~2~O``, ``x^2^``) only where they
    are one: a few letters, digits or signs right after what they belong to. Chinese
    writes a range with a tilde (``5~10分钟，20~30~``) and a smile with carets (``^_^``);
    those stay the writer's words."""
    if "~" not in state.src and "^" not in state.src:
        return
    loose: list[tuple[int, str]] = []
    for block in state.tokens:
        children = block.children or []
        for index, token in enumerate(children):
            if token.type not in ("sub_open", "sup_open") or token.meta.get(_CARET_SUPERSCRIPT):
                continue
            inner, closing = children[index + 1 : index + 2], children[index + 2 : index + 3]
            before = children[index - 1] if index else None
            one_text = (
                inner
                and closing
                and inner[0].type == "text"
                and closing[0].type == token.type.replace("open", "close")
            )
            written = inner[0].content if one_text else ""
            base = before.content if before is not None and before.type == "text" else ""
            if one_text and (
                (
                    (_SCRIPT.fullmatch(written) and any(c.isalnum() for c in written))
                    and _SCRIPT_BASE.search(base)
                )
                or (
                    token.type == "sup_open"  # a tilde between Chinese words joins them
                    and _CJK_SCRIPT.fullmatch(written)
                    and _CJK_SCRIPT_BASE.search(base)
                )
            ):
                continue
            worded = any(c.isalpha() for c in written) if one_text else True
            if token.type == "sub_open" and worded and _LOOSE_TILDE.search(base or " "):
                loose.append((block.map[0] if block.map else 0, written))
            _unscripted(children, index)
    if loose:
        line, written = loose[0]
        more = f" (and {len(loose) - 1} more)" if len(loose) > 1 else ""
        message = (
            f"'~{written}~'{more} is shown as written: one tilde strikes words out on "
            "GitHub, makes a subscript in Typora and a wavy line in doocs/md; write "
            "'~~…~~' to strike them out"
        )
        state.env.setdefault(NOTES, []).append((line, "one-tilde", message))


def _unscripted(children: list[Token], opening: int) -> None:
    """The pair of script tokens opened at ``opening`` back to the marks written."""
    kind = children[opening].type.removesuffix("_open")
    depth = 0
    for at in range(opening, len(children)):
        token = children[at]
        if token.type == f"{kind}_open":
            depth += 1
        elif token.type == f"{kind}_close":
            depth -= 1
        else:
            continue
        children[at] = Token("text", "", 0, content=token.markup)
        if not depth:
            return


def _side_effect_free(rule: BlockRule) -> BlockRule:
    """``rule`` answering a silent call (may this line end a paragraph?) without pushing
    tokens or moving on: dollarmath's block rule pushes its formula either way."""

    def asked(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        if not silent:
            return rule(state, start, end, silent)
        tokens, line = len(state.tokens), state.line
        found = rule(state, start, end, silent)
        del state.tokens[tokens:]
        state.line = line
        return found

    return asked


#: What may follow a display formula's closing ``$$`` on its line: its number or label.
_EQUATION_NUMBER = pattern(r"\s*\([^()]*\)\s*")


def _closed_at_a_line_end(rule: BlockRule) -> BlockRule:
    """``rule`` (dollarmath's display formula, ``$$`` on its first line) declining a
    formula closed inside a later line, with words after it (``+b$$其中文字``): that one
    is a formula within a paragraph, as Typora and KaTeX read it. The rule looked on for
    the next line *ending* in ``$$`` and took every paragraph between for TeX."""

    def closed(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        begin = state.bMarks[start] + state.tShift[start]
        if (
            not state.src.startswith("$$", begin)
            or "$$" in state.src[begin + 2 : state.eMarks[start]]
        ):
            return rule(state, start, end, silent)
        for line in range(start + 1, end):
            text = state.src[state.bMarks[line] : state.eMarks[line]].strip()
            at = text.find("$$")
            if at < 0:
                continue
            if text.endswith("$$") or _EQUATION_NUMBER.fullmatch(text, at + 2):
                break  # closed at the line's end, maybe numbered: ``$$ (1)``
            return False
        return rule(state, start, end, silent)

    return closed


def _colon_definitions(rule: BlockRule) -> BlockRule:
    """``rule`` (the definition-list plugin's) for ``:`` definitions only. Pandoc also
    takes ``~``, which sentences begin with ("~ 5 天", about five days): read as a
    definition marker, it was lost."""

    def definitions(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        following = start + 1
        while following < end and state.isEmpty(following):
            following += 1
        at = state.bMarks[following] + state.tShift[following] if following < end else 0
        if following < end and state.src.startswith("~", at):
            return False
        return rule(state, start, end, silent)

    return definitions


def _known_admonitions(rule: BlockRule) -> BlockRule:
    """``rule`` (the admonition plugin's) for lines that name a kind crosspost knows: the
    plugin takes any ``!!!`` line, and "!!! 注意：明天停电" or "!!! Note: it is big" lost
    their words to an empty callout."""

    def admonition(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        begin = state.bMarks[start] + state.tShift[start]
        if state.src[begin : begin + 1] not in ("!", "?"):
            return False
        line = _ADMONITION_LINE.match(state.src[begin : state.eMarks[start]])
        kind = line.group(1).lower() if line else ""
        if kind not in CALLOUT_LABELS and kind not in CALLOUT_SYNONYMS:
            return False
        return rule(state, start, end, silent)

    return admonition


def _words(state: StateCore, title: str) -> str:
    """A callout title as a reader sees it: ``**粗体** 与 `code``` is "粗体 与 code", a
    formula its TeX (``$i$`` is "i") and ``:mega:`` 📣 (the title is drawn bold already;
    its Markdown markers would show as written)."""
    tokens: list[Token] = []
    state.md.inline.parse(title, state.md, state.env, tokens)
    words = "".join(
        emojized(t.content) if t.type == "text" else t.content
        for t in tokens
        if t.type in ("text", "code_inline", "math_inline", "math_inline_double")
    )
    return words.strip() or title


def _titled_alerts(state: StateCore) -> None:
    """Quotes whose first line is ``[!kind] title`` become the ``alert_open``/
    ``alert_close`` pair markdown-it makes of a bare ``[!NOTE]`` line, the title in
    ``meta`` and the line taken out of the quote's first paragraph. markdown-it knows
    GitHub's five kinds, written alone; Obsidian, whose notes many newsletters are written
    in, any word, folded or titled: ``[!question] 可以嵌套吗？``, ``[!todo]``, a kind of the
    writer's own (``[!AI_SUMMARY]-``), each a callout of the kind it names (a plain note
    when crosspost knows no such kind), titled with its name when it has no title, as
    Obsidian shows it."""
    tokens = state.tokens
    index = 0
    while index + 2 < len(tokens):
        opening, inline = tokens[index], tokens[index + 2]
        match = None
        if opening.type == "blockquote_open" and inline.type == "inline":
            match = _TITLED_ALERT.match(inline.content)
        if match is None:
            index += 1
            continue
        written = match.group(1).lower()
        kind = callout_kind(written)
        closing = next(
            at
            for at in range(index + 1, len(tokens))
            if tokens[at].type == "blockquote_close" and tokens[at].level == opening.level
        )
        opening.type, tokens[closing].type = "alert_open", "alert_close"
        named = CALLOUT_LABELS[kind] if written == kind else written.replace("_", " ").capitalize()
        opening.meta = {"kind": kind, "title": match.group(2) or named}
        rest = inline.content[match.end() :]
        if rest.strip():
            inline.content, inline.children = rest, []
            state.md.inline.parse(rest, state.md, state.env, inline.children)
        else:  # the title line was the quote's whole first paragraph
            del tokens[index + 1 : index + 4]
        index += 1


#: A line asking the tool that built a site for a table of contents: ``[TOC]`` (Typora,
#: markdown-it-toc), ``[[toc]]`` (VuePress), ``${toc}`` (markdown-it-toc-done-right),
#: GitLab's ``[[_TOC_]]``, CSDN's ``@[TOC](自定义目录标题)``, and kramdown's ``{:toc}``
#: under the list item it replaces.
_TOC = pattern(r"\[toc\]|\[\[_?toc_?\]\]|\$\{toc\}|@\[toc\](?:\([^()\n]*\))?", re.IGNORECASE)
#: The line Zhihu On VSCode writes first in a file it published: ``#! https://…/p/123``,
#: the post's address, which it reads to update the post next time.
_PUBLISHED_AT = pattern(r"#!\s*https?://\S+")
_KRAMDOWN_TOC = pattern(r"\{:\s*toc\s*\}", re.IGNORECASE)
#: kramdown's attribute list on a line of its own: ``{: .note}``, ``{: #id}``, ``{:toc}``.
_ATTRIBUTE_LINE = pattern(r"[ \t]*\{:[^{}\n]*\}[ \t]*")
#: One starting a line of words: SiYuan writes each list item's block id so, before its
#: text (``* {: id="20240311092931-nq8w4c2"}**深度工作**``).
_LEADING_ATTRIBUTES = pattern(r"^\{:[^{}\n]*\}[ \t]*(?=\S)")
#: Attributes written after a heading's words: ``{#id}``, ``{#id .class key=value}``,
#: Pandoc's ``{-}`` (not numbered), kramdown's ``{: #id}``.
_HEADING_ATTRIBUTES = pattern(rf"[ \t]*\{{:?({ATTRIBUTE_WORDS})[ \t]*\}}[ \t]*$")
#: Where :func:`_site_directives` notes what it left out, in the parse's ``env``: (0-based
#: body line, what was written).
LEFT_OUT = "crosspost_left_out"
#: Where ``_callouts`` notes the grouping containers it left out (``::: code-group``): the
#: (0-based) lines of their opening and closing ``:::``.
GROUPED = "crosspost_grouped"


def _heading_attributes(content: str) -> str | None:
    """``content`` without the attribute list after its words, when it ends with one that
    names an id, a class or Pandoc's ``-`` (``{x=1}`` alone may be words: it stays).

    An id alone (``{#…}``, no blank inside) is one whatever it holds: Google Docs makes
    its ids of the heading's words (``{#ai-周报-#42：模型、工具与观点}``, ``{#plan-(q3)}``),
    which an id of letters, digits and ``:.-`` did not cover, and the list went out as
    the heading's words and into the title. At a heading's end Pandoc, kramdown and
    Google Docs all read it as the heading's id, never as its words."""
    found = _HEADING_ATTRIBUTES.search(content)
    if found is None or not content[: found.start()].strip():
        return None
    words = found.group(1).strip()
    # Not an id: a pattern or a template's tag as the heading's subject ({#[a-z]+},
    # {#comment#}), which holds brackets, a plus or ends in a '#'.
    template = words.endswith("#") or any(c in "[]+" for c in words)
    spaced = any(c.isspace() for c in words)
    if words.startswith("#") and len(words) > 1 and not template and not spaced:
        return content[: found.start()]
    parts = attribute_parts(found.group(1))
    if parts is None or not any(part[0] in "#.-" for part in parts):
        return None
    return content[: found.start()]


def _site_directives(state: StateCore) -> None:
    """Leave out what a static-site generator reads and never shows: attribute lists
    (after a heading's words, or on a line of their own, kramdown's), and table-of-
    contents markers, which crosspost does not fill in (WeChat keeps no in-page links);
    each marker is noted in ``env[LEFT_OUT]`` for check to name. Without this they went
    out as the article's words ("## Heading {#intro}", "[TOC]")."""
    tokens = state.tokens
    kept: list[Token] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        inline = tokens[index + 1] if index + 1 < len(tokens) else None
        if inline is None or inline.type != "inline":
            kept.append(token)
            index += 1
            continue
        if token.type == "heading_open":
            stripped = _heading_attributes(inline.content)
            if stripped is not None:
                _reparse(state, inline, stripped)
        elif token.type == "paragraph_open":
            written = inline.content.strip()
            lines = inline.content.split("\n")
            first = token.map[0] if token.map else 0
            if any(_KRAMDOWN_TOC.fullmatch(ln.strip()) for ln in lines):
                state.env.setdefault(LEFT_OUT, []).append((first, " ".join(written.split())))
                index += 3  # the paragraph's open, inline and close
                continue
            published = not kept and bool(_PUBLISHED_AT.fullmatch(lines[0].strip()))
            if published:  # the publishing plugin's own line, the body's first
                lines, first = lines[1:], first + 1
            for number, line in enumerate(lines):
                if _TOC.fullmatch(line.strip()):
                    state.env.setdefault(LEFT_OUT, []).append((first + number, line.strip()))
            words = [
                _LEADING_ATTRIBUTES.sub("", line)
                for line in lines
                if not _ATTRIBUTE_LINE.fullmatch(line) and not _TOC.fullmatch(line.strip())
            ]
            if not any(line.strip() for line in words):
                index += 3
                continue
            if published or words != lines:
                _reparse(state, inline, "\n".join(words))
        kept.append(token)
        index += 1
    state.tokens = _without_empty_lists(kept)


#: How a line of a list written as plain lines begins: ``1、`` ``2.`` ``（3）`` ``四、``
#: ``⑤``, a reference's ``[1]``, or a bullet: ``•`` ``·`` ``▶`` ``→`` ``★`` ``✅`` and emoji
#: (``🔹`` ``👉``).
_ENUMERATED = pattern(
    r"[ \t]*(?:\d{1,3}[、.．)）]|[（(【\[]\d{1,3}[）)】\]]|[一二三四五六七八九十]{1,3}[、.．]"
    "|[①-⑳•·]|[\u2190-\u21ff\u25a0-\u25ff\u2600-\u27bf\u2b05-\u2b55\U0001f300-\U0001faff])"
)
#: Beginnings that make an item only among others like them: a label in lenticular
#: brackets (``【第 41 期】``) and a keycap (``1️⃣``). One alone after a line is prose
#: wrapped there (``这本书的作者是`` / ``【美】约瑟夫·海勒…``).
_LABELLED = pattern(r"[ \t]*(?:【[^】\n]{1,20}】|[0-9#*]\ufe0f?\u20e3)")
#: How a line of Pandoc's fancy lists begins, which CommonMark reads as words: ``a.``
#: ``B)`` ``(iv)`` ``#.`` (numbered by the reader). Its first line too: prose has lines
#: that begin "A. Smith".
_FANCY = pattern(
    r"[ \t]*(?:(?:[A-Za-z]|[ivxlcdmIVXLCDM]{2,6})[.)]|\((?:[A-Za-z]|[ivxlcdmIVXLCDM]{2,6})\)"
    r"|#\.)[ \t]"
)


def _enumerated_lines(state: StateCore) -> None:
    """Keep the line breaks of a paragraph whose every line after the first begins like
    an item (``1、不做不重要的决定`` / ``2、做计划``), or whose every line begins like an
    item of Pandoc's fancy lists (``a.`` / ``b.``).

    Chinese writers often list this way, in editors that show each line on its own;
    Markdown joins a paragraph's lines, and the items ran into one line on both
    channels. Only such paragraphs: wrapped prose keeps being joined. A list of two or
    more such lines may be followed by lines of prose (``核心内容包括：`` / ``•\t…`` ×3 /
    ``为理解…``, as Apple Notes and Word paste it): those begin on a line of their own
    after the items and stay joined among themselves."""
    for token in state.tokens:
        if token.type != "inline" or not token.children or "\n" not in token.content:
            continue
        lines = token.content.split("\n")
        classic = [bool(_ENUMERATED.match(line)) for line in lines[1:]]
        marked = [
            known or bool(_LABELLED.match(line))
            for known, line in zip(classic, lines[1:], strict=True)
        ]
        items = next((n for n, mark in enumerate(marked) if not mark), len(marked))
        if items == 1 and not classic[0] and not _LABELLED.match(lines[0]):
            items = 0  # one label under a line of prose: prose wrapped before it
        if items == len(marked) or all(_FANCY.match(line) for line in lines):
            items = len(lines)  # every line an item
        elif items < 2 or any(marked[items:]):
            continue
        numbered = all(line.lstrip().startswith("#. ") for line in lines)
        number, line_start, breaks = 0, True, 0
        for child in token.children:
            if child.type == "softbreak":
                breaks += 1
                if breaks > items + 1:
                    continue  # prose after the items: joined as Markdown joins it
                child.type, child.tag = "hardbreak", "br"
            elif numbered and line_start and child.type == "text":
                number += 1  # Pandoc's '#.': the next number
                child.content = child.content.replace("#.", f"{number}.", 1)
            line_start = child.type == "hardbreak"


#: mdnice's sliding pictures, a paragraph of its own: ``<![a](1.png),![b](2.png)>``.
_SLIDES = pattern(r"<((?:!\[[^\]\n]*\]\([^()\n]*\)\s*,\s*)*!\[[^\]\n]*\]\([^()\n]*\))>")
_SLIDE = pattern(r"!\[[^\]\n]*\]\([^()\n]*\)")
#: mdnice's ruby: ``{喜大普奔|hē hē hē hē}``, words in Chinese or Japanese, their reading.
_RUBY = pattern(r"\{([^{}|\n]{1,40})\|([^{}|\n]{1,80})\}")


def _mdnice_marks(state: StateCore) -> None:
    """mdnice's own marks: sliding pictures (``<![a](1.png),![b](2.png)>``) are the
    pictures, one under another (the brackets and commas went out as text); a ruby
    (``{喜大普奔|hē hē hē hē}``) is its words with their reading after them in
    brackets, 喜大普奔（hē hē hē hē）, which every reader can read."""
    if "<![" not in state.src and "|" not in state.src:
        return
    for token in state.tokens:
        if token.type != "inline":
            continue
        slides = _SLIDES.fullmatch(token.content.strip())
        if slides is not None:
            token.content = "\\\n".join(m.group(0) for m in _SLIDE.finditer(slides.group(1)))
        elif "{" in token.content and "|" in token.content:
            token.content = outside_code(token.content, _rubies)


def _rubies(text: str) -> str:
    def reading(found: re.Match[str]) -> str:
        words, sounds = found.group(1).strip(), found.group(2).strip()
        return f"{words}（{sounds}）" if is_cjk(words) else found.group(0)

    return _RUBY.sub(reading, text)


#: A line of Pandoc's line block: ``| `` and the line as written (a verse, an address).
_LINE_BLOCK = pattern(r"\|(?: (.*)|)")


def _line_blocks(state: StateCore) -> None:
    """Pandoc's line blocks (every line of a paragraph begins with ``| ``) as lines:
    their bars left out, each line kept on its own, as Pandoc shows a verse or an
    address. They went out as one line with the bars in it. A line that also ends with
    ``|`` is a table's row, and leaves the paragraph alone."""
    for index, token in enumerate(state.tokens):
        if token.type != "inline" or not token.content.startswith("|") or index == 0:
            continue
        if state.tokens[index - 1].type != "paragraph_open":
            continue
        lines = _continued(token.content.split("\n"))
        found = [_LINE_BLOCK.fullmatch(line) for line in lines]
        if any(
            f is None or line.rstrip().endswith("|") for f, line in zip(found, lines, strict=True)
        ):
            continue
        kept: list[str] = []
        for line in found:
            text = (line.group(1) or "") if line else ""
            words = text.lstrip(" ")
            kept.append("\u00a0" * (len(text) - len(words)) + words)  # its indent kept
        token.content = "\\\n".join(kept)  # a backslash at a line's end: a line break


def _continued(lines: list[str]) -> list[str]:
    """A line block's lines with each line that begins with a space (Pandoc's way to
    continue a long line) joined to the one before it."""
    joined: list[str] = []
    for line in lines:
        if joined and line[:1] in (" ", "\t"):
            joined[-1] += " " + line.strip()
        else:
            joined.append(line)
    return joined


def _reparse(state: StateCore, inline: Token, content: str) -> None:
    inline.content, inline.children = content, []
    state.md.inline.parse(content, state.md, state.env, inline.children)


def _without_empty_lists(tokens: list[Token]) -> list[Token]:
    """``tokens`` without lists whose one item is empty (kramdown's ``* TOC`` once its
    marker has gone)."""
    kept: list[Token] = []
    for token in tokens:
        kept.append(token)
        if (
            token.type in ("bullet_list_close", "ordered_list_close")
            and len(kept) >= 4
            and kept[-2].type == "list_item_close"
            and kept[-3].type == "list_item_open"
            and kept[-4].type == token.type.replace("_close", "_open")
        ):
            del kept[-4:]
    return kept


def _verbatim(url: str) -> str:
    return url


#: A line holding one image, line break or rule tag and nothing else.
_VOID_TAG_LINE = pattern(r" {0,3}<(?:img|br|hr|wbr)\b[^<>]*>\s*$", re.IGNORECASE)
#: A line holding only a wrapper's opening or closing tag (``<div align="center">``,
#: Notion's ``<aside>``, ``<details>``, Feishu's ``<callout>`` and ``<quote-container>``), or
#: a ``<summary>`` and its words. ``<aside>``, ``<callout>`` and ``<details>`` are small
#: letters only: MDX's ``<Aside type="tip">`` (Starlight), ``<Callout>`` (Nextra) and
#: ``<Details summary="…">`` are components, which :func:`component_block` reads.
_WRAPPER_LINE = pattern(
    r" {0,3}(?:</?(?:div|center|(?-i:aside)|(?-i:details)|section|article|figure|p|blockquote"
    r"|(?-i:callout)|quote-container)\b[^<>]*>"
    r"|<summary\b[^<>]*>.*</summary>)\s*$",
    re.IGNORECASE,
)


#: A paragraph's or a block's opening tag, over which a page lays its HTML out indented.
_LAID_OUT = pattern(r" {0,3}<(?:p|div|center|section)\b[^<>]*>\s*$", re.IGNORECASE)
_HTML_TAG = pattern(r"</?[A-Za-z][A-Za-z0-9-]*\b[^<>]*>")


def _lone_tag_line(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A line of one ``<img …>`` (Typora writes one when an image is resized) or ``<br>``
    is a raw HTML block by itself, not the start of one that runs to the next blank line:
    CommonMark's block took ``### 反向代理`` on the line below as raw text, and both
    channels showed the hashes, where Typora and Obsidian show a heading.

    So is a line of a wrapper's tag alone when Markdown follows it (``<div
    align="center">`` over ``![图](a.png)``, Notion's ``<aside>`` around a callout's
    words, ``<details>`` around a list): the picture went out as the words ``![图](a.png)``
    and the list as one line, where Typora, Notion and most editors read the Markdown. A
    wrapper followed by HTML stays CommonMark's block of HTML."""
    if not state.md.options.get("html") or state.sCount[start] - state.blkIndent >= 4:
        return False
    begin, finish = state.bMarks[start] + state.tShift[start], state.eMarks[start]
    line = state.src[begin:finish]
    if not line.startswith("<"):
        return False
    if start + 1 >= end or state.isEmpty(start + 1):
        return False  # CommonMark's block is this one line already
    if not _VOID_TAG_LINE.match(line):
        if not _WRAPPER_LINE.match(line) or "markdown" in line.lower():
            return False
        below = state.bMarks[start + 1] + state.tShift[start + 1]
        following = state.src[below : state.eMarks[start + 1]]
        if following.startswith("<") and not _WRAPPER_LINE.match(following):
            return False
        indented = state.sCount[start + 1] - state.blkIndent >= 4
        if indented and _LAID_OUT.match(line) and _HTML_TAG.search(following):
            return False  # HTML laid out under its paragraph (HelloGitHub's footer)
    if silent:
        return True
    state.line = start + 1
    token = state.push("html_block", "", 0)
    token.map = [start, state.line]
    token.content = state.getLines(start, state.line, state.blkIndent, True)
    return True


#: LaTeX's display-math environments, which Jupyter Book, MyST and MathJax pages write
#: without ``$$`` around them.
MATH_ENVIRONMENT = pattern(
    r"\\begin\{((?:equation|align|alignat|gather|multline|flalign|eqnarray|displaymath)\*?)\}"
)


def _math_environment(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A line opening with ``\\begin{equation}`` (``align``, ``gather``… and their
    starred forms), to the line that ends it, is a display formula, as MathJax reads it:
    both channels showed its TeX as words (a Jupyter Book chapter held nine). Interrupts
    a paragraph, as MathJax finds it inside one."""
    if state.sCount[start] - state.blkIndent >= 4:
        return False
    begin = state.bMarks[start] + state.tShift[start]
    opened = MATH_ENVIRONMENT.match(state.src, begin, state.eMarks[start])
    if opened is None:
        return False
    closing = f"\\end{{{opened.group(1)}}}"
    last = start
    while last < end and closing not in state.src[state.bMarks[last] : state.eMarks[last]]:
        last += 1
    if last >= end:
        return False  # never ended: words, as written (check names the line)
    if silent:
        return True
    token = state.push("math_block", "math", 0)
    token.block = True
    token.content = state.getLines(start, last + 1, state.blkIndent, True)
    token.markup = "$$"
    token.map = [start, last + 1]
    state.line = last + 1
    return True


#: Where the depth of the footnote definitions being read is kept.
_NOTE_DEPTH = "crosspost_note_depth"


def _outermost_only(
    define: Callable[[StateBlock, int, int, bool], bool],
) -> Callable[[StateBlock, int, int, bool], bool]:
    """The footnote plugin's definition rule, refusing a definition inside another
    (``[^1]: - [^2]: x``, or indented under it): the plugin moved the inner one's tokens
    out of the outer's and left a list's closing tokens with no opening, and both
    renderers stopped on them. Inside a note the line reads as its words."""

    def rule(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        if state.env.get(_NOTE_DEPTH) and state.sCount[start] >= state.blkIndent:
            return False  # within the note's own lines (one less indented ends the note)
        state.env[_NOTE_DEPTH] = 1
        try:
            return define(state, start, end, silent)
        finally:
            state.env[_NOTE_DEPTH] = 0

    return rule


def new_markdown() -> MarkdownIt:
    """A parser for the issue dialect. Raw HTML is allowed (renderers sanitise it).

    Formulas are parsed for every channel, so one token stream serves them all: Zhihu
    shows them as equation images, WeChat as inline SVG. The dollar rules are strict,
    so prices such as "$5 and $10" stay text; ``\\(…\\)`` and ``\\[…\\]`` come out as
    the same ``math_inline``/``math_block`` tokens. Task items carry ``meta["checked"]``
    on their ``list_item_open`` (markdown-it's own task lists). Link and
    image targets are kept as the author wrote them (markdown-it would percent-encode
    non-ASCII ones): image sources are the keys the publisher swaps for uploaded URLs,
    and lint names each image as the issue does.
    """
    md = MarkdownIt(
        "commonmark", {"html": True, "typographer": False, "alerts": True, "tasklists": True}
    )
    md.enable(["table", "strikethrough"])
    md.options["maxNesting"] = MAX_NESTING
    md.inline.ruler.before("image", "sized_image", sized_image)
    md.inline.ruler.before("link", "wiki_link", wiki_link)
    md.inline.ruler.before("emphasis", "mailchimp_tag", mailchimp_tag)
    md.block.ruler.before("html_block", "lone_tag_line", _lone_tag_line)
    md.block.ruler.before(
        "lone_tag_line",
        "markdown_block",
        markdown_block,
        {"alt": ["paragraph", "reference", "blockquote"]},
    )
    md.block.ruler.before(
        "lone_tag_line",
        "feishu_block",
        feishu_block,
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
    md.block.ruler.before(
        "fence",
        "zola_body_shortcode",
        body_shortcode,
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
    md.block.ruler.before(
        "fence",
        "template_block",
        template_block,
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
    md.block.ruler.before(
        "fence", "org_block", org_block, {"alt": ["paragraph", "reference", "blockquote", "list"]}
    )
    md.block.ruler.before(
        "fence",
        "shortcode_block",
        shortcode_block,
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
    md.block.ruler.before("fence", "next_tab", next_tab)
    md.block.ruler.before(
        "table", "grid_table", grid_table, {"alt": ["paragraph", "reference", "blockquote"]}
    )
    md.block.ruler.before("table", "simple_table", simple_table)
    md.block.ruler.before("paragraph", "content_block", content_block, {"alt": ["paragraph"]})
    md.block.ruler.before("paragraph", "snippet_block", snippet_block, {"alt": ["paragraph"]})
    md.block.ruler.before("paragraph", "rst_block", rst_block)
    md.block.ruler.before("heading", "asciidoc_block", asciidoc_block)
    md.block.ruler.before(
        "simple_table", "multiline_table", multiline_table, {"alt": ["paragraph"]}
    )
    md.block.ruler.before(
        "fence", "code_shortcode", code_shortcode, {"alt": ["paragraph", "blockquote", "list"]}
    )
    md.block.ruler.before("html_block", "component_block", component_block, {"alt": ["paragraph"]})
    md.block.ruler.before("html_block", "mdx_statement", mdx_statement)
    md.block.ruler.before("fence", "mkdocs_tab", mkdocs_tab)
    md.block.ruler.before(
        "fence", "math_environment", _math_environment, {"alt": ["paragraph", "blockquote", "list"]}
    )
    md.inline.ruler.after("strikethrough", "highlight", _highlight)
    md.inline.ruler.after("highlight", "inserted", _inserted)
    md.inline.ruler.after("inserted", "caret_inserted", _caret_inserted)
    md.inline.ruler.before("caret_inserted", "inserted_superscript", _inserted_superscript)
    md.inline.ruler2.after("strikethrough", "highlight", _highlight_pairs)
    for name in ("emphasis", "strikethrough", "highlight", "inserted", "caret_inserted"):
        rule = next(rule.fn for rule in md.inline.ruler.__rules__ if rule.name == name)
        md.inline.ruler.at(name, _cjk_friendly(rule))
    md.use(footnote_plugin)
    note = next(rule.fn for rule in md.block.ruler.__rules__ if rule.name == "footnote_def")
    md.block.ruler.at("footnote_def", _outermost_only(note), {"alt": ["paragraph", "reference"]})
    md.use(deflist_plugin)
    definitions = next(rule.fn for rule in md.block.ruler.__rules__ if rule.name == "deflist")
    md.block.ruler.at(
        "deflist",
        _colon_definitions(definitions),
        {"alt": ["paragraph", "reference", "blockquote"]},
    )
    md.use(admon_plugin)
    admonition = next(rule.fn for rule in md.block.ruler.__rules__ if rule.name == "admonition")
    md.block.ruler.at("admonition", _known_admonitions(admonition))
    md.use(container_plugin, name="only", validate=_validate_only)
    md.use(container_plugin, name="callout", validate=_validate_callout)
    md.use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True)
    md.use(myst_role_plugin)
    role = next(rule.fn for rule in md.inline.ruler.__rules__ if rule.name == "myst_role")
    md.inline.ruler.at("myst_role", _role_ahead(role))
    md.use(sub_plugin).use(superscript_plugin)
    # "…as follows:" and a $$ line under it: a display formula, as MathJax and Typora show
    # it; the plugin's rule could not end a paragraph, and its TeX ran into the words.
    display = next(rule.fn for rule in md.block.ruler.__rules__ if rule.name == "math_block")
    md.block.ruler.at(
        "math_block",
        _closed_at_a_line_end(_side_effect_free(display)),
        {"alt": ["paragraph", "blockquote", "list"]},
    )
    dollars = next(rule.fn for rule in md.inline.ruler.__rules__ if rule.name == "math_inline")
    md.inline.ruler.at("math_inline", _not_before_a_word(dollars))
    _use_bracket_math(md)
    # The rules that rewrite the source before the block parse, in the order they run.
    source_rules: tuple[tuple[str, Callable[[StateCore], None]], ...] = (
        ("model_reasoning", model_reasoning),
        ("wide_spaces", wide_spaces),
        ("svg_pictures", svg_pictures),
        ("fullwidth_links", fullwidth_links),
        ("tracked_changes", tracked_changes),
        ("mammoth_footnotes", mammoth_footnotes),
        ("zhihu_redirects", zhihu_redirects),
        ("page_breaks", _page_breaks),
        ("drop_unshowable", _drop_unshowable),
        ("mdx_pictures", mdx_pictures),
    )
    previous = "normalize"
    for name, rewrite in source_rules:
        md.core.ruler.after(previous, name, rewrite)
        previous = name
    md.inline.ruler.before("html_inline", "zhihu_reference", zhihu_reference)
    md.core.ruler.after("drop_unshowable", "drop_ai_citations", drop_ai_citations)
    md.core.ruler.after("drop_ai_citations", "equation_labels", _equation_labels)
    md.core.ruler.after("equation_labels", "bracket_display_lines", _bracket_display_lines)
    md.core.ruler.after("bracket_display_lines", "converter_wraps", _converter_wraps)
    md.core.ruler.after("converter_wraps", "deep_headings", _deep_headings)
    md.core.ruler.after("deep_headings", "lazy_alert_lines", _lazy_alert_lines)
    md.core.ruler.after("lazy_alert_lines", "unbroken_styles", _unbroken_styles)
    md.core.ruler.after("unbroken_styles", "nested_divs", _nested_divs)
    md.core.ruler.after("nested_divs", "kramdown_extensions", kramdown_extensions)
    md.core.ruler.after("kramdown_extensions", "admonition_gaps", _admonition_gaps)
    md.core.ruler.after("admonition_gaps", "notion_icons", notion_icons)
    md.core.ruler.after("block", "notion_properties", notion_properties)
    md.core.ruler.after("block", "org_emptied", org_emptied)
    md.core.ruler.after("block", "table_attribute_rows", table_attribute_rows)
    md.core.ruler.after("block", "wechat_cards", wechat_cards)
    md.core.ruler.after("wechat_cards", "wechat_page_text", wechat_page_text)
    md.core.ruler.push("flatten_deep", _flatten_deep)
    md.core.ruler.after("footnote_tail", "mail_links", mail_links)
    md.core.ruler.after("block", "myst_callouts", _myst_callouts)
    md.core.ruler.after("block", "indented_html", _indented_html)
    md.core.ruler.after("myst_callouts", "raw_code_blocks", _raw_code_blocks)
    md.core.ruler.after("raw_code_blocks", "chunk_options", _chunk_options)
    md.core.ruler.after("raw_code_blocks", "split_elements", _split_elements)
    md.core.ruler.after("chunk_options", "fence_languages", _fence_languages)
    md.core.ruler.after("fence_languages", "docsify_notes", _docsify_notes)
    md.core.ruler.after("fence_languages", "code_annotations", code_annotations)
    md.core.ruler.before("inline", "empty_headings", _empty_headings)
    md.core.ruler.before("empty_headings", "empty_anchors", empty_anchors)
    md.core.ruler.before("inline", "csdn_pictures", csdn_pictures)
    md.core.ruler.before("inline", "spaced_paths", _spaced_paths)
    md.core.ruler.before("inline", "keys", _keys)
    md.core.ruler.before("inline", "line_blocks", _line_blocks)
    md.core.ruler.before("inline", "mdnice_marks", _mdnice_marks)
    md.core.ruler.before("inline", "logseq_pages", logseq_pages)
    md.core.ruler.before("inline", "task_states", task_states)
    md.core.ruler.before("inline", "roam_export", roam_export)
    md.core.ruler.before("inline", "template_tags", template_tags)
    md.core.ruler.before("inline", "bear_attachments", bear_attachments)
    md.core.ruler.before("inline", "snippet_fences", snippet_fences)
    md.core.ruler.before("inline", "quote_tags", quote_tags)
    md.core.ruler.before("inline", "mkdocs_icons", mkdocs_icons)
    md.core.ruler.before("inline", "chat_marks", chat_marks)
    md.core.ruler.before("inline", "rst_links", rst_links)
    md.core.ruler.before("inline", "asciidoc_links", asciidoc_links)
    md.core.ruler.before("inline", "bear_highlights", bear_highlights)
    md.core.ruler.before("inline", "bear_tags", bear_tags)
    md.core.ruler.before("inline", "wordpress_shortcodes", wordpress_shortcodes)
    md.core.ruler.before("inline", "video_pictures", video_pictures)
    md.core.ruler.before("inline", "hugo_shortcodes", hugo_shortcodes)
    md.core.ruler.before("inline", "directives", directives)
    md.core.ruler.before("inline", "zola_calls", calls)
    md.core.ruler.before("inline", "mdx_lines", mdx_lines)
    md.core.ruler.before("inline", "private_notes", private_notes)
    md.core.ruler.before("private_notes", "ulysses_marks", ulysses_marks)
    md.core.ruler.before("inline", "myst_targets", targets_and_labels)
    md.core.ruler.before("inline", "substack_footnotes", substack_footnotes)
    md.core.ruler.after("inline", "myst_roles", roles)
    md.core.ruler.after("myst_roles", "wordless_links", wordless_links)
    md.core.ruler.before("wordless_links", "lightbox_links", lightbox_links)
    md.core.ruler.after("wordless_links", "yuque_formulas", yuque_formulas)
    md.core.ruler.after("yuque_formulas", "zhihu_formulas", zhihu_formulas)
    md.core.ruler.after("zhihu_formulas", "empty_formulas", _empty_formulas)
    md.core.ruler.after("myst_roles", "scripts", _scripts)
    md.core.ruler.after("scripts", "roam_italics", roam_italics)
    md.core.ruler.after("scripts", "lazy_images", _lazy_images)
    md.core.ruler.after("lazy_images", "markdown_in_wrapped_lines", _markdown_in_wrapped_lines)
    md.core.ruler.after("lazy_images", "anchor_numbers", _anchor_numbers)
    md.core.ruler.after("scripts", "escaped_braces", _escaped_braces)
    md.core.ruler.push("callouts", _callouts)
    md.core.ruler.push("close_hidden_content", _close_hidden_content)
    md.core.ruler.push("site_directives", _site_directives)
    md.core.ruler.push("span_attributes", span_attributes)
    md.core.ruler.push("sizes_in_alt", sizes_in_alt)
    md.core.ruler.push("tracking_pixels", tracking_pixels)
    md.core.ruler.push("figure_captions", figure_captions)
    md.core.ruler.push("enumerated_lines", _enumerated_lines)
    md.core.ruler.push("table_captions", table_captions)
    md.core.ruler.push("definition_lists", definition_lists)
    md.core.ruler.push("shortcodes", shortcodes)
    md.core.ruler.push("bare_links", bare_links)
    md.core.ruler.push("schemeless_addresses", schemeless_addresses)
    # The rules above that read a line's Markdown again (a heading's attributes taken
    # off, an alert's title) run after markdown-it joined its escapes into the text:
    # joined once more, no renderer meets a ``text_special`` (Zhihu's stopped on one).
    md.core.ruler.push("text_join_again", text_join)
    md.use(script_links_plugin)
    md.use(accept_svg_addresses)
    md.core.ruler.before("drop_ai_citations", "kimi_notes", kimi_notes)
    md.core.ruler.after("script_links", "citation_links", citation_links)
    md.normalizeLink = _verbatim  # type: ignore[method-assign]
    return md


@functools.cache
def _markdown() -> MarkdownIt:
    """The process's one parser (built once: setting up the rules costs more than a parse)."""
    return new_markdown()


#: A code fence's file name: Docusaurus's ``title="…"`` (also ``filename=``, ``file=``)
#: or VitePress's ``[name]`` after the language.
_CODE_TITLE = pattern(
    r"""(?:^|\s)(?:title|filename|file)=(?:"([^"]*)"|'([^']*)'|(\S+))|^\S*\s+\[([^\]]+)\]"""
)


def code_title(info: str) -> str:
    """The file name a code fence's info string gives its code (``""``: none). Both
    channels show it above the code: it is often the only place a post says which file
    a snippet belongs to."""
    found = _CODE_TITLE.search(info.strip())
    return next((part.strip() for part in found.groups() if part), "") if found else ""


def only_channel(token: Token) -> str:
    """The channel an ``only`` container opening token names."""
    match = ONLY_MARKER.match(token.info.strip())
    return match.group(1) if match else ""


@dataclass(frozen=True, eq=False)  # equal by identity: tokens are not values
class Document:
    """An issue body parsed once: the token stream every stage reads.

    ``tokens`` is shared by everyone holding the document, so nothing may change it;
    readers (the loader, lint) walk it as it is, and a renderer, whose rules may rewrite
    tokens, takes its own copy with :meth:`for_channel`.
    """

    body: str
    tokens: tuple[Token, ...]
    #: Lines the dialect left out that the editor may have meant to show (a table of
    #: contents marker): (0-based body line, what was written).
    left_out: tuple[tuple[int, str], ...] = ()
    #: The ``:::`` lines (0-based) of grouping containers shown as their content alone.
    grouped: tuple[tuple[int, int], ...] = ()
    #: Tracking pixels left out: (0-based body line, the picture's address, why).
    pixels: tuple[tuple[int, str, str], ...] = ()
    #: What other rules of the dialect read in another tool's way, for check to name:
    #: (0-based body line, a code, the message), such as a content block shown.
    notes: tuple[tuple[int, str, str], ...] = ()

    def for_channel(self, channel: str) -> list[Token]:
        """A fresh copy of the tokens as ``channel`` sees them (see :func:`only_for`)."""
        return [copy_token(token) for token in only_for(self.tokens, channel)]


@functools.lru_cache(maxsize=16)
def parse_document(body: str, attachments: tuple[Attachment, ...] = ()) -> Document:
    """The :class:`Document` of ``body``, parsed on first use and kept for the process.

    Keyed by the text (and the files beside the issue it names, which the loader found:
    ``attachments``), so every stage that holds the same body (the loader, lint, each
    renderer; an issue loaded twice) shares one parse. A handful are kept: a run over
    many issues holds a few bodies at a time, never all of them.
    """
    env: dict[str, Any] = {ATTACHED: Attached(attachments)} if attachments else {}
    with collector_paused():  # a long body is many tokens at once (see the module)
        tokens = tuple(_markdown().parse(body, env))
    return Document(
        body,
        tokens,
        tuple(env.get(LEFT_OUT, ())),
        tuple(env.get(GROUPED, ())),
        tuple(env.get(PIXELS, ())),
        tuple(env.get(NOTES, ())),
    )


def parse(body: str, channel: str, md: MarkdownIt | None = None) -> list[Token]:
    """Tokens of ``body`` parsed by ``md`` (default: the dialect) as ``channel`` sees it.

    A fresh parse every call; the stages of crosspost share :func:`parse_document`.
    """
    return only_for((md or new_markdown()).parse(body), channel)


def only_for(tokens: Iterable[Token], channel: str) -> list[Token]:
    """``tokens`` as ``channel`` sees them: other channels' ``only`` blocks removed, this
    channel's unwrapped."""
    kept: list[Token] = []
    skipping = 0
    for token in tokens:
        if token.type == "container_only_open":
            if skipping or only_channel(token) != channel:
                skipping += 1
            continue
        if token.type == "container_only_close":
            if skipping:
                skipping -= 1
            continue
        if not skipping:
            kept.append(token)
    return kept


def tokens_after(tokens: Sequence[Token], idx: int) -> Iterator[Token]:
    """The tokens after ``tokens[idx]``, in order, for a walk that stops early (at a
    link's close, a list's end). By index: a slice copies every token to the end of the
    document or line at each call, and a walk per link or per list then takes time in
    the square of their number."""
    for index in range(idx + 1, len(tokens)):
        yield tokens[index]


def join_softbreak(tokens: Sequence[Token], idx: int) -> str:
    """What a soft line break at ``tokens[idx]`` becomes: nothing between two CJK
    characters (a space would show there), else a space.

    The neighbours are the nearest tokens that carry text, so a break right after
    ``**粗体**`` looks past the closing ``</b>`` token to the last character written.
    """
    # Indexes, not slices: a slice copies the line's tokens at every break, and a
    # paragraph of many lines would take time in the square of their number.
    before = next((tokens[i].content[-1:] for i in range(idx - 1, -1, -1) if tokens[i].content), "")
    after = next(
        (tokens[i].content[:1] for i in range(idx + 1, len(tokens)) if tokens[i].content), ""
    )
    return "" if is_cjk(before) and is_cjk(after) else " "


def drop_title_heading(tokens: list[Token], titles: Iterable[str]) -> list[Token]:
    """``tokens`` without a leading ``# heading`` that repeats the title.

    The title is a separate field on every platform; a body that opens with it as its
    first heading would show it twice (VSCode-Zhihu's convention, specs §7.1).
    """
    wanted = {title.strip() for title in titles}
    if (
        len(tokens) >= 3
        and tokens[0].type == "heading_open"
        and tokens[0].tag == "h1"
        and tokens[1].content.strip() in wanted
    ):
        return tokens[3:]
    return tokens
