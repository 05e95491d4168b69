"""Fault injection: every kind, by count, by seeded probability, and the spec syntax."""

from __future__ import annotations

import pytest
import requests

from crosspost.errors import UsageError
from crosspost.sandbox.box import ManualClock, Sandbox, parse_fault
from crosspost.sandbox.faults import Fault

from .wechat_client import WeChat

ADD = "/cgi-bin/draft/add"
COUNT = "/cgi-bin/draft/count"


def drafts(sandbox: Sandbox) -> int:
    return len(sandbox.wechat.snapshot()["drafts"])


def test_latency_waits_through_the_injected_sleep(
    sandbox: Sandbox, wechat: WeChat, clock: ManualClock
) -> None:
    sandbox.faults.add("wechat", COUNT, "latency:2500", count=1)
    before = clock()
    assert wechat.get(COUNT) == {"total_count": 0}
    assert clock.sleeps == [2.5]
    assert clock() == before + 2.5
    wechat.get(COUNT)
    assert clock.sleeps == [2.5]  # count=1: only once


def test_reset_closes_the_connection_before_anything_happens(
    sandbox: Sandbox, wechat: WeChat
) -> None:
    article = wechat.article()
    sandbox.faults.add("wechat", ADD, "reset", count=1)
    with pytest.raises(requests.ConnectionError):
        wechat.post(ADD, {"articles": [article]})
    assert drafts(sandbox) == 0
    entry = sandbox.requests[-1]
    assert (entry.path, entry.fault, entry.status, entry.delivered) == (ADD, "reset", None, False)
    assert "media_id" in wechat.post(ADD, {"articles": [article]})  # the next call is served


@pytest.mark.parametrize("status", [500, 502, 503])
def test_http_errors_come_from_the_gateway(sandbox: Sandbox, wechat: WeChat, status: int) -> None:
    article = wechat.article()
    sandbox.faults.add("wechat", ADD, f"http:{status}", count=1)
    reply = wechat.session.post(
        f"{wechat.url}{ADD}", params={"access_token": wechat.token}, json={"articles": [article]}
    )
    assert reply.status_code == status
    assert reply.headers["Content-Type"].startswith("text/html")
    assert drafts(sandbox) == 0


@pytest.mark.parametrize("errcode", [-1, 45009, 45011])
def test_errcode_faults_answer_in_wechat_shape(
    sandbox: Sandbox, wechat: WeChat, errcode: int
) -> None:
    article = wechat.article()
    sandbox.faults.add("wechat", ADD, f"errcode:{errcode}", count=1)
    reply = wechat.session.post(
        f"{wechat.url}{ADD}", params={"access_token": wechat.token}, json={"articles": [article]}
    )
    assert reply.status_code == 200
    assert reply.json()["errcode"] == errcode
    assert " rid: " in reply.json()["errmsg"]
    assert drafts(sandbox) == 0
    assert sandbox.requests[-1].errcode == errcode


def test_token_expired_fault_really_expires_the_token(sandbox: Sandbox, wechat: WeChat) -> None:
    old = wechat.token
    sandbox.faults.add("wechat", COUNT, "token_expired", count=1)
    assert wechat.get(COUNT)["errcode"] == 42001
    assert wechat.get(COUNT)["errcode"] == 42001  # no fault now: the token itself is dead
    assert wechat.fetch_token() != old
    assert wechat.get(COUNT) == {"total_count": 0}


def test_commit_then_drop_commits_the_draft(sandbox: Sandbox, wechat: WeChat) -> None:
    article = wechat.article()
    sandbox.faults.add("wechat", ADD, "commit_then_drop", count=1)
    with pytest.raises(requests.ConnectionError):
        wechat.post(ADD, {"articles": [article]})
    assert wechat.get(COUNT) == {"total_count": 1}  # the client saw an error; it happened
    entry = [e for e in sandbox.requests if e.path == ADD][-1]
    assert (entry.status, entry.delivered, entry.fault) == (200, False, "commit_then_drop")


def test_a_slow_answer_takes_effect_only_once_its_time_has_come(
    sandbox: Sandbox, wechat: WeChat, clock: ManualClock
) -> None:
    """The platform is slower than the client: no answer now, the draft appears later."""
    article = wechat.article()
    sandbox.faults.add("wechat", ADD, "slow_answer:30000", count=1)
    with pytest.raises(requests.ConnectionError):
        wechat.post(ADD, {"articles": [article]})
    assert wechat.get(COUNT) == {"total_count": 0}  # asking at once finds nothing
    clock.advance(29)
    assert sandbox.commit_due() == 0
    assert drafts(sandbox) == 0
    clock.advance(1)
    assert wechat.get(COUNT) == {"total_count": 1}  # any later request applies it first
    entry = [e for e in sandbox.requests if e.path == ADD][-1]
    assert (entry.status, entry.delivered, entry.fault) == (None, False, "slow_answer:30000")
    assert sandbox.commit_due() == 0  # applied once


def test_a_slow_answer_to_a_read_is_only_dropped(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.faults.add("wechat", COUNT, "slow_answer:1000", count=1)
    with pytest.raises(requests.ConnectionError):
        wechat.get(COUNT)
    assert wechat.get(COUNT) == {"total_count": 0}


def test_commit_then_drop_on_submit_leaves_a_running_job(sandbox: Sandbox, wechat: WeChat) -> None:
    media_id = wechat.add_draft()
    sandbox.faults.add("wechat", "*", "commit_then_drop", count=1)
    wechat.get(COUNT)  # reads are passed over: the plan is still armed
    with pytest.raises(requests.ConnectionError):
        wechat.post("/cgi-bin/freepublish/submit", {"media_id": media_id})
    jobs = sandbox.wechat.snapshot()["jobs"]
    assert [job["draft_media_id"] for job in jobs] == [media_id]


def test_latency_and_drop_combine(sandbox: Sandbox, wechat: WeChat, clock: ManualClock) -> None:
    article = wechat.article()
    sandbox.faults.add("wechat", ADD, "latency:30000", count=1)
    sandbox.faults.add("wechat", ADD, "commit_then_drop", count=1)
    with pytest.raises(requests.ConnectionError):
        wechat.post(ADD, {"articles": [article]})
    assert clock.sleeps == [30.0]
    assert drafts(sandbox) == 1


def test_count_limits_how_often_a_fault_fires(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.faults.add("wechat", COUNT, "errcode:-1", count=2)
    codes = [wechat.get(COUNT).get("errcode", 0) for _ in range(4)]
    assert codes == [-1, -1, 0, 0]
    assert sandbox.faults.plans("wechat")[0]["exhausted"] is True


def test_probability_is_reproducible_with_a_seed(sandbox: Sandbox, wechat: WeChat) -> None:
    def run(seed: int) -> list[int]:
        sandbox.faults.clear()
        sandbox.faults.add("wechat", COUNT, "errcode:-1", probability=0.5, seed=seed)
        return [wechat.get(COUNT).get("errcode", 0) for _ in range(16)]

    first = run(7)
    assert run(7) == first
    assert 0 < first.count(-1) < 16
    assert run(8) != first


def test_unless_limited_a_fault_fires_until_cleared(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.faults.add("wechat", COUNT, "errcode:45011")
    assert [wechat.get(COUNT).get("errcode") for _ in range(3)] == [45011] * 3
    sandbox.faults.clear("wechat")
    assert wechat.get(COUNT) == {"total_count": 0}


def test_method_filter_and_globs(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.faults.add("wechat", "/cgi-bin/draft/*", "errcode:-1", method="POST")
    assert wechat.get(COUNT) == {"total_count": 0}
    assert wechat.post("/cgi-bin/draft/batchget", {"offset": 0, "count": 1})["errcode"] == -1


def test_other_platforms_kinds_are_ignored_and_said_so(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.faults.add("wechat", COUNT, "publish_code", count=1)
    assert wechat.get(COUNT) == {"total_count": 0}
    assert "ignored" in (sandbox.requests[-1].fault or "")


@pytest.mark.parametrize(
    ("spec", "fault"),
    [
        (
            "wechat:/cgi-bin/draft/add=commit_then_drop*1",
            Fault("wechat", "/cgi-bin/draft/add", "commit_then_drop", count=1),
        ),
        ("zhihu:*=http:503%0.25", Fault("zhihu", "*", "http:503", probability=0.25)),
        (
            "wechat:/cgi-bin/token=errcode:-1*2%0.5",
            Fault("wechat", "/cgi-bin/token", "errcode:-1", count=2, probability=0.5),
        ),
        ("wechat:/x=latency:800", Fault("wechat", "/x", "latency:800")),
        ("zhihu:*=handshake:100", Fault("zhihu", "*", "handshake:100")),
        ("zhihu:/x=slow_answer:20000*1", Fault("zhihu", "/x", "slow_answer:20000", count=1)),
    ],
)
def test_spec_syntax(spec: str, fault: Fault) -> None:
    assert parse_fault(spec) == fault


@pytest.mark.parametrize(
    "spec",
    [
        "wechat/cgi-bin/token=reset",
        "weibo:/x=reset",
        "wechat:/x=latency:soon",
        "wechat:*=handshake:",
        "wechat:/x=http:",
        "wechat:/x=slow_answer:later",
        "wechat:/x=reset*0",
        "wechat:/x=reset%2",
        "wechat:/x=reset*many",
        "wechat:=reset",
    ],
)
def test_bad_specs_say_what_to_write(spec: str) -> None:
    with pytest.raises(UsageError):
        parse_fault(spec)
