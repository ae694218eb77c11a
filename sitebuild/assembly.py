"""The site: ``assemble`` puts its files under plain names in a staging folder, one step
after another; ``publish`` gives them content-hashed names, the service worker, the web
app manifest and the hosts' headers; ``build`` does both."""

from __future__ import annotations

import datetime
import gzip
import hashlib
import json
import re
import struct
import time
from pathlib import Path

from . import paths
from .common import (BuildError, atomic_write_bytes, cache_dir, copy_file, copy_if_changed, matches, say, sha256_of,
                     verify_file, write_if_changed)
from .fetch import pyodide_core, pyodide_wheels
from .paths import DIST_MARKER
from .pins import (NODE_MIN_MAJOR, NUMPY_SNAPSHOT_FILE, NUMPY_SUBSET_FILE, NUMPY_WHEEL, ON_DEMAND_FILES, POOLGRAD_SUBSET_FILE,
                   ON_DEMAND_WITH_STDLIB_SUBSET, LAZY_VIEW_DIRS, PICTURE_SAMPLES_DIR, PICTURE_SAMPLES_SHA256, PYODIDE_CORE_SHA256, PYODIDE_LOCK, PYODIDE_SHIPPED, PYODIDE_STDLIB,
                   PYODIDE_VERSION, PYODIDE_WHEELS, STDLIB_SUBSET_FILE)
from .shipped import (CHAIN_TRACES_FILE, FIRST_MINUTE_TRACES_FILE, SHIPPED_TRACES_FILE, TracesUnavailable, shipped_traces,
                      traces_file)
from .snapshot import SnapshotUnavailable, pyodide_snapshot, snapshot_size
from .subset import StdlibUnavailable, numpy_subset, poolgrad_subset, stdlib_subset
from .wheel import poolgrad_wheel

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
        say(f"  {label:<38} {time.perf_counter() - t0:6.2f} s", quiet)
        return result

    _prepare_dist(dist)

    # 1. the front end
    def copy_web():
        n = 0
        if not paths.WEB.is_dir():
            return n
        for src in sorted(paths.WEB.rglob("*")):
            rel = src.relative_to(paths.WEB)
            if not src.is_file() or "__pycache__" in rel.parts or src.name == ".DS_Store":
                continue
            dest = dist / rel
            keep.add(rel.as_posix())
            st = src.stat()
            if dest.is_file():
                dt = dest.stat()
                if dt.st_size == st.st_size and int(dt.st_mtime) == int(st.st_mtime):
                    continue
            copy_file(src, dest)
            n += 1
        return n

    step("front end (web/)", copy_web)
    step("picture samples (pinned)", lambda: verify_picture_samples(paths.WEB / PICTURE_SAMPLES_DIR))

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
            if not matches(dest, sha):
                copy_file(src, dest)
                verify_file(dest, sha, f"dist/pyodide/{src.name}")
        original = json.loads((core / PYODIDE_LOCK).read_text(encoding="utf-8"))
        lock = json.dumps(make_lock(original), indent=2, sort_keys=True) + "\n"
        write_if_changed(pdir / PYODIDE_LOCK, lock.encode())
        keep.add(f"pyodide/{PYODIDE_LOCK}")

    step("vendor into dist/pyodide/", vendor)

    # 2b. the NumPy a start downloads: the official wheel less what nothing here imports
    numpy_zip = step("numpy subset (from the wheel)",
                     lambda: numpy_subset(wheels / NUMPY_WHEEL, dist / "pyodide" / NUMPY_SUBSET_FILE))
    keep.add(f"pyodide/{NUMPY_SUBSET_FILE}")

    # 3. poolgrad's own wheel
    wheel = step("poolgrad wheel", lambda: poolgrad_wheel(cache, quiet))

    def ship_wheel():
        dest = dist / "wheels" / wheel.name
        keep.add(f"wheels/{wheel.name}")
        copy_if_changed(wheel, dest)

    step("copy wheel into dist/wheels/", ship_wheel)
    # 3a. what every start installs of it: the wheel less the notebook widget's files
    poolgrad_zip = step("poolgrad subset (from the wheel)",
                        lambda: poolgrad_subset(wheel, dist / "wheels" / POOLGRAD_SUBSET_FILE))
    keep.add(f"wheels/{POOLGRAD_SUBSET_FILE}")

    # 3b. the standard library a start mounts: the official zip less what the site's Python
    # was never seen to read (optional: without Node every start mounts the official zip)
    def ship_stdlib():
        try:
            made, lacks = stdlib_subset(cache, core, numpy_zip, poolgrad_zip, dist / "pyodide" / STDLIB_SUBSET_FILE)
        except StdlibUnavailable as why:
            return core / PYODIDE_STDLIB, None, why
        keep.add(f"pyodide/{STDLIB_SUBSET_FILE}")
        return made, lacks, None

    stdlib_zip, stdlib_left_out, no_stdlib_subset = step("standard library subset (node)", ship_stdlib)
    if no_stdlib_subset is not None:
        say(f"  no standard library subset: {no_stdlib_subset}; every start downloads the official "
            f"{PYODIDE_STDLIB} (install Node.js {NODE_MIN_MAJOR}+ and rebuild to get it)", quiet)

    # 4. Python's start-up snapshot (optional: without Node, Python starts seconds slower on a fast link)
    def ship_snapshot():
        try:
            made = pyodide_snapshot(cache, core, numpy_zip, poolgrad_zip, stdlib_zip)
        except SnapshotUnavailable as why:
            return why
        keep.add(f"pyodide/{NUMPY_SNAPSHOT_FILE}")
        copy_if_changed(made / NUMPY_SNAPSHOT_FILE, dist / "pyodide" / NUMPY_SNAPSHOT_FILE)
        return None

    no_snapshot = step("python start-up snapshot (node)", ship_snapshot)
    if no_snapshot is not None:
        say(f"  no start-up snapshot: {no_snapshot}; the site works, but Python starts seconds "
             f"slower on a fast link (install Node.js {NODE_MIN_MAJOR}+ and rebuild to get it)", quiet)

    # 5. the traces of the views a learner lands on, of the first minute's views and of the
    # chain view's landing views (optional: without them those views wait for Python); the
    # files are always there, so the page's fetches of them never fail
    trace_files = (SHIPPED_TRACES_FILE, FIRST_MINUTE_TRACES_FILE, CHAIN_TRACES_FILE)

    def ship_traces():
        try:
            files, why = [path.read_bytes() for path in shipped_traces(cache, core, wheels, quiet)], None
        except TracesUnavailable as e:
            files, why = [traces_file({}) for _ in trace_files], str(e)
        for name, data in zip(trace_files, files):
            write_if_changed(dist / name, data)
            keep.add(name)
        return files, why

    (traces, minute_traces, chain_traces), no_traces = step("first views' traces (poolgrad)", ship_traces)
    traces_shipped = len(json.loads(traces)["traces"])
    if no_traces is not None:
        say(f"  no shipped traces: {no_traces}; the site works, but its first view waits for Python", quiet)

    # 6. what the worker reads first
    version = wheel.name.split("-")[1]
    info = {
        "pyodide": "pyodide/",
        "pyodide_version": PYODIDE_VERSION,
        # The wheel a notebook's kernel installs; the subset every start of the site does.
        "poolgrad_wheel": f"wheels/{wheel.name}",
        "poolgrad_subset": f"wheels/{POOLGRAD_SUBSET_FILE}",
        "poolgrad_version": version,
        "numpy_wheel": f"pyodide/{NUMPY_WHEEL}",
        "numpy_subset": f"pyodide/{NUMPY_SUBSET_FILE}",
        # The standard library a start mounts (null: the official zip), and the modules it
        # lacks, which an import fetches the official zip for.
        "stdlib_subset": None if no_stdlib_subset is not None else f"pyodide/{STDLIB_SUBSET_FILE}",
        "stdlib_left_out": stdlib_left_out,
        # Files derived at build time from the pinned ones, by their own sha256.
        "derived": [{"file": f"pyodide/{NUMPY_SUBSET_FILE}", "sha256": sha256_of(numpy_zip)},
                    {"file": f"wheels/{POOLGRAD_SUBSET_FILE}", "sha256": sha256_of(poolgrad_zip)}]
        + ([] if no_stdlib_subset is not None
           else [{"file": f"pyodide/{STDLIB_SUBSET_FILE}", "sha256": sha256_of(stdlib_zip)}]),
        "numpy_snapshot": None if no_snapshot is not None else f"pyodide/{NUMPY_SNAPSHOT_FILE}",
        "numpy_snapshot_bytes": (None if no_snapshot is not None
                                 else snapshot_size(dist / "pyodide" / NUMPY_SNAPSHOT_FILE)),
        "shipped_traces_file": SHIPPED_TRACES_FILE,
        "shipped_traces": traces_shipped,
        "shipped_traces_bytes": len(traces),
        "shipped_traces_gzip_bytes": len(gzip.compress(traces, compresslevel=9, mtime=0)),
        "shipped_traces_note": no_traces,
        # pool-grad.js (a fixed name) imports the element's module from its published path.
        "element": ELEMENT_MODULE,
        "first_minute_traces_file": FIRST_MINUTE_TRACES_FILE,
        "first_minute_traces": len(json.loads(minute_traces)["traces"]),
        "first_minute_traces_bytes": len(minute_traces),
        "first_minute_traces_gzip_bytes": len(gzip.compress(minute_traces, compresslevel=9, mtime=0)),
        "chain_traces_file": CHAIN_TRACES_FILE,
        "chain_traces": len(json.loads(chain_traces)["traces"]),
        "chain_traces_bytes": len(chain_traces),
        "chain_traces_gzip_bytes": len(gzip.compress(chain_traces, compresslevel=9, mtime=0)),
        "built": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
    }
    atomic_write_bytes(dist / "build-info.json", (json.dumps(info, indent=2) + "\n").encode())
    keep.add("build-info.json")
    for rel in keep:
        if rel.startswith(tuple(f"{group}/" for group in VENDORED_GROUPS)) and (paths.WEB / rel).is_file():
            say(f"  warning: web/{rel} is shadowed by a vendored file", quiet)
    _prune(dist, keep)
    return dist


# ------------------------------------------------------------------------ publish
#
# The published layout: every file that can change between builds lives in a folder named
# after the content hash of its group, so a host may cache it for a year:
#
#   app/<hash>/      the front end's files (modules, styles, icons, the web app manifest),
#                    web/'s folders kept inside it: one tree, so the modules' relative imports
#                    (../runtime/bridge.js) keep working
#   pyodide/<hash>/  Pyodide, its wheels, its lock file and Python's start-up snapshot
#   wheels/<hash>/   poolgrad's wheel, and the subset of it every start installs
#
# Only the entry pages (index.html, embed-demo.html, element-demo.html), build-info.json, the
# service worker sw.js and the element's loader pool-grad.js keep fixed names, and they must be revalidated on every visit. build-info.json names
# the published paths, so the worker follows a rename without knowing the layout.

SERVICE_WORKER = "sw.js"
BUILD_INFO = "build-info.json"
ELEMENT_LOADER = "pool-grad.js"  # <script type="module" src=".../pool-grad.js">: a fixed name
ELEMENT_MODULE = "element.js"  # what it loads, content-hashed with the front end
FRONT_END_GROUP = "app"  # the folder of the files web/ puts in the site
VENDORED_GROUPS = ("pyodide", "wheels")  # folders hashed on their own; the rest is the front end
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


def verify_picture_samples(folder: Path) -> int:
    """Check every picture sample against its pin, and that no image is unpinned (a front
    end without the picture view, web/picture/, has none to check)."""
    if not folder.parent.is_dir():
        return 0
    images = sorted(p.name for p in folder.glob("*") if p.suffix.lower() in (".png", ".jpg", ".jpeg", ".gif", ".webp"))
    unpinned = [name for name in images if name not in PICTURE_SAMPLES_SHA256]
    if unpinned:
        raise BuildError(f"{folder}: {', '.join(unpinned)} not pinned in sitebuild/pins.py "
                         "PICTURE_SAMPLES_SHA256 (and recorded in SOURCES.md with its licence)")
    for name, sha in PICTURE_SAMPLES_SHA256.items():
        verify_file(folder / name, sha, f"picture sample {name}")
    return len(images)


def _is_entry(rel: str) -> bool:
    """Files that keep their name: the root's pages, build-info.json, the service worker and
    the element's loader (pages elsewhere name it)."""
    return "/" not in rel and (rel.endswith(".html") or rel in (BUILD_INFO, SERVICE_WORKER, ELEMENT_LOADER))


def published_names(files: dict) -> dict:
    """Map each file's plain path to its published one. ``files`` maps plain path -> sha256.

    Every file but an entry (``_is_entry``) moves into ``<group>/<hash>/``: the group is its
    top folder if that is a vendored one (``VENDORED_GROUPS``), else ``app``, the front end,
    whose folders keep their places inside it; the hash covers the group's names and
    contents, so a change anywhere in a group renames that group. The front end's hash also
    covers the other groups' hashes (``group_digest``): its shared worker (one Python for
    every widget of the site, keyed by its script's URL) must not be reused by a build
    whose runtime or wheel changed.

    >>> names = published_names({"index.html": "a", "app.js": "b", "pyodide/x.wasm": "c"})
    >>> names["index.html"], names["app.js"].split("/")[0], names["pyodide/x.wasm"].split("/")[2]
    ('index.html', 'app', 'x.wasm')
    >>> other = published_names({"app.js": "b", "pyodide/x.wasm": "d"})
    >>> other["app.js"] != names["app.js"] and other["pyodide/x.wasm"] != names["pyodide/x.wasm"]
    True
    >>> tree = published_names({"app.js": "b", "widget/state.js": "e"})
    >>> tree["widget/state.js"] == tree["app.js"].replace("app.js", "widget/state.js")
    True
    """
    groups: dict = {}
    for rel in files:
        if not _is_entry(rel):
            top, _, rest = rel.partition("/")
            group, inner = (top, rest) if rest and top in VENDORED_GROUPS else (FRONT_END_GROUP, rel)
            groups.setdefault(group, []).append((inner, rel))
    names = {rel: rel for rel in files if _is_entry(rel)}
    digests = {group: group_digest([(inner, files[rel]) for inner, rel in members])
               for group, members in groups.items() if group != FRONT_END_GROUP}
    if FRONT_END_GROUP in groups:
        digests[FRONT_END_GROUP] = group_digest(
            [(inner, files[rel]) for inner, rel in groups[FRONT_END_GROUP]], sorted(digests.values()))
    for group, members in groups.items():
        for inner, rel in members:
            names[rel] = f"{group}/{digests[group]}/{inner}"
    return names


def group_digest(members: list, loads: list = ()) -> str:
    """The folder name of a group: 12 hex digits of the sha256 over its members' (name,
    sha256) pairs in name order, then the digests of the groups it ``loads``.

    >>> group_digest([("b.js", "2"), ("a.js", "1")]) == group_digest([("a.js", "1"), ("b.js", "2")])
    True
    >>> group_digest([("a.js", "1")]) != group_digest([("a.js", "1")], ["0123456789ab"])
    True
    """
    h = hashlib.sha256()
    for inner, sha in sorted(members):
        h.update(f"{inner}\0{sha}\n".encode())
    for digest in loads:
        h.update(f"loads {digest}\n".encode())
    return h.hexdigest()[:12]


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


#: The exercise panel's worker runs learner code. It locks itself down on any host
#: (docs/sandbox.md); a worker takes its Content-Security-Policy from its own response, so
#: hosts that read _headers (and the local servers) also give it one, a second wall that
#: refuses JavaScript made from strings and scripts or connections to other origins.
EXERCISE_WORKER = "exercise-worker.js"
EXERCISE_WORKER_POLICY = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; object-src 'none'; base-uri 'none'"


def headers_file(published: list) -> str:
    """The ``_headers`` file (the format Netlify and Cloudflare Pages read; the local servers
    apply it too): fixed names revalidated, hashed folders cached for a year, wasm typed,
    the exercise worker under its own policy.

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
        if rel.rsplit("/", 1)[-1] == EXERCISE_WORKER:
            lines += [f"/{rel}", f"  Content-Security-Policy: {EXERCISE_WORKER_POLICY}"]
    return "\n".join(lines) + "\n"


def service_worker(template: str, build_id: str, files: list) -> bytes:
    """web/sw.js with the build's description prepended: its id and, for each file to keep
    offline, [published path, sha256 (None: build-info.json, checked by its build_id), whether
    the path is content-hashed, whether only one way of starting Python uses it (saved once
    this browser used it)].

    >>> service_worker("// template", "0123", [["index.html", "ab", False, False]]).decode().splitlines()[1:]
    ['const BUILD = {"id":"0123","files":[["index.html","ab",false,false]]};', '', '// template']
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

    hashed: dict = {}  # source -> sha256: each staged file is read once to hash it

    def digest(source):
        if source not in hashed:
            hashed[source] = hashlib.sha256(source).hexdigest() if isinstance(source, bytes) else sha256_of(source)
        return hashed[source]

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
    on_demand_files = ON_DEMAND_WITH_STDLIB_SUBSET if info.get("stdlib_subset") else ON_DEMAND_FILES
    on_demand = {names[f"pyodide/{name}"] for name in on_demand_files if f"pyodide/{name}" in names}
    # poolgrad's wheel is a notebook's (its kernel installs it); the site's Python installs the subset.
    on_demand.add(info["poolgrad_wheel"])
    # The chain's and the picture's files (modules, styles, samples, the chain's shipped
    # traces) are saved once this browser opened the view, not at install.
    on_demand |= {names[rel] for rel in sources if rel.startswith(tuple(f"{folder}/" for folder in LAZY_VIEW_DIRS))}
    on_demand.add(names[CHAIN_TRACES_FILE])
    kept = [[rel, None if rel == BUILD_INFO else digest(contents[rel]), "/" in rel, rel in on_demand]
            for rel in sorted(contents)]
    contents[SERVICE_WORKER] = service_worker(template.read_text(encoding="utf-8"), build_id, kept)
    contents["_headers"] = headers_file(list(contents)).encode()
    contents[".nojekyll"] = b""

    for rel, src in contents.items():
        dest = dist / rel
        if isinstance(src, bytes):
            write_if_changed(dest, src)
        elif not (dest.is_file() and dest.stat().st_size == src.stat().st_size and sha256_of(dest) == digest(src)):
            copy_file(src, dest)
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


def build(dist: Path | None = None, quiet: bool = False) -> Path:
    """Build the offline static site into ``dist`` and return its path: assemble it
    (``assemble``), then publish it under cache-friendly names (``publish``).

    A warm build (everything cached) uses no network and takes well under a few seconds.
    ``dist`` defaults to ``paths.DIST`` (dist/ in the repository).
    """
    dist = Path(paths.DIST if dist is None else dist)
    t_start = time.perf_counter()
    say(f"build: dist={dist}  cache={cache_dir()}", quiet)
    _prepare_dist(dist)  # refuse a foreign folder before any work
    assemble(staging_dir(dist), quiet)
    t0 = time.perf_counter()
    info = publish(staging_dir(dist), dist)
    say(f"  {'publish (hashed names, service worker)':<38} {time.perf_counter() - t0:6.2f} s", quiet)
    files = [p for p in dist.rglob("*") if p.is_file() and p.name != DIST_MARKER]
    size = sum(p.stat().st_size for p in files)
    say(f"built {dist} (build {info['build_id']}: {len(files)} files, {size / 1e6:.1f} MB) "
         f"in {time.perf_counter() - t_start:.2f} s", quiet)
    return dist
