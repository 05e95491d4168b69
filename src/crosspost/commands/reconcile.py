"""``crosspost reconcile ISSUE_ID``: ask the platforms what happened to unconfirmed posts."""

from __future__ import annotations

import argparse
import time

from crosspost.commands.publish import accounts_for_run, print_report
from crosspost.commands.switches import Switches
from crosspost.commands.table import print_progress
from crosspost.config.sources import add_arguments
from crosspost.errors import UsageError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("issue_id", metavar="ISSUE_ID")
    parser.add_argument("--sandbox", action="store_true", help="ask the built-in emulators")
    add_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace) -> int:
    from crosspost.config.settings import settings_from_args
    from crosspost.ledger.store import Ledger
    from crosspost.publish.runner import Publisher

    settings = settings_from_args(args)
    if not settings.ledger_path.exists():
        raise UsageError(f"no ledger at {settings.ledger_path}; nothing was published yet")
    switches = Switches.from_environment()
    clock = switches.clock(time.time)
    with accounts_for_run(settings, sandbox=args.sandbox, switches=switches) as (settings, sleep):
        from crosspost.config.redaction import redactor_for

        redactor = redactor_for([s for a in settings.accounts for s in a.secrets])
        with Ledger.open(settings.ledger_path, clock=clock, redact=redactor) as ledger:
            publisher = Publisher(
                settings, ledger, clock=clock, sleep=sleep, progress=print_progress
            )
            report = publisher.reconcile(args.issue_id)
    print_report(report, as_json=args.json)
    return report.exit_code
