"""A saved WeChat or Zhihu article page (what a browser's "Save page" writes) → an issue.

This is how an editor cross-posts an article that already ran on one channel. The
article body (WeChat ``#js_content``, Zhihu's ``Post-RichText``) is converted to
Markdown by markdownify; title, author and publish time go into the front matter;
images the saved page kept locally are copied next to the new issue.

A page marked up as an ``h-entry`` (microformats2) is read by its marks: Medium's
export writes each post so (``p-name``, ``p-summary``, ``e-content``, ``p-author``,
``dt-published``, ``p-canonical``), its footer ("Exported from Medium") outside the
body. The body's own copy of the title and subtitle (Medium's ``graf--title`` and
``graf--subtitle``) is left out, the subtitle kept as the digest. A figure's
``<figcaption>`` is its picture's caption (``![](a.png "caption")``), not a paragraph
under it; a frame (a video, an embed) is kept as a raw ``<iframe>`` (every channel
shows a line linking to it, and check says so) rather than left out without a word; a
``<br>`` in code is a line break of the code; Medium's card linking another post is
that link, its subtitle after it.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from html import escape as html_escape
from pathlib import Path
from urllib.parse import unquote, urlparse

import yaml
from bs4 import BeautifulSoup, Tag
from bs4.dammit import EncodingDetector
from markdownify import MarkdownConverter

from crosspost.errors import IssueError
from crosspost.patterns import pattern

CHINA = timezone(timedelta(hours=8))

# Where each platform keeps the parts of an article, most specific first.
_BODY = (
    "#js_content",
    ".rich_media_content",
    ".Post-RichText",
    ".RichText.ztext",
    ".h-entry .e-content",
    "article",
)
_TITLE = ("#activity-name", ".rich_media_title", ".Post-Title", ".h-entry .p-name", "h1")
_SUMMARY = (".h-entry .p-summary",)
_AUTHOR = (
    ".h-entry .p-author",
    "#js_author_name",
    ".rich_media_meta_text",
    "#js_name",
    ".AuthorInfo-name .UserLink-link",
    ".AuthorInfo-name",
)
_TIME = ("#publish_time", ".ContentItem-time")
_META_TIME = ("article:published_time", "datePublished")
_DATE = pattern(r"(\d{4})[-年/.](\d{1,2})[-月/.](\d{1,2})日?(?:\s+(\d{1,2}):(\d{2}))?")
_WECHAT_CT = pattern(r"""\bvar\s+ct\s*=\s*["']?(\d{9,11})""")


@dataclass(frozen=True)
class ImportedArticle:
    document: str
    images_copied: tuple[Path, ...]
    warnings: tuple[str, ...]


def import_article(path: Path | str, output: Path) -> ImportedArticle:
    """Convert a saved article page; local images are copied to ``output``'s ``images/``."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise IssueError(
            path, f"cannot be read ({error.strerror or error}); check the path"
        ) from None
    html = decode_page(path, raw)
    soup = BeautifulSoup(html, "html.parser")
    body = _first(soup, _BODY)
    if body is None:
        raise IssueError(
            path,
            "has no article body (no #js_content or Post-RichText); save the article page itself",
        )
    for junk in body.select("script, style, noscript, mp-style-type"):
        junk.decompose()
    title = _text_of(soup, _TITLE)
    summary = _text_of(soup, _SUMMARY)
    _tidy(body, title, summary)
    warnings: list[str] = []
    copied = _localise_images(path, body, output, warnings)
    markdown = _Converter(heading_style="ATX", bullets="-", strip=["span"]).convert_soup(body)
    markdown = re.sub(r"\n{3,}", "\n\n", markdown).strip() + "\n"
    front: dict[str, object] = {"title": title or path.stem}
    author = _text_of(soup, _AUTHOR)
    if author:
        front["author"] = author
    if summary:
        front["digest"] = summary
    published = _published(soup, html)
    if published:
        front["first_published"] = published
    source = _canonical(soup)
    if source:
        front["source_url"] = source
    header = yaml.safe_dump(front, allow_unicode=True, sort_keys=False, width=1000)
    return ImportedArticle(f"---\n{header}---\n\n{markdown}", tuple(copied), tuple(warnings))


#: Declared charsets read as the superset browsers use for them (WHATWG Encoding).
_SUPERSET = {"gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "iso-8859-1": "cp1252"}


def decode_page(path: Path, raw: bytes) -> str:
    """The page as text, in the charset it declares (a BOM or ``<meta charset>``), else UTF-8.

    Saved Chinese pages are often GBK; read as UTF-8 they would become mojibake in the
    new issue, silently. A page that is not what it says is one clear error instead.
    """
    detector = EncodingDetector(raw, is_html=True)
    declared = detector.sniffed_encoding or EncodingDetector.find_declared_encoding(
        raw, is_html=True, search_entire_document=True
    )
    encoding = _SUPERSET.get((declared or "utf-8").lower(), declared or "utf-8")
    try:
        return raw.decode(encoding).removeprefix("\ufeff")
    except LookupError:
        problem = f"declares the unknown charset {declared!r}"
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        problem = f"is not valid {encoding} text (line {line})"
    raise IssueError(path, f"{problem}; save the page again as UTF-8, or fix its <meta charset>")


def _first(soup: BeautifulSoup, selectors: tuple[str, ...]) -> Tag | None:
    for selector in selectors:
        found = soup.select_one(selector)
        if found is not None:
            return found
    return None


def _text_of(soup: BeautifulSoup, selectors: tuple[str, ...]) -> str:
    found = _first(soup, selectors)
    return words_of(found)


def _canonical(soup: BeautifulSoup) -> str | None:
    """The article's own address: ``og:url``, else an h-entry's ``p-canonical`` link."""
    meta = soup.find("meta", attrs={"property": "og:url"})
    link = soup.select_one(".h-entry a.p-canonical, .h-entry a.u-url")
    for found in (
        meta.get("content") if isinstance(meta, Tag) else None,
        link and link.get("href"),
    ):
        if isinstance(found, str) and found.startswith("http"):
            return found
    return None


def _published(soup: BeautifulSoup, html: str) -> str | None:
    """The publish time as ISO-8601 with a timezone (China time when the page gives none)."""
    stamps: list[object] = []
    for name in _META_TIME:
        meta = soup.find("meta", attrs={"property": name}) or soup.find(
            "meta", attrs={"itemprop": name}
        )
        stamps.append(meta.get("content") if isinstance(meta, Tag) else None)
    entry = soup.select_one(".h-entry .dt-published")
    stamps.append(entry.get("datetime") if entry is not None else None)
    for stamp in stamps:
        if not stamp or not isinstance(stamp, str):
            continue
        try:
            moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError:
            continue
        return (moment if moment.tzinfo else moment.replace(tzinfo=CHINA)).isoformat()
    stamp = _WECHAT_CT.search(html)
    if stamp:
        return datetime.fromtimestamp(int(stamp.group(1)), CHINA).isoformat()
    match = _DATE.search(_text_of(soup, _TIME))
    if match:
        year, month, day, hour, minute = (int(g) if g else 0 for g in match.groups())
        return datetime(year, month, day, hour, minute, tzinfo=CHINA).isoformat()
    return None


def _localise_images(page: Path, body: Tag, output: Path, warnings: list[str]) -> list[Path]:
    """Copy images the saved page has on disk next to the new issue; rewrite their src."""
    copied: list[Path] = []
    target_dir = output.parent / "images"
    for image in body.find_all("img"):
        # A browser's "save page" rewrites src to its _files folder but leaves WeChat's
        # lazy-loading data-src pointing at the CDN: the local copy wins when it exists.
        source = str(image.get("src") or "")
        parsed = urlparse(source)
        local = (page.parent / unquote(parsed.path)).resolve() if source else page.parent
        if not source or parsed.scheme or not local.is_file():
            remote = image.get("data-src")
            if source and not parsed.scheme and not source.startswith("data:"):
                kept = f"kept its web address {remote}" if remote else "kept as written"
                warnings.append(f"image {source!r} is not in the saved page's folder; {kept}")
            if remote:
                image["src"] = remote  # WeChat's lazy loading keeps the real address here
            continue
        target_dir.mkdir(parents=True, exist_ok=True)
        target = image_target(local, target_dir)
        if not target.exists():
            shutil.copyfile(local, target)
            copied.append(target)
        image["src"] = f"images/{target.name}"
        if image.get("data-src"):
            del image["data-src"]
    return copied


def image_target(local: Path, target_dir: Path) -> Path:
    """Where ``local`` goes in ``images/``: its own name, unless a different picture is
    already there under that name (every WeChat image is ``640.png``), then the name with
    a piece of its content hash. An identical file there is reused, not copied again."""
    target = target_dir / local.name
    if not target.exists() or _same_bytes(local, target):
        return target
    digest = hashlib.sha256(local.read_bytes()).hexdigest()[:10]
    return target_dir / f"{local.stem}-{digest}{local.suffix}"


def _same_bytes(one: Path, other: Path) -> bool:
    return one.stat().st_size == other.stat().st_size and one.read_bytes() == other.read_bytes()


def words_of(element: object) -> str:
    """An element's words as a reader sees them, on one line, blanks folded ("" for
    nothing, or for what is no element: a ``find`` that found text or nothing)."""
    return " ".join(element.get_text(" ").split()) if isinstance(element, Tag) else ""


def _tidy(body: Tag, title: str, summary: str) -> None:
    """The body as a reader of the issue should get it (see the module): the title and
    subtitle it repeats left out, figures' captions on their pictures, frames kept, code
    lines apart, Medium's cards as links."""
    for heading in body.select(".graf--title, .graf--subtitle")[:2]:
        if words_of(heading) in (title, summary):
            heading.decompose()
    first_rule = body.select_one(".section--first .section-divider")
    if first_rule is not None:  # Medium's rule over its first section: over nothing
        first_rule.decompose()
    for figure in body.find_all("figure"):
        pictures, caption = figure.find_all("img"), figure.find("figcaption")
        if len(pictures) == 1 and caption is not None and words_of(caption):
            if not pictures[0].get("title"):
                pictures[0]["title"] = words_of(caption)
            caption.decompose()
    for frame in body.find_all("iframe"):
        address = str(frame.get("src") or frame.get("data-src") or "")
        if address.startswith("//"):
            address = "https:" + address
        if not address.startswith("http"):
            frame.decompose()
            continue
        frame.attrs = {"src": address}
    for code in body.find_all("pre"):
        for line_break in code.find_all("br"):
            line_break.replace_with("\n")
    for card in body.select(".graf--mixtapeEmbed"):
        link = card.find("a", href=True)
        if link is None:
            continue
        name, subtitle = link.find("strong"), link.find("em")
        shown = words_of(name) if name is not None else words_of(link)
        replacement = BeautifulSoup("<p><a></a></p>", "html.parser")
        anchor = replacement.a
        assert anchor is not None
        anchor["href"] = link["href"]
        anchor.string = shown
        if subtitle is not None and words_of(subtitle):
            anchor.insert_after(f" — {words_of(subtitle)}")
        card.replace_with(replacement)


class _Converter(MarkdownConverter):
    """markdownify, keeping a frame as the raw ``<iframe>`` it was (see the module)."""

    def convert_iframe(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        address = html_escape(str(el.get("src", "")), quote=True)
        return f'\n\n<iframe src="{address}"></iframe>\n\n'
