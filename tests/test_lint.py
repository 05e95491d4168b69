"""Lint: each platform limit is caught before anything is sent, with the line to fix.

Every case goes through :func:`check_file`, so the real loader and both real renderers run;
the assertions are on the problems an editor would read.
"""

from __future__ import annotations

import base64
import io
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from crosspost.check.lint import ERROR, INFO, WARNING, Checked, Problem, check_file
from crosspost.platforms.registry import platform

WriteIssue = Callable[..., Path]

FRONT = "title: 测试一期\nauthor: 编辑部\ndigest: 一句话摘要\ncover: cover.jpg\n"
BODY = "这是一段足够长的正文,用来通过知乎的最少字数检查。\n"


def codes(checked: Checked, severity: str | None = None) -> set[tuple[str | None, str]]:
    """(channel, code) of every problem, optionally of one severity."""
    return {(p.channel, p.code) for p in checked.problems if severity in (None, p.severity)}


def only(checked: Checked, code: str) -> Problem:
    found = [p for p in checked.problems if p.code == code]
    assert len(found) == 1, checked.problems
    return found[0]


def test_example_issue_has_no_errors(example_issue: Path) -> None:
    checked = check_file(example_issue)
    assert checked.errors == ()
    assert set(checked.rendered) == {"wechat", "zhihu"}
    # The WeChat body is measured as sent: the whole HTML string, under 20,000 characters.
    assert len(checked.rendered["wechat"].body) < 20_000


def test_clean_issue_has_no_problems(write_issue: WriteIssue) -> None:
    checked = check_file(write_issue())
    assert checked.problems == ()


def test_wechat_title_past_64_characters_is_an_error(write_issue: WriteIssue) -> None:
    checked = check_file(write_issue(front=FRONT.replace("测试一期", "一" * 65)))
    problem = only(checked, "title-too-long")
    assert (problem.channel, problem.line, problem.severity) == ("wechat", 2, ERROR)
    assert problem.message.startswith("title has 65 characters, wechat allows 64")
    assert "set 'wechat: {title: …}'" in problem.message


def test_wechat_title_past_64_bytes_is_a_warning_citing_its_evidence(
    write_issue: WriteIssue,
) -> None:
    checked = check_file(write_issue(front=FRONT.replace("测试一期", "标题" * 11)))
    problem = only(checked, "title-too-long")
    assert (problem.channel, problem.line, problem.severity) == ("wechat", 2, WARNING)
    assert problem.message == (
        "title is 66 UTF-8 bytes, wechat allows 64; shorten it or set 'wechat: {title: …}' "
        "(unconfirmed limit: field reports of error 45003 on titles long in UTF-8 bytes, "
        "which WeChat's documentation (it counts characters) does not confirm; set "
        "[channels.wechat.limits] title_bytes = … to change it, or 0 to turn it off)"
    )
    assert checked.errors == ()


def test_a_warning_cites_evidence_a_user_can_read(write_issue: WriteIssue) -> None:
    """The evidence is said in words (a forum answer, a documented page): never a spec
    file of the developers' own, which an installed crosspost does not have."""
    body = "".join(f"第{n}段:" + "内容" * 40 + "\n\n" for n in range(260))
    front = FRONT.replace("编辑部", "OneFlow社区").replace("测试一期", "标题" * 11)
    checked = check_file(write_issue(front=front, body=body), ["wechat"])
    warned = {p.code: p.message for p in checked.problems if p.severity == WARNING}
    assert {"title-too-long", "author-long", "content-too-long"} <= set(warned)
    for message in warned.values():
        assert "specs/" not in message and ".md" not in message and "§" not in message
    assert (
        "(unconfirmed limit: one community answer on WeChat's developer forum that the whole "
        "HTML, tags included, counts toward draft/add's character limit; set "
        "[channels.wechat.limits] content_chars = … to change it, or 0 to turn it off)"
    ) in warned["content-too-long"]
    assert (
        "(unconfirmed limit: field reports of error 45110 on authors shorter than draft/add's "
        "documentation allows; set [channels.wechat.limits] author_warn_chars = … to change "
        "it, or 0 to turn it off)"
    ) in warned["author-long"]


def test_a_limit_set_in_the_config_is_an_error(write_issue: WriteIssue) -> None:
    platforms = {"wechat": platform("wechat").with_overrides({"title_bytes": 60})}
    path = write_issue(front=FRONT.replace("测试一期", "标题" * 11))
    problem = only(check_file(path, ["wechat"], platforms=platforms), "title-too-long")
    assert problem.severity == ERROR
    assert problem.message.startswith("title is 66 UTF-8 bytes, wechat allows 60")


def test_a_wechat_title_override_fixes_the_wechat_title(write_issue: WriteIssue) -> None:
    front = FRONT.replace("测试一期", "一" * 40) + "wechat: {title: 短标题}\n"
    assert check_file(write_issue(front=front)).errors == ()


def test_override_too_long_points_at_the_override_line(write_issue: WriteIssue) -> None:
    front = FRONT + "wechat:\n  title: " + "长" * 33 + "\n"
    assert only(check_file(write_issue(front=front)), "title-too-long").line == 7


def test_zhihu_title_limit(write_issue: WriteIssue) -> None:
    front = FRONT.replace("测试一期", "知" * 101) + "wechat: {title: 短标题}\n"
    problem = only(check_file(write_issue(front=front)), "title-too-long")
    assert problem.channel == "zhihu"
    assert problem.message.startswith("title has 101 characters, zhihu allows 100")


def test_author_documented_limit_is_an_error_field_reports_a_warning(
    write_issue: WriteIssue,
) -> None:
    too_long = check_file(write_issue(front=FRONT.replace("编辑部", "作" * 17)))
    assert only(too_long, "author-too-long").message == (
        "author has 17 characters, wechat allows 16; shorten it"
    )
    risky = check_file(write_issue(front=FRONT.replace("编辑部", "OneFlow社区")))
    assert risky.errors == ()
    assert only(risky, "author-long").severity == WARNING


def test_digest_limit_and_missing_digest(write_issue: WriteIssue) -> None:
    long = check_file(write_issue(front=FRONT.replace("一句话摘要", "摘" * 121)))
    problem = only(long, "digest-too-long")
    assert (problem.line, problem.message) == (
        4,
        "digest has 121 characters, wechat allows 120; shorten it",
    )
    missing = check_file(write_issue(front=FRONT.replace("digest: 一句话摘要\n", "")))
    assert only(missing, "no-digest").severity == INFO


def test_wechat_content_limit_counts_the_rendered_html(write_issue: WriteIssue) -> None:
    body = "".join(f"第{n}段:" + "内容" * 40 + "\n\n" for n in range(260))  # ~21,000 chars
    checked = check_file(write_issue(body=body))
    problem = only(checked, "content-too-long")
    assert problem.channel == "wechat"
    assert "the limit is under 20,000" in problem.message
    assert ("zhihu", "content-too-long") not in codes(checked)


def test_wechat_needs_a_cover_zhihu_does_not(write_issue: WriteIssue) -> None:
    front = FRONT.replace("cover: cover.jpg\n", "")
    both = check_file(write_issue(front=front))
    assert codes(both, ERROR) == {("wechat", "no-cover")}
    assert str(only(both, "no-cover")).endswith(
        ": [wechat] error: wechat needs a cover image; add 'cover: images/cover.jpg' (900×383)"
    )
    zhihu_only = check_file(write_issue(front=front + "channels: [zhihu]\n"))
    assert zhihu_only.errors == ()


def test_zhihu_body_minimum(write_issue: WriteIssue) -> None:
    problem = only(check_file(write_issue(body="短文。\n")), "body-too-short")
    assert problem.channel == "zhihu"
    assert problem.message == (
        "the body has 3 characters of text, zhihu needs at least 9; write more"
    )


def test_missing_image_names_its_body_line_once(write_issue: WriteIssue) -> None:
    path = write_issue(body=BODY + "\n![图](images/gone.png)\n")
    problem = only(check_file(path), "missing-image")
    assert (problem.line, problem.channel) == (9, None)
    assert str(problem) == (
        f"{path}:9: error: image 'images/gone.png' not found next to the issue; "
        "fix the path or add the file"
    )


@pytest.mark.parametrize(
    "written",
    [
        '<video src="https://example.com/a.mp4" poster="images/gone.png"></video>',
        '<image src="images/gone.png">',  # a browser's <img>: the renderers' too
    ],
)
def test_every_picture_the_channels_show_is_read_by_check(
    write_issue: WriteIssue, written: str
) -> None:
    """Publish uploads what the renderers show; a picture check did not see as one
    passed check, and publish then stopped on it with the post half made."""
    path = write_issue(body=BODY + "\n" + written + "\n")
    checked = check_file(path)
    assert all("images/gone.png" in output.images for output in checked.rendered.values())
    problem = only(checked, "missing-image")
    assert (problem.line, problem.channel) == (9, None)
    assert not [p for p in checked.problems if "tag of no element" in p.message]


def test_missing_image_inside_an_only_block_names_that_channel(write_issue: WriteIssue) -> None:
    body = BODY + "\n::: only zhihu\n正文\n\n![图](gone.png)\n:::\n"
    problem = only(check_file(write_issue(body=body)), "missing-image")
    assert (problem.line, problem.channel) == (12, "zhihu")


def test_image_in_raw_html_is_checked(write_issue: WriteIssue) -> None:
    body = BODY + '\n<p><img src="nope.jpg" width="100"></p>\n'
    assert only(check_file(write_issue(body=body)), "missing-image").line == 9


def test_image_with_a_chinese_file_name(write_issue: WriteIssue, tmp_path: Path) -> None:
    Image.new("RGB", (40, 40), "red").save(tmp_path / "图片.png")
    assert check_file(write_issue(body=BODY + "\n![图](图片.png)\n")).problems == ()


def test_svg_is_an_error_webp_a_warning(write_issue: WriteIssue, tmp_path: Path) -> None:
    (tmp_path / "chart.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", "utf-8")
    Image.new("RGB", (40, 40), "blue").save(tmp_path / "photo.webp", "WEBP")
    checked = check_file(write_issue(body=BODY + "\n![a](chart.svg)\n\n![b](photo.webp)\n"))
    assert "SVG is not supported" in only(checked, "bad-image").message
    converted = [p for p in checked.problems if p.code == "image-converted"]
    assert {(p.channel, p.line, p.severity) for p in converted} == {
        ("wechat", 11, WARNING),
        ("zhihu", 11, WARNING),
    }
    assert "image 'photo.webp' is WEBP; wechat takes GIF/JPEG/PNG" in converted[0].message


def test_png_over_a_megabyte_is_shrunk_for_wechat(write_issue: WriteIssue, tmp_path: Path) -> None:
    Image.frombytes("RGB", (700, 700), os.urandom(700 * 700 * 3)).save(tmp_path / "noise.png")
    assert (tmp_path / "noise.png").stat().st_size > 1024 * 1024
    checked = check_file(write_issue(body=BODY + "\n![n](noise.png)\n"))
    assert codes(checked) == {("wechat", "image-shrunk")}


def test_external_images_are_noted(write_issue: WriteIssue) -> None:
    checked = check_file(write_issue(body=BODY + "\n![x](https://example.test/x.png)\n"))
    assert codes(checked, INFO) == {("wechat", "external-image"), ("zhihu", "external-image")}
    assert checked.errors == ()


def test_cover_that_is_not_wechat_shaped_is_noted(write_issue: WriteIssue, tmp_path: Path) -> None:
    path = write_issue()
    Image.new("RGB", (400, 400), "green").save(tmp_path / "cover.jpg")
    problem = only(check_file(path), "cover-cropped")
    assert (problem.line, problem.severity) == (5, INFO)
    assert problem.message.startswith("cover is 400×400; wechat crops covers to 2.35:1")


def test_unknown_channel_option_is_a_warning(write_issue: WriteIssue) -> None:
    problem = only(
        check_file(write_issue(front=FRONT + "zhihu: {topic: [AI]}\n")), "unknown-option"
    )
    assert (problem.line, problem.severity) == (6, WARNING)
    assert problem.message.startswith("'zhihu.topic' is not an option crosspost knows")
    assert problem.message.endswith("; did you mean 'topics'?")


def test_every_wrong_key_of_a_channel_block_is_named_and_the_rest_is_read(
    write_issue: WriteIssue,
) -> None:
    """A wrong mode does not hide a mistyped option beside it, nor drop the block's title."""
    front = (
        FRONT
        + "wechat: {title: 频道标题, mode: drfat, need_open_commnet: true, source_url: ftp://x}\n"
    )
    checked = check_file(write_issue(front=front))
    named = sorted((p.code, p.severity, p.message) for p in checked.problems if p.line == 6)
    assert [(code, severity) for code, severity, _ in named] == [
        ("invalid-field", ERROR),
        ("invalid-field", ERROR),
        ("unknown-option", WARNING),
    ]
    assert "'wechat.mode'" in named[0][2] and "'wechat.source_url'" in named[1][2]
    assert named[2][2].endswith("did you mean 'need_open_comment'?")
    assert checked.issue is not None
    assert checked.issue.settings("wechat").title == "频道标题"


def test_an_unloadable_file_is_one_error_problem(write_issue: WriteIssue) -> None:
    checked = check_file(write_issue(raw="---\ntitle: [T\n---\n"))
    assert checked.issue is None
    assert [(p.line, p.code) for p in checked.problems] == [(2, "invalid-issue")]


def test_a_bad_field_is_an_error_and_the_issue_still_renders(write_issue: WriteIssue) -> None:
    checked = check_file(write_issue(raw="---\ntitle: T\nchannels: [weibo]\n---\n正文。\n"))
    assert checked.issue is not None and set(checked.rendered) == {"wechat", "zhihu"}
    assert [(p.line, p.code) for p in checked.errors if p.channel is None] == [(3, "invalid-field")]


def test_channels_argument_limits_what_is_rendered(write_issue: WriteIssue) -> None:
    checked = check_file(write_issue(front=FRONT.replace("cover: cover.jpg\n", "")), ["zhihu"])
    assert list(checked.rendered) == ["zhihu"]
    assert checked.errors == ()


def test_wechat_size_counts_uploaded_image_urls(write_issue: WriteIssue, tmp_path: Path) -> None:
    Image.new("RGB", (40, 40), "red").save(tmp_path / "a.png")
    checked = check_file(write_issue(body=BODY + "\n![](a.png)\n" * 100))
    body = checked.rendered["wechat"].body
    assert body.count('src="a.png"') == 100
    # The HTML as rendered fits; with 100 mmbiz URLs of ~110 characters it does not.
    expected = len(body) + 100 * (110 - len("a.png"))
    assert len(body) < 20_000 <= expected
    assert (
        f"the wechat article is {expected:,} characters of HTML"
        in only(checked, "content-too-long").message
    )


def test_a_picture_carried_as_a_data_uri_counts_as_the_url_it_is_uploaded_to(
    write_issue: WriteIssue,
) -> None:
    """A notebook's plots come as data: URIs, hundreds of KB each; WeChat gets a short
    URL for each, so they neither make the article too large nor near its length."""
    buffer = io.BytesIO()
    Image.effect_noise((400, 400), 90).convert("RGB").save(buffer, "PNG")
    uri = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
    assert len(uri) > 200_000
    checked = check_file(write_issue(body=BODY + f"\n![png]({uri})\n" * 5))
    body = checked.rendered["wechat"].body
    assert len(body.encode()) > 1_048_576  # as rendered, before the upload
    assert not {"content-too-large", "content-too-long"} & {c for _, c in codes(checked)}
    assert checked.errors == ()


def test_cover_that_is_not_an_image_or_is_webp(write_issue: WriteIssue, tmp_path: Path) -> None:
    (tmp_path / "cover.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", "utf-8")
    svg = check_file(write_issue(front=FRONT.replace("cover.jpg", "cover.svg")))
    problem = only(svg, "bad-cover")
    assert (problem.channel, problem.line) == (None, 5)  # one file, one problem
    assert problem.message.startswith("cover is not an image crosspost can read")
    Image.new("RGB", (900, 383), "navy").save(tmp_path / "cover.webp", "WEBP")
    webp = check_file(write_issue(front=FRONT.replace("cover.jpg", "cover.webp")))
    assert codes(webp) == {("wechat", "cover-converted"), ("zhihu", "cover-converted")}


def test_remote_svg_image_is_an_error_and_an_unknown_format_a_warning(
    write_issue: WriteIssue,
) -> None:
    body = BODY + "\n![x](https://example.test/logo.svg)\n\n![y](https://example.test/y.bmp)\n"
    checked = check_file(write_issue(body=body))
    assert codes(checked, ERROR) == {("wechat", "image-svg"), ("zhihu", "image-svg")}
    svg = next(p for p in checked.errors if p.channel == "zhihu")
    assert svg.line == 9 and "is SVG, which zhihu does not take" in svg.message
    assert codes(checked, WARNING) == {
        ("wechat", "external-image-format"),
        ("zhihu", "external-image-format"),
    }
    bmp = next(p for p in checked.problems if p.code == "external-image-format")
    # Downloaded and converted as a local BMP is: no "may be refused" for what is not.
    assert "is BMP by its address" in bmp.message
    assert "downloaded and converted when publishing" in bmp.message


def test_an_empty_footnote_is_an_error_on_its_line(write_issue: WriteIssue) -> None:
    checked = check_file(write_issue(body=BODY + "见注释[^1]。\n\n[^1]:\n"))
    problem = only(checked, "empty-footnote")
    assert (problem.line, problem.severity, problem.channel) == (10, ERROR, None)
    assert "footnote [^1] has no text" in str(problem)
