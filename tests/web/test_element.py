"""The <pool-grad> element (web/pool-grad.js, web/element.js): several elements on one
page, each driven by its attributes and properties, sharing one Python; its events, its
readable errors, its theming and its accessibility. Each output is compared with poolgrad
run natively. The host page is written by the test and served on the site's origin by a
route; Python runtimes are counted in the server's log, as tests/web/test_shared_python.py
does (Playwright does not see a shared worker's requests)."""

import pytest
from playwright.sync_api import expect

import poolgrad
from lesson_fixture import FIXTURE, FIXTURE_ROWS
from widget_driver import axe_violations, shown, wait_settled

pytestmark = pytest.mark.browser

HOST_PAGE = "three-elements.html"  # answered by a route, not a file of dist/
AVG_EXAMPLE_ROWS = [[12, 10, 9, 6], [11, 8, 13, 5], [2, 14, 15, 0], [4, 3, 7, 1]]
AVG_EXAMPLE = ";".join(",".join(str(v) for v in row) for row in AVG_EXAMPLE_ROWS)
# id, attributes, the input, poolgrad.trace()'s arguments for the same view.
ELEMENTS = [
    ("first", 'kernel="2" stride="2"', FIXTURE_ROWS, {"kernel_size": 2, "stride": 2}),
    ("second", 'kernel="3" stride="1" gradient selected="0,1"', FIXTURE_ROWS, {"kernel_size": 3, "stride": 1}),
    ("third", 'kernel="2" mode="avg" padding="1" count-include-pad="false" controls', AVG_EXAMPLE_ROWS,
     {"kernel_size": 2, "mode": "avg", "padding": 1, "count_include_pad": False}),
]
# Events each element raised, kept by the page: [id, type, detail].
RECORD_EVENTS = """
window.events = [];
for (const type of ["pool-grad:ready", "pool-grad:change", "pool-grad:select"]) {
  document.addEventListener(type, (event) => window.events.push([event.target.id, type, event.detail]));
}
"""


def host_html(elements, style=""):
    tags = "\n".join(
        f'<h2>The {name} view</h2><pool-grad id="{name}" aria-label="the {name} view" {attributes} '
        f'input="{";".join(",".join(str(v) for v in row) for row in rows)}"></pool-grad>'
        for name, attributes, rows, _ in elements)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>three elements</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; worker-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'">
<style>{style}</style>
<script type="module" src="pool-grad.js"></script></head>
<body><main><h1>Pooling</h1>
{tags}
</main></body></html>"""


def open_host(page, site, elements=ELEMENTS, style=""):
    html = host_html(elements, style)
    page.route(site.url + HOST_PAGE, lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    page.add_init_script(RECORD_EVENTS)
    page.goto(site.url + HOST_PAGE)
    return {name: page.locator(f"pool-grad#{name}") for name, *_ in elements}


def native_output(rows, arguments):
    trace = poolgrad.trace(rows, **arguments)
    return [shown(v) for row in trace["output"] for v in row], trace


def runtimes(site, since=0):
    return len(site.requests_for("pyodide.asm.wasm", since))


def test_three_elements_show_their_own_views_with_one_python(page, site):
    since = len(site.requests)
    elements = open_host(page, site)
    for name, _, rows, arguments in ELEMENTS:
        wait_settled(elements[name])
        expected, _ = native_output(rows, arguments)
        expect(elements[name].locator('[data-grid="output"]')).to_have_text(expected)
    # Each element's DOM contract sits in its open shadow root.
    assert page.evaluate("document.querySelector('#second').shadowRoot.mode") == "open"
    expect(elements["second"].locator('[data-grid="output"][aria-selected="true"]')).to_have_count(1)
    expect(elements["second"].locator('[data-grid="grad-input"]')).to_have_count(16)
    expect(elements["first"].locator('[data-grid="grad-input"]')).to_have_count(0)
    # Parts are off unless asked for: only the third shows its settings.
    expect(elements["third"].locator("#kernel")).to_be_visible()
    expect(elements["first"].locator("#kernel")).to_be_hidden()
    expect(elements["first"].locator("#exercise")).to_be_hidden()
    assert runtimes(site, since) == 1
    ready = page.evaluate("window.events.filter(([, type]) => type === 'pool-grad:ready').map(([id]) => id)")
    assert sorted(ready) == ["first", "second", "third"]


def test_an_attribute_change_and_a_property_change_redraw(page, site):
    elements = open_host(page, site)
    first = elements["first"]
    wait_settled(first)
    first.evaluate("(element) => { element.setAttribute('kernel', '3'); element.setAttribute('stride', '1'); }")
    expected, _ = native_output(FIXTURE_ROWS, {"kernel_size": 3, "stride": 1})
    expect(first.locator('[data-grid="output"]')).to_have_text(expected)
    # Properties reflect to the attributes, and redraw the same way.
    first.evaluate("(element) => { element.kernel = 2; element.stride = [1, 2]; element.input = [[1, 2, 3], [4, 5, 6]]; }")
    expected, _ = native_output([[1, 2, 3], [4, 5, 6]], {"kernel_size": 2, "stride": (1, 2)})
    expect(first.locator('[data-grid="output"]')).to_have_text(expected)
    assert first.get_attribute("stride") == "1,2" and first.get_attribute("input") == "1,2,3;4,5,6"
    wait_settled(first)
    change = page.evaluate("window.events.filter(([id, type]) => id === 'first' && type === 'pool-grad:change').at(-1)[2]")
    assert change["kernel_size"] == [2, 2] and change["stride"] == [1, 2] and change["x"] == [[1, 2, 3], [4, 5, 6]]
    # The other elements kept their views.
    expected, _ = native_output(FIXTURE_ROWS, {"kernel_size": 3, "stride": 1})
    expect(elements["second"].locator('[data-grid="output"]')).to_have_text(expected)


def test_a_click_raises_select_with_the_argmax_and_the_window(page, site):
    elements = open_host(page, site)
    second = elements["second"]
    wait_settled(second)
    second.locator('[data-grid="output"][data-row="1"][data-col="0"]').click()
    _, trace = native_output(FIXTURE_ROWS, {"kernel_size": 3, "stride": 1})
    row, col = trace["argmax"][1][0]
    expect(second.locator(f'[data-grid="input"][data-row="{row}"][data-col="{col}"]')).to_have_attribute("data-argmax", "true")
    select = page.evaluate("window.events.filter(([, type]) => type === 'pool-grad:select').at(-1)")
    window = [[r, c] for r in trace["window_rows"][1] for c in trace["window_cols"][0]]
    assert select == ["second", "pool-grad:select", {"row": 1, "col": 0, "argmax": [row, col], "window": window}]


def test_a_bad_attribute_says_what_is_wrong_and_the_last_good_view_stays(page, site):
    elements = open_host(page, site)
    first = elements["first"]
    wait_settled(first)
    expected, _ = native_output(FIXTURE_ROWS, {"kernel_size": 2, "stride": 2})
    first.evaluate("(element) => element.setAttribute('kernel', 'abc')")
    status = first.locator("#status")
    expect(status).to_have_attribute("data-state", "error")
    expect(status).to_contain_text('kernel (k) must be a whole number or a pair like 3,2; got "abc"')
    expect(first.locator('[data-grid="output"]')).to_have_text(expected)
    first.evaluate("(element) => { element.setAttribute('kernel', '2'); element.setAttribute('input', '1,2;3'); }")
    expect(status).to_contain_text("the input x is ragged: row 1 has 1 values, row 0 has 2")
    expect(first.locator('[data-grid="output"]')).to_have_text(expected)
    # Fixed, it recovers.
    first.evaluate("(element) => { element.setAttribute('kernel', '2'); element.setAttribute('input', '1,2;3,4'); }")
    wait_settled(first)
    expect(first.locator('[data-grid="output"]')).to_have_text(["4"])


def test_dark_mode_and_the_theming_variables(page, site):
    style = "#first { --cell-size: 4rem; --accent: rgb(1, 2, 3); --font: monospace; }"
    elements = open_host(page, site, style=style)
    first, second = elements["first"], elements["second"]
    wait_settled(first)
    cell = first.locator('[data-grid="output"][data-row="0"][data-col="0"]')
    assert cell.evaluate("(node) => node.getBoundingClientRect().height") == pytest.approx(64, abs=1)
    assert "monospace" in cell.evaluate("(node) => getComputedStyle(node).fontFamily")
    other = second.locator('[data-grid="output"][data-row="0"][data-col="0"]')
    assert other.evaluate("(node) => node.getBoundingClientRect().height") < 50
    panel_colour = "(node) => getComputedStyle(node.closest('.panel')).backgroundColor"
    light = other.evaluate(panel_colour)
    page.emulate_media(color_scheme="dark")
    expect(other).not_to_have_css("color", "rgb(0, 0, 0)")
    dark = other.evaluate(panel_colour)
    assert light == "rgb(255, 255, 255)" and dark == "rgb(27, 30, 37)"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing(page, site, scheme):
    page.emulate_media(color_scheme=scheme)
    elements = open_host(page, site)
    for element in elements.values():
        wait_settled(element)
    elements["second"].locator('[data-grid="output"][data-row="0"][data-col="0"]').click()
    assert axe_violations(page) == []


def test_the_demo_page_buttons_drive_its_elements(page, site):
    since = len(site.requests)
    page.goto(site.url + "element-demo.html")
    first = page.locator("pool-grad#first")
    wait_settled(first)
    expect(first.locator('[data-grid="output"]')).to_have_text(["4", "8", "9", "-2"])
    page.get_by_role("button", name="a 3 × 3 window with stride 1").click()
    expect(first.locator('[data-grid="output"]')).to_have_text(["8", "8", "9", "9"])
    second = page.locator("pool-grad#second")
    page.get_by_role("button", name="Switch to average pooling").click()
    wait_settled(second)
    expected, _ = native_output(FIXTURE_ROWS, {"kernel_size": 2, "mode": "avg"})
    expect(second.locator('[data-grid="output"]')).to_have_text(expected)
    assert runtimes(site, since) == 1



def test_the_family_attributes_output_size_norm_type_and_unpool(page, site):
    family = [
        ("global", 'mode="adaptive_avg" output-size="1"', FIXTURE_ROWS, {"mode": "adaptive_avg", "output_size": 1}),
        ("lp", 'norm-type="3" mode="lp" kernel="2"', FIXTURE_ROWS, {"mode": "lp", "norm_type": 3, "kernel_size": 2}),
        ("unpooled", 'kernel="3" stride="1" unpool gradient', FIXTURE_ROWS, {"kernel_size": 3, "stride": 1, "unpool": True}),
    ]
    elements = open_host(page, site, family)
    for name, _, rows, arguments in family:
        wait_settled(elements[name])
        expected, _ = native_output(rows, arguments)
        expect(elements[name].locator('[data-grid="output"]')).to_have_text(expected)
    _, trace = native_output(FIXTURE_ROWS, family[2][3])
    expect(elements["unpooled"].locator('[data-grid="unpooled"]')).to_have_text(
        [shown(v) for row in trace["unpooled"] for v in row])
    # An adaptive element takes a new output size; the property reflects to the attribute.
    elements["global"].evaluate("(element) => { element.outputSize = [2, 1]; }")
    expected, _ = native_output(FIXTURE_ROWS, {"mode": "adaptive_avg", "output_size": (2, 1)})
    expect(elements["global"].locator('[data-grid="output"]')).to_have_text(expected)
    assert elements["global"].get_attribute("output-size") == "2,1"
    wait_settled(elements["global"])
    state = elements["global"].evaluate("(element) => element.state")
    assert state["mode"] == "adaptive_avg" and state["output_size"] == [2, 1]
    # A value the rules refuse is said in the element's status line.
    elements["lp"].evaluate("(element) => { element.normType = 0; }")
    expect(elements["lp"].locator("#status")).to_contain_text("norm type (n) must not be 0")


# Counts the trace requests the page sends to its Python, whichever worker serves it.
COUNT_TRACE_REQUESTS = """
window.traceRequests = 0;
for (const target of [Worker.prototype, MessagePort.prototype]) {
  const post = target.postMessage;
  target.postMessage = function (message, ...rest) {
    if (message?.type === "trace") window.traceRequests += 1;
    return post.call(this, message, ...rest);
  };
}
"""


def test_an_element_moved_within_a_task_keeps_one_widget(page, site):
    """Issue 27, 4: each move (disconnect and connect in one task) leaked a whole widget;
    one change then gave an event and a request per move."""
    page.add_init_script(COUNT_TRACE_REQUESTS)
    elements = open_host(page, site, ELEMENTS[:1])
    first = elements["first"]
    wait_settled(first)
    first.evaluate("(element) => { const wrap = element.parentElement; for (let i = 0; i < 20; i++) wrap.append(element); }")
    wait_settled(first)
    before = page.evaluate("[window.traceRequests, window.events.length]")
    first.evaluate("(element) => { element.kernel = '3'; }")
    expected, _ = native_output(FIXTURE_ROWS, {"kernel_size": 3, "stride": 2})
    expect(first.locator('[data-grid="output"]')).to_have_text(expected)
    wait_settled(first)
    page.wait_for_timeout(500)
    changes = page.evaluate(f"window.events.slice({before[1]}).filter(([, type]) => type === 'pool-grad:change').length")
    assert (changes, page.evaluate("window.traceRequests") - before[0]) == (1, 1)
    # Taken out of the document for good, its widget goes.
    first.evaluate("(element) => { window.kept = element; element.remove(); }")
    page.wait_for_function("() => window.kept.shadowRoot.querySelector('.widget').childElementCount === 0")
    page.evaluate("document.querySelector('main').append(window.kept)")
    wait_settled(page.locator("pool-grad#first"))


@pytest.mark.parametrize("change, message", [
    ("element.padding = '5'", "padding=5 is too large for kernel_size=2"),
    ("element.gradient = true; element.gradOutput = '1,2,3'", "grad_output must have the output's shape"),
    ("element.input = '1,2,3'", "kernel_size=2 does not fit"),
])
def test_a_view_python_refuses_keeps_the_last_good_view(page, site, change, message):
    """Issue 27, 5: a value only Python refuses kept nothing: no output, a.trace null, the
    input drawn with the refused padding."""
    first = open_host(page, site, ELEMENTS[:1])["first"]
    wait_settled(first)
    expected, good = native_output(FIXTURE_ROWS, {"kernel_size": 2, "stride": 2})
    first.evaluate(f"(element) => {{ {change}; }}")
    status = first.locator("#status")
    expect(status).to_have_attribute("data-state", "error")
    expect(status).to_contain_text(f"Not a valid pooling setup: {message}")
    expect(status).to_contain_text("The grids show the last valid view.")
    expect(first.locator('[data-grid="output"]')).to_have_text(expected)
    expect(first.locator('[data-grid="input"]')).to_have_count(16)
    assert first.evaluate("(element) => element.trace.output") == good["output"]
    # Valid again, it recovers.
    first.evaluate("(element) => { element.padding = '1'; element.gradOutput = null; element.input = '1,2;3,4'; }")
    expected, _ = native_output([[1, 2], [3, 4]], {"kernel_size": 2, "stride": 2, "padding": 1})
    expect(first.locator('[data-grid="output"]')).to_have_text(expected)
    wait_settled(first)


def test_a_property_that_is_not_a_grid_is_refused_and_minus_zero_kept(page, site):
    """Issue 27, 6: a 3-D or ragged nested array was flattened into another grid, -0 lost
    its sign, and norm-type="__proto__" reached Python."""
    first = open_host(page, site, ELEMENTS[:1])["first"]
    wait_settled(first)
    expected, _ = native_output(FIXTURE_ROWS, {"kernel_size": 2, "stride": 2})
    status = first.locator("#status")
    for value in ["[[[1, 2]], [[3, 4]]]", "[[1, 2], 3]", "[[1, [2, 3]], [4, 5]]"]:
        first.evaluate(f"(element) => {{ element.input = {value}; }}")
        expect(status).to_have_attribute("data-state", "error")
        expect(status).to_contain_text("the input x must be a grid: rows of numbers")
        expect(first.locator('[data-grid="output"]')).to_have_text(expected)
        assert first.get_attribute("input") == FIXTURE
    first.evaluate("(element) => { element.input = [[-0, 1], [2, 3]]; }")
    assert first.get_attribute("input") == "-0,1;2,3"
    wait_settled(first)
    expect(first.locator('[data-grid="input"][data-row="0"][data-col="0"]')).to_have_text("-0")
    first.evaluate("(element) => { element.mode = 'lp'; element.normType = '__proto__'; }")
    expect(status).to_contain_text('norm type (n) must be a number such as 1, 2 or 3 (or Infinity), between -1000 and 1000; got "__proto__"')
