"""A Telegram channel's history, as Telegram Desktop exports it (``messages.html``) → an issue.

An editor who runs a Telegram channel and makes the week's posts a newsletter exports
the channel (Telegram Desktop: the channel's menu, "Export chat history", HTML, the
week's dates, photos ticked). The export is a folder: ``messages.html`` (and
``messages2.html``… past every thousand messages), ``photos/``, ``css/``, ``js/``.
``crosspost import`` refused it: a chat page has no article body.

Here each message is a section headed by the time it was posted (the ``title`` of its
date, which holds the day and the time zone; the page shows the time alone); messages
posted in the same minute, one after the other (an album of photos and its caption),
are one section. A message's text is Markdown (bold, links, line breaks); a photo is a
picture, the full-size file the export links copied beside the issue (its thumbnail
only when the full one is missing); a forwarded message is a quote naming whom it came
from and when. The channel's name is the title, the days the messages span after it.
Telegram's own lines (the day's separator, "Channel created") are left out.

A video (an animation, a round video message too) or a sound (a voice message, an audio
file) is what a ``<video>`` or ``<audio>`` in an issue is: every channel shows a line in
its place (``▶ 视频``, the video's first frame above it), linking to its file in the
export, and check says that no reader can follow that link until the file is on the
web; a file (a document) is a link to it, named by its file name. The export's files
are not copied (a video may be of gigabytes): the link leads to the export's folder. One
the export did not include (its size over the limit, its kind not ticked) is still its
line, linking nowhere (a file: its name), and the import's warning says so. What no
channel can show at all (a sticker, a poll, a location, a contact, a photo the export
did not include) is named in a warning, message by message, with what to do.
"""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import unquote

import yaml
from bs4 import BeautifulSoup, Tag
from markdownify import MarkdownConverter

from crosspost.errors import IssueError
from crosspost.importers.article import ImportedArticle, decode_page, image_target, words_of
from crosspost.issue.blocks import destination, escaped
from crosspost.patterns import pattern

#: What a page of Telegram Desktop's export holds and no other page does.
_SIGN = re.compile(rb'class="history"[\s\S]{0,2000}class="message')
#: A message's date as its ``title`` gives it: ``18.11.2026 09:30:12 UTC+08:00`` (the
#: zone since Telegram Desktop 3.x; older exports have none).
_STAMP = pattern(r"(\d{2})\.(\d{2})\.(\d{4}) (\d{2}):(\d{2}):(\d{2})(?: UTC([+-])(\d{2}):(\d{2}))?")
#: A page of the export after the first (``messages2.html``), linked from the one before.
_PAGE = pattern(r"messages(\d*)\.html")
#: The media the export marks that no channel can show, and what a warning calls each.
_LEFT_OUT = {
    "media_photo": "a photo the export did not include",
    "sticker_wrap": "a sticker",
    "media_poll": "a poll",
    "media_location": "a location",
    "media_contact": "a contact",
    "media_game": "a game",
    "media_invoice": "an invoice",
    "media_call": "a call",
}
#: The export's media that an issue holds as the element of its kind (``<video>``,
#: ``<audio>``; ``a`` is a link to a file), and what the import's warning calls each.
#: ``video_file_wrap`` and ``animated_wrap`` are a video and an animation the export
#: holds (with a first frame); ``media_video`` is one it left out, or a round video
#: message; the rest are Telegram Desktop's "generic" media, a link when the file is in.
_PLAYED = {
    "video_file_wrap": ("video", "a video"),
    "animated_wrap": ("video", "an animation"),
    "media_video": ("video", "a video"),
    "media_voice_message": ("audio", "a voice message"),
    "media_audio_file": ("audio", "an audio file"),
    "media_file": ("a", "a file"),
}


def is_telegram_export(raw: bytes) -> bool:
    """Whether a saved page is a page of Telegram Desktop's HTML export of a chat."""
    return b"page_body chat_page" in raw or bool(_SIGN.search(raw))


@dataclass
class _Section:
    """The messages of one section: their time, their Markdown, the photos they hold."""

    posted: datetime | None
    parts: list[str] = field(default_factory=list)


def import_telegram(path: Path | str, output: Path) -> ImportedArticle:
    """Convert Telegram Desktop's export of a channel (see the module): every page of it
    from ``path`` on, its photos copied to ``output``'s ``images/``."""
    path = Path(path)
    sections: list[_Section] = []
    warnings: list[str] = []
    copied: list[Path] = []
    name = ""
    for page in _pages(path):
        soup = BeautifulSoup(decode_page(page, page.read_bytes()), "html.parser")
        header = soup.select_one(".page_header .text")
        name = name or words_of(header)
        for message in soup.select(".history .message.default"):
            _read(page, message, output, sections, warnings, copied)
    if not sections:
        raise IssueError(
            path,
            "is Telegram Desktop's export of a chat with no messages in it; export the "
            "channel again with the dates of the posts you want",
        )
    days = sorted({section.posted.date() for section in sections if section.posted})
    span = (
        f" {days[0]:%Y-%m-%d}" + (f" – {days[-1]:%Y-%m-%d}" if days[-1] != days[0] else "")
        if days
        else ""
    )
    front: dict[str, object] = {"title": f"{name or path.parent.name}{span}"}
    first = next((section.posted for section in sections if section.posted), None)
    if first is not None:
        front["first_published"] = first.isoformat()
    header_text = yaml.safe_dump(front, allow_unicode=True, sort_keys=False, width=1000)
    body = "\n\n".join(_markdown(section) for section in sections)
    return ImportedArticle(f"---\n{header_text}---\n\n{body}\n", tuple(copied), tuple(warnings))


def _pages(first: Path) -> list[Path]:
    """``first`` and the pages after it the export wrote (``messages2.html`` …), in order."""
    pages = [first]
    found = _PAGE.fullmatch(first.name)
    number = int(found.group(1) or 1) if found else 0
    while number:
        number += 1
        following = first.with_name(f"messages{number}.html")
        if not following.is_file():
            break
        pages.append(following)
    return pages


def _read(
    page: Path,
    message: Tag,
    output: Path,
    sections: list[_Section],
    warnings: list[str],
    copied: list[Path],
) -> None:
    """One message, added to the section of the minute it was posted in (a new one when
    it is the first of its minute)."""
    date = message.select_one(".body > .date[title]")
    posted = _posted(str(date.get("title", ""))) if date is not None else None
    last = sections[-1] if sections else None
    same_minute = (
        last is not None
        and "joined" in (message.get("class") or [])
        and posted is not None
        and last.posted is not None
        and posted.replace(second=0) == last.posted.replace(second=0)
    )
    section = last if same_minute and last is not None else _Section(posted)
    if section is not last:
        sections.append(section)
    where = f"message {str(message.get('id', '')).removeprefix('message')}"
    forwarded = message.select_one(".forwarded.body")
    holder = forwarded if forwarded is not None else message.select_one(".body")
    if holder is None:
        return
    for media in holder.select(".media_wrap > *"):
        shown = _media(page, media, output, copied, where, warnings)
        if shown:
            section.parts.append(shown)
    text = holder.find("div", class_="text", recursive=False)
    words = _text(text) if isinstance(text, Tag) else ""
    if forwarded is not None:
        section.parts.append(_quoted(forwarded, words))
    elif words:
        section.parts.append(words)


def _posted(title: str) -> datetime | None:
    """The moment a ``title`` of the export's names, in its own zone (UTC+8 if none)."""
    found = _STAMP.search(title)
    if found is None:
        return None
    day, month, year, hour, minute, second, sign, zone_hours, zone_minutes = found.groups()
    offset = timedelta(hours=8)
    if sign:
        offset = timedelta(hours=int(zone_hours), minutes=int(zone_minutes))
        offset = -offset if sign == "-" else offset
    return datetime(
        int(year), int(month), int(day), int(hour), int(minute), int(second),
        tzinfo=timezone(offset),
    )  # fmt: skip


def _media(
    page: Path, media: Tag, output: Path, copied: list[Path], where: str, warnings: list[str]
) -> str:
    """One of a message's media as the issue's Markdown ("" when no channel can show
    it), and the warning it calls for (see the module)."""
    classes = set(media.get_attribute_list("class"))
    if "photo_wrap" in classes:
        picture = _copied(_local(page, media.get("href")), output, copied)
        if picture is None:
            thumbnail = media.find("img")
            source = thumbnail.get("src") if isinstance(thumbnail, Tag) else None
            picture = _copied(_local(page, source), output, copied)
        if picture is None:
            warnings.append(f"{where}: its photo is not in the export's folder; left out")
            return ""
        return f"![](<{picture}>)"
    kind = next((kind for kind in _PLAYED if kind in classes), None)
    if kind is None:
        left_out = next((what for name, what in _LEFT_OUT.items() if name in classes), None)
        if left_out is None:  # a kind of media newer than this list: named, not lost
            left_out = f"media of a kind crosspost does not know ({' '.join(sorted(classes))})"
        warnings.append(
            f"{where}: {left_out} is left out (neither WeChat nor Zhihu shows one); "
            "add it to the issue by hand if it matters"
        )
        return ""
    element, what = _PLAYED[kind]
    local = _local(page, media.get("href"))
    title = media.select_one(".title")
    name = words_of(title)
    if local is None:
        reason = media.select_one(".description") or media.select_one(".status")
        said = words_of(reason)
        shown_as = "its name" if element == "a" else "a line linking nowhere"
        warnings.append(
            f"{where}: {what}{f' ({name})' if element == 'a' and name else ''} is not in the "
            f"export{f' (Telegram Desktop: {said!r})' if said else ''}, so {shown_as} is "
            "shown in its place; export the chat again with it ticked, or put it on the "
            "web and link to it"
        )
        return escaped(name) if element == "a" else f"<{element}></{element}>"
    address = _relative(local, output.parent)
    warnings.append(
        f"{where}: {what} is shown as a link to its file in the export ({address}), which "
        "no reader can follow; put the file on the web and write its address in the issue"
    )
    if element == "a":
        return f"[{escaped(name or local.name)}]({destination(address)})"
    frame = media.find("img")
    first_frame = _local(page, frame.get("src") if isinstance(frame, Tag) else None)
    poster = _copied(first_frame, output, copied)
    attributes = f' src="{html.escape(address)}"'
    if poster is not None:
        attributes += f' poster="{html.escape(poster)}"'
    return f"<{element}{attributes}></{element}>"


def _local(page: Path, address: object) -> Path | None:
    """The file of the export a page's ``href`` or ``src`` names, None when there is
    none. Only a file inside the export's folder: a page that names ``../../.ssh/id_rsa``
    or ``/etc/passwd`` is no export's, and its file is neither copied nor linked to."""
    if not isinstance(address, str) or not address or "://" in address:
        return None
    local = page.parent / unquote(address)
    if not local.is_file() or not local.resolve().is_relative_to(page.parent.resolve()):
        return None
    return local


def _copied(local: Path | None, output: Path, copied: list[Path]) -> str | None:
    """A picture of the export, copied to the issue's ``images/``: its path there."""
    if local is None:
        return None
    target_dir = output.parent / "images"
    target_dir.mkdir(parents=True, exist_ok=True)
    target = image_target(local, target_dir)
    if not target.exists():
        target.write_bytes(local.read_bytes())
        copied.append(target)
    return f"images/{target.name}"


def _relative(local: Path, folder: Path) -> str:
    """``local``'s path from the issue's ``folder``, ``/``-separated (absolute when there
    is none: another drive, on Windows)."""
    try:
        return Path(os.path.relpath(local.resolve(), folder.resolve())).as_posix()
    except ValueError:
        return local.resolve().as_posix()


def _text(text: Tag) -> str:
    """A message's text as Markdown: a hashtag its words, line breaks kept."""
    for link in text.find_all("a"):
        if not link.get("href") and link.get("onclick"):
            link.unwrap()  # a hashtag or a command: Telegram's own search, no address
    converter = MarkdownConverter(heading_style="ATX", bullets="-", strip=["span"])
    markdown = converter.convert_soup(text)
    return re.sub(r"\n{3,}", "\n\n", markdown).strip()


def _quoted(forwarded: Tag, words: str) -> str:
    """A forwarded message: a quote, naming whom it came from and when."""
    source = forwarded.find("div", class_="from_name", recursive=False)
    stamp = source.find(class_="date") if isinstance(source, Tag) else None
    posted = _posted(str(stamp.get("title", ""))) if isinstance(stamp, Tag) else None
    if isinstance(stamp, Tag):
        stamp.decompose()
    who = words_of(source)
    said = f"转自 **{who}**" if who else "转发"
    if posted is not None:
        said += f"（{posted:%Y-%m-%d %H:%M}）"
    lines = [said, "", *words.split("\n")] if words else [said]
    return "\n".join(f"> {line}".rstrip() for line in lines)


def _markdown(section: _Section) -> str:
    heading = f"## {section.posted:%Y-%m-%d %H:%M}" if section.posted else "## 消息"
    return "\n\n".join([heading, *section.parts])
