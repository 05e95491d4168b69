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

from crosspost.check.lint import lint
from crosspost.cli import main
from crosspost.commands.switches import MAX_SLEEP_VARIABLE
from crosspost.errors import EXIT_OK
from crosspost.issue.dialect import parse_document
from crosspost.issue.loader import load_issue
from crosspost.issue.model import Issue
from crosspost.render.rendered import PreviousIssue, RenderContext, render

REPO_ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = "examples/ai-systems-48/issue.md"


@pytest.fixture
def texts(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every text ``MarkdownIt.parse`` is given, in order, from a process that has parsed
    nothing yet."""
    texts: list[str] = []
    real_parse = MarkdownIt.parse

    def counting_parse(self: MarkdownIt, src: str, env: object = None) -> object:
        texts.append(src)
        return real_parse(self, src, env)  # type: ignore[arg-type]

    monkeypatch.setattr(MarkdownIt, "parse", counting_parse)
    parse_document.cache_clear()  # earlier tests in this process parsed the example too
    yield texts
    parse_document.cache_clear()


@pytest.fixture
def parsed(
    texts: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[list[str]]:
    """:func:`texts` for a command run from the repository in a fresh home, so no real
    configuration or state is read."""
    for name in ("CROSSPOST_CONFIG", "CROSSPOST_STATE_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CROSSPOST_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv(MAX_SLEEP_VARIABLE, "0")
    monkeypatch.chdir(REPO_ROOT)
    yield texts


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


# --- one stream, a view per channel ----------------------------------------------------------


def issue_of(body: str, folder: Path = Path("/issues/p")) -> Issue:
    return Issue(path=folder / "issue.md", id="p", title="本期", body=body, body_line=1)


def test_only_blocks_are_cut_per_channel_from_the_one_parse(texts: list[str]) -> None:
    issue = issue_of(
        "共同的话\n\n::: only wechat\n只给微信\n:::\n\n::: only zhihu\n只给知乎\n:::\n"
    )
    wechat, zhihu = render(issue, "wechat"), render(issue, "zhihu")
    assert "只给微信" in wechat.body and "只给知乎" not in wechat.body
    assert "只给知乎" in zhihu.body and "只给微信" not in zhihu.body
    assert "只给知乎" in zhihu.files["zhihu.md"] and "只给微信" not in zhihu.files["zhihu.md"]
    assert texts.count(issue.body) == 1


def test_wechat_draws_a_formula_from_the_tex_written() -> None:
    # The one parse knows formulas, so Markdown inside one stays TeX: WeChat draws each
    # as an SVG labelled with its source, line breaks (\\) and all.
    body = "质能 $E = m*c^2*$ 与 $$a_1 \\\\ b_1$$ 两式\n\n$$\nx^2\n$$\n"
    html = render(issue_of(body), "wechat").body
    assert html.count("<svg") == 3 and "<em>" not in html
    assert 'aria-label="E = m*c^2*"' in html and 'aria-label="a_1 \\\\ b_1"' in html


def test_zhihus_previous_issues_follow_the_text_even_after_an_open_code_block(
    texts: list[str],
) -> None:
    issue = issue_of("正文\n\n```\nprint(1)\n")  # the fence is never closed
    previous = (PreviousIssue("p47", "第47期", "https://zhuanlan.zhihu.com/p/47"),)
    zhihu = render(issue, "zhihu", RenderContext(previous=previous))
    assert zhihu.body.endswith(
        '</pre><h2>往期回顾</h2><ul><li><a href="https://zhuanlan.zhihu.com/p/47">第47期</a></li></ul>'
    )
    assert texts.count(issue.body) == 1


def test_lint_names_an_image_as_the_issue_writes_it(tmp_path: Path) -> None:
    issue = issue_of("正文正文正文正文正文\n\n![图](<images/图 2.png>)\n", tmp_path)
    messages = [p.message for p in lint(issue, {"zhihu": render(issue, "zhihu")})]
    assert "image 'images/图 2.png' not found next to the issue; fix the path or add the file" in (
        messages
    )
