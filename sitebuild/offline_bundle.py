"""The offline demo: dist/ zipped with server.py, which serves it with nothing but Python."""

from __future__ import annotations

import os
import time
import zipfile
from pathlib import Path

from . import assembly, paths
from .common import BuildError, say
from .paths import BUNDLE_NAME, DIST_MARKER

SERVER_SCRIPT = Path(__file__).with_name("server.py")  # copied whole as the bundle's serve.py


def _readable(name: str) -> zipfile.ZipInfo:
    """An entry unzip writes as rw-r--r-- (writestr's own default is rw-------)."""
    info = zipfile.ZipInfo(name, date_time=time.localtime()[:6])
    info.external_attr = 0o100644 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def bundle(out: Path | None = None, dist: Path | None = None, build_first: bool = True,
           quiet: bool = False) -> Path:
    """Zip ``dist`` (default dist/) as poolgrad-offline/site/ with poolgrad-offline/serve.py,
    which is server.py, whole; return the zip."""
    dist = Path(paths.DIST if dist is None else dist)
    out = Path(out) if out is not None else paths.ROOT / f"{BUNDLE_NAME}.zip"
    if out.is_dir():
        out = out / f"{BUNDLE_NAME}.zip"
    if build_first:
        assembly.build(dist, quiet=quiet)
    if not (dist / "index.html").is_file():
        raise BuildError(f"{dist / 'index.html'} not found: build the site first (python build.py)")
    t0 = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp{os.getpid()}")
    readme = (
        "poolgrad offline demo\n\n"
        "1. Unzip this archive (keep the folder together).\n"
        "2. In the poolgrad-offline folder run:  python serve.py\n"
        "   (on Windows: py serve.py). It opens the page in your browser; if not, open the\n"
        "   printed URL (http://127.0.0.1:8000/ unless that port is taken).\n\n"
        "Opening site/index.html from the file manager does not work: browsers run no\n"
        "Python workers from files. No network is needed. Stop the server with Ctrl-C.\n\n"
        "For a class on the same network: python serve.py --host 0.0.0.0 prints the\n"
        "address the students open. The project's docs/classroom.md says more.\n"
    )
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
            zf.write(SERVER_SCRIPT, f"{BUNDLE_NAME}/serve.py")
            zf.writestr(_readable(f"{BUNDLE_NAME}/README.txt"), readme)
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
    say(f"bundle: {out} ({out.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - t0:.2f} s", quiet)
    say(f"  to run it: unzip {out.name}; cd {BUNDLE_NAME}; python serve.py", quiet)
    return out
