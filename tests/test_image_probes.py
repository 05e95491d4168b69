"""What an image decoded to is kept across runs by its bytes' hash, and a damaged image
is never taken for a good one (crosspost.images.remembered)."""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import asdict
from pathlib import Path

import pytest
from PIL import Image

from crosspost.images.codec import BadImage, Probe
from crosspost.images.remembered import pillow_version, remembered_probe


def png(size: tuple[int, int] = (30, 20)) -> tuple[bytes, str]:
    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 40, 40)).save(buffer, "PNG")
    data = buffer.getvalue()
    return data, hashlib.sha256(data).hexdigest()


def test_a_decode_is_kept_and_the_next_run_reads_it_back(tmp_path: Path) -> None:
    data, digest = png()
    found = remembered_probe(data, digest, tmp_path)
    assert (found.format, found.width, found.height) == ("PNG", 30, 20)
    kept = json.loads((tmp_path / f"{digest}.json").read_text("utf-8"))
    assert kept == {"pillow": pillow_version(), "probe": asdict(found)}
    # What the file says is what a later run gets, without decoding the bytes.
    (tmp_path / f"{digest}.json").write_text(
        json.dumps({"pillow": pillow_version(), "probe": {**asdict(found), "width": 31}})
    )
    assert remembered_probe(data, digest, tmp_path).width == 31
    assert [p.name for p in tmp_path.iterdir()] == [f"{digest}.json"], "no temporary file left"


@pytest.mark.parametrize(
    "saved",
    [
        {"pillow": "0.0.1", "probe": {"format": "GIF", "width": 1, "height": 1,
                                      "animated": True, "orientation": 1}},
        {"pillow": "same", "probe": {"format": "PNG"}},
        "not json at all",
        [1, 2],
    ],
)  # fmt: skip
def test_another_pillow_or_an_unreadable_file_decodes_again(tmp_path: Path, saved: object) -> None:
    data, digest = png()
    text = saved if isinstance(saved, str) else json.dumps(saved).replace("same", pillow_version())
    (tmp_path / f"{digest}.json").write_text(text)
    found = remembered_probe(data, digest, tmp_path)
    assert found == Probe("PNG", 30, 20, animated=False, orientation=1)
    assert json.loads((tmp_path / f"{digest}.json").read_text())["probe"]["width"] == 30


def test_a_damaged_image_is_reported_every_time_and_never_kept(tmp_path: Path) -> None:
    good, _ = png((300, 200))
    data = good[: len(good) // 2]
    digest = hashlib.sha256(data).hexdigest()
    for _ in range(2):
        with pytest.raises(BadImage):
            remembered_probe(data, digest, tmp_path)
    assert not list(tmp_path.iterdir())


def test_a_folder_that_cannot_be_written_only_costs_the_decode(tmp_path: Path) -> None:
    data, digest = png()
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder should be")
    assert remembered_probe(data, digest, blocked).height == 20
    assert remembered_probe(data, digest, None).height == 20
