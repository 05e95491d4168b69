"""What a platform is, as data: the shape every declaration in this package fills in.

A :class:`Platform` holds the platform's name, the :class:`Limits` crosspost keeps to,
the channel options an issue may set, and the renderer and adapter that serve it. The
renderer and adapter are named as ``"module:attribute"`` strings and imported only when
asked for, so this package sits low in the pipeline: it imports nothing of crosspost but
the exception tree, and the issue model, config, lint, renderers and adapters all read it.

The limits are defaults, each with its :class:`Evidence`: an unconfirmed limit is a
warning, not an error. :meth:`Platform.with_overrides` returns a copy with some of them
changed, after checking each name and type, so a config value can replace any limit
(``[channels.wechat.limits]``, or an account's own ``limits`` table).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from crosspost.errors import ConfigError, did_you_mean

#: One megabyte as the platforms count it (2**20 bytes), for limits and messages.
MB = 1024 * 1024


def megabytes(size: int) -> str:
    """``"1.5 MB"``: a byte count as an editor reads it."""
    return f"{size / MB:.3g} MB"


@dataclass(frozen=True)
class ImagePolicy:
    """What one platform accepts for one kind of upload; the image pipeline fits each
    image to it before the adapter sends it."""

    #: Short name used in messages, e.g. ``"Zhihu image"`` or ``"WeChat cover"``.
    name: str
    #: MIME types uploaded as they are; anything else is converted to PNG or JPEG.
    formats: frozenset[str]
    #: Largest upload in bytes, inclusive (a platform's "under 1 MB" is ``MB - 1``);
    #: None: no cap (the config turned the limit off), so nothing is shrunk to fit one.
    max_bytes: int | None
    #: Whether an animated GIF may stay animated (else its first frame is used).
    animated: bool = True
    #: Longest side in pixels, when the platform has one.
    max_side: int | None = None
    #: Hosts whose images are already on the platform and are used as they are.
    native_hosts: tuple[str, ...] = ()

    def fits(self, size: int) -> bool:
        """Whether an upload of ``size`` bytes is within :attr:`max_bytes` (always, uncapped)."""
        return self.max_bytes is None or size <= self.max_bytes

    def is_native(self, source: str) -> bool:
        """True when ``source`` already points at this platform's image hosting."""
        host = urlsplit(source).hostname or ""
        return any(host == h or host.endswith("." + h) for h in self.native_hosts)


@dataclass(frozen=True)
class Evidence:
    """Why crosspost holds a platform to a limit, and how sure that is.

    A confirmed limit (the platform documents it, or refuses past it in a way we have
    seen) is an error in lint; an unconfirmed one (one community answer, a field report
    that disagrees with the documentation) is a warning that cites ``source``, because
    refusing an issue on a rumour helps nobody. A limit set in the config is the
    editor's own word and counts as confirmed.
    """

    source: str
    confirmed: bool = True


#: The config's own limits: set there by the editor, so held to as errors.
FROM_CONFIG = Evidence("set in the config", confirmed=True)


@dataclass(frozen=True)
class Limits:
    """Every number crosspost keeps to for one platform. ``None``: no limit (none known,
    or turned off in the config).

    Each is a default that :meth:`Platform.with_overrides` may replace (an account whose
    platform has moved a limit, or a limit whose evidence is unconfirmed); a ``0`` there
    turns the limit off.
    """

    #: Title: at most this many characters, and (when set) UTF-8 bytes. Every platform
    #: has a title limit, so it is never None; 0 (set in the config) is off.
    title_chars: int
    title_bytes: int | None = None
    #: Above this the platform refuses the author (an error) …
    author_chars: int | None = None
    #: … and above these it has refused authors in field reports (a warning).
    author_warn_chars: int | None = None
    author_warn_bytes: int | None = None
    #: Digest (summary): at most this many characters.
    digest_chars: int | None = None
    #: When there is no digest, the platform shows this many characters of the body.
    digest_shown_chars: int | None = None
    #: The "original article" link, in UTF-8 bytes.
    source_url_bytes: int | None = None
    #: The body as sent, tags included: strictly fewer characters / bytes than these.
    content_chars: int | None = None
    content_bytes: int | None = None
    #: The body's text as the platform counts it (:attr:`Platform.text_count`).
    text_min_chars: int | None = None
    text_max_chars: int | None = None
    #: Image captions, in characters (longer ones are cut).
    caption_chars: int | None = None
    #: MIME types and largest size (inclusive) of an image inside the article.
    image_formats: frozenset[str] = frozenset({"image/jpeg", "image/png"})
    image_bytes: int | None = None
    #: Whether a post needs a cover, the cover's MIME types and largest size (inclusive).
    cover_required: bool = False
    cover_formats: frozenset[str] = frozenset({"image/jpeg", "image/png"})
    cover_bytes: int | None = None
    #: Width / height the platform crops covers to.
    cover_ratio: float | None = None
    #: Characters an uploaded image URL takes in the body (relative sources are shorter);
    #: 0: none counted.
    image_url_chars: int = 0
    #: Publication polls allowed per day (a platform quota), None when unlimited.
    poll_budget_per_day: int | None = None
    #: Images of one post uploaded at once, at most (fewer when the post has fewer): a
    #: wave waits for its slowest image, so more than a post has buys nothing. A platform
    #: that answers "too many requests" slows the whole wave down (the HTTP policy).
    #: A bound on the connections a post opens, not a limit to turn off: at least 1.
    upload_concurrency: int = 16
    #: Limit name → why it is believed (:class:`Evidence`); lint warns rather than refuses
    #: past an unconfirmed one. Not a limit itself, so the config cannot set it.
    evidence: Mapping[str, Evidence] = dataclasses.field(default_factory=dict)

    def confirmed(self, name: str) -> bool:
        """Whether lint refuses past limit ``name`` (True unless marked unconfirmed)."""
        found = self.evidence.get(name)
        return found is None or found.confirmed

    def source(self, name: str) -> str:
        """The evidence for limit ``name``, for messages (empty when none is recorded)."""
        found = self.evidence.get(name)
        return found.source if found else ""


OptionKind = Literal["text", "flag", "names", "choice", "target"]

#: Issue fields an account's table in the config (or its channel's) may give a default
#: for, on every platform; a platform's own such options are declared ``in_config``.
ACCOUNT_FIELDS: tuple[str, ...] = ("author", "digest", "source_url")


@dataclass(frozen=True)
class Option:
    """A setting an issue's channel block may hold (``wechat: {need_open_comment: true}``).

    ``kind`` says how the issue loader reads it: ``text``, ``flag`` (true/false),
    ``names`` (one name or a list), ``choice`` (one of ``choices``) or ``target`` (whom a
    mass send reaches: ``{tag_id: N, send_ignore_reprint: true}``). ``default`` is what
    the adapter assumes when the issue does not say.
    """

    name: str
    kind: OptionKind
    default: Any = None
    choices: tuple[str, ...] = ()
    #: The platform (or every real client of it) refuses to publish without a value: the
    #: issue's, or the account's / channel's default in the config file.
    needed_to_publish: bool = False
    #: An example value for messages that say how to set it.
    example: str = ""
    #: An account's table in the config (or its channel's, for every account) may give
    #: a default for it, e.g. ``column = "c_123"`` under ``[channels.zhihu.accounts.main]``.
    in_config: bool = False

    @property
    def toml_example(self) -> str:
        """:attr:`example` as the config file writes it: front matter (YAML) takes a list
        of bare names, ``[人工智能]``, which TOML refuses; it wants ``["人工智能"]``."""
        if self.kind != "names" or not self.example.startswith("["):
            return self.example
        names = (name.strip() for name in self.example.strip("[]").split(","))
        return "[" + ", ".join(json.dumps(name, ensure_ascii=False) for name in names if name) + "]"


@dataclass(frozen=True)
class Platform:
    """One platform, declared once: every registry and check reads this."""

    #: The channel name in config, front matter, the ledger and the CLI.
    name: str
    #: The platform's name for people.
    display_name: str
    limits: Limits
    #: Options of the issue's channel block, beyond the shared title/author/… overrides.
    options: tuple[Option, ...]
    #: ``"module:function"`` of the renderer (see :mod:`crosspost.render.rendered`).
    renderer: str
    #: ``"module:Class"`` of the adapter (see :mod:`crosspost.channels.registry`).
    adapter: str
    #: ``"module:function"`` that counts the body's text as the platform does, when
    #: :attr:`Limits.text_min_chars` or :attr:`Limits.text_max_chars` are set.
    text_count: str | None = None
    #: Hosts whose images are the platform's own (used as they are, never re-uploaded).
    image_hosts: tuple[str, ...] = ()
    #: Name of the inline and cover image policies in messages.
    image_label: str = "image"
    cover_label: str = "cover"
    #: Query parameters that mark a link the platform hands out for a while only (a
    #: preview): such a link may be shown, never recorded as a post's URL.
    temporary_url_params: tuple[str, ...] = ()

    def is_permanent_url(self, url: str | None) -> bool:
        """Whether ``url`` is a post's lasting address (http(s), and no temporary key)."""
        if not url:
            return False
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False
        names = {pair.partition("=")[0] for pair in parts.query.split("&")}
        return not names & set(self.temporary_url_params)

    def missing_to_publish(
        self, issue_options: Mapping[str, Any], account_options: Mapping[str, Any]
    ) -> tuple[Option, ...]:
        """Options needed to publish that neither the issue nor the account sets."""
        return tuple(
            option
            for option in self.options
            if option.needed_to_publish
            and not issue_options.get(option.name)
            and not account_options.get(option.name)
        )

    def needed_message(self, option: Option, account: str) -> str:
        """How to set an option needed to publish, in the words of a ``check`` error."""
        return (
            f"{self.display_name} needs '{option.name}' to publish on {account} (real clients "
            f"refuse without it); add '{self.name}: {{{option.name}: {option.example}}}' to "
            f"the front matter, or '{option.name} = {option.toml_example}' to "
            f"[channels.{self.name}] (or the account's table) in crosspost.toml"
        )

    #: The settle window: how long after a create whose answer was lost the platform may
    #: still commit it (a slow answer lands after the client gave up). Before it has
    #: passed, "not there" proves nothing, so no second create is made.
    settle_seconds: float = 60.0

    def option(self, name: str) -> Option | None:
        """The declared option ``name``, or None when the platform has no such option."""
        return next((option for option in self.options if option.name == name), None)

    def image_policy(self, kind: str) -> ImagePolicy:
        """What an image of ``kind`` (``"inline"`` or ``"cover"``) must be before upload."""
        limits = self.limits
        if kind == "cover":
            formats, size, label = limits.cover_formats, limits.cover_bytes, self.cover_label
        elif kind == "inline":
            formats, size, label = limits.image_formats, limits.image_bytes, self.image_label
        else:
            raise ValueError(f"unknown image kind {kind!r}")
        # None: no byte limit (turned off in the config): uploaded at the size it is.
        return ImagePolicy(label, formats, size, native_hosts=self.image_hosts)

    def counter(self) -> Callable[[str], int] | None:
        """The function :attr:`text_count` names (imported now), or None."""
        return None if self.text_count is None else load(self.text_count)

    def with_overrides(self, overrides: Mapping[str, Any]) -> Platform:
        """A copy whose limits take the values in ``overrides`` (limit name → value).

        Unknown names and values of the wrong type are a :class:`ConfigError` naming the
        key, so a typo in a config file stops the run before anything is sent. ``0`` turns
        a limit off, the same way for every number, decided here: a limit that may be
        unknown becomes None (lint, the renderers, the image pipeline and the poll budget
        then keep to none), and ``title_chars``, which every platform has, stays 0, which
        lint reads as off. ``upload_concurrency`` is a bound, not a limit: at least 1.
        """
        if not overrides:
            return self
        types = {f.name: str(f.type) for f in dataclasses.fields(Limits) if f.name != "evidence"}
        changes: dict[str, Any] = {}
        for key, value in overrides.items():
            if key not in types:
                hint = did_you_mean(key, types)
                meant = f" ({hint})" if hint else ""
                known = ", ".join(sorted(types))
                raise ConfigError(f"{self.name} has no limit '{key}'{meant}; known limits: {known}")
            where = f"{self.name} limit '{key}'"
            changes[key] = _checked(where, types[key], value, least=_AT_LEAST.get(key, 0))
        evidence = {**self.limits.evidence, **{key: FROM_CONFIG for key in changes}}
        limits = dataclasses.replace(self.limits, **changes, evidence=evidence)
        return dataclasses.replace(self, limits=limits)


#: Limits that cannot be 0: a wave of uploads that takes none at once never ends.
_AT_LEAST = {"upload_concurrency": 1}


def _checked(where: str, annotation: str, value: Any, *, least: int = 0) -> Any:
    """``value`` if it fits the limit's declared type (``annotation``), else ConfigError.

    ``None`` lifts a limit that may be unknown (``int | None``), and so does ``0``: "off"
    means the same for every number. Whole numbers are at least ``least``.
    """
    optional = annotation.endswith("| None")
    if optional and (value is None or (value == 0 and not isinstance(value, bool))):
        return None
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if annotation == "bool" and isinstance(value, bool):
        return value
    listed = isinstance(value, (list, tuple, set, frozenset))
    if (
        annotation.startswith("frozenset")
        and listed
        and all(isinstance(item, str) and item.startswith("image/") for item in value)
    ):
        return frozenset(value)
    if annotation.startswith("float") and number and value > 0:
        return float(value)
    if annotation.startswith("int") and number and isinstance(value, int) and value >= least:
        return value
    expected = {
        "bool": "true or false",
        "frozenset[str]": "a list of MIME types such as image/png",
        "float | None": "a positive number, or 0 to turn it off",
    }.get(annotation, f"a whole number of at least {least}")
    raise ConfigError(f"{where} must be {expected}, got {value!r}")


def load(target: str) -> Any:
    """Import ``"module:attribute"`` and return the attribute (the declarations' lazy links)."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)
