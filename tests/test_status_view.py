"""``crosspost status`` as a person reads it: their words, their zone, their terminal."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from crosspost.cli import main
from crosspost.commands.table import display_width
from crosspost.errors import EXIT_OK, TransientError
from crosspost.ledger.schema import POST_STATES
from crosspost.ledger.store import Ledger, PostKey
from crosspost.publish.words import STATE_WORDS

#: 2026-11-23 01:00 UTC: 09:00 in Beijing.
PUBLISHED_AT = datetime.fromisoformat("2026-11-23T09:00:00+08:00").timestamp()
LONG_ERROR = "Zhihu said no: " + "这篇文章的话题不存在,请换一个话题再试。" * 12


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ledger with a post in each situation an operator meets, the issue file beside it."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.chdir(tmp_path)
    issue = tmp_path / "ai-48.md"
    issue.write_text(
        "---\ntitle: 第48期\npublish_at: 2026-11-23T09:00:00+08:00\n---\n正文。\n", "utf-8"
    )
    folder = tmp_path / "state"
    with Ledger.open(folder / "ledger.sqlite3", clock=lambda: PUBLISHED_AT) as ledger:
        wechat, zhihu, other = (
            PostKey("ai-48", "wechat", "main"),
            PostKey("ai-48", "zhihu", "main"),
            PostKey("ai-47", "wechat", "main"),
        )
        for key in (wechat, zhihu, other):
            ledger.ensure(key, issue_path=issue if key.issue_id == "ai-48" else None)
        ledger.record(wechat, state="published", url="https://mp.weixin.qq.com/s/abc")
        ledger.fail(zhihu, TransientError(LONG_ERROR), permanent=False)
        ledger.record(other, state="assets_uploaded")
        ledger.begin("draft", other, {"title": "第47期"})
    return folder


def test_every_ledger_state_has_a_word() -> None:
    assert set(STATE_WORDS) == set(POST_STATES)
    assert len(set(STATE_WORDS.values())) == len(STATE_WORDS)


def test_status_fits_the_terminal_in_the_issues_zone_and_words(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["status", "--state-dir", str(state)]) == EXIT_OK
    lines = capsys.readouterr().out.splitlines()
    # Every row fits, but a URL is never cut (half a URL is no URL), nor the command of
    # the last line, which names the run's state dir (half a command runs elsewhere).
    rows = [line for line in lines[:-1] if "https://" not in line]
    assert all(display_width(line) <= 80 for line in rows), lines
    text = "\n".join(lines)
    for internal in ("assets_uploaded", "draft_created", "in doubt", "rendered"):
        assert internal not in text
    wechat = next(line for line in lines if "ai-48" in line and "wechat" in line)
    assert "published" in wechat and "https://mp.weixin.qq.com/s/abc" in wechat
    assert " 2026-11-23 09:00 +08:00 " in wechat, "the issue's own zone, not UTC"
    zhihu = next(line for line in lines if "zhihu" in line)
    assert " failed " in zhihu and "…" in zhihu
    interrupted = next(line for line in lines if "ai-47" in line)
    assert " unfinished " in interrupted
    local = datetime.fromtimestamp(PUBLISHED_AT).astimezone()
    offset = local.strftime("%z")
    mine = f"{local:%Y-%m-%d %H:%M} {offset[:3]}:{offset[3:]}"
    assert interrupted.endswith(f" {mine}"), "no issue file: this machine's zone"
    assert lines[-1] == (
        f"(errors cut to fit the terminal; crosspost status --json --state-dir {state} "
        "shows them whole)"
    )


def test_status_json_has_the_same_words_and_the_whole_error(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["status", "--state-dir", str(state), "--json"]) == EXIT_OK
    rows = {(r["issue"], r["channel"]): r for r in json.loads(capsys.readouterr().out)}
    assert rows["ai-48", "zhihu"]["state"] == "failed"
    assert rows["ai-48", "zhihu"]["error"] == LONG_ERROR
    assert rows["ai-47", "wechat"]["state"] == "unfinished"
    assert rows["ai-48", "wechat"]["published_at"] is None
    assert rows["ai-48", "wechat"]["updated_at"] == "2026-11-23T09:00:00+08:00"


def test_a_wide_terminal_shows_the_whole_error(
    state: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "1000")
    assert main(["status", "--state-dir", str(state)]) == EXIT_OK
    out = capsys.readouterr().out
    assert LONG_ERROR in out and "cut to fit" not in out


def test_status_of_rehearsals_is_its_own(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status", "--state-dir", str(state), "--sandbox"]) == EXIT_OK
    out = capsys.readouterr().out
    assert out.startswith("nothing published yet") and str(state / "sandbox") in out


def test_a_cron_mail_or_a_pipe_gets_each_error_whole(
    state: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS")  # as under cron: no terminal, no COLUMNS
    assert main(["status", "--state-dir", str(state)]) == EXIT_OK
    out = capsys.readouterr().out
    assert LONG_ERROR in out and "cut to fit" not in out
