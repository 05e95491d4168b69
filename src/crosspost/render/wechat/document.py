"""The WeChat renderer: an issue as the HTML a WeChat Official Account article accepts.

Five steps: markdown-it rules (:mod:`.rules`) write the body, the Jinja2 template
``wechat/article.html.j2`` lays out the article (one root ``<section>``, notes,
references), css-inline inlines the theme's CSS into ``style=""`` attributes, a pass over
the lxml tree removes what WeChat refuses or turns into gaps (classes, ids, external
links, newlines between tags), and :mod:`.lean` leaves out every declaration that changes
nothing, since WeChat counts the whole HTML against its size limit.

The platform's limits are its declaration's (:mod:`crosspost.platforms.wechat`).
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import css_inline
import lxml.html
from lxml import etree
from markdown_it.token import Token
from markupsafe import Markup

from crosspost.errors import UsageError
from crosspost.issue.dialect import drop_title_heading, is_cjk
from crosspost.issue.model import Issue
from crosspost.patterns import pattern
from crosspost.platforms.base import Limits
from crosspost.platforms.wechat import WECHAT
from crosspost.render.prepare import as_every_channel_reads
from crosspost.render.rendered import RenderContext, Rendered
from crosspost.render.sections import heading_levels, section_level
from crosspost.render.templates import read_shared, read_theme, render_template
from crosspost.render.wechat.cells import mark_cells
from crosspost.render.wechat.lean import lean_styles
from crosspost.render.wechat.raw import is_mp_link
from crosspost.render.wechat.rules import RenderState, render_body

# --- the platform's numbers (crosspost.platforms.wechat declares its limits) ---------

#: Width of WeChat's article column; wider images and tables scroll or shrink.
CONTENT_WIDTH_PX = 677


def content_size(body: str) -> tuple[int, int]:
    """(characters, UTF-8 bytes) of an article body, as WeChat counts them: the whole
    HTML string, tags and attributes included."""
    return len(body), len(body.encode("utf-8"))


def content_fits(body: str, limits: Limits = WECHAT.limits) -> bool:
    """Whether WeChat accepts a body of this size (else draft/add fails with 45002).

    Both limits are exclusive: a body must be *shorter* than them.
    """
    chars, size = content_size(body)
    fits_chars = limits.content_chars is None or chars < limits.content_chars
    return fits_chars and (limits.content_bytes is None or size < limits.content_bytes)


# --- themes -----------------------------------------------------------------------

_ROOT_BLOCK = pattern(r":root\s*\{([^}]*)\}")
_CUSTOM_PROPERTY = pattern(r"(--[\w-]+)\s*:\s*([^;]+);?")
_VAR = pattern(r"var\(\s*(--[\w-]+)\s*(?:,\s*([^()]*))?\)")
_CODE_STYLE = pattern(r"pygments-style\s*:\s*([\w-]+)")
DEFAULT_CODE_STYLE = "friendly"


@dataclass(frozen=True)
class Theme:
    """A WeChat theme ready to inline: CSS with variables resolved, and its code colours."""

    name: str
    css: str
    code_style: str


def resolve_css_variables(css: str) -> str:
    """Replace ``var(--x)`` with the values declared in ``:root {}`` and drop the
    declarations: WeChat keeps no stylesheet, so a variable would stay unresolved."""
    values: dict[str, str] = {}
    for block in _ROOT_BLOCK.findall(css):
        values.update((name, value.strip()) for name, value in _CUSTOM_PROPERTY.findall(block))
    css = _ROOT_BLOCK.sub("", css)
    for _ in range(8):  # variables may refer to variables; a few rounds resolve any sane theme
        resolved = _VAR.sub(lambda m: values.get(m.group(1), (m.group(2) or "").strip()), css)
        if resolved == css:
            break
        css = resolved
    return css


@functools.lru_cache(maxsize=16)
def _build_theme(name: str, base: str, css: str) -> Theme:
    style = _CODE_STYLE.search(css)
    code_style = style.group(1) if style else DEFAULT_CODE_STYLE
    # Every Pygments has the default style; looking it up would load Pygments (~3 ms of
    # each ``check``) for an issue that may have no code block at all.
    if code_style != DEFAULT_CODE_STYLE:
        _require_code_style(name, code_style)
    return Theme(name, resolve_css_variables(base + "\n" + css), code_style)


def _require_code_style(theme: str, code_style: str) -> None:
    """A :class:`UsageError` unless Pygments has ``code_style``, which ``theme`` names."""
    from pygments.styles import get_all_styles, get_style_by_name
    from pygments.util import ClassNotFound

    try:
        # By name, not in the list of every style: listing them reads the entry points
        # of every installed distribution (plugins), on each start of an interactive command.
        get_style_by_name(code_style)
    except ClassNotFound:
        raise UsageError(
            f"WeChat theme {theme!r} names code style {code_style!r}, which Pygments does not "
            f"have; use one of: {', '.join(sorted(get_all_styles()))}"
        ) from None


def load_theme(name: str, template_dirs: Iterable[Path | str] = ()) -> Theme:
    """Theme ``name`` laid over ``wechat/base.css`` (the structural rules every theme needs)."""
    dirs = tuple(template_dirs)
    base = read_shared("wechat/base.css", dirs)
    return _build_theme(name, base, read_theme(name, dirs, "wechat"))


_KEPT_SRC = "data-crosspost-src"


@functools.cache
def _inliner() -> css_inline.CSSInliner:
    """css-inline set up for a theme: no stylesheet is fetched and none is kept, since
    WeChat keeps no ``<style>``; rules that cannot be inlined (``@media``, ``:hover``)
    are left out, and width and height stay CSS rather than becoming attributes."""
    return css_inline.CSSInliner(
        inline_style_tags=True,
        keep_style_tags=False,
        keep_link_tags=False,
        keep_at_rules=False,
        load_remote_stylesheets=False,
        apply_width_attributes=False,
        apply_height_attributes=False,
    )


def inline_theme(root: lxml.html.HtmlElement, css: str) -> lxml.html.HtmlElement:
    """``root`` with the theme's CSS written into each element's ``style`` attribute, in
    the cascade's order: specificity, then source order, ``!important`` first, and an
    element's own ``style`` over any rule without ``!important``.

    css-inline works on HTML text, so the tree goes out and comes back in; it parses as
    a browser does (a table gets its ``<tbody>``), which is what the fidelity tests
    compare against. An image's ``src`` crosses under another name, since lxml's writer
    percent-encodes it and the publisher needs it as the issue wrote it.
    """
    _rename(root, "img", "src", _KEPT_SRC)
    page = lxml.html.tostring(root, encoding="unicode", with_tail=False)
    inlined = _root_section(_inliner().inline_fragment(page, css))
    _rename(inlined, "img", _KEPT_SRC, "src")
    return inlined


def _rename(root: lxml.html.HtmlElement, tag: str, old: str, new: str) -> None:
    for element in root.iter(tag):
        if old in element.attrib:
            element.set(new, element.attrib.pop(old))


# --- the clean-up after inlining ----------------------------------------------------

BLOCK_TAGS = frozenset(
    {
        "section", "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote",
        "pre", "table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption", "figure",
        "figcaption", "hr", "br", "details", "summary", "dl", "dt", "dd", "svg",
    }
)  # fmt: skip
# ``br`` is not a block, but a browser drops the whitespace at the start and end of a
# line all the same, so it is listed. ``img`` is inline: the space beside it is a word gap.
_FORBIDDEN = ("script", "style", "iframe", "form", "object", "embed", "link", "meta")
# HTML whitespace only: a no-break space (\xa0) is content (guards, list markers).
_EDGE_START = pattern(r"^[ \t\r\n\f]+")
_EDGE_END = pattern(r"[ \t\r\n\f]+$")
_NEWLINE_RUN = pattern(r"[ \t\r\f]*\n[ \t\r\n\f]*")
_STYLE_GAP = pattern(r"\s*;\s*")
_SRC = pattern(f' {_KEPT_SRC}="([^"]*)"')


def _is_block(element: object) -> bool:
    return isinstance(element, etree._Element) and element.tag in BLOCK_TAGS


def _squash(text: str, drop_start: bool, drop_end: bool) -> str:
    """Whitespace out of a text node: next to a block tag it vanishes (WeChat would show
    a gap for a newline); a newline inside text becomes a space, or nothing between CJK."""
    if drop_start:
        text = _EDGE_START.sub("", text)
    if drop_end:
        text = _EDGE_END.sub("", text)
    if "\n" not in text:
        return text

    def join(match: re.Match[str]) -> str:
        before, after = text[match.start() - 1 : match.start()], text[match.end() :][:1]
        return "" if is_cjk(before) and is_cjk(after) else " "

    return _NEWLINE_RUN.sub(join, text)


#: The name an element to unwrap (its content kept in its place) takes until all go.
_UNWRAPPED = "crosspost-unwrapped"


def clean_tree(root: lxml.html.HtmlElement) -> None:
    """Remove what WeChat refuses, spans left without attributes, and whitespace between
    block tags, in place."""
    etree.strip_elements(root, etree.Comment, *_FORBIDDEN, with_tail=False)
    for element in list(root.iter()):
        for name in list(element.attrib):
            if name in ("class", "id") or name.startswith("on"):
                del element.attrib[name]
        style = element.get("style")
        if style:
            # Every character counts against WeChat's 20,000; font names in single quotes
            # keep the attribute itself in double quotes.
            element.set("style", _STYLE_GAP.sub(";", style).replace('"', "'"))
        if element.tag == "a" and not is_mp_link(element.get("href", "")):
            element.tag = _UNWRAPPED  # a last guard; the rules already footnoted them
        elif element.tag == "span" and not element.attrib:
            # A theme's hook it did not style (a reference's number): a browser shows a
            # bare <span> exactly as its content alone.
            element.tag = _UNWRAPPED
    # All at once: lxml's drop_tag looks its element up among its siblings, so dropping
    # one a link took time in the square of a paragraph's links (8,000: 6 s).
    etree.strip_tags(root, _UNWRAPPED)
    for element in root.iter():
        if element.text:
            first = element[0] if len(element) else None
            element.text = _squash(
                element.text,
                drop_start=_is_block(element),
                drop_end=_is_block(first) if first is not None else _is_block(element),
            )
        if element.tail and element is not root:
            following = element.getnext()
            parent = element.getparent()
            element.tail = _squash(
                element.tail,
                drop_start=_is_block(element),
                drop_end=_is_block(following) if following is not None else _is_block(parent),
            )


def _root_section(page: str) -> lxml.html.HtmlElement:
    """The article's one root ``<section>`` (everything is wrapped in one if a template
    produced several roots)."""
    document = lxml.html.document_fromstring(f"<html><body>{page}</body></html>")
    body = document.find("body")
    assert body is not None  # the document above always has one
    children = [child for child in body if isinstance(child.tag, str)]
    if len(children) == 1 and children[0].tag == "section" and not (body.text or "").strip():
        return children[0]
    wrapper = lxml.html.Element("section", {"class": "article"})  # the theme's root rules
    wrapper.text, body.text = body.text, None
    for child in list(body):
        wrapper.append(child)
    body.append(wrapper)
    return wrapper


def _serialise(root: lxml.html.HtmlElement, state: RenderState) -> tuple[str, list[str]]:
    """The body as one line of HTML, and every image source in it in order."""
    images = [image.attrib["src"] for image in root.iter("img") if "src" in image.attrib]
    _rename(root, "img", "src", _KEPT_SRC)  # as in inline_theme: lxml would percent-encode it
    out = lxml.html.tostring(root, encoding="unicode", with_tail=False)
    out = _SRC.sub(lambda m: f' src="{html.escape(html.unescape(m.group(1)))}"', out)
    out = _with_code(out, state)
    return out.replace("\xa0", "&nbsp;").replace("\r", "").replace("\n", " "), images


def _with_code(out: str, state: RenderState) -> str:
    """Each code block's placeholder (``<marker><index>x``) replaced by its HTML, in one
    pass over the article: a replace per block would copy the whole string once per code
    block, and a long issue has hundreds."""
    if not state.code_blocks:
        return out
    blocks = state.code_blocks

    def block(match: re.Match[str]) -> str:
        index = int(match.group(1))
        return blocks[index] if index < len(blocks) else match.group(0)

    return re.sub(re.escape(state.placeholder) + r"(\d+)x", block, out)


# --- render -----------------------------------------------------------------------


def _placeholder(body: str) -> str:
    """A marker for code blocks that cannot occur in the issue's own text."""
    marker, round_ = "crosspostcode", 0
    while marker in body:
        round_ += 1
        marker = f"crosspostcode{round_}q"
    return marker


#: A number the writer bracketed by hand (``[3]``, ``【3】``), not a link's own ``[3]:``.
_WRITTEN_NUMBER = pattern(r"[\[【]([1-9][0-9]{0,2})[\]】](?![:(\[])")
#: A line that starts with one: the writer's own list of references.
_WRITTEN_ENTRY = pattern(r"^[ \t]*(?:[-*+][ \t]+)?[\[【][1-9][0-9]{0,2}[\]】](?![:(\[])", re.M)


def _written_numbers(tokens: Iterable[Token]) -> int:
    """The highest number of the writer's own reference list, or 0 when there is none.

    A writer who cites ``[1]`` in the text and lists ``[1] Vaswani et al.`` under it has
    numbered their references already; the link references this render adds start after
    them, so the article never has two different ``[1]``. Code is not read."""
    texts = [t.content for t in tokens if t.type == "inline"]
    if not any(_WRITTEN_ENTRY.search(text) for text in texts):
        return 0
    return max(int(n) for text in texts for n in _WRITTEN_NUMBER.findall(text))


def _article(
    issue: Issue, context: RenderContext
) -> tuple[lxml.html.HtmlElement, RenderState, Theme]:
    """The article's root ``<section>`` as the template wrote it, classes and all, before
    the theme is inlined; with the render state (code blocks) and the theme."""
    settings = issue.settings("wechat")
    theme = load_theme(context.theme, context.template_dirs)
    tokens = issue.document.for_channel("wechat")
    as_every_channel_reads(tokens)
    state = RenderState(
        code_style=theme.code_style,
        placeholder=_placeholder(issue.body),
        counter=_written_numbers(tokens),
    )
    body = drop_title_heading(tokens, (settings.title, issue.title))
    content, notes = render_body(body, state)
    previous = [
        {
            "id": item.id,
            "title": item.title,
            "url": item.url if is_mp_link(item.url or "") else None,
        }
        for item in context.previous
    ]
    page = render_template(
        "wechat/article.html.j2",
        context.template_dirs,
        content=Markup(content),
        notes=[{"number": note.number, "html": Markup(note.html)} for note in notes],
        references=state.references,
        previous=previous,
        # 往期回顾 is a section like the body's own: at the level of its top sections.
        previous_level=section_level(heading_levels(body)),
        settings=settings,
        issue=issue,
    )
    root = _root_section(page)
    mark_cells(root)
    return root, state, theme


def styled_document(issue: Issue, context: RenderContext) -> str:
    """The themed article as a browser sees it before inlining: a whole HTML page with the
    theme's stylesheet in a ``<style>`` and the classes still on the elements.

    This is the look the theme means; the fidelity tests load it and :func:`render`'s
    output side by side in Chromium and require every computed style to match.
    """
    root, state, theme = _article(issue, context)
    out = _with_code(lxml.html.tostring(root, encoding="unicode", with_tail=False), state)
    css = theme.css.replace("</", "<\\/")
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        f"<style>{css}</style></head><body>{out}</body></html>"
    )


def render(issue: Issue, context: RenderContext) -> Rendered:
    """Render ``issue`` for WeChat: files ``{"wechat.html": body}``.

    The signature is :class:`~crosspost.render.Renderer`'s, like every channel's;
    ``crosspost.render.render`` supplies a default context.
    """
    settings = issue.settings("wechat")
    root, state, theme = _article(issue, context)
    root = inline_theme(root, theme.css)
    clean_tree(root)
    lean_styles(root)
    body, images = _serialise(root, state)
    return Rendered(
        channel="wechat",
        title=settings.title,
        body=body,
        files={"wechat.html": body},
        # Each source once, in order: the publisher uploads each image once per account.
        images=tuple(dict.fromkeys(source for source in images if source)),
    )
