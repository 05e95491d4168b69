"""An issue body is parsed once per process: loader, lint and both renderers share it.

Parsing the Markdown was most of a warm ``check``; these tests count the real
``MarkdownIt.parse`` calls made on the example's body during whole commands, run
in-process as an editor runs them. Other texts (the 往期回顾 list, a theme's snippets)
may be parsed too; only parses of the issue body itself count.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from crosspost.cli import main
from crosspost.errors import EXIT_OK
from crosspost.issue.dialect import parse_document
from crosspost.issue.loader import load_issue
from crosspost.publish.hooks import MAX_SLEEP_VARIABLE

REPO_ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = "examples/ai-systems-48/issue.md"


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[str]]:
    """Every text ``MarkdownIt.parse`` is given, in order, from a process that has parsed
    nothing yet; in a fresh home, so no real configuration or state is read."""
    for name in ("CROSSPOST_CONFIG", "CROSSPOST_STATE_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CROSSPOST_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv(MAX_SLEEP_VARIABLE, "0")
    monkeypatch.chdir(REPO_ROOT)
    texts: list[str] = []
    real_parse = MarkdownIt.parse

    def counting_parse(self: MarkdownIt, src: str, env: object = None) -> object:
        texts.append(src)
        return real_parse(self, src, env)  # type: ignore[arg-type]

    monkeypatch.setattr(MarkdownIt, "parse", counting_parse)
    parse_document.cache_clear()  # earlier tests in this process parsed the example too
    yield texts
    parse_document.cache_clear()


def body_parses(texts: list[str]) -> int:
    body = load_issue(REPO_ROOT / EXAMPLE).body
    return sum(1 for text in texts if text == body)


def test_check_parses_the_example_once(parsed: list[str]) -> None:
    assert main(["check", EXAMPLE]) == EXIT_OK
    assert body_parses(parsed) == 1


def test_publish_to_the_sandbox_parses_the_example_once(
    parsed: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["publish", EXAMPLE, "--sandbox"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "https://zhuanlan.zhihu.com/p/" in out  # it really went through both channels
    assert body_parses(parsed) == 1


def test_renderers_work_on_copies_and_leave_the_shared_tokens_alone(
    parsed: list[str], tmp_path: Path
) -> None:
    issue = load_issue(REPO_ROOT / EXAMPLE)
    before = [token.as_dict() for token in issue.document.tokens]
    assert main(["render", EXAMPLE, "-o", str(tmp_path / "out")]) == EXIT_OK
    assert [token.as_dict() for token in issue.document.tokens] == before
    assert body_parses(parsed) == 1
