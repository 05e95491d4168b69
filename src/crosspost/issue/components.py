"""MDX: the components and the JavaScript lines of Docusaurus, Astro, Nextra and Mintlify.

A post written in MDX opens with ``import`` lines, wraps parts of itself in components
(``<Tabs>`` and ``<TabItem label="npm">``, ``<Admonition type="tip">``, ``<Callout>``,
``<Note>``) and comments as ``{/* … */}``. Read as Markdown, the imports and comments
went out as text, a component's tag was left out with its label and its Markdown was
shown as written.

Here the JavaScript lines and comments are left out, as the site leaves them out, and a
component written on lines of its own is a block whose content is Markdown: a callout
for the admonition components (their ``type`` names the kind), the tab's label as a bold
line for a tab, its ``title`` (linked to its ``href``) for a card, a step (numbered, as
``<Steps>`` shows them) or an accordion, and only its content for any other (``<Tabs>``,
``<Steps>``). Its children may be indented, as JSX is (Mintlify's and Nextra's docs
indent every one): that indent is no code block. A component that closes itself
(``<YouTube id="…" />``, ``<Image src="a.png" alt="…" />``) shows what its attributes
name: the video or post of an embed (by the names Hugo's shortcodes use), the picture
of a ``src``, the link of an ``href``; one that names nothing (``<Support />``, a
snippet of the site's) is left out, and ``check`` says so. A component inside a line of
text is still an unknown tag to check.
"""

from __future__ import annotations

import re

from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import (
    closing_line,
    escaped,
    inner,
    line_match,
    paragraph,
    raw_media,
)
from crosspost.issue.hugo_shortcodes import READINGS
from crosspost.patterns import pattern

#: A component's opening tag alone on its line (a capital letter: HTML's names have none),
#: or the whole component on one line.
_OPENING = pattern(r"<([A-Z][\w.]*)((?:\s+[^<>]*?)?)\s*>[ \t]*")
#: A component that closes itself, alone on its line: ``<YouTube id="abc" />``.
SELF_CLOSING = pattern(r"<([A-Z][\w.]*)((?:\s+[^<>]*?)?)\s*/>[ \t]*")
_PICTURE_FILE = pattern(r"\.(?:png|jpe?g|gif|webp|svg|avif|bmp)(?:[?#].*)?$", re.IGNORECASE)
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
    return {
        m.group(1): next(g for g in m.groups()[1:] if g is not None)
        for m in _ATTRIBUTE.finditer(text)
    }


def component_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: a component opened and closed on lines of their own (or on one line);
    its opening tag may run over several lines (``<Tabs groupId="pm"`` … ``]}>``)."""
    closed = line_match(state, start, "<", SELF_CLOSING)
    if closed is not None:
        shown = _shown_by(closed.group(1), _attributes(closed.group(2)))
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
    else:
        title = attributes.get("label") or attributes.get("title") or ""
        if name in ("TabItem", "Tab") and not title:
            title = attributes.get("value", "")
        if name == "Step":  # steps are done in order: each title keeps its number
            state.env[_STEP] = state.env.get(_STEP, 0) + 1
            title = f"{state.env[_STEP]}. {title}" if title else f"{state.env[_STEP]}."
        if title:
            link = attributes.get("href", "")
            shown = f"**{escaped(title)}**"
            paragraph(state, f"[{shown}](<{link}>)" if link else shown, start)
    counted = state.env.pop(_STEP, None) if name == "Steps" else None
    if one_line:
        paragraph(state, opened.group(3).strip(), start)
    else:
        inner(state, tag_end, close, dedent=True)
    if name == "Steps":  # the steps of the list around this one count on
        state.env.pop(_STEP, None)
        if counted is not None:
            state.env[_STEP] = counted
    if kind is not None:
        state.push("container_callout_close", "div", -1).markup = ":::"
    state.line = close + 1
    return True


def _shown_by(name: str, attributes: dict[str, str]) -> str | None:
    """What a self-closing component shows, as Markdown, when its attributes name it:
    an embed's video or post (``<YouTube id="…" />``, ``<Tweet id="…" />``; an
    ``…Id`` attribute stands for ``id``), a picture (``src`` of a picture file, or any
    ``src`` of an image component), a page to embed (another ``src``), a link
    (``href``, ``url`` or ``link``, its words from ``title``, ``label`` or ``text``)."""
    kind = name.rsplit(".", 1)[-1].lower()
    named = dict(attributes)
    ids = [value for key, value in attributes.items() if key.lower().endswith("id")]
    if "id" not in named and ids:
        named["id"] = ids[0]
    reading = READINGS.get(kind)
    shown = reading([], named) if reading else None
    if shown:
        return shown
    words = next(
        (attributes[key] for key in ("alt", "caption", "title", "label", "text")
         if attributes.get(key)),
        "",
    )  # fmt: skip
    source = attributes.get("src") or attributes.get("image")
    if source:
        if _PICTURE_FILE.search(source) or kind in ("image", "img", "figure", "picture"):
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
    written = [state.src[state.bMarks[start] + state.tShift[start] : state.eMarks[start]]]
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
    holding nothing but ``{/* comments */}``. (``import React from 'react';`` further
    down, in a post that is not MDX, may be an example someone forgot to put in code:
    it stays.)"""
    if "import" not in state.src and "export" not in state.src and "{/*" not in state.src:
        return
    kept = []
    opening = True  # no block of the article's own seen yet
    tokens = state.tokens
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "paragraph_open" and token.level == 0 and index + 2 < len(tokens):
            content = tokens[index + 1].content
            lines = [line.strip() for line in _COMMENT.sub("", content).split("\n")]
            code = [line for line in lines if line]
            esm = _ESM if opening else _LOCAL_IMPORT
            if not code or all(esm.fullmatch(line) for line in code):
                index += 3  # the paragraph's open, inline and close
                continue
        if token.block and token.nesting >= 0 and token.type != "html_block":
            opening = False
        kept.append(token)
        index += 1
    state.tokens = kept
