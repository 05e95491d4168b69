"""CSDN's note that it could not copy a picture, read as the picture.

CSDN's editor copies each picture of a pasted or imported article to its own server.
When the picture's site refuses (hotlink protection), it leaves its note in the picture's
place: ``[外链图片转存失败,源站可能有防盗链机制,建议将图片保存下来直接上传(img-Ab3d-1615775123456)
(https://…/x.png)]`` ("could not copy the external picture, the source site may block
hotlinking, save it and upload it"), sometimes with a ``!`` before it, the picture's
original address in the last parentheses. Or it keeps the picture and writes that note as
its alt text: ``![外链图片转存失败,…](https://img-blog.csdnimg.cn/img_convert/….png)``. Read
as Markdown, the first went out as that sentence on every channel and the picture was
lost; the second put the sentence under the picture on WeChat, as its caption.

Here the note is the picture at its address, with no words of CSDN's as its alt text or
caption; a note still being written (``外链图片转存中...(img-…)``) with no address is left
out. Check warns at each one: CSDN failed to copy this picture, so its address may not
load; check that it does, or save the picture beside the issue.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import NOTES, inline_lines, shortened
from crosspost.patterns import pattern

#: CSDN's words: "转存失败" (failed) or "转存中" (copying), then its advice, maybe.
_WORDS = r"外链图片转存(?:失败|中)[^\[\]()\n]{0,80}"
#: The note in the picture's place: its words, CSDN's id of the picture (``img-…``), the
#: picture's address (group 1), in square brackets, maybe after a ``!``.
_IN_PLACE = pattern(
    rf"!?\[{_WORDS}(?:\(img-[\w-]{{1,60}}\))?[ \t]*(?:\(([^\s()<>]+)\))?[ \t]*\]"
    r"(?!\()"
)
#: The note as a picture's alt text: ``![外链图片转存失败,…](`` before its address (group 1).
_AS_ALT = pattern(rf"!\[{_WORDS}\]\((?=[ \t]*<?([^\s()<>]+))")
#: The code check files its warning under.
CODE = "csdn-picture"

_Noted = Callable[[int, str, str], None]


def csdn_pictures(state: StateCore) -> None:
    """Core rule, before inline parsing: each of CSDN's notes that it could not copy a
    picture becomes the picture (see the module), noted for check at its line."""
    if "外链图片转存" not in state.src:
        return
    notes = state.env.setdefault(NOTES, [])

    def noted(line: int, written: str, address: str) -> None:
        notes.append((line, CODE, _message(written, address)))

    rewrite = functools.partial(_rewritten, noted=noted)
    for token, lines in inline_lines(state.tokens, lambda text: "外链图片转存" in text, rewrite):
        token.content = "\n".join(lines)


def _rewritten(text: str, line: int, noted: _Noted) -> str:
    """One line of an inline's text (no code span in it), CSDN's notes read."""
    if "外链图片转存" not in text:
        return text

    def in_place(found: re.Match[str]) -> str:
        address = found.group(1) or ""
        noted(line, found.group(0), address)
        return f"![](<{address}>)" if address else ""

    def as_alt(found: re.Match[str]) -> str:
        noted(line, found.group(0) + found.group(1) + ")", found.group(1))
        return "![]("

    return _AS_ALT.sub(as_alt, _IN_PLACE.sub(in_place, text))


def _message(written: str, address: str) -> str:
    """What check says of one of CSDN's notes, ``written`` as the source has it."""
    quoted = f"'{shortened(written, 30)}'"
    if not address:
        return (
            f"{quoted} is CSDN's note that it was still copying a picture, and the file "
            "holds no address of it: nothing is shown in its place; save the picture beside "
            "the issue and write ![](its-file.png) there"
        )
    return (
        f"{quoted} is CSDN's note that it could not copy this picture from its site (which "
        f"may refuse other sites' requests): the picture at {shortened(address, 80)} is "
        "shown, without CSDN's words; check that the address shows it, or save the picture "
        "beside the issue and write ![](its-file.png) in its place"
    )
