"""Browser benchmark of the poolgrad widget in Firefox ESR, WebKitGTK and WPE WebKit.

Run it with `python build.py bench --engine firefox|webkit|wpe [--runs N] [--samples N]`
or `python benchmarks/bench_engines.py --engine ...` (`--engine chromium` in build.py runs
benchmarks/bench_browser.py, the same measurements in headless Chromium with Playwright).

Each engine runs under Selenium exactly as the cross-engine tests start it
(tests/engines/drivers.py: Firefox headless under geckodriver, WebKitGTK's MiniBrowser on
an Xvfb display, WPE WebKit as cog --platform=headless). The site is dist/ as the tests
serve it, with tests/engines/probe.js loaded first by the page: the page's own
performance.now() (from navigation start) at the first input cell and the frame after it
(first paint), at #status data-state="ready", and when the first output was shown.

Each run is cold: a new WebDriver session (a fresh profile; the server sends
`Cache-Control: no-cache`, so anything cached would show up as a 304, and the request
count per run is printed). Then, in the page, with the measurement scripts of
bench_browser.py, so the figures compare across engines:
* tap: a click dispatched on an output cell of a 16 x 16 input (2 x 2, stride 2) until
  the cell is aria-selected and the argmax in its window is marked in the DOM;
* kernel change: #kernel set and its input event fired on 16 x 16 with stride 1, until
  the output grid has the new shape and is no longer busy (a round trip to the worker).
Medians are printed next to bench_browser.py's goals; nothing is asserted. Exit status:
0 measured, 1 the page did not become ready, 2 the engine is missing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ("firefox", "webkit", "wpe")


def in_page(driver, arrow_function, argument, timeout_s=120):
    """Await one of bench_browser.py's `async (argument) => ...` scripts in the page."""
    driver.set_script_timeout(timeout_s)
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        f"({arrow_function})(arguments[0]).then(done, (error) => done({{error: String(error)}}));",
        argument)
    if isinstance(result, dict) and "error" in result:
        raise RuntimeError(f"in the page: {result['error']}")
    return result


def wait_output_side(drivers, driver, side):
    drivers.wait_for(driver, """
        const grid = document.getElementById("output-grid");
        return grid.getAttribute("aria-busy") === "false"
            && grid.querySelectorAll('[data-grid="output"]').length === arguments[0] * arguments[0];
    """, side, timeout=30, what=f"a {side} x {side} output")


def one_run(drivers, browser_bench, engine, parts, site_url, server_log, samples, display, log_dir):
    driver = drivers.start_driver(engine, parts, log_dir / f"{engine}-driver.log", display=display)
    try:
        log_start = len(server_log)
        driver.get(site_url + "index.html")
        boot = drivers.wait_for(driver, """
            const engine = window.__engine;
            const state = document.getElementById("status").dataset.state;
            if (state === "error") return {error: document.getElementById("status").textContent.trim()};
            return engine.outputAt !== null && engine.readyAt !== null && engine.inputFrameAt !== null && {
                firstPaint: engine.inputFrameAt, ready: engine.readyAt, output: engine.outputAt,
                problems: engine.problems, version: navigator.userAgent};
        """, timeout=120, what=f"{engine} to become ready")
        if "error" in boot:
            raise RuntimeError(f"the page shows an error: {boot['error']}")
        capabilities = driver.capabilities
        boot["version"] = f"{capabilities.get('browserName')} {capabilities.get('browserVersion')} ({boot['version']})"
        boot["requests"] = len(server_log) - log_start
        boot["not_200"] = [(str(r), r.status) for r in server_log[log_start:] if r.status != 200]

        side = browser_bench.SIDE
        tap_kernel = tap_stride = 2
        out_side = (side - tap_kernel) // tap_stride + 1
        driver.execute_script("location.hash = arguments[0]", browser_bench.bench_hash(tap_kernel, tap_stride))
        wait_output_side(drivers, driver, out_side)
        taps = in_page(driver, browser_bench.TAP_SCRIPT, {
            "cells": browser_bench.tap_cells(samples, out_side), "kernel": tap_kernel, "stride": tap_stride,
            "STEP_TIMEOUT_MS": browser_bench.STEP_TIMEOUT_MS})

        driver.execute_script("location.hash = arguments[0]", browser_bench.bench_hash(2, 1, sel=(0, 0)))
        wait_output_side(drivers, driver, side - 1)
        params = in_page(driver, browser_bench.PARAM_SCRIPT, {
            "kernels": browser_bench.param_kernels(samples), "side": side, "stride": 1,
            "STEP_TIMEOUT_MS": browser_bench.STEP_TIMEOUT_MS})
        problems = driver.execute_script("return window.__engine.problems") + list(driver.bidi_problems)
    finally:
        driver.quit()
    return {"boot": boot, "taps": taps, "params": params, "problems": problems}


def ms(value):
    return "-" if value is None else f"{value:,.1f}"


def report(engine, runs):
    goals = runs[0]["goals"]
    med = statistics.median
    first_paint = [run["boot"]["firstPaint"] for run in runs]
    ready = [run["boot"]["ready"] for run in runs]
    output = [run["boot"]["output"] for run in runs]
    taps = [sample["dom"] for run in runs for sample in run["taps"]]
    tap_frames = [sample["frame"] for run in runs for sample in run["taps"]]
    params = [sample["dom"] for run in runs for sample in run["params"]]
    traces = [sample["traceMs"] for run in runs for sample in run["params"] if sample["traceMs"] is not None]
    lines = [
        f"{engine}: {runs[0]['boot']['version']}",
        f"  {len(runs)} cold run(s); requests up to ready per run: {[run['boot']['requests'] for run in runs]}",
        f"  {'figure':<42}{'median':>10}{'min':>10}{'max':>10}{'goal':>8}",
    ]

    def row(label, values, goal=None):
        lines.append(f"  {label:<42}{ms(med(values)):>10}{ms(min(values)):>10}{ms(max(values)):>10}"
                     f"{'' if goal is None else f'< {goal:.0f}':>8}")

    row("first paint of the input grid (ms)", first_paint, goals["first_paint"])
    row("ready: #status data-state=ready (ms)", ready, goals["ready"])
    row("first output shown (ms)", output)
    row(f"tap to highlight in the DOM (ms, {len(taps)} taps)", taps, goals["tap"])
    row("tap to the next frame (ms)", tap_frames)
    row(f"kernel change to new output (ms, {len(params)})", params, goals["param"])
    if traces:
        row("  of which trace() in the worker (ms)", traces)
    not_200 = Counter(entry for run in runs for entry in run["boot"]["not_200"])
    if not_200:
        lines.append(f"  requests not answered 200 during boot: {dict(not_200)}")
    problems = [p for run in runs for p in run["problems"]]
    lines.append(f"  page problems: {problems[:5] if problems else 'none'}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=ENGINES, required=True)
    parser.add_argument("--runs", type=int, default=3, help="cold runs, each in a new WebDriver session (default 3)")
    parser.add_argument("--samples", type=int, default=20, help="taps and kernel changes per run (default 20)")
    args, _ = parser.parse_known_args(argv)
    if args.runs < 1 or args.samples < 1:
        parser.error("--runs and --samples must be at least 1")

    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "tests"))
    import bench_browser as browser_bench  # this script's folder is on the import path
    import sitebuild as build_module
    from engines import drivers
    parts = build_module.find_engine_parts()[args.engine]
    missing = build_module.engine_missing_message(args.engine, parts)
    if missing:
        print(f"bench_engines: {missing}", file=sys.stderr)
        return 2
    dist = Path(build_module.DIST)
    if not (dist / "build-info.json").is_file():
        print("bench_engines: building dist/ ...", flush=True)
        dist = Path(build_module.build(quiet=True))

    xvfb = None
    with tempfile.TemporaryDirectory(prefix="poolgrad-bench-engines-") as tmp:
        root = drivers.probed_copy(dist, Path(tmp) / "site")
        server_log, runs = [], []
        with build_module.serving(root, request_log=server_log) as site_url:
            try:
                display = None
                if args.engine == "webkit":
                    xvfb, display = drivers.start_xvfb()
                for index in range(args.runs):
                    t0 = time.perf_counter()
                    run = one_run(drivers, browser_bench, args.engine, parts, site_url, server_log, args.samples,
                                  display, Path(tmp))
                    run["goals"] = browser_bench.GOALS
                    runs.append(run)
                    print(f"bench_engines: {args.engine} run {index + 1}/{args.runs}: ready at "
                          f"{run['boot']['ready']:,.0f} ms ({time.perf_counter() - t0:.1f} s with the session)", flush=True)
            except (RuntimeError, AssertionError) as failed:
                print(f"bench_engines: {args.engine} could not be measured: {failed}", file=sys.stderr)
                return 1
            finally:
                if xvfb is not None:
                    xvfb.terminate()
                    xvfb.wait(timeout=10)
    print(report(args.engine, runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
