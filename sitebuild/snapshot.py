"""Python's start-up snapshot (NumPy imported), made under Node by
sitebuild/pyodide_snapshot.mjs, checked and cached by the sha256 of its inputs; without Node
the site is built without it."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import zipfile
from pathlib import Path

from .common import atomic_write_bytes, last_output_line, sha256_of
from . import paths
from .paths import ROOT, WEB
from .pins import (NODE_MIN_MAJOR, NUMPY_SNAPSHOT_FILE, PYODIDE_CORE_SHA256, PYODIDE_LOCK, PYODIDE_LOCK_SHA256,
                   PYODIDE_VERSION, SNAPSHOT_INPUTS, SNAPSHOT_TIMEOUT_S)

HERE = Path(__file__).resolve().parent  # the Node helpers sit beside the code that runs them
SNAPSHOT_SCRIPT = HERE / "pyodide_snapshot.mjs"
SNAPSHOT_RESTORE = WEB / "runtime" / "snapshot.js"  # the script restores what it made, as the worker does


# ------------------------------------------------------------- start-up snapshot


class SnapshotUnavailable(Exception):
    """Why no start-up snapshot could be made; the build goes on without one."""


def pyodide_build_id(core: Path) -> str | None:
    """The BUILD_ID that pyodide.mjs checks a snapshot against (None if not found)."""
    m = re.search(r'BUILD_ID:"([0-9a-f]{64})"', (Path(core) / "pyodide.mjs").read_text(encoding="utf-8"))
    return m.group(1) if m else None


def snapshot_format() -> dict:
    """The snapshots' magic numbers, read from their one home, the worker's side of the
    format (web/runtime/snapshot.js, its ``export const NAME = <JSON>;`` lines).

    >>> snapshot_format()
    {'SNAPSHOT_MAGIC': 1886286592, 'CONTAINER_MAGIC': 'PGNS'}
    """
    source = (paths.WEB / "runtime" / "snapshot.js").read_text(encoding="utf-8")
    found = dict(re.findall(r"^export const (SNAPSHOT_MAGIC|CONTAINER_MAGIC) = (.+);$", source, re.M))
    if len(found) != 2:
        raise SnapshotUnavailable("web/runtime/snapshot.js no longer declares SNAPSHOT_MAGIC and CONTAINER_MAGIC")
    return {name: json.loads(found[name]) for name in ("SNAPSHOT_MAGIC", "CONTAINER_MAGIC")}


def check_snapshot(data: bytes, build_id: str | None) -> None:
    """Raise SnapshotUnavailable unless ``data`` is a Pyodide 0.27 memory snapshot (header
    magic, a heap of whole 64 KiB wasm pages after the header) made by ``build_id``."""
    if len(data) < 1 << 20:
        raise SnapshotUnavailable(f"the snapshot has only {len(data)} bytes")
    magic, heap_offset = struct.unpack_from("<2I", data)
    if magic != snapshot_format()["SNAPSHOT_MAGIC"]:
        raise SnapshotUnavailable(f"the snapshot starts with {data[:4].hex()}, not Pyodide's magic number")
    if heap_offset >= len(data) or (len(data) - heap_offset) % 65536:
        raise SnapshotUnavailable("the snapshot's heap is not a whole number of wasm pages")
    made_by = "".join(f"{word:08x}" for word in struct.unpack_from("<8I", data, 16))
    if build_id is not None and made_by != build_id:
        raise SnapshotUnavailable(f"the snapshot's BUILD_ID {made_by} is not the runtime's {build_id}")


def read_numpy_snapshot(data: bytes) -> dict:
    """The manifest of a NumPy snapshot container (web/runtime/snapshot.js describes the layout)."""
    magic = snapshot_format()["CONTAINER_MAGIC"].encode()
    if data[:4] != magic:
        raise SnapshotUnavailable(f"the NumPy snapshot starts with {data[:4].hex()}, not {magic!r}")
    (length,) = struct.unpack_from("<I", data, 4)
    try:
        return json.loads(data[8:8 + length])
    except ValueError as e:
        raise SnapshotUnavailable(f"the NumPy snapshot's manifest is not JSON: {e}") from None


def check_numpy_snapshot(data: bytes, build_id: str | None, wheels: list[Path]) -> dict:
    """Raise SnapshotUnavailable unless ``data`` is a NumPy snapshot whose image passes
    check_snapshot and whose files are exactly the files of ``wheels`` (pinned by sha256),
    with each recorded library among them, in the order of its table base. Returns the
    manifest."""
    manifest = read_numpy_snapshot(data)

    image = manifest["image"]
    if image["offset"] % 4 or image["offset"] + image["bytes"] > len(data):
        raise SnapshotUnavailable("the NumPy snapshot's image lies outside it")
    check_snapshot(data[image["offset"]:image["offset"] + image["bytes"]], build_id)
    expected = {}
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                if not name.endswith("/"):
                    expected[name] = hashlib.sha256(archive.read(name)).hexdigest()
    shipped = {}
    for entry in manifest["files"]:
        if entry["offset"] + entry["bytes"] > len(data):
            raise SnapshotUnavailable(f"the NumPy snapshot is truncated ({entry['path']} lies past its end)")
        relative = entry["path"].split("/site-packages/", 1)[-1]
        shipped[relative] = hashlib.sha256(data[entry["offset"]:entry["offset"] + entry["bytes"]]).hexdigest()
    if shipped != expected:
        differ = sorted(set(shipped.items()) ^ set(expected.items()))[:1]
        raise SnapshotUnavailable(f"the NumPy snapshot's files are not the wheels' files ({differ[0][0]} differs)")
    paths = {entry["path"] for entry in manifest["files"]}
    bases = [lib["table_base"] for lib in manifest["libs"]]
    if not manifest["libs"] or bases != sorted(bases) or any(lib["name"] not in paths for lib in manifest["libs"]):
        raise SnapshotUnavailable("the NumPy snapshot's libraries are not files of it in table-base order")
    return manifest


def snapshot_size(path: Path) -> int:
    """The uncompressed size of a gzipped snapshot (gzip's ISIZE field: under 4 GiB)."""
    with open(path, "rb") as f:
        f.seek(-4, os.SEEK_END)
        return int.from_bytes(f.read(4), "little")


def node_for_snapshot() -> str:
    node = shutil.which("node")
    if node is None:
        raise SnapshotUnavailable("node not found on PATH")
    try:
        version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SnapshotUnavailable(f"`node --version` failed: {e}") from None
    m = re.match(r"v(\d+)\.", version)
    if not m:
        raise SnapshotUnavailable(f"`node --version` printed {version[:40]!r}, not a version")
    if int(m.group(1)) < NODE_MIN_MAJOR:
        raise SnapshotUnavailable(f"node {version} is too old (Pyodide {PYODIDE_VERSION} needs Node {NODE_MIN_MAJOR}+)")
    return node


def run_node_script(script: Path, args: list[str], cwd: str, error: type[Exception] = SnapshotUnavailable) -> None:
    """Run the build helper ``script`` under Node with ``args`` in the folder ``cwd``;
    raise ``error`` with one line saying why unless it ran and exited 0."""
    try:
        node = node_for_snapshot()
    except SnapshotUnavailable as why:
        raise error(str(why)) from None
    try:
        proc = subprocess.run([node, str(script), *args], cwd=cwd, capture_output=True, text=True,
                              timeout=SNAPSHOT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise error(f"{script.name} ran for more than {SNAPSHOT_TIMEOUT_S} s") from None
    except OSError as e:
        raise error(f"cannot run node: {e.strerror or e}") from None
    if proc.returncode != 0:
        raise error(f"{script.name} failed (exit {proc.returncode}): {last_output_line(proc)}")


def make_snapshot(core: Path, numpy: Path, poolgrad: Path, out: Path, stdlib: Path) -> None:
    """Run sitebuild/pyodide_snapshot.mjs with Node against the Pyodide core in ``core``, the
    NumPy zip ``numpy`` (the subset) and poolgrad's wheel ``poolgrad`` (both installed inside
    the snapshot, so a start from it unpacks nothing), with the standard library's zip
    ``stdlib`` mounted (the one the site's starts mount: the image holds zipimport's
    directory of it), and write the checked, gzipped NumPy snapshot into the folder ``out``.
    Raises SnapshotUnavailable."""
    installed = [Path(numpy), Path(poolgrad)]
    node_for_snapshot()
    for script in (SNAPSHOT_SCRIPT, SNAPSHOT_RESTORE):
        if not script.is_file():
            raise SnapshotUnavailable(f"{script.relative_to(ROOT).as_posix()} is missing")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out, prefix=".make-") as tmp:
        run_node_script(SNAPSHOT_SCRIPT, [str(core), tmp, str(stdlib), *map(str, installed)], tmp)
        raw = Path(tmp) / "numpy-snapshot.bin"
        data = raw.read_bytes() if raw.is_file() else b""
        check_numpy_snapshot(data, pyodide_build_id(core), installed)
        atomic_write_bytes(out / NUMPY_SNAPSHOT_FILE, gzip.compress(data, compresslevel=9, mtime=0))


def pyodide_snapshot(cache: Path, core: Path, numpy: Path, poolgrad: Path, stdlib: Path) -> Path:
    """The folder holding the gzipped NumPy snapshot for the verified core in ``core``
    with ``numpy`` and ``poolgrad`` installed and ``stdlib`` mounted (make_snapshot): made
    once with Node, then taken from the cache (keyed by the sha256 of their inputs), so a
    warm build needs neither Node nor any time. Raises SnapshotUnavailable."""
    h = hashlib.sha256()
    pins = dict(PYODIDE_CORE_SHA256, **{PYODIDE_LOCK: PYODIDE_LOCK_SHA256})
    for name in SNAPSHOT_INPUTS:  # verified against these pins by pyodide_core()
        h.update(f"{name}\0{pins[name]}\n".encode())
    for installed in (numpy, poolgrad, stdlib):
        h.update(f"{Path(installed).name}\0{sha256_of(installed)}\n".encode())
    for script in (SNAPSHOT_SCRIPT, SNAPSHOT_RESTORE):
        if not script.is_file():
            raise SnapshotUnavailable(f"{script.relative_to(ROOT).as_posix()} is missing")
        h.update(f"{script.name}\0{sha256_of(script)}\n".encode())
    cached = cache / f"pyodide-{PYODIDE_VERSION}-snapshots" / h.hexdigest()[:24]
    if not (cached / NUMPY_SNAPSHOT_FILE).is_file():
        make_snapshot(core, numpy, poolgrad, cached, stdlib)
    return cached
