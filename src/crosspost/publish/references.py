"""Channel references: a front-matter field that names another channel's URL of the issue.

``wechat: {source_url: "{zhihu.url}"}`` makes WeChat's 阅读原文 open the Zhihu post of the
same issue; ``{zhihu:main.url}`` names the account. Any text field a channel sees (its own
block, or the top-level field it inherits) may hold such references, and so may the body
("也发在[知乎]({zhihu.url})"), as far as the channel shows it (not inside another
channel's ``::: only`` block, not in code).

The publisher resolves them in two places, and this module holds the rules for both:

* in ``plan`` (nothing sent yet): a cycle, a reference to a channel the run does not
  publish and the ledger has no URL for, or one to a post this run only drafts (a draft
  has no public URL) is a :class:`UsageError` naming the file and line. A URL the ledger
  already holds is filled in there and then;
* in ``run``: the rest wait until the post they name is published in this run, and are
  filled in before rendering, so the content hash and the draft hold the real URL.

The renderers stay pure: they get a copy of the Issue whose channel block holds the
URL (:func:`resolve`), never the ledger.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

from crosspost.errors import IssueError
from crosspost.issue.body import CHANNEL_URL, body_references
from crosspost.issue.model import Issue
from crosspost.ledger.store import Ledger, PostKey
from crosspost.platforms.registry import PLATFORMS, platform_names

#: ``{zhihu.url}`` or ``{zhihu:main.url}`` (one pattern for fields and the body).
PATTERN = CHANNEL_URL
#: The :attr:`Reference.field` of a reference written in the body.
BODY = "body"
#: Top-level fields a channel inherits unless its own block sets them (``Issue.settings``).
INHERITED = ("title", "author", "digest", "source_url")


@dataclass(frozen=True)
class Reference:
    """One ``{channel[:account].url}`` in a field that ``channel`` of an issue sees."""

    #: The channel whose field holds the reference.
    source: str
    #: The channel (and account, if named) whose URL it wants.
    channel: str
    account: str | None
    #: The text as written, e.g. ``{zhihu.url}``; the key of the value in :func:`resolve`.
    text: str
    #: The front-matter key (``wechat.source_url`` or ``source_url``) and its line.
    field: str
    line: int | None


@dataclass(frozen=True)
class Link:
    """A reference tied to the post it names: known from the ledger, or made in this run."""

    reference: Reference
    target: PostKey
    #: The URL when the ledger already has it; None while the post is made in this run.
    url: str | None


def references(issue: Issue, channel: str) -> tuple[Reference, ...]:
    """Every reference in the fields ``channel`` sees of ``issue``, in front-matter order."""
    block = issue.overrides.get(channel, {})
    fields: list[tuple[str, object]] = [(f"{channel}.{k}", v) for k, v in block.items()]
    fields += [(name, getattr(issue, name)) for name in INHERITED if not block.get(name)]
    found = []
    for name, value in fields:
        if not isinstance(value, str):
            continue
        for match in PATTERN.finditer(value):
            found.append(
                Reference(
                    channel,
                    match.group(1),
                    match.group(2),
                    match.group(0),
                    name,
                    issue.line_of(name),
                )
            )
    for ref in body_references(issue, channel):
        found.append(Reference(channel, ref.channel, ref.account, ref.text, BODY, ref.line))
    return tuple(found)


def resolve(issue: Issue, channel: str, urls: Mapping[str, str]) -> Issue:
    """A copy of ``issue`` whose ``channel`` block has each reference's URL filled in.

    ``urls`` maps the reference text (``{zhihu.url}``) to the URL. Inherited top-level
    fields are copied into the channel's block with the URL in them, so the other
    channels of the issue see the fields as written.
    """

    def fill(text: str) -> str:
        return PATTERN.sub(lambda m: urls.get(m.group(0), m.group(0)), text)

    block = dict(issue.overrides.get(channel, {}))
    for name, value in block.items():
        if isinstance(value, str):
            block[name] = fill(value)
    for name in INHERITED:
        value = getattr(issue, name)
        if not block.get(name) and isinstance(value, str) and PATTERN.search(value):
            block[name] = fill(value)
    overrides = {**issue.overrides, channel: MappingProxyType(block)}
    # The copy is rendered for ``channel`` alone, so its body may hold the URLs too.
    return replace(issue, body=fill(issue.body), overrides=MappingProxyType(overrides))


def link(
    issue: Issue,
    planned: Mapping[str, Sequence[tuple[str, str]]],
    ledger: Ledger,
) -> dict[str, tuple[Link, ...]]:
    """Tie every reference of ``issue`` to a post, or say in one line what to change.

    ``planned`` maps each channel this run publishes the issue to, to its accounts as
    ``(account name, mode)``. Returns channel → its links. Raises :class:`IssueError`
    (exit 2) on a cycle, an unknown channel, an ambiguous or unknown target, or a
    target this run only drafts.
    """
    by_channel = {channel: references(issue, channel) for channel in planned}
    for found in by_channel.values():
        for ref in found:
            if ref.channel not in PLATFORMS:
                raise _error(
                    issue,
                    ref,
                    f"names unknown channel '{ref.channel}'; use "
                    + " or ".join(f"{{{c}.url}}" for c in platform_names()),
                )
    if not any(by_channel.values()):
        return {}
    _check_cycles(issue, by_channel)
    published = {
        (p.channel, p.account): p.url for p in ledger.posts(issue.id) if p.is_published and p.url
    }
    return {
        channel: tuple(_link(issue, ref, planned, published) for ref in found)
        for channel, found in by_channel.items()
    }


def _link(
    issue: Issue,
    ref: Reference,
    planned: Mapping[str, Sequence[tuple[str, str]]],
    published: Mapping[tuple[str, str], str | None],
) -> Link:
    in_run = dict(planned.get(ref.channel, ()))
    account = ref.account
    if account is None:
        names = list(in_run) or [a for c, a in published if c == ref.channel]
        if len(set(names)) > 1:
            example = f"{{{ref.channel}:{sorted(names)[0]}.url}}"
            raise _error(issue, ref, f"is ambiguous ({len(names)} accounts); write {example}")
        account = names[0] if names else "main"
    target = PostKey(issue.id, ref.channel, account)
    url = published.get((ref.channel, account))
    if url:
        return Link(ref, target, url)
    if account not in in_run:
        raise _error(
            issue,
            ref,
            f"needs the {ref.channel}:{account} post's URL, which this run does not publish "
            f"and the ledger does not have; publish it too (add '{ref.channel}' to the "
            "issue's channels or -c), or write the URL",
        )
    if in_run[account] != "publish":
        raise _error(
            issue,
            ref,
            f"needs the {ref.channel}:{account} post's public URL, but this run only makes "
            f"a draft there; set 'mode: publish' in the {ref.channel} block (or --mode "
            "publish), or write the URL",
        )
    return Link(ref, target, None)


def _check_cycles(issue: Issue, by_channel: Mapping[str, Iterable[Reference]]) -> None:
    """A channel waiting (through others) for its own URL can never be published."""
    edges = {c: [r for r in refs if r.channel in PLATFORMS] for c, refs in by_channel.items()}

    def visit(channel: str, path: tuple[str, ...], first: Reference | None) -> None:
        for ref in edges.get(channel, ()):
            head = first or ref  # the error names the field where the cycle starts
            if ref.channel == path[0]:
                chain = " → ".join((*path, ref.channel))
                if len(path) > 1:
                    hint = "one of them must name a URL without waiting for the other"
                elif ref.field == BODY:
                    hint = (
                        f"{ref.channel} cannot show its own URL; put the line inside "
                        f"'::: only …' for the channels that should show it"
                    )
                else:
                    hint = (
                        f"{ref.channel} cannot show its own URL; move the field into the block "
                        "of the channel that should show it (e.g. 'wechat: {source_url: …}')"
                    )
                raise _error(issue, head, f"makes a cycle ({chain}); {hint}")
            if ref.channel not in path:
                visit(ref.channel, (*path, ref.channel), head)

    for channel in edges:
        visit(channel, (channel,), None)


def _error(issue: Issue, ref: Reference, problem: str) -> IssueError:
    where = "in the body," if ref.field == BODY else f"'{ref.field}':"
    return IssueError(issue.path, f"{where} {ref.text} {problem}", ref.line)
