"""Picture files of known pixels, made here for the picture view's tests (tests/web in
Chromium, tests/engines in Firefox and WebKit): a PNG of any pixels, the 6 x 7 RGB picture
they upload, a JPEG, and a CMYK JPEG with the RGB its inks give."""

import io
import struct
import zlib

import numpy as np


def png(pixels, depth=8):
    """A PNG of `pixels`: (H, W) grey, (H, W, 3) RGB or (H, W, 4) RGBA, made here."""
    pixels = np.asarray(pixels)
    colour = 0 if pixels.ndim == 2 else {3: 2, 4: 6}[pixels.shape[2]]
    height, width = pixels.shape[:2]
    dtype = ">u2" if depth == 16 else np.uint8
    raw = b"".join(b"\x00" + pixels[r].astype(dtype).tobytes() for r in range(height))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def jpeg(pixels):
    """A JPEG of (H, W, 3) RGB `pixels` at quality 95, as Pillow writes it."""
    from PIL import Image

    written = io.BytesIO()
    Image.fromarray(np.asarray(pixels, np.uint8), "RGB").save(written, "JPEG", quality=95)
    return written.getvalue()


# A 6 x 7 RGB picture of distinct values in each channel.
KNOWN = np.stack([(np.arange(42).reshape(6, 7) * 6 + offset) % 256 for offset in (3, 101, 200)], axis=2).astype(np.uint8)
KNOWN[2, 3] = [250, 5, 77]
KNOWN[0, 0] = [3, 102, 200]

# The opaque RGBA bytes the page sends to Python for KNOWN.
KNOWN_RGBA = np.concatenate([KNOWN, np.full((6, 7, 1), 255, np.uint8)], axis=2)

# Four 8 x 8 blocks of CMYK ink (one JPEG block each, so quality 100 keeps them exact), the
# last with black ink: C, M, Y, K from 0 (none) to 255.
CMYK_BLOCKS = [[[0, 0, 0, 0], [200, 50, 0, 0]], [[0, 100, 250, 0], [60, 30, 90, 128]]]


def cmyk_jpeg():
    """(a 16 x 16 CMYK JPEG of CMYK_BLOCKS as Pillow writes it, with Adobe's marker; the RGB
    of each pixel, (255 - C)(255 - K) / 255 per channel, as Pillow and browsers convert)."""
    from PIL import Image

    inks = np.kron(np.array(CMYK_BLOCKS, np.uint8), np.ones((8, 8, 1), np.uint8)).reshape(16, 16, 4)
    written = io.BytesIO()
    Image.fromarray(inks, "CMYK").save(written, "JPEG", quality=100)
    return written.getvalue(), np.asarray(Image.open(io.BytesIO(written.getvalue())).convert("RGB"))
