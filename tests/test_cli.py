"""The command line as an editor meets it: ``check``, ``render`` and ``preview``, in-process.

Each test asserts the exact line printed and the exit code; bad input is one line and
exit 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

import pytest

from crosspost.cli import COMMANDS, build_parser, main
from crosspost.config.advice import REHEARSED, WITHOUT_SETTINGS, command_line, repeating

WriteIssue = Callable[..., Path]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], list[str]]:
    """(exit code, stdout lines, stderr lines) of ``crosspost ARGV``."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


# --- bad input: exactly one line, exit 2 ----------------------------------------------------

BAD_INPUT = [
    # (id, file text or bytes, expected line after "<path>")
    (
        "non-utf8",
        "---\ntitle: 标题\n---\n".encode("gbk"),
        ":2: is not UTF-8 text; save it as UTF-8 (most editors: 'Save with encoding')",
    ),
    (
        "broken yaml",
        "---\ntitle: [T\n---\n",
        ":2: front matter is not valid YAML (expected ',' or ']', but got '<stream end>'); "
        "fix that line",
    ),
    (
        "not a mapping",
        "---\njust a sentence\n---\n",
        ":2: front matter must be 'key: value' lines (a mapping), not a list or text",
    ),
    (
        "unknown channel",
        "---\ntitle: T\ncover: c.jpg\nchannels: [wechat, weibo]\n---\n正文正文正文正文正文正文\n",
        ":4: 'channels' names unknown channel 'weibo'; use wechat, zhihu",
    ),
    (
        "impossible publish_at",
        "---\ntitle: T\ncover: c.jpg\npublish_at: 2024-01-01T25:00:00+08:00\n---\n"
        "正文正文正文正文正文正文\n",
        ":4: 'publish_at' is 2024-01-01T25:00:00+08:00, which is no real date and time "
        "(hour must be in 0..23); fix it, e.g. 2026-11-23T09:00:00+08:00",
    ),
    (
        "a value its YAML tag cannot hold",
        "---\ntitle: T\ncover: c.jpg\nprevious: !!int abc\n---\n正文正文正文正文正文正文\n",
        ":4: front matter is not valid YAML (cannot read 'abc' as int: invalid literal for "
        "int() with base 10: 'abc'); fix that line",
    ),
    (
        "control character",
        "---\ntitle: T\ncover: c.jpg\nauthor: a\x1bb\n---\n正文正文正文正文正文正文\n",
        ":4: front matter holds the control character U+001B, which YAML does not allow; "
        "remove it (most editors do not show it: delete and retype the text around it)",
    ),
    (
        "missing image",
        "---\ntitle: T\ncover: c.jpg\n---\n正文正文正文正文正文正文\n\n![图](images/x.png)\n",
        ":7: image 'images/x.png' not found next to the issue; fix the path or add the file",
    ),
]


@pytest.mark.parametrize(("raw", "line"), [c[1:] for c in BAD_INPUT], ids=[c[0] for c in BAD_INPUT])
def test_check_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str],
    write_issue: WriteIssue,
    raw: str | bytes,
    line: str,
) -> None:
    path = write_issue(raw=raw)
    (path.parent / "c.jpg").write_bytes((path.parent / "cover.jpg").read_bytes())
    where, message = line.split(" ", 1)  # ":4:", the words: an error, so labelled
    assert run(capsys, "check", str(path)) == (2, [f"{path}{where} error: {message}"], [])


@pytest.mark.parametrize("command", ["render", "preview"])
def test_render_and_preview_show_an_issue_whose_front_matter_does_not_parse(
    capsys: pytest.CaptureFixture[str], write_issue: WriteIssue, command: str
) -> None:
    # They refused the file: an editor could not look at the body of a post moved from a
    # blog whose front matter crosspost cannot read. check still refuses it in one line.
    path = write_issue(raw="---\n- a list\n---\n# 标题\n\n正文写在这里，有九个字以上。\n")
    out = path.parent / "out"
    code, stdout, stderr = run(capsys, command, str(path), "-o", str(out))
    expected = (
        f"{path}:2: error: front matter must be 'key: value' lines (a mapping), not a list or text"
    )
    assert code == 0 and expected in stderr and stdout[0].startswith("wrote ")
    assert stderr[-1].endswith("the files are written so you can look")
    written = "".join(f.read_text("utf-8") for f in out.iterdir())
    assert "正文写在这里" in written
    assert run(capsys, "check", str(path)) == (2, [expected], [])


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "nope.md"
    expected = f"{path}: error: no such file; check the path"
    assert run(capsys, "check", str(path)) == (2, [expected], [])


def test_directory_given_as_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    expected = f"{tmp_path}: error: is a folder, not an issue file; name the .md file inside it"
    assert run(capsys, "render", str(tmp_path)) == (2, [], [expected])


def test_unknown_channel_flag_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], example_issue: Path
) -> None:
    assert run(capsys, "render", str(example_issue), "-c", "weibo") == (
        2,
        [],
        [
            "crosspost: error: crosspost render: argument -c/--channel: invalid choice: "
            "'weibo' (choose from 'wechat', 'zhihu'); nothing was run ('crosspost render "
            "--help' lists what it takes)"
        ],
    )


def test_no_command_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys) == (
        2,
        [],
        [
            "crosspost: error: crosspost needs a command, e.g. 'crosspost check FILE'; "
            "nothing was run ('crosspost --help' lists what it takes)"
        ],
    )


# --- a command line crosspost cannot run: one line, exit 2, never the usage block ---------

#: (argv, the command it names, what the line says is wrong): every command, and the
#: top level, with a word it does not take, a value or an argument left out, a choice
#: that is not one.
USAGE_ERRORS = [
    ([], "crosspost", "crosspost needs a command, e.g. 'crosspost check FILE'"),
    (["--bogus"], "crosspost", "crosspost does not take this word: '--bogus'"),
    (["check"], "crosspost check", "crosspost check needs FILE"),
    (["check", "x.md", "-c", "weibo"], "crosspost check", "argument -c/--channel: invalid"),
    (["render", "x.md", "--bogus"], "crosspost render", "does not take this word: '--bogus'"),
    (["preview"], "crosspost preview", "crosspost preview needs FILE"),
    (["serve", "--port", "many"], "crosspost serve", "argument --port: invalid int value"),
    (["review", "--to"], "crosspost review", "argument --to: expected one argument"),
    (["approve"], "crosspost approve", "crosspost approve needs FILE"),
    (["publish"], "crosspost publish", "crosspost publish needs FILE"),
    (["publish", "--bogus", "x.md"], "crosspost publish", "does not take this word: '--bogus'"),
    (
        ["publish", "x.md", "--mode", "loud"],
        "crosspost publish",
        "argument --mode: invalid choice: 'loud' (choose from 'draft', 'publish', 'broadcast')",
    ),
    (["status", "--json", "extra", "words"], "crosspost status", "this word: 'words'"),
    (["urls"], "crosspost urls", "crosspost urls needs ISSUE_ID"),
    (["urls", "i", "-c", "weibo"], "crosspost urls", "'weibo' is not a channel"),
    (["reconcile"], "crosspost reconcile", "crosspost reconcile needs ISSUE_ID"),
    (["ledger"], "crosspost ledger", "crosspost ledger needs ACTION"),
    (["ledger", "migrate"], "crosspost ledger migrate", "crosspost ledger migrate needs --to"),
    (["ledger", "export", "-o"], "crosspost ledger export", "argument -o/--output: expected"),
    (["import"], "crosspost import", "crosspost import needs FILE"),
    (["doctor", "extra"], "crosspost doctor", "crosspost doctor does not take this word"),
    (["sandbox", "--port", "many"], "crosspost sandbox", "argument --port: invalid int value"),
    (["run-due", "--grace"], "crosspost run-due", "argument --grace: expected one argument"),
    (["run-due", "--mode", "loud"], "crosspost run-due", "argument --mode: invalid choice"),
]


@pytest.mark.parametrize(
    ("argv", "prog", "said"), USAGE_ERRORS, ids=[" ".join(c[0]) or "nothing" for c in USAGE_ERRORS]
)
def test_a_command_line_that_cannot_run_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    argv: list[str],
    prog: str,
    said: str,
) -> None:
    """What cron mails at 3 a.m.: the line that says what is wrong and where the command's
    options are, not argparse's usage block above it; nothing run, nothing written."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CROSSPOST_STATE_DIR", str(tmp_path / "state"))
    code, stdout, stderr = run(capsys, *argv)
    assert (code, stdout, len(stderr)) == (2, [], 1), stderr
    (line,) = stderr
    assert line.startswith("crosspost: error: ") and said in line, line
    assert line.endswith(f"; nothing was run ('{prog} --help' lists what it takes)"), line
    assert list(tmp_path.iterdir()) == []


def test_every_command_has_a_usage_error_case() -> None:
    named = {argv[0] for argv, _, _ in USAGE_ERRORS if argv}
    assert named >= {name for name, _, _ in COMMANDS}


def test_a_word_that_is_no_command_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """Not argparse's list of every command's name: the line says where they are listed,
    and keeps naming the command meant when the word is near one."""
    assert run(capsys, "frobnicate") == (
        2,
        [],
        [
            "crosspost: error: 'frobnicate' is not a crosspost command ('crosspost --help' "
            "lists them; nothing was run)"
        ],
    )
    assert run(capsys, "stauts", "--json")[2] == [
        "crosspost: error: 'stauts' is not a crosspost command; did you mean 'status'? "
        "('crosspost --help' lists them; nothing was run)"
    ]


def test_help_is_still_the_whole_help(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["publish", "--help"], ["ledger", "migrate", "--help"]):
        with pytest.raises(SystemExit) as done:
            main(argv)
        assert done.value.code == 0
        out = capsys.readouterr().out
        assert out.startswith("usage: crosspost") and "options:" in out


# --- the commands crosspost prints: on the ledger of the run that printed them -------------


def test_printed_commands_repeat_the_runs_config_and_state_dir_where_taken() -> None:
    """As given (a path with a space quoted for the shell), after the command's words,
    ``--sandbox`` last; not for ``import``, which reads no settings, and no ``--sandbox``
    for ``check``, which has none."""
    given = {"config": "/etc/cross post.toml", "state_dir": "state", "mode": "publish"}
    assert command_line("status", rehearsal=True) == "crosspost status --sandbox"
    with repeating(given):
        assert command_line("publish", "a b.md", "--retry-failed", rehearsal=True) == (
            "crosspost publish 'a b.md' --retry-failed --config '/etc/cross post.toml' "
            "--state-dir state --sandbox"
        )
        assert command_line("check", "x.md", rehearsal=True) == (
            "crosspost check x.md --config '/etc/cross post.toml' --state-dir state"
        )
        assert command_line("import", "d.txt", rehearsal=True) == "crosspost import d.txt"
        with repeating({"config": None, "state_dir": "other"}):
            assert command_line("status", rehearsal=False) == "crosspost status --state-dir other"
        assert command_line("urls", "x", rehearsal=False).endswith("--state-dir state")
    assert command_line("status", rehearsal=False) == "crosspost status"


def test_a_commands_flags_are_not_advised_after_it_ends(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One process, several commands (as in the tests): what one command line gave is
    repeated while that command runs, and no longer once it has ended, well or not."""
    for argv in (["status", "--state-dir", "s1"], ["urls", "no-such-issue", "--config", "x"]):
        main(argv)
        capsys.readouterr()
        assert command_line("status", rehearsal=False) == "crosspost status"


@pytest.mark.parametrize("name", [name for name, _, _ in COMMANDS])
def test_advice_knows_which_commands_take_which_flags(name: str) -> None:
    """The two sets advice reads, held to each command's own parser (``ledger``'s
    actions for it)."""

    def below(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
        return [
            p
            for action in parser._actions
            if isinstance(action, argparse._SubParsersAction)
            for p in action.choices.values()
        ]

    (own,) = (p for p in below(build_parser(only=name)) if p.prog == f"crosspost {name}")
    parsers = [own, *below(own)]
    options = {word for p in parsers for a in p._actions for word in a.option_strings}
    assert ("--config" in options) == ("--state-dir" in options) == (name not in WITHOUT_SETTINGS)
    assert ("--sandbox" in options) == (name in REHEARSED)


def help_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    assert done.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse wraps at the terminal width


def test_help_says_what_a_new_operator_would_otherwise_get_wrong(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """publish leaves drafts unless told otherwise; --update cannot edit a published
    WeChat article; --state-dir is not where a PostgreSQL ledger lives; every command's
    help starts without a traceback."""
    assert "publish send issues to every channel, exactly once (drafts unless --mode)" in (
        help_of(capsys)
    )
    for command in ("publish", "run-due"):
        text = help_of(capsys, command)
        assert "(default: the issue's, account's or config's mode, else draft;" in text
        assert "where the platform can (not a published WeChat article)" in text
        assert "(unless ledger_url is set)" in text and "~/.local/state/crosspost" in text
    for command in ("urls", "reconcile"):
        assert "ISSUE_ID the issue's id: its 'id:', else its file name" in help_of(capsys, command)
    assert "postgresql://USER@HOST:PORT/DATABASE" in help_of(capsys, "ledger", "migrate")
    assert "--force with -o: replace FILE if it exists already" in help_of(
        capsys, "ledger", "export"
    )


@pytest.mark.parametrize(
    "command", [["publish"], ["run-due"], ["status"], ["doctor"], ["ledger", "export"]]
)
def test_help_says_where_config_and_state_dir_default_to(
    capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    """As find_config and default_state_dir look, XDG folders included ('~/.config/…'
    named no file, and the state dir's default skipped the config and $XDG_STATE_HOME)."""
    text = help_of(capsys, *command)
    assert (
        "--config CONFIG config file (default: $CROSSPOST_CONFIG, else ./crosspost.toml, else "
        "crosspost/crosspost.toml in $XDG_CONFIG_HOME, else in ~/.config)"
    ) in text
    assert (
        "(default: $CROSSPOST_STATE_DIR, else state_dir in the config, else "
        "$XDG_STATE_HOME/crosspost, else ~/.local/state/crosspost)"
    ) in text


def test_a_command_line_that_begins_with_its_command_builds_that_command_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``check …`` builds no parser for the other commands (start-up), yet a top-level
    ``--help`` before the command still lists them all, and the command's own help and
    errors read as before."""
    every = ["check", "render", "publish", "run-due", "sandbox"]
    assert all(name in build_parser().format_help() for name in every)
    alone = build_parser(only="check", alone=True)
    listed = alone.format_help()
    assert "check" in listed and "publish" not in listed and "run-due" not in listed
    assert alone.format_usage() == build_parser(only="check").format_usage()
    with pytest.raises(SystemExit):
        main(["-h", "check"])
    shown = capsys.readouterr().out
    assert all(name in shown for name in every)
    assert "lint issue files against every channel's limits" in help_of(capsys, "check")
    assert main(["check", "--no-such-flag"]) == 2
    assert capsys.readouterr().err == (
        "crosspost: error: crosspost check needs FILE; nothing was run ('crosspost check "
        "--help' lists what it takes)\n"
    )


# --- check ------------------------------------------------------------------------------


def test_check_example_is_ok_with_one_warning(
    capsys: pytest.CaptureFixture[str], example_issue: Path
) -> None:
    code, stdout, stderr = run(capsys, "check", str(example_issue))
    assert code == 0
    assert stdout[-1] == f"{example_issue}: ok (wechat, zhihu), 1 warning"
    assert stdout[0].startswith(f"{example_issue}:4: [wechat] warning: author 'OneFlow社区'")
    assert stderr == []


def test_check_many_files_reports_each(
    capsys: pytest.CaptureFixture[str], write_issue: WriteIssue, example_issue: Path
) -> None:
    bad = write_issue(raw="---\ntitle: T\n---\n短\n")
    code, stdout, _ = run(capsys, "check", str(bad), str(example_issue))
    assert code == 2
    assert (
        f"{bad}:1: [wechat] error: wechat needs a cover image; add 'cover: images/cover.jpg' "
        "(900×383)" in stdout
    )
    assert (
        f"{bad}:4: [zhihu] error: the body has 1 character of text, zhihu needs at least 9; "
        "write more" in stdout
    )
    assert stdout[-1] == f"{example_issue}: ok (wechat, zhihu), 1 warning"


def test_check_goes_through_every_file_past_impossible_dates(
    capsys: pytest.CaptureFixture[str], write_issue: WriteIssue, example_issue: Path
) -> None:
    dated = write_issue(front="title: T\ncover: cover.jpg\ndate: 2024-02-30\n", name="dated.md")
    due = write_issue(
        front="title: T\ncover: cover.jpg\npublish_at: 2024-02-30T09:00:00+08:00\n", name="due.md"
    )
    code, stdout, stderr = run(capsys, "check", str(dated), str(due), str(example_issue))
    assert (code, stderr) == (2, [])
    assert stdout[0] == (
        f"{dated}:4: warning: 'date' is 2024-02-30, which is no real date (day is out of range "
        "for month); it is only kept for the record (it schedules nothing), so fix or remove it"
    )
    assert stdout[1] == f"{dated}: ok (wechat, zhihu), 1 warning"
    assert stdout[2] == (
        f"{due}:4: error: 'publish_at' is 2024-02-30T09:00:00+08:00, which is no real date and "
        "time (day is out of range for month); fix it, e.g. 2026-11-23T09:00:00+08:00"
    )
    assert stdout[-1] == f"{example_issue}: ok (wechat, zhihu), 1 warning"


def test_check_warns_that_a_hash_cut_the_title(
    capsys: pytest.CaptureFixture[str], write_issue: WriteIssue
) -> None:
    path = write_issue(front="title: iOS Weekly #349\ncover: cover.jpg\n")
    assert run(capsys, "check", str(path)) == (
        0,
        [
            f"{path}:2: warning: 'title' was cut at ' #' (YAML reads the rest of the line as a "
            "comment), so it is 'iOS Weekly'; quote the value to keep it all, e.g. "
            'title: "iOS Weekly #349"',
            f"{path}: ok (wechat, zhihu), 1 warning",
        ],
        [],
    )


def test_check_labels_each_problem_and_ends_with_how_many_of_each(
    capsys: pytest.CaptureFixture[str], write_issue: WriteIssue
) -> None:
    """Errors had no label, warnings did, and the list just stopped: an editor had to
    read every line to know whether the issue could go out."""
    path = write_issue(
        front="title: iOS Weekly #349\ncover: gone.jpg\n",
        body="正文正文正文正文正文正文\n\n![图](gone.png)\n",
    )
    code, stdout, stderr = run(capsys, "check", str(path))
    assert (code, stderr) == (2, [])
    assert stdout == [
        f"{path}:2: warning: 'title' was cut at ' #' (YAML reads the rest of the line as a "
        "comment), so it is 'iOS Weekly'; quote the value to keep it all, e.g. "
        'title: "iOS Weekly #349"',
        f"{path}:3: error: 'cover' names 'gone.jpg', which does not exist next to the issue; "
        "fix the path",
        f"{path}:7: error: image 'gone.png' not found next to the issue; fix the path or add "
        "the file",
        f"{path}: 2 errors, 1 warning; fix the errors before 'crosspost publish' (it refuses "
        "the issue until then)",
    ]
    # publish names the first error as before, its "error:" said once.
    state = ["--state-dir", str(path.parent / "state")]
    code, _, stderr = run(capsys, "publish", str(path), "--sandbox", *state)
    assert code == 2
    assert stderr[-1] == (
        f"crosspost: error: {path}:3: 'cover' names 'gone.jpg', which does not exist next to "
        "the issue; fix the path (and 1 more; run 'crosspost check')"
    )


def test_check_json(capsys: pytest.CaptureFixture[str], write_issue: WriteIssue) -> None:
    path = write_issue(body="正文正文正文正文正文正文\n\n![图](gone.png)\n")
    code = main(["check", "--json", str(path)])
    report = json.loads(capsys.readouterr().out)
    assert code == 2
    assert report["errors"] == 1
    assert report["files"][0]["issue"] == path.parent.name
    assert report["files"][0]["channels"] == ["wechat", "zhihu"]
    assert report["files"][0]["problems"] == [
        {
            "path": str(path),
            "line": 9,
            "channel": None,
            "code": "missing-image",
            "severity": "error",
            "message": "image 'gone.png' not found next to the issue; fix the path or add the file",
        }
    ]


# --- render -----------------------------------------------------------------------------


def test_render_writes_every_channel_file(
    capsys: pytest.CaptureFixture[str], example_issue: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    code, stdout, stderr = run(capsys, "render", str(example_issue), "-o", str(out))
    assert code == 0
    assert sorted(stdout) == [
        f"wrote {out / name}" for name in ("wechat.html", "zhihu.html", "zhihu.md")
    ]
    assert len(stderr) == 1 and "warning: author" in stderr[0]
    wechat = (out / "wechat.html").read_text("utf-8")
    assert wechat.startswith("<section") and "<style" not in wechat and "class=" not in wechat
    assert "深度学习硬件的过去、现在和未来" in wechat
    zhihu_md = (out / "zhihu.md").read_text("utf-8")
    assert "其他人都在看" in zhihu_md
    assert "<table" not in (out / "zhihu.html").read_text("utf-8")  # the example has none


def test_render_defaults_to_build_issue_id(
    capsys: pytest.CaptureFixture[str],
    example_issue: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, stdout, _ = run(capsys, "render", str(example_issue), "-c", "zhihu")
    assert code == 0
    assert sorted(stdout) == [
        "wrote build/ai-systems-48/zhihu.html",
        "wrote build/ai-systems-48/zhihu.md",
    ]
    assert sorted(p.name for p in (tmp_path / "build" / "ai-systems-48").iterdir()) == [
        "zhihu.html",
        "zhihu.md",
    ]


def test_render_writes_its_files_and_lists_what_check_would_refuse(
    capsys: pytest.CaptureFixture[str], write_issue: WriteIssue
) -> None:
    path = write_issue(front="title: " + "长" * 65 + "\n")
    out = path.parent / "out"
    code, stdout, stderr = run(capsys, "render", str(path), "-o", str(out))
    assert code == 0
    assert stdout == [f"wrote {out / name}" for name in ("wechat.html", "zhihu.html", "zhihu.md")]
    assert stderr == [
        f"{path}:1: [wechat] error: wechat needs a cover image; add 'cover: images/cover.jpg' "
        "(900×383)",
        f"{path}:2: [wechat] error: title has 65 characters, wechat allows 64; "
        "shorten it or set 'wechat: {title: …}'",
        f"{path}: 2 errors; fix the errors before 'crosspost publish' (it refuses the issue "
        "until then); the files are written so you can look",
    ]


def test_check_refuses_what_render_writes(
    capsys: pytest.CaptureFixture[str], write_issue: WriteIssue
) -> None:
    path = write_issue(front="title: " + "长" * 65 + "\ncover: cover.jpg\n")
    code, stdout, _ = run(capsys, "check", str(path))
    assert code == 2
    assert stdout == [
        f"{path}:2: [wechat] error: title has 65 characters, wechat allows 64; "
        "shorten it or set 'wechat: {title: …}'"
    ]


def test_render_takes_front_matter_after_blank_lines_out_of_the_article(
    capsys: pytest.CaptureFixture[str], write_issue: WriteIssue
) -> None:
    path = write_issue(
        raw="\n\n---\ntitle: 第一期\ncover: cover.jpg\n---\n正文正文正文正文正文正文\n"
    )
    out = path.parent / "out"
    code, _, stderr = run(capsys, "render", str(path), "-o", str(out))
    assert (code, stderr) == (0, [])
    assert (out / "zhihu.md").read_text("utf-8") == "正文正文正文正文正文正文\n"


def test_render_into_a_file_is_refused(
    capsys: pytest.CaptureFixture[str], example_issue: Path, tmp_path: Path
) -> None:
    target = tmp_path / "taken"
    target.write_text("x", "utf-8")
    code, _, stderr = run(capsys, "render", str(example_issue), "-o", str(target))
    assert code == 2
    assert (
        stderr[-1] == f"crosspost: error: {target}: is a file, not a folder; choose another -o DIR"
    )


# --- preview ----------------------------------------------------------------------------


def test_preview_shows_both_articles_with_local_images(
    capsys: pytest.CaptureFixture[str], example_issue: Path, tmp_path: Path
) -> None:
    out = tmp_path / "preview"
    code, stdout, _ = run(capsys, "preview", str(example_issue), "-o", str(out))
    assert (code, stdout) == (0, [f"wrote {out / 'preview.html'}"])
    page = (out / "preview.html").read_text("utf-8")
    assert "width: 375px" in page
    assert "AI系统前沿动态48" in page  # the WeChat title override
    assert "AI系统前沿动态 第48期" in page  # the Zhihu (top-level) title
    assert page.count("深度学习硬件究竟如何继续提升性能") == 2  # both articles
    sources = set(re.findall(r'\ssrc="([^"]+)"', page))
    assert sources, "the example has images"
    for source in sources:
        assert (out / unquote(source)).resolve().is_file(), source


def test_problems_name_the_file_as_typed(
    capsys: pytest.CaptureFixture[str], write_issue: WriteIssue, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_issue(body="正文正文正文正文正文正文\n\n![图](gone.png)\n")
    monkeypatch.chdir(path.parent)
    code, stdout, _ = run(capsys, "check", "issue.md")
    assert code == 2
    assert stdout == [
        "issue.md:9: error: image 'gone.png' not found next to the issue; fix the path or add "
        "the file"
    ]


def test_preview_of_a_zhihu_only_issue_lists_its_warnings(
    capsys: pytest.CaptureFixture[str], write_issue: WriteIssue, tmp_path: Path
) -> None:
    from PIL import Image

    Image.new("RGB", (40, 40), "blue").save(tmp_path / "photo.webp", "WEBP")
    front = "title: 只发知乎\nchannels: [zhihu]\n"
    path = write_issue(front=front, body="知乎专栏的正文,足够长。\n\n![p](photo.webp)\n")
    code, _, stderr = run(capsys, "preview", str(path), "-o", str(tmp_path / "p"))
    assert code == 0
    warning = (
        f"{path}:7: [zhihu] warning: image 'photo.webp' is WEBP; zhihu takes GIF/JPEG/PNG, "
        "so it is converted"
    )
    assert stderr == [warning]
    page = (tmp_path / "p" / "preview.html").read_text("utf-8")
    assert 'id="zhihu"' in page and 'id="wechat"' not in page
    assert "photo.webp&#39; is WEBP" in page  # the warning, listed on the page too


def test_unknown_theme_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], example_issue: Path, tmp_path: Path
) -> None:
    code, stdout, stderr = run(
        capsys, "render", str(example_issue), "--theme", "neon", "-o", str(tmp_path)
    )
    assert (code, stdout) == (2, [])
    assert stderr[-1].startswith("crosspost: error: unknown wechat theme 'neon'; use one of: ")
    assert "default" in stderr[-1] and "grace" in stderr[-1]


def test_render_with_another_theme(
    capsys: pytest.CaptureFixture[str], example_issue: Path, tmp_path: Path
) -> None:
    default, grace = tmp_path / "default", tmp_path / "grace"
    assert run(capsys, "render", str(example_issue), "-c", "wechat", "-o", str(default))[0] == 0
    assert (
        run(
            capsys,
            "render",
            str(example_issue),
            "-c",
            "wechat",
            "-o",
            str(grace),
            "--theme",
            "grace",
        )[0]
        == 0
    )
    assert (default / "wechat.html").read_text("utf-8") != (grace / "wechat.html").read_text(
        "utf-8"
    )


# --- the configured theme and templates are what check and render use (finding 1) -------


def _config_with_own_theme(tmp_path: Path) -> Path:
    """A config whose theme lives in its own template folder and colours text #123456."""
    themes = tmp_path / "mytemplates" / "wechat" / "themes"
    themes.mkdir(parents=True)
    (themes / "house.css").write_text(".article p { color: #123456; }\n", "utf-8")
    config = tmp_path / "crosspost.toml"
    config.write_text('theme = "house"\ntemplate_dirs = ["mytemplates"]\n', "utf-8")
    return config


def test_render_uses_the_configured_theme_and_template_folder(
    capsys: pytest.CaptureFixture[str], example_issue: Path, tmp_path: Path
) -> None:
    config, out = _config_with_own_theme(tmp_path), tmp_path / "out"
    argv = ["render", str(example_issue), "-c", "wechat", "-o", str(out), "--config", str(config)]
    assert run(capsys, *argv)[0] == 0
    assert "color:#123456" in (out / "wechat.html").read_text("utf-8")
    assert run(capsys, *argv, "--theme", "grace")[0] == 0  # the flag still wins
    assert "color:#123456" not in (out / "wechat.html").read_text("utf-8")


def test_check_renders_with_the_configured_theme(
    capsys: pytest.CaptureFixture[str], write_issue: WriteIssue, tmp_path: Path
) -> None:
    config = _config_with_own_theme(tmp_path)
    (config.parent / "mytemplates" / "wechat" / "themes" / "house.css").write_text(
        "/* pygments-style: nosuchstyle */\n", "utf-8"
    )
    code, _, stderr = run(capsys, "check", str(write_issue()), "--config", str(config))
    assert code == 2
    assert "WeChat theme 'house' names code style 'nosuchstyle'" in stderr[-1]


# --- status and urls read the ledger (findings 22, 25) -----------------------------------


@pytest.fixture
def ledger_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state folder whose ledger holds three published posts, one of a CJK-named issue."""
    from crosspost.ledger.schema import PostKey
    from crosspost.ledger.store import Ledger

    monkeypatch.setenv("HOME", str(tmp_path))  # no user config is read
    monkeypatch.chdir(tmp_path)
    state = tmp_path / "state"
    state.mkdir()
    with Ledger.open(state / "ledger.sqlite3") as ledger:
        for issue, channel, account, url in [
            ("两会特刊", "wechat", "main", "https://mp.weixin.qq.com/s/aaa"),
            ("ai-48", "zhihu", "main", "https://zhuanlan.zhihu.com/p/1"),
            ("ai-48", "zhihu", "备用号", "https://zhuanlan.zhihu.com/p/2"),
        ]:
            key = PostKey(issue, channel, account)
            ledger.ensure(key)
            ledger.record(key, state="published", url=url)
    return state


def test_status_columns_line_up_with_cjk_issue_ids_and_accounts(
    capsys: pytest.CaptureFixture[str], ledger_state: Path
) -> None:
    from crosspost.commands.table import display_width

    code, stdout, _ = run(capsys, "status", "--state-dir", str(ledger_state))
    assert code == 0 and len(stdout) == 4
    starts = set()
    for line in stdout:
        word = "state" if line.startswith("issue") else "published"
        starts.add(display_width(line[: line.index(word)]))
    assert len(starts) == 1, stdout  # the state column starts at one terminal column


def test_urls_filters_by_channel_or_account_and_refuses_an_unknown_channel(
    capsys: pytest.CaptureFixture[str], ledger_state: Path
) -> None:
    state = ("--state-dir", str(ledger_state))
    assert run(capsys, "urls", "ai-48", "-c", "zhihu", *state)[1] == [
        "https://zhuanlan.zhihu.com/p/1",
        "https://zhuanlan.zhihu.com/p/2",
    ]
    assert run(capsys, "urls", "ai-48", "-c", "zhihu:备用号", *state)[1] == [
        "https://zhuanlan.zhihu.com/p/2"
    ]
    assert run(capsys, "urls", "ai-48", "-c", "wechat", *state)[:2] == (0, [])
    code, _, stderr = run(capsys, "urls", "ai-48", "-c", "weibo", *state)
    assert (code, len(stderr)) == (2, 1)
    assert "'weibo' is not a channel; use one of wechat, zhihu" in stderr[0]


def test_preview_uses_the_configured_theme(
    capsys: pytest.CaptureFixture[str], example_issue: Path, tmp_path: Path
) -> None:
    config, out = _config_with_own_theme(tmp_path), tmp_path / "out"
    argv = ["preview", str(example_issue), "-o", str(out), "--config", str(config)]
    assert run(capsys, *argv)[0] == 0
    assert "#123456" in (out / "preview.html").read_text("utf-8")


def test_preview_of_an_issue_check_refuses_is_written_with_its_problems_by_line_at_the_top(
    capsys: pytest.CaptureFixture[str], write_issue: WriteIssue, tmp_path: Path
) -> None:
    path = write_issue(raw="# 没有封面的一期\n\n正文第一段,足够长。\n\n::: theorem\n定理\n:::\n")
    out = tmp_path / "p"
    code, stdout, stderr = run(capsys, "preview", str(path), "-o", str(out))
    assert (code, stdout) == (0, [f"wrote {out / 'preview.html'}"])
    assert f"{path}:1: [wechat] error: wechat needs a cover image" in stderr[0]
    page = (out / "preview.html").read_text("utf-8")
    top = page[: page.index('class="columns"')]
    assert (
        '<li class="error"><span class="line">line 1</span> <span class="channel">[wechat]' in top
    )
    assert '<span class="line">line 5</span>' in top and "::: theorem" in top
    assert "<title>预览 · 没有封面的一期</title>" in page


def test_a_terminal_that_cannot_show_chinese_gets_escapes_not_a_traceback(
    write_issue: WriteIssue, tmp_path: Path
) -> None:
    path = write_issue(raw="---\ntitle: 第一期\n---\n正文不长。\n")  # no cover: "900×383"
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "CROSSPOST_STATE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "crosspost", "check", str(path)],
        env=env,
        capture_output=True,
        text=True,
        encoding="ascii",
    )
    assert "Traceback" not in done.stderr and "UnicodeEncodeError" not in done.stderr
    assert done.returncode == 2 and "(900\\xd7383)" in done.stdout + done.stderr


def test_control_characters_pasted_into_the_body_are_left_out_with_one_warning(
    capsys: pytest.CaptureFixture[str], write_issue: WriteIssue
) -> None:
    """Text pasted from a terminal (colour escapes), a PDF or an old word processor brings
    characters no one sees and neither platform's HTML can hold: the issue still renders,
    its words intact and a colour code gone whole (its ``[31m`` was shown when only the
    ESC was left out), and ``check`` says once where they were."""
    body = "\nhello \x1b[31mred\x1b[0m text\n\nform\x0cfeed and `co\x01de`\n\n## 标题\x07\n"
    path = write_issue(body=body)
    out = path.parent / "out"
    code, _, stderr = run(capsys, "render", str(path), "-o", str(out))
    assert code == 0 and "invisible control characters" in stderr[0]
    for name in ("wechat.html", "zhihu.html", "zhihu.md"):
        text = (out / name).read_text("utf-8")
        assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", text), name
        assert "hello red text" in text and "[31m" not in text and "[0m" not in text
        assert "form feed" in text and "code" in text and "标题" in text
    code, stdout, _ = run(capsys, "check", str(path))
    assert code == 0
    assert stdout == [
        f"{path}:8: warning: 5 invisible control characters (U+0001, U+0007, U+000C, "
        "U+001B) on lines 8, 10, 12 left out of every channel, with the terminal codes they "
        "begin ('[31m') (a form feed shown as a space; text pasted from a terminal or another "
        "program?); delete them from the file",
        f"{path}: ok (wechat, zhihu), 1 warning",
    ]


def test_an_internal_error_is_one_line_naming_a_report_file_never_a_traceback(
    capsys: pytest.CaptureFixture[str],
    write_issue: WriteIssue,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """A bug (an exception crosspost did not expect) reaches a person, or a cron mail, as
    one line: which command, that it is a bug, and the file that holds the traceback, with
    the environment's secrets and ``token=…`` pairs hidden there as on the terminal."""
    import crosspost.commands.render as render_command

    def broken(args: object) -> int:
        raise ValueError("no luck with access_token=abcdef0123456789 and hunter2-secret-value")

    monkeypatch.setattr(render_command, "run", broken)
    monkeypatch.setenv("CROSSPOST_ZHIHU_COOKIE", "hunter2-secret-value")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    code, stdout, stderr = run(capsys, "render", str(write_issue()))
    assert code == 1 and stdout == []
    assert len(stderr) == 1 and "Traceback" not in stderr[0]
    line = stderr[0]
    assert line.startswith("crosspost: error: 'render' stopped on an internal error (ValueError:")
    assert "this is a crosspost bug, not your input or config" in line
    assert "abcdef0123456789" not in line and "hunter2-secret-value" not in line
    report = Path(re.search(r"details are in (\S+);", line).group(1))  # type: ignore[union-attr]
    assert report.parent == tmp_path and report.stat().st_mode & 0o077 == 0
    text = report.read_text("utf-8")
    assert "Traceback" in text and "in broken" in text and "command: crosspost render" in text
    assert "abcdef0123456789" not in text and "hunter2-secret-value" not in text
