"""The image pipeline: what an editor's images look like once a platform receives them.

Every image is made by Pillow in ``tmp_path``; nothing reaches the network (remote images
go through an injected fetch function that counts its calls).
"""

from __future__ import annotations

import io
import random
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from crosspost.errors import IssueError
from crosspost.images.pipeline import (
    GIF,
    JPEG,
    PNG,
    ImagePolicy,
    PreparedImage,
    SourceImage,
    collect,
    prepare,
    read_source,
)

UPLOADIMG = ImagePolicy("wechat uploadimg", frozenset({JPEG, PNG}), 1_000_000 - 1)
WITH_GIF = ImagePolicy("zhihu image", frozenset({JPEG, PNG, GIF}), 10_000_000)
NO_ANIMATION = ImagePolicy("still only", frozenset({JPEG, PNG, GIF}), 10_000_000, animated=False)
THUMB = ImagePolicy("wechat thumb", frozenset({JPEG}), 64 * 1024)


def encoded(image: Image.Image, fmt: str, **params: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **params)
    return out.getvalue()


def source(data: bytes, tmp_path: Path, ref: str = "images/pic.png") -> SourceImage:
    return SourceImage(ref, data, tmp_path / "issue.md")


def noisy(size: tuple[int, int], mode: str = "RGB", seed: int = 1) -> Image.Image:
    """A photo-like image that compresses badly (the worst case for size limits)."""
    rng = random.Random(seed)
    bands = len(mode)
    pixels = bytes(rng.getrandbits(8) for _ in range(size[0] * size[1] * bands))
    return Image.frombytes(mode, size, pixels)


def decoded(prepared: PreparedImage) -> Image.Image:
    image = Image.open(io.BytesIO(prepared.data))
    image.load()
    return image


def test_a_3mb_png_shrinks_under_1mb_and_keeps_its_shape(tmp_path: Path) -> None:
    big = encoded(noisy((1000, 1000)), "PNG")
    assert len(big) > 3_000_000

    prepared = prepare(source(big, tmp_path), UPLOADIMG)

    assert prepared.size < 1_000_000
    assert prepared.mime in (JPEG, PNG)
    image = decoded(prepared)
    assert image.size == (prepared.width, prepared.height)
    assert abs(image.width / image.height - 1.0) < 0.01
    assert prepared.filename == "pic" + (".jpg" if prepared.mime == JPEG else ".png")


def test_a_small_acceptable_image_is_sent_byte_for_byte(tmp_path: Path) -> None:
    data = encoded(Image.new("RGB", (300, 200), (200, 30, 30)), "JPEG", quality=90)

    prepared = prepare(source(data, tmp_path, "a.jpg"), UPLOADIMG)

    assert prepared.data == data
    assert (prepared.mime, prepared.width, prepared.height) == (JPEG, 300, 200)


def test_a_screenshot_png_too_big_becomes_a_lossless_palette_png(tmp_path: Path) -> None:
    # Few colours: the palette form of the same pixels is half the size and loses nothing.
    rng = random.Random(3)
    colours = [rng.randrange(256) for _ in range(16 * 3)]
    indexed = Image.new("P", (800, 800))
    indexed.putpalette(colours)
    indexed.putdata([rng.randrange(16) for _ in range(800 * 800)])
    image = indexed.convert("RGB")
    data = encoded(image, "PNG", optimize=True)
    policy = ImagePolicy("half a megabyte", frozenset({JPEG, PNG}), 500_000)
    assert len(data) > policy.max_bytes

    prepared = prepare(source(data, tmp_path), policy)

    assert prepared.mime == PNG and prepared.size <= policy.max_bytes
    back = decoded(prepared)
    assert back.mode == "P" and back.size == (800, 800)
    assert back.convert("RGB").tobytes() == image.tobytes()  # not one pixel changed


@pytest.mark.parametrize(
    ("mode", "lossless", "expected"),
    [("RGB", False, JPEG), ("RGBA", False, PNG), ("RGB", True, PNG)],
    ids=["photo-webp-to-jpeg", "transparent-webp-to-png", "lossless-webp-to-png"],
)
def test_webp_which_wechat_refuses_becomes_png_or_jpeg(
    tmp_path: Path, mode: str, lossless: bool, expected: str
) -> None:
    image = Image.new(mode, (120, 80), (10, 120, 200, 128)[: len(mode)])
    data = encoded(image, "WEBP", lossless=lossless, quality=80)

    prepared = prepare(source(data, tmp_path, "photo.webp"), UPLOADIMG)

    assert prepared.mime == expected
    assert prepared.filename == "photo" + (".jpg" if expected == JPEG else ".png")
    back = decoded(prepared)
    assert back.format == ("JPEG" if expected == JPEG else "PNG")
    assert back.size == (120, 80)
    if mode == "RGBA":
        assert back.convert("RGBA").getpixel((5, 5))[3] == 128  # transparency kept


@pytest.mark.parametrize("fmt", ["BMP", "TIFF"])
def test_bmp_and_tiff_become_png_losslessly(tmp_path: Path, fmt: str) -> None:
    image = noisy((64, 48), seed=7)

    prepared = prepare(source(encoded(image, fmt), tmp_path, f"scan.{fmt.lower()}"), UPLOADIMG)

    assert prepared.mime == PNG
    assert decoded(prepared).convert("RGB").tobytes() == image.tobytes()


def test_an_exif_rotated_jpeg_comes_out_upright_without_the_tag(tmp_path: Path) -> None:
    # A camera stores a portrait shot as landscape pixels + "rotate 90° clockwise" (6).
    image = Image.new("RGB", (400, 200), "white")
    image.paste((255, 0, 0), (0, 0, 200, 200))  # left half red
    exif = Image.Exif()
    exif[0x0112] = 6
    data = encoded(image, "JPEG", exif=exif, quality=95)

    prepared = prepare(source(data, tmp_path, "phone.jpg"), UPLOADIMG)

    back = decoded(prepared)
    assert (back.width, back.height) == (200, 400) == (prepared.width, prepared.height)
    assert back.getexif().get(0x0112, 1) == 1
    red, _, _ = back.getpixel((100, 50))  # type: ignore[misc]
    assert red > 200  # the left half is now the top half
    _, green, _ = back.getpixel((100, 350))  # type: ignore[misc]
    assert green > 200  # and the white half the bottom


def test_same_bytes_give_the_same_digest_and_different_bytes_do_not(tmp_path: Path) -> None:
    data = encoded(Image.new("RGB", (50, 50), "navy"), "PNG")
    other = encoded(Image.new("RGB", (50, 50), "teal"), "PNG")

    first = prepare(source(data, tmp_path, "a.png"), UPLOADIMG)
    again = prepare(source(data, tmp_path, "copy/of/a.png"), UPLOADIMG)
    different = prepare(source(other, tmp_path, "a.png"), UPLOADIMG)

    assert first.digest == again.digest
    assert len(first.digest) == 64
    assert different.digest != first.digest
    # A converted image is reproducible too: same source, same uploaded bytes.
    webp = encoded(noisy((90, 90)), "WEBP", quality=70)
    assert prepare(source(webp, tmp_path), UPLOADIMG) == prepare(source(webp, tmp_path), UPLOADIMG)


def animated_gif(frames: int = 4, size: tuple[int, int] = (60, 40)) -> bytes:
    images = [Image.new("P", size, index * 40) for index in range(frames)]
    out = io.BytesIO()
    images[0].save(out, "GIF", save_all=True, append_images=images[1:], duration=80, loop=0)
    return out.getvalue()


def test_an_animated_gif_stays_animated_where_gifs_are_allowed(tmp_path: Path) -> None:
    data = animated_gif()

    prepared = prepare(source(data, tmp_path, "dance.gif"), WITH_GIF)

    assert prepared.data == data
    assert prepared.mime == GIF and prepared.filename == "dance.gif"


def test_an_animated_gif_becomes_its_first_frame_where_gifs_are_refused(tmp_path: Path) -> None:
    prepared = prepare(source(animated_gif(), tmp_path, "dance.gif"), UPLOADIMG)

    assert prepared.mime == PNG
    back = decoded(prepared)
    assert not getattr(back, "is_animated", False)
    assert (back.width, back.height) == (60, 40)


def test_an_animated_gif_where_animation_is_refused_becomes_still(tmp_path: Path) -> None:
    prepared = prepare(source(animated_gif(), tmp_path, "dance.gif"), NO_ANIMATION)

    assert not getattr(decoded(prepared), "is_animated", False)


def test_an_oversized_animated_gif_is_scaled_and_keeps_every_frame(tmp_path: Path) -> None:
    frames = [noisy((300, 300), seed=s).convert("P") for s in range(3)]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    small_limit = ImagePolicy("tiny gifs", frozenset({GIF, PNG}), 100_000)
    assert len(out.getvalue()) > 100_000

    prepared = prepare(source(out.getvalue(), tmp_path, "noise.gif"), small_limit)

    back = decoded(prepared)
    assert prepared.mime == GIF and prepared.size <= 100_000
    assert getattr(back, "n_frames", 1) == 3
    assert back.width < 300


def test_a_cover_fits_the_64kb_jpeg_thumb_limit(tmp_path: Path) -> None:
    data = encoded(noisy((900, 383), "RGBA"), "PNG")

    prepared = prepare(source(data, tmp_path, "cover.png"), THUMB)

    assert prepared.mime == JPEG and prepared.size <= 64 * 1024
    assert prepared.width / prepared.height == pytest.approx(900 / 383, rel=0.01)


def test_a_longest_side_limit_scales_the_image_down(tmp_path: Path) -> None:
    policy = ImagePolicy("capped", frozenset({JPEG, PNG}), 10_000_000, max_side=1000)
    data = encoded(Image.new("RGB", (4000, 1000), "olive"), "PNG")

    prepared = prepare(source(data, tmp_path), policy)

    assert (prepared.width, prepared.height) == (1000, 250)


# --- bad images are the issue's fault: one line naming the file and the image -------------


def write_issue_with(tmp_path: Path, ref: str) -> Path:
    issue = tmp_path / "issue.md"
    issue.write_text(f"---\ntitle: t\n---\n\n正文第一段。\n\n![图]({ref})\n", "utf-8")
    return issue


def test_a_missing_image_names_the_issue_line_and_the_path(tmp_path: Path) -> None:
    issue = write_issue_with(tmp_path, "images/gone.png")

    with pytest.raises(IssueError) as caught:
        read_source("images/gone.png", issue)

    message = str(caught.value)
    assert message.startswith(f"{issue}:7: image 'images/gone.png' not found at ")
    assert caught.value.exit_code == 2


def test_a_file_that_is_not_an_image_is_refused_with_its_name(tmp_path: Path) -> None:
    issue = write_issue_with(tmp_path, "notes.png")
    (tmp_path / "notes.png").write_text("just text", "utf-8")

    with pytest.raises(IssueError, match=r"issue\.md:7: image 'notes\.png' is not an image"):
        prepare(read_source("notes.png", issue), UPLOADIMG)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"<!DOCTYPE html><html><body><img src=x.png></body></html>", "is a web page (HTML)"),
        (b"%PDF-1.7\n...", "is a PDF document, not an image; export the page as PNG"),
        (
            b"<?xml version='1.0'?><svg xmlns='http://www.w3.org/2000/svg'/>",
            "is not an image crosspost can read (SVG",
        ),
        (b"\0\0\0\x18ftypheic\0\0\0\0mif1heic", "is a HEIC/HEIF photo"),
        (b"", "is an empty file"),
    ],
    ids=["web page", "pdf", "svg", "heic", "empty"],
)
def test_a_file_with_an_image_name_that_is_something_else_says_what_it_is(
    tmp_path: Path, data: bytes, said: str
) -> None:
    """A link that led to a page, a drawing, a phone's photo format: each has its own fix,
    so the line says what the file is, not only that it is no image."""
    issue = write_issue_with(tmp_path, "pic.png")
    (tmp_path / "pic.png").write_bytes(data)
    with pytest.raises(IssueError, match=rf"issue\.md:7: image 'pic\.png' {re.escape(said)}"):
        prepare(read_source("pic.png", issue), UPLOADIMG)


def test_an_image_of_too_many_pixels_is_refused_and_a_large_one_quietly_scaled(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Past Pillow's decompression-bomb limit (179 megapixels) the line says how many there
    are and to scale down; below it, a 100-megapixel scan is scaled to fit without
    Pillow's "decompression bomb DOS attack" warning reaching the terminal."""
    issue = write_issue_with(tmp_path, "huge.png")
    Image.new("1", (20_000, 12_000), 1).save(tmp_path / "huge.png")
    with pytest.raises(IssueError, match=r"'huge\.png' has 240 megapixels, more than crosspost"):
        prepare(read_source("huge.png", issue), UPLOADIMG)
    Image.new("1", (10_000, 10_000), 1).save(tmp_path / "huge.png")
    prepared = prepare(read_source("huge.png", issue), UPLOADIMG)
    assert prepared.mime == PNG and len(prepared.data) < UPLOADIMG.max_bytes
    assert "DecompressionBomb" not in "".join(capfd.readouterr())


def test_a_truncated_image_is_refused_with_advice(tmp_path: Path) -> None:
    issue = write_issue_with(tmp_path, "half.jpg")
    whole = encoded(noisy((200, 200)), "JPEG")
    (tmp_path / "half.jpg").write_bytes(whole[: len(whole) // 2])

    with pytest.raises(IssueError, match=r"issue\.md:7: image 'half\.jpg' is damaged or truncated"):
        prepare(read_source("half.jpg", issue), UPLOADIMG)


def test_a_remote_image_needs_a_fetch_function(tmp_path: Path) -> None:
    issue = write_issue_with(tmp_path, "https://example.org/a.png")

    with pytest.raises(IssueError, match="is remote and fetching is off"):
        read_source("https://example.org/a.png", issue)


def test_a_dead_remote_image_names_the_url(tmp_path: Path) -> None:
    issue = write_issue_with(tmp_path, "https://example.org/gone.png")

    def fetch(url: str) -> bytes:
        raise ValueError("HTTP 404")

    with pytest.raises(IssueError, match=r"gone\.png' could not be downloaded \(HTTP 404\)"):
        read_source("https://example.org/gone.png", issue, fetch)


def test_each_remote_url_is_fetched_once(tmp_path: Path) -> None:
    png = encoded(Image.new("RGB", (10, 10), "red"), "PNG")
    fetched: list[str] = []

    def fetch(url: str) -> bytes:
        fetched.append(url)
        return png

    url = "https://example.org/pic.png"
    found = collect([url, url, "https://example.org/other.png", url], tmp_path / "i.md", fetch)

    assert fetched == [url, "https://example.org/other.png"]
    assert found[url].data == png


# --- uploading each distinct image once -------------------------------------------------


def test_each_distinct_image_is_uploaded_once_per_account_across_issues_and_runs(
    tmp_path: Path,
) -> None:
    """The live path (publisher → PostAssets → the ledger as asset cache), on the sandbox:
    an image used twice in one issue, and again by the next issue, is uploaded once."""
    from crosspost.sandbox.box import ManualClock, Sandbox
    from publisher.world import build_world, calls_to

    clock = ManualClock()
    with Sandbox(clock=clock, sleep=clock.sleep) as box:
        world = build_world(tmp_path, box, clock, clock.sleep)
        text = world.issue.read_text("utf-8")
        world.issue.write_text(text + "\n![又一次](images/hardware.png)\n", "utf-8")
        world.publish(targets=("wechat",))
        later = world.issue.with_name("issue-49.md")
        later.write_text(
            text.replace("id: ai-systems-48", "id: ai-systems-49").replace("第48期", "第49期"),
            "utf-8",
        )
        world.publish([later], targets=("wechat",))

        assert len(box.wechat.snapshot()["drafts"]) == 2
        assert calls_to(box, "/cgi-bin/media/uploadimg") == 1
        assert calls_to(box, "/cgi-bin/material/add_material") == 1  # the cover


def test_images_already_on_the_platform_are_recognised() -> None:
    policy = ImagePolicy("zhihu", frozenset({JPEG}), 10, native_hosts=("zhimg.com",))
    assert policy.is_native("https://pic4.zhimg.com/v2-abc.png")
    assert not policy.is_native("https://zhimg.com.example.org/v2-abc.png")


def test_an_oversized_jpeg_is_first_reencoded_with_its_own_quality(tmp_path: Path) -> None:
    # A JPEG saved without entropy optimisation is a little too big: re-encoding it with
    # its own quantisation tables fits, so not a single quality step is lost.
    photo = noisy((400, 300), seed=11)
    data = encoded(photo, "JPEG", quality=75, optimize=False)
    optimised = encoded(Image.open(io.BytesIO(data)), "JPEG", quality="keep", optimize=True)
    policy = ImagePolicy("tight", frozenset({JPEG}), (len(data) + len(optimised)) // 2)
    assert len(optimised) < policy.max_bytes < len(data)

    prepared = prepare(source(data, tmp_path, "photo.jpg"), policy)

    assert prepared.mime == JPEG and prepared.size <= policy.max_bytes
    assert decoded(prepared).quantization == Image.open(io.BytesIO(data)).quantization  # type: ignore[attr-defined]


def test_a_colour_profile_survives_conversion(tmp_path: Path) -> None:
    from PIL import ImageCms

    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    data = encoded(Image.new("RGB", (80, 60), "orange"), "WEBP", icc_profile=profile)

    prepared = prepare(source(data, tmp_path, "p.webp"), UPLOADIMG)

    assert decoded(prepared).info.get("icc_profile") == profile


def test_a_transparent_image_too_big_keeps_its_transparency(tmp_path: Path) -> None:
    policy = ImagePolicy("png only", frozenset({PNG}), 60_000)
    data = encoded(noisy((300, 300), "RGBA", seed=5), "PNG")
    assert len(data) > 60_000

    prepared = prepare(source(data, tmp_path), policy)

    assert prepared.mime == PNG and prepared.size <= 60_000
    assert decoded(prepared).convert("RGBA").getextrema()[3][0] < 255


def test_an_image_that_cannot_fit_says_which_platform_refuses_it(tmp_path: Path) -> None:
    issue = write_issue_with(tmp_path, "huge.png")
    (tmp_path / "huge.png").write_bytes(encoded(noisy((64, 64)), "PNG"))
    impossible = ImagePolicy("WeChat thumb", frozenset({JPEG}), 200)

    with pytest.raises(IssueError, match=r"issue\.md:7: image 'huge\.png' is too large for WeChat"):
        prepare(read_source("huge.png", issue), impossible)


def test_a_data_uri_image_is_read_inline(tmp_path: Path) -> None:
    import base64

    png = encoded(Image.new("RGB", (5, 4), "red"), "PNG")
    ref = "data:image/png;base64," + base64.b64encode(png).decode()

    prepared = prepare(read_source(ref, tmp_path / "issue.md"), UPLOADIMG)

    assert prepared.data == png and prepared.filename == "image.png"


def test_a_folder_named_as_an_image_is_refused(tmp_path: Path) -> None:
    issue = write_issue_with(tmp_path, "images")
    (tmp_path / "images").mkdir()

    with pytest.raises(IssueError, match="'images' is a folder; name an image file"):
        read_source("images", issue)


def test_remote_images_are_read_over_http(tmp_path: Path) -> None:
    import threading
    from functools import partial
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    from crosspost.errors import TransientError
    from crosspost.images.remote import RemoteImages

    png = encoded(Image.new("RGB", (9, 9), "blue"), "PNG")
    (tmp_path / "pic.png").write_bytes(png)

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            if self.path.split("?")[0] == "/busy.png":
                self.send_error(503)
                return
            super().do_GET()

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    issue = write_issue_with(tmp_path, f"{base}/gone.png")
    try:
        # The server listens on loopback: only a run allowing private hosts may read it.
        fetch = RemoteImages(private_hosts=True, timeout=5).fetch
        assert read_source(f"{base}/pic.png", issue, fetch).data == png
        with pytest.raises(IssueError, match=r"gone\.png' could not be downloaded \(HTTP 404"):
            read_source(f"{base}/gone.png", issue, fetch)
        with pytest.raises(TransientError, match="HTTP 503") as busy:
            read_source(f"{base}/busy.png?X-Amz-Signature=s1gn3d", issue, fetch)
        assert "s1gn3d" not in str(busy.value)
        with pytest.raises(IssueError, match=r"could not be downloaded \(HTTP 404") as gone:
            read_source(f"{base}/gone.png?Signature=s1gn3d&Expires=1", issue, fetch)
        assert "s1gn3d" not in str(gone.value)
        small = RemoteImages(private_hosts=True, timeout=5, max_bytes=len(png) - 1).fetch
        with pytest.raises(IssueError, match=r"is larger than .* MB; link a smaller image"):
            read_source(f"{base}/pic.png", issue, small)
    finally:
        server.shutdown()
        server.server_close()


# --- one decode per image per process, shared by both channels ---------------------------


def test_both_channels_preparing_the_same_images_at_once_get_the_same_answers(
    tmp_path: Path,
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    pictures = [encoded(noisy((120, 90), seed=seed), "PNG") for seed in range(6)]
    jobs = [(data, policy) for data in pictures for policy in (UPLOADIMG, WITH_GIF) * 3]

    with ThreadPoolExecutor(max_workers=12) as pool:
        done = list(pool.map(lambda job: prepare(source(job[0], tmp_path), job[1]), jobs))

    for (data, _), prepared in zip(jobs, done, strict=True):
        assert prepared.data == data  # small PNGs go as they are, to either platform
        assert (prepared.mime, prepared.width, prepared.height) == (PNG, 120, 90)
        assert prepared.filename == "pic.png"


def test_an_image_seen_before_is_still_converted_for_a_stricter_channel(tmp_path: Path) -> None:
    data = encoded(noisy((300, 300)), "PNG")
    assert prepare(source(data, tmp_path), WITH_GIF).data == data

    thumb = prepare(source(data, tmp_path, "images/cover.png"), THUMB)

    assert thumb.mime == JPEG and thumb.size <= 64 * 1024
    assert thumb.filename == "cover.jpg"


def test_a_damaged_image_is_reported_to_every_channel_that_prepares_it(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    issue = write_issue_with(tmp_path, "half.jpg")
    whole = encoded(noisy((200, 200), seed=7), "JPEG")
    (tmp_path / "half.jpg").write_bytes(whole[: len(whole) // 2])
    half = read_source("half.jpg", issue)

    def attempt(policy: ImagePolicy) -> str:
        with pytest.raises(IssueError) as caught:
            prepare(half, policy)
        return str(caught.value)

    with ThreadPoolExecutor(max_workers=4) as pool:
        messages = list(pool.map(attempt, [UPLOADIMG, WITH_GIF] * 2))

    assert all("issue.md:7: image 'half.jpg' is damaged or truncated" in m for m in messages)


def test_one_images_hash_does_not_hold_up_anothers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Images are hashed by several threads at once (each post's image thread, the upload
    workers): a slow hash of one image must not keep another's waiting, as a class-wide
    ``cached_property`` lock did on Python 3.11. Each image is still hashed once."""
    import hashlib
    import threading

    from crosspost.images import pipeline

    real = hashlib.sha256
    slow_started, slow_may_end = threading.Event(), threading.Event()
    seen: list[str] = []

    def sha256(data: bytes) -> Any:
        seen.append(f"start {data.decode()}")
        if data == b"slow":
            slow_started.set()
            slow_may_end.wait(5)
        seen.append(f"end {data.decode()}")
        return real(data)

    monkeypatch.setattr(pipeline.hashlib, "sha256", sha256)
    slow, quick = source(b"slow", tmp_path, "a.png"), source(b"quick", tmp_path, "b.png")
    other = threading.Thread(target=lambda: slow.sha256)
    other.start()
    try:
        assert slow_started.wait(5)
        assert quick.sha256 == real(b"quick").hexdigest()
        # Answered while the slow hash was still going (a class-wide lock: after it).
        assert seen == ["start slow", "start quick", "end quick"]
    finally:
        slow_may_end.set()
        other.join()
    assert slow.sha256 == real(b"slow").hexdigest() and quick.sha256 == real(b"quick").hexdigest()
    assert seen == ["start slow", "start quick", "end quick", "end slow"]  # once each
    assert slow == source(b"slow", tmp_path, "a.png")  # the memo is not compared
