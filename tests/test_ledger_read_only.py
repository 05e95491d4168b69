"""Commands that only read the ledger read one this user may not write, and change nothing.

The operator's trials: cron's user looking at a ledger root owns, a backup copy on
read-only media, a state dir mounted read-only. ``status``, ``urls`` and ``ledger export``
refused with exit 2 ("the ledger cannot be written"), so nobody could even see what was
posted. Now they open the ledger read-only (SQLite's ``mode=ro``, or ``immutable=1``
when no process has it open) and never migrate it; the commands that write refuse as
before.

The OS must really refuse the writes: as a user other than root, the files are made
read-only with chmod; as root, who ignores permissions, the commands run with the
capabilities that let root ignore them dropped (``setpriv``), which is what the kernel
does for any user. Tests that need neither run as they are: nothing the reader does
creates a file or changes a byte.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_TEMPORARY, ConfigError, StorageError
from crosspost.ledger.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, for_engine
from crosspost.ledger.store import Ledger, PostKey

ISSUE = "ai-48"
WECHAT = PostKey(ISSUE, "wechat", "main")
ZHIHU = PostKey(ISSUE, "zhihu", "main")
WECHAT_URL = "https://mp.weixin.qq.com/s/abc"
ZHIHU_URL = "https://zhuanlan.zhihu.com/p/123"
#: What lets root ignore file permissions; without them root is refused as anyone is.
_OVERRIDES = "-dac_override,-dac_read_search,-fowner,-linux_immutable"


def published(folder: Path) -> Path:
    """A ledger with the issue published on both channels, closed (no -wal, no -shm)."""
    path = folder / "ledger.sqlite3"
    with Ledger.open(path, clock=lambda: 1_795_000_000.0) as ledger:
        for key, url in ((WECHAT, WECHAT_URL), (ZHIHU, ZHIHU_URL)):
            ledger.ensure(key)
            ledger.record(key, state="published", url=url, published_at=1_795_000_000.0)
    assert sorted(os.listdir(folder)) == ["ledger.sqlite3"]
    return path


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file of the folder with its bytes and modification time."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A shell with none of the user's settings, in ``tmp_path``."""
    for name in list(os.environ):
        if name.startswith(("CROSSPOST_", "PG", "XDG_", "WECHAT_", "ZHIHU_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def refused_writer() -> list[str]:
    """How to run a command so that the OS refuses it what file permissions refuse:
    nothing more for a user other than root; for root, ``setpriv`` without the
    capabilities that override permissions. Skips when neither can be had."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: the OS would not refuse root a write")
    command = [setpriv, f"--bounding-set={_OVERRIDES}", "--", "true"]
    if subprocess.run(command, capture_output=True, check=False).returncode != 0:
        pytest.skip("setpriv cannot drop root's capabilities here (a container without it)")
    return command[:-1]


def crosspost(prefix: list[str], home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
        "HOME": str(home),
        "COLUMNS": "200",
    }
    return subprocess.run(
        [*prefix, sys.executable, "-m", "crosspost", *args],
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def locked_state(tmp_path: Path) -> Iterator[Path]:
    """A state dir whose ledger and folder are read-only (0444 and 0555), given back after."""
    folder = tmp_path / "state"
    folder.mkdir()
    path = published(folder)
    path.chmod(0o444)
    folder.chmod(0o555)
    yield folder
    folder.chmod(0o755)
    path.chmod(0o644)


def test_status_urls_and_export_read_a_ledger_the_os_will_not_let_them_write(
    locked_state: Path, tmp_path: Path
) -> None:
    prefix = refused_writer()
    before = snapshot(locked_state)
    state = ("--state-dir", str(locked_state))
    # the OS really refuses this user a write there: what the commands ran into before
    probe = crosspost(prefix, tmp_path, "urls", "--set", ISSUE, "-c", "wechat:main",
                      "https://mp.weixin.qq.com/s/other", *state)  # fmt: skip
    assert probe.returncode == EXIT_BAD_INPUT, probe.stderr
    assert f"{locked_state / 'ledger.sqlite3'}: the ledger cannot be written" in probe.stderr

    status = crosspost(prefix, tmp_path, "status", *state)
    assert status.returncode == EXIT_OK, status.stderr
    rows = status.stdout.splitlines()
    assert rows[0].split() == ["issue", "channel", "state", "when", "url", "/", "last", "error"]
    assert [row.split()[:3] + row.split()[-1:] for row in rows[1:]] == [
        [ISSUE, "wechat:main", "published", WECHAT_URL],
        [ISSUE, "zhihu:main", "published", ZHIHU_URL],
    ]
    urls = crosspost(prefix, tmp_path, "urls", ISSUE, *state)
    assert (urls.returncode, urls.stdout, urls.stderr) == (
        EXIT_OK,
        f"{WECHAT_URL}\n{ZHIHU_URL}\n",
        "",
    )
    export = crosspost(prefix, tmp_path, "ledger", "export", *state)
    assert export.returncode == EXIT_OK, export.stderr
    assert export.stdout.count('"table": "posts"') == 2 and WECHAT_URL in export.stdout
    assert snapshot(locked_state) == before, "a reader created or changed a file"


def test_reading_creates_no_file_and_changes_no_byte(shell: Path) -> None:
    """Root ignores permissions, so this is what ``mode=ro`` promises whoever runs it: no
    ``-wal``, no ``-shm`` (a root reader's would stop the cron user's next write), the
    file's bytes and time as they were; and a write through it is refused as a bug."""
    folder = shell / "state"
    folder.mkdir()
    path = published(folder)
    before = snapshot(folder)

    assert main(["status", "--state-dir", str(folder)]) == EXIT_OK
    assert main(["urls", ISSUE, "--state-dir", str(folder)]) == EXIT_OK
    assert main(["ledger", "export", "--state-dir", str(folder)]) == EXIT_OK
    with Ledger.open(path, read_only=True) as ledger:
        assert ledger.read_only and [p.url for p in ledger.posts(ISSUE)] == [WECHAT_URL, ZHIHU_URL]
        with pytest.raises(RuntimeError, match="opened to read only"):
            ledger.record(WECHAT, url="https://mp.weixin.qq.com/s/other")
        with pytest.raises(StorageError, match="attempt to write a readonly database"):
            ledger._db.execute("DELETE FROM main.posts")
    assert snapshot(folder) == before


def test_a_reader_sees_what_a_running_writer_committed(tmp_path: Path) -> None:
    """While a run has the ledger open (its -shm is there), the reader shares its log:
    a commit not yet checkpointed into the file is seen."""
    path = published(tmp_path)
    with Ledger.open(path) as writer:
        writer.record(ZHIHU, url="https://zhuanlan.zhihu.com/p/456")
        assert path.with_name("ledger.sqlite3-shm").exists()
        with Ledger.open(path, read_only=True) as reader:
            post = reader.get(ZHIHU)
            assert post is not None and post.url == "https://zhuanlan.zhihu.com/p/456"
            writer.record(ZHIHU, url="https://zhuanlan.zhihu.com/p/789")
            post = reader.get(ZHIHU)
            assert post is not None and post.url == "https://zhuanlan.zhihu.com/p/789"


def old_ledger(path: Path, version: int) -> None:
    """A ledger as a crosspost of schema ``version`` left it (its migrations only)."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    for statements in MIGRATIONS[:version]:
        for statement in statements:
            db.execute(for_engine(statement, "sqlite"))
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute(f"PRAGMA user_version = {version}")
    db.close()


@pytest.mark.parametrize("version", [1, 5])
def test_an_older_ledger_is_read_as_it_is_and_not_migrated(
    shell: Path, capsys: pytest.CaptureFixture[str], version: int
) -> None:
    folder = shell / "state"
    folder.mkdir()
    path = folder / "ledger.sqlite3"
    old_ledger(path, version)
    db = sqlite3.connect(path)
    temporary = "https://mp.weixin.qq.com/s?__biz=x&mid=1&tempkey=abc"
    for key, url in ((WECHAT, temporary if version < 2 else WECHAT_URL), (ZHIHU, ZHIHU_URL)):
        db.execute(
            "INSERT INTO posts (issue_id, channel, account, state, url, article_id, "
            "created_at, updated_at, published_at) VALUES (?, ?, ?, 'published', ?, '2247', "
            "1, 1, 1)",
            (*(key.issue_id, key.channel, key.account), url),
        )
    db.commit()
    db.close()
    before = snapshot(folder)

    assert main(["status", "--state-dir", str(folder)]) == EXIT_OK
    rows = capsys.readouterr().out.splitlines()[1:]
    if version < 2:  # a link that expires was never the post's URL (migration 2's rule)
        assert rows[0].split()[2:3] + rows[0].split()[-2:] == ["published", "URL", "pending"]
    else:
        assert rows[0].split()[-1] == WECHAT_URL
    assert rows[1].split()[-1] == ZHIHU_URL
    assert main(["ledger", "export", "--state-dir", str(folder)]) == EXIT_OK
    assert '"account_identity": null' in capsys.readouterr().out
    with Ledger.open(path, read_only=True) as ledger:
        assert ledger.schema_version == version  # read as it is, not migrated
        assert ledger.broadcasts("wechat", "main", 0.0) == ()
    assert snapshot(folder) == before

    with Ledger.open(path) as ledger:  # a command that writes migrates it, as before
        assert ledger.schema_version == SCHEMA_VERSION


def test_a_newer_or_foreign_ledger_is_refused_read_only_too(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    old_ledger(path, SCHEMA_VERSION)
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    with pytest.raises(ConfigError, match="was written by a newer crosspost"):
        Ledger.open(path, read_only=True)
    other = tmp_path / "other.sqlite3"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE notes (x)")
    db.commit()
    db.close()
    with pytest.raises(ConfigError, match="not a crosspost ledger"):
        Ledger.open(other, read_only=True)


def test_a_ledger_this_user_may_not_read_is_one_line_saying_so(
    locked_state: Path, tmp_path: Path
) -> None:
    prefix = refused_writer()
    ledger = locked_state / "ledger.sqlite3"
    locked_state.chmod(0o755)
    ledger.chmod(0o000)
    try:
        status = crosspost(prefix, tmp_path, "status", "--state-dir", str(locked_state))
    finally:
        ledger.chmod(0o444)
    assert status.returncode == EXIT_BAD_INPUT
    assert status.stderr == (
        f"crosspost: error: {ledger}: the ledger cannot be read (unable to open database "
        "file); make the file readable for this user (and its folder searchable), or point "
        "CROSSPOST_STATE_DIR / --state-dir at a copy\n"
    )


def test_a_file_changed_under_a_read_without_locks_is_read_again_not_thrown_away(
    tmp_path: Path,
) -> None:
    """Opened ``immutable=1`` (no run had the ledger open), a run that checkpoints into the
    file during the read can make a page look damaged: the line says to read again, not
    to move a good ledger aside."""
    path = published(tmp_path)
    with Ledger.open(path, read_only=True) as reader:
        size = path.stat().st_size
        with path.open("r+b") as file:  # pages rewritten under the reader
            file.seek(4096)
            file.write(b"\xff" * (size - 4096))
        with pytest.raises(StorageError) as changed:
            reader.posts()
    assert changed.value.exit_code == EXIT_TEMPORARY
    assert str(changed.value) == (
        f"{path}: the ledger changed while it was read (database disk image is malformed); "
        "run the command again (a crosspost run was writing to it)"
    )


def test_a_schema_6_ledger_read_only_says_what_its_digests_are_of_as_migration_7_will(
    shell: Path,
) -> None:
    """A reader of a schema-6 ledger shows each post's account as migration 7 leaves it
    (the digest of the AppID, or of a z_c0), not as of nothing known: one ledger, one
    story, whether it was read before or after a writer migrated it."""
    folder = shell / "state"
    folder.mkdir()
    path = folder / "ledger.sqlite3"
    old_ledger(path, 6)
    db = sqlite3.connect(path)
    for key, identity in ((WECHAT, "aaaaaaaaaaaaaaaa"), (ZHIHU, "bbbbbbbbbbbbbbbb")):
        db.execute(
            "INSERT INTO posts (issue_id, channel, account, state, account_identity, "
            "created_at, updated_at) VALUES (?, ?, ?, 'published', ?, 1, 1)",
            (*(key.issue_id, key.channel, key.account), identity),
        )
    db.execute(
        "INSERT INTO posts (issue_id, channel, account, state, created_at, updated_at) "
        "VALUES ('older', 'zhihu', 'main', 'published', 1, 1)"
    )
    db.commit()
    db.close()

    def kinds(ledger: Ledger) -> dict[str, str | None]:
        return {f"{p.issue_id} {p.channel}": p.identity_kind for p in ledger.posts()}

    with Ledger.open(path, read_only=True) as ledger:
        assert ledger.schema_version == 6
        read = kinds(ledger)
    with Ledger.open(path) as ledger:
        assert ledger.schema_version == SCHEMA_VERSION
        assert kinds(ledger) == read
    assert set(read.values()) == {"app_id", "z_c0", None}
