"""Python's start-up snapshots (build.py makes them, web/runtime/worker.js and web/runtime/snapshot.js
restore them): the built site boots to ready and draws the reference trace from the NumPy
snapshot, from the plain one when the NumPy one does not fit, with a normal start when
neither fits or the browser cannot unpack them, and without any; each in the same worker,
each runtime file fetched once. Also: the iPad path (Pyodide's iOS check) and the boot's
stall timeout. The worker's "ready" message says how Python started."""

import gzip
import json
import re
import shutil
import struct
import time

import pytest
from playwright.sync_api import expect

from lesson_fixture import FIXTURE
from widget_driver import DEDICATED_WORKER, build_info


REFERENCE = f"#k=2&s=2&p=0&d=1&mode=max&grad=1&x={FIXTURE}&g=1,2;3,4"
# File names, not paths: the build publishes them in content-hashed folders.
RUNTIME_FILES = ["pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]
NUMPY_WHEEL = "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"
IPAD_USER_AGENT = ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 "
                   "(KHTML, like Gecko) Version/17.5 Safari/605.1.15")

# Keeps every message the page's worker posts, for the "ready" message's `startup`.
WORKER_SPY = """
(() => {
  const Native = window.Worker;
  window.__workerMessages = [];
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => window.__workerMessages.push(event.data));
    }
  };
})();
"""


@pytest.fixture(autouse=True)
def dedicated_worker(context):
    """These tests change and hold back the worker's script and files by routes, which reach
    a dedicated worker only (widget_driver.DEDICATED_WORKER)."""
    context.add_init_script(DEDICATED_WORKER)


def snapshot_info(root):
    info = build_info(root)
    if not info.get("snapshot") or not info.get("numpy_snapshot"):
        # A test that could not run has not passed: `python build.py test` installs Node.
        pytest.fail("dist/ has no start-up snapshots: build it with Node.js 18+ on PATH "
                    "(`python build.py test` installs it); the build printed why it made none")
    return info


def copy_of(dist, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(dist, site)
    return site


def rewrite_gzip(path, change):
    data = bytearray(gzip.decompress(path.read_bytes()))
    change(data)
    path.write_bytes(gzip.compress(bytes(data), compresslevel=1))


def misfit_numpy_snapshot(root):
    """The NumPy snapshot's manifest expects one more function-table slot than restoring
    its libraries gives (as a snapshot made by another runtime would)."""
    def change(data):
        length, = struct.unpack_from("<I", data, 4)
        manifest = json.loads(data[8:8 + length])
        manifest["table_length"] += 1
        text = json.dumps(manifest, separators=(",", ":")).encode()
        assert 8 + len(text) <= manifest["image"]["offset"]
        data[4:8] = struct.pack("<I", len(text))
        data[8:8 + len(text)] = text
    rewrite_gzip(root / snapshot_info(root)["numpy_snapshot"], change)


def foreign_plain_snapshot(root):
    """The plain snapshot names another BUILD_ID (as one made for another Pyodide would)."""
    def change(data):
        magic, = struct.unpack_from("<I", data)
        assert magic == 1886286592  # Pyodide 0.27's snapshot header
        data[16:20] = bytes(b ^ 0xFF for b in data[16:20])  # the first word of the BUILD_ID
    rewrite_gzip(root / snapshot_info(root)["snapshot"], change)


def boot(widget):
    """Open the reference view, wait for ready, return the worker's startup report."""
    widget.page.add_init_script(WORKER_SPY)
    widget.open(REFERENCE)
    ready = widget.page.evaluate("window.__workerMessages.filter((m) => m.type === 'ready')")
    assert len(ready) == 1, ready
    return ready[0]["startup"]


def assert_reference_trace(widget):
    # The lesson's reference numbers (docs/design.md): 2 x 2, stride 2 on the fixture -> 4, 8, 9, -2 from cells 5, 6, 13, 11,
    # where the gradients 1, 2, 3, 4 land; every other cell gets 0.
    assert widget.values("output") == [["4", "8"], ["9", "-2"]]
    grad_input = [value for row in widget.values("grad-input") for value in row]
    assert {i: v for i, v in enumerate(grad_input) if v != "0"} == {5: "1", 6: "2", 13: "3", 11: "4"}
    widget.cell("output", 1, 0).click()
    expect(widget.cell("output", 1, 0)).to_have_attribute("aria-selected", "true")
    assert widget.marked("data-argmax") == [[3, 1]]


def assert_numpy_works_in_the_worker(widget):
    """Beyond trace(): NumPy's linear algebra (a library the snapshot restored) and its
    random module (libraries loaded from the file system after the restore)."""
    answer = widget.page.evaluate("window.poolgradWidget.trace({x: [[1, 2], [3, 4]], kernel_size: [1, 1],"
                                  " stride: [1, 1], padding: [0, 0], dilation: [1, 1], mode: 'avg'})")
    assert "trace" in answer, answer


def served(site, path, since=0):
    """Statuses of the requests for `path` (Site.requests_for) from the `since`-th on."""
    return [request.status for request in site.requests_for(path, since)]


def assert_runtime_fetched_once(site, since=0):
    for path in RUNTIME_FILES:
        assert served(site, path, since) == [200], path


def test_boots_from_the_numpy_snapshot_under_the_pages_csp(widget, context, dist, site, page_policy,
                                                          route_with_policy):
    """The worker served with the page's own CSP: fetching and unpacking the snapshot and
    compiling NumPy's libraries need nothing beyond script-src 'self' 'wasm-unsafe-eval'
    and connect-src 'self'. NumPy's wheel is not fetched: its files are in the snapshot."""
    info = snapshot_info(dist)
    with_csp = route_with_policy(context, "**/worker.js", page_policy)
    before = len(site.requests)
    startup = boot(widget)
    assert with_csp, "the worker script was not served with the CSP"
    assert startup["snapshot"] == "numpy" and startup["rejected"] == []
    assert startup["platform"] == "iPad" and startup["trampolines"] == "js"
    assert served(site, f"/{info['numpy_snapshot']}", before) == [200]
    assert served(site, f"/{info['snapshot']}", before) == []
    assert served(site, NUMPY_WHEEL, before) == []
    assert_runtime_fetched_once(site, before)
    assert_reference_trace(widget)
    assert_numpy_works_in_the_worker(widget)


def test_a_numpy_snapshot_that_does_not_fit_falls_back_to_the_plain_one(widget, dist, tmp_path,
                                                                       serve_directory):
    root = copy_of(dist, tmp_path)
    misfit_numpy_snapshot(root)
    info = snapshot_info(root)
    widget.site = serve_directory(root)
    startup = boot(widget)
    assert startup["snapshot"] == "plain"
    [rejected] = startup["rejected"]
    assert rejected["snapshot"] == "numpy" and "function table" in rejected["reason"]
    assert served(widget.site, f"/{info['numpy_snapshot']}") == [200]
    assert served(widget.site, f"/{info['snapshot']}") == [200]
    # Two runtimes were created, from one download of each file.
    assert_runtime_fetched_once(widget.site)
    assert served(widget.site, NUMPY_WHEEL) == [200]
    assert_reference_trace(widget)


def test_when_neither_snapshot_fits_python_starts_normally(widget, dist, tmp_path, serve_directory):
    root = copy_of(dist, tmp_path)
    misfit_numpy_snapshot(root)
    foreign_plain_snapshot(root)
    widget.site = serve_directory(root)
    startup = boot(widget)
    assert startup["snapshot"] == "none"
    assert [r["snapshot"] for r in startup["rejected"]] == ["numpy", "plain"]
    assert "build id mismatch" in startup["rejected"][1]["reason"]
    steps = [step["message"] for step in widget.page.evaluate("window.poolgradWidget.timings.bootSteps")]
    assert "Starting Python (without a start-up snapshot) and loading NumPy" in steps
    assert_runtime_fetched_once(widget.site)
    assert served(widget.site, NUMPY_WHEEL) == [200]
    assert widget.status()[0] == "ready"
    assert_reference_trace(widget)


def test_boots_without_snapshots(widget, dist, tmp_path, serve_directory):
    root = copy_of(dist, tmp_path)
    info = snapshot_info(root)
    for key in ("snapshot", "numpy_snapshot"):
        (root / info[key]).unlink()
        info[key] = info[f"{key}_bytes"] = None
    (root / "build-info.json").write_text(json.dumps(info), encoding="utf-8")
    widget.site = serve_directory(root)
    startup = boot(widget)
    assert startup["snapshot"] == "none" and startup["rejected"] == []
    assert not any(request.endswith(".gz") for request in widget.site.requests)
    assert_runtime_fetched_once(widget.site)
    assert_reference_trace(widget)


def test_a_browser_that_cannot_unpack_gzip_downloads_no_snapshot(widget, prefix_worker, dist, tmp_path,
                                                                 serve_directory):
    """Safari before 16.4 has no DecompressionStream: the worker must not fetch 18 MB it
    cannot unpack, and starts Python normally, fetching each runtime file once."""
    widget.site = serve_directory(copy_of(dist, tmp_path))
    prefix_worker("delete globalThis.DecompressionStream;\n")
    startup = boot(widget)
    assert startup["snapshot"] == "none"
    assert [r["snapshot"] for r in startup["rejected"]] == ["numpy", "plain"]
    assert all("DecompressionStream" in r["reason"] for r in startup["rejected"])
    assert not any(request.endswith(".gz") for request in widget.site.requests)
    assert_runtime_fetched_once(widget.site)
    assert_reference_trace(widget)


def test_an_ipad_boots_with_pyodides_ios_path(widget, context, prefix_worker):
    """iPadOS Safari says navigator.platform "MacIntel" (in the page and in a worker), which
    Pyodide 0.27's iOS check misses (pyodide#5670): the worker makes the check see an iOS
    platform, on every engine (the NumPy snapshot is made that way), and Pyodide calls C
    through JavaScript. Chromium's emulation does not reach a worker's navigator, so the
    worker script gets iPadOS's value from a prefix."""
    page = widget.page
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setUserAgentOverride", {"userAgent": IPAD_USER_AGENT, "platform": "MacIntel"})
    cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    prefix_worker('Object.defineProperty(WorkerNavigator.prototype, "platform", { get: () => "MacIntel" });\n')
    startup = boot(widget)
    assert page.evaluate("[navigator.platform, navigator.maxTouchPoints > 1]") == ["MacIntel", True]
    assert startup["enginePlatform"] == "MacIntel"  # what the worker's own navigator says
    assert re.search("iPad|iPhone|iPod", startup["platform"])  # what Pyodide's check saw
    assert startup["trampolines"] == "js"
    assert startup["snapshot"] == "numpy"
    assert_reference_trace(widget)


def test_a_slow_boot_is_not_a_failed_boot(widget, hold_back):
    """Three files each held back for 5 s with a stall timeout of 8 s (build-info.json, then
    the NumPy snapshot, which is asked for only after it, and poolgrad's wheel): the boot
    takes longer than the stall timeout in total, but no step stalls, so it becomes ready."""
    page = widget.page
    page.add_init_script("window.poolgradBootStallMs = 8000;")
    page.add_init_script(WORKER_SPY)
    release_due = hold_back(["**/build-info.json", "**/numpy-snapshot.bin.gz", "**/poolgrad-*.whl"], 5)
    widget.open(REFERENCE, wait=False)
    status = page.locator("#status")
    while status.get_attribute("data-state") == "loading":
        page.wait_for_timeout(200)
        release_due()
    assert release_due() == 3
    assert status.get_attribute("data-state") == "ready", status.text_content()
    assert page.evaluate("window.poolgradWidget.timings.bootMs") > 8000
    widget.wait_settled()
    [ready] = page.evaluate("window.__workerMessages.filter((m) => m.type === 'ready')")
    assert ready["startup"]["snapshot"] == "numpy"
    assert_reference_trace(widget)


def test_a_long_start_says_it_is_still_starting(widget, hold_back):
    """Starting Python has no news of its own; here the runtime's .wasm arrives after 25 s
    with a stall timeout of 12 s. The worker's "still starting" messages (every 10 s)
    keep the boot alive, the status shows them, and the widget becomes ready."""
    page = widget.page
    page.add_init_script("window.poolgradBootStallMs = 12000;")
    release_due = hold_back(["**/pyodide.asm.wasm"], 25)
    widget.open(REFERENCE, wait=False)
    status = page.locator("#status")
    said = set()
    while status.get_attribute("data-state") == "loading":
        said.add(page.locator("#status-text").inner_text())
        page.wait_for_timeout(200)
        release_due()
    assert status.get_attribute("data-state") == "ready", status.text_content()
    assert any(re.search(r"Starting Python.*\(\d+ s so far\)", text) for text in said), said
    widget.wait_settled()
    assert_reference_trace(widget)


def test_a_stalled_step_fails_the_boot_and_names_the_step(widget, hold_back):
    """poolgrad's wheel never arrives: after the stall timeout the status says which step
    stalled, instead of an endless spinner."""
    widget.page.add_init_script("window.poolgradBootStallMs = 4000;")
    hold_back(["**/poolgrad-*.whl"], 3600)
    widget.open(REFERENCE, wait=False)
    status = widget.page.locator("#status")
    expect(status).to_have_attribute("data-state", "error", timeout=60_000)
    expect(status).to_contain_text('no progress for 4 s at "Installing poolgrad"')


def test_what_the_worker_said_before_the_page_listened_counts(widget, hold_back):
    """app.js (which makes the bridge) held back for 8 s while early.js's worker boots:
    the bridge adopts the worker after its progress, or even its "ready", and must neither
    fail at once nor after its stall timeout (3 s here) once ready."""
    page = widget.page
    page.add_init_script("window.poolgradBootStallMs = 3000;")
    page.add_init_script(WORKER_SPY)
    release_due = hold_back(["**/app.js"], 8)
    page.goto(widget.site.url + "index.html" + REFERENCE, wait_until="commit")  # "load" waits for app.js
    deadline = time.monotonic() + 60
    while page.evaluate("!window.poolgradWidget") and time.monotonic() < deadline:
        page.wait_for_timeout(200)
        release_due()
    widget.wait_settled()
    page.wait_for_timeout(4000)  # longer than the stall timeout
    assert widget.status()[0] == "ready"
    assert page.evaluate("window.__workerMessages.filter((m) => m.type === 'ready').length") == 1
    assert_reference_trace(widget)
