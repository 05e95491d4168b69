"""Draw the example issue's cover and in-article figure (run once; the output is committed).

Run with ``python examples/ai-systems-48/make_images.py``. The drawings are plain
shapes and Latin text, so they need no font beyond Pillow's built-in one.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

HERE = Path(__file__).resolve().parent / "images"


def _gradient(
    size: tuple[int, int], top: tuple[int, int, int], bottom: tuple[int, int, int]
) -> Image.Image:
    width, height = size
    image = Image.new("RGB", size)
    draw = ImageDraw.Draw(image)
    for y in range(height):
        mix = y / max(height - 1, 1)
        colour = tuple(round(a + (b - a) * mix) for a, b in zip(top, bottom, strict=True))
        draw.line([(0, y), (width, y)], fill=colour)
    return image


def cover() -> Image.Image:
    """900×383 (2.35:1, WeChat's cover crop) with the series name and issue number."""
    image = _gradient((900, 383), (18, 32, 74), (40, 98, 170))
    draw = ImageDraw.Draw(image)
    number = ImageFont.load_default(size=22)
    for step in range(12):  # one numbered chip per item of the issue
        x = 60 + step * 66
        draw.rounded_rectangle([x, 250, x + 48, 298], radius=8, fill=(150, 200, 255))
        draw.text((x + 24, 274), str(step + 1), font=number, fill=(18, 32, 74), anchor="mm")
    draw.text((60, 80), "AI Systems Frontier", font=ImageFont.load_default(size=56), fill="white")
    draw.text((60, 160), "Issue 48", font=ImageFont.load_default(size=44), fill=(190, 220, 255))
    return image


def figure() -> Image.Image:
    """A bar chart standing in for the seed's "(资料图)": performance per hardware generation."""
    image = Image.new("RGB", (720, 360), (250, 250, 252))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=22)
    bars = [("K20X", 4), ("M40", 7), ("P100", 21), ("V100", 125), ("A100", 312), ("H100", 990)]
    for index, (name, value) in enumerate(bars):
        x = 60 + index * 105
        height = round(250 * (value / 990) ** 0.5)
        draw.rectangle([x, 300 - height, x + 60, 300], fill=(40, 98, 170))
        draw.text((x, 310), name, font=font, fill=(30, 30, 30))
    draw.text((60, 20), "Deep learning TOPS per GPU", font=font, fill=(30, 30, 30))
    return image


def main() -> None:
    HERE.mkdir(exist_ok=True)
    cover().save(HERE / "cover.jpg", "JPEG", quality=85, optimize=True)
    figure().save(HERE / "hardware.png", "PNG", optimize=True)


if __name__ == "__main__":
    main()
