"""The front-matter field table: each field's parser and validator, keyed by name.

A field is one line in :data:`FIELDS` (pelican's metadata processors, typed): a
function that turns the YAML value into what :class:`~crosspost.issue.model.Issue` holds, or
an :class:`~crosspost.errors.IssueError` naming the file, the key's line and the fix.
Channel blocks (``wechat:``, ``zhihu:``) read their options from the platform
declarations (:mod:`crosspost.platforms`): each option's kind picks its parser here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import MappingProxyType
from typing import Any

from crosspost.errors import IssueError
from crosspost.patterns import pattern
from crosspost.platforms.base import Option, OptionKind
from crosspost.platforms.registry import PLATFORMS, platform_names

# The same rule as default ids: letters of any script, digits, '.', '_', '-'; no leading
# dot (the id names files in the state dir).
_ID_SAFE = pattern(r"^[^\W_][\w.-]*$")


Parser = Callable[[Any, "FieldContext"], Any]


@dataclass(frozen=True)
class FieldContext:
    """Where a value stands (file, key, the lines of every key), for its error message."""

    path: Path
    lines: Mapping[str, int]
    key: str

    def fail(self, problem: str) -> IssueError:
        return IssueError(self.path, f"'{self.key}' {problem}", self.lines.get(self.key))


def _text(value: Any, ctx: FieldContext) -> str | None:
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        raise ctx.fail("must be text, not a list or mapping")
    text = str(value).strip()
    return text or None


def _line(value: Any, ctx: FieldContext) -> str | None:
    """Text that platforms show on one line (title, author): a line break is a mistake."""
    text = _text(value, ctx)
    if text and "\n" in text:
        raise ctx.fail("must be one line; join the lines (YAML '|' or '>' blocks keep breaks)")
    return text


def _author(value: Any, ctx: FieldContext) -> str | None:
    """An author, or several joined on one line: site generators write a list (Hugo's and
    Jekyll's ``author: [A, B]``, Docusaurus's and distill's ``- name: …`` mappings), and
    a platform takes one line of text."""
    if isinstance(value, dict):
        value = [value]
    if isinstance(value, list):
        names: list[str] = []
        for item in value:
            if isinstance(item, dict):
                item = next((item[k] for k in _NAME_KEYS if isinstance(item.get(k), str)), None)
            if isinstance(item, (str, int, float)) and str(item).strip():
                names.append(str(item).strip())
            elif item is not None:
                raise ctx.fail("must be a name, or a list of names")
        cjk = any("\u2e80" <= char <= "\u9fff" for name in names for char in name)
        value = ("、" if cjk else ", ").join(names) or None
    return _line(value, ctx)


#: The endings of the files an issue is written in, where folders are searched for issues:
#: Markdown's own, Jekyll's posts (``.markdown``) and the MDX of Docusaurus, Astro and
#: Nextra (``.mdx``), which ``render`` and ``check`` read alike.
ISSUE_SUFFIXES = (".md", ".markdown", ".mdx")

#: Where an author's mapping names them (``- name: Jixing Liu``, ``url: …``).
_NAME_KEYS = ("name", "title", "display_name", "username")


def _url(value: Any, ctx: FieldContext) -> str | None:
    text = _text(value, ctx)
    if text and not (text.startswith(("http://", "https://")) or text.startswith("{")):
        raise ctx.fail(f"must be an http(s) URL, got {text!r}")
    return text


def _image_path(value: Any, ctx: FieldContext) -> Path | None:
    text = _text(value, ctx)
    if text is None:
        return None
    if text.startswith(("http://", "https://")):
        raise ctx.fail("must be a file next to the issue (download the image first)")
    image = (ctx.path.parent / text).resolve()
    if image.is_dir():
        raise ctx.fail(f"names {text!r}, which is a folder; name the image file inside it")
    if not image.is_file():
        near = near_file(text, ctx.path.parent)
        hint = f"did you mean {near!r}? " if near else ""
        raise ctx.fail(
            f"names {text!r}, which does not exist next to the issue; {hint}fix the path"
        )
    return image


def near_file(ref: str, folder: Path) -> str | None:
    """The path a missing file's ``ref`` (relative to ``folder``, the issue's) was most
    likely meant to be, written the way ``ref`` is: a typo in its name (``hardwre.png``)
    or its case (``Cover.JPG``) beside a file that is there. None when nothing is near."""
    import difflib  # only for a word that is not right: not on every start

    written = ref.replace("\\", "/")
    if written.startswith("/"):  # from the site's root: looked for in several folders
        return None
    head, _, name = written.rpartition("/")
    place = folder / head if head else folder
    try:
        names = [entry.name for entry in place.iterdir() if entry.is_file()]
    except OSError:  # the folder itself is missing or unreadable: nothing to offer
        return None
    by_lower = {n.lower(): n for n in names}
    close = difflib.get_close_matches(name.lower(), list(by_lower), n=1, cutoff=0.75)
    if not close or by_lower[close[0]] == name:
        return None
    return f"{head}/{by_lower[close[0]]}" if head else by_lower[close[0]]


def _relative_image(value: Any, ctx: FieldContext) -> str | None:
    """A channel's own cover: checked like ``cover`` but kept as written (``settings`` resolves)."""
    image = _image_path(value, ctx)
    return None if image is None else str(_text(value, ctx))


#: How a moment with its timezone is written, for messages.
MOMENT_EXAMPLE = "2026-11-23T09:00:00+08:00"
#: A time zone's name after a date and time (``… America/New_York``, ``… Asia/Shanghai``).
_ZONE_NAME = pattern(r"\d\s*\[?([A-Z][A-Za-z_+-]*/[A-Za-z_/+-]+|UTC|GMT)\]?\s*$")


class ImpossibleMoment(str):
    """A date or time written in YAML's shape that names no real moment (``2024-02-30``,
    ``T25:00``), kept as written with :attr:`reason`, in words.

    PyYAML raises ValueError for such a value, in the middle of the parse; the loader
    keeps it instead, so the field it belongs to decides: ``publish_at`` refuses it with
    its line, a date kept for the record only (``date``, ``lastmod``) warns.
    """

    reason: str

    def __new__(cls, written: str, reason: str) -> ImpossibleMoment:
        moment = super().__new__(cls, written)
        moment.reason = reason
        return moment


def moment_problem(error: ValueError) -> str:
    """Why a date and time names no moment, from :mod:`datetime`'s ValueError, in words."""
    text = str(error)
    if text.startswith("offset must be a timedelta"):
        # datetime's own words here are a repr of two timedeltas.
        return "a timezone offset must be less than 24 hours"
    return text


def parse_moment(path: Path | str, key: str, value: Any, line: int | None) -> datetime | None:
    """A front-matter date and time (``publish_at``, …) as an aware datetime.

    The one rule for every reader of these fields (the loader and the scheduler's scan):
    ISO 8601 with a timezone, since a time without one names a different moment on the
    editor's laptop and on the cron server. Raises :class:`IssueError` naming file:line.
    """
    if value is None:
        return None
    if isinstance(value, ImpossibleMoment):
        raise IssueError(
            path,
            f"'{key}' is {value}, which is no real date and time ({value.reason}); "
            f"fix it, e.g. {MOMENT_EXAMPLE}",
            line,
        )
    if isinstance(value, datetime):
        moment = value
    else:
        try:
            moment = datetime.fromisoformat(str(value).strip())
        except ValueError:
            zone = _ZONE_NAME.search(str(value))
            fix = (
                f"a zone's name ({zone.group(1)}) is not read, only an offset from UTC: "
                f"write the offset it has on that day, e.g. {MOMENT_EXAMPLE}"
                if zone
                else f"write e.g. {MOMENT_EXAMPLE}"
            )
            raise IssueError(
                path, f"'{key}' is not a date and time ({value!r}); {fix}", line
            ) from None
    if moment.utcoffset() is None:
        # The editor's own date and time with Beijing's offset, the zone of both platforms'
        # readers: copied as printed it names the moment meant (an example's date would not).
        beijing = moment.replace(tzinfo=timezone(timedelta(hours=8))).isoformat()
        raise IssueError(
            path,
            f"'{key}' has no timezone, so its moment is ambiguous; add one: write "
            f"{beijing} for that time in Beijing (+08:00; another zone: its offset)",
            line,
        )
    return moment


def _datetime(value: Any, ctx: FieldContext) -> datetime | None:
    return parse_moment(ctx.path, ctx.key, value, ctx.lines.get(ctx.key))


def _channels(value: Any, ctx: FieldContext) -> tuple[str, ...]:
    if value is None:
        return ()
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ctx.fail("must be a list of channel names, e.g. [wechat, zhihu]")
    for name in names:
        if name not in PLATFORMS:
            raise ctx.fail(f"names unknown channel {name!r}; use {', '.join(platform_names())}")
    return tuple(dict.fromkeys(names))


def _identifier(value: Any, ctx: FieldContext) -> str | None:
    text = _text(value, ctx)
    if text is not None and not _ID_SAFE.match(text):
        raise ctx.fail(f"{text!r} may only hold letters, digits, '.', '_' and '-'")
    return text


def series_name(value: Any) -> str | None:
    """A series as front matter names it: ``weekly``, or Hugo's taxonomy list of one,
    ``[weekly]``; an empty list is none. Any words (``Go 入门``): it is only compared."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if value is None or value == [] or isinstance(value, (dict, list)):
        return None
    return str(value).strip() or None


def _series(value: Any, ctx: FieldContext) -> str | None:
    if isinstance(value, list) and len(value) > 1:
        raise ctx.fail("names more than one series; keep the one 往期回顾 lists, e.g. weekly")
    if isinstance(value, dict):
        raise ctx.fail("must be a series name, e.g. weekly")
    return _line(series_name(value), ctx)


def _count(value: Any, ctx: FieldContext) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ctx.fail("must be a whole number of issues, e.g. 3")
    return value


def _flag(value: Any, ctx: FieldContext) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise ctx.fail(f"must be true or false, got {value!r}")


def _draft(value: Any, ctx: FieldContext) -> bool:
    """``draft: true`` (as generators write it): not ready, so never published."""
    return bool(_flag(value, ctx))


def _choice(choices: tuple[str, ...]) -> Parser:
    """A parser for text that must be one of ``choices`` (e.g. ``mode``)."""

    def parse(value: Any, ctx: FieldContext) -> str | None:
        text = _text(value, ctx)
        if text is not None and text not in choices:
            raise ctx.fail(f"must be one of {', '.join(choices)}, got {text!r}")
        return text

    return parse


def _names(value: Any, ctx: FieldContext) -> tuple[str, ...]:
    if value is None:
        return ()
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, (str, int)) for n in names):
        raise ctx.fail("must be a list of names, e.g. [人工智能, 深度学习]")
    return tuple(str(n).strip() for n in names if str(n).strip())


#: The keys of a mass send's target (``wechat: {broadcast: {…}}``).
_TARGET_KEYS = ("tag_id", "send_ignore_reprint")


def _target(value: Any, ctx: FieldContext) -> Mapping[str, Any]:
    """Whom a mass send reaches: every follower (no block), or the followers of one tag."""
    if value is None:
        return MappingProxyType({})
    example = "e.g. {tag_id: 2, send_ignore_reprint: false}"
    if not isinstance(value, dict):
        raise ctx.fail(f"must be a mapping, {example}")
    unknown = sorted(str(k) for k in value if k not in _TARGET_KEYS)
    if unknown:
        keys = "key" if len(unknown) == 1 else "keys"
        raise ctx.fail(f"has unknown {keys} {', '.join(unknown)}; it takes {example}")
    tag = value.get("tag_id")
    if tag is not None and (isinstance(tag, bool) or not isinstance(tag, int) or tag < 0):
        raise ctx.fail(f"tag_id must be a tag's number (用户管理 → 标签), got {tag!r}")
    reprint = value.get("send_ignore_reprint")
    if reprint is not None and not isinstance(reprint, bool):
        raise ctx.fail(f"send_ignore_reprint must be true or false, got {reprint!r}")
    return MappingProxyType(dict(value))


#: Fields a channel block may override (its own value wins in ``settings``).
_SHARED_OVERRIDES: Mapping[str, Parser] = {
    "title": _line,
    "author": _author,
    "digest": _text,
    "cover": _relative_image,
    "source_url": _url,
}

#: How each kind of declared option is read.
_OPTION_PARSERS: Mapping[OptionKind, Parser] = {
    "text": _text,
    "flag": _flag,
    "names": _names,
    "target": _target,
}


def _option_parser(option: Option) -> Parser:
    return _choice(option.choices) if option.kind == "choice" else _OPTION_PARSERS[option.kind]


#: Options of each channel's block, as its platform declares them. Keys not listed are
#: passed on unchanged (later features may read them) and ``crosspost check`` warns about
#: them, to catch typos.
CHANNEL_OPTIONS: Mapping[str, Mapping[str, Parser]] = MappingProxyType(
    {
        name: MappingProxyType({o.name: _option_parser(o) for o in declared.options})
        for name, declared in PLATFORMS.items()
    }
)


class PartlyRead(IssueError):
    """Some keys of a field's block are wrong: each is an error of its own (``errors``),
    and ``value`` is the block without them, so the rest of it is still read (a wrong
    ``mode`` does not hide a mistyped option beside it, nor drop the channel's title)."""

    def __init__(self, errors: Sequence[IssueError], value: Mapping[str, Any]) -> None:
        first = errors[0]
        super().__init__(first.path, first.problem, first.line)
        self.errors = tuple(errors)
        self.value = value


def _channel_block(value: Any, ctx: FieldContext) -> Mapping[str, Any]:
    if value is None:
        return MappingProxyType({})
    if not isinstance(value, dict):
        raise ctx.fail("must be a mapping, e.g. {title: …, mode: draft}")
    table = {**_SHARED_OVERRIDES, **CHANNEL_OPTIONS.get(ctx.key, {})}
    block = {str(key): item for key, item in value.items()}
    errors: list[IssueError] = []
    for key, parse in table.items():
        if key in block:
            try:
                block[key] = parse(
                    block[key], FieldContext(ctx.path, ctx.lines, f"{ctx.key}.{key}")
                )
            except IssueError as error:
                errors.append(error)
                del block[key]
    if errors:
        raise PartlyRead(errors, MappingProxyType(block))
    return MappingProxyType(block)


FIELDS: Mapping[str, Parser] = {
    "id": _identifier,
    "title": _line,
    "author": _author,
    "digest": _text,
    "cover": _image_path,
    "source_url": _url,
    "publish_at": _datetime,
    "first_published": _datetime,
    "channels": _channels,
    "series": _series,
    "previous": _count,
    "draft": _draft,
    **{name: _channel_block for name in PLATFORMS},
}

#: Keys static-site generators (Hugo, Jekyll, Hexo, Astro, VuePress, …) and newsletter
#: services (Buttondown) write, and the field each one gives when the issue does not set
#: that field itself. ``zhihu.topics``: the Zhihu block's topics, when it has none.
ALIASES: Mapping[str, str] = MappingProxyType(
    {
        "subject": "title",  # Buttondown's, the email's subject line
        "authors": "author",
        "description": "digest",
        "summary": "digest",
        "excerpt": "digest",
        # Substack's, Hugo's and Jekyll's themes': the line under the title, which
        # WeChat's chat card shows under it too (a description above comes first).
        "subtitle": "digest",
        "image": "cover",
        "cover_image": "cover",
        "banner": "cover",
        "thumbnail": "cover",
        "featured_image": "cover",
        "feature_image": "cover",  # Ghost's
        "slug": "id",
        "tags": "zhihu.topics",
        "keywords": "zhihu.topics",
    }
)

#: The parsers that read text. A value of theirs that YAML 1.1 would read as a number, a
#: truth value or a date (``title: 1.10``, ``author: No``, ``id: 010``) reaches them as
#: written (see :data:`TEXT_FIELDS`).
_TEXT_PARSERS: frozenset[Parser] = frozenset(
    {_text, _line, _author, _url, _image_path, _relative_image, _identifier}
)


def _text_fields() -> frozenset[str]:
    top = {key for key, parse in FIELDS.items() if parse in _TEXT_PARSERS}
    aliases = {alias for alias, target in ALIASES.items() if target in top}
    blocks = {
        f"{name}.{key}"
        for name, declared in PLATFORMS.items()
        for key in [
            *_SHARED_OVERRIDES,
            *(o.name for o in declared.options if o.kind in ("text", "choice")),
        ]
    }
    return frozenset(top | aliases | blocks)


#: Keys whose value is text, as the loader must read it from the file: top-level ones
#: (aliases included) and ``channel.key`` for a channel block's. Every other field keeps
#: the type YAML gives it (``publish_at``, ``draft``, lists).
TEXT_FIELDS: frozenset[str] = _text_fields()

#: Top-level fields of prose (title, author, digest and their aliases): the ones whose
#: text may hold a `` #`` that YAML takes for a comment (``title: iOS Weekly #349``).
#: A path, a URL or an id never does, so a comment after one is what the editor meant.
PROSE_FIELDS: frozenset[str] = frozenset(
    key for key in TEXT_FIELDS if FIELDS.get(ALIASES.get(key, key)) in (_text, _line, _author)
)

#: Dates a generator or a CMS writes about the page. Kept for the record (``Issue.dates``);
#: none of them is a publication time: only ``publish_at`` schedules an issue. Ghost's and
#: Strapi's ``published_at``/``publishedAt`` say when the post *was* published: taken for
#: a misspelt ``publish_at``, run-due advised renaming it, which sends an old post at once.
RECORD_DATES: tuple[str, ...] = (
    "date", "pubDate", "publishDate", "lastmod", "updated", "published", "published_at",
    "publishedAt", "updated_at", "updatedAt", "created_at", "createdAt", "last_modified_at",
)  # fmt: skip
#: Settings of the editor the issue was written in, about the editor's own work: Typora's
#: root for paths that begin with ``/`` (crosspost looks in the site's ``static``,
#: ``public`` and ``source`` folders, where it points) and its folder for pasted pictures.
EDITOR_SETTINGS: tuple[str, ...] = ("typora-root-url", "typora-copy-images-to")
#: Every key of the front matter crosspost reads (as a field, an alias of one, a date for
#: the record or an editor's setting): no other key is a slip in typing one of ours.
KNOWN_KEYS: frozenset[str] = frozenset([*FIELDS, *ALIASES, *RECORD_DATES, *EDITOR_SETTINGS])


def meant_field(key: str) -> str | None:
    """The field (or channel block) of ours that a key crosspost does not read most likely
    misspells, for a "did you mean"; None when none is near, or when the key is a field
    of its own built on ours (Docusaurus's ``author_url``, ``publish_at_utc``). The
    loader's warning and run-due's "never due" line ask the same question here."""
    if key in KNOWN_KEYS:
        return None
    import difflib  # only for a key we do not know: every command reads issues

    close = difflib.get_close_matches(key, [*FIELDS, *PLATFORMS], n=1, cutoff=0.75)
    if not close:
        return None
    field = close[0]
    # Written in camelCase as in snake_case: Docusaurus's ``authorURL`` and
    # ``authorTitle``, a theme's ``coverAlt`` are the author's link and the cover's words.
    built_on = any(
        key.startswith(field + joint) or key.endswith(joint + field) for joint in "_-"
    ) or _camel_built_on(key, field)
    return None if built_on else field


def _camel_built_on(key: str, field: str) -> bool:
    """Whether ``key`` is ``field`` with a word of its own joined in camelCase
    (``authorURL``, ``coverAlt``, ``wechatTitle``), not a slip in typing it."""
    head = key[len(field) : len(field) + 1]
    return (key.startswith(field) and head.isupper()) or (
        key.lower().endswith(field) and key[-len(field)].isupper() and len(key) > len(field)
    )
