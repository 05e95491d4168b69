"""A post's images and cover, uploaded once per account, and the draft content built on them.

Images the issue names by ``http(s)`` URL are fetched first, through a session of the
post's own (fetching a public image is not a platform call, so it is not the adapter's).
Image uploads are idempotent (the platforms deduplicate by content, and the ledger's
asset cache remembers every upload per account by the hash of the bytes sent), so this
part of a post needs no intent in the ledger: a run killed halfway uploads what is
missing next time and reuses the rest. Several images of one post upload at once, a
few at a time, because the platforms throttle bursts.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from crosspost.channels.base import STEP_UPLOAD, Adapter, DraftContent, PreparedImage
from crosspost.images import Fetch, UploadedAsset, collect, prepare, read_source, session_fetch
from crosspost.ledger import Ledger

if TYPE_CHECKING:
    from crosspost.publisher import Job

#: How many images of one post upload at once (platforms throttle bursts).
UPLOAD_WORKERS = 4


class PostAssets:
    """Uploads what one post needs and says whether anything was sent this run."""

    def __init__(
        self,
        job: Job,
        ledger: Ledger,
        progress: Callable[[str], None],
        *,
        timeout: float = 30.0,
    ) -> None:
        self.job = job
        #: Seconds to wait for a remote image (the run's ``timeout`` setting).
        self.timeout = timeout
        self.key = job.key
        self.ledger = ledger
        self.progress = progress
        #: True once an upload reached the platform (the run then "sent" something).
        self.sent = False

    def content(self, adapter: Adapter) -> DraftContent:
        """Upload the inline images and the cover, then build the draft that uses them."""
        import requests

        with requests.Session() as session:
            return self._content(adapter, session_fetch(session, timeout=self.timeout))

    def _content(self, adapter: Adapter, fetch: Fetch) -> DraftContent:
        job = self.job
        refs = job.rendered.images
        urls = self._upload_all(adapter, refs, "inline", fetch) if refs else {}
        cover: UploadedAsset | None = None
        cover_size: tuple[int, int] | None = None
        if job.settings.cover is not None:
            source = read_source(str(job.settings.cover), job.issue.path, fetch)
            prepared = prepare(source, adapter.image_policy_for("cover"))
            cover = self._upload_one(adapter, prepared, "cover")
            cover_size = (prepared.width, prepared.height)
        rendered = job.rendered.with_image_urls({ref: asset.url for ref, asset in urls.items()})
        record = self.ledger.get(self.key)
        if record and record.state == "rendered" and (refs or cover):
            self.ledger.finish_step(
                self.key,
                STEP_UPLOAD,
                state="assets_uploaded",
                summary=f"{len(urls)} images, cover: {bool(cover)}",
            )
        return DraftContent(
            title=rendered.title,
            html=rendered.body,
            author=job.settings.author,
            digest=job.settings.digest,
            cover=cover,
            cover_size=cover_size,
            source_url=job.settings.source_url,
            options=job.settings.options,
        )

    def _upload_all(
        self, adapter: Adapter, refs: tuple[str, ...], kind: str, fetch: Fetch
    ) -> dict[str, UploadedAsset]:
        policy = adapter.image_policy_for(kind)
        result = {ref: UploadedAsset(url=ref) for ref in refs if policy.is_native(ref)}
        sources = collect([r for r in refs if r not in result], self.job.issue.path, fetch)
        prepared = {ref: prepare(source, policy) for ref, source in sources.items()}
        self.progress(f"{len(prepared)} images to check against the upload cache")
        with ThreadPoolExecutor(max_workers=UPLOAD_WORKERS) as pool:
            uploaded = pool.map(
                lambda item: (item[0], self._upload_one(adapter, item[1], kind)), prepared.items()
            )
            result.update(uploaded)
        return result

    def _upload_one(self, adapter: Adapter, prepared: PreparedImage, kind: str) -> UploadedAsset:
        """The cached upload of these exact bytes for this account, or a new one."""
        channel, account = self.key.channel, self.key.account
        asset = self.ledger.find_asset(channel, account, prepared.digest, kind)
        if asset is None:
            asset = adapter.upload_image(prepared, kind)
            self.ledger.save_asset(channel, account, prepared.digest, kind, asset)
            self.sent = True
        return asset
