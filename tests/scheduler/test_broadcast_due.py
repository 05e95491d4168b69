"""run-due and mass sends: the day's second 群发 is refused before anything is sent, and
the issue stays due, so a tick after Beijing midnight sends it."""

from __future__ import annotations

from crosspost.errors import EXIT_OK, EXIT_TEMPORARY

from .desk import Desk, at

SENDALL = "/cgi-bin/message/mass/sendall"
BROADCAST = "wechat: {mode: broadcast}\n"


def sends(desk: Desk) -> int:
    return sum(1 for r in desk.box.requests if r.path == SENDALL)


def test_the_second_send_of_the_day_waits_for_beijing_midnight(desk: Desk) -> None:
    desk.write("48", at(-60), channels="[wechat]", extra=BROADCAST)
    desk.write("49", at(-30), channels="[wechat]", extra=BROADCAST)

    first = desk.tick()
    assert first.exit_code == EXIT_TEMPORARY, first.as_dict()
    (done,) = [r for r in first.results if r.state == "published"]
    (waiting,) = [r for r in first.results if r is not done]
    assert "sent to followers" in done.message
    assert "Beijing midnight" in waiting.message and not waiting.sent
    assert sends(desk) == 1

    desk.box.clock.advance(600)  # the same Beijing day: still due, still refused, no request
    again = desk.tick()
    (refused,) = [r for r in again.results if r.key == waiting.key]
    assert refused.exit_code == EXIT_TEMPORARY and sends(desk) == 1

    desk.box.clock.advance(16 * 3600)  # past midnight in Beijing (T0 is 09:00 there)
    later = desk.tick()
    (sent,) = [r for r in later.results if r.key == waiting.key]
    assert (sent.state, sent.exit_code) == ("published", EXIT_OK), later.as_dict()
    assert sends(desk) == 2
    assert all(len(got) == 2 for got in desk.box.wechat.pushes().values())
