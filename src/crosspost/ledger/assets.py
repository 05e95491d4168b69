"""The ledger's record of an uploaded image, and the cache that remembers uploads.

An upload is a fact the ledger keeps (per channel, account and hash of the bytes sent),
so the record is declared here, below every stage that makes or reads one: the adapters
return it, the publisher's asset step consults the cache before it uploads, and the
ledger stores it. Nothing in this module touches the database.
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
    """Where uploaded images are remembered, per channel and account, by content hash.

    :class:`~crosspost.ledger.store.Ledger` is the one implementation; the protocol lets
    the upload step say how little of the ledger it needs.
    """

    def find_asset(
        self, channel: str, account: str, digest: str, kind: str
    ) -> UploadedAsset | None:
        """The earlier upload of these bytes as ``kind`` ("inline" or "cover"), if any."""
        ...

    def save_asset(
        self, channel: str, account: str, digest: str, kind: str, asset: UploadedAsset
    ) -> None:
        """Remember an upload (idempotent: saving the same key twice keeps one row)."""
        ...
