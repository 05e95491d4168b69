"""MDX: the components and the JavaScript lines of Docusaurus, Astro, Nextra and Mintlify.

A post written in MDX opens with ``import`` lines, wraps parts of itself in components
(``<Tabs>`` and ``<TabItem label="npm">``, ``<Admonition type="tip">``, ``<Callout>``,
``<Note>``) and comments as ``{/* … */}``. Read as Markdown, the imports and comments
went out as text, a component's tag was left out with its label and its Markdown was
shown as written.

Here the JavaScript lines and comments are left out, as the site leaves them out, and a
component written on lines of its own is a block whose content is Markdown: a callout
for the admonition components (their ``type`` names the kind); for any other, the words
its title-like attribute carries as a bold line above its content (linked to its
``href`` or ``link``): a tab's or a changelog entry's ``label`` (the entry's
``description``, its version, after it), a card's, step's (numbered, as ``<Steps>``
shows them) or accordion's ``title``, an API field's ``name`` (a ``<ParamField>``'s
``body``, ``query``, ``path`` or ``header``) with its ``type``, ``required`` and
``default`` after it, a frame's ``caption``, a ``<Details>``'s
``summary``. A tab that names no label has the one its ``<Tabs>`` gives it (Nextra's
``items={['pnpm', 'npm']}``, in order; Docusaurus 2's ``values={[{label, value}]}``, by
its ``value``). A component with an ``href`` whose content is words alone (a button's
``立即下载``) is those words, linked; one with no title-like attribute is its content
alone (``<Tabs>``, ``<Steps>``). Its children may be indented, as JSX is (Mintlify's and
Nextra's docs indent every one): that indent is no code block. A component that closes
itself (``<YouTube id="…" />``, ``<Image src="a.png" alt="…" />``) shows what its
attributes name: the video or post of an embed (by the names Hugo's shortcodes use), the
picture of a ``src``, the link of an ``href`` (its words a ``title``, ``label`` or
``name``: ``<Author name="…" link="…" />``); one that names nothing (``<Support />``, a
snippet of the site's) is left out, and ``check`` says so. A component inside a line of
text is still an unknown tag to check.

A picture whose ``src`` is JavaScript is the picture the expression names where that
can be read without running it: a name an ``import diagram from './diagram.png'`` of the
post binds (the import's path is relative to the post's file, as the issue's own
pictures are), ``require('./a.png').default``, a string. Any other expression
(``useBaseUrl('/img/a.png')``, a file of the site's ``@site/static``) names no address
crosspost has: the picture is left out, never sent as an address ``{…}``, and check says
so. A video's or a frame's ``src={clip}`` is the file any import binds
(``import clip from './demo.mp4'``); read or not, it is the line every channel shows a
video as, linking to what was read (or nowhere), and check says so. A statement of
JavaScript over several lines (``export const metadata = {`` … ``}``) is left out as a
one-line one is where the post opens with it, and a component defined over several
lines (``export const Highlight = (…) => (`` … ``);``) or on one anywhere in a post that
is MDX (the one-line one was shown as written, its tag eaten as raw HTML);
Prettier's spaces ``{' '}`` at a line's end are a space.
"""

from __future__ import annotations

import functools
import re

from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import (
    NOTES,
    PICTURE_ENDING,
    closing_line,
    escaped,
    fence_starts,
    first_group,
    in_code_span,
    in_fence,
    inner,
    line_at,
    line_match,
    line_text,
    outside_fences,
    paragraph,
    raw_media,
    shortened,
)
from crosspost.issue.hugo_shortcodes import READINGS
from crosspost.patterns import pattern

#: A component's opening tag alone on its line (a capital letter: HTML's names have none),
#: or the whole component on one line.
_OPENING = pattern(r"<([A-Z][\w.]*)((?:\s+[^<>]*?)?)\s*>[ \t]*")
#: A component that closes itself, alone on its line: ``<YouTube id="abc" />``.
SELF_CLOSING = pattern(r"<([A-Z][\w.]*)((?:\s+[^<>]*?)?)\s*/>[ \t]*")
_PICTURE_FILE = pattern(rf"{PICTURE_ENDING}(?:[?#].*)?$", re.IGNORECASE)
#: Tags of a picture: the HTML parser reads ``<image>`` as ``<img>``; :func:`_shown_by`
#: shows any ``src`` of the others as one.
PICTURE_TAGS = frozenset({"img", "image", "figure", "picture"})
_ONE_LINE = pattern(r"<([A-Z][\w.]*)((?:\s+[^<>]*?)?)\s*>(.*)</\1\s*>[ \t]*")
_ATTRIBUTE = pattern(r"([\w-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|\{[\"'`]([^\"'`]*)[\"'`]\})")
#: Components that are callouts, by name, as the callout kind each reads as
#: (Docusaurus's ``Admonition`` and Nextra's ``Callout`` say theirs with ``type``).
CALLOUT_COMPONENTS = {
    "Admonition": "note", "Callout": "note", "Aside": "note", "Note": "note", "Tip": "tip",
    "Info": "info", "Warning": "warning", "Caution": "caution", "Danger": "danger",
    "Important": "important", "Check": "tip",
}  # fmt: skip
#: A component's ``type`` as a callout kind where the two differ.
_TYPES = {"default": "note", "secondary": "note", "success": "tip", "error": "danger"}
#: An ``import`` of a file of the site's own (``"../_support.mdx"``, ``"@site/src/x"``):
#: left out wherever it stands, being no sentence of anyone's.
_LOCAL_IMPORT = pattern(
    r"import\s+[\w*{}\s,$]+\s+from\s+[\"'](?:\.{1,2}/|/|@/|~/|@site/)[^\"'\n]*[\"'];?"
    r"|import\s+[\w*{}\s,$]+\s+from\s+[\"'][^\"'\n]*\.(?:mdx?|jsx|tsx|astro|vue|svelte)[\"'];?"
)
#: ``import … from '…'`` and ``export …`` lines of a post's JavaScript.
_ESM = pattern(
    r"(?:import\s+(?:[\w*{}\s,$]+\s+from\s+)?[\"'][^\"'\n]+[\"'];?"
    r"|export\s+(?:const|let|var|function|default|\{)[^\n]*)"
)
_COMMENT = pattern(r"\{/\*.*?\*/\}", re.DOTALL)


def _attributes(text: str) -> dict[str, str]:
    return {m.group(1): first_group(m, 1) for m in _ATTRIBUTE.finditer(text)}


def component_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: a component opened and closed on lines of their own (or on one line);
    its opening tag may run over several lines (``<Tabs groupId="pm"`` … ``]}>``)."""
    closed = line_match(state, start, "<", SELF_CLOSING)
    if closed is not None:
        shown = _shown_by(closed.group(1), _attributes(closed.group(2)), closed.group(2))
        if shown is None:
            return False  # raw HTML of no element: left out, and check names it
        if not silent:
            paragraph(state, shown, start)
            state.line = start + 1
        return True
    one_line = line_match(state, start, "<", _ONE_LINE)
    opened = one_line or line_match(state, start, "<", _OPENING)
    tag_end = start
    if opened is None:
        opened, tag_end = _long_opening(state, start, end)
        if opened is None:
            return False
    name = opened.group(1)
    close = start if one_line else _closing_line(state, tag_end, end, name)
    if close is None:
        return False
    if silent:
        return True
    attributes = _attributes(opened.group(2))
    kind = CALLOUT_COMPONENTS.get(name)
    if kind is not None:
        written = attributes.get("type", "").lower()
        kind = _TYPES.get(written, written) or kind
        token = state.push("container_callout_open", "div", 1)
        token.info = f"{kind} {attributes.get('title', '')}".strip()
        token.markup, token.map = ":::", [start, close + 1]
    link = attributes.get("href") or attributes.get("link") or ""
    title = "" if kind is not None else _title(state, name, attributes, opened.group(2))
    if title:
        shown = f"**{escaped(title)}**"
        paragraph(state, f"[{shown}](<{link}>)" if link else shown, start)
    words = None  # a button's words are its link: <Button href="…">立即下载</Button>
    if link and not title and kind is None:
        content = range(tag_end + 1, close)
        lines = [state.src[state.bMarks[n] : state.eMarks[n]] for n in content]
        words = _words([opened.group(3)] if one_line else lines)
    counted = state.env.pop(_STEP, None) if name == "Steps" else None
    tabs = _short(name) == "Tabs"
    outer = state.env.get(_TABS)  # the tabs around this one, whose tab it is in
    if tabs:
        state.env[_TABS] = _Tabs.of(opened.group(2))
    if words is not None:
        paragraph(state, f"[{words}](<{link}>)", start)
    elif one_line:
        paragraph(state, opened.group(3).strip(), start)
    else:
        inner(state, tag_end, close, dedent=True)
    if tabs:
        state.env[_TABS] = outer
    if name == "Steps":  # the steps of the list around this one count on
        state.env.pop(_STEP, None)
        if counted is not None:
            state.env[_STEP] = counted
    if kind is not None:
        state.push("container_callout_close", "div", -1).markup = ":::"
    state.line = close + 1
    return True


#: Attributes that name a block component, in the order they are looked for: its bold
#: line (``<Accordion title>``, ``<Update label>``, ``<ResponseField name>``,
#: ``<Frame caption>``, ``<Details summary>``).
_TITLES = ("label", "title", "name", "caption", "summary")
#: Components whose name is in attributes of their own: Mintlify's ``<ParamField
#: body="model">`` names the parameter by where it is sent.
_NAMED_IN = {"ParamField": ("body", "query", "path", "header")}
#: Mintlify's fields of an API, whose bold line says, after the field's name, its
#: ``type``, ``required`` and ``deprecated`` (words alone in the tag) and its ``default``,
#: as the site shows them beside it: ``id · string · required``.
_FIELDS = frozenset({"ParamField", "ResponseField"})
#: A word alone that makes an attribute true, outside the attributes' values:
#: ``required``, ``required={true}`` (not ``required={false}``).
_FIELD_FLAG = pattern(r"(?<![\w-])(required|deprecated)(?:\s*=\s*\{\s*true\s*\})?(?![\w-]|\s*=)")


def _short(name: str) -> str:
    """A component's name without its namespace: ``Tabs.Tab`` is a ``Tab``."""
    return name.rsplit(".", 1)[-1]


def _title(state: StateBlock, name: str, attributes: dict[str, str], written: str) -> str:
    """The bold line a block component that is no callout shows, or "": its title-like
    attribute (a changelog entry's ``description``, its version, after its ``label``;
    an API field's type and more, after its name: :func:`_field`); a tab's label, from
    its ``<Tabs>`` where the tab has none; a step's number. ``written``: its attributes
    as written."""
    title = _named(name, attributes)
    if name in _FIELDS:
        return _field(title, attributes, written)
    if title and title == attributes.get("label") and attributes.get("description"):
        title = f"{title} · {attributes['description']}"
    if _short(name) in ("TabItem", "Tab"):
        tabs = state.env.get(_TABS)
        named = tabs.label(attributes.get("value", "")) if isinstance(tabs, _Tabs) else ""
        title = title or named or attributes.get("value", "")
    if name == "Step":  # steps are done in order: each title keeps its number
        state.env[_STEP] = state.env.get(_STEP, 0) + 1
        title = f"{state.env[_STEP]}. {title}" if title else f"{state.env[_STEP]}."
    return title


#: Where the :class:`_Tabs` of the ``<Tabs>`` being read is kept, in the parse's ``env``.
_TABS = "crosspost_tabs"
#: A ``<Tabs>``'s labels in JavaScript: Nextra's ``items={['pnpm', 'npm']}``, Docusaurus
#: 2's ``values={[{label: '苹果', value: 'apple'}, …]}``.
_ITEMS = pattern(r"\bitems\s*=\s*\{\s*\[([^\[\]]*)\]\s*\}")
_VALUES = pattern(r"\bvalues\s*=\s*\{\s*\[([^\[\]]*)\]\s*\}")
#: A string of JavaScript in any of its quotes, and an object's members of two of them.
_JS_STRING = pattern(r"\"([^\"\n]*)\"|'([^'\n]*)'|`([^`\n]*)`")
_JS_OBJECT = pattern(r"\{([^{}]*)\}")
_JS_MEMBER = pattern(rf"\b(label|value)\s*:\s*(?:{_JS_STRING.pattern})")


class _Tabs:
    """The labels a ``<Tabs>`` gives its tabs: by each tab's ``value`` (Docusaurus 2), or
    in order to tabs that name none (Nextra's bare ``<Tab>``)."""

    def __init__(self, items: list[str], labels: dict[str, str]) -> None:
        self.items, self.labels, self.read = items, labels, 0

    @classmethod
    def of(cls, attributes: str) -> _Tabs:
        """The labels the ``<Tabs>`` tag's ``attributes`` (as written) give."""
        items = _ITEMS.search(attributes)
        values = _VALUES.search(attributes)
        labels: dict[str, str] = {}
        for written in _JS_OBJECT.findall(values.group(1)) if values else ():
            members = {m.group(1): first_group(m, 1) for m in _JS_MEMBER.finditer(written)}
            if members.get("label") and members.get("value"):
                labels[members["value"]] = members["label"]
        named = _JS_STRING.finditer(items.group(1)) if items else ()
        return cls([first_group(found) for found in named], labels)

    def label(self, value: str) -> str:
        """The label of the next tab, whose ``value`` is as written ("" if none)."""
        self.read += 1
        if value:
            return self.labels.get(value, "")
        return self.items[self.read - 1] if self.read <= len(self.items) else ""


#: Lines of a component's content that begin a block of Markdown, not words: a heading,
#: a list, a quote, code, a table, a picture, a tag.
_BLOCK_START = pattern(r"(?:#{1,6}(?:\s|$)|[-*+](?:\s|$)|[>|<]|!\[|\d+[.)](?:\s|$)|```|~~~)")


def _words(lines: list[str]) -> str | None:
    """A component's content, its ``lines``, when it is words alone (a button's
    ``立即下载``), as Markdown to link; None when it holds blocks, a link of its own, or
    nothing."""
    written = [line.strip() for line in lines]
    while written and not written[-1]:
        written.pop()
    while written and not written[0]:
        written.pop(0)
    if not written or "" in written or any(_BLOCK_START.match(line) for line in written):
        return None
    text = " ".join(written)
    return None if "[" in text or "]" in text else text


def _named(name: str, attributes: dict[str, str]) -> str:
    """A component's title-like attribute (:data:`_TITLES`, :data:`_NAMED_IN`), or ""."""
    keys = _NAMED_IN.get(name, _TITLES)
    return next((attributes[key] for key in keys if attributes.get(key)), "")


def _field(title: str, attributes: dict[str, str], written: str) -> str:
    """An API field's bold line (:data:`_FIELDS`): its name, then what its tag says of it,
    ``written`` its attributes as written."""
    flags = _FIELD_FLAG.findall(_ATTRIBUTE.sub(" ", written))  # not in a value's words
    default = attributes.get("default", "")
    facts = [title, attributes.get("type", ""), *dict.fromkeys(flags)]
    return " · ".join(fact for fact in [*facts, default and f"default: {default}"] if fact)


def _shown_by(name: str, attributes: dict[str, str], written: str) -> str | None:
    """What a self-closing component shows, as Markdown, when its attributes name it:
    an embed's video or post (``<YouTube id="…" />``, ``<Tweet id="…" />``; an
    ``…Id`` attribute stands for ``id``), a picture (``src`` of a picture file, or any
    ``src`` of an image component), a page to embed (another ``src``), a link
    (``href``, ``url`` or ``link``, its words from ``title``, ``label`` or ``text``),
    an API field with no description (its bold line). ``written``: its attributes as
    written."""
    if name in _FIELDS:
        field = _field(_named(name, attributes), attributes, written)
        return f"**{escaped(field)}**" if field else None
    kind = _short(name).lower()
    named = dict(attributes)
    ids = [value for key, value in attributes.items() if key.lower().endswith("id")]
    if "id" not in named and ids:
        named["id"] = ids[0]
    reading = READINGS.get(kind)
    shown = reading([], named) if reading else None
    if shown:
        return shown
    words = next(
        (attributes[key] for key in ("alt", "caption", "title", "label", "name", "text")
         if attributes.get(key)),
        "",
    )  # fmt: skip
    source = attributes.get("src") or attributes.get("image")
    if source:
        if _PICTURE_FILE.search(source) or kind in PICTURE_TAGS:
            return f"![{escaped(words)}](<{source}>)"
        return raw_media("iframe", source)
    link = attributes.get("href") or attributes.get("url") or attributes.get("link")
    if link:
        return f"[{escaped(words or link)}](<{link}>)"
    return None


#: Where the number of the last ``<Step>`` of the ``<Steps>`` being read is kept.
_STEP = "crosspost_step"
#: The first line of an opening tag that goes on: ``<Tabs groupId="pm"``.
_OPENING_START = pattern(r"<([A-Z][\w.]*)(\s[^<>]*)?")
#: Lines an opening tag may take.
_LONGEST_TAG = 30


def _long_opening(state: StateBlock, start: int, end: int) -> tuple[re.Match[str] | None, int]:
    """An opening tag over several lines, read as one (match, its last line)."""
    if line_match(state, start, "<", _OPENING_START) is None:
        return None, start
    written = [line_text(state, start)]
    for line in range(start + 1, min(end, start + _LONGEST_TAG)):
        text = state.src[state.bMarks[line] : state.eMarks[line]]
        if not text.strip() or "<" in text:
            break
        written.append(text.strip())
        if text.rstrip().endswith(">"):
            return _OPENING.fullmatch(" ".join(written)), line
    return None, start


def _closing_line(state: StateBlock, start: int, end: int, name: str) -> int | None:
    """The line of ``</name>`` closing the component opened on ``start`` (the same one
    may nest), or None."""
    opens = re.compile(rf"<{re.escape(name)}(?:\s[^<>]*)?>[ \t]*")
    return closing_line(
        state, start, end, "<", opens, re.compile(rf"</{re.escape(name)}\s*>[ \t]*")
    )


def mdx_lines(state: StateCore) -> None:
    """Core rule, before inline parsing: leave out, as MDX does, the paragraphs of
    ``import``/``export`` lines that open the body, further down those importing a file
    of the site's own (``import Support from "../_support.mdx";``), and paragraphs
    holding nothing but ``{/* comments */}``; in a post that is MDX, those defining a
    value or a component anywhere (``export const Badge = () => (<span/>);``, as
    :func:`mdx_statement` does over several lines). (``import React from 'react';``
    further down, in a post that is not MDX, may be an example someone forgot to put in
    code: it stays.) In a post that is MDX, Prettier's ``{' '}`` ending a line, or alone on
    one, is the space JSX reads it as: the line break after it is one already."""
    source = state.src
    spaced = ("{' '}" in source or '{" "}' in source) and _is_mdx(source)
    if not spaced and "import" not in source and "export" not in source and "{/*" not in source:
        return
    if spaced:
        for token in state.tokens:
            if token.type in ("inline", "html_block") and "}" in token.content:
                token.content = _unspaced(token.content, inline=token.type == "inline")
    kept = []
    opening = True  # no block of the article's own seen yet
    tokens = state.tokens
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "paragraph_open" and token.level == 0 and index + 2 < len(tokens):
            content = tokens[index + 1].content
            if _javascript_only(content, _ESM if opening else _LOCAL_IMPORT) or (
                not opening and _definitions_only(content) and _is_mdx(source)
            ):
                index += 3  # the paragraph's open, inline and close
                continue
        if token.block and token.nesting >= 0 and token.type != "html_block":
            opening = False
        kept.append(token)
        index += 1
    state.tokens = kept


def _javascript_only(content: str, esm: re.Pattern[str]) -> bool:
    """Whether every line of a paragraph's ``content`` is a statement ``esm`` matches, or
    a ``{/* comment */}`` (or there is none: a paragraph of comments alone)."""
    lines = (line.strip() for line in _COMMENT.sub("", content).split("\n"))
    return all(esm.fullmatch(line) for line in lines if line)


def _definitions_only(content: str) -> bool:
    """Whether every line of a paragraph's ``content`` is a whole statement defining a
    value or a component, ``export const Badge = ({children}) => (<span>{children}</span>);``
    (what :func:`mdx_statement` leaves out where it takes several lines)."""
    lines = [line.strip() for line in _COMMENT.sub("", content).split("\n") if line.strip()]
    for line in lines:
        brackets = _Brackets()
        whole = brackets.read(line) and brackets.balanced and not _GOES_ON.search(line)
        if not (whole and _DEFINITION.fullmatch(line)):
            return False
    return bool(lines)


#: Prettier's JSX space, ``{' '}`` or ``{" "}``, ending a line.
_SPACER = pattern(r"[ \t]*\{(['\"]) \1\}[ \t]*$")


def _unspaced(content: str, *, inline: bool) -> str:
    """``content`` (an inline's Markdown, or a block of raw HTML) without the JSX spaces
    ending its lines. A line that held nothing else is left out of an inline (its line
    break is the space) and left empty in raw HTML, whose lines check counts."""
    lines = []
    for line in content.split("\n"):
        found = _SPACER.search(line)
        if found and not (inline and in_code_span(line, found.start())):
            line = line[: found.start()]
            if inline and not line.strip():
                continue
        lines.append(line)
    return "\n".join(lines)


#: Signs that a post is MDX: an ``import`` line, a component's tag opening a line (a
#: capital and a small letter in its name: ``<Tabs>``, not HTML's old ``<DIV>``), a
#: ``{/* comment */}``.
_MDX_SIGN = pattern(
    r"^(?:import[ \t]+[^\n]*?[ \t]from[ \t]*[\"'][^\"'\n]+[\"'];?[ \t]*$"
    r"|import[ \t]*[\"'][^\"'\n]+[\"'];?[ \t]*$"
    r"|[ \t]*<[A-Z][\w.]*?[a-z][\w.]*(?:[\s/>]|$)"
    r"|[ \t]*\{/\*)",
    re.MULTILINE,
)


@functools.lru_cache(maxsize=8)
def _is_mdx(source: str) -> bool:
    """Whether the post ``source`` is MDX: it holds one of :data:`_MDX_SIGN` outside its
    code fences."""
    fences: list[int] | None = None
    for found in _MDX_SIGN.finditer(source):
        fences = fence_starts(source) if fences is None else fences
        if not in_fence(fences, found.start()):
            return True
    return False


# --- statements of JavaScript over several lines ---------------------------------------

#: The first line of a statement of a post's JavaScript.
_STATEMENT = pattern(
    r"(?:import\s*[\w*{$\"']"
    r"|export\s+(?:const|let|var|function|class|default|async|type|interface|\{|\*))[^\n]*"
)
#: A statement defining a value or a component of the post: ``export const Highlight =``.
_DEFINITION = pattern(
    r"export\s+(?:const|let|var|function|class|async\s+function)\s+[A-Za-z_$][\w$]*\b[^\n]*"
)
#: A line ending so that the statement goes on below (``description:``, ``=>``, ``=``).
_GOES_ON = pattern(r"(?:[=,(\[{+\-*?:.&|]|=>)[ \t]*$")
#: Lines a statement may take: one longer is read as the article's text.
_LONGEST_STATEMENT = 80
#: The bracket each opening one waits for.
_CLOSING = {"(": ")", "[": "]", "{": "}"}


class _Brackets:
    """The brackets of JavaScript read line by line, those in strings, template
    literals and comments left out. A quote left open at a line's end closes there, as
    an apostrophe of JSX's text (``<p>Don't</p>``) is no string."""

    def __init__(self) -> None:
        self.waiting: list[str] = []  # the closing brackets awaited, innermost last
        self.template = False  # in a template literal (```…```), which runs on
        self.comment = False  # in a ``/* … */`` comment

    @property
    def balanced(self) -> bool:
        return not self.waiting and not self.template and not self.comment

    def read(self, line: str) -> bool:
        """Read ``line``; False when a bracket in it closes none that was opened."""
        at, length = 0, len(line)
        while at < length:
            char = line[at]
            if self.comment or self.template:
                end = line.find("*/" if self.comment else "`", at)
                if end < 0:
                    return True
                self.comment = self.template = False
                at = end + (2 if line.startswith("*/", end) else 1)
                continue
            if char in "'\"":
                end = line.find(char, at + 1)
                while end > 0 and line[end - 1] == "\\":
                    end = line.find(char, end + 1)
                at = length if end < 0 else end + 1
                continue
            if char == "`":
                self.template = True
            elif line.startswith("//", at):
                return True
            elif line.startswith("/*", at):
                self.comment, at = True, at + 1
            elif char in _CLOSING:
                self.waiting.append(_CLOSING[char])
            elif char in ")]}" and (not self.waiting or self.waiting.pop() != char):
                return False
            at += 1
        return True


def mdx_statement(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: statements of JavaScript over several lines (``export const article =
    {`` … ``}``, an ``import {`` of many names), each from its ``import`` or ``export`` to
    the bracket that closes it, left out where the post opens with them (as a one-line
    statement is, by :func:`mdx_lines`), and those defining a component (``export const
    Highlight = (…) => (`` … ``);``) anywhere in a post that is MDX. Where no end is
    found in :data:`_LONGEST_STATEMENT` lines, or the statement runs on into a line of
    text, the lines stay the article's."""
    if state.level or state.blkIndent or state.sCount[start]:
        return False  # in a list, a quote or a callout: MDX has no statement there
    begin = state.bMarks[start]
    if not state.src.startswith(("import", "export"), begin):
        return False
    last, definitions = _statements_end(state, start, end)
    if last is None or last == start:
        return False  # one line is a paragraph, which mdx_lines reads
    if not (definitions and _is_mdx(state.src)) and not _opening(state):
        return False
    if not silent:
        state.line = last + 1
    return True


def _statements_end(state: StateBlock, start: int, end: int) -> tuple[int | None, bool]:
    """The last line of the statements from ``start`` on, up to a blank line (None when
    they do not end so), and whether each defines a value (:data:`_DEFINITION`)."""
    brackets = _Brackets()
    definitions, goes_on = True, False
    for line in range(start, min(end, start + _LONGEST_STATEMENT)):
        text = state.src[state.bMarks[line] : state.eMarks[line]]
        if text.startswith(("#", "```", "~~~")):
            return None, False  # a heading or a fence: Markdown, not JavaScript
        if brackets.balanced and not goes_on:  # a statement begins here
            if not _STATEMENT.fullmatch(text):
                return None, False
            definitions = definitions and bool(_DEFINITION.fullmatch(text))
        if not brackets.read(text):
            return None, False
        goes_on = bool(_GOES_ON.search(text))
        if brackets.balanced and not goes_on and (line + 1 >= end or state.isEmpty(line + 1)):
            return line, definitions
    return None, False


def _opening(state: StateBlock) -> bool:
    """Whether nothing of the article's own comes before the line being read: only
    paragraphs of one-line statements and comments (which :func:`mdx_lines` leaves out)
    and raw HTML."""
    tokens = state.tokens
    for index, token in enumerate(tokens):
        if token.type == "paragraph_open":
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            if following is None or not _javascript_only(following.content, _ESM):
                return False
        elif token.type not in ("inline", "paragraph_close", "html_block"):
            return False
    return True


# --- pictures named in JavaScript ------------------------------------------------------

#: Where :func:`mdx_pictures` notes a picture it left out, for check to name.
JAVASCRIPT_PICTURE = "javascript-picture"
#: ``import diagram from './diagram.png';``: the name a file is imported by, and its path.
_IMPORT = pattern(
    r"^import[ \t]+([A-Za-z_$][\w$]*)[ \t]+from[ \t]+([\"'])([^\"'\n]+)\2[ \t]*;?[ \t]*$",
    re.MULTILINE,
)
#: ``export const clip = 'https://e.com/a.mp4';``: a name the post binds to a string, and
#: the string as written.
_CONSTANT = pattern(
    r"^export[ \t]+const[ \t]+([A-Za-z_$][\w$]*)[ \t]*=[ \t]*"
    r"([\"'`][^\"'`\n$]*[\"'`])[ \t]*;?[ \t]*$",
    re.MULTILINE,
)
#: A tag's ``src={…}``: its name, the attributes before (which may hold JavaScript
#: too: ``className={styles.logo}``), the space before ``src``, the expression.
_BRACED_SOURCE = pattern(
    r"<([A-Za-z][\w.:-]*)"
    r"((?:\s+(?:\{[^{}\n]*\}|[^\s<>{}=\"'/]+"
    r"(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|\{(?:[^{}\n]|\{[^{}\n]*\})*\}|[^\s<>\"'{}]+))?))*?)"
    r"(\s+)src\s*=\s*\{((?:[^{}\n]|\{[^{}\n]*\})*)\}"
)
#: What every :data:`_BRACED_SOURCE` holds, found at a glance.
_SOURCE_IN_BRACES = pattern(r"\ssrc\s*=\s*\{")
#: ``require('./a.png')``, maybe with ``.default`` after it (Docusaurus).
_REQUIRE = pattern(r"require\(\s*([\"'`])([^\"'`\n]+)\1\s*\)(?:\.default)?")
#: A string written as JavaScript: ``'a.png'``, ``"a.png"``, ```a.png``` with no ``${…}``.
_STRING = pattern(r"([\"'`])([^\"'`\n$]*)\1")
#: A path relative to the post's file, as an import's is.
_RELATIVE = pattern(r"\.{1,2}/")


def mdx_pictures(state: StateCore) -> None:
    """Core rule, before the block parse: each tag's ``src={…}`` outside code is the
    address its expression names, where that can be read without running it: a name an
    ``import`` of a picture binds (relative to the post's file, as the import is), a
    ``require`` of one, a string, a name the post binds to one (``export const url =
    'https://…'``); for a video's or a frame's tag (``<Video src={clip} />``), a name an
    import of any file binds (``import clip from './demo.mp4'``). A picture's (``<img>``,
    ``<Image>``) other expression is left out with the ``src`` (every channel leaves out
    a picture with none) and noted for check: sent as it was, it reached both channels
    as a picture at the address ``{diagram}``, which publish could not find. Another
    tag's stays as written: its line links nowhere, never to ``{clip}``, and check says
    why (``render.sanitize``). Lines keep their numbers."""
    if _SOURCE_IN_BRACES.search(state.src) is None:
        return
    fences = fence_starts(state.src)
    imported = {
        found.group(1): found.group(3)
        for found in _IMPORT.finditer(state.src)
        if not in_fence(fences, found.start())
    }  # an import shown in a fence is an example: it binds nothing
    pictures = {name: path for name, path in imported.items() if _PICTURE_FILE.search(path)}
    constants = {
        found.group(1): found.group(2)
        for found in _CONSTANT.finditer(state.src)
        if not in_fence(fences, found.start())
    }
    notes = state.env.setdefault(NOTES, [])

    def read(found: re.Match[str]) -> str:
        text, at = found.string, found.start()
        if in_code_span(text, at):
            return found.group(0)
        name, attributes, space, expression = found.groups()
        opening = f"<{name}{attributes}{space}"
        picture = _short(name).lower() in PICTURE_TAGS
        bound = constants.get(expression.strip(), expression.strip())  # its string
        address = _address_of(bound, pictures if picture else imported, picture)
        if address is not None:
            return f'{opening}src="{address}"'
        if not picture:
            return found.group(0)  # a video's or a frame's: a line linking nowhere
        closed = text.find(">", found.end())
        rest = text[found.end() : closed if closed >= 0 else found.end()]
        alt = _attributes(f"{attributes} {rest}").get("alt", "")
        line = line_at(text, found.start(4))
        notes.append((line, JAVASCRIPT_PICTURE, _unread(name, expression.strip(), alt, pictures)))
        return opening

    state.src = outside_fences(_BRACED_SOURCE, state.src, read)


def _address_of(expression: str, imported: dict[str, str], picture: bool) -> str | None:
    """The address a ``src``'s ``expression`` names (a ``picture``'s: a picture file's),
    or None when it needs running."""
    written = _STRING.fullmatch(expression)
    if written is not None:
        return written.group(2).strip() or None
    required = _REQUIRE.fullmatch(expression)
    path = required.group(2) if required else imported.get(expression)
    if path is None or not _RELATIVE.match(path):
        return None
    return path if _PICTURE_FILE.search(path) or not picture else None


def _unread(name: str, expression: str, alt: str, pictures: dict[str, str]) -> str:
    """What check says of a picture's ``src={expression}`` left out."""
    imported = pictures.get(expression)
    why = f" ('{expression}' is imported from '{imported}', no path beside the issue)"
    return (
        f"'<{name} src={{{shortened(expression)}}}>' takes its picture from JavaScript, "
        f"which crosspost does not run{why if imported else ''}, so every channel leaves "
        f"it out; write the picture as ![{alt}](path), the path beside the issue"
    )
