"""sitebuild/snapshot.py: Python's start-up snapshots, made with Node once then cached,
the build without them, and the checks that refuse a bad one."""

from __future__ import annotations

import gzip
import json
import re
import struct
import zipfile
from pathlib import Path

import pytest

import sitebuild as B  # on the path through tests/conftest.py
from built_site import build_info

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_snapshot_is_made_with_node_once_then_taken_from_the_cache(node, scratch_cache, tmp_path,
                                                                         monkeypatch):
    runs = []
    make = B.make_snapshot
    monkeypatch.setattr(B.snapshot, "make_snapshot", lambda *a: (runs.append(a), make(*a)))
    first = B.build(tmp_path / "first", quiet=True)
    assert len(runs) == 1
    info = build_info(first)
    assert re.fullmatch(r"pyodide/[0-9a-f]{12}/numpy-snapshot\.bin\.gz", info["numpy_snapshot"])
    numpy_packed = (first / info["numpy_snapshot"]).read_bytes()
    numpy_raw = gzip.decompress(numpy_packed)  # a valid gzip (its CRC checked)
    assert info["numpy_snapshot_bytes"] == len(numpy_raw)
    assert 8 << 20 <= len(numpy_raw) <= 256 << 20 and len(numpy_packed) < len(numpy_raw) // 3
    build_id = B.pyodide_build_id(first / info["pyodide"])
    manifest = B.check_numpy_snapshot(numpy_raw, build_id, [first / info["numpy_subset"], first / info["poolgrad_subset"]])
    image = numpy_raw[manifest["image"]["offset"]:]
    assert struct.unpack_from("<I", image)[0] == B.snapshot_format()["SNAPSHOT_MAGIC"] == 1886286592
    assert build_id and image[16:48] == struct.pack("<8I", *(int(build_id[i:i + 8], 16) for i in range(0, 64, 8)))
    # Start-up state is frozen into the files: none of this machine's paths may be in them.
    for private in (str(tmp_path), str(REPO), str(B.cache_dir()), str(Path.home() / ".cache")):
        assert private.encode() not in numpy_raw
    cached = next(scratch_cache.glob(f"pyodide-{B.PYODIDE_VERSION}-snapshots/*/{B.NUMPY_SNAPSHOT_FILE}"))
    made_at = cached.stat().st_mtime_ns

    # A second build takes it from the cache: Node is not run, and not even needed.
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    second = B.build(tmp_path / "second", quiet=True)
    assert len(runs) == 1
    assert cached.stat().st_mtime_ns == made_at
    assert (second / build_info(second)["numpy_snapshot"]).read_bytes() == numpy_packed
    assert build_info(second)["numpy_snapshot"] == info["numpy_snapshot"]
    # So is the standard library's subset (what Node saw read is cached too).
    assert (second / build_info(second)["stdlib_subset"]).read_bytes() == (first / info["stdlib_subset"]).read_bytes()


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
def test_without_a_usable_node_the_build_succeeds_without_a_snapshot(scratch_cache, tmp_path, monkeypatch,
                                                                     capsys, node, why):
    bin_dir = tmp_path / "bin"
    if node == "missing":
        bin_dir.mkdir()
    else:
        _fake_node(bin_dir, node)
    monkeypatch.setenv("PATH", str(bin_dir))
    dist = tmp_path / "site"
    # A snapshot left by an earlier build must not outlive a build that could not make it.
    B.build(dist, quiet=True)
    (B.staging_dir(dist) / "pyodide" / B.NUMPY_SNAPSHOT_FILE).write_bytes(b"stale")
    capsys.readouterr()
    assert B.build(dist) == dist
    out = capsys.readouterr().out.splitlines()
    said = [line for line in out if "snapshot" in line and "(node)" not in line]
    assert said == [f"  no start-up snapshot: {why}; the site works, but Python starts seconds "
                    f"slower on a fast link (install Node.js 18+ and rebuild to get it)"]
    assert re.fullmatch(r"  python start-up snapshot \(node\) +\d+\.\d\d s", next(l for l in out if "snapshot (node)" in l))
    # Nor a standard library subset: every start mounts the official zip, which is then
    # saved with the rest of the site, not on demand.
    assert [line for line in out if "no standard library subset" in line] == [
        f"  no standard library subset: {why.replace('pyodide_snapshot', 'pyodide_stdlib')}; every start downloads "
        f"the official python_stdlib.zip (install Node.js 18+ and rebuild to get it)"]
    info = build_info(dist)
    assert info["numpy_snapshot"] is None and info["numpy_snapshot_bytes"] is None
    assert info["stdlib_subset"] is None and info["stdlib_left_out"] is None
    assert [entry["file"] for entry in info["derived"]] == [info["numpy_subset"], info["poolgrad_subset"]]
    assert not list(dist.rglob(B.pins.STDLIB_SUBSET_FILE))
    assert not list(dist.rglob(B.NUMPY_SNAPSHOT_FILE))
    assert (dist / info["pyodide"] / "pyodide.asm.wasm").is_file() and (dist / info["poolgrad_wheel"]).is_file()
    assert not list(scratch_cache.glob(f"pyodide-{B.PYODIDE_VERSION}-snapshots/*/*"))


def test_the_snapshots_magic_numbers_have_one_home_the_worker_and_the_build_read():
    # Pyodide 0.27's header and the NumPy container's, as web/runtime/snapshot.js declares
    # them; the worker's other modules import them from there instead of retyping them.
    assert B.snapshot_format() == {"SNAPSHOT_MAGIC": 1886286592, "CONTAINER_MAGIC": "PGNS"}
    runtime = B.WEB / "runtime"
    for module in [*runtime.glob("*.js"), *(B.WEB / "exercise").glob("*.js"), *Path(B.snapshot.HERE).glob("*.mjs")]:
        if module.name != "snapshot.js":
            source = module.read_text()
            assert "1886286592" not in source and '"PGNS"' not in source, module.name


def test_check_snapshot_refuses_what_would_hang_or_mismatch():
    header = struct.pack("<4I", B.snapshot_format()["SNAPSHOT_MAGIC"], 64, 0, 0) + struct.pack("<8I", *range(8)) + bytes(16)
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
    """A NumPy snapshot container as sitebuild/pyodide_snapshot.mjs lays it out."""
    manifest = {"format": 1, "image": {"offset": 4096, "bytes": len(image)}, "libs": libs,
                "table_length": 100, "table_slots": list(table_slots), "files": []}
    offset = 4096 + len(image)
    for path, data in files.items():
        manifest["files"].append({"path": path, "offset": offset, "bytes": len(data)})
        offset += len(data)
    text = json.dumps(manifest).encode()
    head = B.snapshot_format()["CONTAINER_MAGIC"].encode() + struct.pack("<I", len(text)) + text
    return head + bytes(4096 - len(head)) + image + b"".join(files.values())


def test_check_numpy_snapshot_refuses_a_container_that_is_not_the_wheels(tmp_path):
    header = struct.pack("<4I", B.snapshot_format()["SNAPSHOT_MAGIC"], 64, 0, 0) + struct.pack("<8I", *range(8)) + bytes(16)
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
