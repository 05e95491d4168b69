"""``crosspost preview FILE --screenshot out.png``: the preview page as a picture."""

from __future__ import annotations

from pathlib import Path

import pytest

from crosspost.cli import main


@pytest.mark.browser
def test_the_example_preview_is_photographed_with_both_columns(
    chromium: Path, example_issue: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from PIL import Image

    out = tmp_path / "build" / "ai-48"  # made by the preview, as -o makes it
    shot = out / "preview.png"
    code = main(["preview", str(example_issue), "-o", str(out), "--screenshot", str(shot)])
    assert code == 0
    assert f"wrote {shot}" in capsys.readouterr().out
    with Image.open(shot) as image:
        width, height = image.size
        assert image.format == "PNG"
        assert width >= 1065 and height > 2000  # 375 px phone + 690 px Zhihu, the whole page
        # Both columns hold dark text on a light page, not an empty canvas.
        grey = image.convert("L")
        phone, zhihu = grey.crop((30, 400, 400, 1400)), grey.crop((450, 400, 1100, 1400))
        assert phone.getextrema()[0] < 100 and zhihu.getextrema()[0] < 100  # type: ignore[index,operator]
    assert shot.stat().st_size < 2_000_000


def test_a_screenshot_that_is_not_a_png_is_refused_before_rendering(
    example_issue: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["preview", str(example_issue), "-o", str(tmp_path), "--screenshot", "out.jpg"])
    assert code == 2
    assert "out.jpg: a screenshot is a PNG; name the file *.png" in capsys.readouterr().err
    assert not (tmp_path / "preview.html").exists()


def test_a_screenshot_in_a_folder_nothing_makes_is_refused_before_rendering(
    example_issue: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, shot = tmp_path / "out", tmp_path / "elsewhere" / "p.png"
    code = main(["preview", str(example_issue), "-o", str(out), "--screenshot", str(shot)])
    assert code == 2
    assert f"{shot.parent}: no such folder" in capsys.readouterr().err
    assert not out.exists()


def test_without_chromium_the_screenshot_says_how_to_install_it(
    example_issue: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CROSSPOST_CHROMIUM", str(tmp_path / "no-chromium"))
    shot = tmp_path / "p.png"
    code = main(["preview", str(example_issue), "-o", str(tmp_path), "--screenshot", str(shot)])
    err = capsys.readouterr().err
    assert code == 2
    assert "apt-get install chromium" in err and "Traceback" not in err
    assert not shot.exists()
