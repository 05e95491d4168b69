"""A real PostgreSQL server for the tests, started from Debian's server binaries.

One server per test session, in a temporary folder, listening only on a Unix socket in
that folder (no TCP port at all). The server refuses to run as root, so as root the
folder is handed to the ``postgres`` system user (or ``nobody``) and the server runs as
that user through ``runuser``. Each test gets a database of its own
(:meth:`PostgresServer.fresh_url`), so tests never see each other's posts.

Skipped with one line saying how to enable it when the binaries or the driver are
missing; ``CROSSPOST_REQUIRE_POSTGRES=1`` (set by ``.ci/run``) makes that a failure.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

REQUIRE = "CROSSPOST_REQUIRE_POSTGRES"
HOW = (
    "PostgreSQL tests need Debian's server (apt-get install postgresql) and the driver "
    "(pip install -e '.[postgres]'); set CROSSPOST_REQUIRE_POSTGRES=1 to make this a failure"
)


def unavailable(reason: str) -> None:
    """Skip (or fail, when required) with one line."""
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(f"{reason}; {REQUIRE}=1 requires the PostgreSQL tests", pytrace=False)
    pytest.skip(f"{reason}: {HOW}")


def driver_or_skip() -> None:
    """At the top of a test module that imports the driver: skip the module (one line)
    when it is missing, or fail when the PostgreSQL tests are required."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        if os.environ.get(REQUIRE) == "1":
            pytest.fail(f"the psycopg driver is not installed; {REQUIRE}=1", pytrace=False)
        pytest.skip(f"the psycopg driver is not installed: {HOW}", allow_module_level=True)


def _binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _server_user() -> str | None:
    """Who runs the server: None for this user, else a system user (we are root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    return None


class PostgresServer:
    """A throw-away cluster; :meth:`fresh_url` makes an empty database per test."""

    def __init__(self, bindir: Path, folder: Path, user: str | None) -> None:
        self.bindir = bindir
        self.folder = folder
        self.data = folder / "data"
        self.user = user
        self._numbers = itertools.count(1)

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.user is not None:
            command = ["runuser", "-u", self.user, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)

    def start(self) -> None:
        if self.user is not None:
            shutil.chown(self.folder, self.user)
        done = self._run(
            "initdb", "-D", str(self.data), "-U", "crosspost", "-A", "trust", "--no-sync",
            "-E", "UTF8", "--locale", "C",
        )  # fmt: skip
        if done.returncode:
            raise RuntimeError(f"initdb failed: {done.stderr.strip()}")
        options = (
            f"-k {self.folder} -c listen_addresses='' -c fsync=off -c synchronous_commit=off "
            "-c full_page_writes=off -c max_connections=200"
        )
        done = self._run(
            "pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"),
            "-w", "-t", "60", "start",
        )  # fmt: skip
        if done.returncode:
            log = (self.folder / "log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"pg_ctl start failed: {done.stderr.strip()}\n{log}")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://crosspost@/{database}?host={self.folder}"

    def fresh_url(self) -> str:
        """An empty database of its own (a test's ledger)."""
        import psycopg

        name = f"ledger_{os.getpid()}_{next(self._numbers)}"
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}")
        return self.url(name)


def start_server() -> PostgresServer:
    """Start a server, or skip/fail the test with one line (see the module docstring)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        unavailable("the psycopg driver is not installed")
    bindir = _binaries()
    if bindir is None:
        unavailable("no PostgreSQL server binaries (initdb) on this machine")
    assert bindir is not None
    user = _server_user()
    if os.geteuid() == 0 and user is None:
        unavailable("running as root with no postgres or nobody user to run the server")
    folder = Path(tempfile.mkdtemp(prefix="crosspost-pg-", dir="/tmp"))
    server = PostgresServer(bindir, folder, user)
    try:
        server.start()
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as error:
        shutil.rmtree(folder, ignore_errors=True)
        unavailable(f"the test PostgreSQL server did not start ({error})")
    return server
