"""What a bug leaves behind: one line for the person, the traceback in a file for the fix.

An exception crosspost did not expect is a bug, not something an editor can act on, so
the editor (or the cron mail, or the desk's page) gets one line saying what stopped and
where the details are; the traceback goes to a file that whoever fixes the bug can read.
It lives beside the settings because it must hide what they hide: the environment's
secret-looking values and the usual ``token=…`` pairs never reach the file or the line.
"""

from __future__ import annotations

import os
import platform
import tempfile
import traceback
from collections.abc import Sequence

from crosspost import __version__
from crosspost.config.redaction import Redactor

#: Parts of an environment variable's name that make its value a secret to hide.
_SECRET_NAMES = ("SECRET", "TOKEN", "COOKIE", "PASSWORD", "PASSWD", "KEY", "AUTH", "CREDENTIAL")
#: How much of the exception's own words the line keeps.
_SAID = 200


def bug_report(what: str, argv: Sequence[str], error: BaseException) -> str:
    """Write ``error``'s traceback to a report file and return the line to show.

    ``what`` names what stopped (``'render'``, ``the page /issue/x``). The file is in the
    system's temporary folder (the state folder may be what failed), created readable by
    its owner only (:func:`tempfile.mkstemp`); when none can be written, the line says so.
    """
    redact = Redactor()
    for name, value in os.environ.items():
        if any(part in name.upper() for part in _SECRET_NAMES):
            redact.register(value)
    kind = type(error).__name__
    said = redact(" ".join(str(error).split()))
    said = f"{kind}: {said[:_SAID]}" if said else kind
    details = (
        f"crosspost {__version__}, Python {platform.python_version()}, {platform.platform()}\n"
        f"command: crosspost {redact(' '.join(argv))}\n\n"
        + redact("".join(traceback.format_exception(error)))
    )
    try:
        handle, name = tempfile.mkstemp(prefix="crosspost-crash-", suffix=".txt")
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(details)
        where = f"The details are in {name}; please report it with that file"
    except OSError:
        where = "No file could be written for the details; please report this line"
    return (
        f"{what} stopped on an internal error ({said}); this is a crosspost bug, not your "
        f"input or config. {where}"
    )
