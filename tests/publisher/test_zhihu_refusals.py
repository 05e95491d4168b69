"""Zhihu refusals as an editor meets them in a publish run: each says what it is (a wait,
a human at a captcha, the cookies), none is taken for a lost answer, and the calls that
rest on one source (the column's E11/E12, the image confirmation I3) never cost the post.

Every test runs the publisher against the Zhihu sandbox over loopback with a real SQLite
ledger, and looks where an operator would: the result line and exit code, the progress
and warning lines, the ledger's row and notes, and the sandbox's log of what was sent.
"""

from __future__ import annotations

import logging

import pytest

from crosspost.errors import EXIT_CHANNEL_FAILED, EXIT_OK, EXIT_TEMPORARY
from crosspost.publish.jobs import PostResult, PublishReport

from .world import CREATE_PATHS, PUBLISH_PATHS, World, events_text, mutating, write_config

E2 = CREATE_PATHS["zhihu"]
E6 = PUBLISH_PATHS["zhihu"]
E11 = "/api/v4/members/*/column-contributions"
E12 = "/api/v4/columns/*/items"
I3 = "/images/*/uploading_status"
COLUMN = "沙盒专栏"


def zhihu_calls(world: World, method: str, path_start: str, path_end: str = "") -> int:
    """Requests to Zhihu of this kind that reached the sandbox (answered or not)."""
    return sum(
        1
        for r in world.box.requests
        if r.platform == "zhihu"
        and r.method == method
        and r.path.startswith(path_start)
        and r.path.endswith(path_end)
    )


def publish(world: World, **options: object) -> tuple[PostResult, list[str]]:
    """One Zhihu-only run; its one result and its progress lines."""
    report, lines = world.publish(targets=("zhihu",), **options)  # type: ignore[arg-type]
    (result,) = only_zhihu(report)
    return result, lines


def only_zhihu(report: PublishReport) -> tuple[PostResult, ...]:
    return tuple(r for r in report.results if r.key.channel == "zhihu")


def with_column(world: World) -> None:
    """The Zhihu account files its posts into the sandbox's column."""
    write_config(world.root, world.box, f'column = "{COLUMN}"')


def top_level_200(world: World) -> None:
    """Zhihu's refusals as HTTP 200 with a top-level code (spec §5, U-COOKIE's envelope)."""
    world.box.zhihu.update_options({"error_envelope": "top_level_200"})


# --- item 2: E6 and E2 refusals written as HTTP 200 -----------------------------------


@pytest.mark.parametrize(
    ("code", "exit_code", "words"),
    [
        ("40362", EXIT_TEMPORARY, "risk control is limiting this account; wait at least 30 min"),
        ("40352", EXIT_CHANNEL_FAILED, "anti-bot check wants a human. Open zhihu.com"),
        ("10003", EXIT_CHANNEL_FAILED, "refused the shape of this request"),
        ("100", EXIT_CHANNEL_FAILED, "copy the value of z_c0 into the environment variable"),
    ],
)
def test_a_publish_refusal_sent_as_http_200_means_what_its_code_means(
    world: World, code: str, exit_code: int, words: str
) -> None:
    top_level_200(world)
    world.box.faults.add("zhihu", E6, f"zhihu:{code}", count=1)

    result, _ = publish(world)

    assert result.state == "failed" and result.exit_code == exit_code
    assert f"Zhihu {code} (" in result.message and words in result.message
    assert "title ≤" not in result.message  # not "fix the title, body, a topic"
    assert zhihu_calls(world, "POST", E6) == 1
    assert world.published_on("zhihu") == []


def test_a_throttled_publish_is_a_wait_and_the_next_run_publishes_the_same_draft(
    world: World,
) -> None:
    top_level_200(world)
    world.box.faults.add("zhihu", E6, "zhihu:40362", count=1)

    first, _ = publish(world)

    record = world.posts()["zhihu"]
    assert first.exit_code == EXIT_TEMPORARY and "(temporary: safe to run again)" in first.message
    assert not record.error_permanent
    assert record.next_attempt_at is not None
    assert record.next_attempt_at >= record.updated_at + 30 * 60 - 1  # the throttle's wait

    again, _ = publish(world)  # no --retry-failed needed: a wait is not a refusal

    assert again.state == "published" and again.exit_code == EXIT_OK
    assert zhihu_calls(world, "POST", E2) == 1  # the same draft, published on the second try
    assert len(world.published_on("zhihu")) == 1


@pytest.mark.parametrize(
    ("code", "exit_code", "words"),
    [
        ("40352", EXIT_CHANNEL_FAILED, "pass the verification, then run again"),
        ("40362", EXIT_TEMPORARY, "wait at least 30 minutes"),
        ("10003", EXIT_CHANNEL_FAILED, "Copy z_c0, d_c0 and _xsrf again"),
    ],
)
def test_a_draft_refusal_sent_as_http_200_is_a_refusal_not_a_lost_answer(
    world: World, code: str, exit_code: int, words: str
) -> None:
    """Read as "no draft id", the refusal was reconciled as a lost answer and a second E2
    went out in the same run (it then published, behind the captcha's back)."""
    top_level_200(world)
    world.box.faults.add("zhihu", E2, f"zhihu:{code}", count=1)

    result, lines = publish(world)

    assert result.state == "failed" and result.exit_code == exit_code
    assert f"Zhihu {code} (" in result.message and words in result.message
    assert not any("answer was lost" in line for line in lines), lines
    assert zhihu_calls(world, "POST", E2) == 1  # never a second draft in the same run
    assert world.drafts_on("zhihu") == [] and world.published_on("zhihu") == []
    assert world.posts()["zhihu"].pending_step is None  # nothing left to reconcile


def test_after_the_captcha_is_passed_the_refused_draft_is_made_once(world: World) -> None:
    top_level_200(world)
    world.box.faults.add("zhihu", E2, "zhihu:40352", count=1)
    publish(world)

    result, _ = publish(world, retry_failed=True)

    assert result.state == "published" and result.exit_code == EXIT_OK
    assert zhihu_calls(world, "POST", E2) == 2  # the refused one, then the one made
    assert len(world.drafts_on("zhihu")) == 1 and len(world.published_on("zhihu")) == 1


# --- item 3: the column's calls rest on one source ------------------------------------


@pytest.mark.parametrize("kind", ["http:404"])
def test_a_column_zhihu_will_not_file_into_is_left_to_the_editor_once(
    world: World, kind: str
) -> None:
    with_column(world)
    world.box.faults.add("zhihu", E12, kind)  # every time: Zhihu changed the call

    result, lines = publish(world)

    record = world.posts()["zhihu"]
    assert result.state == "published" and result.exit_code == EXIT_OK
    assert record.state == "published" and record.url == result.url
    warning = next(line for line in lines if "warning:" in line)
    assert f"{result.url} is published but not in its column" in warning
    assert f"file it into the column '{COLUMN}' by hand on zhihu.com" in warning
    assert "column: left to the editor" in events_text(world, record)
    assert zhihu_calls(world, "POST", "/api/v4/columns/") == 1  # a refusal: not retried

    again, later = publish(world)

    assert again.state == "unchanged" and again.exit_code == EXIT_OK
    assert not any("warning:" in line for line in later)
    assert zhihu_calls(world, "POST", "/api/v4/columns/") == 1  # never asked again
    assert zhihu_calls(world, "POST", E6) == 1 and len(world.published_on("zhihu")) == 1


def test_a_refused_column_listing_does_not_keep_the_article_from_being_published(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    with_column(world)
    world.box.faults.add("zhihu", E11, "http:404")

    with caplog.at_level(logging.WARNING, logger="crosspost"):
        result, lines = publish(world)

    assert result.state == "published" and result.exit_code == EXIT_OK
    assert len(world.published_on("zhihu")) == 1
    warned = [r.getMessage() for r in caplog.records if "before publishing" in r.getMessage()]
    assert warned == [
        f"could not look up the Zhihu column '{COLUMN}' of zhihu:main before publishing "
        "(Zhihu 404); publishing anyway, and filing the article into the column is tried "
        "after"
    ]
    assert any(
        "Zhihu would not list this account's columns (Zhihu 404); file it into the column "
        f"'{COLUMN}' by hand" in line
        for line in lines
    ), lines

    again, _ = publish(world)
    assert again.state == "unchanged" and again.exit_code == EXIT_OK


def test_a_column_name_zhihu_does_not_list_still_stops_before_publishing(world: World) -> None:
    write_config(world.root, world.box, 'column = "没有这个专栏"')

    result, _ = publish(world)

    assert result.state == "failed" and result.exit_code == EXIT_CHANNEL_FAILED
    assert "is not one of this account's columns ('沙盒专栏')" in result.message
    assert zhihu_calls(world, "POST", E6) == 0 and world.published_on("zhihu") == []


@pytest.mark.parametrize("kind", ["zhihu:40352", "zhihu:10003"])
def test_a_column_refused_for_the_account_is_filed_by_the_next_run(world: World, kind: str) -> None:
    """The anti-bot wall and the cookies' check are the account's, not E12's: once a human
    passes the wall (or copies the cookies again), the next run files the article (and
    never publishes it again)."""
    with_column(world)
    world.box.faults.add("zhihu", E12, kind, count=1)

    first, _ = publish(world)

    assert first.state == "published" and first.exit_code == EXIT_CHANNEL_FAILED
    said = "anti-bot check wants a human" if "40352" in kind else "d_c0"
    assert said in first.message and "by hand" not in first.message

    again, lines = publish(world, retry_failed="10003" in kind)

    assert again.exit_code == EXIT_OK and any("column: done" in line for line in lines)
    [article] = world.published_on("zhihu")
    assert article["column"] is not None
    assert zhihu_calls(world, "POST", E6) == 1


# --- item 4: the image confirmation (I3) is optional ----------------------------------


@pytest.mark.parametrize("kind", ["http:404", "zhihu:10003"])
def test_a_refused_image_confirmation_is_one_warning_and_the_upload_goes_on(
    world: World, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    world.box.faults.add("zhihu", I3, kind)  # every image's

    with caplog.at_level(logging.WARNING, logger="crosspost"):
        result, _ = publish(world)

    assert result.state == "published" and result.exit_code == EXIT_OK
    confirmations = zhihu_calls(world, "PUT", "/images/", "/uploading_status")
    assert confirmations >= 2  # every new image asked once, none retried
    assert confirmations == zhihu_calls(world, "POST", "/images")
    warned = [r.getMessage() for r in caplog.records if "upload confirmation" in r.getMessage()]
    assert len(warned) == 1, warned  # once per run, not once per image
    assert warned[0].startswith("Zhihu refused the upload confirmation of zhihu:main's images")
    assert "the uploads go on without it" in warned[0]
    assert "proxy" not in warned[0]


def test_an_image_confirmation_refused_for_the_login_still_stops(world: World) -> None:
    world.box.faults.add("zhihu", I3, "zhihu:100")

    result, _ = publish(world)

    assert result.state == "failed" and result.exit_code == EXIT_CHANNEL_FAILED
    assert "copy the value of z_c0 into the environment variable ZHIHU_Z_C0" in result.message
    assert world.published_on("zhihu") == []


# --- item 5: the d_c0 cookie ----------------------------------------------------------


def test_a_client_refusal_without_d_c0_says_to_set_it(world: World) -> None:
    world.box.zhihu.update_options({"require_d_c0": True})
    del world.env["ZHIHU_D_C0"]

    result, _ = publish(world)

    assert result.state == "failed" and result.exit_code == EXIT_CHANNEL_FAILED
    assert result.message == (
        "Zhihu 10003 (请求参数异常，请升级客户端后重试) on GET /api/v4/me: Zhihu refused the "
        "shape of this request (signature or client check); no d_c0 cookie was sent, which "
        "every browser sends with z_c0. Copy the value of the d_c0 cookie of zhihu.com "
        "(devtools → Application → Cookies → https://www.zhihu.com) into the environment "
        "variable ZHIHU_D_C0, then run again"
    )
    assert mutating(world.box) == []


def test_a_client_refusal_with_d_c0_set_says_to_copy_the_cookies_again(world: World) -> None:
    world.box.faults.add("zhihu", "/api/v4/me", "zhihu:10003")

    result, _ = publish(world)

    assert result.exit_code == EXIT_CHANNEL_FAILED
    assert "Copy z_c0, d_c0 and _xsrf again from one browser" in result.message
    assert "into ZHIHU_Z_C0, ZHIHU_D_C0 and ZHIHU_XSRF" in result.message
    assert "no d_c0 cookie was sent" not in result.message
    assert mutating(world.box) == []
