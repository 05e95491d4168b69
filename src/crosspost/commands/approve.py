"""``crosspost approve FILE``: the issue's posts may go out as they are now."""

from __future__ import annotations

import argparse
from pathlib import Path

from crosspost.commands.review import add_shared, with_publisher


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="issue files")
    add_shared(parser, "approve the posts of these accounts only (default: every account)")


def run(args: argparse.Namespace) -> int:
    from crosspost.publish.review import approve

    return with_publisher(args, lambda publisher: approve(publisher, args.files, args.targets))
