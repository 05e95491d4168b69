"""A block or page an outliner's export refers to, whose words are not in the file.

Logseq and Roam Research refer to a block of the graph by its id (Logseq's a UUID,
``((6655f017-…))``; Roam's nine characters, ``((Gx7s-k9aL))``) and show that block's words
in the sentence; an embed (``{{embed ((id))}}``, Roam's ``{{embed: ((uid))}}``) shows a
block or a whole page in place. Those words live elsewhere in the graph: read as Markdown,
a reference went out as a silent gap (``参考了 的讨论``). Each tool's module finds its own
marks (:mod:`crosspost.issue.logseq`, :mod:`crosspost.issue.roam`); what they become is
the same: a visible :data:`MARK` (an embedded page, its name), and a warning for check
at the line, quoting what was written, that the words are missing and where to get them.
"""

from __future__ import annotations

from collections.abc import Sequence

from crosspost.issue.blocks import escaped, shortened

#: What stands where the words of a block that is not in the file were: ``[…]``.
MARK = "\\[…\\]"


def in_place_of(page: str = "") -> str:
    """The Markdown shown where a block (or the embedded ``page``: its name) was."""
    return escaped(page) if page else MARK


def reference_message(tool: str, references: Sequence[str]) -> str:
    """What check says of the block references of one line of ``tool``'s page
    (``references`` as written; a link to a block, ``[words](((id)))``, keeps its words)."""
    more = f" (and {len(references) - 1} more on this line)" if len(references) > 1 else ""
    quoted = f"'{shortened(references[0], 60)}'{more}"
    if references[0].startswith("["):  # [words](((id))): the words are here, the link not
        return (
            f"{quoted} links to a block of your {tool} graph: no reader outside it can "
            "follow it, so only its words are shown; write [text](url) to link"
        )
    return (
        f"{quoted} is a {tool} block reference: {tool} shows the words of that block here, "
        "which are in your graph, not in this file, so readers see '[…]' in their place; "
        "paste the block's text here"
    )


def embed_message(tool: str, written: str, page: str = "") -> str:
    """What check says of ``tool``'s embed of a block (or of ``page``), as ``written``."""
    what = f"the page '{page}'" if page else "a block"
    seen = "only the page's name" if page else "'[…]'"
    return (
        f"'{shortened(written, 60)}' is {tool}'s embed of {what}, whose text is in your "
        f"graph, not in this file, so readers see {seen} in its place; paste the text here"
    )
