"""Noticing a save: the watcher on an injected clock, so no test waits."""

from __future__ import annotations

from pathlib import Path

from crosspost.preview.watch import POLL_INTERVAL, Watcher, fingerprint


class FakeTime:
    """A clock that moves only when the watcher pauses; ``on_sleep`` runs at each pause."""

    def __init__(self, on_sleep: object = None) -> None:
        self.now = 100.0
        self.pauses: list[float] = []
        self.on_sleep = on_sleep

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds
        if callable(self.on_sleep):
            self.on_sleep(len(self.pauses))


def test_the_fingerprint_changes_with_a_save_a_new_file_and_a_removal(tmp_path: Path) -> None:
    issue, image = tmp_path / "issue.md", tmp_path / "a.png"
    issue.write_text("one", "utf-8")
    first = fingerprint([issue, image])
    image.write_bytes(b"png")
    second = fingerprint([issue, image])
    issue.write_text("two!", "utf-8")
    third = fingerprint([issue, image])
    image.unlink()
    assert len({first, second, third, fingerprint([issue, image])}) == 4
    assert fingerprint([issue]) == fingerprint([issue])


def test_the_watcher_answers_at_the_first_look_after_a_save(tmp_path: Path) -> None:
    issue = tmp_path / "issue.md"
    issue.write_text("draft", "utf-8")
    since = fingerprint([issue])

    def save(pauses: int) -> None:
        if pauses == 3:
            issue.write_text("draft, edited", "utf-8")

    time = FakeTime(save)
    watcher = Watcher(interval=0.1, hold=20.0, clock=time.clock, sleep=time.sleep)
    assert watcher.wait(lambda: [issue], since) == fingerprint([issue]) != since
    assert time.pauses == [0.1, 0.1, 0.1]


def test_the_watcher_says_nothing_changed_after_holding(tmp_path: Path) -> None:
    issue = tmp_path / "issue.md"
    issue.write_text("draft", "utf-8")
    since = fingerprint([issue])
    time = FakeTime()
    watcher = Watcher(interval=0.5, hold=2.0, clock=time.clock, sleep=time.sleep)
    assert watcher.wait(lambda: [issue], since) == since
    assert time.pauses == [0.5] * 4


def test_the_default_pace_meets_the_second_an_editor_waits() -> None:
    assert POLL_INTERVAL <= 0.25
    assert Watcher().interval == POLL_INTERVAL
