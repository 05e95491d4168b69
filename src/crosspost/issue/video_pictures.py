"""Pictures whose address is a video's page, read as the video.

Obsidian embeds a video as a picture of its page, ``![](https://www.youtube.com/watch?v=…)``,
and its web clipper writes the videos of a clipped page so. As a picture, check refused
it (the page answers with HTML, not an image) and WeChat left it out; as a video it is a
line linking to the page on every channel, as a ``<video>`` or a site's video tag is.
"""

from __future__ import annotations

from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import VIDEO_HOST, outside_code, raw_media
from crosspost.patterns import pattern

#: A picture whose address is a video's page (Obsidian's web clipper and Obsidian itself
#: embed a video so: ``![](https://www.youtube.com/watch?v=…)``).
_VIDEO_PICTURE = pattern(
    r"!\[[^\]\n]*\]\(\s*<?((?:https?:)?//(?:www\.|m\.)?(?:youtube\.com/(?:watch\?|shorts/)"
    r"|youtu\.be/|vimeo\.com/\d|bilibili\.com/video/)[^\s)>]*)>?\s*\)"
)


def video_pictures(state: StateCore) -> None:
    """Core rule, before inline parsing: a picture of a video's page is the video, shown
    as a line linking to it as any video is. As a picture, check refused it (the page
    answers with HTML, not an image) and WeChat left it out."""
    if "![" not in state.src or not VIDEO_HOST.search(state.src):
        return
    for token in state.tokens:
        if token.type == "inline" and "![" in token.content:
            token.content = outside_code(
                token.content,
                lambda text: _VIDEO_PICTURE.sub(
                    lambda found: raw_media("video", found.group(1)), text
                ),
            )
