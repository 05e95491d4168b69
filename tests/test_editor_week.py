"""An editor's week with crosspost, as the editor sees it: each message's advice, followed
literally, does what it says. The built-in emulators on loopback (``--sandbox``), the
rehearsal's SQLite ledger and real files, through ``crosspost.cli.main``.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK
from crosspost.ledger.store import Ledger

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ai-systems-48" / "issue.md"
Capsys = pytest.CaptureFixture[str]


@pytest.fixture
def issue(home: Path) -> Path:
    """This week's issue: the example, in the editor's own folder."""
    shutil.copytree(EXAMPLE.parent, home / "week")
    return home / "week" / "issue.md"


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def quoted_command(text: str) -> str:
    """The one ``'crosspost …'`` a message advises."""
    (command,) = re.findall(r"'(crosspost [^']+)'", text)
    return command


def run_as_printed(command: str) -> int:
    words = shlex.split(command)
    assert words[0] == "crosspost", command
    return main(words[1:])


def test_status_and_urls_without_sandbox_say_where_the_rehearsals_posts_are(
    issue: Path, capsys: Capsys
) -> None:
    assert main(["publish", str(issue), "--sandbox", "--mode", "publish", "-q"]) == EXIT_OK
    url = re.search(r"https://zhuanlan\.zhihu\.com/p/\d+", capsys.readouterr().out)
    assert url is not None

    # The editor forgets --sandbox: the URLs are not lost, and the line says where.
    assert main(["status"]) == EXIT_OK
    out = capsys.readouterr().out
    assert out.startswith("nothing published yet (no ledger at "), out
    assert "'crosspost status --sandbox'" in out
    assert main(["urls", "ai-systems-48"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "nothing was published yet; --sandbox rehearsals keep a ledger of their own" in err
    assert run_as_printed(quoted_command(err)) == EXIT_OK
    assert url.group(0) in capsys.readouterr().out.splitlines()

    # A real ledger that exists but holds nothing yet says so, not a bare header.
    with Ledger.open(issue.parents[1] / "state" / "ledger.sqlite3"):
        pass
    assert main(["status"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "nothing published yet (the ledger at " in out and "has no posts)" in out, out
    assert "'crosspost status --sandbox'" in out
    assert main(["status", "ai-systems-48"]) == EXIT_BAD_INPUT
    assert "'crosspost status ai-systems-48 --sandbox'" in capsys.readouterr().err


def test_a_damaged_rehearsal_ledger_does_not_stop_the_real_status(
    home: Path, capsys: Capsys
) -> None:
    # The other ledger is only looked at for a hint: it is not the one asked about.
    sandbox = home / "state" / "sandbox"
    sandbox.mkdir(parents=True)
    (sandbox / "ledger.sqlite3").write_bytes(b"not a database\n" * 100)
    assert main(["status"]) == EXIT_OK
    assert capsys.readouterr().out.startswith("nothing published yet (no ledger at ")
    assert main(["urls", "ai-systems-48"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.endswith("nothing was published yet\n"), err
    assert (sandbox / "ledger.sqlite3").read_bytes() == b"not a database\n" * 100


def test_a_publish_at_without_timezone_names_the_editors_own_moment(
    issue: Path, capsys: Capsys
) -> None:
    edit(issue, "publish_at: 2026-11-23T09:00:00+08:00", "publish_at: 2026-11-30 09:00")
    assert main(["check", str(issue)]) == EXIT_BAD_INPUT
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if "'publish_at'" in line)
    assert line.startswith(f"{issue}:")
    assert "write 2026-11-30T09:00:00+08:00 for that time in Beijing" in line
    # Copied as printed, it is the moment the editor meant, and check is content.
    edit(issue, "publish_at: 2026-11-30 09:00", "publish_at: 2026-11-30T09:00:00+08:00")
    assert main(["check", str(issue)]) == EXIT_OK


def test_a_misspelt_picture_or_cover_names_the_file_that_is_there(
    issue: Path, capsys: Capsys
) -> None:
    edit(issue, "images/hardware.png", "images/hardwre.png")
    edit(issue, "cover: images/cover.jpg", "cover: images/Cover.jpg")
    assert main(["check", str(issue)]) == EXIT_BAD_INPUT
    out = capsys.readouterr().out
    assert "image 'images/hardwre.png' not found next to the issue; did you mean " in out
    assert "did you mean 'images/hardware.png'?" in out
    assert "'cover' names 'images/Cover.jpg', which does not exist next to the issue; " in out
    assert "did you mean 'images/cover.jpg'?" in out
    edit(issue, "images/hardwre.png", "images/hardware.png")
    edit(issue, "cover: images/Cover.jpg", "cover: images/cover.jpg")
    assert main(["check", str(issue)]) == EXIT_OK
    # Nothing near: no guess.
    edit(issue, "images/hardware.png", "images/diagram.png")
    assert main(["check", str(issue)]) == EXIT_BAD_INPUT
    out = capsys.readouterr().out
    assert "image 'images/diagram.png' not found next to the issue; fix the path" in out


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("crosspost.toml", "is a settings file (.toml), not an issue (Markdown)"),
        ("wechat.html", "is a web page, not an issue (Markdown)"),
        ("images/cover.jpg", "is a picture (.jpg), not an issue (Markdown)"),
    ],
)
def test_publishing_the_wrong_file_says_what_it_is_and_sends_nothing(
    issue: Path, capsys: Capsys, name: str, said: str
) -> None:
    wrong = issue.parent / name
    if not wrong.exists():
        wrong.write_text("[channels.wechat]\n", encoding="utf-8")
    assert main(["publish", str(wrong), "--sandbox", "--mode", "publish"]) == EXIT_BAD_INPUT
    captured = capsys.readouterr()
    assert f"{wrong}: {said}" in captured.err
    assert "cover" not in captured.err.replace(str(wrong), "")
    assert captured.out == ""


def test_a_file_named_like_a_command_is_not_taken_for_a_misspelt_one(
    issue: Path, capsys: Capsys
) -> None:
    # The command left out: 'status.md' is near 'status', and the editor meant the file.
    named = issue.with_name("status.md")
    shutil.copy(issue, named)
    assert main([str(named)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "did you mean" not in err, err
    assert f"'{named}' is a file, not a crosspost command" in err
    advised = re.search(r"e\.g\. '(crosspost [^']+)'", err)
    assert advised is not None, err
    assert run_as_printed(advised.group(1)) == EXIT_OK


def test_typos_on_the_command_line_name_what_was_meant(issue: Path, capsys: Capsys) -> None:
    assert main(["publsh", str(issue), "--sandbox"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "'publsh' is not a crosspost command; did you mean 'publish'?" in err
    assert main(["publish", str(issue), "--sandox"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err == (
        "crosspost: error: crosspost publish does not take this word: '--sandox' (did you "
        "mean '--sandbox'?); nothing was run ('crosspost publish --help' lists what it takes)\n"
    )
    assert main(["publish", str(issue), "--sandbox", "-c", "wechat:main"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "a --sandbox rehearsal has no wechat account called 'main'" in err
    assert "write -c wechat (or -c wechat:sandbox)" in err
    assert main(["status", "--sandbox"]) == EXIT_OK
    assert "nothing published yet" in capsys.readouterr().out


def test_a_correction_after_publishing_says_per_platform_what_happened_even_when_quiet(
    issue: Path, capsys: Capsys
) -> None:
    assert main(["publish", str(issue), "--sandbox", "--mode", "publish", "-q"]) == EXIT_OK
    capsys.readouterr()
    edit(issue, "深度学习硬件", "深度學習硬件")  # the typo fixed on both platforms

    assert main(["publish", str(issue), "--sandbox", "--mode", "publish", "-q"]) == EXIT_OK
    err = capsys.readouterr().err
    lines = err.splitlines()
    wechat = next(line for line in lines if line.startswith("wechat:sandbox  ai-systems-48: "))
    assert "to do: changed since it was published, but WeChat" in wechat
    assert "公众号后台 → 发表记录" in wechat
    zhihu = next(line for line in lines if line.startswith("zhihu:sandbox  ai-systems-48: "))
    assert "changed since it was published; run with --update" in zhihu
    update = quoted_command(zhihu)
    assert update == f"crosspost publish {issue} -c zhihu:sandbox --update --sandbox"

    assert run_as_printed(update) == EXIT_OK
    out = capsys.readouterr().out
    assert re.search(r"zhihu:sandbox\s+ai-systems-48\s+published\s+https://zhuanlan", out), out
