"""``crosspost preview FILE [-o DIR]``: one HTML page showing the issue as each channel will.

The WeChat article sits in a 375 px phone column (with the chat-list card above it),
the Zhihu article beside it in its column width. Image sources point at the local files,
relative to the page, so the folder can be zipped and opened elsewhere. Like ``render``
it shows any file it can read: every problem ``check`` finds (errors, warnings and notes)
is listed at the top of the page with its line, and in the terminal.

The page is written by :func:`write_preview`, which returns its path, so a later flag
(``--screenshot out.png``) can hand that path to a headless browser.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote, urlsplit

from crosspost.commands.render import (
    add_render_options,
    checked_or_report,
    output_folder,
    settings_of,
)
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, UsageError

if TYPE_CHECKING:
    from crosspost.check.lint import Checked, Problem
    from crosspost.issue.model import Issue

PREVIEW_FILE = "preview.html"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the issue file (Markdown)")
    add_render_options(parser)
    parser.add_argument(
        "--screenshot",
        metavar="PNG",
        type=Path,
        help="also photograph the page in headless Chromium (apt-get install chromium) to this PNG",
    )


def run(args: argparse.Namespace) -> int:
    shot: Path | None = args.screenshot
    if shot is not None:
        from crosspost.preview.screenshot import check_png_path

        check_png_path(shot, args.output)  # before rendering: a wrong name costs no render
    settings = settings_of(args)
    checked = checked_or_report(args.file, (), args.theme, settings)
    if checked is None:
        return EXIT_BAD_INPUT
    folder = output_folder(args.output, checked)
    path = write_preview(checked, folder, tuple(settings.template_dirs))
    print(f"wrote {path}")
    if shot is not None:
        from crosspost.preview.screenshot import screenshot

        shot.parent.mkdir(parents=True, exist_ok=True)  # checked: in the folder -o made
        print(f"wrote {screenshot(path, shot)}")
    return EXIT_OK


def write_preview(checked: Checked, folder: Path, template_dirs: tuple[Path, ...] = ()) -> Path:
    """Write ``folder/preview.html`` for an issue that rendered; return its path."""
    from crosspost.preview.columns import article
    from crosspost.render.templates import render_template

    issue = checked.issue
    assert issue is not None  # only called for a file that loaded
    articles: list[dict[str, Any]] = []
    for channel, output in checked.rendered.items():
        settings = issue.settings(channel)
        links = {source: _local_link(issue, source, folder) for source in output.images}
        cover = _local_link(issue, str(settings.cover), folder) if settings.cover else None
        articles.append(article(issue, channel, output, links, cover))
    page = render_template(
        "preview/preview.html.j2",
        template_dirs,
        issue=issue,
        articles=articles,
        problems=[_listed(problem) for problem in checked.problems],
    )
    path = folder / PREVIEW_FILE
    try:
        path.write_text(page, "utf-8")
    except OSError as error:
        raise UsageError(f"{path}: cannot write ({error.strerror})") from None
    return path


def _listed(problem: Problem) -> dict[str, Any]:
    """A problem as the page lists it: its line first, where the editor will look."""
    return {
        "line": problem.line,
        "channel": problem.channel,
        "severity": problem.severity,
        "message": problem.message,
        "text": str(problem),
    }


def _local_link(issue: Issue, source: str, folder: Path) -> str:
    """``source`` as the preview page must write it: local files relative to ``folder``."""
    if urlsplit(source).scheme in ("http", "https", "data"):
        return source
    target = issue.folder / unquote(source)
    relative = os.path.relpath(target.resolve(), folder.resolve())
    return quote(Path(relative).as_posix())
