"""The exercise panel (#exercise): the learner's code runs in a Python of its own, is checked
by poolgrad.exercise_check, and the first failing case is shown with its wrong cells marked
(data-mismatch, "expected … got …" in their names): a pooling exercise's loaded into the
widget's grids, a chain exercise's (conv2d_backward, mse_loss_backward) in the panel's own.

The right and wrong answers are tests/exercise_solutions.py's, the same texts the native
checker tests run; here they are typed into the page with Playwright's fill."""

import re

from playwright.sync_api import expect

from exercise_solutions import BACKWARD, CONV, FORWARD, MSE
from sandbox_attacks import ATTACKS, KEEP_WORKERS_ALIVE, REACHABLE, Listener
from widget_driver import BOOT_TIMEOUT_MS, Widget, axe_violations


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


def panel_values(page, grid):
    """The texts of the exercise panel's grid `grid` (data-grid), as a list of rows."""
    return page.evaluate("""(grid) => [...document.querySelectorAll(`#exercise-case table[data-grid-name="${grid}"] tr`)]
        .map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)).filter((row) => row.length)""", grid)


def test_chain_exercises_pass_and_a_wrong_answer_marks_the_panel_s_own_grids(booted):
    page = booted.page
    booted.open()
    assert run(page, CONV["scatter"], "conv2d_backward", state="pass").startswith(
        "All 8 cases pass: the lesson's example, the flipped filter, a 1 x 1 filter,")
    expect(page.locator("#exercise-case")).to_be_hidden()
    view = booted.hash()

    text = run(page, CONV["unweighted"], "conv2d_backward", state="fail")
    assert text.startswith("Case 1 of 8 fails on the lesson's example. 9 cells differ from the reference (9 of dL/dW)")
    assert "The case: x 5 × 5, w 3 × 3, grad_output 3 × 3. Wrong: dL/dW (0,0) expected 171, got 29;" in text
    expect(page.locator("#exercise-case")).to_be_visible()
    # The case's arguments and the right answer: the lesson's conv example, as the math issue recorded it.
    assert panel_values(page, "exercise-x")[0] == ["3", "0", "1", "2", "7"]
    assert panel_values(page, "exercise-grad-output") == [["1", "2", "3"], ["4", "5", "6"], ["7", "8", "9"]]
    assert panel_values(page, "exercise-grad-weight") == [["171", "232", "184"], ["125", "156", "166"], ["98", "127", "147"]]
    assert panel_values(page, "exercise-grad-input")[2] == ["12", "15", "6", "-15", "-18"]
    marked = mismatches(page)
    assert set(marked) == {("exercise-grad-weight", r, c) for r in range(3) for c in range(3)}
    assert marked[("exercise-grad-weight", 0, 1)] == (
        "dL/dW, the right answer row 0, col 1: 232; wrong in your code: expected 232, got 39")
    # The widget's own view is untouched: a chain case is a bare function call.
    assert booted.hash() == view
    # The grid's cells take the arrow keys, one tab stop per grid.
    page.focus('#exercise-case [data-grid="exercise-grad-weight"][data-row="0"][data-col="0"]')
    page.keyboard.press("ArrowDown")
    page.keyboard.press("End")
    assert page.evaluate("[document.activeElement.dataset.grid, document.activeElement.dataset.row, "
                         "document.activeElement.dataset.col]") == ["exercise-grad-weight", "1", "2"]
    assert axe_violations(page) == [], "a chain case in the panel"

    text = run(page, CONV["columns_flipped"], "conv2d_backward", state="fail")
    assert "Case 2 of 8 fails on the flipped filter" in text
    assert panel_values(page, "exercise-w") == [["1", "2"], ["3", "4"]]
    assert {grid for grid, _, _ in mismatches(page)} == {"exercise-grad-input"}
    assert mismatches(page)[("exercise-grad-input", 0, 0)].endswith("wrong in your code: expected 1, got 3")

    text = run(page, MSE["square_only"], "mse_loss_backward", state="fail")
    assert text.startswith("Case 2 of 8 fails on the mean: divide by n, the number of cells (rows × columns).")
    assert panel_values(page, "exercise-prediction") == [["1", "2", "3"], ["4", "5", "6"]]
    assert panel_values(page, "exercise-grad-prediction") == [["0.3333", "0.6667", "1"], ["1.3333", "1.6667", "2"]]
    marked = mismatches(page)
    assert set(marked) == {("exercise-grad-prediction", r, c) for r in range(2) for c in range(3)}
    assert marked[("exercise-grad-prediction", 0, 0)].endswith("wrong in your code: expected 0.3333, got 0.5")
    assert "the loss is one number, its gradient one per cell" in run(page, MSE["the_loss"], "mse_loss_backward", state="fail")
    # A wrong return type shows its case (the capstone's Y2 against T) with nothing to mark.
    assert panel_values(page, "exercise-prediction") == [["4", "2"], ["3.5", "3"]]
    assert mismatches(page) == {}
    assert run(page, MSE["right"], "mse_loss_backward", state="pass").startswith("All 8 cases pass")
    expect(page.locator("#exercise-case")).to_be_hidden()
    assert mismatches(page) == {}
    # A pooling exercise's case still goes into the widget's grids.
    run(page, BACKWARD["last_max_wins"], "backward", state="fail")
    booted.wait_settled()
    assert set(mismatches(page)) == {("grad-input", 0, 0), ("grad-input", 1, 1)}


def test_the_chain_view_offers_the_panel_and_keeps_its_view_through_a_run(booted):
    page = booted.page
    booted.open("#view=chain", wait=False)
    status = page.locator("#status")
    expect(status).not_to_have_attribute("data-state", "loading", timeout=BOOT_TIMEOUT_MS)
    # The link is written in its whole form once Python has answered the chain shown.
    expect(page.locator("#chain")).to_have_attribute("data-busy", "false")
    expect(status).to_have_attribute("data-state", "ready")
    expect(page.locator("#exercise")).to_be_visible()
    view = booted.hash()
    assert view.startswith("#view=chain")
    text = run(page, CONV["starter"], "conv2d_backward", state="error")
    assert text.startswith("Case 1 of 8 (the lesson's example): your function still raises NotImplementedError")
    # An error on a case shows the case (its arguments and the right answer) with nothing marked.
    assert panel_values(page, "exercise-w") == [["1", "0", "-1"]] * 3
    expect(page.locator("#exercise-case [data-mismatch]")).to_have_count(0)
    assert run(page, CONV["full"], "conv2d_backward", state="pass").startswith("All 8 cases pass")
    assert booted.hash() == view
    expect(page.locator("#chain")).to_be_visible()
    # A pooling exercise's case opens the pooling view with the case in its grids.
    run(page, BACKWARD["last_max_wins"], "backward", state="fail")
    booted.wait_settled()
    assert booted.hash() == "#k=2&s=2&p=0&d=1&mode=max&grad=1&x=5,5;5,5&g=1"
    expect(page.locator("#chain")).to_be_hidden()
    assert set(mismatches(page)) == {("grad-input", 0, 0), ("grad-input", 1, 1)}


def test_chain_exercises_run_in_the_same_sandbox(booted):
    page = booted.page
    booted.open()
    for name in ("fetch", "indexedDB", "importScripts"):
        text = run(page, f"import js\njs.{name}\n", "conv2d_backward", state="error")
        assert "AttributeError on line 2 of your code" in text and name in text, text
    # Patching the checker or the reports changes nothing but that Run's own reports.
    patch = ("import poolgrad.exercise_check as ec\n"
             "ec._judge_conv = ec.JUDGES['conv2d_backward'] = lambda case, got: None\n")
    assert "fails on the lesson's example" in run(page, patch + CONV["unweighted"], "conv2d_backward", state="fail")
    forge = "import json\njson.dumps = lambda *args, **kwargs: '{\"returned\": {}}'\n"
    assert "could not be read, so it cannot pass" in run(page, forge + MSE["no_mean"], "mse_loss_backward", state="error")
    endless = "def mse_loss_backward(prediction, target):\n    while True:\n        pass\n"
    assert "Your code was still running after 5 s, on case 1 of 8" in run(page, endless, "mse_loss_backward", state="timeout")
    assert run(page, MSE["right"], "mse_loss_backward", state="pass").startswith("All 8 cases pass")


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
    assert "Your code was still running after 5 s, on case 1 of 13" in text
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
    assert "Your code calls sys.exit(3) on line 2 of your code, which would end Python" in text


def test_learner_code_cannot_reach_storage_network_or_the_page(booted):
    page = booted.page
    booted.open()
    storage = """() => Object.fromEntries(Object.entries(localStorage).filter(([key]) => !key.includes(':exercise:')))"""
    before = page.evaluate(storage)
    for name in ("indexedDB", "fetch", "caches", "XMLHttpRequest", "importScripts", "postMessage", "Worker", "eval"):
        text = run(page, f"import js\njs.{name}\n", state="error")
        assert "AttributeError on line 2 of your code" in text and name in text, text
    probe = (
        "import js, pyodide.http\n"
        "found = [name for name in ['_jsfetch', 'XMLHttpRequest'] if hasattr(pyodide.http, name)]\n"
        "found += ['navigator.' + name for name in ['storage', 'locks', 'serviceWorker'] if hasattr(js.navigator, name)]\n"
        "raise RuntimeError('reachable: ' + (', '.join(found) or 'nothing'))\n"
    )
    text = run(page, probe, state="error")
    assert "RuntimeError on line 4 of your code: reachable: nothing." in text or "AttributeError on line 3" in text, text
    assert run(page, REACHABLE, state="error").endswith("beyond the allowed: nothing."), "reachable"
    # Code from strings is refused by the worker itself, with or without a policy.
    for make_js in ("js.Function.new('return 1')", "js.Object.getPrototypeOf(js.setTimeout).constructor.new('return 1')"):
        text = run(page, f"import js\n{make_js}\n", state="error")
        assert "JsException on line 2 of your code: EvalError: the exercise worker runs no JavaScript made from strings" in text, text
    # Nothing the code tried reached the page's storage.
    assert page.evaluate("async () => (await indexedDB.databases()).length") == 0
    assert page.evaluate(storage) == before


def test_no_attack_reaches_another_site_from_a_host_that_sends_no_headers(page, plain_host, published):
    from urllib.request import urlopen

    with urlopen(plain_host.url + published("exercise-worker.js"), timeout=10) as response:
        assert response.headers.get("Content-Security-Policy") is None

    listener = Listener()
    try:
        with urlopen(listener.url + "control", timeout=10):
            pass
        assert listener.requests == ["GET /control"]
        listener.requests.clear()
        Widget(page, plain_host).open()
        page.evaluate(KEEP_WORKERS_ALIVE)
        results = {attack: run(page, listener.code(attack)) for attack in ATTACKS}
        page.wait_for_timeout(2500)
        assert listener.requests == [], results
        assert not [attack for attack, text in results.items() if "cases pass" in text]
        # Pyodide still works after the lock-down: NumPy, a JsProxy call, to_js, create_proxy.
        assert "All 13 cases pass" in run(page, FORWARD["numpy"], state="pass")
        assert "All 13 cases pass" in run(page, PYODIDE_STILL_WORKS + FORWARD["numpy"], state="pass")
        assert run(page, REACHABLE, state="error").endswith("beyond the allowed: nothing."), "reachable"
    finally:
        listener.stop()


# Pyodide's bridges to JavaScript, NumPy's lazily loaded libraries and the timers, after the
# lock-down; an assertion that fails makes the Run an error.
PYODIDE_STILL_WORKS = """import js, numpy as np
from pyodide.ffi import create_proxy, to_js
assert js.Math.max(3, 7) == 7
assert list(to_js([1, 2, 3]).map(create_proxy(lambda value, *rest: value * 2))) == [2, 4, 6]
assert js.JSON.stringify(to_js({"a": 1}, dict_converter=js.Object.fromEntries)) == '{"a":1}'
assert abs(np.linalg.det(np.array([[2.0, 0.0], [0.0, 3.0]])) - 6) < 1e-12
assert np.fft.fft(np.ones(4))[0] == 4
js.clearTimeout(js.setTimeout(create_proxy(lambda: None), 10))
assert len(js.TextDecoder.new().decode(js.TextEncoder.new().encode("héllo"))) == 5
"""


def test_each_run_is_judged_on_its_own_code_alone(booted):
    page = booted.page
    booted.open()
    wrong = FORWARD["off_by_one"]
    # Patching the checker, in the same Run as wrong code and for the Runs after it.
    patch_checker = ("import poolgrad.exercise_check as ec\n"
                     "ec._judge_forward = ec._judge_backward = lambda case, got: None\n"
                     "ec.judge = lambda *args, **kwargs: {'state': 'pass', 'sentence': 'patched'}\n")
    assert "Case 1 of 13 fails on the lesson's example." in run(page, patch_checker + wrong, state="fail")
    assert "Case 1 of 13 fails on the lesson's example." in run(page, wrong, state="fail")
    # Emptying the cases.
    stub = "import poolgrad.exercise_check as ec\nec.CASES['forward'] = ()\ndef max_pool2d(image, pool_size=2):\n    return image\n"
    assert "Case 1 of 13 fails" in run(page, stub, state="fail")
    # A forged json.dumps, in that Run and before a syntax error.
    forge = ("import json\n"
             "json.dumps = lambda *args, **kwargs: '{\"state\": \"pass\", \"sentence\": \"forged\"}'\n")
    text = run(page, forge + wrong, state="error")
    assert "could not be read, so it cannot pass" in text, text
    assert "could not be read, so it cannot pass" in run(page, forge, state="error")
    assert run(page, "def max_pool2d(image, pool_size=2)\n    return image\n", state="error").startswith(
        "SyntaxError on line 1 of your code")
    # A timer left behind by one Run dies with its worker: the next correct Run passes.
    timer = ("import js\nfrom pyodide.ffi import create_proxy\n"
             "def loop():\n    while True:\n        pass\n"
             "js.setTimeout(create_proxy(loop), 300)\n")
    run(page, timer + FORWARD["numpy"], state="pass")
    page.wait_for_timeout(500)
    assert "All 13 cases pass" in run(page, FORWARD["numpy"], state="pass")
    # An ndarray subclass whose comparison lies.
    liar = ("import numpy as np\n"
            "class Liar(np.ndarray):\n"
            "    def __eq__(self, other): return np.ones(np.shape(other), bool)\n"
            "    def __ne__(self, other): return np.zeros(np.shape(other), bool)\n"
            "def max_pool2d(image, pool_size=2):\n"
            "    return np.zeros((image.shape[0] // pool_size, image.shape[1] // pool_size), image.dtype).view(Liar)\n")
    assert "output (0,0) expected 6, got 0" in run(page, liar, state="fail")


def test_what_python_cannot_survive_is_named(booted):
    page = booted.page
    booted.open()
    text = run(page, "import os\nos._exit(0)\n", state="error")
    assert text.startswith("Your code stopped Python itself (") and "os._exit() and os.abort() end the whole interpreter" in text, text
    text = run(page, "import sys\nsys.setrecursionlimit(10**7)\n", state="error")
    assert text.startswith("Running your code raised ValueError on line 2 of your code: the exercises keep Python's "
                           "recursion limit at most"), text
    text = run(page, "def max_pool2d(image, pool_size=2):\n    return max_pool2d(image, pool_size)\n", state="error")
    assert "RecursionError on line 2 of your code: your function calls itself too deeply" in text, text
    text = run(page, "x = 1\x00\n", state="error")
    assert text.startswith("Your code holds a NUL character (an invisible zero byte) on line 1, column 6"), text
    assert "All 13 cases pass" in run(page, FORWARD["numpy"], state="pass")


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
