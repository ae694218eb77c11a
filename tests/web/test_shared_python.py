"""One Python per page: the widgets of a lesson page (same-origin iframes) share one Python
through the site's shared worker, and each falls back to a dedicated worker of its own
where the browser has no module SharedWorker or the shared one cannot serve it
(web/runtime/bridge.js, web/runtime/trace-service.js).

The host page is written by the test (a lesson page with three widgets, each showing
another of the lesson's reference views) and served on the site's origin by a route.
Runtimes are counted in the server's log: Playwright does not see a shared worker's
requests in Chromium (playwright#33917), the server does.
"""

import os
import time

import pytest
from playwright.sync_api import expect

from lesson_fixture import FIXTURE
from widget_driver import BOOT_TIMEOUT_MS, DEDICATED_WORKER, REQUEST_STRIDE, wait_settled


HOST_PAGE = "three-widgets.html"  # answered by a route, not a file of dist/
AVG_EXAMPLE = "12,10,9,6;11,8,13,5;2,14,15,0;4,3,7,1"
# Each widget's view and what its output grid shows (the lesson's reference numbers).
VIEWS = [
    (f"#k=2&s=2&p=0&d=1&mode=avg&grad=1&x={AVG_EXAMPLE}", ["10.25", "8.25", "5.75", "5.75"]),
    (f"#k=3&s=1&p=0&d=1&mode=max&grad=1&x={FIXTURE}", ["8", "8", "9", "9"]),
    (f"#k=2&s=2&p=0&d=1&mode=max&grad=0&x={FIXTURE}", ["4", "8", "9", "-2"]),
]
# The second widget's next view: 2 x 2 windows, stride 1 on the fixture.
MAX_2X2_STRIDE_1 = ["4", "8", "8", "4", "8", "8", "9", "9", "-2"]


def host_html(hashes):
    frames = "\n".join(
        f'<iframe class="widget-frame" title="widget {index + 1}" src="index.html?embed=1&amp;lesson=0{hash_.replace("&", "&amp;")}"></iframe>'
        for index, hash_ in enumerate(hashes))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>three widgets</title>
<style>iframe {{ width: 900px; height: 700px; border: 0; }}</style></head>
<body><h1>Pooling</h1>
{frames}
</body></html>"""


def open_host(page, site, hashes=tuple(hash_ for hash_, _ in VIEWS), url=None):
    """Open a lesson page embedding one widget per hash; returns the widgets' frame locators."""
    base = url or site.url
    html = host_html(hashes)
    page.route(base + HOST_PAGE, lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    page.goto(base + HOST_PAGE)
    return [page.frame_locator("iframe.widget-frame").nth(index) for index in range(len(hashes))]


def wait_ready(frame, outputs=None, state="ready"):
    wait_settled(frame, state)
    if outputs is not None:
        expect(frame.locator('[data-grid="output"]')).to_have_text(outputs)


def widget_frames(page):
    """The Playwright frames of the page's widgets, in document order."""
    return [handle.content_frame() for handle in page.query_selector_all("iframe.widget-frame")]


def runtimes_started(site, since):
    """How many Pythons were started: the requests for the runtime's .wasm since `since`."""
    return len(site.requests_for("pyodide.asm.wasm", since))


def set_hash(frame, hash_):
    frame.evaluate("hash => { location.hash = hash; }", hash_)


def ask_python(frame):
    """Send one raw request from this widget, so its bridge hears from its Python again."""
    answer = frame.evaluate("window.poolgradWidget.trace({x: [[1, 2], [3, 4]], kernel_size: [2, 2]})")
    assert answer["trace"]["output"] == [[4]], answer


def test_three_widgets_on_a_page_share_one_python(page, site):
    since = len(site.requests)
    frames = open_host(page, site)
    for frame, (_, outputs) in zip(frames, VIEWS):
        wait_ready(frame, outputs)
    assert runtimes_started(site, since) == 1
    for frame in widget_frames(page):
        ask_python(frame)
        assert frame.evaluate("window.poolgradWidget.python()") == {"kind": "shared", "clients": 3, "fellBack": None}
    # Each keeps its own state: a change in one changes no other.
    frames[1].locator("#kernel").fill("2")
    frames[1].locator("#stride").fill("1")
    expect(frames[1].locator('[data-grid="output"]')).to_have_text(MAX_2X2_STRIDE_1)
    for index in (0, 2):
        expect(frames[index].locator('[data-grid="output"]')).to_have_text(VIEWS[index][1])
    assert runtimes_started(site, since) == 1


@pytest.mark.parametrize("browser_lacks", [
    pytest.param(DEDICATED_WORKER, id="no-SharedWorker"),
    # A browser that knows SharedWorker but not its `type` option would load the script as a
    # classic one, where `import` fails: the page must notice and not use it.
    pytest.param("""{ const Native = window.SharedWorker;
        window.SharedWorker = class extends Native { constructor(url, options) { super(url, options.name); } }; }""",
                 id="classic-SharedWorker-only"),
])
def test_without_module_shared_workers_each_widget_starts_its_own_python(context, page, site, browser_lacks):
    context.add_init_script(browser_lacks)
    since = len(site.requests)
    frames = open_host(page, site)
    for frame, (_, outputs) in zip(frames, VIEWS):
        wait_ready(frame, outputs)
    assert runtimes_started(site, since) == 3
    for frame in widget_frames(page):
        ask_python(frame)
        assert frame.evaluate("window.poolgradWidget.python()") == {"kind": "dedicated", "clients": 1, "fellBack": None}


def test_worker_dedicated_in_the_query_gives_that_widget_its_own_python(page, site):
    since = len(site.requests)
    hashes = [hash_ for hash_, _ in VIEWS]
    frames = open_host(page, site, hashes)
    for frame, (_, outputs) in zip(frames, VIEWS):
        wait_ready(frame, outputs)
    page.evaluate("""() => {
        const frame = document.createElement("iframe");
        frame.className = "widget-frame";
        frame.src = "index.html?embed=1&worker=dedicated#k=3&s=1";
        document.body.append(frame);
    }""")
    wait_ready(page.frame_locator("iframe.widget-frame").nth(3), ["8", "8", "9", "9"])
    assert runtimes_started(site, since) == 2
    kinds = [frame.evaluate("window.poolgradWidget.python().kind") for frame in widget_frames(page)]
    assert kinds == ["shared", "shared", "shared", "dedicated"]


def test_one_widgets_error_does_not_stop_the_others(page, site):
    frames = open_host(page, site)
    for frame, (_, outputs) in zip(frames, VIEWS):
        wait_ready(frame, outputs)
    first = widget_frames(page)[0]
    # 5 x 5 windows do not fit the 4 x 4 input: Python refuses the state, to this widget only.
    set_hash(first, f"#k=5&s=1&p=0&d=1&mode=avg&grad=0&x={AVG_EXAMPLE}")
    wait_ready(frames[0], state="error")
    expect(frames[0].locator("#status")).to_contain_text("kernel")
    frames[1].locator("#kernel").fill("2")
    frames[1].locator("#stride").fill("1")
    expect(frames[1].locator('[data-grid="output"]')).to_have_text(MAX_2X2_STRIDE_1)
    wait_ready(frames[1])
    wait_ready(frames[2], VIEWS[2][1])
    # The refused widget recovers as soon as its state is valid again.
    set_hash(first, VIEWS[0][0])
    wait_ready(frames[0], VIEWS[0][1])


def test_a_widget_added_later_is_ready_at_once_and_a_removed_one_is_forgotten(page, site):
    since = len(site.requests)
    frames = open_host(page, site, [VIEWS[0][0]])
    wait_ready(frames[0], VIEWS[0][1])
    for hash_ in (VIEWS[1][0], VIEWS[2][0]):
        page.evaluate("""hash => {
            const frame = document.createElement("iframe");
            frame.className = "widget-frame";
            frame.src = "index.html?embed=1&lesson=0" + hash;
            document.body.append(frame);
        }""", hash_)
    later = page.frame_locator("iframe.widget-frame")
    wait_ready(later.nth(1), VIEWS[1][1])
    wait_ready(later.nth(2), VIEWS[2][1])
    assert runtimes_started(site, since) == 1
    for frame in widget_frames(page)[1:]:
        # The shared Python was up: the first news the widget had was "ready", no boot step.
        assert frame.evaluate("window.poolgradWidget.timings.bootSteps") == []
        assert frame.evaluate("window.poolgradWidget.timings.bootMs") is not None
    ask_python(widget_frames(page)[0])
    assert widget_frames(page)[0].evaluate("window.poolgradWidget.python().clients") == 3
    # A removed widget leaves the shared worker: its port is not kept.
    page.evaluate("document.querySelectorAll('iframe.widget-frame')[1].remove()")
    ask_python(widget_frames(page)[0])
    assert widget_frames(page)[0].evaluate("window.poolgradWidget.python().clients") == 2


# What the shared worker of a copy of the site starts Python with: (as built, patched).
STARTS_PYTHON = "(progress) => bootPython(self.name, progress)"
# A request with stride 13 never returns (the dedicated worker's copy stays as it is): a
# runaway computation in one widget.
RUNAWAY = ("(progress) => bootPython(self.name, progress).then(({ run, startup }) => ({ startup, "
           f"run: (request) => {{ if ({REQUEST_STRIDE}(request) === 13) for (;;) {{}} return run(request); }} }}))")
# The stall timeout of these tests: short, but longer than the worker's "still starting"
# beat (10 s, python-runtime.js), which a loaded machine's slow step needs to keep going.
STALL_S = 25
# The shared worker's script is missing (None), or starts Python in a way that fails.
SHARED_FAILURES = {
    "boot-error": ("() => Promise.reject(new Error('no memory for a shared Python'))",
                   "Python could not start: no memory for a shared Python"),
    "stall": ("() => new Promise(() => {})", f"Python's start stalled: no progress for {STALL_S} s"),
    "script-missing": (None, "the Python worker failed to start"),
}


def site_with_shared_worker(dist, tmp_path, starts_python):
    """A copy of dist/ (links, but for the patched shared worker) whose shared worker starts
    Python with `starts_python` instead (None: there is no shared worker script)."""
    root = tmp_path / "site"
    for path in dist.rglob("*"):
        rel = path.relative_to(dist)
        if path.is_dir():
            (root / rel).mkdir(parents=True, exist_ok=True)
        elif path.name == "shared-worker.js":
            text = path.read_text(encoding="utf-8")
            assert STARTS_PYTHON in text
            if starts_python is not None:
                (root / rel).write_text(text.replace(STARTS_PYTHON, starts_python), encoding="utf-8")
        else:
            os.symlink(path.resolve(), root / rel)
    return root


@pytest.mark.parametrize("failure", list(SHARED_FAILURES))
def test_a_shared_python_that_fails_leaves_each_widget_its_own(context, page, dist, tmp_path, serve_directory, failure):
    starts_python, reason = SHARED_FAILURES[failure]
    site = serve_directory(site_with_shared_worker(dist, tmp_path, starts_python))
    context.add_init_script(f"window.poolgradBootStallMs = {STALL_S * 1000};")
    frames = open_host(page, site)
    for frame, (_, outputs) in zip(frames, VIEWS):
        wait_ready(frame, outputs)
    assert runtimes_started(site, 0) == 3
    for frame in widget_frames(page):
        python = frame.evaluate("window.poolgradWidget.python()")
        assert python["kind"] == "dedicated"
        # A frame that connects while Chromium tears down the worker whose script failed may
        # get no error event at all: it hears nothing and leaves at the stall timeout, at the
        # very first step (as CI saw once).
        unheard = failure == "script-missing" and python["fellBack"].startswith(
            f"Python's start stalled: no progress for {STALL_S} s at \"starting the Python worker\"")
        assert python["fellBack"].startswith(reason) or unheard, python


def test_a_shared_worker_that_failed_before_the_page_listened_leaves_the_widget_its_own(
        context, page, dist, tmp_path, serve_directory):
    # early.js starts the shared worker before the page's other modules load; its script's
    # 404 arrived before the bridge listened, and the bridge's replay of it threw ("reading
    # 'kind'"), leaving the widget loading for good.
    site = serve_directory(site_with_shared_worker(dist, tmp_path, None))
    held = []
    context.route("**/runtime/bridge.js", lambda route: held.append(route))
    page.goto(site.url + "index.html" + VIEWS[0][0], wait_until="commit")
    deadline = time.monotonic() + 30
    while not site.requests_for("shared-worker.js") and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert site.requests_for("shared-worker.js"), "the page did not start the shared worker"
    page.wait_for_timeout(500)  # its error event reaches the page, which keeps it for the bridge
    for route in held:
        route.continue_()
    wait_ready(page, VIEWS[0][1])
    python = page.evaluate("window.poolgradWidget.python()")
    assert python["kind"] == "dedicated" and python["fellBack"].startswith("the Python worker failed to start"), python


def test_a_runaway_request_moves_its_widget_to_its_own_python_and_the_others_follow_unharmed(
        context, page, dist, tmp_path, serve_directory):
    site = serve_directory(site_with_shared_worker(dist, tmp_path, RUNAWAY))
    context.add_init_script("window.poolgradRequestTimeoutMs = 3000;")
    frames = open_host(page, site)
    for frame, (_, outputs) in zip(frames, VIEWS):
        wait_ready(frame, outputs)
    first, second, third = widget_frames(page)
    set_hash(first, "#k=1&s=13")
    # Asked while the runaway holds the shared Python: nothing is wrong with this request.
    set_hash(second, f"#k=2&s=1&p=0&d=1&mode=max&grad=1&x={FIXTURE}")
    wait_ready(frames[0], state="error")
    expect(frames[0].locator("#status")).to_contain_text("did not answer within 3 s")
    # It waits the request timeout, then for a Python of its own to start.
    expect(frames[1].locator('[data-grid="output"]')).to_have_text(MAX_2X2_STRIDE_1, timeout=BOOT_TIMEOUT_MS)
    wait_ready(frames[1])
    assert "another widget's request" in second.evaluate("window.poolgradWidget.python().fellBack")
    # The idle widget moves when it next needs Python, and says nothing is wrong either.
    set_hash(third, f"#k=3&s=1&p=0&d=1&mode=max&grad=0&x={FIXTURE}")
    expect(frames[2].locator('[data-grid="output"]')).to_have_text(["8", "8", "9", "9"], timeout=BOOT_TIMEOUT_MS)
    wait_ready(frames[2])
    # The widget whose request ran away goes on with its own Python.
    set_hash(first, VIEWS[0][0])
    wait_ready(frames[0], VIEWS[0][1])
    assert [frame.evaluate("window.poolgradWidget.python().kind") for frame in (first, second, third)] == ["dedicated"] * 3


def test_a_widget_back_from_another_page_still_answers(page, site):
    """Leaving a page for another (the back/forward cache may keep it) leaves the shared
    worker; coming back, the widget connects again (or loads afresh) and answers."""
    page.goto(site.url + "index.html?embed=1" + VIEWS[1][0])
    wait_ready(page, VIEWS[1][1])
    page.goto(site.url + "index.html?embed=1&lesson=0" + VIEWS[2][0])  # another document
    wait_ready(page, VIEWS[2][1])
    page.go_back()
    wait_ready(page, VIEWS[1][1])
    page.locator("#kernel").fill("2")
    expect(page.locator('[data-grid="output"]')).to_have_text(MAX_2X2_STRIDE_1, timeout=BOOT_TIMEOUT_MS)
    wait_ready(page)
    assert page.evaluate("window.poolgradWidget.python().kind") == "shared"
