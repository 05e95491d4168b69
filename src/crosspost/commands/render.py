"""``crosspost render FILE [-c CHANNEL]... [-o DIR]``: write each channel's output files.

Writes what :attr:`Rendered.files` holds (``wechat.html``, ``zhihu.md``, ``zhihu.html``)
into DIR, by default ``build/<issue id>/``, for any file it can read: what ``check`` would
refuse (a title too long, no cover) is printed, one line each, and the files are written
all the same, so the editor can look at what they are asked to fix. Exit 0 when files
were written; 2 only when the file cannot be read or no channel could be rendered.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from crosspost.commands.deferred import defer
from crosspost.config.sources import add_arguments
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, UsageError
from crosspost.platforms.registry import platform_names

if TYPE_CHECKING:
    from crosspost.check.lint import Checked
    from crosspost.config.settings import Settings
    from crosspost.render.rendered import Rendered


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the issue file (Markdown)")
    add_render_options(parser)
    add_channel_flag(parser, "render")


def add_channel_flag(parser: argparse.ArgumentParser, verb: str) -> None:
    """``-c CHANNEL``, repeatable, shared with ``check``: channels of the issue, no accounts
    (``publish -c`` and ``urls -c`` also take ``CHANNEL:ACCOUNT``)."""
    parser.add_argument(
        "-c",
        "--channel",
        action="append",
        choices=platform_names(),
        dest="channels",
        help=f"{verb} only this channel (repeatable; default: the issue's channels)",
    )


def add_render_options(parser: argparse.ArgumentParser) -> None:
    """``-o DIR``, ``--theme``, ``--config`` and ``--state-dir``, shared with ``preview``
    and ``check``: the theme and template folders are the configured ones, as for
    ``publish``, unless ``--theme`` names another."""
    parser.add_argument(
        "-o", "--output", metavar="DIR", type=Path, help="output folder (default: build/<issue id>)"
    )
    add_theme_and_settings_flags(parser)


def add_theme_and_settings_flags(parser: argparse.ArgumentParser) -> None:
    """``--theme`` (default: the configured theme) and the settings flags of ``publish``."""
    add_arguments(parser, "theme", "config", "state_dir")


def run(args: argparse.Namespace) -> int:
    defer()  # before the renderers' libraries load: see crosspost.commands.deferred
    checked = checked_or_report(args.file, args.channels or (), args.theme, settings_of(args))
    if checked is None:
        return EXIT_BAD_INPUT
    folder = output_folder(args.output, checked)
    for path in write_files(checked.rendered, folder):
        print(f"wrote {path}")
    return EXIT_OK


def settings_of(args: argparse.Namespace) -> Settings:
    """The resolved settings of a command with the render options."""
    from crosspost.config.settings import settings_from_args

    return settings_from_args(args)


def checked_or_report(
    file: str, channels: Iterable[str], theme: str | None, settings: Settings | None = None
) -> Checked | None:
    """Load, render and lint ``file`` as ``publish`` would render it (the configured theme,
    template folders and limits; ``theme`` overrides the theme); print errors and warnings
    to stderr. ``None`` only when there is nothing to show: the file could not be read, or
    no channel rendered. Lint errors do not stop it: they are ``check``'s and
    ``publish``'s to refuse."""
    from crosspost.check.lint import INFO, check_file, refused_line
    from crosspost.config.settings import load_settings
    from crosspost.images.sources import ImageSources
    from crosspost.publish.series import previous_reader
    from crosspost.render.context import render_context

    if settings is None:
        settings = load_settings({"theme": theme})
    # Rendering downloads nothing: remote images are judged by their URL (check fetches).
    images = ImageSources(folders=settings.image_folders, probes=settings.image_probes)
    checked = check_file(
        file,
        tuple(channels),
        render_context(settings, theme),
        settings.platforms(),
        previous_reader(settings.ledger),
        images,
        lenient=True,  # front matter that does not parse: the body is shown all the same
    )
    for problem in checked.problems:
        if problem.severity != INFO:  # notes are for `check -v` and the preview page
            print(problem, file=sys.stderr)
    if checked.errors and checked.rendered:
        refused = refused_line(file, checked.problems)
        print(f"{refused}; the files are written so you can look", file=sys.stderr)
    return checked if checked.issue is not None and checked.rendered else None


def output_folder(requested: Path | None, checked: Checked) -> Path:
    """``requested``, or ``build/<issue id>``; created if missing, refused if it is a file."""
    assert checked.issue is not None  # only called for a file that loaded
    folder = requested if requested is not None else Path("build") / checked.issue.id
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder}: is a file, not a folder; choose another -o DIR")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"{folder}: cannot create the folder ({error.strerror})") from None
    return folder


def write_files(rendered: Mapping[str, Rendered], folder: Path) -> list[Path]:
    """Write every channel's files into ``folder``; return their paths in channel order."""
    written: list[Path] = []
    for output in rendered.values():
        for name, text in output.files.items():
            path = folder / name
            try:
                path.write_text(text, "utf-8")
            except OSError as error:
                raise UsageError(f"{path}: cannot write ({error.strerror})") from None
            written.append(path)
    return written
