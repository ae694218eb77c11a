"""poolgrad's own pure-Python wheel, built with ``pip wheel`` and cached by its sources."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .common import BuildError, check_pip, run, say, sha256_of
from .paths import ROOT
from .pins import WHEEL_INPUTS

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


def pip_build_flags() -> list[str]:
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
    check_pip()
    say("  building poolgrad's wheel with pip wheel ...", quiet)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="poolgrad-src-") as tmp:
        src = Path(tmp) / "src"
        for p in inputs:
            dest = src / p.relative_to(ROOT)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(p, dest)
        wheel_dir = Path(tmp) / "wheel"
        cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "--disable-pip-version-check",
               *pip_build_flags(), "-w", str(wheel_dir), str(src)]
        run(cmd, "building poolgrad's wheel (pip wheel)", quiet, capture=True)
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
