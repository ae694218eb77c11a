"""Unit tests of build.py: pins, the shipped lock file, Python's start-up snapshot, the
server's MIME types and request log, the offline bundle. Fast: the real build runs once in `build.py test`
before pytest; tests that need it reuse dist/ when present."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import threading
import urllib.request
import zipfile
from pathlib import Path

import pytest

import sitebuild as B  # on the path through tests/conftest.py

REPO = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- pins


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


def test_pins_are_well_formed():
    pins = list(B.PYODIDE_CORE_SHA256.values()) + [h for _, h in B.PYODIDE_WHEELS.values()]
    pins += [B.PYODIDE_TARBALL_SHA256, B.PYODIDE_LOCK_SHA256, B.CARRIER_WHEEL_SHA256]
    assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in pins)
    assert set(B.PYODIDE_WHEELS) == {"numpy", "micropip", "packaging"}
    for core in ("pyodide.js", "pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip"):
        assert core in B.PYODIDE_CORE_SHA256


def test_cache_dir_respects_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("POOLGRAD_CACHE", str(tmp_path / "pc"))
    assert B.cache_dir() == tmp_path / "pc"
    monkeypatch.delenv("POOLGRAD_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert B.cache_dir() == tmp_path / "xdg" / "poolgrad"


# ----------------------------------------------------------------------------- lock


def _fake_release_lock():
    pkgs = {}
    for name, (fname, sha) in B.PYODIDE_WHEELS.items():
        pkgs[name] = {"name": name, "file_name": fname, "sha256": sha, "imports": [name],
                      "depends": ["packaging"] if name == "micropip" else [],
                      "install_dir": "site", "package_type": "package", "unvendored_tests": True}
    pkgs["scipy"] = {"name": "scipy", "file_name": "scipy.whl", "sha256": "0" * 64, "depends": ["numpy"]}
    pkgs["numpy-tests"] = {"name": "numpy-tests", "file_name": "numpy-tests.tar", "sha256": "1" * 64}
    return {"info": {"version": "0.27.7", "arch": "wasm32"}, "packages": pkgs}


def test_make_lock_lists_exactly_the_shipped_packages():
    original = _fake_release_lock()
    lock = B.make_lock(original)
    assert lock["info"] == original["info"]
    assert set(lock["packages"]) == {"numpy", "micropip", "packaging"}
    for name, entry in lock["packages"].items():
        fname, sha = B.PYODIDE_WHEELS[name]
        assert entry["file_name"] == fname and "/" not in entry["file_name"]
        assert entry["sha256"] == sha
        assert entry["unvendored_tests"] is False
        assert all(dep in lock["packages"] for dep in entry["depends"])


def test_make_lock_refuses_a_release_entry_that_differs_from_the_pin():
    original = _fake_release_lock()
    original["packages"]["numpy"]["sha256"] = "f" * 64
    with pytest.raises(B.BuildError, match="numpy"):
        B.make_lock(original)


def test_make_lock_refuses_an_unshipped_dependency():
    original = _fake_release_lock()
    shipped = {"micropip": B.PYODIDE_WHEELS["micropip"]}
    with pytest.raises(B.BuildError, match="packaging"):
        B.make_lock(original, shipped)


@pytest.fixture
def node():
    """The Node that makes the start-up snapshot; `python build.py test` installs one."""
    try:
        return B.node_for_snapshot()
    except B.SnapshotUnavailable as missing:
        pytest.fail(f"the snapshot tests need Node.js {B.NODE_MIN_MAJOR}+ ({missing}): run them with "
                    "`python build.py test`, which installs it, or install Debian's nodejs")


def test_built_lock_lists_exactly_the_shipped_wheels(dist):
    pdir = dist / _info(dist)["pyodide"]
    lock = json.loads((pdir / "pyodide-lock.json").read_text())
    assert lock["info"]["version"] == B.PYODIDE_VERSION
    listed = {e["file_name"] for e in lock["packages"].values()}
    shipped = {p.name for p in pdir.iterdir() if p.suffix in (".whl", ".tar", ".zip") and p.name != "python_stdlib.zip"}
    assert listed == shipped
    for entry in lock["packages"].values():
        assert B.sha256_of(pdir / entry["file_name"]) == entry["sha256"]


def test_built_site_matches_its_pins_and_build_info(dist, node):
    info = _info(dist)
    assert re.fullmatch(r"pyodide/[0-9a-f]{12}/", info["pyodide"])
    assert info["packages"] == ["numpy", "micropip"]
    assert re.fullmatch(r"wheels/[0-9a-f]{12}/poolgrad-[^/]+-py3-none-any\.whl", info["poolgrad_wheel"])
    assert (dist / info["poolgrad_wheel"]).is_file()
    with zipfile.ZipFile(dist / info["poolgrad_wheel"]) as zf:
        assert "poolgrad/__init__.py" in zf.namelist()
    pdir = dist / info["pyodide"]
    for name in B.PYODIDE_SHIPPED:
        B.verify_file(pdir / name, B.PYODIDE_CORE_SHA256[name])
    # What the site does not load is not shipped: the classic-script loader, source maps.
    assert not [p.name for p in dist.rglob("*") if p.suffix == ".map" or p.name == "pyodide.js"]
    # Node is here (the `node` fixture), so the build made both snapshots.
    build_id = B.pyodide_build_id(pdir)
    assert info["snapshot"] == f"{info['pyodide']}{B.SNAPSHOT_FILE}"
    raw = gzip.decompress((dist / info["snapshot"]).read_bytes())
    assert len(raw) == info["snapshot_bytes"]
    B.check_snapshot(raw, build_id)
    assert info["numpy_snapshot"] == f"{info['pyodide']}{B.NUMPY_SNAPSHOT_FILE}"
    raw = gzip.decompress((dist / info["numpy_snapshot"]).read_bytes())
    assert len(raw) == info["numpy_snapshot_bytes"]
    wheels = [pdir / fname for fname, _ in B.PYODIDE_WHEELS.values()]
    manifest = B.check_numpy_snapshot(raw, build_id, wheels)
    # What `import numpy` loads: its core (first, at the runtime's first free table slot)
    # and the libraries that core imports; numpy.random's are left for later.
    loaded = [lib["name"].split("/site-packages/")[1] for lib in manifest["libs"]]
    assert loaded[0] == "numpy/_core/_multiarray_umath.cpython-312-wasm32-emscripten.so"
    assert not any(name.startswith("numpy/random/") for name in loaded)
    assert len({lib["handle"] for lib in manifest["libs"]}) == len(loaded)
    for before, after in zip(manifest["libs"], manifest["libs"][1:]):
        assert before["table_base"] + before["table_size"] <= after["table_base"]
        assert before["memory_base"] != after["memory_base"]
    assert manifest["table_length"] >= manifest["libs"][-1]["table_base"] + manifest["libs"][-1]["table_size"]
    assert {slot["lib"] for slot in manifest["table_slots"]} <= {lib["name"] for lib in manifest["libs"]}
    assert any(slot["symbol"] == "PyInit__multiarray_umath" for slot in manifest["table_slots"])


def test_warm_build_into_a_fresh_directory_is_complete_and_prunes_strays(dist, tmp_path):
    # `dist` (the suite's build) warms the cache; this test builds its own site.
    site = tmp_path / "site"
    B.build(site, quiet=True)
    (site / "stray.txt").write_text("left over")
    B.build(site, quiet=True)
    assert not (site / "stray.txt").exists()
    lock = json.loads((site / _info(site)["pyodide"] / "pyodide-lock.json").read_text())
    assert {e["file_name"] for e in lock["packages"].values()} == {f for f, _ in B.PYODIDE_WHEELS.values()}
    [app] = site.glob("app/*/")
    for rel in (p.relative_to(B.WEB) for p in B.WEB.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        if rel.suffix == ".html":  # entries keep their name; their links are rewritten
            assert (site / rel).is_file()
        elif rel.name == "sw.js":  # at the root, after the build's description
            assert (site / rel).read_text().endswith((B.WEB / rel).read_text())
        else:
            assert (app / rel).read_bytes() == (B.WEB / rel).read_bytes()


def test_build_refuses_a_foreign_non_empty_directory(tmp_path):
    (tmp_path / "precious.txt").write_text("mine")
    with pytest.raises(B.BuildError, match="not made by build.py"):
        B.build(tmp_path, quiet=True)
    assert (tmp_path / "precious.txt").exists()


# ----------------------------------------------------------- start-up snapshots


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


def _info(dist):
    return json.loads((dist / "build-info.json").read_text())


def test_the_snapshots_are_made_with_node_once_then_taken_from_the_cache(node, scratch_cache, tmp_path,
                                                                          monkeypatch):
    runs = []
    make = B.make_snapshot
    monkeypatch.setattr(B.snapshot, "make_snapshot", lambda *a: (runs.append(a), make(*a)))
    first = B.build(tmp_path / "first", quiet=True)
    assert len(runs) == 1
    info = _info(first)
    assert re.fullmatch(r"pyodide/[0-9a-f]{12}/snapshot\.bin\.gz", info["snapshot"])
    packed = (first / info["snapshot"]).read_bytes()
    raw = gzip.decompress(packed)  # a valid gzip (its CRC checked)
    assert struct.unpack_from("<I", raw)[0] == B.SNAPSHOT_MAGIC == 1886286592
    assert 8 << 20 <= len(raw) <= 256 << 20 and len(packed) < len(raw) // 2
    assert info["snapshot_bytes"] == len(raw)
    build_id = B.pyodide_build_id(first / info["pyodide"])
    assert build_id and raw[16:48] == struct.pack("<8I", *(int(build_id[i:i + 8], 16) for i in range(0, 64, 8)))
    B.check_snapshot(raw, build_id)
    numpy_packed = (first / info["numpy_snapshot"]).read_bytes()
    numpy_raw = gzip.decompress(numpy_packed)
    assert info["numpy_snapshot_bytes"] == len(numpy_raw)
    B.check_numpy_snapshot(numpy_raw, build_id, [B.cache_dir() / f"pyodide-{B.PYODIDE_VERSION}-wheels" / f
                                                 for f, _ in B.PYODIDE_WHEELS.values()])
    # Start-up state is frozen into the files: none of this machine's paths may be in them.
    for private in (str(tmp_path), str(REPO), str(B.cache_dir()), str(Path.home() / ".cache")):
        assert private.encode() not in raw
        assert private.encode() not in numpy_raw
    cached = next(scratch_cache.glob(f"pyodide-{B.PYODIDE_VERSION}-snapshots/*/{B.SNAPSHOT_FILE}"))
    assert (cached.parent / B.NUMPY_SNAPSHOT_FILE).is_file()
    made_at = cached.stat().st_mtime_ns

    # A second build takes it from the cache: Node is not run, and not even needed.
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    second = B.build(tmp_path / "second", quiet=True)
    assert len(runs) == 1
    assert cached.stat().st_mtime_ns == made_at
    assert (second / _info(second)["snapshot"]).read_bytes() == packed
    assert (second / _info(second)["numpy_snapshot"]).read_bytes() == numpy_packed
    assert _info(second)["snapshot"] == info["snapshot"]


def _fake_node(folder, version, script_exit=1):
    folder.mkdir()
    node = folder / "node"
    node.write_text(f'#!/bin/sh\nif [ "$1" = --version ]; then echo {version}; exit 0; fi\n'
                    f'echo "RuntimeError: boom" >&2\nexit {script_exit}\n')
    node.chmod(0o755)
    return folder


@pytest.mark.parametrize("node, why", [
    ("missing", "node not found on PATH"),
    ("v16.20.2", "node v16.20.2 is too old (Pyodide 0.27.7 needs Node 18+)"),
    ("v20.11.0", "pyodide_snapshot.mjs failed (exit 1): RuntimeError: boom"),
])
def test_without_a_usable_node_the_build_succeeds_without_snapshots(scratch_cache, tmp_path, monkeypatch,
                                                                     capsys, node, why):
    bin_dir = tmp_path / "bin"
    if node == "missing":
        bin_dir.mkdir()
    else:
        _fake_node(bin_dir, node)
    monkeypatch.setenv("PATH", str(bin_dir))
    dist = tmp_path / "site"
    # Snapshots left by an earlier build must not outlive a build that could not make them.
    B.build(dist, quiet=True)
    (B.staging_dir(dist) / "pyodide" / B.SNAPSHOT_FILE).write_bytes(b"stale")
    (B.staging_dir(dist) / "pyodide" / B.NUMPY_SNAPSHOT_FILE).write_bytes(b"stale")
    capsys.readouterr()
    assert B.build(dist) == dist
    out = capsys.readouterr().out.splitlines()
    said = [line for line in out if "snapshot" in line and "(node)" not in line]
    assert said == [f"  no start-up snapshots: {why}; the site works, but Python starts several seconds "
                    f"slower in the browser (install Node.js 18+ and rebuild to get them)"]
    assert re.fullmatch(r"  python start-up snapshots \(node\) +\d+\.\d\d s", next(l for l in out if "(node)" in l))
    info = _info(dist)
    assert info["snapshot"] is None and info["snapshot_bytes"] is None
    assert info["numpy_snapshot"] is None and info["numpy_snapshot_bytes"] is None
    assert not list(dist.rglob(B.SNAPSHOT_FILE))
    assert not list(dist.rglob(B.NUMPY_SNAPSHOT_FILE))
    assert (dist / info["pyodide"] / "pyodide.asm.wasm").is_file() and (dist / info["poolgrad_wheel"]).is_file()
    assert not list(scratch_cache.glob(f"pyodide-{B.PYODIDE_VERSION}-snapshots/*/*"))


def test_check_snapshot_refuses_what_would_hang_or_mismatch():
    header = struct.pack("<4I", B.SNAPSHOT_MAGIC, 64, 0, 0) + struct.pack("<8I", *range(8)) + bytes(16)
    good = header + bytes(32 * 65536)
    build_id = "".join(f"{w:08x}" for w in range(8))
    B.check_snapshot(good, build_id)
    with pytest.raises(B.SnapshotUnavailable, match="BUILD_ID"):
        B.check_snapshot(good, "f" * 64)
    with pytest.raises(B.SnapshotUnavailable, match="magic"):
        B.check_snapshot(b"\0" * 4 + good[4:], build_id)
    with pytest.raises(B.SnapshotUnavailable, match="wasm pages"):
        B.check_snapshot(good + b"\0" * 16, build_id)
    with pytest.raises(B.SnapshotUnavailable, match="only"):
        B.check_snapshot(good[:1000], build_id)


def _numpy_container(image, files, libs, table_slots=()):
    """A NumPy snapshot container as scripts/pyodide_snapshot.mjs lays it out."""
    manifest = {"format": 1, "image": {"offset": 4096, "bytes": len(image)}, "libs": libs,
                "table_length": 100, "table_slots": list(table_slots), "files": []}
    offset = 4096 + len(image)
    for path, data in files.items():
        manifest["files"].append({"path": path, "offset": offset, "bytes": len(data)})
        offset += len(data)
    text = json.dumps(manifest).encode()
    head = B.NUMPY_SNAPSHOT_MAGIC + struct.pack("<I", len(text)) + text
    return head + bytes(4096 - len(head)) + image + b"".join(files.values())


def test_check_numpy_snapshot_refuses_a_container_that_is_not_the_wheels(tmp_path):
    header = struct.pack("<4I", B.SNAPSHOT_MAGIC, 64, 0, 0) + struct.pack("<8I", *range(8)) + bytes(16)
    image = header + bytes(32 * 65536)
    build_id = "".join(f"{w:08x}" for w in range(8))
    wheel = tmp_path / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("pkg/__init__.py", "x = 1\n")
        zf.writestr("pkg/_core.so", b"\0asm-core")
        zf.writestr("pkg/_extra.so", b"\0asm-extra")
    site = "/lib/python3.12/site-packages/"
    files = {site + name: zipfile.ZipFile(wheel).read(name) for name in ("pkg/__init__.py", "pkg/_core.so", "pkg/_extra.so")}
    libs = [{"name": site + "pkg/_core.so", "handle": 8, "memory_base": 1024, "table_base": 10, "table_size": 4},
            {"name": site + "pkg/_extra.so", "handle": 16, "memory_base": 4096, "table_base": 15, "table_size": 2}]
    manifest = B.check_numpy_snapshot(_numpy_container(image, files, libs), build_id, [wheel])
    assert [lib["handle"] for lib in manifest["libs"]] == [8, 16]

    refused = {
        "PGNS": b"PGNX" + _numpy_container(image, files, libs)[4:],
        "BUILD_ID": _numpy_container(image[:16] + bytes(32) + image[48:], files, libs),
        "not the wheels' files": _numpy_container(image, {**files, site + "pkg/_core.so": b"\0asm-other"}, libs),
        "table-base order": _numpy_container(image, files, libs[::-1]),
        "truncated": _numpy_container(image, files, libs)[:-3],
    }
    for why, data in refused.items():
        with pytest.raises(B.SnapshotUnavailable, match=why):
            B.check_numpy_snapshot(data, build_id, [wheel])


# ---------------------------------------------------------------------------- server


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


def _get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.headers.get("Content-Type"), r.read()


@pytest.mark.parametrize("path, ctype", [
    ("/pyodide/pyodide.asm.wasm", "application/wasm"),
    ("/pyodide/pyodide.mjs", "text/javascript"),
    ("/app.mjs", "text/javascript"),
    ("/worker.js", "text/javascript"),
    ("/build-info.json", "application/json"),
    ("/style.css", "text/css"),
    ("/icon.svg", "image/svg+xml"),
    ("/pyodide/python_stdlib.zip", "application/zip"),
    ("/wheels/poolgrad-0.1.0-py3-none-any.whl", "application/zip"),
    ("/pyodide/snapshot.bin.gz", "application/gzip"),
    ("/", "text/html"),
    ("/index.html", "text/html"),
])
def test_server_sends_the_right_mime_type(server, path, ctype):
    base, _ = server
    with urllib.request.urlopen(base + path, timeout=10) as r:
        status, got = r.status, r.headers.get("Content-Type")
        # The worker gunzips the snapshot itself: the server must not label it gzip-encoded.
        assert r.headers.get("Content-Encoding") is None
    assert status == 200
    assert got.split(";")[0].strip() == ctype


def test_every_kind_of_file_the_site_ships_has_a_served_type(dist):
    # Every suffix in the built site must be in the server's table, so none of its files
    # goes out as application/octet-stream (a .wasm served so makes Pyodide's boot hang).
    shipped = {p.suffix for p in dist.rglob("*") if p.is_file() and p.suffix}
    assert shipped, "the built site is empty"
    unknown = sorted(suffix for suffix in shipped if suffix not in B.MIME_TYPES)
    assert not unknown, f"files with these suffixes would be served without a type: {unknown}"


def test_server_listens_on_loopback_by_default(site):
    srv = B.make_server(site, request_log=[])
    try:
        assert srv.server_address[0] == "127.0.0.1" and srv.server_address[1] > 0
    finally:
        srv.server_close()


def test_request_log_records_every_request_and_nothing_is_printed(server, capfd):
    base, log = server
    _get(base + "/index.html")
    _get(base + "/pyodide/pyodide.asm.wasm?v=1")
    with pytest.raises(urllib.error.HTTPError):
        _get(base + "/missing.js")
    assert log == ["/index.html", "/pyodide/pyodide.asm.wasm?v=1", "/missing.js"]
    assert [r.status for r in log] == [200, 200, 404]
    assert all(r.method == "GET" and r.client == "127.0.0.1" for r in log)
    assert all(r.host == base.split("//")[1] for r in log)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_port_in_use_raises_eaddrinuse(site):
    import errno
    first = B.make_server(site, request_log=[])
    try:
        with pytest.raises(OSError) as e:
            B.make_server(site, port=first.server_address[1], request_log=[])
        assert e.value.errno == errno.EADDRINUSE
    finally:
        first.server_close()


def test_serve_reports_a_port_in_use_in_one_line(site, capsys, monkeypatch):
    first = B.make_server(site, request_log=[])
    monkeypatch.setattr(B.paths, "DIST", site)
    try:
        rc = B.main(["serve", "--no-build", "--port", str(first.server_address[1])])
    finally:
        first.server_close()
    err = capsys.readouterr().err
    assert rc == 1
    assert err.count("\n") == 1 and err.startswith("error: port ") and "--port" in err


# ---------------------------------------------------------------------------- bundle


def test_bundle_holds_the_site_and_a_working_launcher(site, tmp_path):
    out = B.bundle(tmp_path / "demo.zip", dist=site, build_first=False, quiet=True)
    with zipfile.ZipFile(out) as zf:
        names = set(zf.namelist())
        assert "poolgrad-offline/serve.py" in names
        # Already compressed: stored as it is.
        assert zf.getinfo("poolgrad-offline/site/pyodide/snapshot.bin.gz").compress_type == zipfile.ZIP_STORED
        for p in site.rglob("*"):
            if p.is_file():
                assert f"poolgrad-offline/site/{p.relative_to(site).as_posix()}" in names
        zf.extractall(tmp_path / "unzipped")
    launcher = tmp_path / "unzipped" / "poolgrad-offline" / "serve.py"
    src = launcher.read_text()
    assert src == (REPO / "sitebuild" / "server.py").read_text()  # the server module, whole
    proc = subprocess.Popen([sys.executable, str(launcher), "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert m, line
        status, ctype, body = _get(m.group(0) + "pyodide/pyodide.asm.wasm")
        assert status == 200 and ctype == "application/wasm" and body == b"\0asm\1\0\0\0"
        status, ctype, _ = _get(m.group(0))
        assert ctype.startswith("text/html")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert proc.returncode == 0  # SIGTERM stops it cleanly


def test_bundle_refuses_an_unbuilt_site(tmp_path):
    with pytest.raises(B.BuildError, match="index.html"):
        B.bundle(tmp_path / "x.zip", dist=tmp_path / "empty", build_first=False, quiet=True)


# ------------------------------------------------------------------------- chromium


def test_find_chromium_prefers_the_environment(tmp_path, monkeypatch):
    exe = tmp_path / "my-chromium"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    monkeypatch.setenv("POOLGRAD_CHROMIUM", str(exe))
    assert B.find_chromium() == str(exe.resolve())


def test_find_chromium_without_any(tmp_path, monkeypatch):
    monkeypatch.delenv("POOLGRAD_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert B.find_chromium() is None


def test_importing_the_builder_does_no_work():
    # Module level only defines names: a fresh import in a subprocess prints nothing and
    # creates no dist/ or cache.
    env = dict(os.environ, POOLGRAD_CACHE=str(REPO / "nonexistent-cache-dir"))
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import sitebuild as m; "
            "print(sorted(n for n in ('build', 'make_server', 'MIME_TYPES', 'find_chromium', 'DIST', 'WEB') "
            "if hasattr(m, n)))")
    r = subprocess.run([sys.executable, "-c", code, str(REPO)], capture_output=True, text=True, env=env, cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "['DIST', 'MIME_TYPES', 'WEB', 'build', 'find_chromium', 'make_server']"
    assert not (REPO / "nonexistent-cache-dir").exists()


def test_build_py_is_a_thin_entry_with_one_argument_parser(capsys):
    # build.py only hands the command line to sitebuild.commands.main, whose one parser
    # gives every command's usage and refuses what it does not know.
    entry = (REPO / "build.py").read_text()
    assert "from sitebuild.commands import main" in entry and len(entry.splitlines()) < 40
    assert B.main(["--help"]) == 0
    usage = capsys.readouterr().out
    for command in ("build", "serve", "test", "bench", "bundle"):
        assert f"    {command} " in usage
    assert B.main(["bench", "--engine", "safari"]) == 2
    assert "invalid choice: 'safari'" in capsys.readouterr().err
    assert B.main(["serve", "--nope"]) == 2
    assert "unrecognized arguments for serve: --nope" in capsys.readouterr().err


# --------------------------------------------------------------------- clear errors


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


def test_a_full_disk_is_one_clear_line(monkeypatch, capsys):
    import errno

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device", "dist/pyodide/pyodide.asm.wasm")

    monkeypatch.setattr(B.assembly, "build", full)
    assert B.main(["build"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: disk full while writing dist/pyodide/pyodide.asm.wasm") and err.count("\n") == 1


def test_an_unexpected_error_is_one_line_without_traceback(monkeypatch, capsys):
    monkeypatch.delenv("POOLGRAD_DEBUG", raising=False)
    monkeypatch.setattr(B.assembly, "build", lambda *a, **k: 1 / 0)
    assert B.main(["build"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "ZeroDivisionError" in err


# ------------------------------------------------------------------ publishing


FIXED_NAMES = {"index.html", "embed-demo.html", "build-info.json", "sw.js", "_headers", ".nojekyll"}


def _published(dist):
    return sorted(p.relative_to(dist).as_posix() for p in dist.rglob("*") if p.is_file() and p.name != B.DIST_MARKER)


def _service_worker_build(dist):
    """The build description that build.py prepends to sw.js."""
    line = next(l for l in (dist / "sw.js").read_text().splitlines() if l.startswith("const BUILD = "))
    return json.loads(line[len("const BUILD = "):].rstrip(";"))


def test_every_file_but_the_fixed_names_is_under_its_groups_content_hash(dist):
    published = _published(dist)
    assert FIXED_NAMES <= set(published)
    hashed = [rel for rel in published if rel not in FIXED_NAMES]
    # The front end keeps web/'s folders inside its one hashed folder; the others are flat.
    assert all(re.fullmatch(r"app/[0-9a-f]{12}/[^/]+(/[^/]+)?|(pyodide|wheels)/[0-9a-f]{12}/[^/]+", rel)
               for rel in hashed), hashed
    assert any(rel.startswith("app/") and rel.count("/") == 3 for rel in hashed)
    groups = {}
    for rel in hashed:
        group, digest, name = rel.split("/", 2)
        groups.setdefault((group, digest), []).append(name)
    assert sorted(group for group, _ in groups) == ["app", "pyodide", "wheels"]  # one folder each
    others = sorted(digest for group, digest in groups if group != "app")
    for (group, digest), names in groups.items():
        h = hashlib.sha256()
        for name in sorted(names):
            h.update(f"{name}\0{B.sha256_of(dist / group / digest / name)}\n".encode())
        # The front end's folder also changes with the runtime and the wheel it loads (its
        # shared worker, keyed by its URL, must not serve another build's Python).
        for loaded in others if group == "app" else []:
            h.update(f"loads {loaded}\n".encode())
        assert h.hexdigest()[:12] == digest, group


def test_entry_pages_and_build_info_name_files_that_exist(dist):
    info = _info(dist)
    for key in ("poolgrad_wheel", "snapshot"):
        assert (dist / info[key]).is_file(), key
    assert (dist / info["pyodide"] / "pyodide.mjs").is_file()
    for page in ("index.html", "embed-demo.html"):
        html = (dist / page).read_text()
        links = re.findall(r'\b(?:src|href)="([^"#?:]+)', html)
        assert links
        for link in links:
            assert (dist / link).is_file(), f"{page}: {link}"
            assert link in ("index.html",) or link.startswith("./app/"), link
    index = (dist / "index.html").read_text()
    manifest_link = re.search(r'<link rel="manifest" href="\./([^"]+)">', index).group(1)
    manifest = json.loads((dist / manifest_link).read_text())
    where = Path(manifest_link).parent
    assert (dist / where / manifest["start_url"]).resolve() == (dist / "index.html").resolve()
    assert (dist / where / manifest["scope"]).resolve() == dist.resolve()
    assert manifest["display"] == "standalone" and manifest["name"] and manifest["short_name"] == "poolgrad"
    pngs = [icon for icon in manifest["icons"] if icon["type"] == "image/png"]
    assert {icon["sizes"] for icon in pngs} >= {"192x192", "512x512"}
    for icon in pngs:
        data = (dist / where / icon["src"]).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert "%dx%d" % struct.unpack(">II", data[16:24]) == icon["sizes"]


def test_the_service_worker_keeps_exactly_the_published_site(dist):
    build = _service_worker_build(dist)
    info = _info(dist)
    assert build["id"] == info["build_id"] and re.fullmatch(r"[0-9a-f]{16}", build["id"])
    kept = {path: (sha, hashed) for path, sha, hashed in build["files"]}
    assert sorted(kept) == sorted(rel for rel in _published(dist) if rel not in {"sw.js", "_headers", ".nojekyll"})
    for path, (sha, hashed) in kept.items():
        assert hashed == (path not in FIXED_NAMES)
        # build-info.json carries the build id instead (its "built" time changes every build).
        assert sha == (None if path == "build-info.json" else B.sha256_of(dist / path))
    assert (dist / "sw.js").read_text().endswith((B.WEB / "sw.js").read_text())


def test_a_code_change_renames_only_its_group_and_a_rebuild_changes_nothing(dist, tmp_path, monkeypatch):
    first = B.build(tmp_path / "first", quiet=True)
    again = B.build(tmp_path / "again", quiet=True)
    # Identical sources: the same names and the same service worker, so learners are not
    # told of a "new version" that is not one.
    assert _published(first) == _published(again)
    assert (first / "sw.js").read_bytes() == (again / "sw.js").read_bytes()
    web = tmp_path / "web"
    shutil.copytree(B.WEB, web)
    (web / "widget" / "render.js").write_text((web / "widget" / "render.js").read_text() + "\n// changed\n")
    monkeypatch.setattr(B.paths, "WEB", web)
    second = B.build(tmp_path / "second", quiet=True)
    before, after = set(_published(first)), set(_published(second))
    assert {rel.split("/")[1] for rel in before ^ after if rel.startswith("app/")} and all(
        rel.startswith("app/") for rel in before ^ after)
    assert _info(first)["pyodide"] == _info(second)["pyodide"]
    assert _info(first)["poolgrad_wheel"] == _info(second)["poolgrad_wheel"]
    assert _info(first)["build_id"] != _info(second)["build_id"]


def test_headers_file_and_the_local_server_agree_on_caching(dist):
    rules = B.read_header_rules(dist)
    log = []
    srv = B.make_server(dist, request_log=log)
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    t.start()
    base = B.server_url(srv)
    try:
        for rel in _published(dist) + [""]:
            expected = [v for n, v in B.headers_for(rules, "/" + rel) if n == "Cache-Control"]
            with urllib.request.urlopen(base + rel, timeout=10) as r:
                got = r.headers.get_all("Cache-Control")
                ctype = r.headers.get("Content-Type")
            if rel in FIXED_NAMES - {"_headers", ".nojekyll"} or rel == "":
                assert expected == got == ["no-cache"], rel
            elif rel not in FIXED_NAMES:
                assert expected == got == ["public, max-age=31536000, immutable"], rel
            if rel.endswith(".wasm"):
                assert ("Content-Type", "application/wasm") in B.headers_for(rules, "/" + rel)
                assert ctype == "application/wasm"
        # A date-based 304 only for content-hashed files: a fixed name is always sent whole.
        late = "Fri, 01 Jan 2100 00:00:00 GMT"
        wheel = _info(dist)["poolgrad_wheel"]
        for rel, status in (("sw.js", 200), ("index.html", 200), (wheel, 304)):
            request = urllib.request.Request(base + rel, headers={"If-Modified-Since": late})
            try:
                with urllib.request.urlopen(request, timeout=10) as r:
                    got = r.status
            except urllib.error.HTTPError as e:
                got = e.code
            assert got == status, rel
    finally:
        srv.shutdown()
        srv.server_close()


def test_the_offline_bundles_server_sends_the_same_headers(site, tmp_path):
    (site / "_headers").write_text("/\n  Cache-Control: no-cache\n/wheels/*\n  Cache-Control: public, max-age=31536000, immutable\n")
    out = B.bundle(tmp_path / "demo.zip", dist=site, build_first=False, quiet=True)
    with zipfile.ZipFile(out) as zf:
        zf.extractall(tmp_path / "unzipped")
    proc = subprocess.Popen([sys.executable, str(tmp_path / "unzipped" / "poolgrad-offline" / "serve.py"), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        base = re.search(r"http://127\.0\.0\.1:\d+/", proc.stdout.readline()).group(0)
        with urllib.request.urlopen(base + "wheels/poolgrad-0.1.0-py3-none-any.whl", timeout=10) as r:
            assert r.headers.get_all("Cache-Control") == ["public, max-age=31536000, immutable"]
        with urllib.request.urlopen(base, timeout=10) as r:
            assert r.headers.get_all("Cache-Control") == ["no-cache"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_headers_rules_follow_the_hosts_format():
    combined = [("/*", [("X-A", "1")]), ("/app/*", [("X-A", "2"), ("Cache-Control", "immutable")])]
    assert B.headers_for(combined, "/app/x/y.js?v=1") == [("X-A", "1, 2"), ("Cache-Control", "immutable")]
    assert B.headers_for(combined, "/index.html") == [("X-A", "1")]
    assert B.headers_for([("/", [("Cache-Control", "no-cache")])], "/index.html") == []


# ------------------------------------------------------------------ the workflow


def test_the_pages_workflow_is_valid_yaml_that_builds_with_build_py_and_deploys_dist():
    try:
        import yaml
    except ImportError:
        pytest.fail("PyYAML is missing: it is in the [test] extra (`python build.py test` installs it)")
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "pages.yml").read_text())
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "push" in triggers and "workflow_dispatch" in triggers
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    uses = [step["uses"].split("@")[0] for step in steps if "uses" in step]
    for action in ("actions/checkout", "actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages"):
        assert action in uses, action
    runs = [step["run"] for step in steps if "run" in step]
    assert any(re.search(r"^python build\.py\s*$", run, re.M) for run in runs), runs
    upload = next(step for step in steps if step.get("uses", "").startswith("actions/upload-pages-artifact"))
    assert upload["with"]["path"] == "dist"
    deploy_job = next(job for job in workflow["jobs"].values()
                      if any(s.get("uses", "").startswith("actions/deploy-pages") for s in job["steps"]))
    assert deploy_job["environment"]["name"] == "github-pages" and deploy_job["needs"]


def test_build_py_examples_run():
    import doctest
    attempted = 0
    for module in (B.assembly, B.server, B.common, B.snapshot, B.shipped, B.devenv):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0, module.__name__
        attempted += result.attempted
    assert attempted >= 5


# ----------------------------------------------------------------- shipped traces


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


def _shipped(site):
    info = _info(site)
    data = (site / info["shipped_traces_file"]).read_bytes()
    return info, data, json.loads(data)["traces"]


def _without_numpy(tmp_path, monkeypatch):
    """The builder's native Python is one that cannot import NumPy."""
    fake = tmp_path / "fake-python"
    fake.write_text("#!/bin/sh\necho \"ModuleNotFoundError: No module named 'numpy'\" >&2\nexit 1\n")
    fake.chmod(0o755)
    probe = B.shipped.native_python
    monkeypatch.setattr(B.shipped, "native_python", lambda python=None: probe(str(fake)))


def test_the_shipped_traces_are_poolgrads_answers_for_the_front_ends_views(node, traces_cache, tmp_path,
                                                                          monkeypatch):
    from poolgrad.wire import run_trace

    runs = []
    compute = B.shipped.compute_traces
    monkeypatch.setattr(B.shipped, "compute_traces", lambda *a: (runs.append(a), compute(*a))[1])
    first = B.build(tmp_path / "first", quiet=True)
    info, data, traces = _shipped(first)
    assert re.fullmatch(r"app/[0-9a-f]{12}/shipped-traces\.json", info["shipped_traces_file"])
    # The keys are the front end's own (web/lesson/first-views.js through Node), default view first.
    assert list(traces) == B.shipped.first_view_keys()
    assert json.loads(next(iter(traces))) == {
        "x": [[1, 2, 5, 6], [3, 4, 8, 7], [0, -1, -3, -2], [-4, 9, -6, -5]], "kernel_size": [2, 2],
        "stride": [2, 2], "padding": [0, 0], "dilation": [1, 1], "ceil_mode": False, "count_include_pad": True,
        "mode": "max", "grad_output": 1}
    # Default, 3 more presets and the 3 x 3 / stride 1 step, each in max and average.
    assert info["shipped_traces"] == len(traces) == 10
    assert info["shipped_traces_bytes"] == len(data)
    assert info["shipped_traces_gzip_bytes"] == len(gzip.compress(data, compresslevel=9, mtime=0))
    assert info["shipped_traces_note"] is None
    for key, trace in traces.items():
        assert json.loads(run_trace(key)) == {"trace": trace}
    # The service worker keeps it offline, like every other file of the site.
    assert f'["{info["shipped_traces_file"]}","{hashlib.sha256(data).hexdigest()}",true]' in (
        first / "sw.js").read_text()

    # A second build takes it from the cache: neither Node nor Python runs.
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    second = B.build(tmp_path / "second", quiet=True)
    assert len(runs) == 1
    assert _shipped(second)[1] == data


def test_without_numpy_the_same_traces_come_from_pyodide_in_node(node, traces_cache, dist, tmp_path,
                                                                 monkeypatch, capsys):
    _without_numpy(tmp_path, monkeypatch)
    site = B.build(tmp_path / "site")
    said = [line for line in capsys.readouterr().out.splitlines() if "shipped traces" in line]
    assert said == ["  shipped traces computed under Pyodide in Node: NumPy is not installed for fake-python "
                    "(pip install numpy, or pip install -e .[test], and rebuild)"]
    assert _shipped(site)[1] == _shipped(dist)[1]


def _failing_script(tmp_path, name):
    script = tmp_path / name
    script.write_text('console.error("Error: boom"); process.exit(1);\n')
    return script


@pytest.mark.parametrize("lacking, why", [
    ("node", "node not found on PATH (the list of views comes from the front end's modules)"),
    ("numpy", "NumPy is not installed for fake-python (pip install numpy, or pip install -e .[test], and "
              "rebuild); and under Pyodide in Node: poolgrad under Pyodide (broken.mjs) failed (exit 1): "
              "Error: boom"),
])
def test_without_a_way_to_run_poolgrad_the_site_ships_no_traces_and_says_why(node, traces_cache, tmp_path,
                                                                              monkeypatch, capsys, lacking, why):
    dist = tmp_path / "site"
    B.build(dist, quiet=True)
    if lacking == "node":
        monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    else:
        _without_numpy(tmp_path, monkeypatch)
        monkeypatch.setattr(B.shipped, "PYODIDE_SCRIPT", _failing_script(tmp_path, "broken.mjs"))
    # A change to the front end: the cached traces no longer fit it.
    monkeypatch.setattr(B.shipped, "NATIVE_PROGRAM", B.shipped.NATIVE_PROGRAM + "# changed\n")
    capsys.readouterr()
    B.build(dist)
    said = [line for line in capsys.readouterr().out.splitlines() if "shipped traces" in line]
    assert said == [f"  no shipped traces: {why}; the site works, but its first view waits for Python"]
    info, data, traces = _shipped(dist)
    assert traces == {} and data == b'{"traces":{}}\n'
    assert info["shipped_traces"] == 0 and info["shipped_traces_note"] == why
