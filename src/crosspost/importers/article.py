"""A saved WeChat or Zhihu article page (what a browser's "Save page" writes) → an issue.

This is how an editor cross-posts an article that already ran on one channel. The
article body (WeChat ``#js_content``, Zhihu's ``Post-RichText``) is converted to
Markdown by markdownify; title, author and publish time go into the front matter;
images the saved page kept locally are copied next to the new issue.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import unquote, urlparse

import yaml
from bs4 import BeautifulSoup, Tag
from markdownify import MarkdownConverter

from crosspost.errors import IssueError

CHINA = timezone(timedelta(hours=8))

# Where each platform keeps the parts of an article, most specific first.
_BODY = ("#js_content", ".rich_media_content", ".Post-RichText", ".RichText.ztext", "article")
_TITLE = ("#activity-name", ".rich_media_title", ".Post-Title", "h1")
_AUTHOR = (
    "#js_author_name",
    ".rich_media_meta_text",
    "#js_name",
    ".AuthorInfo-name .UserLink-link",
    ".AuthorInfo-name",
)
_TIME = ("#publish_time", ".ContentItem-time")
_META_TIME = ("article:published_time", "datePublished")
_DATE = re.compile(r"(\d{4})[-年/.](\d{1,2})[-月/.](\d{1,2})日?(?:\s+(\d{1,2}):(\d{2}))?")
_WECHAT_CT = re.compile(r"""\bvar\s+ct\s*=\s*["']?(\d{9,11})""")


@dataclass(frozen=True)
class ImportedArticle:
    document: str
    images_copied: tuple[Path, ...]
    warnings: tuple[str, ...]


def import_article(path: Path | str, output: Path) -> ImportedArticle:
    """Convert a saved article page; local images are copied to ``output``'s ``images/``."""
    path = Path(path)
    try:
        html = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as error:
        raise IssueError(
            path, f"cannot be read ({error.strerror or error}); check the path"
        ) from None
    soup = BeautifulSoup(html, "html.parser")
    body = _first(soup, _BODY)
    if body is None:
        raise IssueError(
            path,
            "has no article body (no #js_content or Post-RichText); save the article page itself",
        )
    for junk in body.select("script, style, noscript, iframe, mp-style-type"):
        junk.decompose()
    warnings: list[str] = []
    copied = _localise_images(path, body, output, warnings)
    markdown = MarkdownConverter(heading_style="ATX", bullets="-", strip=["span"]).convert_soup(
        body
    )
    markdown = re.sub(r"\n{3,}", "\n\n", markdown).strip() + "\n"
    front: dict[str, object] = {"title": _text_of(soup, _TITLE) or path.stem}
    author = _text_of(soup, _AUTHOR)
    if author:
        front["author"] = author
    published = _published(soup, html)
    if published:
        front["first_published"] = published
    canonical = soup.find("meta", attrs={"property": "og:url"})
    if isinstance(canonical, Tag) and str(canonical.get("content", "")).startswith("http"):
        front["source_url"] = str(canonical["content"])
    header = yaml.safe_dump(front, allow_unicode=True, sort_keys=False, width=1000)
    return ImportedArticle(f"---\n{header}---\n\n{markdown}", tuple(copied), tuple(warnings))


def _first(soup: BeautifulSoup, selectors: tuple[str, ...]) -> Tag | None:
    for selector in selectors:
        found = soup.select_one(selector)
        if found is not None:
            return found
    return None


def _text_of(soup: BeautifulSoup, selectors: tuple[str, ...]) -> str:
    found = _first(soup, selectors)
    return " ".join(found.get_text(" ").split()) if found else ""


def _published(soup: BeautifulSoup, html: str) -> str | None:
    """The publish time as ISO-8601 with a timezone (China time when the page gives none)."""
    for name in _META_TIME:
        meta = soup.find("meta", attrs={"property": name}) or soup.find(
            "meta", attrs={"itemprop": name}
        )
        if isinstance(meta, Tag) and meta.get("content"):
            try:
                moment = datetime.fromisoformat(str(meta["content"]).replace("Z", "+00:00"))
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
        target = target_dir / local.name
        if not target.exists():
            shutil.copyfile(local, target)
        copied.append(target)
        image["src"] = f"images/{local.name}"
        if image.get("data-src"):
            del image["data-src"]
    return copied
