"""``crosspost doctor``: each emulated account kind shows its capabilities; problems are one
line each with the right exit code; the canary makes, compares and deletes a draft."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from crosspost.channels.wechat.doctor import describe_changes, html_changes
from crosspost.cli import main
from crosspost.commands.doctor import CANARY_TITLE, diagnose
from crosspost.commands.switches import MAX_SLEEP_VARIABLE
from crosspost.config.settings import Account, Secret
from crosspost.errors import EXIT_BAD_INPUT, EXIT_CHANNEL_FAILED, EXIT_OK, EXIT_TEMPORARY
from crosspost.sandbox.box import ManualClock, Sandbox
from crosspost.sandbox.wechat.kinds import DRAFT, MASS, PUBLISH
from crosspost.sandbox.wechat.kinds import KINDS as EMULATED_KINDS

#: kind -> may it (draft, publish, broadcast, preview), from the emulator's table
KINDS = {
    name: (
        DRAFT in kind.families,
        PUBLISH in kind.families,
        MASS in kind.families,
        MASS in kind.families,
    )
    for name, kind in EMULATED_KINDS.items()
}
CALLS = ("draft", "publish", "broadcast", "preview")


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No user config, a state dir of its own, polls without waits."""
    for name in ("CROSSPOST_CONFIG", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CROSSPOST_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv(MAX_SLEEP_VARIABLE, "0")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def sandbox_account(box: Sandbox, channel: str, kind: str | None = None, **options: Any) -> Account:
    """An account of ``channel`` on the sandbox, with the sandbox's own credentials."""
    emulator = box.wechat if channel == "wechat" else box.zhihu
    return Account(
        channel=channel,
        name="main",
        base_url=box.url(channel),
        credentials=MappingProxyType({k: Secret(v) for k, v in emulator.credentials().items()}),
        options=MappingProxyType(options),
        kind=kind,
    )


def wechat_account(box: Sandbox, kind: str | None = None, **options: Any) -> Account:
    return sandbox_account(box, "wechat", kind, **options)


def zhihu_account(box: Sandbox, **options: Any) -> Account:
    return sandbox_account(box, "zhihu", **options)


@pytest.mark.parametrize("kind", list(KINDS))
def test_doctor_sandbox_prints_each_kinds_capabilities(
    isolated: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    option = f"wechat.account_kind={kind}"
    code = main(["doctor", "--sandbox", "-c", "wechat", "--option", option, "--json"])
    data = json.loads(capsys.readouterr().out)
    (account,) = data["accounts"]
    assert account["account"] == "wechat:sandbox"
    allowed = tuple(account["capabilities"][name]["allowed"] for name in CALLS)
    assert allowed == KINDS[kind]
    assert account["facts"]["credentials"] == "accepted"
    assert code == data["exit_code"] == (EXIT_CHANNEL_FAILED if kind == "lapsed" else EXIT_OK)

    assert main(["doctor", "--sandbox", "-c", "wechat", "--option", option]) == code
    out = capsys.readouterr().out
    rows = {
        line.split()[0]: line.split()[1]
        for line in out.splitlines()
        if line[2:3] != " " and line.strip().split(" ")[0] in CALLS
    }
    assert rows == {
        name: "yes" if ok else "no" for name, ok in zip(CALLS, KINDS[kind], strict=True)
    }
    if kind == "lapsed":
        assert "problem: WeChat refuses even draft/add (48001)" in out
        assert out.rstrip().endswith("doctor: something needs fixing (see problem lines)")
    else:
        assert out.rstrip().endswith("doctor: all good")


def test_doctor_sandbox_checks_zhihu_login_and_topics(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor", "--sandbox", "-c", "zhihu"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "login: works (logged in as " in out
    assert "topics: 人工智能 → 人工智能" in out


def test_option_needs_sandbox(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--option", "wechat.account_kind=personal"]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err.strip() == (
        "crosspost: error: --option sets an emulator option; it needs --sandbox"
    )
    assert main(["doctor"]) == EXIT_BAD_INPUT  # nothing configured
    assert "crosspost doctor --sandbox" in capsys.readouterr().err


def test_a_personal_account_set_to_broadcast_is_told_it_will_hand_off(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    sandbox.wechat.update_options({"account_kind": "personal"})
    report = diagnose([wechat_account(sandbox, "personal", mode="broadcast")])
    (checkup,) = report.checkups
    assert report.exit_code == EXIT_OK
    assert checkup.notes == (
        "mode = broadcast, but this account may not broadcast through the API: runs leave a "
        "draft to send by hand (公众号后台 → 内容与互动 → 草稿箱, or the 公众号助手 app)",
    )
    assert sandbox.wechat.snapshot()["drafts"] == []  # nothing was made


def test_a_used_up_quota_is_a_note(sandbox: Sandbox) -> None:
    sandbox.wechat.update_options({"quotas": {"/cgi-bin/freepublish/submit": 0}})
    sandbox.wechat.update_options({"quotas": {"/cgi-bin/message/mass/preview": 2}})
    report = diagnose([wechat_account(sandbox, "verified_service")])
    assert report.checkups[0].notes == ()
    sandbox.wechat.account.counters[
        f"day:{sandbox.wechat.account.day(sandbox.clock())}:/cgi-bin/message/mass/preview"
    ] = 2
    (checkup,) = diagnose([wechat_account(sandbox, "verified_service")]).checkups
    assert checkup.notes == (
        "preview: today's 2 calls of /cgi-bin/message/mass/preview are used up; they come "
        "back at 00:00 Beijing time",
    )


def test_an_ip_off_the_whitelist_is_named(sandbox: Sandbox) -> None:
    sandbox.wechat.update_options({"ip_whitelist": ["10.1.2.3"]})
    report = diagnose([wechat_account(sandbox)])
    (checkup,) = report.checkups
    assert report.exit_code == EXIT_CHANNEL_FAILED
    (problem,) = checkup.problems
    assert "WeChat saw the call from 127.0.0.1; add 127.0.0.1 in 公众号后台" in problem
    assert dict(checkup.facts)["credentials"] == "not checked: this IP is not whitelisted"
    assert dict(checkup.facts)["ip seen by WeChat"] == "127.0.0.1"


def test_a_wrong_secret_and_a_missing_one(sandbox: Sandbox) -> None:
    good = wechat_account(sandbox)
    wrong = Account(
        channel="wechat",
        name="wrong",
        base_url=sandbox.wechat_url,
        credentials=MappingProxyType(
            {"app_id": good.credentials["app_id"], "app_secret": Secret("0" * 32)}
        ),
    )
    missing = Account(
        channel="wechat",
        name="bare",
        base_url=sandbox.wechat_url,
        credentials=MappingProxyType({"app_id": good.credentials["app_id"]}),
        credential_env=MappingProxyType({"app_secret": "BARE_SECRET"}),
    )
    report = diagnose([wrong, missing])
    refused, absent = report.checkups
    assert dict(refused.facts)["credentials"] == "refused"
    assert "40125" in refused.problems[0] and "0" * 32 not in refused.problems[0]
    assert absent.problems == ("wechat:bare: set BARE_SECRET in .env (or the environment)",)
    assert report.exit_code == EXIT_CHANNEL_FAILED


def test_an_unreachable_platform_is_exit_75(sandbox: Sandbox, sandbox_clock: ManualClock) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    closed = Account(
        channel="wechat",
        name="far",
        base_url=f"http://127.0.0.1:{port}",
        credentials=wechat_account(sandbox).credentials,
    )
    report = diagnose([closed], timeout=1, clock=sandbox_clock, sleep=sandbox_clock.sleep)
    (checkup,) = report.checkups
    assert checkup.unreachable and report.exit_code == EXIT_TEMPORARY
    assert checkup.as_dict()["reachable"] is False
    both = diagnose(
        [closed, wechat_account(sandbox, mode="x")],
        clock=sandbox_clock,
        sleep=sandbox_clock.sleep,
    )
    assert both.exit_code == EXIT_TEMPORARY
    sandbox.wechat.update_options({"account_kind": "lapsed"})
    worse = diagnose(
        [closed, wechat_account(sandbox)], clock=sandbox_clock, sleep=sandbox_clock.sleep
    )
    assert worse.exit_code == EXIT_CHANNEL_FAILED  # a problem to fix outranks "try later"


def test_zhihu_column_and_topic_that_do_not_exist(sandbox: Sandbox) -> None:
    report = diagnose([zhihu_account(sandbox, column="不存在的专栏", topics=["没有这个话题zz"])])
    (checkup,) = report.checkups
    assert dict(checkup.facts) == {
        "login": "works (logged in as 沙盒编辑)",
        "column": "not found",
        "topics": "not found",
    }
    assert len(checkup.problems) == 2
    assert "不存在的专栏" in checkup.problems[0]
    assert report.exit_code == EXIT_CHANNEL_FAILED
    good = diagnose([zhihu_account(sandbox, column="沙盒专栏")]).checkups[0]
    assert dict(good.facts)["column"].startswith("found (c_")


def test_an_expired_zhihu_cookie(sandbox: Sandbox) -> None:
    account = zhihu_account(sandbox)
    stale = Account(
        channel="zhihu",
        name="stale",
        base_url=sandbox.zhihu_url,
        credentials=MappingProxyType({**account.credentials, "z_c0": Secret("2|1:0|10:stale")}),
    )
    (checkup,) = diagnose([stale]).checkups
    assert dict(checkup.facts) == {"login": "refused"}
    assert checkup.problems and "stale" not in checkup.problems[0]


HTML = (
    '<section><p onclick="x()" style="color: red; line-height: 1.8">text '
    '<a href="https://example.com/">link</a></p>'
    '<img src="https://example.com/a.png"><script>alert(1)</script></section>'
)


def test_the_canary_shows_what_wechat_removed_and_deletes_its_draft(sandbox: Sandbox) -> None:
    report = diagnose([wechat_account(sandbox)], canary_html=HTML)
    (canary,) = report.canaries
    assert canary.deleted and canary.problems == ()
    assert canary.changes is not None
    assert canary.changes.tags == {"img": 1, "script": 1}
    assert canary.changes.attributes == {"a[href]": 1, "img[src]": 1, "p[onclick]": 1}
    assert canary.changes.sent_chars == len(HTML)
    snapshot = sandbox.wechat.snapshot()
    assert snapshot["drafts"] == [] and snapshot["materials"] == []
    assert report.exit_code == EXIT_OK


def test_a_canary_that_cannot_be_deleted_names_the_draft(sandbox: Sandbox) -> None:
    sandbox.faults.add("wechat", "/cgi-bin/draft/delete", "errcode:48004")
    report = diagnose([wechat_account(sandbox)], canary_html=HTML)
    (canary,) = report.canaries
    (left,) = sandbox.wechat.snapshot()["drafts"]
    assert left["articles"][0]["title"] == CANARY_TITLE
    assert not canary.deleted
    (problem,) = canary.problems
    assert problem.startswith(f"could not delete the canary's draft {left['media_id']} (")
    assert problem.endswith("remove it in 公众号后台 → 内容与互动 → 草稿箱")
    assert report.exit_code == EXIT_CHANNEL_FAILED


def test_a_canary_on_an_account_that_may_not_draft_is_skipped(sandbox: Sandbox) -> None:
    sandbox.wechat.update_options({"account_kind": "lapsed"})
    (canary,) = diagnose([wechat_account(sandbox)], canary_html=HTML).canaries
    assert canary.skipped == "the checkup found something to fix first"
    assert canary.as_dict()["draft_id"] is None
    assert sandbox.wechat.snapshot()["materials"] == []  # not even the cover


def test_a_skipped_canary_is_said_on_the_command_line(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["doctor", "--sandbox", "--canary", "--option", "wechat.account_kind=lapsed"]
    assert main(args) == EXIT_CHANNEL_FAILED
    out = capsys.readouterr().out
    assert "canary wechat:sandbox: not made, the checkup found something to fix first" in out


def test_the_canary_from_the_command_line(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor", "--sandbox", "--canary", "-c", "wechat"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "canary wechat:sandbox:" in out
    assert "characters of HTML; WeChat keeps" in out
    assert " deleted again" in out


def test_html_changes_counts_style_properties() -> None:
    changes = html_changes(
        '<p style="color: red; position: absolute; margin: 0">a</p>', '<p style="color: red">a</p>'
    )
    assert changes.styles == {"margin": 1, "position": 1}
    assert changes.attributes == {}
    assert changes.kept_bytes == len('<p style="color: red">a</p>')


def test_the_configured_kind_is_held_against_wechats_answers(sandbox: Sandbox) -> None:
    sandbox.wechat.update_options({"account_kind": "personal"})
    (wrong,) = diagnose([wechat_account(sandbox, "verified_service")]).checkups
    assert dict(wrong.facts)["kind"] == "unverified or personal"
    assert wrong.problems == (
        'wechat:main has kind = "verified_service" in the config, but WeChat answers '
        'otherwise for publish, broadcast, preview; set kind to "unverified" or "personal"',
    )
    (unsaid,) = diagnose([wechat_account(sandbox)]).checkups
    assert unsaid.problems == ()
    assert unsaid.notes == (
        'set kind to "unverified" or "personal" on wechat:main in the config: runs then '
        "plan what to send without asking WeChat",
    )
    (right,) = diagnose([wechat_account(sandbox, "personal")]).checkups
    assert (right.problems, right.notes) == ((), ())
    assert "mass sends" not in dict(right.facts)  # a personal account may not


def test_a_known_kind_shows_its_mass_send_quota(sandbox: Sandbox) -> None:
    (service,) = diagnose([wechat_account(sandbox, "verified_service")]).checkups
    assert dict(service.facts)["mass sends"] == "each follower ≤ 4 per calendar month"
    (unsaid,) = diagnose([wechat_account(sandbox)]).checkups  # subscription or service?
    assert "mass sends" not in dict(unsaid.facts)


def test_a_path_wechat_will_not_answer_for(sandbox: Sandbox, sandbox_clock: ManualClock) -> None:
    quota = "/cgi-bin/openapi/quota/get"
    sandbox.faults.add("wechat", quota, "errcode:76021", count=1)
    sandbox.faults.add("wechat", quota, "errcode:45009", count=1)
    # The sandbox's clock, hours before the quotas reset: on the machine's own clock, in
    # the minute before midnight in Beijing, 45009's pause was short enough to wait out.
    accounts = [wechat_account(sandbox, "verified_subscription")]
    (checkup,) = diagnose(accounts, clock=sandbox_clock, sleep=sandbox_clock.sleep).checkups
    draft, publish = checkup.capabilities[:2]
    assert (draft.allowed, publish.allowed) == (None, None)
    assert checkup.notes == (
        "WeChat would not say whether wechat:main may draft: it does not know /cgi-bin/draft/add",
    )
    # 45009 is quota/get's own daily quota used up: the later probes are not even sent.
    problems = checkup.problems
    assert [problem.split(": ")[0] for problem in problems] == [
        f"WeChat would not say whether wechat:main may {what}"
        for what in ("publish", "broadcast", "preview")
    ]
    assert all("45009" in problem for problem in problems)
    assert not checkup.unreachable
    assert dict(checkup.facts)["kind"] == "unknown (WeChat did not say what the account may call)"


def test_a_platform_failing_mid_checkup_is_unreachable(
    sandbox: Sandbox, sandbox_clock: ManualClock
) -> None:
    sandbox.faults.add("wechat", "/cgi-bin/openapi/quota/get", "http:503")
    report = diagnose(
        [wechat_account(sandbox, "personal")], clock=sandbox_clock, sleep=sandbox_clock.sleep
    )
    (checkup,) = report.checkups
    assert checkup.unreachable and report.exit_code == EXIT_TEMPORARY
    assert all(
        c.allowed is None and c.note.startswith("unreachable: ") for c in checkup.capabilities
    )


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/cgi-bin/material/add_material", "could not upload the canary's cover: "),
        ("/cgi-bin/draft/add", "the canary draft failed: "),
    ],
)
def test_a_canary_that_cannot_be_made_leaves_nothing_behind(
    sandbox: Sandbox, path: str, expected: str
) -> None:
    sandbox.faults.add("wechat", path, "errcode:45166", count=1)
    (canary,) = diagnose([wechat_account(sandbox)], canary_html=HTML).canaries
    (problem,) = canary.problems
    assert problem.startswith(expected)
    snapshot = sandbox.wechat.snapshot()
    assert snapshot["drafts"] == [] and snapshot["materials"] == []


def test_the_changes_read_as_lines() -> None:
    kept = '<section><p style="color: red">text <a>链接</a></p></section>'
    changes = html_changes(HTML, kept)
    assert list(describe_changes(changes)) == [
        f"sent {len(HTML)} characters of HTML; WeChat keeps {len(kept)} characters "
        f"({len(kept) + 2 * 2} bytes), the count its limits apply to",
        "removed tags: img ×1, script ×1",
        "removed attributes: a[href] ×1, img[src] ×1, p[onclick] ×1",
        "removed style properties: line-height ×1",
    ]
