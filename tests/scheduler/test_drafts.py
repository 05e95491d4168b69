"""``draft: true`` (as static-site generators write it): never published, by hand or by cron."""

from __future__ import annotations

from crosspost.errors import EXIT_OK
from crosspost.schedule.tick import DueOptions, run_due

from .desk import Desk, at


def test_run_due_skips_a_draft_with_a_line_and_publishes_the_rest(desk: Desk) -> None:
    draft = desk.write("50", at(-60), extra="draft: true\n")
    desk.write("51", at(-60))
    said: list[str] = []
    report = run_due(
        desk.settings(),
        DueOptions(dirs=(desk.issues,)),
        clock=desk.clock,
        sleep=desk.sleep,
        progress=said.append,
    )
    assert report.exit_code == EXIT_OK
    assert {key.split()[0] for key in desk.posts()} == {"51"}
    line = draft.read_text("utf-8").split("\n").index("draft: true") + 1
    [skipped] = report.of_kind("skipped")  # a line of the report, said once (not progress)
    assert skipped.message == f"{draft}:{line}: 'draft: true' (remove it when it is ready)"
    assert (skipped.issue_id, skipped.repeat) == ("50", False)
    assert not [s for s in said if "draft: true" in s]
