"""The WeChat emulator's quick look agrees with its full pass over an article's HTML.

``draft/add`` keeps an article's HTML as WeChat would: scripts and handlers removed,
images from other hosts dropped, outside links unlinked. Most articles need none of
that, and a quick look with lxml says so before the slower full pass runs; whatever the
quick look lets through unchanged, the full pass must also have left unchanged.
"""

from __future__ import annotations

import pytest

from crosspost.sandbox.box import Sandbox
from crosspost.sandbox.wechat import content
from crosspost.sandbox.wechat.wire import ApiError

MMBIZ = "http://mmbiz.qpic.cn/mmbiz_png/abc/0?wx_fmt=png"
ARTICLES = {
    "clean": f'<section style="color:#333"><p>正文 on top</p><img src="{MMBIZ}"></section>',
    "script": "<p>a</p><script>alert(1)</script><p>b</p>",
    "noscript": "<p>a</p><NoScript>x</NoScript>",
    "handler": f'<p>a</p><img src="{MMBIZ}" onerror="x()">',
    "bare handler": f'<img onload src="{MMBIZ}">',
    "javascript link": '<p><a href="JavaScript:void(0)">x</a></p>',
    "outside image": '<p><img src="https://example.org/a.png"></p>',
    "image without src": "<p><img alt=x></p>",
    "outside link": '<p><a href="https://example.org/">x</a></p>',
    "weixin link": '<p><a href="https://mp.weixin.qq.com/s/abc">x</a></p>',
    "prose about handlers": "<p>set on = true, only when onload = ready</p>",
    "broken markup": "<p>a<b>b</p><img src='x",
}


@pytest.mark.parametrize("links", ["unlink", "keep", "reject"])
@pytest.mark.parametrize("name", sorted(ARTICLES))
def test_the_quick_look_keeps_only_what_the_full_pass_keeps(
    name: str, links: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    box = Sandbox()  # built, not served: only its account's options are read
    box.wechat.update_options({"external_links": links})
    account = box.wechat.account
    html = ARTICLES[name]
    try:
        quick: str | int = content.sanitise(account, html)
    except ApiError as refused:
        quick = refused.errcode
    monkeypatch.setattr(content, "_kept_whole", lambda account, html: False)
    try:
        full: str | int = content.sanitise(account, html)
    except ApiError as refused:
        full = refused.errcode
    assert quick == full
    if content._MAYBE_ACTIVE.search(html) is None and name == "clean":
        assert quick == html  # the usual article comes back as it was sent
