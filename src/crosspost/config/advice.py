"""How a message spells the crosspost command a person should run next.

Advice that names a command ("record it with crosspost urls --set …", "run crosspost
reconcile …") is copied into a shell as printed, so it must run as printed, on the
ledger of the run that printed it. Every message that names a command builds it here,
with :func:`command_line`, which adds what decides that ledger:

- ``--sandbox``, when the advice is a rehearsal's: a rehearsal keeps a ledger of its own
  (``<state dir>/sandbox``), and the same command without ``--sandbox`` reads the real
  ledger, which does not know the rehearsal's posts. The message says whether it is
  (:attr:`Settings.rehearsing <crosspost.config.settings.Settings.rehearsing>`,
  :attr:`Account.rehearsal <crosspost.config.accounts.Account.rehearsal>`).
- ``--config`` and ``--state-dir``, as the running command was given them on its command
  line (:func:`repeating`, which the command line sets for the length of one command):
  without them the advice reads another config, or the default state dir's ledger, which
  does not know the run's posts. Only flags are repeated, as they were typed: a value
  that came from the environment (``CROSSPOST_CONFIG``, ``CROSSPOST_STATE_DIR``, a
  ``.env``) is where the advice runs too, as cron's next tick or a script that runs it
  has the same environment; writing it out would pin the advice to a value the
  environment is there to change. An operator who runs cron's advice in a login shell
  sets the crontab's variables there (README, "Commands").

Each is added only to a command that takes it (:data:`WITHOUT_SETTINGS`,
:data:`REHEARSED`): ``crosspost import`` reads no settings, and ``check`` has no
rehearsal of its own.
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Iterator, Mapping

#: The flag that makes a command work on the rehearsals' ledger and emulators.
SANDBOX_FLAG = "--sandbox"
#: The settings flags advice repeats, by their argparse destination: the two that decide
#: which config and which ledger a command acts on.
REPEATED_FLAGS: tuple[tuple[str, str], ...] = (("config", "--config"), ("state_dir", "--state-dir"))
#: The commands that read no settings, so take neither ``--config`` nor ``--state-dir``.
WITHOUT_SETTINGS = frozenset({"import", "sandbox"})
#: The commands that take ``--sandbox`` (a test holds these two sets to the parsers).
REHEARSED = frozenset(
    {"review", "approve", "publish", "status", "urls", "reconcile", "doctor", "run-due"}
)

#: ``--config X --state-dir Y`` as the running command was given them (see
#: :func:`repeating`). One value for the process, as its command line is, and not a
#: setting: advice is spelt far from the settings (an account's, the ledger's, a
#: platform's message) and by every thread of a run (its posts go out side by side, in a
#: pool whose threads would not see a :mod:`contextvars` value set by the command line).
#: Rebound, never changed in place: a thread reads the whole of one command's flags.
_given: tuple[str, ...] = ()


@contextlib.contextmanager
def repeating(flags: Mapping[str, object]) -> Iterator[None]:
    """While this lasts, every command advised repeats ``--config`` and ``--state-dir``
    as ``flags`` (a parsed command line, ``vars(args)``) holds them; None: not given.
    What was repeated before comes back when it ends, however it ends: a second command
    in the same process (a test's ``main()``) does not advise the first one's flags."""
    global _given
    before = _given
    _given = tuple(
        word
        for name, flag in REPEATED_FLAGS
        if flags.get(name) is not None
        for word in (flag, str(flags[name]))
    )
    try:
        yield
    finally:
        _given = before


def command_line(*words: str, rehearsal: bool) -> str:
    """``crosspost WORDS`` as a shell reads it (a path with a space comes quoted), then the
    running command's ``--config`` and ``--state-dir`` (:func:`repeating`), then
    ``--sandbox`` when the advice is a rehearsal's: each when the command takes it.

    Placeholders a person fills in (``URL``, ``WECHAT_ID``) are words like any other.
    """
    command = words[0] if words else ""
    added: tuple[str, ...] = () if command in WITHOUT_SETTINGS else _given
    if rehearsal and command in REHEARSED:
        added += (SANDBOX_FLAG,)
    return " ".join(["crosspost", *(shlex.quote(word) for word in (*words, *added))])
