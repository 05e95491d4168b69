"""Fixtures every test file may use: the repository, the shared folder, the example issue,
and a helper that writes a small issue document into ``tmp_path``.

Teammates add their own fixtures below the marked line (e.g. ``sandbox``); keep the ones
here stable, other test files depend on their names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from crosspost.check.lint import Problem
    from crosspost.sandbox.tls import Certificate
    from postgres_server import PostgresServer

REPO_ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config: pytest.Config) -> None:
    """Our own warnings fail the test that raises them.

    Registered here rather than in ``pyproject.toml``: an ini filter naming
    ``crosspost.errors.CrosspostWarning`` imports :mod:`crosspost.errors` while pytest
    loads its plugins, before coverage starts, and the module then reads as untested.
    """
    config.addinivalue_line("filterwarnings", "error::crosspost.errors.CrosspostWarning")


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A machine with no config and no real ledger, as an editor's first day: the state
    dir, HOME and the working folder are the test's own, polls do not pause, and status
    rows are whole whatever runs the tests."""
    from crosspost.commands.switches import MAX_SLEEP_VARIABLE

    for name in ("CROSSPOST_CONFIG", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "CROSSPOST_MODE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CROSSPOST_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv(MAX_SLEEP_VARIABLE, "0")
    monkeypatch.setenv("COLUMNS", "1000")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(autouse=True, scope="session")
def _template_cache_of_the_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Compiled templates go to a folder of this run, never the user's own cache (the
    processes tests start inherit it too)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache-home")))
    yield
    mp.undo()


#: A front matter that passes every check; tests override single fields.
MINIMAL_FRONT = "title: 测试一期\nauthor: 编辑部\ndigest: 一句话摘要\ncover: cover.jpg\n"

#: A body long enough for Zhihu's 9-character minimum, with nothing a channel refuses.
MINIMAL_BODY = "这是一段足够长的正文,用来通过知乎的最少字数检查。\n"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The checkout this test run belongs to."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``<repo>/../shared`` (specs, seeds, corpus); the test is skipped when it is absent."""
    shared = (REPO_ROOT / ".." / "shared").resolve()
    if not shared.is_dir():
        pytest.skip("../shared is not beside this checkout")
    return shared


@pytest.fixture(scope="session")
def example_issue() -> Path:
    """The seed issue as a canonical document, with its images."""
    return REPO_ROOT / "examples" / "ai-systems-48" / "issue.md"


def make_jpeg(path: Path, size: tuple[int, int] = (90, 38)) -> Path:
    """Write a small real JPEG (platforms and Pillow both accept it)."""
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, (40, 90, 160)).save(path, "JPEG")
    return path


WriteIssue = Callable[..., Path]


@pytest.fixture
def write_issue(tmp_path: Path) -> WriteIssue:
    """Write an issue file into ``tmp_path`` and return its path.

    ``write_issue(body=…, front=…, name="issue.md", raw=None)``: ``front`` is the YAML
    between the ``---`` lines (default: :data:`MINIMAL_FRONT`, whose ``cover.jpg`` is
    created), ``raw`` replaces the whole file (text or bytes) for loader tests.
    """

    def write(
        body: str = MINIMAL_BODY,
        front: str = MINIMAL_FRONT,
        name: str = "issue.md",
        raw: str | bytes | None = None,
    ) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        make_jpeg(tmp_path / "cover.jpg", (900, 383))
        if isinstance(raw, bytes):
            path.write_bytes(raw)
        else:
            path.write_text(raw if raw is not None else f"---\n{front}---\n{body}", "utf-8")
        return path

    return write


# --- fixtures of other teammates below this line ---------------------------------------


# --- the ledger on both engines (h18) ---------------------------------------------------


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL server for the session (see ``tests/postgres_server.py``)."""
    from postgres_server import start_server

    server = start_server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """The URL of an empty PostgreSQL database: a fresh ledger for one test."""
    return postgres_server.fresh_url()


@pytest.fixture(params=["sqlite", "postgresql"])
def ledger_target(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """Where a test's ledger lives, once per engine: a SQLite file or a PostgreSQL URL."""
    if request.param == "sqlite":
        return tmp_path / "state" / "ledger.sqlite3"
    return str(request.getfixturevalue("postgres_url"))


# --- a certificate for the TLS tests --------------------------------------------------


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    """A self-signed certificate for 127.0.0.1 (``crosspost.sandbox.tls``), made once."""
    from crosspost.errors import UsageError
    from crosspost.sandbox.tls import throwaway_certificate

    try:
        return throwaway_certificate(tmp_path_factory.mktemp("tls"))
    except UsageError as missing:
        pytest.skip(str(missing))


CheckLines = Callable[[str], list[str]]
BodyWarnings = Callable[[str], list[str]]


def _checked(tmp_path: Path, document: str) -> list[tuple[str, Problem]]:
    """Each problem ``check`` finds in a file holding ``document``, with its printed line
    (the file's path shortened to ``issue.md``)."""
    from crosspost.check.lint import check_file

    path = tmp_path / "issue.md"
    path.write_text(document, "utf-8")
    return [
        (str(problem).replace(str(path), "issue.md"), problem)
        for problem in check_file(path).problems
    ]


@pytest.fixture
def check_lines(tmp_path: Path) -> CheckLines:
    """``check_lines(document)``: every line ``check`` prints for a file holding exactly
    ``document`` (front matter and body)."""
    return lambda document: [line for line, _ in _checked(tmp_path, document)]


@pytest.fixture
def body_warnings(tmp_path: Path) -> BodyWarnings:
    """``body_warnings(body)``: the warnings ``check`` gives an issue of that body that are
    no one channel's (the source's own: constructs, raw HTML, invisible characters)."""

    def warnings(body: str) -> list[str]:
        found = _checked(tmp_path, "---\ntitle: 检查\n---\n" + body)
        return [
            line
            for line, problem in found
            if problem.severity == "warning" and problem.channel is None
        ]

    return warnings
