"""The callout kinds every syntax of callout is read as, and the names other tools give them.

One table for all of them (VuePress containers, GitHub alerts, MkDocs admonitions, MyST
directives, Hexo's and Hugo's notes), so a kind is named the same wherever it came from.
"""

from __future__ import annotations

#: Callout kinds and the label a reader sees when the editor wrote no title. The
#: container names of VuePress/doocs and GitHub's five alert kinds; labels as the
#: Chinese editions of those tools show them.
CALLOUT_LABELS: dict[str, str] = {
    "tip": "提示",
    "info": "信息",
    "note": "注",
    "important": "重要",
    "warning": "注意",
    "caution": "警告",
    "danger": "危险",
    "details": "详情",
}
#: The kind an unknown container name is shown as (lint warns about the name).
PLAIN_CALLOUT = "note"
#: Other tools' callout names beyond those (MkDocs Material's admonitions, MyST's and
#: Sphinx's directives), as the kind of callout each reads as.
CALLOUT_SYNONYMS = {
    "abstract": "info", "summary": "info", "tldr": "info", "todo": "info",
    "question": "info", "help": "info", "faq": "info", "example": "info", "seealso": "info",
    "success": "tip", "check": "tip", "done": "tip", "hint": "tip",
    "attention": "warning", "failure": "danger", "fail": "danger", "missing": "danger",
    "error": "danger", "bug": "danger", "quote": "note", "cite": "note",
    "admonition": PLAIN_CALLOUT, "tips": "tip",  # Yuque's
    "spoiler": "details",  # HackMD's (CodiMD's) folded block: ":::spoiler 点我展开"
}  # fmt: skip


def callout_kind(name: str) -> str:
    """The kind a callout named ``name`` (any case) is shown as; unknown: a plain note."""
    name = CALLOUT_SYNONYMS.get(name.lower(), name.lower())
    return name if name in CALLOUT_LABELS else PLAIN_CALLOUT


def is_callout_name(name: str) -> bool:
    """Whether ``name`` names a kind of callout, ours or another tool's."""
    return name.lower() in CALLOUT_LABELS or name.lower() in CALLOUT_SYNONYMS
