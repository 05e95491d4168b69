"""Images of an issue: find, decode, convert, shrink and hash them. Nothing network-bound.

Every image is keyed by the SHA-256 of the bytes that are actually uploaded, so one
image goes to a (channel, account) once, across runs and across issues. The cache of
what was uploaded lives behind :class:`AssetStore` (the ledger implements it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class UploadedAsset:
    """An image as a platform knows it after upload."""

    #: The URL to put in ``<img src>`` (WeChat mmbiz URL, Zhihu zhimg URL).
    url: str
    #: The platform's media id when it has one (WeChat permanent material, Zhihu image id).
    media_id: str | None = None


class AssetStore(Protocol):
    """Where uploaded images are remembered, per channel and account, by content hash."""

    def find_asset(self, channel: str, account: str, digest: str, kind: str) -> UploadedAsset | None:
        """The earlier upload of these bytes as ``kind`` ("inline" or "cover"), if any."""
        ...

    def save_asset(
        self, channel: str, account: str, digest: str, kind: str, asset: UploadedAsset
    ) -> None:
        """Remember an upload (idempotent: saving the same key twice keeps one row)."""
        ...
