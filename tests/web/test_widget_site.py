"""The built site as a whole: boot, offline use, hosting (sub-path, iframe, CSP), and
parity between poolgrad under Pyodide in the browser and poolgrad run natively."""

import json

import numpy as np
import pytest
from playwright.sync_api import expect

import poolgrad
from lesson_fixture import FIXTURE
from widget_driver import DEDICATED_WORKER, wait_settled


def test_boot_draws_first_queues_changes_then_works_offline(widget, context, site, published):
    page = widget.page
    widget.open(wait=False)
    status = page.locator("#status")
    # While Pyodide boots, the input grid and the controls are already there.
    expect(status).to_have_attribute("data-state", "loading")
    expect(page.locator("#boot-progress")).to_be_visible()
    expect(status).to_contain_text("Loading Python")
    assert page.locator('[data-grid="input"]').count() == 16
    # Changes made while booting queue and apply when Python is ready.
    page.fill("#kernel", "3")
    page.fill("#stride", "1")
    assert widget.hash().startswith("#k=3&s=1&")
    widget.wait_settled()
    assert page.locator("#boot-progress").is_hidden()
    assert widget.values("output") == [["8", "8"], ["9", "9"]]
    fetched = set(site.requests)
    assert {"/index.html", "/build-info.json", f"/{published('pyodide.asm.wasm')}"} <= fetched
    # Python's worker: the page's shared one where the browser has SharedWorker, else its own.
    assert {f"/{published('shared-worker.js')}", f"/{published('worker.js')}"} & fetched
    assert any(path.startswith("/wheels/") and "/poolgrad-" in path for path in fetched)
    assert site.foreign_requests() == []
    # "ready" means everything is loaded: the widget keeps working with the network off.
    context.set_offline(True)
    page.fill("#kernel", "2")
    page.fill("#stride", "2")
    page.select_option("#mode", "avg")
    widget.wait_settled()
    assert widget.values("output") == [["2.5", "6.5"], ["1", "-4"]]
    widget.cell("output", 1, 1).click()
    assert len(widget.marked("data-in-window")) == 4
    timings = page.evaluate("window.poolgradWidget.timings")
    assert timings["bootMs"] > 0 and timings["lastRenderMs"] is not None


@pytest.mark.parametrize("worker", ["shared", "dedicated"])
def test_sub_path_iframe_and_worker_under_the_same_csp(serve_directory, browser, sub_path_host, page_policy,
                                                       published, worker):
    """Hosted under /course/pooling/ inside an iframe, with every file of the site served with
    the page's own CSP as a header (a worker takes its policy from its script's response):
    Pyodide must boot with 'wasm-unsafe-eval' alone, in the shared worker and in the
    dedicated one."""
    root = sub_path_host(f"course/pooling/#k=3&s=1&p=0&d=1&mode=max&grad=0&x={FIXTURE}")
    policy = page_policy
    assert "'unsafe-eval'" not in policy and "'unsafe-inline'" not in policy
    (root / "_headers").write_text(f"/course/pooling/*\n  Content-Security-Policy: {policy}\n", encoding="utf-8")
    host_site = serve_directory(root)
    context = browser.new_context()
    if worker == "dedicated":
        context.add_init_script(DEDICATED_WORKER)
    try:
        page = context.new_page()
        page.goto(host_site.url + "host.html")
        frame = page.frame_locator("iframe")
        wait_settled(frame)
        expect(frame.locator('[data-grid="output"]')).to_have_text(["8", "8", "9", "9"])
        frame.locator('[data-grid="output"][data-row="1"][data-col="0"]').click()
        expect(frame.locator('[data-argmax="true"]')).to_have_count(1)
        expect(frame.locator('[data-argmax="true"]')).to_have_attribute("data-row", "3")
        assert page.frames[1].evaluate("window.poolgradWidget.python().kind") == worker
        script = published("shared-worker.js" if worker == "shared" else "worker.js")
        paths = set(host_site.requests)
        assert {f"/course/pooling/{script}", f"/course/pooling/{published('pyodide.asm.wasm')}"} <= paths
        # The host page's own requests: itself and the icon Chromium asks for (it names none).
        host_own = {"/host.html", "/favicon.ico"}
        assert [path for path in paths if path not in host_own and not path.startswith("/course/pooling/")] == []
        assert host_site.foreign_requests() == []
    finally:
        context.close()


def random_request(rng):
    """A random trace() request in the widget's wire format (non-finite values as strings)."""
    height, width = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    if rng.random() < 0.5:
        x = rng.integers(-9, 10, size=(height, width)).tolist()
    else:
        x = np.round(rng.normal(0, 3, size=(height, width)), 2).tolist()
        if rng.random() < 0.3:
            x[int(rng.integers(height))][int(rng.integers(width))] = str(rng.choice(["NaN", "Infinity", "-Infinity"]))
    mode = str(rng.choice(["max", "avg"]))
    kernel = [int(rng.integers(1, 4)), int(rng.integers(1, 4))]
    request = {
        "x": x,
        "kernel_size": kernel,
        "stride": [int(rng.integers(1, 4)), int(rng.integers(1, 4))],
        "padding": [int(rng.integers(0, k // 2 + 1)) for k in kernel],
        "dilation": [int(rng.integers(1, 3)), int(rng.integers(1, 3))] if mode == "max" else [1, 1],
        "ceil_mode": bool(rng.random() < 0.3),
        "count_include_pad": bool(rng.random() < 0.7),
        "mode": mode,
        "grad_output": None,
    }
    return request


def native(request):
    """poolgrad.trace() run here, answered the way the worker answers."""
    decoded = {**request, "x": [[float(v) if isinstance(v, str) else v for v in row] for row in request["x"]]}
    try:
        result = poolgrad.trace(**decoded)
    except (ValueError, TypeError) as refused:
        return {"error": str(refused)}
    return {"trace": json.loads(json.dumps(result, allow_nan=False))}


def test_parity_with_native_trace(widget):
    rng = np.random.default_rng(20240604)
    requests = [random_request(rng) for _ in range(24)]
    for request in requests[::2]:
        answer = native(request)
        if "trace" in answer:
            rows, cols = answer["trace"]["output_shape"]
            request["grad_output"] = np.round(rng.normal(0, 2, size=(rows, cols)), 3).tolist()
    widget.open()
    answers = widget.page.evaluate("requests => Promise.all(requests.map((r) => window.poolgradWidget.trace(r)))", requests)
    refused = 0
    for request, answer in zip(requests, answers):
        expected = native(request)
        got = {key: answer[key] for key in ("trace", "error") if key in answer}
        assert got == expected, f"browser and native trace() differ for {request}"
        refused += "error" in expected
    assert refused < len(requests) // 2, "too few valid requests to mean much"


def test_boot_failure_is_reported(widget, context):
    """A site served without its build description fails visibly, not with a spinner."""
    context.add_init_script(DEDICATED_WORKER)  # the route reaches a dedicated worker only
    context.route("**/build-info.json", lambda route: route.fulfill(status=404, body="missing"))
    widget.open(wait=False)
    status = widget.page.locator("#status")
    expect(status).to_have_attribute("data-state", "error", timeout=30_000)
    expect(status).to_contain_text("build-info.json answered HTTP 404")
    assert widget.page.locator('[data-grid="input"]').count() == 16


def crash_starts(context, bodies):
    """Serve the runtime's wasm as each of `bodies` in turn (bytes that do not compile: a
    start that crashes inside the runtime), then as it is; returns the requests' count."""
    served = []

    def answer(route):
        served.append(route.request.url)
        if len(served) <= len(bodies):
            route.fulfill(status=200, content_type="application/wasm", body=bodies[len(served) - 1])
        else:
            route.continue_()

    context.add_init_script(DEDICATED_WORKER)  # the route reaches a dedicated worker only
    context.route("**/pyodide.asm.wasm", answer)
    return served


def test_a_start_that_crashed_is_made_once_more(widget, context):
    """A start that crashes inside the runtime (WPE WebKit's once failed compiling the
    standard library, "no symtable") is made once more before the page gives up."""
    served = crash_starts(context, [b"not a wasm module"])
    widget.open()
    assert len(served) == 2
    assert widget.values("output") == [["4", "8"], ["9", "-2"]]


def test_a_second_crashed_start_fails_with_both_reasons(widget, context):
    served = crash_starts(context, [b"not a wasm module", b"\0asm\x09\0\0\0"])
    widget.open(wait=False)
    status = widget.page.locator("#status")
    expect(status).to_have_attribute("data-state", "error", timeout=60_000)
    text = status.inner_text()
    assert "started once more; the first start failed too: Python could not start" in text, text
    assert len(served) == 2
