"""``crosspost ledger migrate --to URL`` and ``crosspost ledger export [-o FILE]``.

``migrate`` copies this machine's SQLite ledger (the state dir's) into a PostgreSQL
ledger several machines can share, then prints one line per table with its rows on both
sides; run it twice and nothing changes (see :mod:`crosspost.ledger.moving`). After it,
set ``ledger_url`` to the same URL on every host. ``export`` writes the ledger the config
points at (SQLite or PostgreSQL) as JSON Lines, for backups; nothing secret is in it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from crosspost.config.sources import add_arguments
from crosspost.errors import EXIT_CHANNEL_FAILED, EXIT_OK, UsageError


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    migrate = actions.add_parser(
        "migrate",
        help="copy this machine's SQLite ledger into PostgreSQL (safe to run again)",
        description="copy this machine's SQLite ledger into PostgreSQL (safe to run again)",
    )
    migrate.add_argument(
        "--to",
        required=True,
        metavar="URL",
        help="the PostgreSQL ledger: postgresql://USER@HOST:PORT/DATABASE",
    )
    add_arguments(migrate)
    export = actions.add_parser(
        "export",
        help="write the ledger as JSON Lines (a backup; nothing secret in it)",
        description="write the ledger as JSON Lines (a backup; nothing secret in it)",
    )
    export.add_argument(
        "-o", "--output", metavar="FILE", help="write to this file instead of stdout"
    )
    export.add_argument(
        "--force", action="store_true", help="with -o: replace FILE if it exists already"
    )
    add_arguments(export)


def run(args: argparse.Namespace) -> int:
    from crosspost.config.settings import settings_from_args

    settings = settings_from_args(args)
    if args.action == "migrate":
        return _migrate(settings.ledger_path, args.to)
    return _export(settings.ledger, args.output, replace=args.force)


def _migrate(source: Path, url: str) -> int:
    from crosspost.config.redaction import Redactor
    from crosspost.ledger.moving import copy
    from crosspost.ledger.schema import is_postgres_url
    from crosspost.ledger.store import Ledger

    if not is_postgres_url(url):
        raise UsageError(
            f"--to {Redactor()(url)!r}: give a PostgreSQL URL, postgresql://USER@HOST:PORT/DATABASE"
        )
    if not source.is_file():
        raise UsageError(f"no ledger at {source}; nothing to migrate (is --state-dir right?)")
    from crosspost.ledger.postgres import check_url

    check_url(url, host_required=True)  # a shared ledger: another machine must reach it
    with Ledger.open(source) as sqlite, Ledger.open(url) as postgres:
        counts = copy(sqlite, postgres)
        for entry in counts:
            verdict = "ok" if entry.matches else "DIFFERENT"
            print(
                f"{entry.table}: {entry.source} in {source}, {entry.target} in "
                f"{postgres.path}: {verdict}"
            )
    if not all(entry.matches for entry in counts):
        print("crosspost: the counts differ; the PostgreSQL ledger is not a copy", file=sys.stderr)
        return EXIT_CHANNEL_FAILED
    return EXIT_OK


def _export(where: Path | str, output: str | None, *, replace: bool = False) -> int:
    from crosspost.config.files import write_atomic
    from crosspost.ledger.moving import export_lines
    from crosspost.ledger.store import Ledger

    if isinstance(where, Path) and not where.is_file():
        raise UsageError(f"no ledger at {where}; nothing was published yet")
    target = None if output is None else _export_target(output, replace=replace)
    with Ledger.open(where, read_only=True) as ledger:
        lines = list(export_lines(ledger))
    text = "".join(line + "\n" for line in lines)
    if target is None:
        sys.stdout.write(text)
    else:
        write_atomic(
            target,
            text,
            what="the export",
            elsewhere="give -o a file in a folder this user can write to",
        )
    return EXIT_OK


def _export_target(output: str, *, replace: bool) -> Path:
    """The file ``-o`` names, refused before the ledger is read when it cannot be one:
    nothing, a folder, a path through a file, or (without ``--force``) a file already
    there, which may be the last good backup."""
    said = f"ledger export -o {output!r}"
    if not output.strip():
        raise UsageError(f"{said}: give a file name (or leave -o out to write to stdout)")
    target = Path(output)
    if target.is_dir():
        raise UsageError(
            f"{said}: is a folder; give a file in it, e.g. -o {target / 'ledger.jsonl'}"
        )
    if target.exists() and not replace:
        raise UsageError(
            f"{said}: the file exists; add --force to replace it, or give another name"
        )
    folder = next((p for p in target.parents if p.exists()), None)
    if folder is not None and not folder.is_dir():
        raise UsageError(f"{said}: {folder} is a file, not a folder; give -o a file in a folder")
    return target
