"""The NumPy a start downloads: the pinned official wheel less the parts that neither
NumPy's import, poolgrad nor the exercise checker uses (fft, f2py, polynomial, ma, testing,
lapack_lite, the tests, type stubs, C headers and static libraries), derived reproducibly
at build time. The official wheel stays in the site: the worker fetches it the first time
code imports a module outside the subset (python-runtime.js, FULL_FILES).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from .common import atomic_write_bytes

# Left out of the subset: folders (and one module) by prefix, and kinds of file anywhere.
NUMPY_LEFT_OUT = ("numpy/fft/", "numpy/f2py/", "numpy/polynomial/", "numpy/ma/", "numpy/testing/",
                  "numpy/_pyinstaller/", "numpy/doc/", "numpy/linalg/lapack_lite", "numpy/random/lib/",
                  "numpy/random/_examples/", "numpy/_core/include/", "numpy/_core/lib/")
NUMPY_LEFT_OUT_KINDS = (".pyi", ".pxd", ".h", ".a", ".c", ".pyx")
FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # every entry's date: the same bytes from the same wheel


def left_out(name: str) -> bool:
    """Whether the wheel's file ``name`` is left out of the subset.

    >>> [left_out(n) for n in ("numpy/fft/_pocketfft.py", "numpy/_core/tests/test_a.py", "numpy/__init__.py")]
    [True, True, False]
    """
    return name.startswith(NUMPY_LEFT_OUT) or "/tests/" in name or name.endswith(NUMPY_LEFT_OUT_KINDS)


def subset_bytes(wheel: Path) -> bytes:
    """The subset of ``wheel`` as a zip: its files in its order, less ``left_out``, each
    deflated at level 9 with a fixed date, so the same wheel always gives the same bytes."""
    import io

    out = io.BytesIO()
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(out, "w") as subset:
        for entry in source.infolist():
            if entry.is_dir() or left_out(entry.filename):
                continue
            info = zipfile.ZipInfo(entry.filename, date_time=FIXED_TIME)
            info.external_attr = entry.external_attr
            info.compress_type = zipfile.ZIP_DEFLATED
            subset.writestr(info, source.read(entry), compresslevel=9)
    return out.getvalue()


def numpy_subset(wheel: Path, dest: Path) -> Path:
    """Write the subset of the NumPy ``wheel`` to ``dest`` (unless it is there already, as
    made from this wheel) and return ``dest``."""
    data = subset_bytes(wheel)
    if not (dest.is_file() and dest.read_bytes() == data):
        atomic_write_bytes(dest, data)
    return dest
