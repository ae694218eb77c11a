"""A first visit over a real link: the widget against a bare Pyodide + NumPy page, both
served as a static host serves them and paced through one shared link.

Run it with `python build.py bench --link MBIT[,RTT_MS]` (repeat --link for several links;
`--link loopback` is the unpaced one), or `python benchmarks/bench_link.py --link 10,40`.
It builds dist/ when dist/build-info.json is missing and serves it with
sitebuild.static_host: gzip Content-Encoding made on the fly for compressible types, an
ETag, `Cache-Control: max-age=600` and 304 answers, as GitHub Pages does, with every byte
of every connection through one token bucket at MBIT Mbit/s and RTT_MS of latency before
each response.

Each visit runs in a fresh persistent Chromium profile (its own user-data folder: its
own disk cache and service worker storage). Rounds alternate the two pages (which goes
first alternates too):

* the bare page (bench-bare.html, answered by the same host through the same link): the
  vendored Pyodide's `loadPyodide({packages: ["numpy"]})`, then `import numpy`. Ready is
  when that returned.
* poolgrad (index.html): ready is `#status` data-state="ready"; the first answer is a tap
  on output (0,1) of the default view showing its argmax (bench_browser's
  FIRST_TAP_SCRIPT); the first minute is FIRST_MINUTE below: eight single control changes
  from the default view, made one after another from the first answer on, each counted
  as shown when the output grid has the new view within 0.5 s.

For both, the bytes are the bodies that crossed the link (compressed when they were sent
so) from navigation until the link has been quiet for QUIET_S after ready, the service
worker's downloads included; per file they are summed by file name. Medians are printed
for each link; nothing is asserted. Exit status 2 when Playwright or Chromium is missing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import sitebuild  # noqa: E402
from bench_browser import FIRST_TAP_SCRIPT, Missing, find_browser  # noqa: E402  (this folder is on sys.path)
from sitebuild.static_host import LinkSpeed, hosting  # noqa: E402

DEFAULT_LINKS = ["10,40", "2,100", "loopback"]
BARE_PAGE = "/bench-bare.html"
BARE_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bare Pyodide + NumPy</title></head>
<body><p id="status">loading</p>
<script type="module">
import { loadPyodide } from "./{pyodide}pyodide.mjs";
const pyodide = await loadPyodide({ indexURL: new URL("./{pyodide}", location.href).href, packages: ["numpy"] });
pyodide.runPython("import numpy");
window.__readyAt = performance.now();
document.getElementById("status").textContent = "ready";
</script></body></html>
"""
QUIET_S = 3.0
VISIT_TIMEOUT_S = 600.0
SHOWN_WITHIN_MS = 500
SMALL_FILE = 20_000  # files below this are summed in one line

READY_STAMP = """
new MutationObserver(() => {
  const status = document.getElementById("status");
  if (status && status.dataset.state === "ready" && window.__readyAt === undefined) window.__readyAt = performance.now();
}).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"] });
"""

# Once the page's service worker is active (it installed: saved what it keeps), whatever
# it still fetches keeps the link busy, and wait_quiet waits for it.
SAVED = """navigator.serviceWorker.getRegistration().then((r) => (r?.active && !r.installing && !r.waiting ? true : null))"""

# The first minute: eight single changes of a control from the default view, made as a
# learner makes them (the control's own event), each followed by a return to the default
# view (its link). A change counts as shown when the output grid is no longer busy within
# `within` ms; the view is then the new one (app.js: aria-busy is "true" until the shown
# trace is the current state's).
FIRST_MINUTE = r"""
async ({ within }) => {
  const grid = document.getElementById("output-grid");
  const idle = () => grid.getAttribute("aria-busy") === "false";
  const until = (ms) => new Promise((resolve) => {
    const began = performance.now();
    const tick = () => (idle() ? resolve(performance.now() - began)
      : performance.now() - began > ms ? resolve(null) : setTimeout(tick, 5));
    tick();
  });
  const byId = (id) => document.getElementById(id);
  const typed = (id, value) => () => { byId(id).value = value; byId(id).dispatchEvent(new Event("input", { bubbles: true })); };
  const chosen = (id, value) => () => { byId(id).value = value; byId(id).dispatchEvent(new Event("change", { bubbles: true })); };
  const ticked = (id) => () => { byId(id).checked = !byId(id).checked; byId(id).dispatchEvent(new Event("change", { bubbles: true })); };
  const changes = [
    ["kernel 3", typed("kernel", "3")], ["stride 1", typed("stride", "1")], ["padding 1", typed("padding", "1")],
    ["dilation 2", typed("dilation", "2")], ["average", chosen("mode", "avg")], ["ceil_mode", ticked("ceil")],
    ["gradient on", ticked("gradient")], ["preset ties", chosen("preset", "ties")],
  ];
  const home = location.hash;
  const results = [];
  for (const [name, change] of changes) {
    change();
    const ms = await until(within);
    results.push({ name, ms });
    location.hash = home;
    await new Promise((resolve) => setTimeout(resolve, 20));
    await until(60000);
  }
  return results;
}
"""


def fresh_profile(playwright, executable, root: Path):
    folder = Path(tempfile.mkdtemp(prefix="profile-", dir=root))
    context = playwright.chromium.launch_persistent_context(
        str(folder), executable_path=executable, headless=True, args=sitebuild.CHROMIUM_ARGS,
        viewport={"width": 1280, "height": 900})
    return context


def file_name(path: str) -> str:
    """A served path's file name, its content-hashed folder dropped."""
    return path.rstrip("/").rsplit("/", 1)[-1] or "index.html"


def wait_quiet(host, started: float):
    while host.traffic.quiet_for() < QUIET_S and time.monotonic() - started < VISIT_TIMEOUT_S:
        time.sleep(0.25)


def poll(page, expression, started, what):
    while time.monotonic() - started < VISIT_TIMEOUT_S:
        value = page.evaluate(expression)
        if value is not None:
            return value
        page.wait_for_timeout(50)
    raise TimeoutError(f"{what} did not happen within {VISIT_TIMEOUT_S:.0f} s")


def visit(playwright, executable, host, profiles: Path, page_path: str, widget: bool) -> dict:
    context = fresh_profile(playwright, executable, profiles)
    try:
        context.add_init_script(READY_STAMP)
        if widget:
            context.add_init_script(FIRST_TAP_SCRIPT)
        page = context.pages[0] if context.pages else context.new_page()
        mark = host.traffic.mark()
        started = time.monotonic()
        page.goto(host.url + page_path.lstrip("/"), wait_until="commit")
        result = {}
        if widget:
            result["first_answer"] = poll(page, "window.__firstTap && window.__firstTap.answeredAt", started,
                                          "the first answer")
            result["first_minute"] = page.evaluate(FIRST_MINUTE, {"within": SHOWN_WITHIN_MS})
        result["ready"] = poll(page, "window.__readyAt ?? null", started, "ready")
        if widget:  # the service worker registers once the page is ready; its work crosses the link too
            poll(page, SAVED, started, "the service worker's install")
        wait_quiet(host, started)
        crossings = host.traffic.since(mark)
        per_file = defaultdict(int)
        for crossing in crossings:
            per_file[file_name(crossing.path)] += crossing.bytes
        result.update(bytes=sum(per_file.values()), files=dict(per_file), requests=len(crossings))
        return result
    finally:
        context.close()


def mb(count):
    return f"{count / 1e6:.2f} MB"


def s(ms):
    return "-" if ms is None else f"{ms / 1000:.2f} s"


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def report(speed: LinkSpeed, visits: dict) -> str:
    """The table for one link; ``visits`` maps a column's label (the bare page first) to
    its visits."""
    labels = list(visits)
    bare = visits[labels[0]]
    width = 14

    def row(name, cells):
        return f"  {name:<40}" + "".join(f"{cell:>{width}}" for cell in cells)

    widgets = labels[1:]
    lines = [f"link {speed.label}: {len(bare)} visits each, medians (ratio: to the bare page, visit by visit)",
             row("figure", labels + [f"ratio {label}" for label in widgets])]
    ready = {label: median(v["ready"] for v in group) for label, group in visits.items()}
    ratios = [statistics.median(w["ready"] / b["ready"] for b, w in zip(bare, visits[label])) for label in widgets]
    lines.append(row("Python ready", [s(ready[label]) for label in labels] + [f"{r:.2f}" for r in ratios]))
    sent = {label: median(v["bytes"] for v in group) for label, group in visits.items()}
    lines.append(row("bytes crossing the link until quiet", [mb(sent[label]) for label in labels]
                     + [f"{sent[label] / sent[labels[0]]:.2f}" for label in widgets]))
    lines.append(row("first answered tap", ["-"] + [s(median(v["first_answer"] for v in visits[label]))
                                                    for label in widgets]))
    shown = {label: median(sum(1 for change in v["first_minute"] if change["ms"] is not None) for v in visits[label])
             for label in widgets}
    lines.append(row("first minute: changes shown in 0.5 s", ["-"] + [f"{shown[label]:g} of 8" for label in widgets]))
    for label in widgets:
        waited = defaultdict(int)
        for v in visits[label]:
            for change in v["first_minute"]:
                if change["ms"] is None:
                    waited[change["name"]] += 1
        if waited:
            lines.append(f"    {label} waited for Python: "
                         + ", ".join(f"{name} ({count}/{len(visits[label])})" for name, count in waited.items()))
    lines.append("  bytes per file (median over visits):")
    groups = list(visits.values())
    names = sorted({n for group in groups for v in group for n in v["files"]},
                   key=lambda n: -max(median(v["files"].get(n, 0) for v in group) for group in groups))
    small = [0] * len(groups)
    for name in names:
        sizes = [median(v["files"].get(name, 0) for v in group) for group in groups]
        if max(sizes) >= SMALL_FILE:
            lines.append(f"    {name:<46}" + "".join(f"{mb(size):>{width}}" for size in sizes))
        else:
            small = [a + b for a, b in zip(small, sizes)]
    lines.append(f"    {'the other files (each under 20 kB)':<46}" + "".join(f"{mb(size):>{width}}" for size in small))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--link", action="append", help="MBIT[,RTT_MS] or loopback (repeat for several)")
    ap.add_argument("--runs", type=int, default=3, help="visits of each page per link (default 3)")
    ap.add_argument("--dist", type=Path, default=sitebuild.DIST, help="the built site (default dist/)")
    ap.add_argument("--compare", type=Path, help="another built site (e.g. of an older commit), visited in the "
                    "same rounds, for before and after figures from one run")
    ap.add_argument("--json", type=Path, help="also write every visit's figures here")
    args = ap.parse_args(argv)
    try:
        speeds = [LinkSpeed.parse(text) for text in (args.link or DEFAULT_LINKS)]
    except ValueError as e:
        ap.error(str(e))
    try:
        executable = find_browser()
    except Missing as e:
        print(f"bench_link: {e}")
        return 2
    from playwright.sync_api import sync_playwright

    dist = Path(args.dist)
    if not (dist / "build-info.json").is_file():
        sitebuild.build(dist)
    pyodide_folder = json.loads((dist / "build-info.json").read_text(encoding="utf-8"))["pyodide"]
    pages = {BARE_PAGE: BARE_HTML.replace("{pyodide}", pyodide_folder).encode()}
    print(f"bench_link: {dist}, {args.runs} visits of each page per link; the machine may be loaded "
          f"(compare the ratios, measured side by side)", flush=True)
    everything = {}
    profiles = Path(tempfile.mkdtemp(prefix="bench-link-"))
    try:
        with sync_playwright() as playwright:
            for speed in speeds:
                with contextlib.ExitStack() as hosts:
                    host = hosts.enter_context(hosting(dist, speed, pages))
                    columns = [("bare page", host, BARE_PAGE), ("poolgrad", host, "index.html")]
                    if args.compare:
                        columns.insert(1, ("before", hosts.enter_context(hosting(args.compare, speed)), "index.html"))
                    visits = {label: [] for label, _, _ in columns}
                    for index in range(args.runs):
                        for label, server, page in (columns if index % 2 == 0 else columns[::-1]):
                            figures = visit(playwright, executable, server, profiles, page, page != BARE_PAGE)
                            visits[label].append(figures)
                            print(f"  {speed.label} {label} visit {index + 1}: "
                                  f"ready {s(figures['ready'])}, {mb(figures['bytes'])}", flush=True)
                print(report(speed, visits), flush=True)
                everything[speed.label] = visits
    finally:
        shutil.rmtree(profiles, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
