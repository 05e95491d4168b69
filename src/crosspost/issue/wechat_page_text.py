"""The words of WeChat's article page that a converter copies with the article, left out.

A WeChat article saved as Markdown (wechat-article-exporter, or its page through
html2text, markdownify or turndown) ends with the page's own furniture, which the page
keeps hidden until a reader taps: "预览时标签不可点", "微信扫一扫 / 关注该公众号",
"继续滑动看下一个", "轻触阅读原文", "向上滑动看下一个", "知道了", "[取消](javascript:…)
[允许](javascript:…)", "× 分析" and the bar of "视频 小程序 赞 ，轻点两下取消赞 在看 …"
(in English: "Scan to Follow", "Got It", "Cancel", "Allow", "Like", "Wow", "Share").
Re-run in a newsletter, every channel showed them as the article's last paragraphs.

Only whole lines of the body's own paragraphs count (not a list's, a quote's or a
table's; never code or raw HTML), and only lines made of nothing but those words (and
the punctuation between them, or a picture with no address). A line of WeChat's short
words alone ("分享", "知道了", "Like") is page text only in one run of such lines with a
line no article writes (:data:`_PAGE_ONLY`), so a "知道了" in a dialogue stays. A
thematic break inside such a run (html2text's empty ``****``) goes with it.

Each line left out is noted for check, which names them in one finding.
"""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.issue.blocks import NOTES, copy_token
from crosspost.patterns import pattern

#: The code of the notes (one per line left out; check names them in one finding).
WECHAT_PAGE_TEXT = "wechat-page-text"

#: Words of WeChat's page that no article writes as a line of its own: a line holding one
#: makes the run of page text it stands in.
_PAGE_ONLY = (
    "预览时标签不可点",
    "关注该公众号",
    "继续滑动看下一个",
    "向上滑动看下一个",
    "轻触阅读原文",
    "微信扫一扫可打开此内容",
    "轻点两下取消赞",
    "轻点两下取消在看",
    "在小说阅读器中沉浸阅读",
    "在小说阅读器读本章",
    "当前内容可能存在未经审核的第三方商业营销信息",
    "微信公众平台广告规范指引",
    "Scan to Follow",
    "Scan with Weixin to use this Mini Program",
)
#: The page's short words (its buttons, its bar of reactions, a picture's alt text):
#: page text only within a run that holds a line of :data:`_PAGE_ONLY`.
_PAGE_WORDS = (
    "微信扫一扫",
    "使用小程序",
    "使用完整服务",
    "请确认是否继续访问",
    "继续访问",
    "知道了",
    "阅读原文",
    "修改于",
    "不喜欢",
    "去阅读",
    "写留言",
    "取消",
    "允许",
    "分析",
    "视频",
    "小程序",
    "赞",
    "在看",
    "分享",
    "留言",
    "收藏",
    "听过",
    "跳转二维码",
    "作者头像",
    "×",
    "Got It",
    "Cancel",
    "Allow",
    "Video",
    "Mini Program",
    "Like",
    "Wow",
    "Share",
    "Comment",
    "Favorite",
)
_ANY_PAGE_ONLY = pattern("|".join(map(re.escape, _PAGE_ONLY)), re.IGNORECASE)
#: Any of the words, longest first (so "轻点两下取消赞" is not read as "取消" and "赞").
_PAGE_WORD = pattern(
    "|".join(
        (r"\b" if word[0].isascii() else "")
        + re.escape(word)
        + (r"\b" if word[-1].isascii() else "")
        for word in sorted(_PAGE_ONLY + _PAGE_WORDS, key=len, reverse=True)
    ),
    re.IGNORECASE,
)
#: A button's link that leads nowhere (``[取消](javascript:void\(0\);)``, ``[Got It]
#: (javascript:;)``) or a picture with no address (``![跳转二维码]()``): its words.
_DEAD_LINK = pattern(
    r"!?\[([^\[\]\n]*)\]\(\s*(?:javascript:(?:\\.|[^\s()\\]|\([^()\s]*\))*)?\s*\)",
    re.IGNORECASE,
)
#: WeChat's author picture: ``![作者头像](…)``.
_AUTHOR_PICTURE = pattern(r"!\[(作者头像)\]\([^()\s]*\)")
#: What may stand between the words: spaces, the bar's commas and stops, emphasis marks.
_BETWEEN = pattern(r"[\s,，.。:：、;；*_\\]*")

#: How many lines of :data:`_PAGE_ONLY` make a run page text.
_PAGE_LINES = 2
#: How a line reads: not page text, one of the short words, or page text for sure.
_NOT, _WORDS, _PAGE = 0, 1, 2
#: A thematic break between lines of page text, which goes with them.
_RULE = -1
#: Anything else (a heading, a list, raw HTML, code): a run of page text ends at it.
_BREAK = -2


def wechat_page_text(state: StateCore) -> None:
    """Core rule, after the block parse: the lines of paragraphs that are WeChat's page
    text (see the module) left out, each noted for check; a paragraph left with lines of
    the article on both sides of them becomes one paragraph per part."""
    # Substrings, as WeChat writes them: the pattern, case aside, takes ten times as long.
    if not any(words in state.src for words in _PAGE_ONLY):
        return
    tokens = state.tokens
    dropped = _page_text(_units(tokens))
    if not dropped:
        return
    notes = state.env.setdefault(NOTES, [])
    kept: list[Token] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "hr" and (index, 0) in dropped:
            index += 1
            continue
        if token.type == "paragraph_open" and not token.level:
            inline, closing = tokens[index + 1], tokens[index + 2]
            lines = inline.content.split("\n")
            gone = [number for number in range(len(lines)) if (index + 1, number) in dropped]
            if gone:
                first = inline.map[0] if inline.map else 0
                notes += [(first + n, WECHAT_PAGE_TEXT, lines[n].strip()) for n in gone]
                kept += _parts(token, inline, closing, lines, set(gone))
                index += 3
                continue
        kept.append(token)
        index += 1
    state.tokens = kept


def _units(tokens: list[Token]) -> list[tuple[int, int, int]]:
    """The body as a run of (token index, line, how it reads) in order."""
    units: list[tuple[int, int, int]] = []
    for index, token in enumerate(tokens):
        if token.type in ("paragraph_open", "paragraph_close"):
            continue
        opening = tokens[index - 1] if index else None
        if token.type == "inline" and opening and opening.type == "paragraph_open":
            if opening.level:  # a list's or a quote's: the article's, never the page's
                units.append((index, 0, _BREAK))
                continue
            lines = token.content.split("\n")
            units += [(index, number, _reading(line)) for number, line in enumerate(lines)]
        else:
            units.append((index, 0, _RULE if token.type == "hr" else _BREAK))
    return units


def _page_text(units: list[tuple[int, int, int]]) -> set[tuple[int, int]]:
    """The (token index, line) of each line, and each thematic break, to leave out: the
    runs of page text that hold two lines of :data:`_PAGE_ONLY`, a break only within one."""
    dropped: set[tuple[int, int]] = set()
    start = 0
    while start < len(units):
        if units[start][2] < _WORDS:
            start += 1
            continue
        end = start
        while end < len(units) and (units[end][2] >= _WORDS or units[end][2] == _RULE):
            end += 1
        run = units[start:end]
        while run and run[-1][2] == _RULE:  # a break after the run is the article's
            run.pop()
        # Two lines no article writes: a page's furniture, not a writer quoting one line
        # of it (a tutorial's "微信里显示的提示是：" / "轻触阅读原文" keeps it).
        if sum(reading == _PAGE for _, _, reading in run) >= _PAGE_LINES:
            dropped |= {(index, line) for index, line, _ in run}
        start = end
    return dropped


def _reading(line: str) -> int:
    """How ``line`` (a paragraph's line of Markdown) reads: :data:`_PAGE` when it is made
    of WeChat's page words alone and holds one of :data:`_PAGE_ONLY`, :data:`_WORDS`
    when they are its short words alone, else :data:`_NOT`."""
    text = _DEAD_LINK.sub(r"\1", _AUTHOR_PICTURE.sub(r"\1", line))
    if not _BETWEEN.fullmatch(_PAGE_WORD.sub(" ", text)):
        return _NOT
    # Nothing but the short words, or nothing at all: the bar's lone commas, a picture
    # with no address (``![]()``), both of which show nothing of the article.
    return _PAGE if _ANY_PAGE_ONLY.search(text) else _WORDS


def _parts(
    opening: Token, inline: Token, closing: Token, lines: list[str], gone: set[int]
) -> list[Token]:
    """The paragraph's lines that are not page text, as a paragraph per part between the
    lines left out (each part with the lines it was written on)."""
    parts: list[Token] = []
    first = inline.map[0] if inline.map else 0
    number = 0
    while number < len(lines):
        if number in gone:
            number += 1
            continue
        end = number
        while end < len(lines) and end not in gone:
            end += 1
        text = "\n".join(lines[number:end]).rstrip().removesuffix("\\").rstrip()
        place = [first + number, first + end]
        part_open, part, part_close = (copy_token(opening), copy_token(inline), copy_token(closing))
        part_open.map, part.map, part.content = place, list(place), text
        parts += [part_open, part, part_close]
        number = end
    return parts
