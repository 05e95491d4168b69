"""The ledger's record of an uploaded image, and the cache that remembers uploads.

An upload is a fact the ledger keeps (per channel, account and hash of the bytes sent),
so the record is declared here, below every stage that makes or reads one: the adapters
return it, the publisher's asset step consults the cache before it uploads, and the
ledger stores it. Nothing in this module touches the database.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol


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


class SharedState(Protocol):
    """Small documents every host of a shared ledger sees alike, under locks they share.

    The WeChat access token and the day's poll count live here when the ledger is on
    PostgreSQL, so two hosts neither fetch tokens that invalidate each other's nor
    overrun the day's quota together. :class:`~crosspost.ledger.store.Ledger` is the one
    implementation; on one machine these stay files in the state dir.
    """

    def shared_lock(self, name: str, *, timeout: float) -> AbstractContextManager[Any] | None:
        """A lock named ``name`` every host shares; None when the ledger is one machine's."""
        ...

    def read_shared(self, name: str) -> dict[str, Any]:
        """The document under ``name``; empty when there is none."""
        ...

    def write_shared(self, name: str, data: Mapping[str, Any]) -> None:
        """Replace the document under ``name``."""
        ...

    def delete_shared(self, name: str) -> None:
        """Forget the document under ``name``."""
        ...
