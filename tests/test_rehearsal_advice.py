"""A ``--sandbox`` rehearsal as an editor follows it: every command it advises runs as
printed (``--sandbox`` included: a rehearsal's posts are in a ledger of its own), every
line names its post once, and every command says a post's state in the words ``status``
uses. The built-in emulators on loopback and the rehearsal's SQLite ledger, through
``crosspost.cli.main``.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_TEMPORARY

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ai-systems-48" / "issue.md"
PERMANENT = "https://mp.weixin.qq.com/s/Xq3_permanent-link"
Capsys = pytest.CaptureFixture[str]


def second_issue(home: Path) -> Path:
    """The example under another id and title: a second issue of the week."""
    folder = home / "ai-systems-49"
    shutil.copytree(EXAMPLE.parent, folder)
    path = folder / "issue.md"
    text = path.read_text(encoding="utf-8").replace("id: ai-systems-48", "id: ai-systems-49", 1)
    path.write_text(text.replace("第48期", "第49期").replace("动态48", "动态49"), "utf-8")
    return path


def run_as_printed(command: str, **fill: str) -> int:
    """Run a command a message advised, its placeholders filled in."""
    words = shlex.split(command)
    assert words[0] == "crosspost", command
    return main([fill.get(word, word) for word in words[1:]])


def states(table: str) -> dict[tuple[str, str], str]:
    """(issue, channel:account) → state of each row of a ``publish`` or ``status`` table,
    whichever order its columns come in."""
    lines = table.splitlines()
    header = re.split(r"\s{2,}", lines[0])
    rows: dict[tuple[str, str], str] = {}
    for line in lines[1:]:
        cells = dict(zip(header, re.split(r"\s{2,}", line), strict=False))
        rows[cells["issue"], cells["channel"]] = cells["state"]
    return rows


def test_the_urls_advice_of_a_sandbox_broadcast_runs_as_printed(home: Path, capsys: Capsys) -> None:
    assert main(["publish", str(EXAMPLE), "--sandbox", "--mode", "broadcast"]) == EXIT_OK
    out = capsys.readouterr().out
    advice = "crosspost urls --set ai-systems-48 -c wechat:sandbox URL --sandbox"
    assert f"record it with {advice}" in out, out

    assert run_as_printed(advice, URL=PERMANENT) == EXIT_OK
    assert capsys.readouterr().out == f"wechat:sandbox  ai-systems-48: URL recorded {PERMANENT}\n"
    assert main(["urls", "ai-systems-48", "-c", "wechat", "--sandbox"]) == EXIT_OK
    assert capsys.readouterr().out == f"{PERMANENT}\n"


def test_a_mass_send_over_the_quota_names_its_post_once_in_the_words_of_status(
    home: Path, capsys: Capsys
) -> None:
    assert main(["publish", str(EXAMPLE), "--sandbox", "--mode", "broadcast"]) == EXIT_OK
    first = capsys.readouterr().out
    issue = second_issue(home)
    assert main(["publish", str(issue), "--sandbox", "--mode", "broadcast", "-q"]) == (
        EXIT_TEMPORARY
    )
    second = capsys.readouterr()
    (line,) = second.err.splitlines()
    assert line.startswith(
        "wechat:sandbox  ai-systems-49: today's mass send (群发) already went out with "
        "'ai-systems-48'; "
    ), line
    assert line.count("wechat:sandbox") == 1 and line.endswith("; nothing was sent")

    assert main(["status", "--sandbox"]) == EXIT_OK
    status = states(capsys.readouterr().out)
    run = {**states(first), **states(second.out)}
    assert run == status
    assert status["ai-systems-49", "wechat:sandbox"] == "not sent"
    assert status["ai-systems-48", "wechat:sandbox"] == "sent to followers"


def test_reconcile_and_urls_set_of_a_rehearsal_say_drafted_and_advise_the_sandbox(
    home: Path, capsys: Capsys
) -> None:
    issue = second_issue(home)
    argv = ["publish", str(issue), "--sandbox", "--mode", "draft", "-c", "wechat"]
    assert main(argv) == EXIT_OK
    drafted = states(capsys.readouterr().out)
    assert drafted == {("ai-systems-49", "wechat:sandbox"): "drafted"}

    # There is no real ledger on this machine: the rehearsal's is the one to read.
    assert main(["reconcile", "ai-systems-49", "--sandbox"]) == EXIT_OK
    assert states(capsys.readouterr().out) == drafted
    assert main(["status", "--sandbox"]) == EXIT_OK
    assert states(capsys.readouterr().out) == drafted

    argv = ["urls", "--set", "ai-systems-49", "-c", "wechat", PERMANENT, "--sandbox"]
    assert main(argv) == EXIT_BAD_INPUT
    publish, reconcile = (
        f"crosspost publish {issue} --sandbox",
        "crosspost reconcile ai-systems-49 --sandbox",
    )
    assert capsys.readouterr().err == (
        "crosspost: error: urls --set: ai-systems-49 → wechat:sandbox is not published "
        f"(it is drafted); run {publish} or {reconcile} first\n"
    )
    assert run_as_printed(reconcile) == EXIT_OK
    assert states(capsys.readouterr().out) == drafted


def test_a_rehearsal_given_its_config_and_state_dir_advises_them(
    home: Path, capsys: Capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--config`` and ``--state-dir`` on the command line are in every command the run
    prints, as typed (a relative state dir stays relative), so the advice reads the
    rehearsal's ledger there; a state dir from the environment is not written out."""
    monkeypatch.delenv("CROSSPOST_STATE_DIR")
    config = home / "conf dir" / "crosspost.toml"
    config.parent.mkdir()
    config.write_text("", encoding="utf-8")
    flags = ["--config", str(config), "--state-dir", "cron-state"]
    issue = second_issue(home)
    assert main(["publish", str(issue), "--sandbox", "-c", "wechat", *flags]) == EXIT_OK
    drafted = states(capsys.readouterr().out)
    assert drafted == {("ai-systems-49", "wechat:sandbox"): "drafted"}

    argv = ["urls", "--set", "ai-systems-49", "-c", "wechat", PERMANENT, "--sandbox", *flags]
    assert main(argv) == EXIT_BAD_INPUT
    given = f"--config '{config}' --state-dir cron-state --sandbox"
    publish = f"crosspost publish {issue} {given}"
    reconcile = f"crosspost reconcile ai-systems-49 {given}"
    assert capsys.readouterr().err == (
        "crosspost: error: urls --set: ai-systems-49 → wechat:sandbox is not published "
        f"(it is drafted); run {publish} or {reconcile} first\n"
    )
    assert run_as_printed(reconcile) == EXIT_OK
    assert states(capsys.readouterr().out) == drafted

    # Without --sandbox, the hint names the rehearsals' ledger in the same state dir.
    assert main(["status", *flags]) == EXIT_OK
    hint = re.search(r"'(crosspost status [^\n]*--sandbox)'$", capsys.readouterr().out.strip())
    assert hint is not None and hint.group(1) == f"crosspost status {given}"
    assert run_as_printed(hint.group(1)) == EXIT_OK
    assert states(capsys.readouterr().out) == drafted

    # The same state dir from the environment: found there by the advice, not repeated.
    monkeypatch.setenv("CROSSPOST_STATE_DIR", "cron-state")
    assert main(argv[: -len(flags)]) == EXIT_BAD_INPUT
    assert "or crosspost reconcile ai-systems-49 --sandbox first" in capsys.readouterr().err
    assert run_as_printed("crosspost reconcile ai-systems-49 --sandbox") == EXIT_OK
    assert states(capsys.readouterr().out) == drafted


def test_the_doctor_says_how_the_sandbox_sets_its_kind_and_that_advice_runs(
    home: Path, capsys: Capsys
) -> None:
    assert main(["doctor", "--sandbox", "-c", "wechat"]) == EXIT_OK
    out = capsys.readouterr().out
    again = "crosspost doctor --option wechat.account_kind=unverified --sandbox"
    assert (
        '  note: the sandbox answers as "verified_subscription" or "verified_service" (its '
        f"emulator option wechat.account_kind, not the config); rehearse another kind with "
        f"{again} (or verified_subscription, verified_service, personal, lapsed)\n"
    ) in out
    assert "in the config:" not in out

    assert run_as_printed(again) == EXIT_OK
    out = capsys.readouterr().out
    assert "  kind: unverified or personal\n" in out
    assert "rehearse another kind with crosspost doctor --option" in out


def test_run_due_with_no_folder_advises_itself_as_it_was_run(home: Path, capsys: Capsys) -> None:
    """The advice was written by hand, without ``--sandbox`` in a rehearsal."""
    folder = home / "issues"
    folder.mkdir()
    for extra, advice in (
        ([], "crosspost run-due DIR"),
        (["--sandbox"], "crosspost run-due DIR --sandbox"),
    ):
        assert main(["run-due", *extra]) == EXIT_BAD_INPUT
        assert capsys.readouterr().err == (
            f"crosspost: error: no folders of issues to scan: name them ({advice}) or set "
            "issue_dirs under [schedule] in the config (or CROSSPOST_ISSUE_DIRS)\n"
        )
        assert run_as_printed(advice, DIR=str(folder)) == EXIT_OK
        assert capsys.readouterr() == ("", "")
