"""Which words under an image are its caption, on every channel.

An image's title (``![alt](src "title")``) is text the editor wrote to be seen, and is
the caption. Without one, the alt text is, but alt text is often what a tool filled in:
Typora names a pasted picture ``image-20230101123456789`` (``image.png`` once resized),
Obsidian ``Pasted image 20230101123456.png``, Notion ``Untitled``, CSDN's editor
``这里写图片描述`` and later ``在这里插入图片描述`` ("describe the picture here"), others
``image``, ``img``, ``截图``, the file's own name or another file's (``架构.png``). Shown
under the picture, those words read as a slip (a sweep of Chinese newsletters found "gif"
under a picture, and mdnice's demo 这里写图片描述 under four), so they are no caption; the
``alt`` attribute keeps them either way. A site's name (``ios-weekly``) is words, and stays.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from crosspost.issue.blocks import PICTURE_FILE
from crosspost.issue.dialect import join_softbreak, tokens_after
from crosspost.patterns import pattern

if TYPE_CHECKING:
    from markdown_it.token import Token

#: Alt text a tool fills in: a generic word for a picture, maybe a number or a time stamp.
_FILLED_IN = pattern(
    r"(?:image|img|pic|picture|photo|screenshot|screen[ _-]?shot|untitled|snipaste|gif|"
    r"png|jpe?g|webp|pasted[ _-]?image|截图|屏幕截图|图片|配图|插图|微信图片|这里写图片描述|"
    r"在这里插入图片描述|请?在此处?(?:插入|添加)图片描述|图片描述|image[ _-]?description)?"
    r"(?:[ _-]*[\d_-]{4,}|[ _-]*\d{0,3})",
    re.IGNORECASE,
)
#: The name a screenshot tool or a chat app gives its file, which the editor that pastes
#: it keeps as alt text: the tool's word, then the time stamp it was taken at, in its own
#: spelling (``截屏2024-05-01 上午10.22.13``, ``Screen Shot 2024-05-01 at 10.22.13 AM``,
#: ``WX20240501-102213@2x``, ``企业微信截图_17145…``), maybe a retina mark and a copy's
#: number. The stamp holds digits, their separators and the words of a time of day only,
#: so words about the picture (``Screenshot of the settings page``) are a caption.
_STAMP_PART = r"(?:\d++|at|from|[ap]\.?m\.?|上午|下午|凌晨|早上|中午|晚上)"
_STAMPED = pattern(
    r"(?:screen[ _-]?shot|screen[ _-]?capture|screen[ _-]?recording|capture|截屏|截图|屏幕快照|"
    r"屏幕截图|(?:企业微信|微信|qq|tim|飞书|钉钉|lark|dingtalk)截图|wx|qq|cleanshot|"
    r"pixpin|xnip|ishot|shottr|snipaste|img|image|pasted[ _-]?graphic|pxl|dsc|mmexport)"
    rf"[ _-]*+(?:{_STAMP_PART}(?:[ ._:,-]*+{_STAMP_PART})*+)?(?:@[1-4]x)?"
    r"(?:[ _-]*+(?:\(\d{1,3}\)|副本|copy))?",
    re.IGNORECASE,
)
#: A date (``2024-05-01``, ``20240501``) or a clock's count (``1714501234567``) in a stamp.
_DATED = pattern(r"(?:19|20)\d\d[-_.年]?[01]\d|\d{10,}")
#: A name a tool gives every picture it saves, whatever it shows: macOS's ``Pasted
#: Graphic`` and Google's ``unnamed``, maybe with a copy's number.
_NAMELESS = pattern(
    r"(?:pasted[ _-]?graphic|unnamed|未命名|无标题)(?:[ _-]*+(?:\d{1,3}|\(\d{1,3}\)))?",
    re.IGNORECASE,
)


def _filled_in(words: str) -> bool:
    """Whether alt ``words`` are what a tool filled in (see :data:`_FILLED_IN`)."""
    if _FILLED_IN.fullmatch(words) or _NAMELESS.fullmatch(words):
        return True
    # A tool's word alone is filler already; after one, only a stamp with a date in it
    # (or a clock's count of seconds): 'Screenshot at noon' is words, 'Screenshot
    # 2024-05-01' is not, and 'QQ 123456789' under a QR code is the group's number.
    return bool(_STAMPED.fullmatch(words) and _DATED.search(words))


#: Alt text that is a file's name (``架构.png``): what an editor pasting a file leaves.
_FILE_NAME = pattern(r"\.(?:png|jpe?g|gif|webp|svg|bmp|heic|avif)$", re.IGNORECASE)


def alt_words(image: Token) -> str:
    """An image's alt text as a reader reads it: a line break a converter wrapped it at
    is a space between words, nothing between Chinese characters ("is the" and
    "upgrade." ran together as "theupgrade.")."""
    children = image.children or []
    if not children:
        return image.content
    words = []
    for at, child in enumerate(children):
        if child.type in ("softbreak", "hardbreak"):
            words.append(join_softbreak(children, at))
        elif child.type in ("text", "code_inline", "text_special"):
            words.append(child.content)
        elif child.type == "image":
            words.append(alt_words(child))
    return "".join(words)


def caption_of(alt: str, title: str, source: str) -> str:
    """The caption of an image with ``alt`` text and ``title`` at ``source``; ``""``
    when it has none a reader should see."""
    if title.strip():
        return title.strip()
    words = " ".join(alt.split())
    if not words or _filled_in(words) or _FILE_NAME.search(words):
        return ""
    name = posixpath.basename(unquote(urlsplit(source).path))
    if words in (name, posixpath.splitext(name)[0]):
        return ""
    return words


def links_to_its_picture(href: str, pictures: Sequence[str]) -> bool:
    """Whether a link holding nothing but ``pictures`` leads only to a picture: the same
    one, or a picture file (a theme's lightbox, ``[![](a.png)](a.png)``). Its reader
    sees the picture already; numbered, each such picture added a reference of its own
    address (12 of 23 in one weekly)."""
    if not pictures:
        return False
    path = urlsplit(href.strip()).path
    return all(p.strip() == href.strip() for p in pictures) or bool(PICTURE_FILE.search(path))


def pictures_linked(tokens: Sequence[Token], start: int) -> list[str] | None:
    """The addresses of the pictures the link opening at ``start`` holds (maybe none),
    or ``None`` when it holds anything else a reader sees (words, code)."""
    pictures: list[str] = []
    for token in tokens_after(tokens, start):
        if token.type == "link_close":
            break
        if token.type == "image":
            pictures.append(str(token.attrGet("src") or ""))
        elif token.type not in ("softbreak", "hardbreak") and token.content.strip():
            return None
    return pictures
