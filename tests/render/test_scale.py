"""A long issue is parsed, rendered and linted in time proportional to its length.

The time itself is measured by ``bench/bench_render.py``; what is tested here is the
cause that made it grow faster than the issue: Python's cyclic collector walking the
render's live trees again and again. A render runs with the collector paused, and
leaves it as it found it. So do the parse and lint, which hold the whole issue too.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from crosspost.check.lint import lint
from crosspost.issue.collector import collector_paused
from crosspost.issue.dialect import parse_document
from crosspost.issue.loader import load_issue
from crosspost.issue.model import Issue
from crosspost.render.rendered import RenderContext, render
from crosspost.render.zhihu.document import plain_text


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generation of every collection the interpreter runs while the test does."""
    seen: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(count)
    yield seen
    gc.callbacks.remove(count)


@pytest.fixture
def long_issue(tmp_path: Path) -> Path:
    """200 items, each a heading, a line, a link, a list and a code block."""
    items = [
        f"## {k}. item {k}\n\n第{k}条,text of item {k}。\n\n链接:<https://example.com/{k}>\n\n"
        f"- one\n- two\n\n```python\nprint({k})\n```\n"
        for k in range(1, 201)
    ]
    path = tmp_path / "issue.md"
    path.write_text('---\ntitle: "long"\n---\n\n' + "\n".join(items), encoding="utf-8")
    return path


@pytest.mark.parametrize("channel", ["wechat", "zhihu"])
def test_a_render_runs_no_collection_and_leaves_the_collector_on(
    channel: str, long_issue: Path, collections: list[int]
) -> None:
    issue = load_issue(long_issue)
    render(issue, channel, RenderContext())  # first render: imports, theme, templates
    gc.collect()
    collections.clear()
    rendered = render(issue, channel, RenderContext())
    assert "item 200" in rendered.body
    # Thousands of objects allocated (hundreds of collections with the collector on);
    # at most one collection, as the pause ends: the one that frees the render's cycles.
    assert len(collections) <= 1, collections
    assert gc.isenabled()


def test_the_parse_and_lint_of_a_long_issue_run_no_collection_either(
    long_issue: Path, collections: list[int]
) -> None:
    issue = load_issue(long_issue)
    rendered = {channel: render(issue, channel) for channel in ("wechat", "zhihu")}
    lint(issue, rendered)
    body = issue.body + "\n\nOne more line, so that the body is parsed again.\n"
    gc.collect()
    collections.clear()
    assert len(parse_document(body).tokens) > 2000
    assert len(collections) <= 1, collections
    gc.collect()
    collections.clear()
    assert lint(issue, rendered)  # a digest missing, a cover, …
    assert len(collections) <= 1, collections
    assert gc.isenabled()


def test_a_process_that_turned_the_collector_off_keeps_it_off(long_issue: Path) -> None:
    gc.disable()
    try:
        render(load_issue(long_issue), "zhihu", RenderContext())
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_nested_and_concurrent_pauses_resume_the_collector_once_the_last_ends() -> None:
    inside, release = threading.Event(), threading.Event()

    def other_render() -> None:
        with collector_paused():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=other_render)
    with collector_paused():
        thread.start()
        assert inside.wait(10)
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still holds
    assert not gc.isenabled()  # the thread's render is still under way
    release.set()
    thread.join(10)
    assert gc.isenabled()


def test_a_start_up_pause_ends_with_its_grace_unless_a_render_still_holds_it() -> None:
    """A block still open when the grace ends (a render in another thread) keeps the
    collector paused until that block ends."""
    inside, release = threading.Event(), threading.Event()

    def long_render() -> None:
        with collector_paused():
            inside.set()
            release.wait(10)

    collector_paused.for_seconds(0.0).join(10)
    assert gc.isenabled()  # the grace is over and nothing else holds the pause

    grace = collector_paused.for_seconds(3600.0)
    assert not gc.isenabled()
    thread = threading.Thread(target=long_render)
    thread.start()
    assert inside.wait(10)
    grace.cancel()
    grace.function()  # the grace ends (the timer's own call) while the render runs
    assert not gc.isenabled()
    release.set()
    thread.join(10)
    assert gc.isenabled()


def test_the_program_starts_without_the_collector_and_a_long_run_gets_it_back() -> None:
    """``crosspost`` itself (``cli.run``) pauses the collector for its start-up; when
    the grace ends, the command still running has it again."""
    import subprocess
    import sys

    script = (
        "import gc, threading\n"
        "from crosspost import cli\n"
        "def main(argv=None):\n"
        "    first = gc.isenabled()\n"
        "    (grace,) = [t for t in threading.enumerate() if isinstance(t, threading.Timer)]\n"
        "    grace.cancel()\n"
        "    grace.function()\n"
        "    print(first, gc.isenabled(), grace.interval)\n"
        "    return 0\n"
        "cli.main = main\n"
        "cli.run()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["False", "True", "2.0"]


def test_an_error_in_a_render_still_resumes_the_collector() -> None:
    with pytest.raises(KeyError), collector_paused():
        raise KeyError("a renderer's bug")
    assert gc.isenabled()


def test_uploaded_urls_are_swapped_in_one_pass_over_the_body() -> None:
    issue_text = "![a](a.png)\n\n![b](b.png)\n\n![a again](a.png)\n"
    issue = Issue(path=Path("/issues/t/issue.md"), id="t", title="t", body=issue_text, body_line=1)
    rendered = render(issue, "zhihu")
    # One pass: a URL that happens to be another image's source is not swapped again,
    # as a replace per image did.
    swapped = rendered.with_image_urls({"a.png": "b.png", "b.png": "https://pic.zhimg.com/b"})
    assert swapped.body.count('src="b.png"') == 2 * 2  # src and data-original-src, twice
    assert swapped.body.count('src="https://pic.zhimg.com/b"') == 2
    assert rendered.with_image_urls({}) is rendered


def test_the_text_of_a_zhihu_body_with_thousands_of_images_and_formulas() -> None:
    body = "".join(
        f'<p>第{k}段 <img eeimg="1" alt="x_{k}"> 后<img src="f{k}.png" data-size="normal"></p>'
        for k in range(3000)
    )
    assert plain_text(body) == "".join(f"第{k}段 x_{k} 后" for k in range(3000))
    assert plain_text("  ") == ""


@pytest.mark.parametrize("channel", ["wechat", "zhihu"])
def test_a_paragraph_of_thousands_of_lines_joins_each_break_by_its_neighbours(
    channel: str,
) -> None:
    lines = [f"第{k}行" if k % 3 else f"**line** {k}" for k in range(3000)]
    issue = Issue(
        path=Path("/issues/t/issue.md"), id="t", title="t", body="\n".join(lines), body_line=1
    )
    body = render(issue, channel).body
    assert "第1行第2行" in body  # between two CJK characters: nothing
    assert "第2行 <" in body  # CJK, then Latin (past the bold's tag): a space
    assert "2997 第2998行第2999行" in body


def test_each_of_thousands_of_raw_tags_a_channel_drops_is_named_on_its_own_line(
    tmp_path: Path,
) -> None:
    paragraphs = [f"<p><input value={k}> 第{k}段</p>" for k in range(2000)]
    path = tmp_path / "issue.md"
    path.write_text('---\ntitle: "t"\n---\n' + "\n\n".join(paragraphs), encoding="utf-8")
    issue = load_issue(path)
    rendered = {channel: render(issue, channel) for channel in ("wechat", "zhihu")}
    found = [p for p in lint(issue, rendered) if p.code == "html-not-shown"]
    assert len(found) == 2 * 2000  # each tag, for each channel
    assert sorted({p.line for p in found})[-1] == 4 + 2 * 1999  # the last paragraph's line


def test_a_zhihu_render_leaves_no_syntax_tree_for_the_collector(long_issue: Path) -> None:
    issue = load_issue(long_issue)
    render(issue, "zhihu")
    gc.collect()
    gc.disable()
    try:
        render(issue, "zhihu")
        freed = gc.collect(0)  # what only the cyclic collector could free
    finally:
        gc.enable()
    assert freed < 5 * 200, freed  # was about a hundred objects per item
