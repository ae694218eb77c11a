"""What a visit downloads, and how fast the lesson comes back offline (the service worker).

Run it with `python benchmarks/bench_offline.py [--runs N]` (or `python build.py bench`).
It builds dist/ when dist/build-info.json is missing and serves dist/ with
sitebuild.make_server on 127.0.0.1, which applies the site's _headers cache rules (the fixed
names revalidated, content-hashed folders cached for a year), as a host set up per the
README would. Each run opens a fresh headless Chromium context (empty HTTP cache, no
service worker) and measures, from the server's request log:

* first visit: the requests and bytes until the page is ready, then those of the service
  worker saving the build (until navigator.serviceWorker.ready and the NumPy files of the
  path the start took are saved: the worker saves those once the page names them);
* repeat visit, online: a new navigation in the same context (the service worker answers;
  the browser still asks the server for sw.js, and the worker for nothing else);
* offline reload: the context's network off, a reload, and the time from navigation start
  to `#status` data-state="ready" (performance.now() in the page, stamped by a
  MutationObserver installed before any page script runs), next to the first visit's.

Bytes are the sizes of the files answered 200 (the server sends files as they are); a 304
carries no body. Figures are printed, never asserted. Exit status 2 when Playwright or
Chromium is missing, 1 when the page does not become ready within the widget's boot stall
timeout and a margin (widget_driver.BOOT_TIMEOUT_MS).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import sitebuild  # noqa: E402
from bench_browser import served_bytes  # noqa: E402  (this folder is on sys.path)
from widget_driver import BOOT_TIMEOUT_MS  # noqa: E402  (bench_browser put tests/ on sys.path)

READY_STAMP = """
new MutationObserver(() => {
  const status = document.getElementById("status");
  if (status && status.dataset.state === "ready" && window.__readyAt === undefined) window.__readyAt = performance.now();
}).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"] });
"""


def tally(log, dist, since, until=None):
    """(requests, bytes) of the log's entries since..until; bytes of the 200s' files."""
    entries = log[since:until]
    return len(entries), sum(served_bytes(dist, path) for path in entries if path.status == 200)


def ready_at(page):
    # Polled from here: wait_for_function would evaluate a string, which the page's CSP forbids.
    for _ in range(BOOT_TIMEOUT_MS // 50):
        stamp = page.evaluate("window.__readyAt")
        if stamp is not None:
            return stamp
        page.wait_for_timeout(50)
    raise TimeoutError(f"#status did not become ready within {BOOT_TIMEOUT_MS // 1000} s")


# Whether the service worker's cache holds NumPy's files of either start path.
PATH_SAVED = """async () => {
  for (const name of await caches.keys()) {
    const urls = (await (await caches.open(name)).keys()).map((request) => request.url);
    if (urls.some((url) => /numpy-(snapshot\\.bin\\.gz|subset\\.zip)$/.test(url))) return true;
  }
  return false;
}"""


def wait_path_saved(page):
    for _ in range(BOOT_TIMEOUT_MS // 100):
        if page.evaluate(PATH_SAVED):
            return
        page.wait_for_timeout(100)
    raise TimeoutError(f"the service worker did not save the start's NumPy files within {BOOT_TIMEOUT_MS // 1000} s")


def one_run(new_context, url, log, dist):
    context = new_context()
    context.add_init_script(READY_STAMP)
    try:
        page = context.new_page()
        start = len(log)
        page.goto(url + "index.html")
        first_ready = ready_at(page)
        at_ready = len(log)
        # ready: a worker is active, so the build is saved (its install finished); the files
        # of the path the start took follow, once the page named them.
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        wait_path_saved(page)
        saved = len(log)
        page.goto(url + "index.html")
        repeat_ready = ready_at(page)
        repeat_log = len(log)
        context.set_offline(True)
        page.reload()
        offline_ready = ready_at(page)
        offline_log = len(log)
        return {
            "first": tally(log, dist, start, at_ready),
            "save": tally(log, dist, at_ready, saved),
            "repeat": tally(log, dist, saved, repeat_log),
            "repeat_paths": sorted(set(log[saved:repeat_log])),
            "offline": tally(log, dist, repeat_log, offline_log),
            "first_ready_ms": first_ready,
            "repeat_ready_ms": repeat_ready,
            "offline_ready_ms": offline_ready,
        }
    finally:
        context.close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs, each in a fresh browser context (default 3)")
    parser.add_argument("--profile", action="store_true",
                        help="a fresh on-disk browser profile per run (a disk HTTP cache, as a learner's browser "
                             "has) instead of an incognito-like context, whose memory cache keeps no 10 MB file")
    args = parser.parse_args(argv)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("bench_offline: Playwright is missing: pip install -e .[test]", file=sys.stderr)
        return 2
    chromium = sitebuild.find_chromium()
    if not chromium:
        print("bench_offline: no Chromium: apt-get install chromium, or set POOLGRAD_CHROMIUM", file=sys.stderr)
        return 2
    dist = Path(sitebuild.DIST)
    if not (dist / "build-info.json").is_file():
        sitebuild.build(dist, quiet=True)
    log = []
    runs = []
    with sitebuild.serving(dist, request_log=log) as url, sync_playwright() as playwright:
        options = {"viewport": {"width": 1280, "height": 900}, "service_workers": "allow"}
        browser = None if args.profile else playwright.chromium.launch(executable_path=chromium, args=sitebuild.CHROMIUM_ARGS)

        def new_context():
            if browser is not None:
                return browser.new_context(**options)
            profile = tempfile.mkdtemp(prefix="poolgrad-bench-profile-")
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=chromium, args=sitebuild.CHROMIUM_ARGS, **options)
            context.on("close", lambda _: shutil.rmtree(profile, ignore_errors=True))
            return context

        try:
            for _ in range(args.runs):
                runs.append(one_run(new_context, url, log, dist))
        except Exception as error:  # a page that never became ready
            print(f"bench_offline: {type(error).__name__}: {str(error).splitlines()[0]}", file=sys.stderr)
            return 1
        finally:
            if browser is not None:
                browser.close()

    site_bytes = sum(p.stat().st_size for p in dist.rglob("*") if p.is_file() and p.name != sitebuild.DIST_MARKER)
    print(f"site: {dist} ({site_bytes / 1e6:.2f} MB in {sum(1 for p in dist.rglob('*') if p.is_file()) - 1} files), "
          f"{args.runs} runs, each in a fresh {'on-disk profile' if args.profile else 'incognito-like context'}")

    def row(label, key):
        requests = [run[key][0] for run in runs]
        sizes = [run[key][1] for run in runs]
        print(f"  {label:<44} {statistics.median(requests):5.0f} requests  {statistics.median(sizes) / 1e6:7.2f} MB"
              f"   (runs: {', '.join(f'{r}/{s / 1e6:.2f}' for r, s in zip(requests, sizes))})")

    row("first visit, until ready", "first")
    row("first visit, service worker saving the build", "save")
    row("repeat visit (online)", "repeat")
    row("offline reload", "offline")
    print(f"  repeat visit asked the server for: {runs[0]['repeat_paths']}")
    for label, key in (("first visit: navigation to ready", "first_ready_ms"),
                       ("repeat visit: navigation to ready", "repeat_ready_ms"),
                       ("offline reload: navigation to ready", "offline_ready_ms")):
        values = [run[key] for run in runs]
        print(f"  {label:<44} median {statistics.median(values):7.0f} ms   (runs: {', '.join(f'{v:.0f}' for v in values)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
