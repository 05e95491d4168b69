"""``crosspost doctor`` for a Zhihu account: reads only.

The login cookie works (``GET /api/v4/me`` answers with a user), the configured column is
one of the user's columns (E11), and the configured topics resolve (E8). Each failure is
one problem line that says what to do; a network failure marks the account unreachable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from crosspost.channels.base import Adapter
from crosspost.channels.checkup import Checkup
from crosspost.channels.zhihu.api import ZhihuApi
from crosspost.channels.zhihu.catalog import find_column, find_topics, topic_names
from crosspost.errors import ChannelError, TransientError


def checkup(adapter: Adapter, api: ZhihuApi, options: Mapping[str, Any]) -> Checkup:
    """Examine the account ``adapter`` serves; ``options`` are the account's own."""
    account = adapter.account.key
    facts: list[tuple[str, str]] = []
    problems: list[str] = []
    try:
        facts.append(("login", f"works (logged in as {adapter.preflight().identity})"))
    except TransientError as error:
        return Checkup(account, problems=(str(error),), unreachable=True)
    except ChannelError as error:
        return Checkup(account, (("login", "refused"),), problems=(str(error),))
    unreachable = False
    checks: tuple[tuple[str, Any, Callable[[ZhihuApi, Any], str]], ...] = (
        ("column", options.get("column"), _column),
        ("topics", topic_names({}, options), _topics),
    )
    for label, wanted, look in checks:
        if not wanted:
            facts.append((label, "none configured"))
            continue
        try:
            facts.append((label, look(api, wanted)))
        except TransientError as error:
            unreachable = True
            problems.append(str(error))
        except ChannelError as error:
            facts.append((label, "not found"))
            problems.append(str(error))
    return Checkup(account, tuple(facts), problems=tuple(problems), unreachable=unreachable)


def _column(api: ZhihuApi, wanted: Any) -> str:
    return f"found ({find_column(api, wanted)})"


def _topics(api: ZhihuApi, names: list[str]) -> str:
    found = find_topics(api, names)
    pairs = zip(names, found, strict=True)
    return ", ".join(f"{name} → {topic.get('name')}" for name, topic in pairs)
