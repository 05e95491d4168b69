"""Notices: tell a person when a scheduled run needs them, through Apprise.

Apprise turns one URL per destination into a message on WeCom, DingTalk, Feishu, Slack,
Telegram, e-mail and a hundred more; it is the optional extra ``notify``
(``.venv/bin/pip install '.[notify]'`` in crosspost's checkout) and is imported only
when a notice is sent, so a quiet cron tick never pays for it. The URLs come from the
environment variable the config names (``[notify] urls_env``, default
``CROSSPOST_NOTIFY_URLS``), because they carry tokens.

A notice goes out when a run ends with a post failed or unconfirmed, a temporary
failure, an issue missed or a file with bad input (each once per version of the file,
like the terminal report), and, with ``[notify] on_success``, when posts were published.
Its text passes through a :class:`~crosspost.config.redaction.Redactor` that knows every
account credential and every part of the notify URLs themselves, so a notice never
carries a secret even if an error message did.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from crosspost.config.counts import counted
from crosspost.config.redaction import redactor_for
from crosspost.config.settings import Secret
from crosspost.errors import EXIT_OK, install_extra
from crosspost.schedule.report import TEMPORARY, DueReport

#: Apprise's notify types, by the name we use for a notice.
KINDS = ("success", "warning", "failure")
MISSING_APPRISE = (
    f"notices are configured but Apprise is not installed; {install_extra('notify')} "
    "(no notice was sent)"
)


@dataclass(frozen=True)
class Notice:
    """One message for a person: a title line, a body of lines, and how bad it is."""

    title: str
    body: str
    kind: str = "failure"


def run_notice(report: DueReport, *, on_success: bool = False) -> Notice | None:
    """The notice a scheduler tick deserves, or None (nothing new, or success unasked).

    Each post is named with its state in the words ``status`` and the terminal report
    use (:meth:`DueReport.word <crosspost.schedule.report.DueReport.word>`).
    """
    trouble = [
        f"{report.word(r)} {r.key.channel}:{r.key.account} {r.key.issue_id}: {r.message}"
        for r in report.results
        if r.exit_code != EXIT_OK
    ]
    trouble += [
        f"{e.kind}: {e.message}"
        if e.kind in ("problem", TEMPORARY)
        else f"missed {e.account} {e.issue_id}: {e.message}"
        for e in report.entries
        if e.kind in ("missed", "problem", TEMPORARY) and not e.repeat
    ]
    if report.trouble is not None:  # this machine's own files stopped the tick
        trouble.append(f"error: {report.trouble}")
    # Not failures, but a person must act: press 群发/发表 by hand, approve a post.
    asks = [
        f"{report.word(r)} {r.key.channel}:{r.key.account} {r.key.issue_id}: {r.todo}"
        for r in report.results
        if r.asks_person
    ]
    if trouble or asks:
        count = len(trouble) + len(asks)
        title = f"crosspost: {count} {'thing needs' if count == 1 else 'things need'} you"
        return Notice(title, "\n".join(trouble + asks), "failure" if trouble else "warning")
    published = [
        f"{r.key.channel}:{r.key.account} {r.key.issue_id}: {r.url}"
        for r in report.results
        if r.state == "published" and r.sent and r.url
    ]
    if on_success and published:
        return Notice(
            f"crosspost: {counted(len(published), 'post')} published",
            "\n".join(published),
            "success",
        )
    return None


def send(notice: Notice, urls: Sequence[Secret], *, secrets: Iterable[Any] = ()) -> list[str]:
    """Send ``notice`` to every URL; return warnings (one line each, never a URL or token).

    A notice that cannot be sent never changes the run's exit code: the run's own report
    (and cron's mail of it) still says what happened.
    """
    if not urls:
        return []
    try:
        import apprise
    except ImportError:
        return [MISSING_APPRISE]

    redact = redactor_for(secrets, urls)
    warnings: list[str] = []
    hub = apprise.Apprise()
    for number, url in enumerate(urls, 1):
        if not hub.add(url.reveal()):
            scheme = url.reveal().split("://", 1)[0] if "://" in url.reveal() else "?"
            warnings.append(
                f"notify URL #{number} ({redact(scheme)}://…) is not one Apprise understands; "
                "check it against https://github.com/caronc/apprise/wiki"
            )
    if len(hub) == 0:
        return warnings
    kinds = {
        "success": apprise.NotifyType.SUCCESS,
        "warning": apprise.NotifyType.WARNING,
        "failure": apprise.NotifyType.FAILURE,
    }
    sent = hub.notify(
        body=redact(notice.body),
        title=redact(notice.title),
        notify_type=kinds.get(notice.kind, apprise.NotifyType.FAILURE),
    )
    if not sent:
        warnings.append(
            "a notice could not be delivered to every notify URL; check that each "
            "destination is reachable (details in the log file, if one is set)"
        )
    return warnings
