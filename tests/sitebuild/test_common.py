"""sitebuild/common.py: verified files and the download cache."""

from __future__ import annotations

import pytest

import sitebuild as B  # on the path through tests/conftest.py


def test_verify_file_accepts_the_pinned_bytes(tmp_path):
    f = tmp_path / "pyodide.asm.wasm"
    f.write_bytes(b"\0asm\1\0\0\0")
    B.verify_file(f, B.sha256_of(f))


def test_verify_file_rejects_a_tampered_file(tmp_path):
    f = tmp_path / "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"
    f.write_bytes(b"not the real wheel")
    expected = B.PYODIDE_WHEELS["numpy"][1]
    with pytest.raises(B.BuildError) as err:
        B.verify_file(f, expected)
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith("pin mismatch for numpy-2.0.2")
    assert expected in msg and B.sha256_of(f) in msg


def test_verify_file_reports_a_missing_file(tmp_path):
    with pytest.raises(B.BuildError, match="missing file"):
        B.verify_file(tmp_path / "nope.whl", "0" * 64)


def test_cache_dir_respects_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("POOLGRAD_CACHE", str(tmp_path / "pc"))
    assert B.cache_dir() == tmp_path / "pc"
    monkeypatch.delenv("POOLGRAD_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert B.cache_dir() == tmp_path / "xdg" / "poolgrad"
