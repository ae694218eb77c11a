"""The widget in Firefox ESR, WebKitGTK (Safari's engine) and WPE WebKit 2.38 (the engine of
Safari 16): each scenario runs once per engine on one shared booted page (conftest.py).
Values are the lesson's reference numbers for its 4 x 4 fixture:

     1  2  5  6
     3  4  8  7
     0 -1 -3 -2
    -4  9 -6 -5
"""

import time
from collections import Counter

from lesson_fixture import FIXTURE


MAX_2X2 = [["4", "8"], ["9", "-2"]]  # 2 x 2, stride 2: from cells 5, 6, 13, 11
MAX_3X3_STRIDE_1 = [["8", "8"], ["9", "9"]]  # two outputs share a cell
MAX_2X2_STRIDE_1 = [["4", "8", "8"], ["4", "8", "8"], ["9", "9", "-2"]]
AVG_2X2 = [["2.5", "6.5"], ["1", "-4"]]


def test_boots_to_ready_with_every_file_from_the_site(booted):
    assert booted.settled() == "Ready: max pooling, 2 × 2 window, stride 2."
    assert booted.values("output") == MAX_2X2
    assert booted.values("input") == [row.split(",") for row in FIXTURE.split(";")]
    boot = booted.driver.execute_script("return window.__engine")
    assert boot["drawnAtReady"] is True, "#status said ready before the output grid was drawn"
    assert booted.problems() == []
    requests = booted.boot_requests
    # File names: the build publishes all but the entry pages in content-hashed folders.
    names = {str(r).split("?")[0].rpartition("/")[2] for r in requests}
    assert {"index.html", "pyodide.asm.wasm"} <= names
    assert names & {"shared-worker.js", "worker.js"}, "no Python worker script was fetched"
    assert "poolgrad-subset.zip" in names
    assert [(str(r), r.status) for r in requests if r.status not in (200, 304)] == []
    assert {r.host for r in requests} == {booted.site.host}
    foreign = booted.driver.execute_script(
        "return performance.getEntriesByType('resource').map((e) => e.name)"
        ".filter((url) => new URL(url).origin !== location.origin)")
    assert foreign == []


def test_page_errors_would_be_seen(widget):
    # The channel the other scenarios rely on for "no error" does report errors here.
    widget.driver.execute_script("""
        const script = document.createElement("script");
        script.src = "engine-check.js";  // served by the test server only
        document.head.append(script);
    """)
    seen = widget.wait("return window.__engine.problems.length >= 3 && window.__engine.problems",
                       what="three deliberate errors in the probe's record")
    assert "console.error: engine check: console" in seen
    assert [p for p in seen if p.startswith("uncaught error:") and "engine check: thrown" in p] != []
    assert "unhandled rejection: Error: engine check: rejected" in seen
    if widget.engine == "firefox":  # BiDi, which also hears the worker; its events arrive on their own
        heard = widget.driver.bidi_problems
        deadline = time.monotonic() + 10
        expected = ("engine check: console", "engine check: thrown", "engine check: rejected")
        while not all(any(text in p for p in heard) for text in expected):
            assert time.monotonic() < deadline, f"BiDi reported only {heard}"
            time.sleep(0.05)
    widget.forget_problems()


def test_downloads_each_file_once_and_only_what_it_uses(booted):
    # WPE WebKit 2.38 (Safari 16) has no DecompressionStream: the worker must not fetch the
    # start-up snapshot it cannot unpack, nor fetch the runtime a second time to start
    # without it.
    fetched = Counter(str(r).split("?")[0] for r in booted.boot_requests)
    assert {path: n for path, n in fetched.items() if n > 1} == {}
    if not booted.driver.execute_script("return typeof DecompressionStream === 'function'"):
        snapshots = [path for path in fetched if path.endswith(".bin.gz")]
        assert snapshots == [], "fetched a start-up snapshot, which needs DecompressionStream"


def test_tap_selects_output_marks_argmax_and_routes_gradient(widget):
    widget.set_hash(f"#k=2&s=2&p=0&d=1&mode=max&grad=1&x={FIXTURE}&g=1,2;3,4")
    widget.wait_values("grad-input", [["0", "0", "0", "0"], ["0", "1", "2", "0"], ["0", "0", "0", "4"], ["0", "3", "0", "0"]],
                "upstream 1, 2, 3, 4 lands on cells 5, 6, 13, 11")
    widget.click(widget.cell("output", 0, 1))
    widget.settled()
    assert widget.marked("aria-selected", grid="output") == [[0, 1]]
    assert widget.marked("data-argmax") == [[1, 2]]  # cell 6 holds the window's 8
    assert sorted(widget.marked("data-in-window")) == [[0, 2], [0, 3], [1, 2], [1, 3]]
    assert "sel=0,1" in widget.driver.execute_script("return location.hash")


def test_typed_kernel_and_stride_change_the_output(widget):
    widget.type_into("kernel", "3")
    widget.type_into("stride", "1")
    widget.wait_values("output", MAX_3X3_STRIDE_1, "3 x 3, stride 1")
    widget.click(widget.cell("output", 1, 1))
    widget.settled()
    assert widget.marked("data-argmax") == [[3, 1]]  # the 9 both bottom windows share
    widget.type_into("kernel", "2")
    widget.wait_values("output", MAX_2X2_STRIDE_1, "2 x 2, stride 1")
    assert widget.settled() == "Ready: max pooling, 2 × 2 window, stride 1."
    assert widget.driver.execute_script("return location.hash").startswith("#k=2&s=1&")


def test_kernel_set_with_only_a_change_event(widget):
    # What a WebDriver clear()-and-type, autofill or a mobile keyboard's "done" may send.
    widget.driver.execute_script("""
        const kernel = document.getElementById("kernel");
        kernel.value = "3";
        kernel.dispatchEvent(new Event("change", { bubbles: true }));
    """)
    widget.wait_values("output", [["8"]], "3 x 3, stride 2: one window")


def test_switch_to_average(widget):
    from selenium.webdriver.support.select import Select

    Select(widget.control("mode")).select_by_value("avg")
    widget.wait_values("output", AVG_2X2, "average of each 2 x 2 block")
    assert widget.settled() == "Ready: average pooling, 2 × 2 window, stride 2."
    assert widget.marked("data-argmax") == []
    widget.click(widget.control("mode-max"))
    widget.wait_values("output", MAX_2X2, "back to max pooling")


def test_a_preset_loads_when_chosen_and_on_an_arrow_key(widget):
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.select import Select

    widget.set_hash(f"#k=2&s=2&p=0&d=1&mode=max&grad=0&x={FIXTURE}")
    widget.wait_values("output", MAX_2X2, "the fixture")
    Select(widget.control("preset")).select_by_value("distinct")
    widget.wait_values("output", [["6", "8"], ["14", "16"]], "the distinct preset, chosen")
    # A keyboard's arrow on the closed list moves to the next preset and loads it at once.
    widget.driver.execute_script("arguments[0].focus()", widget.control("preset"))
    widget.control("preset").send_keys(Keys.ARROW_DOWN)
    widget.wait_values("input", [["3", "3", "1", "2"], ["3", "1", "2", "2"], ["0", "5", "4", "4"], ["5", "5", "4", "1"]],
                "the ties preset, one arrow key down")


def test_malformed_hash_shows_an_error_and_recovers(widget):
    widget.set_hash("#k=2&s=2&x=1,2;3")
    message = widget.settled(state="error")
    assert message.startswith("The link's state is not valid:"), message
    assert "row" in message.lower(), message
    widget.set_hash(f"#k=3&s=1&mode=max&x={FIXTURE}")
    widget.wait_values("output", MAX_3X3_STRIDE_1, "valid again")
    assert widget.settled() == "Ready: max pooling, 3 × 3 window, stride 1."


def test_no_horizontal_scroll_at_360_px(widget):
    # A 360 px wide frame: Firefox cannot make its window that narrow, a frame is as wide
    # as asked, and its media queries see exactly its width.
    driver = widget.driver
    driver.execute_script("""
        const frame = document.createElement("iframe");
        frame.id = "narrow-frame";
        frame.style.cssText = "width: 360px; height: 800px; border: 0";
        frame.src = `index.html#k=2&s=1&mode=max&grad=1&sel=1,1&x=${arguments[0]}`;
        document.body.append(frame);
    """, FIXTURE)
    # Into the frame only once it holds the widget's document: switched in while it still
    # showed about:blank, an old WebKit's driver could keep talking to that blank document.
    widget.wait("""const frame = document.getElementById("narrow-frame");
        const doc = frame && frame.contentDocument;
        return Boolean(doc && doc.readyState === "complete" && frame.contentWindow.location.pathname.endsWith("/index.html"));""",
                what="the 360 px frame to load the widget's page")
    try:
        driver.switch_to.frame(driver.find_element("id", "narrow-frame"))
        widget.settled()  # the frame boots its own worker: allow a boot's time
        widget.wait_values("output", MAX_2X2_STRIDE_1, "2 x 2, stride 1 with the gradient, 360 px wide")
        # clientWidth leaves out a classic vertical scroll bar, where the engine draws one.
        inner, page, room = driver.execute_script(
            "return [innerWidth, document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert inner == 360
        assert page <= room, f"the page is {page} px wide in a {room} px wide viewport"
        # The settings start folded, so both grids begin on the first screen (800 px).
        folded, tops = driver.execute_script("""return [
            getComputedStyle(document.getElementById("controls-body")).display === "none",
            ["input", "output"].map((grid) => document.querySelector(`[data-grid="${grid}"]`).getBoundingClientRect().top)]""")
        assert folded and all(top < 800 for top in tops), (folded, tops)
    finally:
        driver.switch_to.default_content()
    assert widget.problems() == []
    driver.execute_script("document.getElementById('narrow-frame').remove()")


def test_both_embedded_widgets_reach_ready(widget):
    driver = widget.driver
    widget.open("embed-demo.html")
    expected = [
        ("Ready: average pooling, 2 × 2 window, stride 2.", [["10.25", "8.25"], ["5.75", "5.75"]], []),
        ("Ready: max pooling, 3 × 3 window, stride 1.", MAX_3X3_STRIDE_1, [[1, 2]]),
    ]
    pythons = []
    try:
        for index, (status, values, argmax) in enumerate(expected):
            driver.switch_to.default_content()
            widget.wait("return document.querySelectorAll('iframe.widget-frame').length === 2",
                        what="the demo's two frames")
            driver.switch_to.frame(driver.find_elements("css selector", "iframe.widget-frame")[index])
            assert widget.settled() == status
            assert widget.values("output") == values
            assert widget.marked("data-argmax") == argmax
        # Both are ready: each asks once more, so its answer says how many widgets its Python
        # serves now.
        for index in range(len(expected)):
            driver.switch_to.default_content()
            driver.switch_to.frame(driver.find_elements("css selector", "iframe.widget-frame")[index])
            pythons.append(driver.execute_async_script("""
                const done = arguments[arguments.length - 1];
                window.poolgradWidget.trace({x: [[1, 2], [3, 4]], kernel_size: [2, 2]}).then(() => {
                    const python = window.poolgradWidget.python();
                    done([python.kind, python.fellBack, typeof SharedWorker === "function", python.clients]);
                });"""))
    finally:
        driver.switch_to.default_content()
    # One Python for both where the engine has module shared workers, else one each; never
    # a fall back from a shared worker that failed.
    # (The runtime's files are in the HTTP cache since the engine's first page: the server's
    # log cannot count runtimes here; the number of widgets a Python serves can.)
    [(kind, fell_back, has_shared_worker)] = {tuple(python[:3]) for python in pythons}
    assert fell_back is None
    assert kind == ("shared" if has_shared_worker else "dedicated")
    clients = [python[3] for python in pythons]
    # Shared: the two frames; index.html, the page before, has left it.
    assert clients == ([2, 2] if kind == "shared" else [1, 1]), clients
    heights = driver.execute_script(
        "return [...document.querySelectorAll('iframe.widget-frame')].map((f) => f.getBoundingClientRect().height)")
    assert all(height > 300 for height in heights), f"frames not sized from the widget's height: {heights}"
    assert widget.problems() == []
    assert [(str(r), r.status) for r in widget.requests_since_open() if r.status not in (200, 304)] == []


def run_exercise(widget, exercise, code):
    """Type `code` for `exercise` into the exercise panel, press Run, return (state, text)."""
    widget.driver.execute_script("""
        const [exercise, code] = arguments;
        const pick = document.getElementById("exercise-pick");
        if (pick.value !== exercise) {
            pick.value = exercise;
            pick.dispatchEvent(new Event("change"));
        }
        document.getElementById("exercise-code").value = code;
        document.getElementById("exercise-run").click();
    """, exercise, code)
    return widget.wait("""
        const result = document.getElementById("exercise-result");
        const state = result.dataset.state;
        return state && state !== "running" ? [state, result.textContent] : null;
    """, timeout=widget.BOOT_TIMEOUT_S, what="the exercise's result")


def test_exercise_checks_learner_code_in_its_own_locked_python(widget):
    from exercise_solutions import BACKWARD, FORWARD

    assert run_exercise(widget, "forward", FORWARD["numpy"])[0] == "pass"
    state, text = run_exercise(widget, "backward", BACKWARD["last_max_wins"])
    assert state == "fail" and "fails on ties: the first maximum in reading order wins" in text
    widget.wait_values("grad-input", [["1", "0"], ["0", "0"]], "the ties case")
    assert widget.marked("data-mismatch", grid="grad-input") == [[0, 0], [1, 1]]
    probe = ("import js\n"
             "found = [name for name in ['fetch', 'indexedDB', 'caches', 'XMLHttpRequest', 'postMessage', 'Worker']\n"
             "         if hasattr(js, name)]\n"
             "raise RuntimeError('reachable: ' + (', '.join(found) or 'nothing'))\n")
    state, text = run_exercise(widget, "forward", probe)
    assert state == "error" and text.endswith("reachable: nothing."), text


# What a <pool-grad> on the page shows (its DOM contract is in its open shadow root): its
# status, whether its output is busy, and the output's cell texts; null before it is drawn.
ELEMENT_SHOWS = """
const root = document.getElementById(arguments[0])?.shadowRoot;
const status = root?.getElementById("status");
const output = root?.getElementById("output-grid");
if (!status || !output) return null;
return {state: status.dataset.state, busy: output.getAttribute("aria-busy"),
        values: [...root.querySelectorAll('[data-grid="output"]')].map((cell) => cell.textContent)};
"""


def wait_element_output(widget, name, expected):
    """Wait until <pool-grad id=name> is ready with its output drawn and its cells reading
    `expected`. Both sides are compared as JavaScript arrays: a JSON text made in Python
    (", " between items) never equals JSON.stringify's."""
    try:
        widget.wait(f"""const shows = (function () {{ {ELEMENT_SHOWS} }}).apply(null, arguments);
            return Boolean(shows) && shows.state === "ready" && shows.busy === "false"
                && JSON.stringify(shows.values) === JSON.stringify(arguments[1]);""", name, expected,
                    timeout=120, what=f"<pool-grad id={name}> to show {expected}")
    except AssertionError as timed_out:
        shows = widget.driver.execute_script(f"return (function () {{ {ELEMENT_SHOWS} }}).apply(null, arguments);", name)
        raise AssertionError(f"{timed_out}; it shows {shows}, problems {widget.problems()}") from None


def test_the_element_demo_drives_its_elements_by_attribute_and_property(widget):
    driver = widget.driver
    widget.open("element-demo.html")
    driver.execute_script(
        "window.selects = []; document.addEventListener('pool-grad:select', (event) => window.selects.push(event.detail));")
    flat = [v for row in MAX_2X2 for v in row]
    wait_element_output(widget, "first", flat)
    wait_element_output(widget, "second", flat)
    driver.execute_script("const e = document.getElementById('first'); e.setAttribute('kernel', '3'); e.setAttribute('stride', '1');")
    wait_element_output(widget, "first", [v for row in MAX_3X3_STRIDE_1 for v in row])
    driver.execute_script("const e = document.getElementById('first'); e.kernel = 2; e.stride = 2;")
    wait_element_output(widget, "first", flat)
    # A tap on output (1,0) of the second element: its maximum 9 is input cell (3,1).
    driver.execute_script("""document.getElementById('second').shadowRoot
        .querySelector('[data-grid="output"][data-row="1"][data-col="0"]').click();""")
    widget.wait("return window.selects.length > 0", what="pool-grad:select")
    assert driver.execute_script("return window.selects[0]") == {
        "row": 1, "col": 0, "argmax": [3, 1], "window": [[2, 0], [2, 1], [3, 0], [3, 1]]}
    assert driver.execute_script("""return document.getElementById('second').shadowRoot
        .querySelector('[data-grid="input"][data-row="3"][data-col="1"]').getAttribute('data-argmax')""") == "true"
    assert widget.problems() == []


def test_no_attack_reaches_another_site_from_a_host_that_sends_no_headers(widget, plain_engine_site):
    from urllib.request import urlopen

    from sandbox_attacks import KEEP_WORKERS_ALIVE, Listener

    listener = Listener()
    plain = type(widget)(widget.driver, plain_engine_site, widget.engine)
    try:
        with urlopen(plain_engine_site.url + "index.html", timeout=10) as response:
            assert response.headers.get("Cache-Control") is None
        plain.open()
        plain.settled()
        plain.driver.execute_script(f"({KEEP_WORKERS_ALIVE})()")
        # Every attack in one Run (a Python start per Run costs seconds in WebKit under load);
        # tests/web/test_exercise.py gives each its own Run in Chromium.
        state, text = run_exercise(plain, "forward", listener.every_attack_then_reachable())
        time.sleep(2.5)
        assert listener.requests == [], (listener.requests, text)
        assert state == "error" and text.endswith("beyond the allowed: nothing."), text
        from exercise_solutions import FORWARD

        assert run_exercise(plain, "forward", FORWARD["numpy"])[0] == "pass"
    finally:
        listener.stop()
        widget.open()
        widget.settled()
