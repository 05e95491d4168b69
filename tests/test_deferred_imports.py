"""``check`` and ``render`` start without the libraries they never use, and a library that
is used after all still works (it loads on first use)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "ai-systems-48" / "issue.md"


def python(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter (imports are per process)."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120
    )


#: What ``check`` and ``render`` of the example must not load: libraries they never call
#: (requests, soupsieve), formulas the example does not have, other commands' modules
#: (the command line fills in only the options of the command that runs), a ledger that
#: is not there, the CSS inliner's former cssutils stack, Pygments (the example has no
#: code block, and its theme names the default style), nh3, Beautiful Soup and the
#: raw-HTML tag mapper with its html.parser (it has no raw HTML), the formula module (no
#: formula), difflib (no mistyped key to suggest a spelling for), emoji (no ``:tada:``)
#: and texmath (no ``\(…\)`` formula).
NOT_FOR_CHECK_OR_RENDER = (
    "urllib3", "requests.sessions", "soupsieve.css_parser", "ziamath", "latex2mathml",
    "crosspost.commands.publish", "crosspost.commands.switches", "crosspost.ledger.store",
    "sqlite3", "premailer", "cssutils", "pygments", "bs4", "difflib",
    "crosspost.render.wechat.math", "crosspost.render.wechat.tags", "html.parser", "nh3",
    "emoji", "mdit_py_plugins.texmath",
)  # fmt: skip


def test_check_and_render_do_not_load_requests_or_soupsieve(tmp_path: Path) -> None:
    done = python(
        "import os, sys\n"
        f"os.environ['CROSSPOST_STATE_DIR'] = {str(tmp_path / 'state')!r}\n"
        "os.environ.pop('CROSSPOST_LEDGER_URL', None)\n"
        "from crosspost.cli import main\n"
        f"assert main(['check', {str(EXAMPLE)!r}]) == 0\n"
        f"assert main(['render', {str(EXAMPLE)!r}, '-o', {str(tmp_path)!r}]) == 0\n"
        f"loaded = [m for m in {NOT_FOR_CHECK_OR_RENDER!r} if m in sys.modules]\n"
        "print('loaded:', loaded)\n"
    )
    assert done.returncode == 0, done.stderr
    assert "loaded: []" in done.stdout
    assert (tmp_path / "wechat.html").is_file()


def test_raw_html_loads_beautiful_soup_when_it_is_met(tmp_path: Path) -> None:
    """A video and a table of links in raw HTML, rendered in a fresh process: the parser
    left out of start-up loads at the first raw HTML, and both channels keep the links."""
    issue = tmp_path / "issue.md"
    issue.write_text(
        "---\ntitle: raw\n---\n\nbefore\n\n"
        '<video src="https://example.com/a.mp4"></video>\n\n'
        '<table><tr><td>链接</td><td><a href="https://example.com/cell">cell</a></td></tr>'
        "</table>\n\n"
        "after\n",
        "utf-8",
    )
    done = python(
        "import os, sys\n"
        f"os.environ['CROSSPOST_STATE_DIR'] = {str(tmp_path / 'state')!r}\n"
        "from crosspost.cli import main\n"
        "assert 'bs4' not in sys.modules\n"
        f"assert main(['render', {str(issue)!r}, '-o', {str(tmp_path / 'out')!r}]) == 0\n"
        "print('loaded:', 'bs4' in sys.modules)\n"
    )
    assert done.returncode == 0, done.stderr
    assert "loaded: True" in done.stdout
    zhihu = (tmp_path / "out" / "zhihu.html").read_text("utf-8")
    wechat = (tmp_path / "out" / "wechat.html").read_text("utf-8")
    assert 'href="https://example.com/a.mp4"' in zhihu
    assert "cell (https://example.com/cell)" in zhihu  # a Zhihu cell holds plain text
    assert "https://example.com/a.mp4" in wechat and "after" in wechat and "after" in zhihu


def test_a_deferred_module_loads_on_first_use_and_a_missing_one_stays_missing() -> None:
    done = python(
        "import sys\n"
        "from crosspost.commands.deferred import defer\n"
        "assert defer(['colorsys', 'crosspost_no_such_module']) == ['colorsys']\n"
        "import colorsys\n"
        "from colorsys import hsv_to_rgb\n"
        "print(colorsys.rgb_to_hsv(1.0, 0.0, 0.0), hsv_to_rgb(0.0, 0.0, 1.0))\n"
        "print(type(sys.modules['colorsys']).__name__)\n"
        "try:\n"
        "    import crosspost_no_such_module\n"
        "except ImportError:\n"
        "    print('still missing')\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "(0.0, 1.0, 1.0) (1.0, 1.0, 1.0)",
        "module",
        "still missing",
    ]


def test_a_sqlite_ledger_and_its_locks_never_load_the_postgresql_driver(tmp_path: Path) -> None:
    """The PostgreSQL driver is the ``postgres`` extra: cron ticks on SQLite never pay for it."""
    state = tmp_path / "state"
    done = python(
        "import os, sys\n"
        f"os.environ['CROSSPOST_STATE_DIR'] = {str(state)!r}\n"
        "os.environ.pop('CROSSPOST_LEDGER_URL', None)\n"
        "from pathlib import Path\n"
        "from crosspost.cli import main\n"
        "from crosspost.ledger.store import Ledger, PostKey\n"
        "from crosspost.publish.settle import post_lock\n"
        "from crosspost.schedule.state import run_lock\n"
        f"state = Path({str(state)!r})\n"
        "with Ledger.open(state / 'ledger.sqlite3') as ledger:\n"
        "    key = PostKey('a', 'zhihu', 'main')\n"
        "    ledger.ensure(key)\n"
        "    with post_lock(state, key, timeout=1, ledger=ledger):\n"
        "        pass\n"
        "with run_lock(state, wait=False) as mine:\n"
        "    assert mine\n"
        f"assert main(['status', '--state-dir', {str(state)!r}]) == 0\n"
        f"assert main(['run-due', {str(tmp_path)!r}, '--state-dir', {str(state)!r}]) == 0\n"
        "print('loaded:', [m for m in sys.modules if m.split('.')[0] == 'psycopg'])\n"
    )
    assert done.returncode == 0, done.stderr
    assert "loaded: []" in done.stdout


def test_formulas_load_their_layout_on_the_first_one() -> None:
    done = python(
        "import sys\n"
        "from crosspost.render.wechat.math import formula_svg\n"
        "print('ziamath' in sys.modules)\n"
        "print(formula_svg('x^2', display=False)[:4])\n"
        "print('ziamath' in sys.modules)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["False", "<svg", "True"]


def test_a_second_check_of_the_same_images_loads_no_pillow(tmp_path: Path) -> None:
    """The first run decodes the example's images and keeps what they are in the state
    folder; the editor's next check reads that back instead of loading Pillow."""
    run = (
        "import sys\n"
        "from crosspost.cli import main\n"
        f"code = main(['check', {str(EXAMPLE)!r}, '--state-dir', {str(tmp_path)!r}])\n"
        "print(code, 'PIL.Image' in sys.modules)\n"
    )
    first, second = python(run), python(run)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert (first.stdout.split()[-2:], second.stdout.split()[-2:]) == (
        ["0", "True"],
        ["0", "False"],
    )
    assert len(list((tmp_path / "image-probes").glob("*.json"))) == 2  # cover and figure


def test_the_program_exits_with_the_commands_code_and_spares_the_last_collections(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``crosspost`` (``cli.run``) exits as ``main`` returns, after ``gc.freeze``: the
    interpreter's shutdown then does not walk every imported object once more."""
    import gc

    from crosspost.cli import run

    monkeypatch.setattr(sys, "argv", ["crosspost", "status", "--state-dir", str(tmp_path)])
    try:
        with pytest.raises(SystemExit) as exited:
            run()
        assert exited.value.code == 0
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    done = subprocess.run(
        [sys.executable, "-m", "crosspost", "no-such-command"], capture_output=True, cwd=REPO
    )
    assert done.returncode == 2 and done.stderr == (
        b"crosspost: error: 'no-such-command' is not a crosspost command ('crosspost --help' "
        b"lists them; nothing was run)\n"
    )
