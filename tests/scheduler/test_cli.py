"""``crosspost run-due`` as cron sees it: output, exit codes, the log file and notices.

Notices go through real Apprise to a tiny HTTP server on 127.0.0.1 (Apprise's ``json://``
URL), which keeps every body it receives; the test reads what a person would read.
"""

from __future__ import annotations

import json
import shlex
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from crosspost import cli
from crosspost.commands.run_due import FILE_NOTES
from crosspost.config.settings import Secret
from crosspost.errors import EXIT_BAD_INPUT, EXIT_CHANNEL_FAILED, EXIT_OK, EXIT_TEMPORARY
from crosspost.images.remote import RemoteImages
from crosspost.ledger.store import Ledger
from crosspost.publish.words import MASS_WORDS, RUN_WORDS, STATE_WORDS, UNFINISHED
from crosspost.schedule.notify import MISSING_APPRISE, Notice, send

from .desk import MINIMAL_BODY, Desk, at

NOTIFY_PASSWORD = "n0tify-pa55word-xyz"


class Inbox:
    """Every JSON body POSTed to the loopback server, in order."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, str]] = []
        self.url = ""


@pytest.fixture
def inbox() -> Iterator[Inbox]:
    box = Inbox()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            box.bodies.append(json.loads(self.rfile.read(length)))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    box.url = f"json://crosspost:{NOTIFY_PASSWORD}@127.0.0.1:{server.server_port}/hook"
    yield box
    server.shutdown()
    server.server_close()


def run_due(desk: Desk, *args: str, now: float = 0) -> int:
    return cli.main(["run-due", "--now", at(now), *args])


def test_nothing_due_is_silent_and_exits_0(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    desk.use_env(monkeypatch)
    desk.write("49", at(3600))
    assert run_due(desk) == EXIT_OK
    assert capsys.readouterr() == ("", "")

    assert run_due(desk, "-v") == EXIT_OK
    err = capsys.readouterr().err
    assert "1 file, 1 scheduled later" in err and "49.md at 2026-11-23T10:00:00+08:00" in err


def test_a_published_post_is_one_line_and_then_silence(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    desk.use_env(monkeypatch)
    desk.write("48", at(-60), channels="[zhihu]")
    assert run_due(desk) == EXIT_OK
    out, err = capsys.readouterr()
    url = desk.posts()["48 zhihu"].url
    assert out.splitlines() == [f"published  zhihu:main  48  {url}"]
    assert err == ""
    assert run_due(desk, now=60) == EXIT_OK
    assert capsys.readouterr() == ("", "")


def test_a_config_from_a_pipe_is_read_once_and_the_post_goes_out(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``run-due --config <(sops -d crosspost.toml)``: the pipe is read once (a second
    read, for the fingerprint, would wait for a writer that never comes)."""
    import os

    desk.use_env(monkeypatch)
    desk.write("48", at(-60), channels="[zhihu]")
    text = Path(desk.env["CROSSPOST_CONFIG"]).read_text(encoding="utf-8")
    pipe = desk.root / "config.pipe"
    os.mkfifo(pipe)
    done, rescued = threading.Event(), threading.Event()

    def feed() -> None:
        pipe.write_text(text, encoding="utf-8")
        if not done.wait(30):  # a second read is waiting for a writer: end it, and fail
            rescued.set()
            pipe.write_text("", encoding="utf-8")

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    assert run_due(desk, "--config", str(pipe)) == EXIT_OK
    done.set()
    writer.join(timeout=10)
    assert not rescued.is_set(), "the pipe was read twice"
    url = desk.posts()["48 zhihu"].url
    assert capsys.readouterr() == (f"published  zhihu:main  48  {url}\n", "")


def test_json_report_lists_everything(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    desk.use_env(monkeypatch)
    desk.write("47", at(-40 * 3600), channels="[zhihu]")
    assert run_due(desk, "--json") == EXIT_OK
    report = json.loads(capsys.readouterr().out)
    assert report["exit_code"] == EXIT_OK and report["posts"] == []
    assert [(e["kind"], e["issue"], e["account"]) for e in report["entries"]] == [
        ("missed", "47", "zhihu:main")
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--now", "2026-11-23 09:00"], "has no timezone"),
        (["--now", "tomorrow"], "is not a date and time"),
        (["/no/such/folder"], "no such folder of issues"),
        (["--grace", "soon"], "is not a duration"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    desk: Desk,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    desk.use_env(monkeypatch)
    assert cli.main(["run-due", *args]) == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and message in err


def test_an_appsecret_pasted_as_a_variable_name_is_shown_nowhere(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """It used to come back in 'wechat:main needs <it> (app_secret)', in run-due --json, in
    <state>/run-due.json and in doctor; now every command stops on its line without it."""
    pasted = "aa5026d45547eb252493a03554257620"
    config = Path(desk.env["CROSSPOST_CONFIG"])
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace('"WECHAT_APP_SECRET"', f'"{pasted}"'), encoding="utf-8")
    desk.use_env(monkeypatch)
    desk.write("48", at(-60))
    for argv in (["run-due", "--json"], ["doctor"], ["publish", str(desk.issues / "48.md")]):
        assert cli.main(argv) == EXIT_BAD_INPUT
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1, err
        assert "'app_secret_env' must be the NAME of an environment variable" in err
        assert pasted not in err and pasted[:8] not in err
    kept = [p for p in desk.state_dir.rglob("*") if p.is_file()]
    assert all(pasted.encode() not in p.read_bytes() for p in kept)
    assert desk.box.requests == []


def test_no_folder_given_or_configured_is_exit_2(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    desk.use_env(monkeypatch)
    empty = desk.root / "empty.toml"
    empty.write_text("", encoding="utf-8")
    assert cli.main(["run-due", "--config", str(empty)]) == EXIT_BAD_INPUT
    assert "no folders of issues to scan" in capsys.readouterr().err


def test_the_log_file_has_the_whole_story_and_no_secret(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    desk.use_env(monkeypatch)
    desk.write("46", at(-60), channels="[wechat]")
    log = desk.root / "logs" / "run-due.log"
    assert run_due(desk, "--log-file", str(log)) == EXIT_OK
    text = log.read_text(encoding="utf-8")
    assert "wechat:main  46: draft" in text and "published  wechat:main  46  https://" in text
    for secret in desk.secrets():
        assert secret not in text


def test_a_failure_sends_a_notice_without_secrets(
    desk: Desk,
    inbox: Inbox,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    desk.env["CROSSPOST_NOTIFY_URLS"] = inbox.url
    desk.use_env(monkeypatch)
    desk.write("45", at(-60), channels="[wechat]")
    desk.box.faults.add("wechat", "/cgi-bin/draft/add", "errcode:45002", count=1)

    assert run_due(desk) == EXIT_CHANNEL_FAILED
    assert "failed" in capsys.readouterr().err
    assert len(inbox.bodies) == 1
    notice = inbox.bodies[0]
    assert notice["type"] == "failure" and "needs you" in notice["title"]
    assert notice["message"].startswith("failed wechat:main 45: ")
    assert "45002" in notice["message"] or "too long" in notice["message"]
    for secret in [*desk.secrets(), NOTIFY_PASSWORD]:
        assert secret not in json.dumps(notice, ensure_ascii=False)

    assert run_due(desk, now=60) == EXIT_OK
    assert len(inbox.bodies) == 1, "a failure that stands is not announced every minute"


def test_success_is_announced_only_when_asked(
    desk: Desk, inbox: Inbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk.env["CROSSPOST_NOTIFY_URLS"] = inbox.url
    desk.use_env(monkeypatch)
    desk.write("44", at(-60), channels="[zhihu]")
    desk.write("43", at(-30), channels="[zhihu]")
    assert run_due(desk) == EXIT_OK
    assert inbox.bodies == []

    monkeypatch.setenv("CROSSPOST_NOTIFY_ON_SUCCESS", "true")
    desk.write("42", at(-10), channels="[zhihu]")
    assert run_due(desk, now=60) == EXIT_OK
    assert [b["type"] for b in inbox.bodies] == ["success"]
    url = desk.posts()["42 zhihu"].url
    assert inbox.bodies[0]["message"] == f"zhihu:main 42: {url}"


def test_a_notice_is_redacted_even_when_its_text_holds_a_secret(inbox: Inbox) -> None:
    leak = Notice("crosspost: trouble", f"token {NOTIFY_PASSWORD} and s3cret-app-value-42")
    warnings = send(leak, [Secret(inbox.url)], secrets=[Secret("s3cret-app-value-42")])
    assert warnings == []
    body = inbox.bodies[0]["message"]
    assert NOTIFY_PASSWORD not in body and "s3cret-app-value-42" not in body
    assert body == "token *** and ***"


def test_notices_without_apprise_installed_say_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "apprise", None)
    warnings = send(Notice("t", "b"), [Secret("json://127.0.0.1:9/x")])
    assert warnings == [MISSING_APPRISE] and "pip install '.[notify]'" in MISSING_APPRISE


def test_a_url_apprise_does_not_know_is_named_by_number_not_by_value(inbox: Inbox) -> None:
    warnings = send(Notice("t", "b"), [Secret("nosuchscheme://abcdef123456"), Secret(inbox.url)])
    assert len(warnings) == 1 and "notify URL #1" in warnings[0]
    assert "abcdef123456" not in warnings[0]
    assert len(inbox.bodies) == 1


def test_help_lists_run_due(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "run-due" in capsys.readouterr().out
    assert Path(cli.__file__).exists()


def test_a_rehearsal_against_the_built_in_sandbox(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    desk.use_env(monkeypatch)
    desk.write("41", at(-60), channels="[zhihu]")
    code = cli.main(["run-due", "--sandbox", "--now", at(0)])
    out = capsys.readouterr().out
    assert code == EXIT_OK, out
    assert out.startswith("published  zhihu:sandbox  41  https://zhuanlan.zhihu.com/p/")
    assert desk.creates("zhihu") == 0, "the configured platform saw nothing"
    assert cli.main(["run-due", "--sandbox", "--now", at(60)]) == EXIT_OK
    assert capsys.readouterr() == ("", "")


def test_a_missed_issue_and_a_broken_file_make_one_notice(
    desk: Desk, inbox: Inbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk.env["CROSSPOST_NOTIFY_URLS"] = inbox.url
    desk.use_env(monkeypatch)
    desk.write("40", at(-48 * 3600), channels="[zhihu]")
    broken = desk.issues / "broken.md"
    broken.write_text("---\ntitle: 坏了\npublish_at: 2026-11-23 09:00\n---\n", encoding="utf-8")

    assert run_due(desk) == EXIT_BAD_INPUT
    [notice] = inbox.bodies
    assert notice["title"] == "crosspost: 2 things need you"
    assert notice["message"].splitlines() == [
        f"problem: {broken}:3: 'publish_at' has no timezone, so its moment is ambiguous; "
        "add one: write 2026-11-23T09:00:00+08:00 for that time in Beijing (+08:00; another "
        "zone: its offset)",
        f"missed zhihu:main 40: publish_at {at(-48 * 3600)} passed 2d ago, more than the "
        "grace of 1d; run with --include-missed to publish it",
    ]
    assert run_due(desk, now=60) == EXIT_OK, "nothing new: the tick does not fail again"
    assert len(inbox.bodies) == 1, "each is announced once"


def test_files_yaml_cannot_read_are_reported_and_the_others_go_out(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    desk.use_env(monkeypatch)
    hour = desk.write("38", "2026-11-23T25:00:00+08:00", channels="[zhihu]")
    control = desk.write("39", at(-120), channels="[zhihu]", extra="series: a\x00b\n")
    desk.write("40", at(-60), channels="[zhihu]")

    assert run_due(desk) == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert out.splitlines() == [f"published  zhihu:main  40  {desk.posts()['40 zhihu'].url}"]
    assert err.splitlines() == [
        f"problem    {hour}:7: 'publish_at' is 2026-11-23T25:00:00+08:00, which is no real "
        "date and time (hour must be in 0..23); fix it, e.g. 2026-11-23T09:00:00+08:00",
        f"problem    {control}:9: front matter holds the control character U+0000, which YAML "
        "does not allow; remove it (most editors do not show it: delete and retype the text "
        "around it)",
    ]
    assert sorted(desk.posts()) == ["40 zhihu"]


def test_wechat_unreachable_for_three_ticks_spaced_by_now_then_published(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from crosspost.errors import EXIT_TEMPORARY

    desk.use_env(monkeypatch)
    desk.write("38", at(-60), channels="[wechat]")
    # The token call is retried four times per tick by the HTTP policy: three ticks' worth.
    desk.box.faults.add("wechat", "/cgi-bin/stable_token", "reset", count=12)

    now, gaps = 0.0, []
    for _ in range(3):
        assert run_due(desk, now=now) == EXIT_TEMPORARY
        assert "temporary" in capsys.readouterr().err
        retry_at = desk.posts()["38 wechat"].next_attempt_at
        assert retry_at is not None
        gaps.append(retry_at - (desk.clock() + now))
        assert run_due(desk, now=now + 60) == EXIT_OK, "too early: nothing is tried"
        assert capsys.readouterr() == ("", "")
        now = retry_at - desk.clock() + 1
    assert gaps[0] < gaps[1] < gaps[2]
    assert run_due(desk, now=now) == EXIT_OK
    assert capsys.readouterr().out.startswith("published  wechat:main  38  https://")
    assert desk.creates("wechat") == 1


def test_a_tick_where_no_name_resolves_is_temporary_and_the_next_tick_tries_again(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """DNS down at the time an issue is due: its remote image's host "does not exist", as
    every name does; that is exit 75 and one line, nothing of it sent, and the issue is
    not written off as broken: the next tick tries again, and says it again. Another
    issue due in the same tick, with no remote picture, goes out all the same."""
    desk.use_env(monkeypatch)
    issue = desk.write(
        "37",
        at(-60),
        channels="[zhihu]",
        body=MINIMAL_BODY + "\n![图](https://cdn.example.test/a.png)\n",
    )
    desk.write("38", at(-60), channels="[zhihu]")
    monkeypatch.setattr(RemoteImages, "control_host", "control.invalid")  # RFC 6761: never
    line = (
        f"temporary  {issue}:12: image 'https://cdn.example.test/a.png' could not be "
        "reached (cdn.example.test does not resolve, nor does control.invalid: this machine "
        "seems offline or its DNS is down); nothing was sent, run again later"
    )
    assert run_due(desk, now=0) == EXIT_TEMPORARY
    out, err = capsys.readouterr()
    assert out.startswith("published  zhihu:main  38  https://") and err == line + "\n"
    assert run_due(desk, now=60) == EXIT_TEMPORARY
    assert capsys.readouterr() == ("", line + "\n")
    assert list(desk.posts()) == ["38 zhihu"]

    monkeypatch.setattr(RemoteImages, "control_host", "localhost")  # names resolve again
    assert run_due(desk, now=120) == EXIT_BAD_INPUT
    assert capsys.readouterr() == (
        "",
        f"problem  {issue}:12: image 'https://cdn.example.test/a.png' could not be "
        "downloaded (host cdn.example.test does not exist)\n",
    )
    assert list(desk.posts()) == ["38 zhihu"]


def test_posts_are_said_in_the_words_of_status_in_the_lines_the_notice_and_json(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The words of ``status`` (publish/words.py), as ``publish`` says them: run-due said
    the run's own 'pending' for a mass send the day's quota held back."""
    from crosspost.commands.run_due import print_report
    from crosspost.errors import EXIT_TEMPORARY
    from crosspost.schedule.notify import run_notice

    broadcast = "wechat: {mode: broadcast}\n"
    desk.write("48", at(-60), channels="[wechat]", extra=broadcast)
    desk.write("49", at(-30), channels="[wechat]", extra=broadcast)

    report = desk.tick()
    assert report.exit_code == EXIT_TEMPORARY
    (done,) = [r.key.issue_id for r in report.results if r.state == "published"]
    (held,) = {"48", "49"} - {done}
    print_report(report, verbose=False)
    out, err = capsys.readouterr()
    (sent,) = out.splitlines()
    assert sent.startswith(f"sent to followers  wechat:main  {done}  sent to followers (msg_id "), (
        sent
    )
    refusal = (
        f"today's mass send (群发) already went out with '{done}'; a subscription (kind not "
        "set: the strictest quota is assumed) account gets one a day: the next is possible "
        "from 2026-11-24 00:00 +0800 (Beijing midnight); nothing was sent"
    )
    assert err.splitlines() == [f"not sent           wechat:main  {held}  {refusal}"]
    notice = run_notice(report)
    assert notice is not None and notice.body == f"not sent wechat:main {held}: {refusal}"
    words = {p["issue"]: p["state"] for p in report.as_dict()["posts"]}
    assert words == {done: "sent to followers", held: "not sent"}

    desk.use_env(monkeypatch)
    assert cli.main(["status", "--json"]) == EXIT_OK
    status = {p["issue"]: p["state"] for p in json.loads(capsys.readouterr().out)}
    assert status == words, "the words status shows"


#: Every word a post's line of a tick can begin with: the words of ``status`` and what a
#: run did to a post (publish/words.py).
POST_WORDS = (*STATE_WORDS.values(), *MASS_WORDS.values(), UNFINISHED, *sorted(RUN_WORDS))
#: The words of the tick's other lines.
NOTE_WORDS = ("missed", "would", "waiting", *FILE_NOTES)


@pytest.mark.parametrize(
    ("line", "word"),
    [
        *(("post", word) for word in POST_WORDS),
        ("to do", "to do"),
        *(("note", word) for word in NOTE_WORDS),
    ],
)
def test_every_word_of_a_tick_keeps_the_columns_of_its_lines_aligned(
    line: str, word: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first column was 11 wide: 'sending, or waiting for confirmation' (a 群发 not
    yet confirmed) pushed its account, issue and URL out of line with the post above it.
    Each column is now as wide as its widest cell in the tick, a long account name's too."""
    from datetime import UTC, datetime
    from types import MappingProxyType

    from crosspost.commands.run_due import print_report
    from crosspost.ledger.store import PostKey
    from crosspost.publish.jobs import PostResult
    from crosspost.schedule.report import DueEntry, DueReport

    url = "https://mp.weixin.qq.com/s/"
    published = PostResult(PostKey("48", "wechat", "main"), "published", f"{url}48")
    other = PostKey("1049", "wechat", "backup-account")
    results, entries, words = [published], [], {published.key: "published"}
    if line == "post":
        results.append(PostResult(other, "published", f"{url}1049"))
        words[other] = word
    elif line == "to do":
        results.append(PostResult(other, "drafted", f"{url}1049", todo="press 发表 by hand"))
        words[other] = "drafted"
    elif word in FILE_NOTES:  # about a file, not a post: its message names the file
        entries.append(DueEntry(word, Path("1049.md"), "1049.md:3: what the tick found"))
    else:
        entries.append(
            DueEntry(word, Path("1049.md"), "what the tick found", "1049", "wechat:backup-account")
        )
    report = DueReport(
        datetime(2026, 11, 23, 1, tzinfo=UTC),
        results=tuple(results),
        entries=tuple(entries),
        words=MappingProxyType(words),
    )
    print_report(report, verbose=True)  # -v: a 'waiting' note is printed too
    out, err = capsys.readouterr()
    lines = out.splitlines() + err.splitlines()[:-1]  # the last: the tick's summary

    width = max(len(word), len("published"))
    if line == "note" and word in FILE_NOTES:
        assert lines == [
            f"{'published':<{width}}  wechat:main  48  {url}48",
            f"{word:<{width}}  1049.md:3: what the tick found",
        ]
        return
    first = f"{'published':<{width}}  wechat:main            48    {url}48"
    if line == "to do":
        assert lines == [
            first,
            f"{'drafted':<{width}}  wechat:backup-account  1049  {url}1049",
            f"{'to do':<{width}}  wechat:backup-account  1049  press 发表 by hand",
        ]
    else:
        detail = f"{url}1049" if line == "post" else "what the tick found"
        assert lines == [first, f"{word:<{width}}  wechat:backup-account  1049  {detail}"]


def test_an_issue_out_of_reach_for_now_is_in_the_notice_and_not_settled(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crosspost.schedule.notify import run_notice

    desk.write("37", at(-60), body=MINIMAL_BODY + "\n![图](https://cdn.example.test/a.png)\n")
    monkeypatch.setattr(RemoteImages, "control_host", "control.invalid")
    for _ in range(2):  # not settled: every tick tries it and says so
        report = desk.tick()
        assert report.exit_code == EXIT_TEMPORARY and report.settled == 0
        notice = run_notice(report)
        assert notice is not None and notice.kind == "failure"
        assert notice.body.startswith("temporary: ") and "cdn.example.test" in notice.body


def test_a_refused_post_says_the_command_that_tries_it_again(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """WeChat refused the machine's IP: fixed in WeChat's settings, nothing in the issue
    or the config changes, so no later tick tries again. The line said 'run again', and
    run-due never did: it names the run that does."""
    desk.use_env(monkeypatch)
    issue = desk.write("46", at(-60), channels="[wechat]")
    desk.box.faults.add("wechat", "/cgi-bin/stable_token", "errcode:40164", count=1)
    assert run_due(desk) == EXIT_CHANNEL_FAILED
    err = capsys.readouterr().err
    assert err.startswith("failed  wechat:main  46  ")
    assert err.rstrip().endswith(
        "run-due tries it again only when the issue or its settings change: once fixed "
        f"elsewhere, run 'crosspost publish --retry-failed {issue} -c wechat:main --mode publish'"
    )
    assert run_due(desk, now=60) == EXIT_OK and capsys.readouterr() == ("", "")
    retry = ["publish", "--retry-failed", str(issue), "-c", "wechat:main", "--mode", "publish"]
    assert cli.main(retry) == EXIT_OK
    assert desk.creates("wechat") == 1


def test_the_retry_it_names_works_on_the_ticks_config_and_ledger(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A crontab line that names its config and state dir itself, not in the environment:
    the retry it prints names them too (quoted for the shell), so an operator who pastes
    it in another folder retries the refused post in the tick's ledger, with the tick's
    accounts; without them it found no config there, or the default state dir's ledger."""
    desk.use_env(monkeypatch)
    monkeypatch.delenv("CROSSPOST_CONFIG")
    config = desk.root / "cron files" / "crosspost.toml"
    config.parent.mkdir()
    (desk.root / "crosspost.toml").rename(config)
    state = desk.root / "cron state"
    elsewhere = desk.root / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    issue = desk.write("46", at(-60), channels="[wechat]")
    desk.box.faults.add("wechat", "/cgi-bin/stable_token", "errcode:40164", count=1)

    assert run_due(desk, "--config", str(config), "--state-dir", str(state)) == (
        EXIT_CHANNEL_FAILED
    )
    err = capsys.readouterr().err
    retry = (
        f"crosspost publish --retry-failed {issue} -c wechat:main --mode publish "
        f"--config '{config}' --state-dir '{state}'"
    )
    assert err.rstrip().endswith(f"once fixed elsewhere, run '{retry}'"), err
    words = shlex.split(retry)
    assert cli.main(words[1:]) == EXIT_OK
    assert desk.creates("wechat") == 1
    with Ledger.open(state / "ledger.sqlite3") as ledger:
        (post,) = ledger.posts("46")
    assert post.state == "published"
    assert not (desk.state_dir / "ledger.sqlite3").exists()  # the config's own state dir
