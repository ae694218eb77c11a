"""Python's start-up snapshot (build.py makes it, web/worker.js restores it): the built
site boots to ready and draws the reference trace with the snapshot, without one, and
with one that does not fit the runtime (the worker falls back to a normal start in the
same worker). The worker's "ready" message says how Python started."""

import gzip
import json
import shutil
import struct

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

FIXTURE = "1,2,5,6;3,4,8,7;0,-1,-3,-2;-4,9,-6,-5"
REFERENCE = f"#k=2&s=2&p=0&d=1&mode=max&grad=1&x={FIXTURE}&g=1,2;3,4"
FALLBACK_STEP = "without its start-up snapshot"

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


def snapshot_path(dist):
    info = json.loads((dist / "build-info.json").read_text(encoding="utf-8"))
    if not info.get("snapshot"):
        # A test that could not run has not passed: `python build.py test` installs Node.
        pytest.fail("dist/ has no start-up snapshot: build it with Node.js 18+ on PATH "
                    "(`python build.py test` installs it); the build printed why it made none")
    return info["snapshot"]


def copy_of(dist, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(dist, site)
    return site


def boot(widget):
    """Open the reference view, wait for ready, return the worker's startup report."""
    widget.page.add_init_script(WORKER_SPY)
    widget.open(REFERENCE)
    ready = widget.page.evaluate("window.__workerMessages.filter((m) => m.type === 'ready')")
    assert len(ready) == 1, ready
    return ready[0]["startup"]


def assert_reference_trace(widget):
    # DESIGN.md: 2 x 2, stride 2 on the fixture -> 4, 8, 9, -2 from cells 5, 6, 13, 11,
    # where the gradients 1, 2, 3, 4 land; every other cell gets 0.
    assert widget.values("output") == [["4", "8"], ["9", "-2"]]
    grad_input = [value for row in widget.values("grad-input") for value in row]
    assert {i: v for i, v in enumerate(grad_input) if v != "0"} == {5: "1", 6: "2", 13: "3", 11: "4"}
    widget.cell("output", 1, 0).click()
    expect(widget.cell("output", 1, 0)).to_have_attribute("aria-selected", "true")
    assert widget.marked("data-argmax") == [[3, 1]]


def boot_steps(widget):
    return [step["message"] for step in widget.page.evaluate("window.poolgradWidget.timings.bootSteps")]


def served(site, path, since=0):
    """Statuses of the requests for `path` (from the `since`-th request of the site's log on:
    the session's site serves every test)."""
    return [request.status for request in site.requests[since:] if request == path]


def test_boots_from_the_snapshot_under_the_pages_csp(widget, context, dist, site, page_policy, route_with_policy, published):
    """The worker served with the page's own CSP: fetching and gunzipping the snapshot
    needs nothing beyond script-src 'self' 'wasm-unsafe-eval' and connect-src 'self'."""
    snapshot = snapshot_path(dist)
    with_csp = route_with_policy(context, "**/worker.js", page_policy)
    before = len(site.requests)
    startup = boot(widget)
    assert with_csp, "the worker script was not served with the CSP"
    assert startup == {"snapshot": "used", "reason": None}
    assert served(site, f"/{snapshot}", before) == [200]
    # One runtime: the snapshot was restored, not thrown away for a second start.
    assert served(site, f"/{published('pyodide.asm.wasm')}", before) == [200]
    assert not any(FALLBACK_STEP in message for message in boot_steps(widget))
    assert_reference_trace(widget)


def test_boots_without_a_snapshot(widget, dist, tmp_path, serve_directory, published):
    snapshot = snapshot_path(dist)
    root = copy_of(dist, tmp_path)
    (root / snapshot).unlink()
    info = json.loads((root / "build-info.json").read_text(encoding="utf-8"))
    info["snapshot"] = None
    (root / "build-info.json").write_text(json.dumps(info), encoding="utf-8")
    widget.site = serve_directory(root)
    startup = boot(widget)
    assert startup == {"snapshot": "none", "reason": None}
    assert not any(request.endswith(".gz") for request in widget.site.requests)
    assert served(widget.site, f"/{published('pyodide.asm.wasm')}") == [200]
    assert_reference_trace(widget)


def test_a_snapshot_of_another_build_falls_back_to_a_normal_start(widget, dist, tmp_path, serve_directory, published):
    """A well-formed gzip whose snapshot names another BUILD_ID (as one made for another
    Pyodide would): loadPyodide throws after creating the runtime, and the worker starts
    Python again without it, in the same worker."""
    snapshot = snapshot_path(dist)
    root = copy_of(dist, tmp_path)
    data = bytearray(gzip.decompress((root / snapshot).read_bytes()))
    magic, = struct.unpack_from("<I", data)
    assert magic == 1886286592  # Pyodide 0.27's snapshot header
    data[16:20] = bytes(b ^ 0xFF for b in data[16:20])  # the first word of the BUILD_ID
    (root / snapshot).write_bytes(gzip.compress(bytes(data), compresslevel=1))
    widget.site = serve_directory(root)
    startup = boot(widget)
    assert startup["snapshot"] == "rejected"
    assert "build id mismatch" in startup["reason"]
    assert any(FALLBACK_STEP in message for message in boot_steps(widget))
    assert served(widget.site, f"/{snapshot}") == [200]
    # The runtime was created twice: once for the snapshot, once for the normal start.
    assert len(served(widget.site, f"/{published('pyodide.asm.wasm')}")) >= 2
    assert widget.status()[0] == "ready"
    assert_reference_trace(widget)
