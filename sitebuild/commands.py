"""``python build.py COMMAND``: one argument parser for build, serve, test, bench and bundle."""

from __future__ import annotations

import argparse
import errno
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from . import assembly, paths, widget_bundle
from .common import BuildError, cache_dir
from .devenv import ENGINE_NAMES, ensure_chromium, ensure_engines, ensure_node, install_test_deps
from .offline_bundle import bundle
from .paths import BUNDLE_NAME, ROOT
from .server import make_server, port_in_use_message, run_server


# The fast tier leaves out what a browser runs and the few native tests marked slow (each
# takes tens of seconds); a test is in it unless it says otherwise, and tests/conftest.py
# marks every test that opens a browser, so no native test can drop out of it unnoticed.
FAST_TIER = "not browser and not engines and not slow"


def run_tests(pytest_args: list[str], fast: bool = False) -> int:
    """The test suite: the node tests of tests/js/, then pytest with ``pytest_args``.
    ``fast``: no browser and no slow test (pytest's ``-m FAST_TIER``), so neither Chromium
    nor the other engines are needed; a ``-m`` in ``pytest_args`` comes after it and wins."""
    t0 = time.perf_counter()
    install_test_deps()
    if fast:
        pytest_args = ["-m", FAST_TIER, *pytest_args]
    else:
        os.environ["POOLGRAD_CHROMIUM"] = ensure_chromium()
    node = ensure_node()
    print(f"test: Chromium {os.environ.get('POOLGRAD_CHROMIUM', '(not needed)')}, Node {node}"
          f"  ({time.perf_counter() - t0:.1f} s)", flush=True)
    if not fast:
        t0 = time.perf_counter()
        engines = ensure_engines()
        print(f"test: {', '.join(f'{ENGINE_NAMES[e]} ({next(iter(parts.values()))})' for e, parts in engines.items())}"
              f"  ({time.perf_counter() - t0:.1f} s)", flush=True)
    assembly.build()
    js_failed = run_js_tests(node)
    # The tests would otherwise build dist/ a second time in their session fixture.
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


def run_bench(engine: str | None, args: list[str], links: list[str] | None = None) -> int:
    """The benchmarks: bench_pool.py, bench_browser.py (Chromium), bench_offline.py and
    bench_exercise.py (the exercise panel's Run, cold and warm);
    with an ``engine``, only the browser benchmark in that engine (chromium:
    bench_browser.py; firefox, webkit, wpe: bench_engines.py); with ``links``, only
    bench_link.py (a first visit through each of those links, against the bare page).
    ``args`` go to the scripts."""
    scripts = [ROOT / "benchmarks" / "bench_pool.py", ROOT / "benchmarks" / "bench_browser.py",
               ROOT / "benchmarks" / "bench_offline.py", ROOT / "benchmarks" / "bench_exercise.py"]
    if links:
        scripts = [ROOT / "benchmarks" / "bench_link.py"]
        args = [*(f"--link={link}" for link in links), *args]
    elif engine == "chromium":
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


def serve(port: int, host: str, no_build: bool) -> int:
    dist = paths.DIST
    if no_build:
        if not (dist / "build-info.json").is_file():
            raise BuildError("dist/build-info.json not found: run python build.py first (or drop --no-build)")
    else:
        assembly.build()
    try:
        server = make_server(dist, host, port)
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise BuildError(port_in_use_message(host, port)) from None
        raise BuildError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    return run_server(server)


def argument_parser() -> argparse.ArgumentParser:
    """The one parser of ``python build.py``: its usage text is the help every command prints."""
    ap = argparse.ArgumentParser(
        prog="python build.py",
        description="Build, serve, test, benchmark and bundle poolgrad's offline static site.")
    commands = ap.add_subparsers(dest="command", metavar="COMMAND",
                                 description="build is the default when no command is given")
    commands.add_parser("build", help="assemble dist/, the offline static site")
    serve_cmd = commands.add_parser("serve", help="build if needed, then serve dist/ on http://127.0.0.1:8000/")
    serve_cmd.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 = any free port)")
    serve_cmd.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve_cmd.add_argument("--no-build", action="store_true", help="serve dist/ as it is")
    test_cmd = commands.add_parser(
        "test",
        help="install what the tests need (the [test] extra, Chromium, Node, Firefox ESR, WebKitGTK, "
             "WPE WebKit), build, run the node tests of tests/js/, then pytest with the other arguments; "
             "--fast: native and node tests only, no browser",
        description="Install what the tests need (the [test] extra, Chromium, Node, Firefox ESR, "
                    "WebKitGTK, WPE WebKit), build dist/, run the node tests of tests/js/, then pytest.",
        epilog="Every other argument goes to pytest as it is, e.g. `python build.py test "
               "tests/web/test_x.py -x -k name`; pytest's own options: python -m pytest --help.")
    test_cmd.add_argument("--fast", action="store_true",
                          help=f"native and node tests only: no browser, no test marked slow (-m '{FAST_TIER}')")
    bench_cmd = commands.add_parser("bench", help="run the benchmarks of benchmarks/ (other arguments go to them)")
    bench_cmd.add_argument("--engine", choices=BENCH_ENGINES, help="only the browser benchmark, in this engine")
    commands.add_parser("widget-bundle", help="write py/poolgrad/widget.js, the notebook widget's front end, from web/")
    bench_cmd.add_argument("--link", action="append", metavar="MBIT[,RTT_MS]",
                           help="only the first visit over one paced link shared by every connection, as a "
                                "static host serves it, against a bare Pyodide + NumPy page (repeat for several "
                                "links; 'loopback' is unpaced)")
    bundle_cmd = commands.add_parser("bundle", help=f"zip dist/ with serve.py for offline demos: {BUNDLE_NAME}.zip")
    bundle_cmd.add_argument("path", nargs="?", help="where to write the zip (a folder when it ends with /)")
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argument_parser()
    try:
        args, rest = ap.parse_known_args(argv)
        command = args.command or "build"
        if rest and command not in ("test", "bench"):
            ap.error(f"unrecognized arguments for {command}: {' '.join(rest)}")
    except SystemExit as stop:  # argparse printed the usage (or the help)
        return int(stop.code or 0)
    try:
        if command == "build":
            assembly.build()
            return 0
        if command == "serve":
            return serve(args.port, args.host, args.no_build)
        if command == "test":
            return run_tests(rest, args.fast)
        if command == "bench":
            return run_bench(args.engine, rest, args.link)
        if command == "widget-bundle":
            widget_bundle.write_bundle()
            return 0
        out = None
        if args.path:
            out = Path(args.path).resolve()
            if args.path.endswith(("/", os.sep)):
                out = out / f"{BUNDLE_NAME}.zip"
        bundle(out)
        return 0
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
