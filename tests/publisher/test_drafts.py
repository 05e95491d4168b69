"""``draft: true`` in an issue: ``publish`` skips it with a line and sends nothing."""

from __future__ import annotations

from pathlib import Path

from publisher.world import World, mutating


def test_publish_skips_a_draft_with_a_line(world: World) -> None:
    text = world.issue.read_text("utf-8").replace("---\n", "---\ndraft: true\n", 1)
    issue: Path = world.issue.with_name("draft.md")
    issue.write_text(text, "utf-8")
    report, lines = world.publish([issue])
    assert not report.results
    assert f"{issue}:2: skipped: 'draft: true' (remove it when it is ready)" in lines
    assert mutating(world.box) == []
