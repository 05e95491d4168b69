"""``crosspost ledger migrate`` and ``ledger export`` with input they cannot use.

A URL no server could make work (a port that is not one, no host, an unknown scheme or
option) is bad input: one line, exit 2, nothing written anywhere. A well-formed URL of a
server that does not answer stays exit 75 (run again later). ``export -o`` names a file:
a folder, a file already there, a path through a file or a place that cannot be written
each get one line saying what to do, and the file is never half-written.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import crosspost.ledger
from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_TEMPORARY
from crosspost.ledger.store import Ledger, PostKey


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state dir holding a ledger of one post, in a shell with none of the user's
    settings (so ``ledger_url`` is this SQLite file)."""
    for name in list(os.environ):
        if name.startswith(("CROSSPOST_", "PG", "XDG_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "state"
    with Ledger.open(folder / "ledger.sqlite3") as ledger:
        ledger.ensure(PostKey("ai-48", "wechat", "main"))
    return folder


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, (out, err)
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("postgresql://h:notaport/x", "the port 'notaport' is not a number from 1 to 65535"),
        ("postgresql://h:99999/x", "the port '99999' is not a number from 1 to 65535"),
        ("postgresql://h:0/x", "the port '0' is not a number"),
        ("postgresql://h/x?port=5432,x", "the port 'x' is not a number"),
        ("postgresql://u:s3cret@h:notaport/x", "postgresql://u:***@h:notaport/x: the port"),
        ("postgresql:///x", "names no host"),
        ("postgresql://", "names no host"),
        ("postgresql://u@:5432/x", "names no host"),
        ("postgresql://h/x?sslmode=bogus", "sslmode 'bogus' is not one of disable"),
        ("postgresql://h/x?nonsense=1", "is not a usable PostgreSQL URL"),
        ("postgresql://[::1/x", "is not a usable PostgreSQL URL"),
        ("mysql://h/x", "give a PostgreSQL URL, postgresql://USER@HOST:PORT/DATABASE"),
        ("h:5432/x", "give a PostgreSQL URL"),
    ],
)
def test_a_malformed_url_is_bad_input_and_nothing_is_written(
    state: Path, capsys: pytest.CaptureFixture[str], url: str, said: str
) -> None:
    before = sorted(p.name for p in state.parent.rglob("*"))
    assert main(["ledger", "migrate", "--to", url, "--state-dir", str(state)]) == EXIT_BAD_INPUT
    line = one_line(capsys)
    assert said in line and "s3cret" not in line
    assert "cannot be reached" not in line
    assert sorted(p.name for p in state.parent.rglob("*")) == before


def test_a_local_socket_named_by_host_is_a_host(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``?host=/folder`` (a Unix socket) names a host: well-formed, so a server that is
    not there is temporary (75), not bad input."""
    url = f"postgresql://crosspost@/ledger?host={state.parent}"
    assert main(["ledger", "migrate", "--to", url, "--state-dir", str(state)]) == EXIT_TEMPORARY
    assert "cannot be reached" in one_line(capsys)


def test_an_unreachable_well_formed_server_is_temporary(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = "postgresql://crosspost@127.0.0.1:1/ledger"
    assert main(["ledger", "migrate", "--to", url, "--state-dir", str(state)]) == EXIT_TEMPORARY
    assert "the PostgreSQL ledger cannot be reached" in one_line(capsys)


def test_export_to_a_folder_an_existing_file_or_through_a_file_is_refused(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = state.parent / "backups"
    folder.mkdir()
    export = ["ledger", "export", "--state-dir", str(state), "-o"]

    assert main([*export, str(folder)]) == EXIT_BAD_INPUT
    assert f"is a folder; give a file in it, e.g. -o {folder / 'ledger.jsonl'}" in one_line(capsys)
    assert list(folder.iterdir()) == []

    assert main([*export, ""]) == EXIT_BAD_INPUT
    assert "give a file name (or leave -o out" in one_line(capsys)

    target = folder / "ledger.jsonl"
    assert main([*export, str(target)]) == EXIT_OK
    assert capsys.readouterr() == ("", "")
    first = target.read_text("utf-8")
    assert '"issue_id": "ai-48"' in first
    target.write_text("the last good backup\n", "utf-8")
    assert main([*export, str(target)]) == EXIT_BAD_INPUT
    assert "the file exists; add --force to replace it" in one_line(capsys)
    assert target.read_text("utf-8") == "the last good backup\n"
    assert main([*export, str(target), "--force"]) == EXIT_OK
    assert target.read_text("utf-8") == first

    assert main([*export, str(target / "x.jsonl")]) == EXIT_BAD_INPUT
    assert f"{target} is a file, not a folder" in one_line(capsys)


def test_export_to_a_place_that_cannot_be_written_is_one_line(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """/proc takes no new files, whoever asks (root included)."""
    if not Path("/proc/self").exists():
        pytest.skip("no /proc on this system")
    target = "/proc/crosspost-export.jsonl"
    assert main(["ledger", "export", "--state-dir", str(state), "-o", target]) == EXIT_BAD_INPUT
    line = one_line(capsys)
    assert line.startswith(f"crosspost: error: {target}: cannot write the export (")
    assert "give -o a file in a folder this user can write to" in line
    assert ".tmp" not in line and "state dir" not in line


@pytest.mark.parametrize("command", [["ledger", "migrate", "--to"], ["status"]])
def test_a_postgresql_ledger_without_its_driver_says_how_to_install_it(
    state: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
) -> None:
    """The ``postgres`` extra not installed (the Quickstart's ``pip install .``): a
    ``postgresql://`` ledger is one line saying how to install the driver, exit 2, and
    not crosspost's internal-error report."""
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if psycopg were not installed
    monkeypatch.delitem(sys.modules, "crosspost.ledger.postgres", raising=False)
    monkeypatch.delattr(crosspost.ledger, "postgres", raising=False)  # imported by another test
    url = "postgresql://crosspost@db.example.internal/newsletter"
    if command[-1] == "--to":
        argv = [*command, url, "--state-dir", str(state)]
    else:
        monkeypatch.setenv("CROSSPOST_LEDGER_URL", url)
        argv = [*command, "--state-dir", str(state)]
    assert main(argv) == EXIT_BAD_INPUT
    line = one_line(capsys)
    assert "psycopg, is not installed" in line and "pip install '.[postgres]'" in line
    assert "internal error" not in line
