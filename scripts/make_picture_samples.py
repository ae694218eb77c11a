"""Make the picture view's samples (web/picture/samples/) from scikit-image's bundled data.

Run once by hand, with the scikit-image wheel downloaded into a folder of your own
(``pip download scikit-image --no-deps -d FOLDER``; it is not a dependency of the project):

    python scripts/make_picture_samples.py FOLDER/scikit_image-*.whl

Each sample is scaled down by area averaging to at most 256 pixels on its longer side and
written as an 8-bit PNG (grey or RGB, as the original). Only NumPy and the standard library
are used. web/picture/samples/SOURCES.md records where each comes from and its licence;
sitebuild/pins.py pins the files this writes.
"""

from __future__ import annotations

import struct
import sys
import zipfile
import zlib
from pathlib import Path

import numpy as np

#: name in the wheel's skimage/data/ -> the sample's file name
SAMPLES = {"camera.png": "camera.png", "text.png": "text.png", "chelsea.png": "chelsea.png",
           "coffee.png": "coffee.png"}
LONGER_SIDE = 256
OUT = Path(__file__).resolve().parent.parent / "web" / "picture" / "samples"


def decode_png(data: bytes) -> np.ndarray:
    """An 8-bit, non-interlaced grey (H, W) or RGB (H, W, 3) PNG as a uint8 array."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, idat = 8, b""
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (0, 2) and not interlace, (depth, colour, interlace)
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    channels = 1 if colour == 0 else 3
    stride = width * channels
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(height, stride + 1)
    rows = np.zeros((height, stride), np.int64)
    previous = np.zeros(stride, np.int64)
    for r in range(height):
        kind, line = raw[r, 0], raw[r, 1:].astype(np.int64)
        if kind == 0:
            row = line
        elif kind == 2:
            row = (line + previous) % 256
        else:
            row = np.zeros(stride, np.int64)
            for c in range(stride):
                left = row[c - channels] if c >= channels else 0
                up = previous[c]
                corner = previous[c - channels] if c >= channels else 0
                if kind == 1:
                    guess = left
                elif kind == 3:
                    guess = (left + up) // 2
                else:
                    p = left + up - corner
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                    guess = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                row[c] = (line[c] + guess) % 256
        rows[r] = row
        previous = row
    image = rows.astype(np.uint8).reshape(height, width, channels)
    return image[..., 0] if channels == 1 else image


def area_matrix(size: int, target: int) -> np.ndarray:
    """(target, size) weights: each output line the mean of the input it covers."""
    weights = np.zeros((target, size))
    scale = size / target
    for i in range(target):
        start, end = i * scale, (i + 1) * scale
        for j in range(int(start), min(size, int(np.ceil(end)))):
            weights[i, j] = min(end, j + 1) - max(start, j)
    return weights / weights.sum(axis=1, keepdims=True)


def scaled(image: np.ndarray) -> np.ndarray:
    height, width = image.shape[:2]
    factor = LONGER_SIDE / max(height, width)
    if factor >= 1:
        return image
    target = (max(1, round(height * factor)), max(1, round(width * factor)))
    rows, cols = area_matrix(height, target[0]), area_matrix(width, target[1])
    planes = image[..., None] if image.ndim == 2 else image
    out = np.einsum("ih,hwc,jw->ijc", rows, planes.astype(np.float64), cols)
    out = np.clip(np.round(out), 0, 255).astype(np.uint8)
    return out[..., 0] if image.ndim == 2 else out


def encode_png(image: np.ndarray) -> bytes:
    height, width = image.shape[:2]
    colour = 0 if image.ndim == 2 else 2
    raw = b"".join(b"\x00" + image[r].tobytes() for r in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


def main(wheel: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as archive:
        for source, name in SAMPLES.items():
            image = scaled(decode_png(archive.read(f"skimage/data/{source}")))
            (OUT / name).write_bytes(encode_png(image))
            print(name, "x".join(map(str, image.shape[:2])))


if __name__ == "__main__":
    main(sys.argv[1])
