"""poolgrad's site builder, behind ``python build.py``: standard library only.

One module per concern:

    paths           where the repository, web/ and dist/ are
    pins            the versions and sha256 pins of every vendored file
    common          the error type, printing, the download cache, verified file writes
    fetch           npm pack / pip download, verified and cached
    wheel           poolgrad's own wheel
    snapshot        Python's start-up snapshots (made under Node)
    shipped         the traces of the views a learner lands on (made by poolgrad natively)
    assembly        the site: assemble (a list of steps), publish, build
    server          the static server (copied whole into the offline bundle as serve.py)
    offline_bundle  the offline demo's zip
    devenv          what the tests need: the [test] extra, Chromium, Node, the other browsers
    commands        python build.py's one argument parser and its commands

Tests and benchmarks import this package once (tests/conftest.py, benchmarks/*.py put the
repository on sys.path); the names below are the API they use. To change where a build
reads or writes, set ``paths.WEB`` / ``paths.DIST``: every module reads them at call time.
Importing the package does no work.
"""

from . import (assembly, commands, common, devenv, fetch, offline_bundle, paths, pins, server,
               shipped, snapshot, wheel)
from .assembly import build, make_lock, staging_dir
from .commands import main
from .common import BuildError, cache_dir, sha256_of, verify_file
from .devenv import (CHROMIUM_ARGS, ENGINE_PARTS, GECKODRIVER_SHA256, apt_install, engine_missing_message,
                     ensure_engines, find_chromium, find_engine_parts, find_geckodriver)
from .offline_bundle import bundle
from .paths import DIST, DIST_MARKER, WEB
from .pins import (CARRIER_WHEEL_SHA256, NODE_MIN_MAJOR, NUMPY_SNAPSHOT_FILE,
                   PYODIDE_CORE_SHA256, PYODIDE_LOCK_SHA256, PYODIDE_SHIPPED, PYODIDE_TARBALL,
                   PYODIDE_TARBALL_SHA256, PYODIDE_VERSION, PYODIDE_WHEELS, SNAPSHOT_FILE)
from .server import MIME_TYPES, headers_for, make_server, read_header_rules, server_url, serving
from .snapshot import (SnapshotUnavailable, check_numpy_snapshot, check_snapshot, make_snapshot,
                       node_for_snapshot, pyodide_build_id, snapshot_format)

__all__ = [
    "apt_install",
    "assembly",
    "build",
    "BuildError",
    "bundle",
    "cache_dir",
    "CARRIER_WHEEL_SHA256",
    "check_numpy_snapshot",
    "check_snapshot",
    "CHROMIUM_ARGS",
    "commands",
    "common",
    "devenv",
    "DIST",
    "DIST_MARKER",
    "engine_missing_message",
    "ENGINE_PARTS",
    "ensure_engines",
    "fetch",
    "find_chromium",
    "find_engine_parts",
    "find_geckodriver",
    "GECKODRIVER_SHA256",
    "headers_for",
    "main",
    "make_lock",
    "make_server",
    "make_snapshot",
    "MIME_TYPES",
    "node_for_snapshot",
    "NODE_MIN_MAJOR",
    "NUMPY_SNAPSHOT_FILE",
    "offline_bundle",
    "paths",
    "pins",
    "pyodide_build_id",
    "PYODIDE_CORE_SHA256",
    "PYODIDE_LOCK_SHA256",
    "PYODIDE_SHIPPED",
    "PYODIDE_TARBALL",
    "PYODIDE_TARBALL_SHA256",
    "PYODIDE_VERSION",
    "PYODIDE_WHEELS",
    "read_header_rules",
    "server",
    "server_url",
    "serving",
    "sha256_of",
    "shipped",
    "snapshot",
    "SNAPSHOT_FILE",
    "snapshot_format",
    "SnapshotUnavailable",
    "staging_dir",
    "verify_file",
    "WEB",
    "wheel",
]
