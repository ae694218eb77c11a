"""Fixtures the tests of sitebuild/ share: the Node that makes snapshots, caches that
share the real one's downloads, a small site and its server."""

from __future__ import annotations

import gzip
import threading

import pytest

import sitebuild as B  # on the path through tests/conftest.py


@pytest.fixture
def node():
    """The Node that makes the start-up snapshot; `python build.py test` installs one."""
    try:
        return B.node_for_snapshot()
    except B.SnapshotUnavailable as missing:
        pytest.fail(f"the snapshot tests need Node.js {B.NODE_MIN_MAJOR}+ ({missing}): run them with "
                    "`python build.py test`, which installs it, or install Debian's nodejs")


@pytest.fixture
def scratch_cache(dist, tmp_path, monkeypatch):
    """A cache that shares the warm downloads, Pyodide core, wheels and poolgrad wheels of
    the real one (symlinks) but holds no start-up snapshot yet."""
    real = B.cache_dir()
    cache = tmp_path / "cache"
    cache.mkdir()
    for name in ("downloads", f"pyodide-{B.PYODIDE_VERSION}", f"pyodide-{B.PYODIDE_VERSION}-wheels", "poolgrad-wheels"):
        if (real / name).is_dir():
            (cache / name).symlink_to(real / name, target_is_directory=True)
    monkeypatch.setenv("POOLGRAD_CACHE", str(cache))
    return cache


@pytest.fixture
def traces_cache(dist, tmp_path, monkeypatch):
    """A cache that shares everything of the real one (symlinks) but the shipped traces."""
    real = B.cache_dir()
    cache = tmp_path / "cache"
    cache.mkdir()
    for entry in real.iterdir():
        if entry.name != "shipped-traces":
            (cache / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    monkeypatch.setenv("POOLGRAD_CACHE", str(cache))
    return cache


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    (root / "pyodide").mkdir(parents=True)
    (root / "wheels").mkdir()
    files = {
        "index.html": b"<!doctype html><title>t</title>",
        "app.mjs": b"export const x = 1;",
        "worker.js": b"self.onmessage = () => {};",
        "style.css": b"body{}",
        "build-info.json": b"{}",
        "icon.svg": b"<svg xmlns='http://www.w3.org/2000/svg'/>",
        "pyodide/pyodide.asm.wasm": b"\0asm\1\0\0\0",
        "pyodide/pyodide.mjs": b"export {};",
        "pyodide/python_stdlib.zip": b"PK\5\6" + b"\0" * 18,
        "pyodide/snapshot.bin.gz": gzip.compress(b"snapshot", mtime=0),
        "wheels/poolgrad-0.1.0-py3-none-any.whl": b"PK\5\6" + b"\0" * 18,
    }
    for rel, data in files.items():
        (root / rel).write_bytes(data)
    return root


@pytest.fixture
def server(site):
    log = []
    srv = B.make_server(site, request_log=log)
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    t.start()
    host, port = srv.server_address[:2]
    yield f"http://{host}:{port}", log
    srv.shutdown()
    srv.server_close()
