"""Raw HTML inside an issue, made safe for WeChat.

Markdown lets an editor write HTML; WeChat strips scripts, ignores classes and refuses
links outside mp.weixin.qq.com. Raw HTML arrives from markdown-it in pieces (an inline
``<span>`` and its ``</span>`` are separate tokens), so the sanitiser works tag by tag
on a stream rather than on a tree: it never needs a piece to be balanced.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser

MP_LINK = re.compile(r"^https?://mp\.weixin\.qq\.com(?:[/?#]|$)", re.IGNORECASE)

#: Removed together with everything inside them.
DROP_WITH_CONTENT = frozenset(
    {
        "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet",
        "template", "textarea", "select", "button", "head", "title", "video", "audio",
    }
)  # fmt: skip
#: Removed, their content kept.
UNWRAP = frozenset({"form", "noscript", "html", "body", "label", "fieldset"})
#: Void tags removed outright.
DROP_VOID = frozenset({"input", "meta", "link", "base", "param", "source", "track"})
#: WeChat keeps ``<section>`` where it drops ``<div>`` and friends.
AS_SECTION = frozenset({"div", "center", "article", "header", "footer", "aside", "nav", "main"})
VOID = frozenset({"area", "br", "col", "embed", "hr", "img", "input", "wbr"})
#: Attributes WeChat ignores or refuses (``on*`` handlers are removed too).
DROP_ATTRIBUTES = frozenset({"class", "id", "name", "srcset", "contenteditable", "tabindex"})


#: "<!" that opens neither a comment, CDATA nor a declaration: text, not markup.
_STRAY_DECLARATION = re.compile(r"<!(?!--|\[CDATA\[|[A-Za-z])")


def is_mp_link(url: str) -> bool:
    """Whether ``url`` is a WeChat article link, the only kind WeChat lets readers follow."""
    return bool(MP_LINK.match(url.strip()))


@dataclass(frozen=True)
class Reference:
    """One entry of the reference list: ``[number] text: url`` (text may be empty)."""

    number: int
    text: str
    url: str


def _style_size(value: str) -> str:
    value = value.strip()
    return f"{value}px" if value.isdigit() else value


class RawHtmlSanitiser(HTMLParser):
    """Cleans one piece of raw HTML; state that spans pieces lives in what is passed in.

    ``links`` is the stack of raw ``<a>`` tags still open (their reference entry, or the
    closing tag to write), and ``reference(url, text)`` numbers an external link like a
    Markdown one. ``skip`` is how deep inside dropped elements (``<script>``, ``<style>``,
    …) the piece starts: an inline ``<script>`` and its ``</script>`` arrive as separate
    pieces, with the Markdown text between them; :attr:`skip` says where this one ended.
    ``link_text`` names a raw ``<a>`` whose text lies outside this piece (inline HTML).
    """

    def __init__(
        self,
        links: list[Reference | str],
        reference: Callable[[str, str], Reference],
        *,
        skip: int = 0,
        link_text: str = "",
    ) -> None:
        super().__init__(convert_charrefs=True)
        self._links = links
        self._reference = reference
        self._out: list[str] = []
        self._skip = skip
        self._pre = 0
        self._pre_opened = False
        self._link_text = link_text
        #: Links opened in this piece, innermost last: (href, title, text so far), or
        #: None for a link that is not numbered.
        self._open: list[tuple[str, str, list[str]] | None] = []

    @property
    def skip(self) -> int:
        """How deep inside dropped elements the piece ended."""
        return self._skip

    def clean(self, source: str) -> str:
        """The sanitised HTML of ``source``."""
        try:
            self.feed(_STRAY_DECLARATION.sub("&lt;!", source))
            self.close()
        except AssertionError:
            # html.parser gives up on some broken markup ("<![x"): show it as text.
            return html.escape(source, quote=False).replace("\n", " ")
        for link in self._open:  # closed in a later piece: named by the text given
            if link is not None:
                href, title, _ = link
                self._reference(href, self._link_text or title)
        return "".join(self._out)

    # --- tags ---------------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._skip or tag in DROP_WITH_CONTENT:
            if tag in DROP_WITH_CONTENT and tag not in VOID:
                self._skip += 1
            return
        if tag in UNWRAP or tag in DROP_VOID:
            return
        kept = {
            name: value or ""
            for name, value in attrs
            if name not in DROP_ATTRIBUTES and not name.startswith("on")
        }
        if tag == "a":
            self._open_link(kept)
            return
        if tag == "center":
            kept["style"] = "text-align:center;" + kept.get("style", "")
        if tag in AS_SECTION:
            tag = "section"
        if tag == "img":
            sizes = [
                f"{key}:{_style_size(kept.pop(key))}" for key in ("width", "height") if key in kept
            ]
            if sizes:
                kept["style"] = ";".join([*sizes, kept.get("style", "")]).rstrip(";")
            kept["class"] = "image"
        self._pre_opened = tag == "pre"
        if tag == "pre":
            self._pre += 1
        self._out.append(f"<{tag}{_attributes(kept)}>")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID and tag not in DROP_VOID and not self._skip:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in DROP_WITH_CONTENT:
            self._skip = max(0, self._skip - 1)
            return
        if self._skip or tag in UNWRAP or tag in DROP_VOID or tag in VOID:
            return
        if tag == "a":
            self._close_link()
            return
        self._pre_opened = False
        if tag == "pre":
            self._pre = max(0, self._pre - 1)
        self._out.append(f"</{'section' if tag in AS_SECTION else tag}>")

    def _open_link(self, attrs: dict[str, str]) -> None:
        href = attrs.get("href", "").strip()
        if is_mp_link(href):
            self._links.append("</a>")
            self._out.append(f'<a href="{html.escape(href)}">')
            self._open.append(None)
        elif not href or href.startswith("#") or href.lower().startswith("javascript:"):
            self._links.append("")
            self._open.append(None)
        else:
            # Numbered now (references keep document order), named once its text is known.
            self._links.append(self._reference(href, ""))
            self._open.append((href, attrs.get("title", "").strip(), []))

    def _close_link(self) -> None:
        link = self._open.pop() if self._open else None
        if link is not None:  # opened in this piece: its text is what it enclosed
            href, title, parts = link
            self._reference(href, " ".join("".join(parts).split()) or title)
        entry = self._links.pop() if self._links else ""
        if isinstance(entry, str):
            self._out.append(entry)
        else:
            self._out.append(f'<sup class="footnote-ref">[{entry.number}]</sup>')

    # --- text -----------------------------------------------------------------------
    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._pre_opened and data.startswith("\n"):
            data = data[1:]  # HTML ignores the newline right after <pre>
        self._pre_opened = False
        for link in self._open:
            if link is not None:
                link[2].append(data)
        text = html.escape(data, quote=False)
        if self._pre:  # WeChat ignores white-space:pre; spell out spaces and lines
            text = text.replace("\t", "    ").replace(" ", "&nbsp;").replace("\n", "<br>")
        self._out.append(text)

    def handle_comment(self, data: str) -> None:
        return  # comments are not content

    def handle_decl(self, decl: str) -> None:
        return

    def handle_pi(self, data: str) -> None:
        return


def _attributes(attrs: dict[str, str]) -> str:
    return "".join(f' {name}="{html.escape(value)}"' for name, value in attrs.items())
