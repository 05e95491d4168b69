"""WeChat articles converted back to Markdown (wechat-article-exporter, html2text,
markdownify, turndown) and re-run in a newsletter: WeChat's own cards, its video frames
and the words of its article page. Nothing the article showed goes in silence, and
nothing of the page that is not the article comes along."""

from __future__ import annotations

import pytest

from crosspost.render.rendered import RenderContext, render
from rendering import CHANNELS, BodyWarnings, CheckLines, issue_of, shown, words

# --- WeChat's cards ------------------------------------------------------------------------

PROFILE = (
    '<mp-common-profile class="js_uneditable custom_select_card mp_profile_iframe" '
    'data-pluginname="mpprofile" data-nickname="AI前线" data-alias="ai-front" '
    'data-signature="面向 AI 开发者的技术资讯" data-id="MzA3MzI4MjgzMw=="></mp-common-profile>'
)
VIDEOSNAP = (
    '<mp-common-videosnap class="js_uneditable custom_select_card channels_iframe" '
    'data-pluginname="mpvideosnap" data-url="https://findermp.video.qq.com/abc" '
    'data-nickname="AI前线视频号" data-desc="大模型推理优化 3 分钟讲清楚" data-type="video">'
    "</mp-common-videosnap>"
)
MINIPROGRAM = (
    '<mp-miniprogram class="miniprogram_element" data-miniprogram-appid="wx1234567890abcdef" '
    'data-miniprogram-path="pages/index/index" data-miniprogram-title="AI 工具箱" '
    'data-miniprogram-type="card"></mp-miniprogram>'
)
OLD_PROFILE = (
    '<mpprofile class="js_uneditable custom_select_card mp_profile_iframe" '
    'data-pluginname="mpprofile" data-nickname="AI前线" data-from="0"></mpprofile>'
)
VOICE = (
    '<section style="text-align: center;"><mpvoice class="js_editor_audio audio_iframe" '
    'frameborder="0" voice_encode_fileid="MzA3MzI4MjgzM18yNjUw" name="第 1 期播客" '
    'play_length="600000" src="/cgi-bin/readtemplate?t=tmpl/audio_tmpl&amp;name=x">'
    "</mpvoice></section>"
)
CARDS = "\n\n".join(["甲段。", PROFILE, VIDEOSNAP, MINIPROGRAM, OLD_PROFILE, VOICE, "乙段。"])


@pytest.mark.parametrize("channel", CHANNELS)
def test_wechats_cards_are_lines_naming_what_they_were(channel: str) -> None:
    # Each went in silence: its words are in attributes, which no channel shows.
    seen = words(shown(CARDS, channel))
    for line in (
        "公众号名片：AI前线",
        "▶ 视频号：大模型推理优化 3 分钟讲清楚",
        "小程序：AI 工具箱",
    ):
        assert line in seen
    assert seen.count("公众号名片：AI前线") == 2  # the card, and WeChat's older one
    assert "🎧 音频：第 1 期播客" in seen
    assert (
        seen.index("甲段") < seen.index("公众号名片") < seen.index("🎧 音频") < seen.index("乙段")
    )


def test_a_channels_video_links_to_its_address() -> None:
    zhihu = render(issue_of(VIDEOSNAP), "zhihu", RenderContext()).files["zhihu.md"]
    assert "[▶ 视频号：大模型推理优化 3 分钟讲清楚](https://findermp.video.qq.com/abc)" in zhihu
    wechat = words(shown(VIDEOSNAP, "wechat"))  # an address off WeChat: a reference
    assert "▶ 视频号：大模型推理优化 3 分钟讲清楚[1]" in wechat
    assert "https://findermp.video.qq.com/abc" in wechat


@pytest.mark.parametrize(
    ("card", "line"),
    [
        # the title between its tags, when the attribute is missing
        (
            '<mp-miniprogram data-miniprogram-appid="wx1">AI 工具箱</mp-miniprogram>',
            "小程序：AI 工具箱",
        ),
        # newer audio: "insertaudio" names the plugin; the title is in its player's query
        (
            '<mp-common-mpaudio name="insertaudio" author="道真公共文化" '
            'src="/cgi-bin/readtemplate?t=tmpl/audio_tmpl&amp;name=%E7%88%B1%E4%B8%8A'
            '%E4%BB%A1%E5%B1%B1&amp;play_length=04:01"></mp-common-mpaudio>',
            "🎧 音频：爱上仡山",
        ),
        ('<mpvoice name="%E7%AC%AC%201%20%E6%9C%9F"></mpvoice>', "🎧 音频：第 1 期"),
        ("<mp-common-profile></mp-common-profile>", "公众号名片"),
    ],
)
def test_a_cards_words_are_read_where_wechat_keeps_them(card: str, line: str) -> None:
    for channel in CHANNELS:
        assert f"看这里：{line} 好。" in words(shown(f"看这里：{card} 好。", channel))


def test_check_warns_once_per_card_with_its_line(body_warnings: BodyWarnings) -> None:
    warned = body_warnings(CARDS)
    assert len(warned) == 5
    assert all("WeChat's own card" in w and "WeChat's editor" in w for w in warned)
    assert "issue.md:6: warning: <mp-common-profile> is WeChat's own card" in warned[0]
    assert "every channel shows the line '公众号名片：AI前线' in its place" in warned[0]
    assert "'▶ 视频号：大模型推理优化 3 分钟讲清楚', linking to its address," in warned[1]
    assert "'小程序：AI 工具箱'" in warned[2]
    assert "<mpprofile>" in warned[3] and "'🎧 音频：第 1 期播客'" in warned[4]
    # Not what it said before: that '<mpvoice>' was a typo to write as code.
    assert not [w for w in warned if "as code" in w]


def test_a_card_written_as_code_stays_code() -> None:
    body = f"`{PROFILE}`\n\n```html\n{OLD_PROFILE}\n```\n"
    for channel in CHANNELS:
        seen = words(shown(body, channel))
        assert "公众号名片" not in seen
        assert "data-nickname" in seen


# --- WeChat's video frames ---------------------------------------------------------------

WECHAT_VIDEO = (
    '<iframe class="video_iframe rich_pages" data-vidtype="2" data-mpvid="wxv_123456" '
    'allowfullscreen="" frameborder="0" data-src="https://mp.weixin.qq.com/mp/readtemplate?'
    't=pages/video_player_tmpl&amp;action=mpvideo&amp;auto=0&amp;vid=wxv_123456"></iframe>'
)
PLAYER = "https://mp.weixin.qq.com/mp/readtemplate?t=pages/video_player_tmpl&action=mpvideo&auto=0&vid=wxv_123456"


@pytest.mark.parametrize("body", [WECHAT_VIDEO, f"看视频 {WECHAT_VIDEO} 完。"])
def test_wechats_video_is_a_video_linking_to_its_player(body: str) -> None:
    # It was '▶ 嵌入内容' linking nowhere: its address is in data-src, read as for pictures.
    zhihu = render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]
    assert f"[▶ 视频]({PLAYER})" in zhihu
    wechat = shown(body, "wechat")  # mp.weixin.qq.com: a link WeChat keeps
    assert f'<a href="{PLAYER.replace("&", "&amp;")}">▶ 视频</a>' in wechat


def test_a_frame_loaded_by_its_page_shows_the_video_it_plays() -> None:
    body = (
        '<iframe src="about:blank" data-src="https://v.qq.com/iframe/preview.html?'
        'vid=k0012abcd&amp;width=500"></iframe>'
    )
    zhihu = render(issue_of(body), "zhihu", RenderContext()).files["zhihu.md"]
    assert "[▶ 视频](https://v.qq.com/x/page/k0012abcd.html)" in zhihu
    wechat = words(shown(body, "wechat"))  # off WeChat: a reference, as any link
    assert (
        "▶ 视频[1]" in wechat
        and "[1]&nbsp;▶ 视频: https://v.qq.com/x/page/k0012abcd.html" in wechat
    )


def test_check_says_what_a_wechat_video_becomes(check_lines: CheckLines) -> None:
    lines = check_lines(f"---\ntitle: t\n---\n{WECHAT_VIDEO}\n")
    wechat = next(line for line in lines if "[wechat]" in line and "video" in line)
    assert "a WeChat video" in wechat and "linking to its player page" in wechat
    assert "insert the video again in WeChat's editor" in wechat
    zhihu = next(line for line in lines if "[zhihu]" in line and "video" in line)
    assert "linking to its player page" in zhihu and "WeChat's editor" not in zhihu


@pytest.mark.parametrize(
    ("body", "label"),
    [
        ('<iframe class="video_iframe" data-mpvid="wxv_9"></iframe>', "▶ 视频"),
        ("<iframe></iframe>", "▶ 嵌入内容"),
    ],
)
def test_media_without_an_address_is_said_to_be_lost(
    body: str, label: str, check_lines: CheckLines
) -> None:
    # check said "it is shown as a line linking to its source": there was none.
    for channel in CHANNELS:
        html = shown(body, channel)
        assert f">{label}</p>" in html and "[1]" not in html and "<a" not in html
    lines = [
        line
        for line in check_lines(f"---\ntitle: t\n---\n{body}\n")
        if "html-not" in line or "names no address" in line
    ]
    assert len(lines) == 2
    for line in lines:
        assert "names no address" in line and f"only the line '{label}', linking nowhere" in line
        assert "linking to its source" not in line


# --- WeChat's page text ------------------------------------------------------------------

#: The end of a WeChat article through html2text (its page's furniture, as converters
#: write it: buttons as links to ``javascript:``, its bar one line or a line a word).
PAGE_TEXT = "\n\n".join(
    [
        "正文最后一段。",
        "扫码关注我们",
        "预览时标签不可点",
        "微信扫一扫  \n关注该公众号",
        "继续滑动看下一个",
        "轻触阅读原文",
        "![](http://mmbiz.qpic.cn/mmbiz_png/logo/0?wx_fmt=png)",
        "AI前线",
        "向上滑动看下一个",
        "知道了",
        "[Got It](javascript:;)",
        "![]()\n微信扫一扫\n使用小程序",
        "****",
        "[取消](javascript:void\\(0\\);) [允许](javascript:void\\(0\\);)",
        "× 分析",
        "![作者头像](http://mmbiz.qpic.cn/mmbiz_png/logo/0?wx_fmt=png)",
        "微信扫一扫可打开此内容，\n使用完整服务",
        "：\n，\n。\n视频\n小程序\n赞\n，轻点两下取消赞\n在看\n，轻点两下取消在看\n分享\n留言\n收藏\n听过",
    ]
)
#: The same in English, in one paragraph with the article's last line (a page read by a
#: tool that keeps its lines but no blank ones between them).
ENGLISH_PAGE_TEXT = "\n".join(
    [
        "[《实践：用 LangChain 开发一个 Agent》](https://mp.weixin.qq.com/s?__biz=Mzg2)",
        "预览时标签不可点",
        "Scan to Follow",
        "继续滑动看下一个",
        "轻触阅读原文",
        "叶小钗",
        "向上滑动看下一个",
        "[Got It](javascript:;)",
        "Scan with Weixin to use this Mini Program",
        "[Cancel](javascript:void\\(0\\);) [Allow](javascript:void\\(0\\);)",
        "× 分析",
        ":  ， ， ， . Video Mini Program Like ，轻点两下取消赞 Wow ，轻点两下取消在看 Share"
        " Comment Favorite 听过",
    ]
)
PAGE_WORDS = (
    "预览时标签不可点",
    "关注该公众号",
    "滑动看下一个",
    "轻触阅读原文",
    "知道了",
    "Got It",
    "取消",
    "允许",
    "分析",
    "轻点两下",
    "听过",
    "使用小程序",
    "Scan",
    "Like",
    "作者头像",
)


@pytest.mark.parametrize("channel", CHANNELS)
def test_wechats_page_text_is_left_out(channel: str) -> None:
    seen = words(shown(PAGE_TEXT, channel))
    assert "正文最后一段。" in seen and "扫码关注我们" in seen  # the writer's own lines
    assert "AI前线" in seen  # the account's name, between the page's words: its own
    assert not [word for word in PAGE_WORDS if word in seen]
    assert "<hr" not in shown(PAGE_TEXT, channel)  # html2text's '****' went with them


@pytest.mark.parametrize("channel", CHANNELS)
def test_page_text_in_the_articles_paragraph_leaves_its_lines_alone(channel: str) -> None:
    html = shown(ENGLISH_PAGE_TEXT, channel)
    seen = words(html)
    assert "《实践：用 LangChain 开发一个 Agent》" in seen and "叶小钗" in seen
    assert not [word for word in PAGE_WORDS if word in seen]
    assert "Agent》" in html.split("叶小钗")[0]


def test_zhihu_markdown_keeps_none_of_the_page_text() -> None:
    zhihu = render(issue_of(PAGE_TEXT), "zhihu", RenderContext()).files["zhihu.md"]
    assert zhihu.split() == [
        "正文最后一段。",
        "扫码关注我们",
        "![](http://mmbiz.qpic.cn/mmbiz_png/logo/0?wx_fmt=png)",
        "AI前线",
    ]


def test_check_names_the_page_text_lines_in_one_warning(body_warnings: BodyWarnings) -> None:
    warned = [w for w in body_warnings(PAGE_TEXT) if "page text" in w]
    assert warned == [
        "issue.md:8: warning: lines 8, 10, 11, 13, 15 and 24 more ('预览时标签不可点', "
        "'微信扫一扫', '关注该公众号', …) are WeChat's own page text, not the article: the "
        "page's buttons and prompts, copied with the article when it was saved; left out of "
        "every channel (write the words in a sentence if the article means them)"
    ]


@pytest.mark.parametrize(
    ("body", "kept"),
    [
        # a sentence that mentions them
        (
            "微信文章底部常见“预览时标签不可点”和“继续滑动看下一个”两行。\n",
            ["微信文章底部常见“预览时标签不可点”和“继续滑动看下一个”两行。"],
        ),
        # the page's short words, with no line of the page's own beside them
        ("他问：懂了吗？\n\n知道了\n\n分享\n", ["他问：懂了吗？", "知道了", "分享"]),
        # in code
        (
            "```\n预览时标签不可点\n知道了\n```\n\n    继续滑动看下一个\n\n`预览时标签不可点`\n",
            ["知道了", "继续滑动看下一个", "预览时标签不可点"],
        ),
        # a list's items, a heading: the article's
        (
            "- 预览时标签不可点\n- 知道了\n\n## 轻触阅读原文\n",
            ["预览时标签不可点", "知道了", "轻触阅读原文"],
        ),
        # a link that leads somewhere is the writer's
        (
            "预览时标签不可点\n\n继续滑动看下一个\n\n[阅读原文](https://example.com/post)\n",
            ["阅读原文"],
        ),
        # one line of it, quoted by a writer, is the writer's (two make the page's)
        ("微信里显示的提示是：\n\n轻触阅读原文\n", ["轻触阅读原文"]),
        ("预览时标签不可点\n\n分享\n\n收藏\n", ["预览时标签不可点", "分享", "收藏"]),
    ],
)
def test_only_whole_lines_of_page_text_are_left_out(body: str, kept: list[str]) -> None:
    for channel in CHANNELS:
        seen = words(shown(body, channel))
        assert [text for text in kept if text not in seen] == [], channel
    if "https://example.com/post" in body:
        assert "预览时标签不可点" not in words(shown(body, "zhihu"))
