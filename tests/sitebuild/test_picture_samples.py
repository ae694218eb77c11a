"""The picture view's samples: pinned, recorded with their licence, refused when changed."""

import shutil

import pytest

from sitebuild import paths
from sitebuild.assembly import verify_picture_samples
from sitebuild.common import BuildError
from sitebuild.pins import PICTURE_SAMPLES_DIR, PICTURE_SAMPLES_SHA256

SAMPLES = paths.WEB / PICTURE_SAMPLES_DIR


def test_every_sample_is_pinned_and_recorded_with_a_free_licence():
    assert verify_picture_samples(SAMPLES) == len(PICTURE_SAMPLES_SHA256) >= 3
    sources = (SAMPLES / "SOURCES.md").read_text(encoding="utf-8")
    for name in PICTURE_SAMPLES_SHA256:
        row = next(line for line in sources.splitlines() if line.startswith(f"| {name} "))
        assert "CC0" in row or "public domain" in row


def test_a_changed_or_unpinned_sample_fails_the_build(tmp_path):
    folder = tmp_path / "samples"
    shutil.copytree(SAMPLES, folder)
    (folder / "extra.png").write_bytes(b"\x89PNG")
    with pytest.raises(BuildError, match="extra.png not pinned"):
        verify_picture_samples(folder)
    (folder / "extra.png").unlink()
    (folder / "text.png").write_bytes(b"changed")
    with pytest.raises(BuildError, match="pin mismatch for picture sample text.png"):
        verify_picture_samples(folder)
