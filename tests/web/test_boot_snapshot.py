"""How Python starts (web/runtime/python-runtime.js; build.py makes the NumPy snapshot,
web/runtime/snapshot.js restores it): on a fast link from the NumPy snapshot; on a slow one, when the snapshot does
not fit, without one or where the browser cannot unpack it, by the wheels' path (a normal
start, then the NumPy subset unpacked); each in the same worker, each runtime file fetched
once. A .wasm served as application/octet-stream still starts, and an error inside the
runtime fails the start at once instead of hiding behind the "still starting" messages.
Modules outside the NumPy subset are fetched when imported. Also: the iPad path (Pyodide's
iOS check) and the boot's stall timeout. The worker's "ready" message says how Python
started."""

import gzip
import json
import re
import shutil
import struct
import time

import pytest
from playwright.sync_api import expect

from exercise_solutions import FORWARD
from lesson_fixture import FIXTURE
from widget_driver import DEDICATED_WORKER, build_info


REFERENCE = f"#k=2&s=2&p=0&d=1&mode=max&grad=1&x={FIXTURE}&g=1,2;3,4"
# File names, not paths: the build publishes them in content-hashed folders.
RUNTIME_FILES = ["pyodide.asm.js", "pyodide.asm.wasm", "stdlib-subset.zip", "pyodide-lock.json"]
OFFICIAL_STDLIB = "python_stdlib.zip"
NUMPY_WHEEL = "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"
NUMPY_SUBSET = "numpy-subset.zip"
IPAD_USER_AGENT = ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 "
                   "(KHTML, like Gecko) Version/17.5 Safari/605.1.15")

# Makes the worker take the NumPy snapshot whatever the link's speed (a test hook of
# python-runtime.js): for the tests of what happens on that path.
FAST_LINK = "globalThis.poolgradSnapshotRate = 0;\n"

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
    if not info.get("numpy_snapshot"):
        # A test that could not run has not passed: `python build.py test` installs Node.
        pytest.fail("dist/ has no start-up snapshot: build it with Node.js 18+ on PATH "
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
    """Beyond the reference view: another trace, average pooling, computed by the NumPy
    the start installed."""
    answer = widget.page.evaluate("window.poolgradWidget.trace({x: [[1, 2], [3, 4]], kernel_size: [1, 1],"
                                  " stride: [1, 1], padding: [0, 0], dilation: [1, 1], mode: 'avg'})")
    assert "trace" in answer, answer


def served(site, path, since=0):
    """Statuses of the requests for `path` (Site.requests_for) from the `since`-th on."""
    return [request.status for request in site.requests_for(path, since)]


def assert_runtime_fetched_once(site, since=0):
    for path in RUNTIME_FILES:
        assert served(site, path, since) == [200], path
    assert served(site, OFFICIAL_STDLIB, since) == []  # only when code outside the subset is imported


def test_boots_from_the_numpy_snapshot_under_the_pages_csp(widget, dist, site, page_policy, prefix_worker):
    """On a fast link the worker takes the NumPy snapshot, served with the page's own CSP:
    fetching and unpacking it and compiling NumPy's libraries need nothing beyond
    script-src 'self' 'wasm-unsafe-eval' and connect-src 'self'. Neither NumPy zip is
    fetched: NumPy and poolgrad are installed inside the snapshot. The link is made fast
    (FAST_LINK): on a loaded machine even loopback can bring the runtime's first megabyte
    below the snapshot's rate."""
    info = snapshot_info(dist)
    with_csp = prefix_worker(FAST_LINK, policy=page_policy)
    before = len(site.requests)
    startup = boot(widget)
    assert with_csp, "the worker script was not served with the CSP"
    assert startup["snapshot"] == "numpy" and startup["rejected"] == []
    assert startup["path"] == "snapshot" and "MB/s" in startup["chosen"]
    assert startup["wasm"] == "streamed"
    assert startup["files"] == [site.url + info["numpy_snapshot"]]
    assert startup["platform"] == "iPad" and startup["trampolines"] == "js"
    assert served(site, f"/{info['numpy_snapshot']}", before) == [200]
    assert served(site, NUMPY_WHEEL, before) == [] and served(site, NUMPY_SUBSET, before) == []
    assert_runtime_fetched_once(site, before)
    assert_reference_trace(widget)
    assert_numpy_works_in_the_worker(widget)


def assert_wheels_path(site, startup, rejected, info):
    assert startup["snapshot"] == "none" and startup["path"] == "wheels"
    assert [r["snapshot"] for r in startup["rejected"]] == rejected
    assert startup["files"] == [site.url + info["numpy_subset"]]
    assert_runtime_fetched_once(site)
    assert served(site, NUMPY_SUBSET) == [200]
    assert served(site, NUMPY_WHEEL) == []  # the official wheel only when code outside the subset is imported


def test_a_numpy_snapshot_that_does_not_fit_falls_back_to_the_wheels(widget, dist, tmp_path, serve_directory,
                                                                     prefix_worker):
    prefix_worker(FAST_LINK)
    root = copy_of(dist, tmp_path)
    misfit_numpy_snapshot(root)
    info = snapshot_info(root)
    widget.site = serve_directory(root)
    startup = boot(widget)
    assert_wheels_path(widget.site, startup, ["numpy"], info)
    assert "function table" in startup["rejected"][0]["reason"]
    assert served(widget.site, f"/{info['numpy_snapshot']}") == [200]
    assert served(widget.site, "poolgrad-subset.zip") == [200]
    steps = [step["message"] for step in widget.page.evaluate("window.poolgradWidget.timings.bootSteps")]
    assert "Starting Python (without a start-up snapshot)" in steps
    assert widget.status()[0] == "ready"
    assert_reference_trace(widget)


def test_boots_without_a_snapshot(widget, dist, tmp_path, serve_directory):
    root = copy_of(dist, tmp_path)
    info = snapshot_info(root)
    (root / info["numpy_snapshot"]).unlink()
    info["numpy_snapshot"] = info["numpy_snapshot_bytes"] = None
    (root / "build-info.json").write_text(json.dumps(info), encoding="utf-8")
    widget.site = serve_directory(root)
    startup = boot(widget)
    assert_wheels_path(widget.site, startup, [], info)
    assert not any(request.endswith(".gz") for request in widget.site.requests)
    assert_reference_trace(widget)


def test_a_browser_that_cannot_unpack_gzip_downloads_no_snapshot(widget, prefix_worker, dist, tmp_path,
                                                                 serve_directory):
    """Safari before 16.4 and WPE 2.38 have no DecompressionStream: the worker must not fetch
    a snapshot it cannot unpack, and takes the wheels' path, fetching each runtime file once."""
    widget.site = serve_directory(copy_of(dist, tmp_path))
    prefix_worker("delete globalThis.DecompressionStream;\n")
    startup = boot(widget)
    assert_wheels_path(widget.site, startup, ["numpy"], snapshot_info(dist))
    assert "DecompressionStream" in startup["rejected"][0]["reason"]
    assert not any(request.endswith(".gz") for request in widget.site.requests)
    assert_reference_trace(widget)


def test_on_a_slow_link_python_starts_from_the_wheels(widget, dist, slow_host):
    """Through a paced link (10 Mbit/s + 40 ms, as a static host serves: gzip, ETag) the runtime's
    first bytes arrive too slowly for the snapshot to pay: the worker takes the wheels'
    path and never asks for the snapshot."""
    host = slow_host(dist, 10, 40)
    widget.page.add_init_script(WORKER_SPY)
    widget.page.goto(host.url + "index.html" + REFERENCE)
    widget.wait_settled()
    [ready] = widget.page.evaluate("window.__workerMessages.filter((m) => m.type === 'ready')")
    startup = ready["startup"]
    assert startup["path"] == "wheels" and startup["rejected"] == []
    # The bytes as sent count (the wasm gzipped to a third), not as the page reads them.
    assert 0.5 <= chosen_rate(startup) <= 1.25 * 1.05
    names = [crossing.path.rpartition("/")[2] for crossing in host.traffic.since(0)]
    assert NUMPY_SUBSET in names and "numpy-snapshot.bin.gz" not in names and NUMPY_WHEEL not in names
    assert_reference_trace(widget)


def chosen_rate(startup):
    """The link's rate in MB/s that picked the path ("the link brought the runtime at 9.7 MB/s")."""
    return float(re.fullmatch(r"the link brought the runtime at ([0-9.]+) MB/s", startup["chosen"])[1])


def test_a_fast_link_that_compresses_nothing_starts_python_from_the_snapshot(widget, dist, slow_host):
    """Through 80 Mbit/s (10 MB/s) from a host that sends every file as it is, the snapshot
    pays: the worker judges the link by the bytes that crossed while the whole runtime came.
    Judged by the rate of the runtime's first megabyte as the page read it, this link looked
    slower than the snapshot's rate for an unpacked wasm (15 MB/s) and took the wheels."""
    host = slow_host(dist, 80, 5, gzip=False)
    widget.page.add_init_script(WORKER_SPY)
    widget.page.goto(host.url + "index.html" + REFERENCE)
    widget.wait_settled()
    [ready] = widget.page.evaluate("window.__workerMessages.filter((m) => m.type === 'ready')")
    startup = ready["startup"]
    assert startup["path"] == "snapshot" and startup["snapshot"] == "numpy" and startup["rejected"] == []
    assert 5 <= chosen_rate(startup) <= 10 * 1.05
    names = [crossing.path.rpartition("/")[2] for crossing in host.traffic.since(0)]
    assert "numpy-snapshot.bin.gz" in names and NUMPY_SUBSET not in names
    assert all(crossing.encoding == "" for crossing in host.traffic.since(0))
    assert_reference_trace(widget)


def test_a_wasm_served_as_octet_stream_still_starts(widget, context, prefix_worker):
    """LMS file servers often send .wasm as application/octet-stream, which compileStreaming
    refuses (the start used to wait for ever, saying it was still starting): the runtime is
    compiled from its bytes instead, and the start says what to fix."""
    prefix_worker(FAST_LINK)
    def octet_stream(route):
        response = route.fetch()
        route.fulfill(response=response, headers={**response.headers, "content-type": "application/octet-stream"})
    context.route("**/pyodide.asm.wasm", octet_stream)
    startup = boot(widget)
    assert "application/octet-stream" in startup["wasm"] and "application/wasm" in startup["wasm"]
    assert startup["snapshot"] == "numpy"
    assert_reference_trace(widget)


def test_an_error_in_the_runtime_is_not_hidden_by_the_still_starting_messages(widget, context):
    """A runtime that cannot be compiled (here a truncated .wasm) used to leave the start
    waiting, saying every 10 s that it was still starting, until the stall timeout: it
    fails the start at once now, naming the runtime and the error."""
    def damaged(route):
        body = route.fetch().body()
        route.fulfill(status=200, body=body[:len(body) // 2], headers={"content-type": "application/wasm"})
    context.route("**/pyodide.asm.wasm", damaged)
    widget.page.add_init_script("window.poolgradBootStallMs = 120000;")
    widget.open(REFERENCE, wait=False)
    status = widget.page.locator("#status")
    expect(status).to_have_attribute("data-state", "error", timeout=60_000)
    expect(status).to_contain_text("pyodide.asm.wasm")
    assert "so far" not in status.text_content()


LEARNER_IMPORTS = """
import email, json, random
import numpy.fft, numpy.polynomial, numpy.random
assert numpy.fft.fft([1, 0, 0, 0]).tolist() == [1, 1, 1, 1]
assert numpy.random.default_rng(7).integers(0, 10, 3).shape == (3,)
assert numpy.polynomial.Polynomial([1, 2])(3) == 7
import unittest, xml.dom.minidom
assert xml.dom.minidom.parseString("<a>7</a>").documentElement.firstChild.data == "7"
assert "\u20ac".encode("cp1252") == b"\\x80"  # encodings.cp1252: a module of a package the subset keeps
"""


def test_modules_outside_the_subsets_are_fetched_when_imported(widget, site):
    """Learner code may import anything: the exercise Python fetches NumPy's official wheel
    the first time code imports a part of NumPy the subset left out, and the official
    standard library the first time it imports a module the standard library's subset
    lacks (once each), and the checker passes a correct solution that does."""
    page = widget.page
    widget.open(REFERENCE)
    before = len(site.requests)
    page.fill("#exercise-code", LEARNER_IMPORTS + FORWARD["numpy"])
    page.click("#exercise-run")
    result = page.locator("#exercise-result")
    expect(result).to_have_attribute("data-state", "pass", timeout=120_000)
    assert served(site, NUMPY_WHEEL, before) == [200]
    assert served(site, OFFICIAL_STDLIB, before) == [200]


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
    prefix_worker(FAST_LINK + 'Object.defineProperty(WorkerNavigator.prototype, "platform", { get: () => "MacIntel" });\n')
    startup = boot(widget)
    assert page.evaluate("[navigator.platform, navigator.maxTouchPoints > 1]") == ["MacIntel", True]
    assert startup["enginePlatform"] == "MacIntel"  # what the worker's own navigator says
    assert re.search("iPad|iPhone|iPod", startup["platform"])  # what Pyodide's check saw
    assert startup["trampolines"] == "js"
    assert startup["snapshot"] == "numpy"
    assert_reference_trace(widget)


def test_a_slow_boot_is_not_a_failed_boot(widget, hold_back, prefix_worker):
    """Three files each held back for 5 s with a stall timeout of 8 s (build-info.json, then
    the NumPy snapshot, which is asked for only after it, and poolgrad's wheel): the boot
    takes longer than the stall timeout in total, but no step stalls, so it becomes ready."""
    prefix_worker(FAST_LINK)
    page = widget.page
    page.add_init_script("window.poolgradBootStallMs = 8000;")
    page.add_init_script(WORKER_SPY)
    release_due = hold_back(["**/build-info.json", "**/numpy-snapshot.bin.gz", "**/poolgrad-subset.zip"], 5)
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


def test_a_stalled_step_fails_the_boot_and_names_the_step(widget, hold_back, prefix_worker):
    """The NumPy snapshot never arrives: after the stall timeout the status says which step
    stalled, instead of an endless spinner."""
    prefix_worker(FAST_LINK)
    widget.page.add_init_script("window.poolgradBootStallMs = 4000;")
    hold_back(["**/numpy-snapshot.bin.gz"], 3600)
    widget.open(REFERENCE, wait=False)
    status = widget.page.locator("#status")
    expect(status).to_have_attribute("data-state", "error", timeout=60_000)
    expect(status).to_contain_text('no progress for 4 s at "Downloading Python')


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
