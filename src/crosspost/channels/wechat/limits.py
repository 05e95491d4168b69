"""What WeChat accepts for images: the one declaration of its byte limits (spec §3, §4, §9).

Every other place (the adapter's choice between ``media/uploadimg`` and
``material/add_material``, the advice printed for errcode 40009, the image pipeline's
shrinking) reads these policies, so the limits cannot drift apart.
"""

from __future__ import annotations

from crosspost.images.pipeline import ImagePolicy

MB = 1024 * 1024

#: ``media/uploadimg`` takes JPG/PNG strictly under 1 MB (its limit is exclusive); a GIF
#: goes to ``material/add_material``.
INLINE_IMAGES = ImagePolicy(
    name="WeChat in-article image",
    formats=frozenset({"image/jpeg", "image/png", "image/gif"}),
    max_bytes=MB - 1,
    native_hosts=("mmbiz.qpic.cn",),
)
#: Covers are permanent material: strictly under 10 MB.
COVER_IMAGES = ImagePolicy(
    name="WeChat cover",
    formats=frozenset({"image/jpeg", "image/png"}),
    max_bytes=10 * MB - 1,
)
#: The types ``media/uploadimg`` takes; every other inline image is permanent material.
UPLOADIMG_TYPES = frozenset({"image/jpeg", "image/png"})
#: Extensions WeChat recognises for each type (it refuses names without one).
EXTENSIONS: dict[str, tuple[str, ...]] = {
    "image/jpeg": (".jpg", ".jpeg"),
    "image/png": (".png",),
    "image/gif": (".gif",),
}


def under(policy: ImagePolicy) -> str:
    """``"< 1 MB"``: a policy's byte limit as the editor reads it."""
    return f"< {(policy.max_bytes + 1) / MB:g} MB"
