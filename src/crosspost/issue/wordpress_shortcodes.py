"""WordPress's shortcodes read as the Markdown they stand for.

A post kept in WordPress and written in Markdown (Jetpack's Markdown, or an export that
left the shortcodes alone) keeps WordPress's own square-bracket tags: a picture with its
caption as ``[caption id="…" align="…" width="300"]<img src="…"> 说明[/caption]``, code
between ``[code language="python"]`` and ``[/code]`` (also ``[sourcecode]``,
``[source]``), and embeds as ``[embed]https://…[/embed]``, ``[youtube https://…]``,
``[video src="…"]`` and ``[audio src="…"]``. Markdown shows every one as written.

Here the picture becomes ``![说明](…)`` (the caption is the picture's caption on each
channel), the code a fenced block of its language, and an embed the raw ``<video>`` or
``<iframe>`` the sanitiser shows as a line linking to it (check says so, as for one written
in HTML). Any other shortcode (``[gallery ids="…"]``, ``[playlist]``) stays as written, and
check names it.
"""

from __future__ import annotations

import html
import re

from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import (
    VIDEO_HOST,
    code,
    escaped,
    first_group,
    line_match,
    outside_code,
    raw_media,
)
from crosspost.patterns import pattern

#: The shortcodes whose content is code, each on a line of its own with its closing tag.
_CODE_NAMES = ("code", "sourcecode", "source")
_CODE_OPENING = pattern(r"\[(code|sourcecode|source)((?:\s[^\]\n]*)?)\][ \t]*")
_CODE_CLOSING = pattern(r"[ \t]*\[/(code|sourcecode|source)\][ \t]*")
_ATTRIBUTE = pattern(r"([\w-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'\]]+))")
#: A picture with its caption; ``caption="…"`` (WordPress before 3.4) may say it instead.
_CAPTION = pattern(r"\[caption((?:\s[^\]\n]*)?)\](.*?)\[/caption\]", re.DOTALL)
_RAW_PICTURE = pattern(r"<img\b[^>]*?\bsrc\s*=\s*(?:\"([^\"]*)\"|'([^']*)')[^>]*>", re.IGNORECASE)
_RAW_ALT = pattern(r"\balt\s*=\s*(?:\"([^\"]*)\"|'([^']*)')", re.IGNORECASE)
_MARKDOWN_PICTURE = pattern(r"!\[([^\]\n]*)\]\(\s*<?([^\s)>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_RAW_LINK_TAGS = pattern(r"</?a\b[^>]*>", re.IGNORECASE)
_MARKDOWN_LINKED = pattern(r"^\[(.*)\]\([^)\s]*\)", re.DOTALL)
#: ``[embed]https://…[/embed]`` and the one-tag embeds: ``[youtube https://…]``,
#: ``[video src="…"]``, ``[audio mp3="…"]``.
_EMBED = pattern(r"\[embed[^\]\n]*\]\s*((?:https?:)?//[^\s\[]+)\s*\[/embed\]")
_ONE_TAG = pattern(r"\[(youtube|vimeo|video|audio)\s+([^\]\n]+)\]")
_ANY = pattern(r"\[/caption\]|\[/embed\]|\[(?:youtube|vimeo|video|audio)\s")
_MEDIA_FILE = pattern(r"(?:https?:)?//\S+|\S+\.(?:mp4|m4v|webm|ogv|mov|mp3|m4a|ogg|wav)\b")


def _attributes(text: str) -> dict[str, str]:
    return {m.group(1).lower(): first_group(m, 1) for m in _ATTRIBUTE.finditer(text)}


def code_shortcode(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: ``[code language="python"]`` … ``[/code]``, each on a line of its own,
    as a fenced block of that language (``lang`` says it too)."""
    opened = line_match(state, start, "[", _CODE_OPENING)
    if opened is None:
        return False
    name = opened.group(1)
    close = next(
        (
            line
            for line in range(start + 1, end)
            if (found := _CODE_CLOSING.fullmatch(state.src, state.bMarks[line], state.eMarks[line]))
            and found.group(1) == name
        ),
        None,
    )
    if close is None:
        return False
    if not silent:
        said = _attributes(opened.group(2))
        language = said.get("language") or said.get("lang") or ""
        code(state, start, close, language.strip(), "[")
        state.line = close + 1
    return True


def wordpress_shortcodes(state: StateCore) -> None:
    """Core rule, before inline parsing: the captions and embeds in the text of a
    paragraph, heading or cell become their Markdown (code spans are left alone)."""
    if not _ANY.search(state.src):
        return
    for token in state.tokens:
        if token.type == "inline" and _ANY.search(token.content):
            token.content = outside_code(token.content, _read_shortcodes)


def _read_shortcodes(text: str) -> str:
    if "[/caption]" in text:
        text = _CAPTION.sub(_captioned, text)
    if "[/embed]" in text:
        text = _EMBED.sub(lambda found: _media(found.group(1)), text)
    return _ONE_TAG.sub(_one_tag, text)


def _captioned(match: re.Match[str]) -> str:
    """``[caption …]<img src="a.png"> 说明[/caption]`` as ``![说明](a.png)``; the picture
    may be Markdown's, and linked (the link is dropped: the picture is what it showed)."""
    content = match.group(2).strip()
    raw = _RAW_PICTURE.search(content)
    written = _MARKDOWN_PICTURE.search(content)
    if raw is not None:
        source = html.unescape(raw.group(1) or raw.group(2) or "")
        alt_found = _RAW_ALT.search(raw.group(0))
        alt = html.unescape((alt_found.group(1) or alt_found.group(2) or "") if alt_found else "")
        rest = content[: raw.start()] + content[raw.end() :]
    elif written is not None:
        source, alt = written.group(2), written.group(1)
        rest = content[: written.start()] + content[written.end() :]
    else:
        return match.group(0)
    rest = _RAW_LINK_TAGS.sub("", rest)
    linked = _MARKDOWN_LINKED.match(rest.strip())  # [![alt](a.png)](big.png) 说明
    if linked is not None and not linked.group(1).strip():
        rest = rest.strip()[linked.end() :]
    words = " ".join(rest.split()) or _attributes(match.group(1)).get("caption", "") or alt
    return f"![{escaped(words)}](<{source}>)" if source else match.group(0)


def _media(address: str) -> str:
    return raw_media("video" if VIDEO_HOST.search(address) else "iframe", address)


def _one_tag(match: re.Match[str]) -> str:
    """``[youtube https://…]``, ``[video src="a.mp4"]``, ``[audio mp3="a.mp3"]``."""
    name, arguments = match.group(1), match.group(2).strip()
    first = arguments.split()[0]
    if _MEDIA_FILE.fullmatch(first) and "=" not in first.split("?")[0]:
        address = first  # [youtube https://…?v=…]: the address is the first argument
    else:
        said = _attributes(arguments)
        address = next(
            (v for k, v in said.items() if k != "poster" and _MEDIA_FILE.fullmatch(v)), ""
        )
    if not address:
        return match.group(0)
    if name == "audio":
        return raw_media("audio", address)
    return raw_media("video", address)
