"""Lint: what each platform would refuse or change, found before anything is sent.

Checks run on the loaded :class:`~crosspost.issue.model.Issue` and on each channel's
:class:`~crosspost.render.Rendered` output, because some limits (WeChat's 20,000
characters) count the rendered HTML, not the Markdown. Every problem names the file and,
where there is one, the line. Errors stop ``check`` and ``publish`` (``render`` and
``preview`` list them and write their files all the same); warnings say what crosspost
will change on the way (an image converted or shrunk) or which unconfirmed limit a value
is past (each limit's evidence is in its declaration); notes are for the record.

The numbers are the platform declarations' (:mod:`crosspost.platforms`), the same ones
the image pipeline and the adapters keep to; :func:`lint` takes other declarations (made
with ``Platform.with_overrides``) when an account's limits differ.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from crosspost.check.constructs import construct_findings
from crosspost.check.images import (
    ImageFile,
    ImageInfo,
    ImageProblem,
    literal_images,
    only_unreachable,
    remote_format,
)
from crosspost.check.source import source_findings
from crosspost.config.counts import counted
from crosspost.config.settings import Settings
from crosspost.errors import IssueError, did_you_mean
from crosspost.images.sources import ImageSources, shown_ref
from crosspost.issue.body import (
    ImageRef,
    body_references,
    empty_footnotes,
    image_named,
    image_refs,
)
from crosspost.issue.collector import collector_paused
from crosspost.issue.companions import CHANNEL as BUNDLE_CHANNEL
from crosspost.issue.companions import find_companions
from crosspost.issue.loader import read_issue
from crosspost.issue.model import Issue
from crosspost.platforms.base import MB, Limits, Platform, megabytes
from crosspost.platforms.registry import PLATFORMS, platform_names
from crosspost.render.rendered import PreviousIssue, RenderContext, Rendered, render

ERROR, WARNING, INFO = "error", "warning", "info"
#: How a problem's line names its severity.
_LABELS = {ERROR: "error", WARNING: "warning", INFO: "note"}


@dataclass(frozen=True)
class Problem:
    """One thing to fix (``error``), to know about (``warning``) or to note (``info``)."""

    path: Path
    line: int | None
    #: The channel it concerns; ``None`` when it concerns every channel.
    channel: str | None
    #: Stable short name for scripts, e.g. ``title-too-long`` (``--json`` prints it).
    code: str
    message: str
    severity: str = ERROR

    def __str__(self) -> str:
        """The line ``check`` and ``render`` list it by: where, the channel, what kind of
        problem (``error:``, ``warning:``, ``note:``), what to do."""
        return self._line(f"{_LABELS.get(self.severity, self.severity)}: ")

    def unlabelled(self) -> str:
        """The line without its kind, for a message that says it already
        (``crosspost: error: …``, when ``publish`` refuses the issue)."""
        return self._line("")

    def _line(self, label: str) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        channel = f" [{self.channel}]" if self.channel else ""
        return f"{where}:{channel} {label}{self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "line": self.line,
            "channel": self.channel,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
        }


#: MIME type → the Pillow format name lint reads image files as.
_PILLOW_FORMATS = {"image/jpeg": "JPEG", "image/png": "PNG", "image/gif": "GIF"}

#: The fields an issue's channel block shares with the top level.
_SHARED_KEYS = ("title", "author", "digest", "cover", "source_url")


def _pillow(formats: frozenset[str]) -> frozenset[str]:
    return frozenset(_PILLOW_FORMATS.get(mime, mime) for mime in formats)


# --- load, render and lint one file (what `check`, `render` and `preview` share) ----------


@dataclass(frozen=True)
class Checked:
    """One issue file after loading, rendering and linting. ``issue`` is None if unloadable."""

    path: Path
    issue: Issue | None
    rendered: Mapping[str, Rendered]
    problems: tuple[Problem, ...]

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity == ERROR)


def tally(problems: Iterable[Problem]) -> str:
    """How many errors and warnings there are, ``"4 errors, 2 warnings"`` (a kind there is
    none of left out; notes are not counted): how ``check`` and ``render`` end the list of
    a file's problems."""
    listed = list(problems)
    counts = [
        (sum(p.severity == severity for p in listed), _LABELS[severity])
        for severity in (ERROR, WARNING)
    ]
    return ", ".join(counted(count, word) for count, word in counts if count)


def refused_line(path: Path | str, problems: Sequence[Problem]) -> str:
    """The line that ends the list of a file's problems when some are errors: how many of
    each kind (:func:`tally`), and that ``publish`` refuses the file until they are gone.
    Remote images out of reach alone: the network's trouble, not the issue's."""
    errors = [p for p in problems if p.severity == ERROR]
    if errors and only_unreachable(p.code for p in errors):
        return (
            f"{path}: {tally(problems)}; check again once the network is back ('crosspost "
            "publish' waits for the remote images too)"
        )
    fix = "the error" if len(errors) == 1 else "the errors"
    return (
        f"{path}: {tally(problems)}; fix {fix} before 'crosspost publish' (it refuses the "
        "issue until then)"
    )


def with_companions(
    checked: Checked, check: Callable[[Path], Checked]
) -> tuple[Checked, tuple[Checked, ...]]:
    """A lead issue (``wechat.with``, 多图文) and its companions, each checked by ``check``
    as a file of its own (so its problems carry its own file and line). A companion no
    file of the folder has is the lead's error, at its ``with`` line."""
    issue = checked.issue
    if issue is None or BUNDLE_CHANNEL not in checked.rendered:
        return checked, ()
    try:
        paths = find_companions(issue)
    except IssueError as error:
        problem = Problem(error.path, error.line, BUNDLE_CHANNEL, "companion", error.problem)
        return replace(checked, problems=(*checked.problems, problem)), ()
    return checked, tuple(check(path) for path in paths)


def check_file(
    path: Path | str,
    channels: Sequence[str] = (),
    context: RenderContext | None = None,
    platforms: Mapping[str, Platform] = PLATFORMS,
    previous: Callable[[Issue, str], tuple[PreviousIssue, ...]] | None = None,
    images: ImageSources | None = None,
    settings: Settings | None = None,
    *,
    lenient: bool = False,
) -> Checked:
    """Load, render and lint ``path`` for ``channels`` (default: the issue's, else all),
    judged by ``platforms`` (the declarations with the config's limits laid over).

    Bad input never raises: a file that cannot be read, or that a renderer refuses,
    comes back as an error :class:`Problem`, so a caller checking many files sees them all.
    A file that loaded with errors (a bad field, an unclosed block) is still rendered:
    ``render`` and ``preview`` show it, ``check`` and ``publish`` refuse it. ``previous``
    gives a channel's 往期回顾 (the caller reads the ledger; lint never does).
    ``images`` are the rules images are read by (extra folders, the fetcher of remote
    images); without a fetcher remote images are judged by their URL alone. Network
    trouble reaching a remote image raises ``TransientError`` (try again later).
    ``lenient``: front matter that does not parse is an error of an issue read without
    it (:func:`~crosspost.issue.loader.read_issue`), for the commands that show files.
    """
    try:
        issue = read_issue(path, lenient=lenient)
    except IssueError as error:
        problem = Problem(error.path, error.line, None, "invalid-issue", error.problem)
        return Checked(Path(path), None, MappingProxyType({}), (problem,))
    wanted = tuple(channels) or issue.channels or platform_names()
    rendered: dict[str, Rendered] = {}
    problems: list[Problem] = [] if issue.field_lines else _plain_digest(path, issue)
    for channel in wanted:
        own = context
        if previous is not None and issue.series and issue.previous > 0:
            own = replace(context or RenderContext(), previous=previous(issue, channel))
        try:
            rendered[channel] = render(issue, channel, own)
        except IssueError as error:
            problems.append(Problem(error.path, error.line, channel, "render", error.problem))
    problems += lint(issue, rendered, platforms, images=images)
    if settings is not None:
        problems += needed_to_publish(issue, tuple(rendered), settings, platforms)
    order = {ERROR: 0, WARNING: 1, INFO: 2}
    problems.sort(key=lambda p: (p.line or 0, order.get(p.severity, 3)))
    # Name the file as the editor typed it (Issue.path is absolute).
    shown = tuple(replace(p, path=Path(path)) if p.path == issue.path else p for p in problems)
    return Checked(Path(path), issue, MappingProxyType(rendered), shown)


def _plain_digest(path: Path | str, issue: Issue) -> list[Problem]:
    """A file without front matter that is a plain-text digest, not Markdown (numbered
    items with 链接/作者 lines, as a translator sends them): read as Markdown its
    links, authors and notes run together, with no title and no cover. Refused (an
    error, so ``publish`` sends nothing), naming the command that makes an issue of it;
    ``render`` and ``preview`` still show it as it is. Any other text is an issue as
    written."""
    from crosspost.config.advice import command_line
    from crosspost.importers.digest import digest_items

    items = digest_items(issue.body)
    if not items:
        return []
    shown = Path(path)
    message = (
        f"is a plain-text digest ({counted(items, 'numbered item')} with 链接/作者 lines, no "
        "front matter), not an issue: read as Markdown, its links, authors and notes run "
        f"together; '{command_line('import', str(shown), rehearsal=False)}' writes it as "
        f"{shown.with_suffix('.md')} "
        "(title, items, links, front matter to fill in): check that file and publish it"
    )
    return [Problem(issue.path, None, None, "plain-digest", message)]


# --- the checks ------------------------------------------------------------------------


@collector_paused()  # it reads the whole issue's trees (see crosspost.issue.collector)
def lint(
    issue: Issue,
    rendered: Mapping[str, Rendered],
    platforms: Mapping[str, Platform] = PLATFORMS,
    *,
    images: ImageSources | None = None,
) -> list[Problem]:
    """Every problem of ``issue`` for the channels in ``rendered`` (channel → Rendered),
    judged by ``platforms`` (channel → declaration; the shipped ones by default), its
    images read by the rules of ``images`` (see :func:`check_file`)."""
    refs = list(image_refs(issue))
    refs += _shown_only(issue, rendered, refs)
    info = ImageInfo(issue.path, images)
    problems = [
        Problem(issue.path, notice.line, None, notice.code, notice.message, notice.severity)
        for notice in issue.notices
    ]
    if issue.draft:
        message = (
            "'draft: true': publish and run-due skip this issue; remove the line (or set "
            "'draft: false') when it is ready"
        )
        problems.append(
            Problem(issue.path, issue.line_of("draft"), None, "draft", message, WARNING)
        )
    for target, where, why in literal_images(issue):
        message = f"image {shown_ref(target)!r} {why}"
        problems.append(Problem(issue.path, where, None, "refused-image", message))
    reported: set[str] = set()
    for ref in refs:  # a missing file is missing for every channel: report it once
        if _native_everywhere(ref, rendered, platforms):
            continue  # already on the platform's own image host: publish uses it as it is
        found = info.read(ref.source)
        if isinstance(found, ImageProblem) and ref.source not in reported:
            reported.add(ref.source)
            message = f"image {shown_ref(ref.source)!r} {found.message}"
            problems.append(Problem(issue.path, ref.line, ref.channel, found.code, message))
    problems += _bad_covers(issue, rendered, info)
    for label, line in empty_footnotes(issue):  # Zhihu refuses it; WeChat shows a blank note
        message = f"footnote [^{label}] has no text; write the note after '[^{label}]:'"
        problems.append(Problem(issue.path, line, None, "empty-footnote", message))
    source = source_findings(issue)  # parsed otherwise than meant
    # A <script> never closed is said to take the rest, which says it is left out too.
    unclosed = {finding.line for finding in source if finding.code == "unclosed-html"}
    findings = [  # shown otherwise than written
        finding
        for finding in construct_findings(issue, rendered)
        if not (finding.code == "html-not-shown" and finding.line in unclosed)
    ]
    findings += source
    for finding in findings:
        problems.append(
            Problem(
                issue.path,
                finding.line,
                finding.channel,
                finding.code,
                finding.message,
                finding.severity,
            )
        )
    for channel, output in rendered.items():
        declared = platforms.get(channel)
        if declared is None:
            continue
        report = _Report(issue, declared)
        _fields(report)
        _options(report)
        _body_references(report)
        _content(report, output)
        _cover(report, info)
        _body_images(report, refs, info)
        problems += report.problems
    return problems


def needed_to_publish(
    issue: Issue,
    channels: Sequence[str],
    settings: Settings,
    platforms: Mapping[str, Platform] = PLATFORMS,
) -> list[Problem]:
    """Options a platform needs to publish (Zhihu's topics) that neither the issue nor an
    account it would be published on sets: once per option, naming the first account."""
    problems: list[Problem] = []
    for channel in channels:
        platform = platforms.get(channel)
        if platform is None:
            continue
        options = issue.settings(channel).options
        reported: set[str] = set()
        for account in settings.accounts:
            if account.channel != channel:
                continue
            if settings.mode_for(account, options.get("mode")) == "draft":
                continue
            for option in platform.missing_to_publish(options, account.options):
                if option.name in reported:
                    continue
                reported.add(option.name)
                line = issue.line_of(f"{channel}.{option.name}") or issue.line_of(channel) or 1
                message = platform.needed_message(option, account.key)
                problems.append(Problem(issue.path, line, channel, "needed-to-publish", message))
    return problems


def _shown_only(
    issue: Issue, rendered: Mapping[str, Rendered], refs: list[ImageRef]
) -> list[ImageRef]:
    """The images a renderer shows that the body's walk did not list. Publish uploads
    what the renderers show, so check reads each of those too: one it could not see
    (a component the HTML parser reads as ``<img>``) passed check, and publish then
    stopped on it."""
    listed = {ref.source for ref in refs}
    shown: dict[str, list[str]] = {}
    for channel, output in rendered.items():
        for source in output.images:
            if source not in listed:
                shown.setdefault(source, []).append(channel)
    return [
        image_named(issue, source, None if len(channels) == len(rendered) else channels[0])
        for source, channels in shown.items()
    ]


def _native_everywhere(
    ref: ImageRef, rendered: Mapping[str, Rendered], platforms: Mapping[str, Platform]
) -> bool:
    """True when every channel showing ``ref`` keeps it as it is (its own image host)."""
    channels = [c for c in rendered if ref.channel in (None, c) and c in platforms]
    return (
        ref.remote
        and bool(channels)
        and all(platforms[c].image_policy("inline").is_native(ref.source) for c in channels)
    )


def _bad_covers(issue: Issue, rendered: Mapping[str, Rendered], images: ImageInfo) -> list[Problem]:
    """A cover file that cannot be used, once per file (channels often share one cover)."""
    users: dict[Path, list[str]] = {}
    for channel in rendered:
        cover = issue.settings(channel).cover
        if cover is not None:
            users.setdefault(cover, []).append(channel)
    problems: list[Problem] = []
    for cover, channels in users.items():
        found = images.read(cover)
        if isinstance(found, ImageProblem):
            own = len(channels) == 1 and "cover" in issue.overrides.get(channels[0], {})
            line = issue.line_of(f"{channels[0]}.cover" if own else "cover")
            concerns = channels[0] if own else None
            message = f"cover {found.message}"
            problems.append(Problem(issue.path, line, concerns, "bad-cover", message))
    return problems


@dataclass
class _Report:
    """Collects one channel's problems; ``line_of`` prefers the channel's own override."""

    issue: Issue
    platform: Platform
    problems: list[Problem] = field(default_factory=list)

    @property
    def channel(self) -> str:
        return self.platform.name

    @property
    def limits(self) -> Limits:
        return self.platform.limits

    def add(self, line: int | None, code: str, message: str, severity: str = ERROR) -> None:
        self.problems.append(Problem(self.issue.path, line, self.channel, code, message, severity))

    def past(self, limit: str, line: int | None, code: str, message: str) -> None:
        """A value past ``limit``: an error when the limit is confirmed, else a warning
        that cites the evidence and says how to set the limit in the config, or turn it off."""
        if self.limits.confirmed(limit):
            self.add(line, code, message)
            return
        where = f"[channels.{self.channel}.limits] {limit} = …"
        note = (
            f" (unconfirmed limit: {self.limits.source(limit)}; set {where} to change it, "
            "or 0 to turn it off)"
        )
        self.add(line, code, message + note, WARNING)

    def line_of(self, key: str) -> int | None:
        if key in self.issue.overrides.get(self.channel, {}):
            return self.issue.line_of(f"{self.channel}.{key}")
        return self.issue.line_of(key)


def _fields(report: _Report) -> None:
    limits, channel = report.limits, report.channel
    settings = report.issue.settings(channel)
    fix = f"shorten it or set '{channel}: {{title: …}}'"
    title, title_bytes = len(settings.title), len(settings.title.encode())
    if limits.title_chars and title > limits.title_chars:
        message = f"title has {title} characters, {channel} allows {limits.title_chars}; {fix}"
        report.past("title_chars", report.line_of("title"), "title-too-long", message)
    elif limits.title_bytes and title_bytes > limits.title_bytes:
        message = (
            f"title is {title_bytes} UTF-8 bytes, {channel} allows {limits.title_bytes}; {fix}"
        )
        report.past("title_bytes", report.line_of("title"), "title-too-long", message)
    author = settings.author or ""
    chars, size = len(author), len(author.encode())
    if limits.author_chars and chars > limits.author_chars:
        message = f"author has {chars} characters, {channel} allows {limits.author_chars}"
        report.past(
            "author_chars", report.line_of("author"), "author-too-long", f"{message}; shorten it"
        )
    elif (limits.author_warn_chars and chars > limits.author_warn_chars) or (
        limits.author_warn_bytes and size > limits.author_warn_bytes
    ):
        message = (
            f"author '{author}' ({chars} characters, {size} bytes) is longer than "
            f"{limits.author_warn_chars} characters or {limits.author_warn_bytes} bytes "
            f"(error 45110); set '{channel}: {{author: …}}'"
        )
        over = "author_warn_chars" if chars > (limits.author_warn_chars or chars) else None
        limit = over or "author_warn_bytes"
        report.past(limit, report.line_of("author"), "author-long", message)
    digest = settings.digest or ""
    if limits.digest_chars and len(digest) > limits.digest_chars:
        message = f"digest has {len(digest)} characters, {channel} allows {limits.digest_chars}"
        report.past(
            "digest_chars", report.line_of("digest"), "digest-too-long", f"{message}; shorten it"
        )
    elif limits.digest_chars and not digest:
        shown = limits.digest_shown_chars
        start = f"the first {shown} characters" if shown else "the start"
        message = f"no digest; {channel} will show {start} of the body instead"
        report.add(1, "no-digest", message, INFO)
    url = len((settings.source_url or "").encode())
    if limits.source_url_bytes and url > limits.source_url_bytes:
        message = f"source_url is {url} bytes, {channel} allows {limits.source_url_bytes}"
        report.past(
            "source_url_bytes", report.line_of("source_url"), "source-url-too-long", message
        )


def _body_references(report: _Report) -> None:
    """``{zhihu.url}`` in the body: filled in by the publisher, so only a channel it cannot
    name (unknown, or the channel showing it) is an error here."""
    channel = report.channel
    for ref in body_references(report.issue, channel):
        if ref.channel not in PLATFORMS:
            known = " or ".join(f"{{{name}.url}}" for name in platform_names())
            message = f"{ref.text} names unknown channel '{ref.channel}'; write {known}"
            report.add(ref.line, "unknown-reference", message)
        elif ref.channel == channel:
            message = (
                f"{ref.text} is shown on {channel} itself, which cannot link to its own post; "
                f"put the line inside '::: only …' for the other channels"
            )
            report.add(ref.line, "self-reference", message)
        else:
            message = f"{ref.text} becomes the {ref.channel} post's URL when publishing"
            report.add(ref.line, "reference", message, INFO)


def _options(report: _Report) -> None:
    channel = report.channel
    known = sorted({*_SHARED_KEYS, *(option.name for option in report.platform.options)})
    for key in report.issue.overrides.get(channel, {}):
        if key not in known:
            hint = did_you_mean(key, known) or "check the spelling"
            message = (
                f"'{channel}.{key}' is not an option crosspost knows ({', '.join(known)}); " + hint
            )
            report.add(report.issue.line_of(f"{channel}.{key}"), "unknown-option", message, WARNING)


def _content(report: _Report, output: Rendered) -> None:
    limits, channel, line = report.limits, report.channel, report.issue.body_line
    body = output.body
    # Each image source becomes a platform URL on upload: usually longer than a path,
    # far shorter than a picture carried in the source (a notebook's data: URIs).
    extra = 0
    if limits.image_url_chars:
        for source in output.images:
            written = html.escape(source)
            uses = body.count(f'src="{written}"')
            extra += uses * (limits.image_url_chars - len(written))
    fix = "shorten it or split it into two issues"
    if limits.content_chars and len(body) + extra >= limits.content_chars:
        message = (
            f"the {channel} article is {len(body) + extra:,} characters of HTML (uploaded "
            f"image URLs included), the limit is under {limits.content_chars:,}; {fix}"
        )
        report.past("content_chars", line, "content-too-long", message)
    size = len(body.encode()) + extra
    if limits.content_bytes and size >= limits.content_bytes:
        message = f"the {channel} article is {size:,} bytes, the limit is under "
        report.past(
            "content_bytes", line, "content-too-large", f"{message}{limits.content_bytes:,}; {fix}"
        )
    count = report.platform.counter()
    if count:
        text = count(body)
        if limits.text_min_chars and text < limits.text_min_chars:
            has = counted(text, "character")
            message = f"the body has {has} of text, {channel} needs at least "
            report.past(
                "text_min_chars",
                line,
                "body-too-short",
                f"{message}{limits.text_min_chars}; write more",
            )
        if limits.text_max_chars and text > limits.text_max_chars:
            message = f"the body has {text:,} characters of text, {channel} allows "
            report.past(
                "text_max_chars",
                line,
                "body-too-long",
                f"{message}{limits.text_max_chars:,}; {fix}",
            )


def _cover(report: _Report, images: ImageInfo) -> None:
    limits, channel = report.limits, report.channel
    cover = report.issue.settings(channel).cover
    line = report.line_of("cover")
    if cover is None:
        written = line is not None and any(
            n.code == "invalid-field" and n.line == line for n in report.issue.notices
        )
        if limits.cover_required and not written:  # a rejected cover is reported already
            message = f"{channel} needs a cover image; add 'cover: images/cover.jpg' (900×383)"
            report.add(1, "no-cover", message)
        return
    found = images.read(cover)
    if not isinstance(found, ImageFile):
        return  # reported once per file by _bad_covers
    kind, size, width, height = found.format, found.size, found.width, found.height
    formats = _pillow(limits.cover_formats)
    if kind not in formats:
        message = f"cover is {kind}; {channel} takes {_listed(formats)}, so it will be converted"
        report.add(line, "cover-converted", message, WARNING)
    if limits.cover_bytes is not None and size > limits.cover_bytes:
        message = f"cover is {size / MB:.1f} MB, {channel} takes {megabytes(limits.cover_bytes)}"
        report.add(line, "cover-shrunk", f"{message}; it will be re-encoded smaller", WARNING)
    if limits.cover_ratio and height and abs(width / height - limits.cover_ratio) > 0.25:
        message = f"cover is {width}×{height}; {channel} crops covers to {limits.cover_ratio}:1"
        report.add(line, "cover-cropped", f"{message} (e.g. 900×383)", INFO)


def _body_images(report: _Report, refs: list[ImageRef], images: ImageInfo) -> None:
    limits, channel = report.limits, report.channel
    formats = _pillow(limits.image_formats)
    seen: set[str] = set()
    for ref in refs:
        if ref.channel not in (None, channel) or ref.source in seen:
            continue
        seen.add(ref.source)
        if ref.remote and report.platform.image_policy("inline").is_native(ref.source):
            continue  # publish keeps it as it is: nothing to download or convert
        found = images.read(ref.source)
        if ref.remote and found is None:  # not downloaded: its URL is all there is
            _remote_image(report, ref)
            continue
        if not isinstance(found, ImageFile):
            continue  # reported once for every channel by lint()
        kind, size = found.format, found.size
        name = f"image {shown_ref(ref.source)!r}"
        if kind not in formats:
            message = f"{name} is {kind}; {channel} takes {_listed(formats)}, so it is converted"
            report.add(ref.line, "image-converted", message, WARNING)
        elif limits.image_bytes is not None and size > limits.image_bytes:
            message = (
                f"{name} is {size / MB:.1f} MB, {channel} takes {megabytes(limits.image_bytes)} "
                f"for {kind}; it will be re-encoded smaller"
            )
            report.add(ref.line, "image-shrunk", message, WARNING)
        if ref.remote:
            message = (
                f"image {shown_ref(ref.source)} is on another site; it was downloaded and is "
                "uploaded when publishing (keep a copy next to the issue to be safe)"
            )
            report.add(ref.line, "external-image", message, INFO)


def _remote_image(report: _Report, ref: ImageRef) -> None:
    """A remote image: judged by the extension of its URL, all there is before download."""
    channel = report.channel
    formats = _pillow(report.limits.image_formats)
    kind = remote_format(ref.source)
    if kind == "SVG":
        message = (
            f"image {shown_ref(ref.source)} is SVG, which {channel} does not take; "
            f"export it as PNG and link that instead"
        )
        report.add(ref.line, "image-svg", message)
    elif kind is not None and kind not in formats:
        message = (
            f"image {shown_ref(ref.source)} is {kind} by its address; {channel} takes "
            f"{_listed(formats)}, so it is downloaded and converted when publishing (keep a "
            "copy next to the issue to be safe)"
        )
        report.add(ref.line, "external-image-format", message, WARNING)
    else:
        message = (
            f"image {shown_ref(ref.source)} is on another site; it is downloaded and uploaded when "
            "publishing (keep a copy next to the issue to be safe)"
        )
        report.add(ref.line, "external-image", message, INFO)


def _listed(formats: frozenset[str]) -> str:
    return "/".join(sorted(formats))
