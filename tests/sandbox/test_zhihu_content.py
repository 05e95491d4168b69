"""What the Zhihu sandbox keeps of published HTML, and the flags it raises (spec §7, §12)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from crosspost.sandbox.box import ManualClock, Sandbox
from crosspost.sandbox.zhihu.content import clean

GOOD_TABLE = (
    '<table data-draft-node="block" data-draft-type="table" data-size="normal">'
    "<tbody><tr><th>年份</th></tr><tr><td>2017</td></tr></tbody></table>"
)
# Attributes in alphabetical order: that is how the emulator writes HTML back.
IMAGE = '<img data-caption="图" data-rawwidth="600" src="https://pic4.zhimg.com/v2-abc.png">'
MATH = '<img alt="x^2" eeimg="2" src="//www.zhihu.com/equation?tex=x%5E2">'


@pytest.mark.parametrize(
    "html",
    [
        "<p>正文<b>粗</b><i>斜</i><u>下划线</u><code>x</code></p>",
        '<pre lang="python">print(1)</pre>',
        GOOD_TABLE,
        IMAGE.replace(">", "/>"),
        MATH.replace(">", "/>"),
        '<p>见<sup data-draft-type="reference" data-numero="1" data-text="t">[1]</sup></p>',
        '<a data-draft-node="block" data-draft-title="T" data-draft-type="link-card" '
        'href="https://example.org">T</a>',
        "<h2>一级</h2><h3>二级</h3><blockquote>引用</blockquote><hr/><ul><li>a</li></ul>",
    ],
)
def test_zhihus_own_dialect_passes_untouched(html: str) -> None:
    cleaned = clean(html)
    assert cleaned.flags == ()
    assert cleaned.html == html


@pytest.mark.parametrize(
    ("html", "kept", "flag"),
    [
        ("<p>a</p>\n<p>b</p>", "<p>a</p>\n<p>b</p>", "newline between block elements"),
        ("<p><del>旧</del>新</p>", "<p>旧新</p>", "strikethrough"),
        ("<p>a<script>alert(1)</script></p>", "<p>a</p>", "<script> was removed"),
        ('<p style="color:red" class="x">a</p>', "<p>a</p>", "style= attributes"),
        ("<div><span>文字</span></div>", "文字", "<div> is not in Zhihu's element set"),
        ("<table><tbody><tr><td>x</td></tr></tbody></table>", "", "data-draft-type"),
        (GOOD_TABLE.replace("<tbody>", "<colgroup><col></colgroup><tbody>"), "", "<colgroup>"),
        (
            '<img src="https://example.org/a.png">',
            '<img src="https://example.org/a.png"/>',
            "zhimg",
        ),
        ("<p></p>", "<p></p>", "empty <p></p>"),
        (
            GOOD_TABLE.replace("2017", '<a href="https://e.org">2017</a>'),
            GOOD_TABLE,
            "a link in a table cell keeps only its words",
        ),
        ('<ol start="7"><li>seven</li></ol>', "<ol><li>seven</li></ol>", "from 1"),
        (
            '<p><a data-draft-type="link-card" href="https://e.org">T</a></p>',
            '<p><a data-draft-type="link-card" href="https://e.org">T</a></p>',
            "link card inside <p>",
        ),
    ],
)
def test_what_zhihu_would_drop_is_dropped_and_flagged(html: str, kept: str, flag: str) -> None:
    cleaned = clean(html)
    assert cleaned.html == kept
    assert any(flag in line for line in cleaned.flags), cleaned.flags


@pytest.fixture
def box() -> Iterator[Sandbox]:
    clock = ManualClock()
    with Sandbox(clock=clock, sleep=clock.sleep) as sandbox:
        yield sandbox


def publish(box: Sandbox, content: str) -> dict[str, Any]:
    web = requests.Session()
    web.headers["Cookie"] = f"z_c0={box.zhihu.credentials()['z_c0']}"
    base = box.zhihu_url
    draft = web.post(f"{base}/api/articles/drafts", json={"title": "标题"}, timeout=5).json()
    data = {"draft": {"id": draft["id"]}, "hybridInfo": {}, "hybrid": {"html": content}}
    answer = web.post(
        f"{base}/api/v4/content/publish", json={"action": "article", "data": data}, timeout=5
    )
    assert answer.json()["code"] == 0, answer.text
    return dict(web.get(f"{base}/api/v4/articles/{draft['id']}", timeout=5).json())


def test_readers_get_the_cleaned_article_and_the_snapshot_says_why(box: Sandbox) -> None:
    sent = '<p>足够长的一段正文<span style="x">内容</span></p><img src="http://localhost/a.png">'
    article = publish(box, sent)
    assert article["content"] == '<p>足够长的一段正文内容</p><img src="http://localhost/a.png"/>'
    [stored] = box.zhihu.snapshot()["articles"]
    assert any("zhimg.com" in flag for flag in stored["flags"])
    assert box.zhihu.snapshot()["drafts"][0]["content"] == sent  # the draft keeps what was sent


def test_a_body_that_is_only_markup_zhihu_drops_is_too_short(box: Sandbox) -> None:
    web = requests.Session()
    web.headers["Cookie"] = f"z_c0={box.zhihu.credentials()['z_c0']}"
    draft = web.post(f"{box.zhihu_url}/api/articles/drafts", json={"title": "T"}, timeout=5)
    html = "<p>短</p><script>document.write('很长很长很长很长的脚本内容')</script>"
    data = {"draft": {"id": draft.json()["id"]}, "hybridInfo": {}, "hybrid": {"html": html}}
    answer = web.post(
        f"{box.zhihu_url}/api/v4/content/publish",
        json={"action": "article", "data": data},
        timeout=5,
    )
    assert answer.json()["code"] == 1
