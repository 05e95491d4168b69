"""An editor's trial, as the editor sees it: 往期回顾 at the level of the issue's own
sections, the lines under a run's table naming their issue, a plain-text digest pointed
to ``crosspost import``, counts in the number they take. The built-in emulators on
loopback (``--sandbox``), the rehearsal's ledger and real files, through
``crosspost.cli.main``.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK
from test_editor_week import edit, quoted_command

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ai-systems-48" / "issue.md"
Capsys = pytest.CaptureFixture[str]

#: A translator's digest as it arrives: numbered items with their fields, no Markdown.
DIGEST = """这是第49期周报,本周推荐两篇论文。
1. 大规模分布式深度神经网络(large scale distributed deep networks)
链接:https://example.com/dean12.pdf
作者:jeffrey dean, greg corrado
发表时间:2012
摘要:无监督特征学习和深度学习方面的近期研究进展显示,若能成功训练出大型模型,即可大幅提升性能。
2. cots hpc系统助力深度学习(deep learning with cots hpc systems)
链接:https://example.com/coates13.pdf
作者:adam coates, brody huval
摘要:对深度学习算法进行纵向扩展有助于提升算法在基准测试任务中的性能。
欢迎转发。
"""


def two_issues(home: Path) -> tuple[Path, Path]:
    """Issues 47 and 48 of one series, in the editor's folders; 48 lists one earlier."""
    shutil.copytree(EXAMPLE.parent, home / "47")
    shutil.copytree(EXAMPLE.parent, home / "48")
    first, second = home / "47" / "issue.md", home / "48" / "issue.md"
    edit(first, "id: ai-systems-48", "id: ai-systems-47\nseries: ai-weekly")
    edit(first, "title: AI系统前沿动态 第48期", "title: AI系统前沿动态 第47期")
    edit(first, "wechat: {title: AI系统前沿动态48,", "wechat: {title: AI系统前沿动态47,")
    edit(first, "这是oneflow社区发布的第48期", "这是oneflow社区发布的第47期")
    edit(second, "id: ai-systems-48", "id: ai-systems-48\nseries: ai-weekly\nprevious: 1")
    return first, second


def heading_tags(html: str, words: str) -> tuple[str, str]:
    """The tag of the body's first section and of the heading ``words``."""
    first = re.search(r"<(h[1-6])\b[^>]*>1\. 英伟达", html)
    section = re.search(rf"<(h[1-6])\b[^>]*>{words}</h[1-6]>", html)
    assert first is not None and section is not None, html[-800:]
    return first.group(1), section.group(1)


@pytest.mark.parametrize("marks", ["##", "#"])
def test_previous_issues_are_a_section_at_the_level_of_the_issues_own(
    home: Path, capsys: Capsys, marks: str
) -> None:
    first, second = two_issues(home)
    if marks == "#":  # sections written one level up: Zhihu's <h2> all the same
        text = second.read_text(encoding="utf-8").replace("\n## ", "\n# ")
        second.write_text(text, encoding="utf-8")
    for issue in (first, second):
        assert main(["publish", str(issue), "--sandbox", "--mode", "publish", "-q"]) == EXIT_OK
    capsys.readouterr()

    sent = home / "state" / "sandbox" / "sent" / "ai-systems-48"
    zhihu = (sent / "zhihu.sandbox.html").read_text(encoding="utf-8")
    assert heading_tags(zhihu, "往期回顾") == ("h2", "h2")
    wechat = (sent / "wechat.sandbox.html").read_text(encoding="utf-8")
    level = f"h{len(marks)}"
    assert heading_tags(wechat, "往期回顾") == (level, level)
    # The section lists 47, linked to its post on the same platform.
    assert re.search(r"往期回顾</h2><ul><li><a href=\"https://zhuanlan\.zhihu\.com/p/", zhihu)


def test_the_lines_under_a_runs_table_name_their_issue(home: Path, capsys: Capsys) -> None:
    first, second = two_issues(home)
    both = [str(first), str(second), "--sandbox", "--mode", "publish", "-q"]
    assert main(["publish", *both]) == EXIT_OK
    capsys.readouterr()
    for issue in (first, second):
        edit(issue, "深度学习硬件的过去", "深度學習硬件的过去")  # a typo fixed in both

    assert main(["publish", *both]) == EXIT_OK
    lines = capsys.readouterr().err.splitlines()
    for number, issue in (("47", first), ("48", second)):
        wechat = f"wechat:sandbox  ai-systems-{number}: to do: changed since it was published"
        assert sum(line.startswith(wechat) for line in lines) == 1, lines
        (zhihu,) = [
            line for line in lines if line.startswith(f"zhihu:sandbox  ai-systems-{number}: ")
        ]
        assert (
            quoted_command(zhihu)
            == f"crosspost publish {issue} -c zhihu:sandbox --update --sandbox"
        )


def test_a_plain_text_digest_is_pointed_to_import_and_other_text_is_an_issue_as_it_is(
    home: Path, capsys: Capsys
) -> None:
    seed = home / "seed.txt"
    seed.write_text(DIGEST, encoding="utf-8")
    assert main(["publish", str(seed), "--sandbox", "--mode", "publish"]) == EXIT_BAD_INPUT
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"{seed}: is a plain-text digest (2 numbered items with 链接/作者 lines" in captured.err
    command = re.search(r"'(crosspost import [^']+)'", captured.err)
    assert command is not None and command.group(1) == f"crosspost import {seed}"
    assert main(["status", "--sandbox"]) == EXIT_OK
    assert capsys.readouterr().out.startswith("nothing published yet")  # nothing was sent

    # Followed as printed: an issue, whose check says nothing of a digest.
    assert main(shlex.split(command.group(1))[1:]) == EXIT_OK
    assert capsys.readouterr().out == f"wrote {home / 'seed.md'} (2 items, 0 warnings)\n"
    main(["check", str(home / "seed.md")])
    assert "plain-text digest" not in capsys.readouterr().out

    # Readable text that is no digest is rendered as it is, without a word about import.
    note = home / "note.txt"
    note.write_text("本周停更一期。\n\n1. 下周恢复\n2. 欢迎投稿\n", encoding="utf-8")
    assert main(["render", str(note), "-o", str(home / "out")]) == EXIT_OK
    assert "import" not in capsys.readouterr().out
    assert "本周停更一期" in (home / "out" / "zhihu.md").read_text(encoding="utf-8")


def test_counts_take_their_number(home: Path, capsys: Capsys) -> None:
    one = home / "one.txt"
    one.write_text("1. 一篇论文\n链接:https://example.com/a.pdf\n", encoding="utf-8")
    assert main(["import", str(one)]) == EXIT_OK
    assert capsys.readouterr().out == f"wrote {home / 'one.md'} (1 item, 0 warnings)\n"

    shutil.copytree(EXAMPLE.parent, home / "week")
    issue = home / "week" / "issue.md"
    assert main(["publish", str(issue), "--sandbox", "-c", "zhihu", "-q"]) == EXIT_OK
    capsys.readouterr()
    assert main(["status"]) == EXIT_OK
    assert "which has 1 post: 'crosspost status --sandbox'" in capsys.readouterr().out
    assert main(["publish", str(issue), "--sandbox", "-c", "wechat", "-q"]) == EXIT_OK
    capsys.readouterr()
    assert main(["status"]) == EXIT_OK
    assert "which has 2 posts: 'crosspost status --sandbox'" in capsys.readouterr().out
