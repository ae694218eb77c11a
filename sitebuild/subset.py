"""What a start downloads of NumPy and of Python's standard library: each the pinned
official file less what neither the site's start, NumPy's import, poolgrad nor the
exercise checker uses, derived reproducibly at build time (docs/startup.md); and of
poolgrad, its wheel less the notebook widget's files.

The NumPy subset leaves out fixed parts (fft, f2py, polynomial, ma, testing, lapack_lite,
the tests, type stubs, C headers and static libraries). The standard library's keeps the
files the site's Python was seen to read (sitebuild/pyodide_stdlib.mjs runs it under Node).
The official files stay in the site: the worker fetches one the first time code imports a
module its subset lacks (web/runtime/python-runtime.js, FETCH_ON_IMPORT).
"""

from __future__ import annotations

import hashlib
import io
import json
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from .common import atomic_write_bytes, sha256_of
from .paths import WEB
from .pins import POOLGRAD_LEFT_OUT, PYODIDE_CORE_SHA256, PYODIDE_STDLIB, PYODIDE_VERSION

# Left out of the subset: folders (and one module) by prefix, and kinds of file anywhere.
NUMPY_LEFT_OUT = ("numpy/fft/", "numpy/f2py/", "numpy/polynomial/", "numpy/ma/", "numpy/testing/",
                  "numpy/random/", "numpy/_pyinstaller/", "numpy/doc/", "numpy/linalg/lapack_lite",
                  "numpy/_core/include/", "numpy/_core/lib/")
NUMPY_LEFT_OUT_KINDS = (".pyi", ".pxd", ".h", ".a", ".c", ".pyx")
FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # every entry's date: the same bytes from the same file

HERE = Path(__file__).resolve().parent
STDLIB_SCRIPT = HERE / "pyodide_stdlib.mjs"
# What the script runs of the site's own code: the worker's boot and the snapshot's restore.
STDLIB_SCRIPT_USES = (WEB / "runtime" / "python-runtime.js", WEB / "runtime" / "snapshot.js")


class StdlibUnavailable(Exception):
    """Why no standard library subset could be made; the site then mounts the official zip."""


def left_out(name: str) -> bool:
    """Whether the wheel's file ``name`` is left out of the NumPy subset.

    >>> [left_out(n) for n in ("numpy/fft/_pocketfft.py", "numpy/_core/tests/test_a.py", "numpy/__init__.py")]
    [True, True, False]
    """
    return name.startswith(NUMPY_LEFT_OUT) or "/tests/" in name or name.endswith(NUMPY_LEFT_OUT_KINDS)


def zip_subset(source: Path, keep: Callable[[zipfile.ZipInfo], bool]) -> bytes:
    """The entries of the zip ``source`` that ``keep`` accepts, as a zip: in its order,
    each deflated at level 9 with a fixed date, so the same file always gives the same bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(source) as official, zipfile.ZipFile(out, "w") as subset:
        for entry in official.infolist():
            if not keep(entry):
                continue
            info = zipfile.ZipInfo(entry.filename, date_time=FIXED_TIME)
            info.external_attr = entry.external_attr
            info.compress_type = zipfile.ZIP_DEFLATED
            subset.writestr(info, official.read(entry), compresslevel=9)
    return out.getvalue()


def subset_bytes(wheel: Path) -> bytes:
    """The NumPy subset of ``wheel``: its files less ``left_out``."""
    return zip_subset(wheel, lambda entry: not entry.is_dir() and not left_out(entry.filename))


def write_subset(dest: Path, data: bytes) -> Path:
    """Write ``data`` to ``dest`` unless it holds them already; return ``dest``."""
    if not (dest.is_file() and dest.read_bytes() == data):
        atomic_write_bytes(dest, data)
    return dest


def numpy_subset(wheel: Path, dest: Path) -> Path:
    """Write the subset of the NumPy ``wheel`` to ``dest`` and return ``dest``."""
    return write_subset(dest, subset_bytes(wheel))


def poolgrad_subset(wheel: Path, dest: Path) -> Path:
    """Write what a browser's Python installs of poolgrad to ``dest``: the files of its
    ``wheel`` less the notebook widget's (POOLGRAD_LEFT_OUT), and return ``dest``."""
    return write_subset(dest, zip_subset(wheel, lambda entry: not entry.is_dir() and entry.filename not in POOLGRAD_LEFT_OUT))


# ------------------------------------------------------------ the standard library's


def stdlib_subset_bytes(official: Path, files: list[str]) -> bytes:
    """The standard library's subset: the entries of the ``official`` zip named in
    ``files``, and the folders that hold them.

    >>> import tempfile, zipfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     official = Path(tmp) / "stdlib.zip"
    ...     with zipfile.ZipFile(official, "w") as z:
    ...         for name in ("json/", "json/__init__.py", "json/tool.py", "abc.py", "this.py"):
    ...             z.writestr(name, "")
    ...     zipfile.ZipFile(io.BytesIO(stdlib_subset_bytes(official, ["json/__init__.py", "abc.py"]))).namelist()
    ['json/', 'json/__init__.py', 'abc.py']
    """
    kept = set(files)
    folders = {name[:end + 1] for name in kept for end in range(len(name)) if name[end] == "/"}
    return zip_subset(official, lambda entry: entry.filename in (folders if entry.is_dir() else kept))


def left_out_modules(official: Path, subset: bytes) -> list[str]:
    """The modules of the ``official`` zip that ``subset`` lacks, each named once: a
    package left out whole stands for its modules.

    >>> import tempfile, zipfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     official = Path(tmp) / "stdlib.zip"
    ...     with zipfile.ZipFile(official, "w") as z:
    ...         for name in ("json/__init__.py", "json/tool.py", "email/__init__.py", "email/utils.py", "abc.py"):
    ...             z.writestr(name, "")
    ...     left_out_modules(official, stdlib_subset_bytes(official, ["json/__init__.py", "abc.py"]))
    ['email', 'json.tool']
    """
    def modules(names):
        found = set()
        for name in names:
            if name.endswith(".py"):
                found.add(name[:-3].removesuffix("/__init__").replace("/", "."))
        return found

    with zipfile.ZipFile(official) as whole, zipfile.ZipFile(io.BytesIO(subset)) as part:
        missing = modules(whole.namelist()) - modules(part.namelist())
    return sorted(name for name in missing if name.rpartition(".")[0] not in missing)


def stdlib_files_read(cache: Path, core: Path, numpy: Path, poolgrad: Path) -> list[str]:
    """The entries of the official standard library's zip that the site's Python reads,
    found by sitebuild/pyodide_stdlib.mjs under Node against the Pyodide core in ``core``,
    the NumPy subset ``numpy`` and poolgrad's wheel ``poolgrad``; cached by the sha256 of
    those inputs and of the scripts. Raises StdlibUnavailable."""
    from .snapshot import run_node_script

    h = hashlib.sha256()
    for name, sha in sorted(PYODIDE_CORE_SHA256.items()):
        h.update(f"{name}\0{sha}\n".encode())
    for path in (numpy, poolgrad, STDLIB_SCRIPT, *STDLIB_SCRIPT_USES):
        h.update(f"{Path(path).name}\0{sha256_of(path)}\n".encode())
    cached = cache / f"pyodide-{PYODIDE_VERSION}-stdlib" / f"{h.hexdigest()[:24]}.json"
    if not cached.is_file():
        with tempfile.TemporaryDirectory(prefix="poolgrad-stdlib-") as tmp:
            out = Path(tmp) / "read.json"
            run_node_script(STDLIB_SCRIPT, [str(core), str(out), str(numpy), str(poolgrad)], tmp, StdlibUnavailable)
            if not out.is_file():
                raise StdlibUnavailable(f"{STDLIB_SCRIPT.name} wrote no list of the files it saw read")
            atomic_write_bytes(cached, out.read_bytes())
    files = json.loads(cached.read_text(encoding="utf-8"))["files"]
    if not files:
        raise StdlibUnavailable("the standard library's zip was never read")
    return files


def stdlib_subset(cache: Path, core: Path, numpy: Path, poolgrad: Path, dest: Path) -> tuple[Path, list[str]]:
    """Write the standard library's subset to ``dest``; return it and the modules it lacks
    (left_out_modules). Raises StdlibUnavailable."""
    official = Path(core) / PYODIDE_STDLIB
    data = stdlib_subset_bytes(official, stdlib_files_read(cache, core, numpy, poolgrad))
    return write_subset(dest, data), left_out_modules(official, data)
