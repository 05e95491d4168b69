"""Jekyll's, Hexo's and GitBook's template tags read as the Markdown they stand for.

Blogs kept in Jekyll or Hexo, and books in GitBook, write some constructs as ``{% tag %}``
that the site expands before its Markdown is read: code blocks (Jekyll's ``{% highlight
ruby %}``, Hexo's ``{% codeblock %}``), notes (Hexo NexT's and Butterfly's ``{% note
warning %}``, GitBook's ``{% hint style="info" %}``), quotes with their source, images
from a post's asset folder, links and embedded videos. Markdown shows every one as
written: the code lost its block, the note its box, the image was never uploaded.

Each tag crosspost knows becomes the tokens its Markdown form makes, so every renderer
shows it with the rules it already has: a fenced code block, a callout, a quote, an
image, a link, and for a video or a frame the raw ``<video>``/``<iframe>`` the
sanitiser turns into a line linking to it (check says so, as for raw HTML). Any other
tag (``{% include %}``, ``{% post_url %}``, ``{% if %}``) stays as written, and check
names it. A paired tag whose closing tag is missing stays as written too. Hashnode's
embeds, ``%[https://…]``, are read here as well: a line linking to what they embed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import (
    callout,
    closing_line,
    code,
    credit_line,
    escaped,
    inner,
    line_match,
    outside_code,
    paragraph,
    quoted,
    raw_media,
)
from crosspost.issue.tabs import TABS, tab_title
from crosspost.patterns import pattern

#: A tag on a line of its own (Liquid's ``{%-`` … ``-%}`` trims too): name, arguments.
_TAG_LINE = pattern(r"\{%-?\s*([A-Za-z_][\w-]*)(.*?)\s*-?%\}[ \t]*")
#: A tag anywhere in a line.
_TAG = pattern(r"\{%-?\s*([A-Za-z_][\w-]*)\s*(.*?)\s*-?%\}")
#: Arguments as the tags split them: quoted ones whole.
_ARGUMENT = pattern(r"\"([^\"]*)\"|'([^']*)'|(\S+)")

#: Paired tags whose content is code (Hexo's ``code`` is its ``codeblock``).
CODE_TAGS = frozenset({"highlight", "codeblock", "code", "mermaid"})
#: Paired tags whose content is Markdown shown in a callout.
NOTE_TAGS = frozenset({"note", "hint", "details", "hideToggle", "folding", "fold", "noteblock"})
#: Paired tags that group their content (Butterfly's galleries): shown as the content.
GROUP_TAGS = frozenset(
    {"gallery", "galleryGroup", "gi", "grid", "flink", "timeline", "content-ref", "swiper"}
)
#: Paired tags whose content is Markdown shown as a quote (Hexo's three names).
QUOTE_TAGS = frozenset({"blockquote", "quote", "pullquote"})
#: ``raw`` keeps the site from reading its content (shown as Markdown); ``comment`` hides
#: it; ``tabs`` holds tabs (GitBook's ``tab`` tags, NexT's ``<!-- tab -->`` comments).
BLOCK_TAGS = (
    CODE_TAGS
    | NOTE_TAGS
    | QUOTE_TAGS
    | GROUP_TAGS
    | {"raw", "comment", "tabs", "tab", "katex", "timenode"}
)

#: A note's class as the callout kind it reads as: NexT's classes, Butterfly's colours,
#: GitBook's hint styles.
NOTE_KINDS = {
    "default": "note", "primary": "note", "success": "tip", "info": "info",
    "warning": "warning", "danger": "danger", "blue": "info", "green": "tip",
    "orange": "warning", "yellow": "warning", "red": "danger", "purple": "note",
    "pink": "note",
    # Volantis's note styles
    "idea": "tip", "done": "tip", "todo": "note", "error": "danger", "bug": "danger",
    "radiation": "danger", "quote": "note", "link": "note", "guide": "info",
}  # fmt: skip
#: Words in a note's opening tag that set its look, not its title (NexT's ``no-icon``,
#: Butterfly's styles); Font Awesome icon names (``'fas fa-bullhorn'``) are skipped too.
_LOOKS = frozenset({"no-icon", "simple", "modern", "flat", "disabled", "icon"})
#: Words of a folded block's opening tag that set its look, not its title.
_FOLDED = frozenset({"open", "yellow", "cyan", "white", "black", "gray", "grey", "light"})
#: A code block's options (``line_number:false``, ``mark:1,4-7``), and Jekyll's ``linenos``.
_OPTION = pattern(r"[a-z_]+:(?!//)\S*|linenos(?:=\S*)?|hl_lines=.*|mark_lines=.*")
_URL = pattern(r"(?:https?:)?//\S+|mailto:\S+")
_FILE = pattern(r"\S*[./]\S*\.[A-Za-z0-9]{2,5}(?:[?#]\S*)?|\S+\.[A-Za-z0-9]{2,5}")
_SIZE = pattern(r"\d+(?:px|%)?")
#: A path of the site's own: ``/docs/start/``, ``../a.html``.
_SITE_PATH = pattern(r"\.{0,2}/[^\s,]*")


#: How a one-line tag is read: its arguments to its Markdown (None: not as expected).
_Reading = Callable[[list[tuple[str, bool]]], "str | None"]


def _arguments(text: str) -> list[tuple[str, bool]]:
    """``text`` split as the tags split it: (argument, whether it was quoted)."""
    return [
        (
            m.group(1) if m.group(1) is not None else m.group(2) or m.group(3) or "",
            m.group(3) is None,
        )
        for m in _ARGUMENT.finditer(text)
    ]


# --- paired tags on lines of their own ---------------------------------------------------


def template_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: a paired tag this module knows, from its opening line to its closing."""
    opened = line_match(state, start, "{%", _TAG_LINE)
    name = opened.group(1) if opened else ""
    if opened is None or name not in BLOCK_TAGS:
        return False
    close = _closing_line(state, start, end, name)
    if close is None:
        return False
    if silent:
        return True
    arguments = opened.group(2).strip()
    if name in CODE_TAGS:
        _code(state, start, close, name, arguments)
    elif name in NOTE_TAGS:
        callout(state, start, close, *_note(name, arguments))
    elif name in QUOTE_TAGS:
        with quoted(state, start, close):
            inner(state, start, close)
            credit = _credit(arguments) if name != "pullquote" else ""
            if credit:
                paragraph(state, credit, close)
    elif name == "katex":  # dev.to's display formula
        token = state.push("math_block", "math", 0)
        token.content = state.getLines(start + 1, close, state.sCount[start], True)
        token.markup, token.map, token.block = "$$", [start, close + 1], True
    elif name == "raw" or name in GROUP_TAGS:
        if name == "timeline" and arguments.split(",")[0].strip():  # its title, then colour
            paragraph(state, f"**{escaped(arguments.split(',')[0].strip())}**", start)
        first = len(state.tokens)
        inner(state, start, close)
        if name == "timeline":
            _timeline_nodes(state, first)
        if name == "raw":  # its text's template tags and variables are shown as written
            for token in state.tokens[first:]:
                if token.type == "inline":
                    token.content = outside_code(token.content, _as_written)
    elif name == "timenode":  # Volantis's and Butterfly's: a date, then what happened
        if arguments:
            paragraph(state, f"**{escaped(arguments.split(',')[0].strip())}**", start)
        inner(state, start, close)
    elif name == "tabs":
        inner(state, start, close, TABS)
    elif name == "tab":
        titled = re.search(r"title\s*=\s*(?:\"([^\"]*)\"|'([^']*)')", arguments)
        title = (titled.group(1) or titled.group(2) or "") if titled else arguments
        if title.strip():
            tab_title(state, title, start)
        inner(state, start, close)
    state.line = close + 1
    return True


#: Butterfly's timeline node: ``<!-- timeline 3月 -->`` before what happened then. Its
#: title holds no ``<`` or ``>``: a search from each ``<!--`` stops at the next tag instead
#: of reading to the end of the text (a line of 700 such openings took a second).
_TIMELINE_NODE = pattern(r"\s*<!--\s*timeline\s+([^<>]*?)\s*-->\s*")


def _timeline_nodes(state: StateBlock, first: int) -> None:
    """Each node's title in Butterfly's timeline as a bold line, as ``timenode`` dates
    are: written in an HTML comment, it was hidden with the comment, and the events lost
    their dates. Only the comments the timeline holds, from token ``first`` on."""
    tokens = state.tokens[first:]
    del state.tokens[first:]
    for token in tokens:
        node = _TIMELINE_NODE.fullmatch(token.content) if token.type == "html_block" else None
        if node is None or not node.group(1):
            state.tokens.append(token)
            continue
        line = token.map[0] if token.map else 0
        level, state.level = state.level, token.level
        paragraph(state, f"**{escaped(node.group(1))}**", line)
        state.level = level


def _closing_line(state: StateBlock, start: int, end: int, name: str) -> int | None:
    """The line of ``{% end<name> %}`` closing the tag opened on ``start`` (the same tag
    may nest), or None: none before the end of the block the tag is in."""
    written = r"\{%%-?\s*%s(?![\w-]).*?-?%%\}[ \t]*"
    opens = re.compile(written % re.escape(name))
    return closing_line(
        state, start, end, "{%", opens, re.compile(written % f"end{re.escape(name)}")
    )


def _code(state: StateBlock, start: int, close: int, name: str, arguments: str) -> None:
    """Jekyll's ``{% highlight ruby linenos %}`` and Hexo's ``{% codeblock [title]
    [lang:js] [url] [link text] %}`` as a fenced block with that language and title;
    Hexo's link to the code's source follows it as a line of its own."""
    words = [word for word, _ in _arguments(arguments)]
    language = title = url = link_text = ""
    if name == "highlight":
        language = words[0] if words else ""
    elif name == "mermaid":  # Hexo's mermaid tag: a diagram's source, as a fence says it
        language = "mermaid"
    else:
        kept: list[str] = []
        for word in words:
            if word.startswith("lang:"):
                language = word[len("lang:") :]
            elif not _OPTION.fullmatch(word):
                kept.append(word)
        at = next((i for i, word in enumerate(kept) if _URL.fullmatch(word)), None)
        title = " ".join(kept if at is None else kept[:at])
        if at is not None:
            url, link_text = kept[at], " ".join(kept[at + 1 :])
    code(state, start, close, language + (f" title={_quoted(title)}" if title else ""), "{%")
    if url:
        paragraph(state, f"[{escaped(link_text or url)}](<{url}>)", close)


def _quoted(text: str) -> str:
    return f'"{text}"' if '"' not in text else f"'{text}'"


def _note(name: str, arguments: str) -> tuple[str, str]:
    """The callout kind and title of ``{% note [class] [no-icon] [summary] %}`` (NexT;
    Butterfly's ``{% note [colour] [icon] [style] %}``) or ``{% hint style="…" %}``."""
    if name == "details":  # dev.to's {% details summary %}
        return "details", arguments
    if name in ("hideToggle", "folding", "fold"):  # Butterfly's, Volantis's, Fluid's
        # hideToggle: the title, then its colours; folding: its options, then the title
        parts = arguments.split(",")
        titled = parts[0] if name == "hideToggle" else parts[-1]
        words = [
            w.lstrip("@")
            for w, _ in _arguments(titled)
            if w.lower() not in NOTE_KINDS and w.lower() not in _FOLDED and ":" not in w
        ]
        return "details", " ".join(words)
    if name == "hint":
        style = re.search(r"style\s*=\s*[\"']?([\w-]+)", arguments)
        return NOTE_KINDS.get(style.group(1).lower() if style else "", "info"), ""
    if name == "noteblock":  # Volantis's {% noteblock [style], [title] %}
        looks, _, heading = arguments.partition(",")
        named = [w for w in looks.lower().split() if w in NOTE_KINDS]
        return (NOTE_KINDS[named[0]] if named else "note"), heading.strip()
    kind, title = "note", []
    for index, (word, _) in enumerate(_arguments(arguments)):
        if index == 0 and word.lower() in NOTE_KINDS:
            kind = NOTE_KINDS[word.lower()]
        elif word.lower() in _LOOKS or re.match(r"fa[a-z]*[ -]", word):
            continue
        else:
            title.append(word)
    return kind, " ".join(title)


def _credit(arguments: str) -> str:
    """The line under a quote: Hexo's ``{% blockquote [author[, source]] [link]
    [source_link_title] %}`` as ``— author, source`` with the link, in Markdown."""
    words = [word for word, _ in _arguments(arguments)]
    at = next((i for i, word in enumerate(words) if _URL.fullmatch(word)), None)
    who = " ".join(words if at is None else words[:at])
    parts = [escaped(part.strip()) for part in who.split(",", 1) if part.strip()]
    if at is not None:
        link = words[at]
        shown = " ".join(words[at + 1 :]) or link
        parts.append(f"[{escaped(shown)}](<{link}>)")
    return credit_line(parts)


# --- tags within a line ------------------------------------------------------------------


def template_tags(state: StateCore) -> None:
    """Core rule, before inline parsing: each one-line tag this module knows, in the text
    of a paragraph, heading or cell, becomes its Markdown (code spans are left alone)."""
    if "{%" not in state.src and "%[" not in state.src:
        return
    for token in state.tokens:
        if token.type == "inline" and ("{%" in token.content or "%[" in token.content):
            token.content = outside_code(token.content, _read_tags)


def _read_tags(text: str) -> str:
    if "raw" in text:  # before the tags inside are read: they are the raw text
        text = _RAW_SPAN.sub(lambda found: _as_written(found.group(1)), text)
    text = _TAG.sub(_markdown_of, text) if "{%" in text else text
    return _EMBED.sub(_embedded, text) if "%[" in text else text


#: ``{% raw %}…{% endraw %}`` within a line: what it holds (group 1) is text the site
#: shows as written, template tags and variables and all.
_RAW_SPAN = pattern(r"\{%-?\s*raw\s*-?%\}(.*?)\{%-?\s*endraw\s*-?%\}", re.DOTALL)
#: The opening brace of a template's tag or variable.
_TEMPLATE_BRACE = pattern(r"\{(?=[{%])")


def _as_written(text: str) -> str:
    """Markdown showing ``text``'s template tags and variables as written: their opening
    brace as an entity, which no later reading (nor check) takes for a template's."""
    return _TEMPLATE_BRACE.sub("&#123;", text)


#: Hashnode's embed: ``%[https://www.youtube.com/watch?v=…]`` (a video, a tweet, a gist).
_EMBED = pattern(r"%\[((?:https?:)?//[^\s\]]+)\]")


def _embedded(match: re.Match[str]) -> str:
    address = match.group(1)
    tag = (
        "video"
        if re.search(r"youtube\.com|youtu\.be|vimeo\.com|bilibili\.com", address)
        else "iframe"
    )
    return raw_media(tag, address)


def _markdown_of(match: re.Match[str]) -> str:
    """What one tag stands for, or the tag as written when it is not one of ours."""
    made = _INLINE.get(match.group(1))
    shown = made(_arguments(match.group(2))) if made else None
    return match.group(0) if shown is None else shown


def _image(arguments: list[tuple[str, bool]]) -> str | None:
    """Hexo's ``{% asset_img [class names] slug [width] [height] [title [alt]] %}`` and
    ``{% img … %}``, Eleventy's ``{% image "src" "alt" %}``: the image, titled as the
    site titles it. An asset's ``slug`` is read beside the issue, else in the folder
    named after the issue (Hexo's asset folder)."""
    arguments = [(word.rstrip(","), quoted) for word, quoted in arguments if word != ","]
    at = next(
        (i for i, (word, quoted) in enumerate(arguments) if not quoted and _FILE.fullmatch(word)),
        None,
    )
    if at is None and arguments and arguments[0][1] and _FILE.fullmatch(arguments[0][0]):
        at = 0  # Eleventy's {% image "src" "alt" %}: the file is quoted too
    if at is None:
        return None
    rest = arguments[at + 1 :]
    while rest and not rest[0][1] and _SIZE.fullmatch(rest[0][0]):
        rest = rest[1:]
    quoted = [word for word, was in rest if was]
    if len(quoted) == 1 and '"' in quoted[0]:
        quoted = [word for word, _ in _arguments(quoted[0])]  # '"title" "alt"' in one
    title = quoted[0] if quoted else " ".join(word for word, _ in rest)
    alt = quoted[1] if len(quoted) > 1 else title
    return f"![{escaped(alt)}](<{arguments[at][0]}>)"


def _link(arguments: list[tuple[str, bool]]) -> str | None:
    """Hexo's ``{% link text url [external] [title] %}``; Butterfly's ``{% link 标题, url,
    icon %}`` (its parts between commas: a title may hold spaces)."""
    written = " ".join(word for word, _ in arguments)
    parts = [part.strip() for part in written.split(",")]
    if len(parts) > 1 and (_URL.fullmatch(parts[1]) or _SITE_PATH.fullmatch(parts[1])):
        # A path of the site's own (Volantis: '/site-settings/') is still the link's
        # target; check says no reader can follow it. The icon after it is no target.
        return f"[{escaped(parts[0] or parts[1])}](<{parts[1]}>)"
    at = next((i for i, (word, _) in enumerate(arguments) if _URL.fullmatch(word)), None)
    if at is None:
        return None
    text = " ".join(word for word, _ in arguments[:at]) or arguments[at][0]
    return f"[{escaped(text)}](<{arguments[at][0]}>)"


def _media(tag: str, address: Callable[[str], str]) -> _Reading:
    """A tag naming a video or a page by ``address(first argument)``, as the raw element
    every channel shows as a line linking to it."""

    def made(arguments: list[tuple[str, bool]]) -> str | None:
        named = {}
        for word, _ in arguments:
            key, equals, value = word.partition("=")
            if equals and key.isidentifier():
                named[key] = value
        first = named.get("url") or (arguments[0][0] if arguments else "")
        if not first:
            return None
        return raw_media(tag, address(first.strip("\"'")))

    return made


def _button(arguments: list[tuple[str, bool]]) -> str | None:
    """Butterfly's ``{% btn url,text,icon,style %}`` and Volantis's ``{% btn, text, url,
    icon %}``: a link with its text."""
    parts = [part.strip() for part in " ".join(w for w, _ in arguments).split(",")]
    at = next((i for i, p in enumerate(parts) if _URL.fullmatch(p) or _SITE_PATH.fullmatch(p)), -1)
    if at < 0 or len(parts) < 2:
        return None
    # Butterfly's text follows the address; Volantis's ({% btn, 文字, url %}) comes first.
    before = [p for p in parts[:at] if p]
    after = [p for p in parts[at + 1 :] if p and not p.startswith(("fa", "/"))]
    words = before[-1] if before else (after[0] if after else parts[at])
    return f"[{escaped(words)}](<{parts[at]}>)"


#: NexT's label: ``class@text``, the class a colour's name.
_CLASSED_LABEL = pattern(r"(?<![A-Za-z])[A-Za-z]+@(.+)", re.DOTALL)


def _label(arguments: list[tuple[str, bool]]) -> str:
    """A label's text: NexT's ``{% label primary@新特性 %}`` is what follows the ``@``
    (all of it: the text may have spaces), Butterfly's ``{% label 文字 blue %}`` the first
    word (a colour follows)."""
    words = [word for word, _ in arguments]
    classed = _CLASSED_LABEL.fullmatch(" ".join(words)) if words else None
    if classed is not None:
        return classed.group(1)
    return words[0] if words else ""


def _bilibili(video: str) -> str:
    number = video.removeprefix("av")
    return f"https://www.bilibili.com/video/{'av' + number if number.isdigit() else video}"


#: The one-line tags this module reads, by name.
_INLINE: dict[str, _Reading] = {
    "raw": lambda arguments: "",
    "endraw": lambda arguments: "",
    "label": lambda arguments: escaped(_label(arguments)) or None,
    "btn": _button,
    "asset_img": _image,
    "asset_image": _image,
    "img": _image,
    "image": _image,
    "link": _link,
    "youtube": _media(
        "video", lambda v: v if "//" in v else f"https://www.youtube.com/watch?v={v}"
    ),
    "vimeo": _media("video", lambda v: v if "//" in v else f"https://vimeo.com/{v}"),
    "bilibili": _media("video", lambda v: v if "//" in v else _bilibili(v)),
    "video": _media("video", lambda v: v),
    "iframe": _media("iframe", lambda v: v),
    "embed": _media("iframe", lambda v: v),
    "gist": _media("iframe", lambda v: v if "//" in v else f"https://gist.github.com/{v}"),
    # dev.to's embeds
    "github": _media("iframe", lambda v: v if "//" in v else f"https://github.com/{v}"),
    "twitter": _media("iframe", lambda v: v if "//" in v else f"https://twitter.com/i/status/{v}"),
    "tweet": _media("iframe", lambda v: v if "//" in v else f"https://twitter.com/i/status/{v}"),
    "codepen": _media("iframe", lambda v: v),
    "codesandbox": _media("iframe", lambda v: v if "//" in v else f"https://codesandbox.io/s/{v}"),
    "stackblitz": _media(
        "iframe", lambda v: v if "//" in v else f"https://stackblitz.com/edit/{v}"
    ),
    "jsfiddle": _media("iframe", lambda v: v if "//" in v else f"https://jsfiddle.net/{v}"),
    "replit": _media("iframe", lambda v: v if "//" in v else f"https://replit.com/{v}"),
    "instagram": _media(
        "iframe", lambda v: v if "//" in v else f"https://www.instagram.com/p/{v}/"
    ),
    # HackMD's (CodiMD's) embeds: {%slideshare user/deck %}, {%speakerdeck …%}, {%pdf url %}
    "slideshare": _media("iframe", lambda v: v if "//" in v else f"https://www.slideshare.net/{v}"),
    "speakerdeck": _media("iframe", lambda v: v if "//" in v else f"https://speakerdeck.com/{v}"),
    "pdf": _media("iframe", lambda v: v),
}
