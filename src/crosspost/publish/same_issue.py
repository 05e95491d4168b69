"""The same issue under another id: refused before anything is sent, never posted twice.

An issue without ``id:`` is keyed by its file's name, so a file renamed after publishing
(``2026-11-30-weekly.md`` → ``weekly-50.md``), or an ``id:`` edited, is a key the ledger
has never seen. Nothing else would stop the next run: adoption on the platform
(:meth:`~crosspost.publish.machine.PostMachine._adopt`) rightly leaves alone the
articles the ledger holds for other ids, so Zhihu got a second article and WeChat a
second row for the same one.

So the plan looks, for each post that has nothing on its platform yet, at the posts of
the same account under other ids (one indexed query, :meth:`Ledger.posts_like`). The
same issue is:

- a post of **the same content** (the hash of all it sends), wherever it was recorded
  from: a second file with the same words is the same post again;
- a post of **the same title** recorded from this very file (its ``id:`` changed) or from
  a file that is gone, when this one has no ``id:`` (renamed, and maybe edited since). A
  title shared with an issue whose file is still there is another issue (a newsletter
  that keeps one title, a file copied as a template), and so is a new file whose
  ``id:`` the editor wrote: it goes out.

A post of the same content planned earlier in the same run (``publish a.md b.md``, or
two files of a ``run-due`` folder, each new to the ledger) is the same post again too
(:func:`planned_alike`): the first file's goes out, the second is refused.

A match stops the run (exit 2, nothing sent anywhere; in ``run-due``, nothing for that
file) with one line naming the earlier id and how it stands, and what to do: ``id:
<earlier id>`` when it is the same issue (nothing is sent again), one file of the two
when both are in the run, ``--new-post`` when it really is a new post.

The same goes for the same issue on **the same platform account under another name**: an
account renamed in the config (``[channels.wechat.accounts.main]`` → ``…primary``), or
two names for one Official Account. Each name is a key of its own, and adoption on the
platform cannot help where it matters most: WeChat lists no mass send (群发), so the
followers would get the issue a second time. Each post keeps which platform account it
went to (``Account.identity``, a digest of the AppID or the login); a post of the issue
under another name of the same account, or under a name no longer in the config whose
account the ledger does not know (a post from before it kept one: doubt refuses), stops
the run the same way, naming the earlier post and the ways on.

A Zhihu login is no account: its z_c0 cookie changes each time the editor logs in again,
and two browsers hold two of them for one member. So a Zhihu post keeps its member (a
digest of its id, kind ``member``), which the login check (``/api/v4/me``, the run's first
call of the account) says before anything is created: there :func:`member_post` finds a
post whose issue went to the same member under another name (renamed and logged in again,
or two names with two logins), and :func:`other_name_refusal` stops the run on it. The
plan's look, before any call, still catches the same login under another name, and
doubt; it leaves posts of a member to the login check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from crosspost.channels.registry import adapter_class
from crosspost.config.accounts import IDENTITY_CREDENTIALS, MEMBER, Account
from crosspost.errors import ConfigError, IssueError
from crosspost.ledger.store import Ledger, PostRecord
from crosspost.publish.jobs import Job, PublishOptions
from crosspost.publish.words import state_word

#: The flag that publishes such an issue all the same (``publish --new-post``).
NEW_POST_FLAG = "--new-post"


@dataclass(frozen=True)
class Earlier:
    """A job's issue, found under another id: in the ledger, or planned in this run."""

    job: Job
    #: The other id, and the file its post came from (None: the ledger has none).
    issue_id: str
    source: str | None
    #: How the other post stands ("published https://…"); "" for one of this run.
    standing: str
    #: What they share: "content" or "title".
    same: str

    @property
    def in_run(self) -> bool:
        """The other post is planned in this run, not yet in the ledger."""
        return not self.standing


def earlier_post(ledger: Ledger, job: Job) -> Earlier | None:
    """The post of ``job``'s account that is ``job``'s issue under another id, or None."""
    like = ledger.posts_like(job.key, content_hash=job.content_hash, title=job.rendered.title)
    made = [record for record in like if record.reached_platform]
    for record in made:
        if record.content_hash == job.content_hash:
            return _from_ledger(job, record, "content")
    here = str(Path(job.issue.path).resolve())
    named = job.issue.line_of("id") is not None
    for record in made:
        if _left_for(record, here, named):
            return _from_ledger(job, record, "title")
    return None


def same_issue_as(
    ledger: Ledger, job: Job, planned: Planned, configured: Sequence[Account], config: str
) -> Earlier | None:
    """Every look for ``job``'s issue elsewhere, for a post with nothing on its platform
    yet: under another id (in the ledger, or planned earlier in this run: returned, so
    the caller names every account of it in one line), or on the same platform account
    under another name (``configured``: the channel's accounts; raised at once)."""
    earlier = earlier_post(ledger, job) or planned_alike(job, planned)
    renamed = other_name_post(ledger, job, configured)
    if renamed is not None:
        raise other_name_refusal(renamed, config)
    return earlier


def _from_ledger(job: Job, record: PostRecord, same: str) -> Earlier:
    return Earlier(job, record.issue_id, record.issue_path, _standing(record), same)


#: This run's planned posts by account and content hash (the first file of each).
Planned = Mapping[tuple[str, str], Job]


def planned_alike(job: Job, planned: Planned) -> Earlier | None:
    """The post of ``job``'s account with the same content planned earlier in this run
    from another file under another id, or None: two files with the same words, both new
    to the ledger, are one post (the first file's). The same title alone is not: the
    other file is still there, so it is another issue."""
    other = planned.get((job.account.key, job.content_hash))
    if other is None or other.issue.id == job.issue.id:
        return None
    if Path(other.issue.path).resolve() == Path(job.issue.path).resolve():
        return None
    return Earlier(job, other.issue.id, str(other.issue.path), "", "content")


def _left_for(record: PostRecord, here: str, named: bool) -> bool:
    """Whether the earlier post's file is this one (its ``id:`` changed) or is gone (a
    file renamed, which took its id from its name): not another file still there
    (another issue with the same title), nor a new file whose ``id:`` the editor wrote
    (``named``: a newsletter that keeps one title and deletes its old files names each
    issue). A post with no file recorded counts as gone: doubt refuses, a person can say
    ``--new-post``."""
    path = record.issue_path
    if path == here:
        return True
    return not named and (path is None or not Path(path).exists())


def refusal(found: Sequence[Earlier]) -> IssueError:
    """The one line for the first issue found under another id (every account of it
    that knows the same earlier id is named)."""
    first = found[0]
    job, earlier_id = first.job, first.issue_id
    same = [
        f
        for f in found
        if f.job.issue.path == job.issue.path
        and f.issue_id == earlier_id
        and f.in_run == first.in_run
    ]
    source = first.source
    here = str(Path(job.issue.path).resolve())
    came = f", from {source}" if source and source != here else ""
    line = job.issue.line_of("id")
    command = job.account.command("publish", str(job.issue.path), NEW_POST_FLAG)
    new_post = f"if it is a new post, publish it with '{command}'"
    if first.in_run:
        accounts = ", ".join(f.job.account.key for f in same)
        return IssueError(
            job.issue.path,
            f"this issue is also in this run, as '{earlier_id}' (going to {accounts}; the "
            f"same {first.same}{came}); nothing was sent. If it is the same issue, keep "
            f"one of the two files (delete or move the other); {new_post}",
            line,
        )
    standing = "; ".join(f"{f.job.account.key} {f.standing}" for f in same)
    return IssueError(
        job.issue.path,
        f"this issue is already in the ledger as '{earlier_id}' ({standing}; the same "
        f"{first.same}{came}); nothing was sent. If it is the same issue, "
        f"{'set' if line else 'add'} 'id: {earlier_id}' {'in' if line else 'to'} its front "
        f"matter (then nothing is sent again); {new_post}",
        line,
    )


def _standing(record: PostRecord) -> str:
    word = state_word(record)
    return f"{word} {record.url}" if record.url else word


#: What makes two account names one account on the platform, in a message, by the kind
#: of identity that showed it.
_SAME_LOGIN = {
    "app_id": "the same AppID",
    "z_c0": "the same z_c0 login cookie",
    MEMBER: "the same Zhihu member",
}


def _same_what(kind: str | None) -> str:
    return _SAME_LOGIN.get(kind or "", "the same credentials")


class OtherNameRefused(IssueError):
    """The issue already went to this platform account under another account name: the
    post is refused before anything is created, and it is no failure of the post (the
    ledger keeps nothing of it: the run after the fix goes on as if it had not been)."""


@dataclass(frozen=True)
class OtherName:
    """A job's issue, already on the job's platform account under another account name."""

    job: Job
    record: PostRecord
    #: The account the config gives that name now (None: no longer in the config).
    named: Account | None
    #: Whether the ledger (or the config) says it is the same account, or only cannot
    #: say it is another one (a post from before the ledger kept accounts).
    certain: bool
    #: The kind of identity that says so (``app_id``, ``z_c0``, ``member``).
    kind: str | None = None


def other_name_post(ledger: Ledger, job: Job, configured: Sequence[Account]) -> OtherName | None:
    """A post of ``job``'s issue, on its channel, that reached the platform under another
    account name of the same platform account, or of an account the ledger cannot tell
    apart from it (its name gone from the config, its account not recorded). One indexed
    look-up (the issue's posts on the channel)."""
    mine, kind = job.account.identity, job.account.identity_kind
    if mine is None:
        return None
    names = {account.name: account for account in configured}
    for record in ledger.posts(job.issue.id, channel=job.account.channel):
        if record.account == job.account.name or not record.reached_platform:
            continue
        if record.account_identity and record.identity_kind == MEMBER:
            continue  # no login says which member it is: the login check does
        named = names.get(record.account)
        known = record.account_identity or (named.identity if named else None)
        if known is None or known == mine:
            return OtherName(job, record, named, certain=known is not None, kind=kind)
        if named is None and record.identity_kind == kind and login_names_no_account(job):
            # Another login, of a name gone from the config, kept before the ledger kept
            # the account behind it (Zhihu's member): it may have been this one's. Doubt
            # refuses.
            return OtherName(job, record, None, certain=False, kind=kind)
    return None


def login_names_no_account(job: Job) -> bool:
    """Whether ``job``'s :attr:`Account.identity <crosspost.config.accounts.Account.
    identity>` is one login's, not the platform account's: so on a channel whose login
    check says which account it is (Zhihu's z_c0, its member), which the adapter declares
    (``identity_at_login``)."""
    return adapter_class(job.account.channel).identity_at_login


def member_post(
    job: Job, posts: Sequence[PostRecord], member: str, configured: Sequence[Account]
) -> OtherName | None:
    """A post of ``job``'s issue (``posts``: its channel's, as :meth:`Ledger.claim_identity`
    returns them) that went, or is going, to ``member`` under another account name: one
    that reached the platform, or one of a name still in the config (two names for one
    member: the other may be sending it this very moment)."""
    names = {account.name: account for account in configured}
    for record in posts:
        if record.account == job.account.name or record.identity_kind != MEMBER:
            continue
        if record.account_identity != member:
            continue
        named = names.get(record.account)
        if record.reached_platform or named is not None:
            return OtherName(job, record, named, certain=True, kind=MEMBER)
    return None


def login_refusal(
    job: Job,
    posts: Sequence[PostRecord],
    member: str,
    configured: Sequence[Account],
    config: str,
    *,
    first: bool,
) -> OtherNameRefused | None:
    """What the login check says of ``job`` when its login is ``member``'s (``posts``: its
    issue's on the channel, as :meth:`Ledger.claim_identity` leaves them). A post that went
    to another member is changed through no one else's login (the wrong person's cookie
    pasted: Zhihu would refuse, or a draft found gone would be made again, for the wrong
    member); and, before the ``first`` create, the issue sent to ``member`` under another
    name stops the post (:func:`member_post`)."""
    own = next((record for record in posts if record.account == job.account.name), None)
    if (
        own is not None
        and own.reached_platform
        and own.identity_kind == MEMBER
        and own.account_identity != member
    ):
        here = job.account.key
        credential = IDENTITY_CREDENTIALS.get(job.account.channel, "login")
        said = (
            f"{here} now logs in as another Zhihu member than the one this issue went to as "
            f"{here} ({_standing(own)}); nothing was sent. If the login is someone else's, "
            f"put the account's own back (its {credential} in {config} or its environment); "
            f"if {here} is another account now, give that account a name of its own"
        )
        return OtherNameRefused(job.issue.path, said)
    if not first:
        return None
    found = member_post(job, posts, member, configured)
    return None if found is None else other_name_refusal(found, config)


def before_first_create(record: PostRecord | None, options: PublishOptions) -> bool:
    """Whether a post's login check still looks for its issue under another name of the
    same account (:func:`login_refusal`'s ``first``): nothing of the post is on its
    platform yet, and ``--new-post`` did not say to send it all the same. A run and its
    ``--dry-run`` ask the same."""
    return not (options.new_post or (record is not None and record.reached_platform))


def other_name_refusal(found: OtherName, config: str) -> OtherNameRefused:
    """The one line for an issue already on this platform account under another name
    (``config``: the config file, as the line names it)."""
    job, record = found.job, found.record
    here, there = job.account.key, f"{record.channel}:{record.account}"
    standing = _standing(record)
    same = _same_what(found.kind)
    command = job.account.command("publish", str(job.issue.path), "-c", here, NEW_POST_FLAG)
    went = f"this issue already went out as {there} ({standing})"
    old = f"[channels.{record.channel}.accounts.{record.account}]"
    if found.named is not None and not found.certain:  # a name without its credentials
        said = (
            f"{went}, and the ledger does not know which account that was; {there}'s "
            f"credentials are not set here, so whether {here} is the same account ({same}) "
            f"cannot be told; nothing was sent. Set {there}'s credentials and run again to "
            f"let crosspost compare them; if {here} is another account, publish the issue "
            f"there with '{command}'"
        )
    elif found.named is not None:  # two names in the config for one account
        if not record.reached_platform:  # on its way under the other name, this very run
            went = f"this issue is going out as {there} ({standing})"
        said = (
            f"{went}, and {there} is the same account as {here} ({same}); nothing was sent. "
            f"Two names for one account would send it every issue twice: remove one of "
            f"them from {config}"
        )
    elif found.certain:
        said = (
            f"this issue already went out to this account as {there} ({standing}; {same} "
            f"as {here}), a name no longer in the config; nothing was sent. If the account "
            f"was renamed, its posts are in the ledger under its old name: give it back "
            f"({old} in {config}) to go on with them; to send the issue to it a second "
            f"time all the same, run '{command}'"
        )
    else:
        said = (
            f"{went}, an account no longer in the config, and the ledger does not know "
            f"whether {here} is that account; nothing was sent. If {here} is {there} "
            f"renamed, give it back its old name ({old} in {config}); if it is another "
            f"account, publish the issue there with '{command}'"
        )
    return OtherNameRefused(job.issue.path, said)


def two_names_one_account(jobs: Sequence[Job], config: str) -> ConfigError | None:
    """Two accounts of one run that are one account on the platform (the same AppID or
    login under two names in ``config``): each issue would go to it twice."""
    seen: dict[tuple[str, str], Account] = {}
    for job in jobs:
        identity = job.account.identity
        if identity is None:
            continue
        first = seen.setdefault((job.account.channel, identity), job.account)
        if first.name != job.account.name:
            return ConfigError(
                f"{first.key} and {job.account.key} are the same account "
                f"({_same_what(first.identity_kind)}): each issue would go to it twice; remove "
                f"one of them from {config} (nothing was sent)"
            )
    return None
