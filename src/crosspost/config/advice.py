"""How a message spells the crosspost command a person should run next.

Advice that names a command ("record it with crosspost urls --set …", "run crosspost
reconcile …") is copied into a shell as printed, so it must run as printed. A ``--sandbox``
rehearsal keeps a ledger of its own (``<state dir>/sandbox``): the same command without
``--sandbox`` reads the real ledger, which does not know the rehearsal's posts. Every
message that names a command builds it here, told whether the run was a rehearsal
(:attr:`Settings.rehearsing <crosspost.config.settings.Settings.rehearsing>`,
:attr:`Account.rehearsal <crosspost.config.accounts.Account.rehearsal>`).
"""

from __future__ import annotations

import shlex

#: The flag that makes a command work on the rehearsals' ledger and emulators.
SANDBOX_FLAG = "--sandbox"


def command_line(*words: str, rehearsal: bool) -> str:
    """``crosspost WORDS`` as a shell reads it (a path with a space comes quoted), with
    ``--sandbox`` last when the advice is a rehearsal's.

    Placeholders a person fills in (``URL``, ``WECHAT_ID``) are words like any other.
    """
    line = " ".join(["crosspost", *(shlex.quote(word) for word in words)])
    return f"{line} {SANDBOX_FLAG}" if rehearsal else line
