"""Saved WeChat and Zhihu article pages import with title, author, time, images and links."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PIL import Image

from crosspost.errors import IssueError
from crosspost.importers.article import import_article
from crosspost.issue.loader import load_issue

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
    # The figure's caption is the picture's, not a paragraph of its own under it.
    assert '![](https://pic1.zhimg.com/v2-abc_720w.jpg "演讲现场")' in issue.body
    assert "\n演讲现场\n" not in issue.body
    assert "## 四个方向" in issue.body
    assert "1. 新的数字表示" in issue.body


def test_page_without_an_article_is_a_clear_error(tmp_path: Path) -> None:
    page = tmp_path / "empty.html"
    page.write_text("<html><body><p>nothing</p></body></html>", encoding="utf-8")
    with pytest.raises(IssueError, match="has no article body"):
        import_article(page, tmp_path / "out.md")


def _page(folder: Path, name: str, image: str, colour: str) -> Path:
    """A saved WeChat page whose one image is ``<name>_files/<image>`` in ``colour``."""
    files = folder / f"{name}_files"
    files.mkdir(parents=True)
    Image.new("RGB", (8, 8), colour).save(files / image)
    page = folder / f"{name}.html"
    page.write_text(
        f'<html><body><h1 id="activity-name">{name}</h1><div id="js_content">'
        f'<p>正文</p><img src="{name}_files/{image}"></div></body></html>',
        encoding="utf-8",
    )
    return page


def test_a_second_article_with_a_same_named_picture_keeps_its_own(tmp_path: Path) -> None:
    issues = tmp_path / "issues"
    first = import_article(_page(tmp_path, "one", "640.png", "red"), issues / "one.md")
    second = import_article(_page(tmp_path, "two", "640.png", "blue"), issues / "two.md")
    assert "![](images/640.png)" in first.document
    (copy,) = second.images_copied
    assert copy.name != "640.png" and f"![](images/{copy.name})" in second.document
    assert Image.open(copy).getpixel((0, 0)) == (0, 0, 255)
    assert Image.open(issues / "images" / "640.png").getpixel((0, 0)) == (255, 0, 0)
    again = import_article(tmp_path / "two.html", issues / "two.md")
    assert again.images_copied == ()  # the same picture is already there: nothing copied
    assert f"![](images/{copy.name})" in again.document


def test_a_gbk_page_with_meta_charset_imports_as_readable_chinese(tmp_path: Path) -> None:
    page = tmp_path / "gbk.html"
    html = (
        '<html><head><meta charset="gb2312"><title>x</title></head><body>'
        '<h1 id="activity-name">深度学习周刊</h1><div id="js_content"><p>分布式训练的论文。</p>'
        "</div></body></html>"
    )
    page.write_bytes(html.encode("gbk"))
    article = import_article(page, tmp_path / "out.md")
    assert "title: 深度学习周刊" in article.document
    assert "分布式训练的论文。" in article.document


def test_a_page_that_is_not_utf8_and_declares_nothing_is_one_clear_error(
    tmp_path: Path,
) -> None:
    page = tmp_path / "bad.html"
    page.write_bytes('<div id="js_content"><p>分布式</p></div>'.encode("gbk"))
    with pytest.raises(IssueError, match=r"is not valid utf-8 text .*save the page again as UTF-8"):
        import_article(page, tmp_path / "out.md")
