"""``crosspost check FILE... [--json]``: lint issue files against every channel's limits.

Prints one line per problem, ``path:line: [channel] error: message`` (``warning:``;
``note:`` only with ``--verbose``), then a line per file: how many errors and warnings it
has and that ``publish`` refuses it until the errors are fixed (none after a file's one
error alone: that line says it), or ``path: ok (…)`` when it has none. Exit 0 when no
file has an error (warnings and notes do not fail), 2 otherwise, 75 when a remote image
could not be reached (network trouble: try again later).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from crosspost.commands.deferred import defer
from crosspost.commands.render import add_channel_flag, add_theme_and_settings_flags
from crosspost.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_TEMPORARY

if TYPE_CHECKING:
    from crosspost.check.lint import Checked


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="issue files (Markdown)")
    add_channel_flag(parser, "check")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_theme_and_settings_flags(parser)
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="also print notes (JSON always has them)"
    )


def run(args: argparse.Namespace) -> int:
    defer()  # before the renderers' libraries load: see crosspost.commands.deferred
    from crosspost.check.images import only_unreachable
    from crosspost.check.lint import INFO, WARNING, check_file, with_companions
    from crosspost.commands.render import settings_of
    from crosspost.images.remote import sources_for
    from crosspost.publish.series import previous_reader
    from crosspost.render.context import render_context

    # What is checked is what `publish` sends: the configured theme, templates and limits,
    # the 往期回顾 the ledger already knows, every image read and decoded by the rules
    # publish reads it by (remote ones downloaded), and the options publishing needs.
    settings = settings_of(args)
    context = render_context(settings, args.theme)
    platforms, previous = settings.platforms(), previous_reader(settings.ledger)
    # An editor checks again and again: images decoded by an earlier check are not
    # decoded again (publish, which sends them, always decodes).
    images = replace(sources_for(settings), probes=settings.image_probes)
    results: list[Checked] = []
    for path in args.files:
        checked = check_file(
            path, args.channels or (), context, platforms, previous, images, settings
        )
        lead, companions = with_companions(
            checked,
            lambda other: check_file(
                other, ("wechat",), context, platforms, previous, images, settings
            ),
        )
        results += [lead, *companions]
    errors = sum(len(result.errors) for result in results)
    if args.json:
        print(json.dumps(_as_json(results, errors, WARNING), ensure_ascii=False, indent=2))
    else:
        for result in results:
            for problem in result.problems:
                if args.verbose or problem.severity != INFO:
                    print(problem)
            closing = _closing_line(result)
            if closing:
                print(closing)
    if not errors:
        return EXIT_OK
    # Remote images out of reach alone: this machine's network, not the issue (75).
    codes = (p.code for result in results for p in result.errors)
    return EXIT_TEMPORARY if only_unreachable(codes) else EXIT_BAD_INPUT


def _closing_line(result: Checked) -> str:
    """The line after a file's problems: how many of each kind and what they mean for
    ``publish`` (``render`` ends its list the same way); ``ok`` for a file without errors.
    Nothing more for a file with one error alone, or one that could not be read: bad
    input is one line, and its ``error:`` says what it is."""
    from crosspost.check.lint import ERROR, WARNING, refused_line, tally

    if result.issue is None:
        return ""
    if result.errors:
        listed = [p for p in result.problems if p.severity in (ERROR, WARNING)]
        return refused_line(result.path, result.problems) if len(listed) > 1 else ""
    warned = tally(result.problems)
    return f"{result.path}: ok ({', '.join(result.rendered)})" + (f", {warned}" if warned else "")


def _as_json(results: list[Any], errors: int, warning: str) -> dict[str, Any]:
    return {
        "errors": errors,
        "warnings": sum(p.severity == warning for r in results for p in r.problems),
        "files": [
            {
                "path": str(result.path),
                "issue": result.issue.id if result.issue else None,
                "channels": list(result.rendered),
                "problems": [problem.as_dict() for problem in result.problems],
            }
            for result in results
        ],
    }
