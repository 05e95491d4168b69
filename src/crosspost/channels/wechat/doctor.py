"""``crosspost doctor`` for a WeChat Official Account: what it may do, and the canary.

:func:`checkup` changes nothing: a token call (are AppID and AppSecret accepted, and from
which IP WeChat saw the call when it refuses with 40164), then ``openapi/quota/get`` for
the path of each thing crosspost may ask of the account (spec
wechat-broadcast-and-accounts.md §3: a path the account may not call answers 48001, or
76022). From which paths answer, it names the kind of account, and a lapsed verification
(even ``draft/add`` refused).

:func:`canary`, asked for explicitly, changes something and undoes it: a cover as
permanent material, a draft of HTML the caller rendered with the configured theme, the
draft read back (``draft/get``) and compared with what was sent (:func:`html_changes`),
then both deleted. If a delete fails, the result says what to remove by hand.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from crosspost.channels.checkup import Capability, Checkup
from crosspost.channels.wechat.api import WeChatApi, normalise_id
from crosspost.channels.wechat.errors import VERIFY_HELP
from crosspost.config.advice import command_line
from crosspost.errors import AuthError, ChannelError, RateLimitedError, TransientError
from crosspost.patterns import pattern
from crosspost.platforms.wechat import ACCOUNT_KINDS, AccountKind

#: What crosspost may ask of an account, and the API path that tells whether it may.
PROBES: tuple[tuple[str, str], ...] = (
    ("draft", "/cgi-bin/draft/add"),
    ("publish", "/cgi-bin/freepublish/submit"),
    ("broadcast", "/cgi-bin/message/mass/sendall"),
    ("preview", "/cgi-bin/message/mass/preview"),
)
#: quota/get's answers for a path the account may not call (76022 per wechat-api.md §7;
#: 48001 also seen: spec wechat-broadcast-and-accounts.md §3).
DENIED_CODES = frozenset({48001, 76022})
#: quota/get's answer for a path WeChat does not know.
UNKNOWN_PATH_CODE = 76021
UNKNOWN_PATH_NOTE = "WeChat does not know this path"
#: The caller's address in the 40164 line of :func:`~crosspost.channels.wechat.errors.describe`.
_SEEN_IP = pattern(r"WeChat saw the call from ([0-9A-Fa-f.:]+);")
_DRAFTS_HELP = "公众号后台 → 内容与互动 → 草稿箱"


def checkup(
    api: WeChatApi,
    *,
    account: str,
    app_id: str,
    mode: str | None,
    kind: str | None = None,
    rehearsal: bool = False,
) -> Checkup:
    """Examine one account through ``api`` (see the module docstring); ``mode`` and
    ``kind`` are the account's configured ones, held against what WeChat answers.
    ``rehearsal``: the account is the sandbox's (``doctor --sandbox``), whose kind no
    config sets: the emulator's ``account_kind`` option does."""
    facts: list[tuple[str, str]] = [("app_id", app_id)]
    try:
        api.token.token()
    except TransientError as error:
        return Checkup(account, tuple(facts), problems=(str(error),), unreachable=True)
    except AuthError as error:
        facts.append(("credentials", "refused"))
        return Checkup(account, tuple(facts), problems=(str(error),))
    except ChannelError as error:
        if error.code == 40164:
            seen = _SEEN_IP.search(str(error))
            facts.append(("credentials", "not checked: this IP is not whitelisted"))
            facts.append(("ip seen by WeChat", seen.group(1) if seen else "not said"))
        return Checkup(account, tuple(facts), problems=(str(error),))
    facts.append(("credentials", "accepted"))
    capabilities: list[Capability] = []
    unreachable = False
    for name, path in PROBES:
        capability = _probe(api, name, path)
        capabilities.append(capability)
        if capability.allowed is None:
            unreachable = unreachable or capability.note.startswith("unreachable")
    allowed = {c.name for c in capabilities if c.allowed}
    observed = _observed(capabilities)
    shown, problems, notes = _kind_findings(account, kind, observed, rehearsal=rehearsal)
    facts.append(("kind", shown))
    quota = _mass_quota(kind, matching_kinds(observed) if observed else ())
    if quota:
        facts.append(("mass sends", quota))
    for capability in capabilities:
        if capability.allowed is None and not unreachable:
            line = f"WeChat would not say whether {account} may {capability.name}"
            if capability.note == UNKNOWN_PATH_NOTE:
                notes.append(f"{line}: it does not know {capability.path}")
            else:
                problems.append(f"{line}: {capability.note}")
    if any(c.name == "draft" and c.allowed is False for c in capabilities):
        problems.append(
            "WeChat refuses even draft/add (48001): the account's verification (认证) has "
            f"lapsed or it is not allowed to use the API; renew it in {VERIFY_HELP}"
        )
    needed = {"publish": "publish", "broadcast": "broadcast"}.get(mode or "")
    if needed and needed not in allowed and "draft" in allowed:
        notes.append(
            f"mode = {mode}, but this account may not {needed} through the API: runs leave "
            f"a draft to send by hand ({_DRAFTS_HELP}, or the 公众号助手 app)"
        )
    for capability in capabilities:
        if capability.allowed and capability.daily_limit and capability.remain == 0:
            notes.append(
                f"{capability.name}: today's {capability.daily_limit} calls of "
                f"{capability.path} are used up; they come back at 00:00 Beijing time"
            )
    return Checkup(
        account,
        tuple(facts),
        tuple(capabilities),
        tuple(problems),
        tuple(notes),
        unreachable=unreachable,
    )


def _probe(api: WeChatApi, name: str, path: str) -> Capability:
    """quota/get for one path: allowed with today's use, refused, or unknown (with why)."""
    try:
        data = api.quota(path)
    except RateLimitedError as error:
        return Capability(name, path, None, note=str(error))
    except TransientError as error:
        return Capability(name, path, None, note=f"unreachable: {error}")
    except ChannelError as error:
        if error.code in DENIED_CODES:
            return Capability(name, path, False, note=f"WeChat errcode {error.code}")
        if error.code == UNKNOWN_PATH_CODE:
            return Capability(name, path, None, note=UNKNOWN_PATH_NOTE)
        return Capability(name, path, None, note=str(error))
    quota = data.get("quota")
    if not isinstance(quota, dict):
        quota = {}
    return Capability(
        name,
        path,
        True,
        used=_number(quota.get("used")),
        daily_limit=_number(quota.get("daily_limit")),
        remain=_number(quota.get("remain")),
    )


def _number(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _observed(capabilities: Iterable[Capability]) -> dict[str, bool]:
    """What WeChat said the account may call, leaving out what it would not say."""
    return {c.name: c.allowed for c in capabilities if c.allowed is not None}


def _may(kind: AccountKind, name: str) -> bool:
    return bool(getattr(kind, f"may_{name}"))


def matching_kinds(observed: dict[str, bool]) -> tuple[str, ...]:
    """The declared account kinds (``platforms.wechat.ACCOUNT_KINDS``) that fit WeChat's
    answers."""
    return tuple(
        name
        for name, kind in ACCOUNT_KINDS.items()
        if all(_may(kind, call) == allowed for call, allowed in observed.items())
    )


def _mass_quota(configured: str | None, fits: tuple[str, ...]) -> str:
    """The mass-send quota of the account's kind, when the kind is known: configured and
    not contradicted, or the only one WeChat's answers fit."""
    known = configured if configured in fits else (fits[0] if len(fits) == 1 else None)
    return ACCOUNT_KINDS[known].mass_quota if known else ""


def _one_of(names: tuple[str, ...]) -> str:
    quoted = [f'"{name}"' for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def _kind_findings(
    account: str, configured: str | None, observed: dict[str, bool], *, rehearsal: bool = False
) -> tuple[str, list[str], list[str]]:
    """The kind to show, and problems and notes about the configured ``kind``."""
    fits = matching_kinds(observed) if observed else ()
    if not observed:
        shown = "unknown (WeChat did not say what the account may call)"
    else:
        shown = " or ".join(fits) if fits else "unknown (no declared kind fits WeChat's answers)"
    problems: list[str] = []
    notes: list[str] = []
    if configured is not None and fits and configured not in fits:
        differs = [
            call
            for call, allowed in observed.items()
            if _may(ACCOUNT_KINDS[configured], call) != allowed
        ]
        problems.append(
            f'{account} has kind = "{configured}" in the config, but WeChat answers otherwise '
            f"for {', '.join(differs)}; set kind to {_one_of(fits)}"
        )
    elif configured is None and fits and rehearsal:
        notes.append(_sandbox_kind(fits))
    elif configured is None and fits:
        notes.append(
            f"set kind to {_one_of(fits)} on {account} in the config: runs then plan what "
            "to send without asking WeChat"
        )
    return shown, problems, notes


def _sandbox_kind(fits: tuple[str, ...]) -> str:
    """What the sandbox's account kind is set by (not the config: the sandbox's account
    is in none), and how to rehearse another kind."""
    other = next(name for name in ACCOUNT_KINDS if name not in fits)
    again = command_line("doctor", "--option", f"wechat.account_kind={other}", rehearsal=True)
    rest = ", ".join(name for name in ACCOUNT_KINDS if name != other)
    return (
        f"the sandbox answers as {_one_of(fits)} (its emulator option wechat.account_kind, "
        f"not the config); rehearse another kind with {again} (or {rest})"
    )


# --- the canary --------------------------------------------------------------------------


@dataclass(frozen=True)
class HtmlChanges:
    """What the platform removed from HTML it stored, counted by name."""

    tags: dict[str, int] = field(default_factory=dict)
    attributes: dict[str, int] = field(default_factory=dict)
    styles: dict[str, int] = field(default_factory=dict)
    sent_chars: int = 0
    kept_chars: int = 0
    kept_bytes: int = 0

    @property
    def unchanged(self) -> bool:
        return not (self.tags or self.attributes or self.styles)

    def as_dict(self) -> dict[str, Any]:
        """The stable JSON form."""
        return {
            "removed_tags": self.tags,
            "removed_attributes": self.attributes,
            "removed_style_properties": self.styles,
            "sent_chars": self.sent_chars,
            "kept_chars": self.kept_chars,
            "kept_bytes": self.kept_bytes,
        }


@dataclass(frozen=True)
class Canary:
    """The canary draft's story: made, read back, compared, deleted (or left behind)."""

    account: str
    draft_id: str | None = None
    changes: HtmlChanges | None = None
    deleted: bool = False
    problems: tuple[str, ...] = ()
    #: Why no canary was made (the checkup found something to fix first); "" when one was.
    skipped: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The stable JSON form."""
        return {
            "account": self.account,
            "draft_id": self.draft_id,
            "deleted": self.deleted,
            "changes": self.changes.as_dict() if self.changes else None,
            "problems": list(self.problems),
            "skipped": self.skipped,
        }


def _inventory(html: str) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """Tags, ``tag[attribute]`` and style properties in ``html``, each counted."""
    from bs4 import BeautifulSoup, Tag

    tags: Counter[str] = Counter()
    attributes: Counter[str] = Counter()
    styles: Counter[str] = Counter()
    for element in BeautifulSoup(html, "html.parser").find_all(True):
        if not isinstance(element, Tag):
            continue
        tags[element.name] += 1
        for attribute, value in element.attrs.items():
            attributes[f"{element.name}[{attribute}]"] += 1
            if attribute == "style":
                for declaration in str(value).split(";"):
                    prop = declaration.split(":", 1)[0].strip().lower()
                    if prop and ":" in declaration:
                        styles[prop] += 1
    return tags, attributes, styles


def html_changes(sent: str, kept: str) -> HtmlChanges:
    """What of ``sent`` is missing from ``kept`` (tags, attributes, style properties by
    count), and the lengths as the platform counts them (characters of the stored HTML)."""
    before, after = _inventory(sent), _inventory(kept)
    removed = [dict(sorted((b - a).items())) for b, a in zip(before, after, strict=True)]
    return HtmlChanges(
        tags=removed[0],
        attributes=removed[1],
        styles=removed[2],
        sent_chars=len(sent),
        kept_chars=len(kept),
        kept_bytes=len(kept.encode()),
    )


def _cover_jpeg() -> bytes:
    """A small plain cover: draft/add needs one (thumb_media_id)."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (470, 200), (235, 240, 245)).save(out, "JPEG")
    return out.getvalue()


def canary(api: WeChatApi, *, account: str, title: str, html: str) -> Canary:
    """Make a draft of ``html``, read it back, compare, and delete it (and its cover)."""
    problems: list[str] = []
    try:
        material = api.add_material(
            {"media": ("crosspost-canary.jpg", _cover_jpeg(), "image/jpeg")}
        )
    except ChannelError as error:
        return Canary(account, problems=(f"could not upload the canary's cover: {error}",))
    cover = normalise_id(material.get("media_id")) or ""
    draft_id: str | None = None
    changes: HtmlChanges | None = None
    deleted = False
    try:
        article = {"title": title, "content": html, "thumb_media_id": cover}
        draft_id = normalise_id(api.add_draft(article).get("media_id"))
        if draft_id:
            items = api.get_draft(draft_id).get("news_item") or [{}]
            changes = html_changes(html, str(items[0].get("content") or ""))
    except ChannelError as error:
        problems.append(
            f"the canary draft failed: {error}"
            + ("" if draft_id else f"; if 草稿箱 holds a draft titled {title!r}, delete it")
        )
    finally:
        if draft_id:
            deleted = _undo(api.delete_draft, draft_id, problems, f"draft {draft_id}")
        _undo(api.delete_material, cover, problems, f"image material {cover}")
    return Canary(account, draft_id, changes, deleted, tuple(problems))


def _undo(delete: Callable[[str], object], media_id: str, problems: list[str], what: str) -> bool:
    """One delete; when it fails, a problem line naming what to remove by hand."""
    try:
        delete(media_id)
    except ChannelError as error:
        where = _DRAFTS_HELP if what.startswith("draft") else "公众号后台 → 内容与互动 → 素材库"
        problems.append(f"could not delete the canary's {what} ({error}); remove it in {where}")
        return False
    return True


def describe_changes(changes: HtmlChanges) -> Iterable[str]:
    """Lines saying what the platform changed, for the terminal."""
    yield (
        f"sent {changes.sent_chars:,} characters of HTML; WeChat keeps {changes.kept_chars:,} "
        f"characters ({changes.kept_bytes:,} bytes), the count its limits apply to"
    )
    if changes.unchanged:
        yield "WeChat removed no tag, attribute or style property"
        return
    for label, counts in (
        ("tags", changes.tags),
        ("attributes", changes.attributes),
        ("style properties", changes.styles),
    ):
        if counts:
            listed = ", ".join(f"{name} ×{count}" for name, count in counts.items())
            yield f"removed {label}: {listed}"
