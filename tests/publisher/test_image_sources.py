"""Where images may come from: the issue's folder, configured folders and public hosts.

Remote images are served by a loopback server (:mod:`.image_server`); nothing reaches the
internet. Loopback is refused unless a run allows private hosts, so the tests that read
from the server say so, and others check that it is refused without the switch. A host
name is resolved by an injected resolver where the test needs it to say something
particular (a public address, a name with two answers).
"""

from __future__ import annotations

import ipaddress
import os
import shutil
import socket
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from crosspost.check.lint import check_file
from crosspost.cli import main
from crosspost.errors import IssueError, TransientError
from crosspost.images.pipeline import ImageError, read_source
from crosspost.images.remote import RemoteImages, refusal
from crosspost.images.sources import ImageSources, RefusedImage

from .image_server import PNG, ImageServer, closed_port, image_server
from .world import World, assert_one_post_per_channel


@pytest.fixture(scope="module")
def server() -> Iterator[ImageServer]:
    with image_server() as running:
        yield running


def issue_naming(folder: Path, ref: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    issue = folder / "issue.md"
    issue.write_text(f"---\ntitle: t\n---\n\nintro\n\n![x]({ref})\n", encoding="utf-8")
    return issue


def allowed(**kwargs: object) -> RemoteImages:
    """A fetcher that may read the loopback test server (the switch a company would set)."""
    return RemoteImages(private_hosts=True, timeout=5, **kwargs)  # type: ignore[arg-type]


# --- which addresses ------------------------------------------------------------------

REFUSED_ALWAYS = {
    "169.254.169.254": "a cloud metadata address",
    "fd00:ec2::254": "a cloud metadata address",
    "100.100.100.200": "a cloud metadata address",
    "169.254.1.1": "a link-local address",
    "fe80::1": "a link-local address",
    "224.0.0.1": "not a host address",
    "0.0.0.0": "not a host address",
    "240.0.0.1": "not a host address",
}
REFUSED_UNLESS_ALLOWED = {
    "127.0.0.1": "a loopback address",
    "::1": "a loopback address",
    "::ffff:127.0.0.1": "a loopback address",
    "10.1.2.3": "a private address",
    "172.16.0.1": "a private address",
    "192.168.1.10": "a private address",
    "fd12:3456::1": "a private address",
    "100.64.0.1": "a private address",
}


@pytest.mark.parametrize("address", [*REFUSED_ALWAYS, *REFUSED_UNLESS_ALLOWED])
def test_non_public_addresses_are_refused(address: str) -> None:
    why = {**REFUSED_ALWAYS, **REFUSED_UNLESS_ALLOWED}[address]
    assert refusal(ipaddress.ip_address(address), private_hosts=False) == why


@pytest.mark.parametrize("address", list(REFUSED_UNLESS_ALLOWED))
def test_the_switch_allows_private_hosts_but_never_metadata(address: str) -> None:
    assert refusal(ipaddress.ip_address(address), private_hosts=True) is None
    for always in REFUSED_ALWAYS:
        assert refusal(ipaddress.ip_address(always), private_hosts=True) is not None


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:2800:220:1::1"])
def test_public_addresses_pass(address: str) -> None:
    assert refusal(ipaddress.ip_address(address), private_hosts=False) is None


def test_loopback_is_refused_without_the_switch_and_nothing_is_requested(
    server: ImageServer, tmp_path: Path
) -> None:
    before = len(server.seen)
    issue = issue_naming(tmp_path, f"{server.base}/pic.png")
    fetch = RemoteImages(timeout=5).fetch
    with pytest.raises(ImageError, match=r"issue\.md:7: .*127\.0\.0\.1, a loopback address"):
        read_source(f"{server.base}/pic.png", issue, fetch)
    assert len(server.seen) == before


def test_a_name_is_checked_by_every_address_it_resolves_to(tmp_path: Path) -> None:
    """One private answer among public ones is enough to refuse (DNS rebinding)."""
    asked: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        return ["93.184.216.34", "10.0.0.7"]

    fetch = RemoteImages(resolve=resolve, timeout=5).fetch
    with pytest.raises(RefusedImage, match=r"images\.test \(10\.0\.0\.7\), a private address"):
        fetch("http://images.test/a.png")
    assert asked == ["images.test"]


def test_localhost_by_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RefusedImage, match="loopback"):
        RemoteImages(resolve=lambda host, port: ["127.0.0.1"]).fetch("http://localhost/a.png")


def test_the_connection_goes_to_the_checked_address(server: ImageServer) -> None:
    """The name is resolved once, by the check; the request carries the name as Host."""
    calls: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        calls.append(host)
        return ["127.0.0.1"]

    url = f"http://images.test:{server.port}/pic.png"
    assert allowed(resolve=resolve).fetch(url) == PNG
    assert calls == ["images.test"]
    assert (("/pic.png", f"images.test:{server.port}")) in server.seen


# --- redirects, sizes, times, answers ---------------------------------------------------


def test_a_redirect_is_followed_and_checked_again(server: ImageServer) -> None:
    assert allowed().fetch(f"{server.base}/to-pic.png") == PNG
    with pytest.raises(RefusedImage, match=r"169\.254\.169\.254, a cloud metadata address"):
        allowed().fetch(f"{server.base}/to-metadata.png")
    with pytest.raises(RefusedImage, match="leads to a file URL"):
        allowed().fetch(f"{server.base}/to-file.png")
    with pytest.raises(ValueError, match="more than 5 redirects"):
        allowed().fetch(f"{server.base}/loop.png")


def test_size_and_time_caps(server: ImageServer) -> None:
    with pytest.raises(ValueError, match="larger than 50 MB"):
        allowed().fetch(f"{server.base}/huge.png")
    ticks = iter(range(0, 10_000, 100))
    slow = allowed(total_seconds=50, clock=lambda: float(next(ticks)))
    with pytest.raises(TransientError, match="took longer than 50 s"):
        slow.fetch(f"{server.base}/pic.png")


def test_answers_that_are_not_images(server: ImageServer) -> None:
    with pytest.raises(ValueError, match="HTTP 404"):
        allowed().fetch(f"{server.base}/gone.png")
    with pytest.raises(ValueError, match="answers with text/html, not an image"):
        allowed().fetch(f"{server.base}/page.png")
    with pytest.raises(TransientError, match="HTTP 503"):
        allowed().fetch(f"{server.base}/busy.png")


def test_a_closed_port_is_a_dead_link_and_a_reset_is_network_trouble(
    server: ImageServer,
) -> None:
    with pytest.raises(ValueError, match="connection refused"):
        allowed().fetch(f"http://127.0.0.1:{closed_port()}/a.png")
    with pytest.raises(TransientError):
        allowed().fetch(f"{server.base}/reset.png")


def test_each_url_is_fetched_once_per_run(server: ImageServer) -> None:
    remote = allowed()
    before = sum(1 for path, _ in server.seen if path == "/pic.png?once")
    assert remote.fetch(f"{server.base}/pic.png?once") == remote.fetch(
        f"{server.base}/pic.png?once"
    )
    assert sum(1 for path, _ in server.seen if path == "/pic.png?once") == before + 1


def test_only_http_and_https(tmp_path: Path) -> None:
    issue = issue_naming(tmp_path, "ftp://example.test/a.png")
    with pytest.raises(ImageError, match=r"issue\.md:7: .*ftp: URL") as refused:
        read_source("ftp://example.test/a.png", issue, RemoteImages().fetch)
    assert refused.value.code == "refused-image"


# --- local files ------------------------------------------------------------------------


def test_file_urls_are_refused_with_their_line(tmp_path: Path) -> None:
    issue = issue_naming(tmp_path, "file:///etc/passwd")
    with pytest.raises(IssueError, match=r"issue\.md:7: image 'file:///etc/passwd' is a file: URL"):
        read_source("file:///etc/passwd", issue)


@pytest.mark.parametrize("ref", ["../outside.png", "images/../../outside.png", "ABSOLUTE"])
def test_paths_leaving_the_issue_folder_are_refused(tmp_path: Path, ref: str) -> None:
    (tmp_path / "outside.png").write_bytes(PNG)
    ref = str(tmp_path / "outside.png") if ref == "ABSOLUTE" else ref
    issue = issue_naming(tmp_path / "issue", ref)
    with pytest.raises(ImageError, match=r"issue\.md:7: .*lies outside the issue's folder"):
        read_source(ref, issue)


def test_a_symbolic_link_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "secret.png").write_bytes(PNG)
    folder = tmp_path / "issue"
    issue = issue_naming(folder, "link.png")
    os.symlink(tmp_path / "secret.png", folder / "link.png")
    with pytest.raises(ImageError, match="lies outside the issue's folder"):
        read_source("link.png", issue)


def test_a_configured_folder_is_allowed(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "logo.png").write_bytes(PNG)
    issue = issue_naming(tmp_path / "issue", "../shared/logo.png")
    assert read_source("../shared/logo.png", issue, folders=(shared,)).data == PNG
    with pytest.raises(ImageError, match="outside"):
        read_source("../shared/logo.png", issue)


def test_a_logseq_pages_picture_is_refused_with_the_setting_that_lets_it_through(
    tmp_path: Path,
) -> None:
    # Logseq keeps a graph's pictures in its assets folder beside pages/, and writes
    # '../assets/image_….png': refused (rightly), with "add its folder", which one unsaid.
    graph = tmp_path / "graph"
    (graph / "assets").mkdir(parents=True)
    (graph / "assets" / "image_1714551234_0.png").write_bytes(PNG)
    ref = "../assets/image_1714551234_0.png"
    issue = issue_naming(graph / "pages", ref)
    assets = (graph / "assets").resolve()
    refused = [str(p) for p in check_file(issue).problems if p.code == "refused-image"]
    assert refused == [
        f"{issue}:7: error: image '{ref}' lies outside the issue's folder "
        f"({(graph / 'pages').resolve()}): Logseq keeps a graph's pictures in its assets "
        "folder, beside pages/; let crosspost read them by adding it under [images] in "
        f'crosspost.toml: folders = ["{assets.as_posix()}"] (or the environment\'s '
        "CROSSPOST_IMAGE_FOLDERS)"
    ]
    configured = check_file(issue, images=ImageSources(folders=(assets,)))
    assert not [p for p in configured.problems if p.code == "refused-image"]
    assert read_source(ref, issue, folders=(assets,)).data == PNG
    # Any other folder outside keeps the general advice.
    elsewhere = issue_naming(tmp_path / "notes", "../graph/assets/image_1714551234_0.png")
    (message,) = [p.message for p in check_file(elsewhere).problems if p.code == "refused-image"]
    assert message.endswith("or add its folder to 'folders' under [images] in crosspost.toml")


def test_a_subfolder_of_the_issue_is_fine(tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "a.png").write_bytes(PNG)
    issue = issue_naming(tmp_path, "images/a.png")
    assert read_source("images/a.png", issue).data == PNG


@pytest.mark.parametrize(
    "ref",
    ["data:image/png;base64,%%%notbase64", "data:image/png;base64", "data:image/png;base64,iVB"],
)
def test_broken_data_uris_name_their_line(tmp_path: Path, ref: str) -> None:
    issue = issue_naming(tmp_path, ref)
    with pytest.raises(ImageError, match=r"issue\.md:7: .*broken data: URI"):
        read_source(ref, issue)


# --- a whole run ---------------------------------------------------------------------------


def test_a_remote_image_is_downloaded_once_checked_and_uploaded(
    server: ImageServer,
    world: World,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With the switch on, the plan's check downloads the image and the upload reuses the
    very bytes it checked: one request to the image server for the whole run."""
    world.use_env(monkeypatch)
    with world.config.open("a", encoding="utf-8") as config:
        config.write("\n[images]\nprivate_hosts = true\n")
    url = f"{server.base}/pic.png?run=1"
    text = world.issue.read_text(encoding="utf-8")
    world.issue.write_text(text.replace("](images/hardware.png)", f"]({url})"), "utf-8")

    assert main(["check", str(world.issue)]) == 0
    assert main(["publish", str(world.issue), "--mode", "publish", "-q"]) == 0, capsys.readouterr()
    assert [path for path, _ in server.seen].count("/pic.png?run=1") == 2  # check, publish
    assert_one_post_per_channel(world)


def test_a_configured_image_folder_lets_publish_read_a_shared_logo(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    world.use_env(monkeypatch)
    shared = world.root / "shared"
    shared.mkdir()
    shutil.copy(world.issue.parent / "images" / "hardware.png", shared / "logo.png")
    text = world.issue.read_text(encoding="utf-8")
    world.issue.write_text(text.replace("](images/hardware.png)", "](../shared/logo.png)"), "utf-8")
    assert main(["check", str(world.issue)]) == 2
    assert "lies outside the issue's folder" in capsys.readouterr().out
    with world.config.open("a", encoding="utf-8") as config:
        config.write(f'\n[images]\nfolders = ["{shared}"]\n')
    assert main(["publish", str(world.issue), "--mode", "publish", "-q"]) == 0, capsys.readouterr()
    assert_one_post_per_channel(world)


def test_a_url_without_a_path_asks_for_the_root_with_its_query(server: ImageServer) -> None:
    with pytest.raises(ValueError, match="HTTP 404"):
        allowed().fetch(f"{server.base}?only=query")
    assert ("/?only=query", f"127.0.0.1:{server.port}") in server.seen


def test_check_does_not_download_an_image_already_on_the_channels_own_host(
    tmp_path: Path,
) -> None:
    """A WeChat-hosted image stays as it is on WeChat: only Zhihu needs it downloaded."""
    from crosspost.check.lint import check_file
    from crosspost.images.sources import ImageSources

    asked: list[str] = []

    def fetch(url: str) -> bytes:
        asked.append(url)
        return PNG

    native = "https://mmbiz.qpic.cn/mmbiz_png/abc/640.png"
    issue = tmp_path / "issue.md"
    issue.write_text(
        f"---\ntitle: 标题\n---\n\n正文足够长的一段文字,用来过最短长度。\n\n![x]({native})\n",
        encoding="utf-8",
    )
    sources = ImageSources(fetch=fetch)
    check_file(issue, ("wechat",), images=sources)
    assert asked == []
    check_file(issue, ("wechat", "zhihu"), images=sources)
    assert asked == [native]


def test_a_sandbox_rehearsal_may_read_images_from_loopback(tmp_path: Path) -> None:
    """The emulators serve uploaded images from loopback; ``--sandbox`` turns the switch on."""
    from crosspost.config.settings import load_settings
    from crosspost.sandbox.session import sandbox_settings

    settings = load_settings(
        {"state_dir": str(tmp_path / "state")}, environ={}, cwd=tmp_path, home=tmp_path
    )
    assert not settings.private_image_hosts
    with sandbox_settings(settings) as rehearsal:
        assert rehearsal.private_image_hosts


def knowing(*names: str) -> Callable[[str, int], list[str]]:
    """A resolver that knows ``names`` (a public address each) and no other."""

    def resolve(host: str, port: int) -> list[str]:
        if host in names:
            return ["93.184.216.34"]
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    return resolve


def test_name_lookups_that_fail(tmp_path: Path) -> None:
    """An unknown host is the issue's dead link; a resolver that cannot answer now is not."""

    def offline(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    online = RemoteImages(resolve=knowing(RemoteImages.control_host))
    with pytest.raises(ValueError, match=r"host images\.test does not exist"):
        online.fetch("http://images.test/a.png")
    with pytest.raises(TransientError, match=r"could not look up images\.test"):
        RemoteImages(resolve=offline).fetch("http://images.test/a.png")
    with pytest.raises(ValueError, match="has no address"):
        RemoteImages(resolve=lambda host, port: []).fetch("http://images.test/a.png")


def test_where_no_name_resolves_an_unknown_host_is_network_trouble(tmp_path: Path) -> None:
    """Offline or with DNS down every host "does not exist": that is no dead link of the
    issue's (exit 2, and cron gives up) but this machine's trouble (exit 75, run again)."""
    url = "https://cdn.example.test/a.png"
    issue = issue_naming(tmp_path, url)
    with pytest.raises(TransientError) as caught:
        read_source(url, issue, RemoteImages(resolve=knowing()).fetch)
    assert caught.value.exit_code == 75
    assert str(caught.value) == (
        f"{issue}:7: image '{url}' could not be reached (cdn.example.test does not resolve, "
        "nor does api.weixin.qq.com: this machine seems offline or its DNS is down); "
        "nothing was sent, run again later"
    )


@pytest.mark.parametrize("control", [None, "control.test"])
def test_the_control_name_is_asked_once_per_fetcher_however_many_threads_fetch(
    control: str | None,
) -> None:
    """Eight unknown hosts at once (the barrier lets no lookup end before all began) ask
    the control name once; its answer, either way, holds for the fetcher's other hosts."""
    hosts = [f"img{n}.test" for n in range(8)]
    together = threading.Barrier(len(hosts), timeout=10)
    asked: list[str] = []
    known = knowing(*filter(None, [control]))

    def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        if host in hosts:
            together.wait()
        return known(host, port)

    remote = RemoteImages(resolve=resolve)
    remote.control_host = "control.test"

    def outcome(host: str) -> type[Exception]:
        with pytest.raises((ValueError, TransientError)) as caught:
            remote.fetch(f"http://{host}/a.png")
        return type(caught.value)

    with ThreadPoolExecutor(len(hosts)) as pool:
        outcomes = set(pool.map(outcome, hosts))
    assert outcomes == {ValueError if control else TransientError}
    assert asked.count("control.test") == 1
    with pytest.raises(ValueError if control else TransientError):
        remote.fetch("http://one-more.test/a.png")
    assert asked.count("control.test") == 1


def test_https_to_a_server_without_tls_is_refused(server: ImageServer) -> None:
    with pytest.raises(ValueError, match="no valid TLS connection"):
        allowed().fetch(f"https://127.0.0.1:{server.port}/pic.png")
