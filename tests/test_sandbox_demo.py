"""The built-in sandbox as an editor first meets it (``--sandbox``): a 群发 rehearsal ends
with the send recorded, not left "still going out" for a later run to settle, and the
README's first command works again from a second checkout of the repository."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ai-systems-48" / "issue.md"


@pytest.fixture
def fresh_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A machine with no config: the state dir is the home folder's."""
    for name in ("CROSSPOST_CONFIG", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "CROSSPOST_MODE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CROSSPOST_STATE_DIR", str(tmp_path / "state"))
    return tmp_path


def test_a_broadcast_rehearsal_on_the_built_in_sandbox_ends_sent_to_followers(
    fresh_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["publish", str(EXAMPLE), "--sandbox", "--mode", "broadcast"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "sent to followers (msg_id" in out
    assert "still going out" not in out

    assert main(["status", "--sandbox"]) == EXIT_OK
    status = capsys.readouterr().out
    assert "sending" not in status and "published" in status


def test_the_example_from_a_second_checkout_is_the_same_issue_and_takes_nothing_over(
    fresh_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = fresh_home / "one" / "ai-systems-48", fresh_home / "two" / "ai-systems-48"
    for folder in (first, second):
        shutil.copytree(EXAMPLE.parent, folder)
    assert main(["publish", str(first / "issue.md"), "--sandbox", "--mode", "publish"]) == EXIT_OK
    urls = [line.split()[-1] for line in capsys.readouterr().out.splitlines()[1:]]

    # The README's first command, run again in another clone: the same URLs, nothing sent.
    assert main(["publish", str(second / "issue.md"), "--sandbox", "--mode", "publish"]) == EXIT_OK
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [row.split()[2] for row in rows] == ["unchanged", "unchanged"]
    assert [row.split()[-1] for row in rows] == urls

    # The copy took nothing over: an edit of the second is another issue under the id,
    # refused, and the first file's own edit goes out.
    for folder in (second, first):
        edited = folder / "issue.md"
        edited.write_text(edited.read_text(encoding="utf-8") + "\n再补一句。\n", "utf-8")
    code = main(["publish", str(second / "issue.md"), "--sandbox", "--mode", "publish"])
    assert code == EXIT_BAD_INPUT
    assert f"already published from {first / 'issue.md'}" in capsys.readouterr().err
    code = main(["publish", str(first / "issue.md"), "--sandbox", "--mode", "publish"])
    assert code == EXIT_OK, capsys.readouterr()
