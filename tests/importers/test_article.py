"""Saved WeChat and Zhihu article pages import with title, author, time, images and links."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PIL import Image

from crosspost.errors import IssueError
from crosspost.importers.article import import_article
from crosspost.issue import load_issue

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture()
def saved_wechat_page(tmp_path: Path) -> Path:
    page = tmp_path / "saved" / "wechat-saved.html"
    page.parent.mkdir()
    shutil.copyfile(FIXTURES / "wechat-saved.html", page)
    files = page.parent / "wechat-saved_files"
    files.mkdir()
    Image.new("RGB", (64, 32), "teal").save(files / "640.png")
    return page


def test_wechat_page_imports_metadata_body_images_and_links(
    saved_wechat_page: Path, tmp_path: Path
) -> None:
    output = tmp_path / "issues" / "ai-47.md"
    article = import_article(saved_wechat_page, output)
    output.write_text(article.document, encoding="utf-8")
    issue = load_issue(output)
    assert issue.title == "AI系统前沿动态 第47期"
    assert issue.author == "胡燕君"
    assert issue.source_url is not None and issue.source_url.startswith(
        "http://mp.weixin.qq.com/s?"
    )
    assert "first_published: '2022-11-28T08:02:00+08:00'" in article.document
    assert "本期介绍**分布式训练**的三篇论文。" in issue.body
    assert "[https://arxiv.org/abs/1234.5678](https://arxiv.org/abs/1234.5678)" in issue.body or (
        "<https://arxiv.org/abs/1234.5678>" in issue.body
    )
    assert "> 译注：参数服务器负责存放模型参数。" in issue.body
    # the image the browser saved is copied beside the issue and referenced relatively
    assert "![](images/640.png)" in issue.body
    assert (output.parent / "images" / "640.png").is_file()
    assert [p.name for p in article.images_copied] == ["640.png"]
    # the one it did not save is reported, not silently lost
    assert any("missing.jpg" in w for w in article.warnings)
    assert "var x" not in issue.body


def test_zhihu_page_imports_metadata_and_structure(tmp_path: Path) -> None:
    output = tmp_path / "zhihu.md"
    article = import_article(FIXTURES / "zhihu-saved.html", output)
    output.write_text(article.document, encoding="utf-8")
    issue = load_issue(output)
    assert issue.title == "深度学习硬件的过去、现在和未来"
    assert issue.author == "OneFlow"
    assert "first_published: '2022-11-28T10:15:00+00:00'" in article.document
    assert "![](https://pic1.zhimg.com/v2-abc_720w.jpg)" in issue.body
    assert "## 四个方向" in issue.body
    assert "1. 新的数字表示" in issue.body


def test_page_without_an_article_is_a_clear_error(tmp_path: Path) -> None:
    page = tmp_path / "empty.html"
    page.write_text("<html><body><p>nothing</p></body></html>", encoding="utf-8")
    with pytest.raises(IssueError, match="has no article body"):
        import_article(page, tmp_path / "out.md")
