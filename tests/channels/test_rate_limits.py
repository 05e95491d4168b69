"""A platform that asks to slow down slows the whole upload wave down, instead of failing it.

Real sandbox over loopback, its rate-limit faults (Zhihu's HTTP 429, WeChat's 45011 and
45009); time is a :class:`ManualClock`, so the pauses are on record and never waited for.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from crosspost.channels.http.policy import HttpPolicy, Reply
from crosspost.channels.wechat.errors import check_reply
from crosspost.channels.zhihu.wire import browser_headers
from crosspost.errors import RateLimitedError
from crosspost.sandbox.box import Sandbox
from crosspost.sandbox.clock import ManualClock

WAVE = 8
TOPICS = "/api/autocomplete/topics"


@pytest.fixture
def box() -> Iterator[Sandbox]:
    with Sandbox() as sandbox:
        yield sandbox


def status(reply: Reply) -> int:
    return reply.status


def test_a_429_pauses_every_request_of_the_wave_and_none_fails(box: Sandbox) -> None:
    clock = ManualClock()
    http = HttpPolicy(clock=clock, sleep=clock.sleep, rng=lambda: 0.0)
    creds = box.zhihu.credentials()
    login = browser_headers(creds["z_c0"], creds["xsrf"])
    url = box.zhihu_url + TOPICS + "?token=x"
    box.faults.add("zhihu", TOPICS, "http:429", count=1)

    def ask(_: int) -> int:
        return http.request("GET", url, idempotent=True, check=status, headers=login)

    assert ask(0) == 200  # answered 429 once, then retried after the pause
    pause = clock.sleeps[0]
    assert pause > 0
    with ThreadPoolExecutor(WAVE) as pool:
        answers = list(pool.map(ask, range(WAVE)))

    assert answers == [200] * WAVE
    limited = [r for r in box.requests if r.status == 429]
    assert len(limited) == 1  # the rest of the wave waited instead of hitting the limit
    assert len(box.requests) == WAVE + 2


def test_the_wave_after_a_429_waits_out_what_is_left_of_the_pause(box: Sandbox) -> None:
    clock = ManualClock()
    http = HttpPolicy(clock=clock, sleep=lambda seconds: None, rng=lambda: 0.0)
    creds = box.zhihu.credentials()
    login = browser_headers(creds["z_c0"], creds["xsrf"])
    url = box.zhihu_url + TOPICS + "?token=x"
    box.faults.add("zhihu", TOPICS, "http:429", count=1)
    waited: list[float] = []
    http.sleep = waited.append  # time stands still: every request must wait the pause

    assert http.request("GET", url, idempotent=True, check=status, headers=login) == 200
    with ThreadPoolExecutor(WAVE) as pool:
        list(
            pool.map(
                lambda _: http.request("GET", url, idempotent=True, check=status, headers=login),
                range(WAVE),
            )
        )

    # the limited request's own backoff, then its resend and each request of the wave
    # slept the shared pause before sending
    assert len(waited) == 2 + WAVE
    assert len(set(waited[1:])) == 1


def wechat_check(clock: ManualClock) -> Any:
    return lambda reply: check_reply(reply, clock=clock)


def token_url(box: Sandbox) -> str:
    creds = box.wechat.credentials()
    return (
        f"{box.wechat_url}/cgi-bin/token?grant_type=client_credential"
        f"&appid={creds['app_id']}&secret={creds['app_secret']}"
    )


def test_wechat_45011_slows_the_wave_to_the_next_minute(box: Sandbox) -> None:
    clock = ManualClock()
    http = HttpPolicy(clock=clock, sleep=clock.sleep, rng=lambda: 0.0)
    box.faults.add("wechat", "/cgi-bin/token", "errcode:45011", count=1)

    def ask(_: int) -> dict[str, Any]:
        return http.request("GET", token_url(box), idempotent=True, check=wechat_check(clock))

    assert "access_token" in ask(0)
    with ThreadPoolExecutor(WAVE) as pool:
        assert all("access_token" in answer for answer in pool.map(ask, range(WAVE)))
    assert [r.errcode for r in box.requests].count(45011) == 1
    assert 0 < clock.sleeps[0] <= 61


def test_wechat_45009_stops_the_wave_unsent_instead_of_waiting_for_tomorrow(
    box: Sandbox,
) -> None:
    clock = ManualClock()
    http = HttpPolicy(clock=clock, sleep=clock.sleep, rng=lambda: 0.0)
    box.faults.add("wechat", "/cgi-bin/token", "errcode:45009")

    def ask(_: int) -> BaseException | None:
        try:
            http.request("GET", token_url(box), idempotent=True, check=wechat_check(clock))
        except RateLimitedError as error:
            return error
        return None

    first = ask(0)
    with ThreadPoolExecutor(WAVE) as pool:
        rest = list(pool.map(ask, range(WAVE)))

    assert isinstance(first, RateLimitedError)
    assert all(isinstance(error, RateLimitedError) for error in rest)
    assert all(getattr(error, "code", None) == 45009 for error in rest)
    assert len(box.requests) == 1  # the wave was not sent: the quota is gone for today
    assert clock.sleeps == []
