"""sitebuild/fetch.py: downloads are verified against their pins, and a failed one is one
clear line."""

from __future__ import annotations

import os
import shutil

import pytest

import sitebuild as B  # on the path through tests/conftest.py


def test_a_tampered_cached_download_stops_the_build_with_one_line(tmp_path, monkeypatch, capsys):
    # A cache whose npm tarball was tampered with: the build stops before using it.
    cache = tmp_path / "cache"
    (cache / "downloads").mkdir(parents=True)
    (cache / "downloads" / B.PYODIDE_TARBALL).write_bytes(b"tampered")
    monkeypatch.setenv("POOLGRAD_CACHE", str(cache))
    monkeypatch.setattr(B.paths, "WEB", tmp_path / "no-web")
    with pytest.raises(B.BuildError, match=r"^pin mismatch for npm package pyodide@0\.27\.7"):
        B.build(tmp_path / "dist", quiet=True)
    monkeypatch.setattr(B.paths, "DIST", tmp_path / "dist")
    assert B.main(["build"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: pin mismatch") and err.count("\n") == 1
    assert not (tmp_path / "dist" / "pyodide" / "pyodide.asm.wasm").exists()


def test_a_failed_download_is_one_clear_line(tmp_path, monkeypatch, capfd):
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    npm = fake_bin / "npm"
    npm.write_text("#!/bin/sh\necho 'npm error network request failed' >&2\nexit 1\n")
    npm.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("POOLGRAD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(B.paths, "WEB", tmp_path / "no-web")
    monkeypatch.setattr(B.paths, "DIST", tmp_path / "dist")
    assert B.main(["build"]) == 1
    err = capfd.readouterr().err.strip().splitlines()
    assert "network request failed" in err[0]  # the tool's own output, then our line
    assert err[-1] == "error: downloading pyodide@0.27.7 (npm pack) failed (exit 1); see the output above"
    assert not list((tmp_path / "cache" / "downloads").glob("*.tgz"))


def test_missing_npm_is_one_clear_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    monkeypatch.setenv("POOLGRAD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(B.paths, "WEB", tmp_path / "no-web")
    monkeypatch.setattr(B.paths, "DIST", tmp_path / "dist")
    assert B.main(["build"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: npm not found: install Node.js with npm") and err.count("\n") == 1
