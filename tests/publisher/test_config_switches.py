"""Config mistakes read alike wherever they are: each true-or-false setting refuses a
quoted ``"yes"`` in the same line, and a misspelt table's name says its line.

``crosspost publish`` in this process against a live sandbox, as in test_bad_input: one
line naming ``file:line`` and what to write, exit 2, and no request reaches a platform.
"""

from __future__ import annotations

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK

from .world import World

ACCOUNT = "[channels.wechat.accounts.main]\n"

#: Every true-or-false setting the config file has, written quoted: where it goes (after
#: ``ACCOUNT``, else at the end of the file) and the line that holds it.
QUOTED_SWITCHES = {
    "notify on_success": (None, '[notify]\non_success = "yes"\n'),
    "images private_hosts": (None, '[images]\nprivate_hosts = "yes"\n'),
    "channel need_open_comment": (None, '[channels.wechat]\nneed_open_comment = "yes"\n'),
    "account only_fans_can_comment": (ACCOUNT, 'only_fans_can_comment = "yes"\n'),
    "account require_approval": (ACCOUNT, 'require_approval = "yes"\n'),
    "limit cover_required": (None, '[channels.wechat.limits]\ncover_required = "yes"\n'),
}


def add_to_config(world: World, after: str | None, text: str) -> int:
    """Put ``text`` in the world's config and return the line of its last line."""
    config = world.config.read_text(encoding="utf-8")
    if after is None:
        config = f"{config}\n{text}"
    else:
        assert after in config
        config = config.replace(after, after + text, 1)
    world.config.write_text(config, encoding="utf-8")
    last = text.rstrip("\n").splitlines()[-1]
    return config.splitlines().index(last) + 1


def refused(world: World, capsys: pytest.CaptureFixture[str]) -> str:
    """The one line ``publish`` stops with, after checking it sent nothing."""
    code = main(["publish", str(world.issue), "--mode", "publish"])
    out, err = capsys.readouterr()
    assert code == EXIT_BAD_INPUT and out == "", err
    assert world.box.requests == []
    (line,) = err.splitlines()
    return line


@pytest.mark.parametrize("name", list(QUOTED_SWITCHES))
def test_every_switch_refuses_a_quoted_yes_in_the_same_words(
    name: str, world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    world.use_env(monkeypatch)
    after, text = QUOTED_SWITCHES[name]
    line = add_to_config(world, after, text)
    key = text.splitlines()[-1].split(" = ")[0]
    assert refused(world, capsys) == (
        f"crosspost: error: {world.config}:{line}: '{key}' must be true or false "
        "(without quotes), not 'yes'"
    )


def test_the_environment_still_says_yes_in_words(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A variable holds text: CROSSPOST_NOTIFY_ON_SUCCESS=yes is how it says true."""
    world.use_env(monkeypatch)
    monkeypatch.setenv("CROSSPOST_NOTIFY_ON_SUCCESS", "yes")
    monkeypatch.setenv("CROSSPOST_PRIVATE_IMAGE_HOSTS", "on")
    assert main(["status"]) == EXIT_OK
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("after", "text"),
    [
        (None, "[chanels.wechat]\nneed_open_comment = true\n"),
        ("timeout = 10\n", 'chanels.wechat.mode = "draft"\n'),
    ],
    ids=["table header", "dotted key"],
)
def test_a_misspelt_table_names_its_line(
    after: str | None,
    text: str,
    world: World,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    world.use_env(monkeypatch)
    add_to_config(world, after, text)
    line = world.config.read_text(encoding="utf-8").splitlines().index(text.splitlines()[0]) + 1
    assert refused(world, capsys) == (
        f"crosspost: error: {world.config}:{line}: unknown setting 'chanels'; "
        "did you mean 'channels'?"
    )
