"""A post's images and cover, uploaded once per account, and the draft content built on them.

Images the issue names by ``http(s)`` URL are fetched first, through the run's
:class:`~crosspost.images.sources.ImageSources` (fetching a public image is not a platform
call, so it is not the adapter's); the plan's check fetched them already, so these are the
bytes it checked.
Image uploads are idempotent (the platforms deduplicate by content, and the ledger's
asset cache remembers every upload per account by the hash of the bytes sent), so this
part of a post needs no intent in the ledger: a run killed halfway uploads what is
missing next time and reuses the rest. All of a post's images, the cover with them, are
uploaded in one wave (as many at once as there are images, up to the platform's
``upload_concurrency``): the uploads do not depend on one another, so the post waits for
the slowest image, not for their sum. They are read, converted and looked up in the
cache before that, while the post's first platform call is out (:meth:`PostAssets.start`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial

from crosspost.channels.base import STEP_UPLOAD, Adapter, DraftContent
from crosspost.config.counts import counted
from crosspost.images.pipeline import (
    PreparedImage,
    SourceImage,
    collect,
    prepare,
    read_source,
)
from crosspost.images.remote import RemoteImages
from crosspost.images.sources import ImageSources
from crosspost.ledger.assets import UploadedAsset
from crosspost.ledger.store import Ledger
from crosspost.publish.jobs import Job

log = logging.getLogger("crosspost.publish.assets")


class PostAssets:
    """Uploads what one post needs and says whether anything was sent this run."""

    def __init__(
        self,
        job: Job,
        ledger: Ledger,
        progress: Callable[[str], None],
        *,
        timeout: float = 30.0,
        sources: ImageSources | None = None,
    ) -> None:
        self.job = job
        #: Where images may be read from; by default the issue's folder and public hosts,
        #: waiting ``timeout`` seconds (the run's setting) for a remote image.
        self.sources = sources or ImageSources(fetch=RemoteImages(timeout=timeout).fetch)
        self.key = job.key
        self.ledger = ledger
        self.progress = progress
        #: True once an upload reached the platform (the run then "sent" something).
        self.sent = False
        #: What :meth:`mark_uploaded` writes in the ledger (None: the post has no image).
        self.summary: str | None = None
        #: The thread :meth:`start` began, and the images it read (or why it could not).
        self._ahead: ThreadPoolExecutor | None = None
        self._wave: Future[list[_Image]] | None = None

    def start(self, adapter: Adapter) -> None:
        """Begin reading, converting and looking up the post's images in a thread of
        their own, while the platform's first round trip (its token, its login check) is
        under way: none of it calls the platform, and the uploads can then go out the
        moment that round ends instead of after a file read and a hash per image.
        :meth:`content` takes over what is done and does the rest; :meth:`close` ends
        the thread when the post stops before that. Once per post: later calls do nothing.
        """
        if self._ahead is not None:
            return
        self._ahead = ThreadPoolExecutor(max_workers=1, thread_name_prefix="crosspost-images")
        wave: Future[list[_Image]] = Future()
        self._wave = wave
        self._ahead.submit(self._get_ready, adapter, wave)

    def read(self, adapter: Adapter) -> None:
        """Wait until every image of the post was read; raises what reading one raised.

        Zhihu's empty draft goes out beside the uploads, and once made it stays: it is
        made only after this, so an image that cannot be read (gone since the check)
        stops the post before anything of it is on the platform."""
        self.start(adapter)
        assert self._wave is not None
        self._wave.result()

    def close(self) -> None:
        """End the thread :meth:`start` began (idempotent); what it did not do is dropped."""
        if self._ahead is not None:
            self._ahead.shutdown(wait=True, cancel_futures=True)

    def content(self, adapter: Adapter, *, mark: bool = True) -> DraftContent:
        """Upload the inline images and the cover, then build the draft that uses them.

        ``mark`` False: the ledger's step is left to the caller (:meth:`mark_uploaded`),
        which runs other steps of the post beside the uploads and writes it after them.
        """
        job = self.job
        self.start(adapter)
        assert self._wave is not None
        inline = adapter.image_policy_for("inline")
        refs = job.rendered.images
        result = {ref: UploadedAsset(url=ref) for ref in refs if inline.is_native(ref)}
        cover: UploadedAsset | None = None
        cover_size: tuple[int, int] | None = None
        try:
            wave = self._wave.result()  # raises what reading an image raised, as before
            self.progress(f"{counted(len(wave), 'image')} to check against the upload cache")
            # Reads the draft step will need (Zhihu: its topics) go out beside the uploads.
            with ThreadPoolExecutor(max_workers=1) as ahead:
                looked_ahead = ahead.submit(adapter.look_ahead, job.settings.options)
                for ref, asset, size in self._upload_wave(adapter, wave):
                    if ref is None:
                        cover, cover_size = asset, size
                    else:
                        result[ref] = asset
                looked_ahead.result()
        finally:
            self.close()
        rendered = job.rendered.with_image_urls({ref: asset.url for ref, asset in result.items()})
        if refs or cover:
            self.summary = f"{counted(len(result), 'image')}, cover: {bool(cover)}"
        if mark:
            self.mark_uploaded()
        return DraftContent(
            title=rendered.title,
            html=rendered.body,
            author=job.settings.author,
            digest=job.settings.digest,
            cover=cover,
            cover_size=cover_size,
            source_url=job.settings.source_url,
            options=job.settings.options,
            preview=job.mode == "draft",
        )

    def _get_ready(self, adapter: Adapter, wave: Future[list[_Image]]) -> None:
        """The thread :meth:`start` began: read every image (``wave`` then holds them, or
        the first reading error in the issue's order), then prepare and look up each in
        turn, unless an upload worker got to it first; connections to the platform are
        opened ahead of the wave for the images to upload.

        They are asked for as the count of uploads doubles (1, 2, 4, 8, ...) and once at
        the end: each ask costs a look at the connection pool and a thread start, and
        fifty asks for fifty images cost more CPU than the set-ups they hide, while the
        first connections are still asked for the moment the first image needs one."""
        try:
            images = self._read(adapter)
        except BaseException as error:
            wave.set_exception(error)
            return
        wave.set_result(images)
        uploads = asked = 0
        for image in images:
            ready = image.get()
            if isinstance(ready, _Prepared) and ready.cached is None:
                uploads += 1
                if uploads >= 2 * asked:
                    asked = _open_ahead(adapter, uploads)
        if uploads > asked:
            _open_ahead(adapter, uploads)

    def _read(self, adapter: Adapter) -> list[_Image]:
        """One wave of every inline image and the cover, read (the key None stands for
        the cover); images the platform serves itself are not in it."""
        job = self.job
        fetch, folders, reads = self.sources.fetch, self.sources.folders, self.sources.reads
        inline = adapter.image_policy_for("inline")
        refs = [ref for ref in job.rendered.images if not inline.is_native(ref)]
        sources = collect(refs, job.issue.path, fetch, folders, reads)
        items: list[tuple[str | None, SourceImage, str]] = [
            (ref, source, "inline") for ref, source in sources.items()
        ]
        if job.settings.cover is not None:
            cover = str(job.settings.cover)
            cover_source = read_source(cover, job.issue.path, fetch, folders, reads)
            items.append((None, cover_source, "cover"))
        channel, account = self.key.channel, self.key.account

        def ready(ref: str | None, source: SourceImage, kind: str) -> _Prepared:
            prepared = prepare(source, adapter.image_policy_for(kind))
            cached = self.ledger.find_asset(channel, account, prepared.digest, kind)
            if cached is None:
                adapter.ready_upload(prepared)
            return _Prepared(ref, kind, prepared, cached)

        return [_Image(partial(ready, *item)) for item in items]

    def mark_uploaded(self) -> None:
        """The post moves from rendered to assets uploaded, unless it is past that (or an
        irreversible step's intent is open: finishing a step would close it)."""
        record = self.ledger.get(self.key)
        fresh = record and record.state == "rendered" and not record.pending_step
        if fresh and self.summary:
            self.ledger.finish_step(
                self.key, STEP_UPLOAD, state="assets_uploaded", summary=self.summary
            )

    def _upload_wave(
        self, adapter: Adapter, wave: list[_Image]
    ) -> list[tuple[str | None, UploadedAsset, tuple[int, int]]]:
        """Upload every image of ``wave`` not in the cache at once; then remember the new
        uploads in one ledger transaction (one commit, instead of one per image that
        every other upload thread would queue behind), those that succeeded even when
        another failed. A run killed before that commit uploads them again next time,
        which the platforms take as the same image (uploads are idempotent)."""
        if not wave:
            return []
        workers = min(adapter.uploads_at_once(self.job.account), len(wave))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            outcomes = list(pool.map(lambda image: self._attempt(adapter, image), wave))
        fresh = [o for o in outcomes if isinstance(o, _Upload) and o.new]
        if fresh:
            channel, account = self.key.channel, self.key.account
            with self.ledger.transaction():
                for upload in fresh:
                    self.ledger.save_asset(
                        channel, account, upload.digest, upload.kind, upload.asset
                    )
        for outcome in outcomes:  # the first failure in the issue's order, as before
            if isinstance(outcome, Exception):
                raise outcome
        return [(o.ref, o.asset, o.size) for o in outcomes if isinstance(o, _Upload)]

    def _attempt(self, adapter: Adapter, image: _Image) -> _Upload | Exception:
        """One image of the wave; its error is returned, so the others' uploads are kept."""
        try:
            ready = image.get()
            if isinstance(ready, Exception):
                return ready
            asset, new = ready.cached, ready.cached is None
            if asset is None:
                asset = adapter.upload_image(ready.image, ready.kind)
                self.sent = True
        except Exception as error:  # handed back: _upload_wave raises it after saving
            return error
        size = (ready.image.width, ready.image.height)
        return _Upload(ready.ref, ready.kind, ready.image.digest, asset, size, new)


def _open_ahead(adapter: Adapter, uploads: int) -> int:
    """Connections for ``uploads`` uploads at once, opened ahead; the count asked for."""
    try:
        adapter.open_ahead(uploads)
    except Exception as error:  # only a head start: the uploads open their own
        log.debug("connections not opened ahead: %s", type(error).__name__)
    return uploads


@dataclass(frozen=True)
class _Prepared:
    """One image made ready for the platform, and its earlier upload when there was one."""

    ref: str | None
    kind: str
    image: PreparedImage
    cached: UploadedAsset | None


class _Image:
    """One image of a wave, prepared once by whichever thread needs it first: the thread
    :meth:`PostAssets.start` began, going through the wave in order, or the upload
    worker that reaches the image before it (so conversions still run side by side)."""

    def __init__(self, work: Callable[[], _Prepared]) -> None:
        self._work = work
        self._lock = threading.Lock()
        self._done: _Prepared | Exception | None = None

    def get(self) -> _Prepared | Exception:
        """The prepared image, or the error preparing it raised (handed back, not raised)."""
        with self._lock:
            if self._done is None:
                try:
                    self._done = self._work()
                except Exception as error:
                    self._done = error
            return self._done


@dataclass(frozen=True)
class _Upload:
    """One image of a wave: where it went, and whether this run uploaded it."""

    ref: str | None
    kind: str
    digest: str
    asset: UploadedAsset
    size: tuple[int, int]
    new: bool
