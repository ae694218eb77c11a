"""The exercise panel (#exercise): the learner's code runs in a Python of its own, is checked
by poolgrad.exercise_check, and the first failing case is loaded into the widget's grids
with its wrong cells marked (data-mismatch, "expected … got …" in their names).

The right and wrong answers are tests/exercise_solutions.py's, the same texts the native
checker tests run; here they are typed into the page with Playwright's fill."""

import re

from playwright.sync_api import expect

from exercise_solutions import BACKWARD, FORWARD
from widget_driver import axe_violations


# The first run starts the exercise worker's Python; under load that takes a while.
FIRST_RUN_MS = 120_000
RUN_MS = 30_000


def run(page, code, exercise="forward", state=None):
    """Pick `exercise`, type `code`, press Run; wait for the result; return its text."""
    if page.locator("#exercise-pick").input_value() != exercise:
        page.select_option("#exercise-pick", exercise)
    page.fill("#exercise-code", code)
    page.click("#exercise-run")
    result = page.locator("#exercise-result")
    expect(result).not_to_have_attribute("data-state", "running", timeout=FIRST_RUN_MS)
    if state:
        expect(result).to_have_attribute("data-state", state)
    return result.inner_text()


def mismatches(page):
    """{(grid, row, col): accessible name} of every cell marked data-mismatch."""
    cells = page.evaluate("""() => [...document.querySelectorAll('[data-mismatch]')]
        .map((cell) => [cell.dataset.grid, Number(cell.dataset.row), Number(cell.dataset.col),
                        cell.getAttribute('data-mismatch'), cell.getAttribute('aria-label')])""")
    assert all(mark == "true" for *_, mark, _ in cells)
    return {(grid, row, col): name for grid, row, col, _, name in cells}


def workers(page):
    return [worker.url.rsplit("/", 1)[-1] for worker in page.workers]


def test_correct_solutions_pass_and_the_worker_starts_on_first_use(widget):
    page = widget.page
    widget.open()
    assert "exercise-worker.js" not in workers(page)
    text = run(page, FORWARD["numpy"], state="pass")
    assert text.startswith("All 13 cases pass: the lesson's example, negatives,"), text
    assert workers(page).count("exercise-worker.js") == 1
    # The widget's own Python (the page's shared worker) is another, and still serves it.
    assert "worker.js" not in workers(page)
    assert page.evaluate("window.poolgradWidget.python()")["kind"] == "shared"
    assert "All 13 cases pass" in run(page, FORWARD["loops"], state="pass")
    assert "All 13 cases pass" in run(page, BACKWARD["loops"], "backward", state="pass")
    # A pass loads nothing: the view is the one the learner had.
    assert mismatches(page) == {}


def test_forward_mistakes_load_the_case_and_mark_wrong_output_cells(booted):
    page = booted.page
    booted.open()
    text = run(page, FORWARD["off_by_one"], state="fail")
    assert "Case 1 of 13 fails on the lesson's example." in text
    assert "output (0,0) expected 6, got 1" in text
    booted.wait_settled()
    # The case is in the grids through the hash: its input, a 2 x 2 window, stride 2.
    assert booted.hash().startswith("#k=2&s=2&p=0&d=1&mode=max&grad=0&sel=0,0&x=1,2,3,4;5,6,7,8;")
    assert booted.values("output") == [["6", "8"], ["14", "16"]]
    marked = mismatches(page)
    assert set(marked) == {("output", 0, 0), ("output", 0, 1), ("output", 1, 0), ("output", 1, 1)}
    assert marked[("output", 0, 1)] == "Output row 0, col 1: 8; wrong in your code: expected 8, got 3"
    # The first wrong output is selected, so its window shows in the input grid.
    assert booted.marked("data-argmax") == [[1, 1]]

    text = run(page, FORWARD["keeps_leftover"], state="fail")
    assert "fails on sizes that do not divide: leftover rows and columns are dropped" in text
    assert "The output should be 1 x 2; yours is 2 x 2." in text
    booted.wait_settled()
    assert re.match(r"#k=3&s=3&p=0&d=1&mode=max&grad=0&x=0,0\.5,1,1\.5,2,2\.5;", booted.hash())
    assert booted.values("output") == [["7", "8.5"]]
    assert mismatches(page) == {}

    text = run(page, FORWARD["float_output"], state="fail")
    assert "fails on dtype: the output keeps the input's dtype" in text
    assert "The input is int64, so the output should be int64; yours is float64." in text

    text = run(page, FORWARD["starts_from_zero"], state="fail")
    assert "fails on negatives" in text
    booted.wait_settled()
    assert mismatches(page) == {
        ("output", 0, 0): "Output row 0, col 0: -1; wrong in your code: expected -1, got 0; selected",
        ("output", 0, 1): "Output row 0, col 1: -3; wrong in your code: expected -3, got 0",
    }


def test_backward_mistakes_mark_wrong_input_gradient_cells(booted):
    page = booted.page
    booted.open()
    text = run(page, BACKWARD["last_max_wins"], "backward", state="fail")
    assert "Case 6 of 13 fails on ties: the first maximum in reading order wins." in text
    booted.wait_settled()
    assert booted.hash() == "#k=2&s=2&p=0&d=1&mode=max&grad=1&x=5,5;5,5&g=1"
    expect(page.locator("#gradient")).to_be_checked()
    assert booted.values("grad-input") == [["1", "0"], ["0", "0"]]
    marked = mismatches(page)
    assert set(marked) == {("grad-input", 0, 0), ("grad-input", 1, 1)}
    # The name also says which outputs the cell serves (output (0,0) is selected at first).
    assert "; wrong in your code: expected 1, got 0" in marked[("grad-input", 0, 0)]
    assert "; wrong in your code: expected 0, got 1" in marked[("grad-input", 1, 1)]

    text = run(page, BACKWARD["no_accumulation"], "backward", state="fail")
    assert "fails on overlap: where windows overlap (stride < pool_size), gradients that reach the same cell add up" in text
    booted.wait_settled()
    assert booted.hash() == "#k=2&s=1&p=0&d=1&mode=max&grad=1&x=1,5,2;3,4,1&g=1,2"
    assert booted.values("grad-input") == [["0", "3", "0"], ["0", "0", "0"]]
    assert "; wrong in your code: expected 3, got 2;" in mismatches(page)[("grad-input", 0, 1)]

    text = run(page, BACKWARD["no_rounding"], "backward", state="fail")
    assert "fails on rounding: results are rounded to 4 decimals" in text
    booted.wait_settled()
    # Four decimals would show the same number twice, so the names give every digit.
    assert "; wrong in your code: expected 0.6667, got 0.6666666666666666" in mismatches(page)[("grad-input", 0, 2)]


def test_marks_clear_on_a_state_change_and_on_the_next_run(booted):
    page = booted.page
    booted.open()
    run(page, BACKWARD["last_max_wins"], "backward", state="fail")
    booted.wait_settled()
    assert len(mismatches(page)) == 2
    # Selecting an output keeps them (the grids still show the case) ...
    booted.cell("output", 0, 0).click()
    assert len(mismatches(page)) == 2
    # ... any other change drops them.
    page.uncheck("#gradient")
    page.check("#gradient")
    booted.wait_settled()
    assert mismatches(page) == {}
    run(page, BACKWARD["last_max_wins"], "backward", state="fail")
    booted.wait_settled()
    assert len(mismatches(page)) == 2
    # Read in the same task as the click: a warm run answers within milliseconds.
    left = page.evaluate("""() => {
        document.querySelector('#exercise-run').click();
        return document.querySelectorAll('[data-mismatch]').length;
    }""")
    assert left == 0
    expect(page.locator("#exercise-result")).to_have_attribute("data-state", "fail", timeout=RUN_MS)


def test_an_endless_loop_times_out_and_the_widget_keeps_answering(booted):
    page = booted.page
    booted.open()
    run(page, FORWARD["numpy"], state="pass")
    text = run(page, FORWARD["endless"], state="timeout")
    assert "did not finish within 5 s" in text
    # The widget's own worker answers at once: a tap, and a change that needs Python.
    booted.cell("output", 1, 0).click()
    expect(booted.cell("output", 1, 0)).to_have_attribute("aria-selected", "true")
    assert booted.marked("data-argmax") == [[3, 1]]
    page.fill("#kernel", "3")
    page.fill("#stride", "1")
    page.press("#stride", "Enter")
    booted.wait_settled()
    assert booted.values("output") == [["8", "8"], ["9", "9"]]
    # A fresh exercise worker took over.
    assert "All 13 cases pass" in run(page, FORWARD["numpy"], state="pass")


def test_syntax_errors_and_exceptions_name_the_line(booted):
    page = booted.page
    booted.open()
    text = run(page, "import numpy as np\n\ndef max_pool2d(image, pool_size=2)\n    return image\n", state="error")
    assert text.endswith("SyntaxError on line 3 of your code: expected ':'.")
    text = run(page, BACKWARD["index_error"], "backward", state="error")
    assert "Case 1 of 13 (the lesson's example): IndexError on line 5 of your code: list index out of range." in text
    # The starter stub says what to do.
    page.click("#exercise-reset")
    text = run(page, page.locator("#exercise-code").input_value(), "backward", state="error")
    assert "your function still raises NotImplementedError" in text
    text = run(page, "import sys\nsys.exit(3)\n", "forward", state="error")
    assert "Running your code raised SystemExit on line 2 of your code: 3." in text


def test_learner_code_cannot_reach_storage_network_or_the_page(booted):
    page = booted.page
    booted.open()
    storage = """() => Object.fromEntries(Object.entries(localStorage).filter(([key]) => !key.endsWith(':exercise:forward')))"""
    before = page.evaluate(storage)
    for name in ("indexedDB", "fetch", "caches", "XMLHttpRequest", "importScripts", "postMessage", "Worker"):
        text = run(page, f"import js\njs.{name}\n", state="error")
        assert "AttributeError on line 2 of your code" in text and name in text, text
    probe = (
        "import js, pyodide.http\n"
        "names = ['fetch', 'indexedDB', 'caches', 'XMLHttpRequest', 'WebSocket', 'BroadcastChannel',\n"
        "         'importScripts', 'Worker', 'SharedWorker', 'postMessage', 'EventSource', 'localStorage', 'document']\n"
        "found = [name for name in names if hasattr(js, name)]\n"
        "found += ['navigator.' + name for name in ['storage', 'locks', 'serviceWorker'] if hasattr(js.navigator, name)]\n"
        "found += [name for name in ['_jsfetch', 'XMLHttpRequest'] if hasattr(pyodide.http, name)]\n"
        "raise RuntimeError('reachable: ' + (', '.join(found) or 'nothing'))\n"
    )
    text = run(page, probe, state="error")
    assert "RuntimeError on line 7 of your code: reachable: nothing." in text
    # The worker's own policy (the site's _headers) refuses JavaScript made from strings.
    for make_js in ("js.eval('self.name')", "js.Function.new('return 1')"):
        text = run(page, f"import js\n{make_js}\n", state="error")
        assert "JsException on line 2 of your code: EvalError:" in text, text
    # Nothing the code tried reached the page's storage.
    assert page.evaluate("async () => (await indexedDB.databases()).length") == 0
    assert page.evaluate(storage) == before


def test_the_exercise_worker_is_served_with_its_own_policy(site, published):
    from urllib.request import urlopen

    with urlopen(site.url + published("exercise-worker.js"), timeout=10) as response:
        policy = response.headers.get("Content-Security-Policy")
    assert policy == "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; object-src 'none'; base-uri 'none'"
    with urlopen(site.url + published("worker.js"), timeout=10) as response:
        assert response.headers.get("Content-Security-Policy") is None


def test_code_is_kept_per_exercise_across_reloads_and_reset_restores_the_starter(widget):
    page = widget.page
    widget.open()
    starter = page.locator("#exercise-code").input_value()
    assert "def max_pool2d(image, pool_size=2):" in starter and "raise NotImplementedError" in starter
    page.fill("#exercise-code", FORWARD["numpy"])
    page.select_option("#exercise-pick", "backward")
    backward_starter = page.locator("#exercise-code").input_value()
    assert backward_starter.startswith("def max_pool2d_backward(input_map, grad_output, pool_size=2, stride=2):")
    page.fill("#exercise-code", BACKWARD["loops"])
    page.reload()
    widget.wait_settled()
    assert page.locator("#exercise-pick").input_value() == "backward"
    assert page.locator("#exercise-code").input_value() == BACKWARD["loops"]
    page.select_option("#exercise-pick", "forward")
    assert page.locator("#exercise-code").input_value() == FORWARD["numpy"]
    keys = page.evaluate("() => Object.keys(localStorage).sort()")
    assert keys == ["poolgrad:/index.html:exercise:backward", "poolgrad:/index.html:exercise:forward",
                    "poolgrad:/index.html:exercise:pick"]
    page.click("#exercise-reset")
    assert page.locator("#exercise-code").input_value() == starter
    page.reload()
    widget.wait_settled()
    page.select_option("#exercise-pick", "forward")
    assert page.locator("#exercise-code").input_value() == starter
    # Nothing was run: the exercise worker never started.
    assert "exercise-worker.js" not in workers(page)
    # ?lesson=0 leaves the panel out with the other lesson panels.
    widget.open(path="index.html?lesson=0")
    expect(page.locator("#exercise")).to_be_hidden()


def test_tab_indents_and_escape_then_tab_leaves_the_editor(booted):
    page = booted.page
    booted.open()
    page.fill("#exercise-code", "def f():")
    page.focus("#exercise-code")
    page.keyboard.press("End")
    page.keyboard.press("Enter")
    page.keyboard.type("return 1")
    assert page.locator("#exercise-code").input_value() == "def f():\n    return 1"
    page.keyboard.press("Home")
    page.keyboard.press("Tab")
    assert page.locator("#exercise-code").input_value() == "def f():\n        return 1"
    page.keyboard.press("Shift+Tab")
    assert page.locator("#exercise-code").input_value() == "def f():\n    return 1"
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "exercise-run"
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.id") == "exercise-code"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "exercise-code"


def test_axe_finds_nothing_in_the_panel(booted):
    page = booted.page
    booted.open()
    assert axe_violations(page) == [], "idle"
    run(page, BACKWARD["last_max_wins"], "backward", state="fail")
    booted.wait_settled()
    assert axe_violations(page) == [], "fail, marks on the grids"
    run(page, FORWARD["off_by_one"], state="fail")
    booted.wait_settled()
    assert axe_violations(page) == [], "fail, forward"
    run(page, FORWARD["numpy"], state="pass")
    assert axe_violations(page) == [], "pass"
