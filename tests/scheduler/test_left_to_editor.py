"""run-due and what a published post leaves for a person to do: the line reaches cron's
mail, not only the log."""

from __future__ import annotations

import pytest

from crosspost import cli
from publisher.world import write_config

from .desk import Desk, at

E12 = "/api/v4/columns/*/items"


def test_a_column_zhihu_will_not_take_is_a_to_do_line_in_cron_mail(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    schedule = (
        f'state_dir = "{desk.state_dir}"\n\n[schedule]\nissue_dirs = ["{desk.issues}"]\n'
        'grace = "24h"\n'
    )
    write_config(desk.root, desk.box, 'column = "沙盒专栏"', top=schedule)
    desk.use_env(monkeypatch)
    desk.write("48", at(-60), channels="[zhihu]")
    desk.box.faults.add("zhihu", E12, "http:404")  # refused for good

    assert cli.main(["run-due", "--now", at(0)]) == 0
    out = capsys.readouterr().out.splitlines()

    assert any(line.startswith("published") and "zhihu:main" in line for line in out), out
    (todo,) = [line for line in out if line.startswith("to do")]
    assert "zhihu:main" in todo and "48" in todo
    assert "file it into the column '沙盒专栏' by hand on zhihu.com" in todo

    assert cli.main(["run-due", "--now", at(60)]) == 0  # said once, not every tick
    assert not [line for line in capsys.readouterr().out.splitlines() if "to do" in line]
