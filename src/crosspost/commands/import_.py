"""``crosspost import FILE [-o ISSUE.md]``: a plain-text digest, a saved page or a Telegram
channel's export → an issue."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from crosspost.config.counts import counted
from crosspost.errors import EXIT_OK, IssueError, UsageError

_PAGE_SUFFIXES = {".html", ".htm", ".xhtml"}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        type=Path,
        metavar="FILE",
        help="a plain-text digest (.txt), a saved page or Telegram's messages.html (.html)",
    )
    parser.add_argument(
        "-o", "--output", type=Path, help="the issue file to write (default: FILE with .md)"
    )
    parser.add_argument("--force", action="store_true", help="overwrite an existing output file")


def run(args: argparse.Namespace) -> int:
    source: Path = args.file
    output: Path = args.output or source.with_suffix(".md")
    if output.resolve() == source.resolve():
        raise UsageError(f"{output}: would overwrite the file being imported; name another with -o")
    if output.exists() and not args.force:
        raise UsageError(f"{output}: already exists; pass --force to overwrite or -o another file")
    if source.suffix.lower() in _PAGE_SUFFIXES:
        from crosspost.importers.article import import_article
        from crosspost.importers.telegram import import_telegram, is_telegram_export

        try:
            telegram = is_telegram_export(source.read_bytes())
        except OSError:
            telegram = False  # import_article says why it cannot be read
        try:
            article = (import_telegram if telegram else import_article)(source, output)
        except OSError as error:  # copying an image beside the output
            raise _cannot_write(Path(error.filename or output), error) from None
        document = article.document
        warnings = [f"{source}: warning: {text}" for text in article.warnings]
        summary = f"{counted(len(article.images_copied), 'image')} copied"
    else:
        from crosspost.importers.digest import import_digest

        _refuse_canvas(source)
        digest = import_digest(source)
        document = digest.document
        warnings = [f"{source}:{w.line}: warning: {w.message}" for w in digest.warnings]
        summary = f"{counted(digest.items, 'item')}"
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(document, encoding="utf-8")
    except OSError as error:
        raise _cannot_write(output, error) from None
    for line in warnings:
        print(line, file=sys.stderr)
    print(f"wrote {output} ({summary}, {counted(len(warnings), 'warning')})")
    return EXIT_OK


def _refuse_canvas(source: Path) -> None:
    """An Obsidian Canvas is no digest: one line saying so, not an issue of nothing."""
    from crosspost.issue.canvas import canvas_problem, is_canvas_text

    try:
        text = source.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return  # import_digest says why it cannot be read
    if is_canvas_text(text):
        raise IssueError(source, canvas_problem(text), 1)


def _cannot_write(path: Path, error: OSError) -> UsageError:
    return UsageError(
        f"{path}: cannot write ({error.strerror or error}); "
        "check the folder exists, is a folder and may be written, or choose another with -o"
    )
