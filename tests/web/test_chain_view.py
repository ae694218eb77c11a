"""The chain view (view=chain): X -conv W-> Y1 -pool-> Y2 -loss vs T-> L and its backward
pass, drawn from poolgrad.chain_trace under Pyodide: its numbers against chain_trace run
natively, the lesson's conv example, the taps (region P, a pooling window, a weight), the
hot cell, learning, links good and bad, and axe."""

from xml.etree import ElementTree

import numpy as np
import pytest
from playwright.sync_api import expect

import poolgrad
from chain_fixture import CAPSTONE_T, CAPSTONE_W, CAPSTONE_X, CHAIN_PLANE_ROWS
from widget_driver import BOOT_TIMEOUT_MS, PYTHON_RUNTIME, axe_violations, shown

LESSON_X = [[3, 0, 1, 2, 7], [1, 5, 8, 9, 3], [2, 7, 2, 5, 1], [0, 1, 3, 1, 7], [4, 2, 1, 6, 2]]
VERTICAL_EDGE = [[1, 0, -1], [1, 0, -1], [1, 0, -1]]


def settled(page, state="ready"):
    """The chain's module is loaded, Python has answered the state shown, and #status says `state`."""
    status = page.locator("#status")
    expect(status).not_to_have_attribute("data-state", "loading", timeout=BOOT_TIMEOUT_MS)
    expect(page.locator("#chain")).to_have_attribute("data-busy", "false")
    expect(status).to_have_attribute("data-state", state)


def open_chain(widget, hash_="#view=chain"):
    widget.open(hash_, wait=False)
    settled(widget.page)
    return widget.page


def plane(page, grid, key="0"):
    return page.evaluate(CHAIN_PLANE_ROWS, [grid, key])


def marked(page, grid, attribute, key="0"):
    return page.evaluate(
        """([grid, attribute, key]) => [...document.querySelectorAll(`#chain [data-grid="${grid}"][${attribute}="true"]`)]
            .filter((cell) => cell.closest("table").dataset.plane === key)
            .map((cell) => [Number(cell.dataset.row), Number(cell.dataset.col)])""",
        [grid, attribute, key],
    )


def cell(page, grid, row, col, key="0"):
    return page.locator(f'#chain table[data-plane="{key}"] [data-grid="{grid}"][data-row="{row}"][data-col="{col}"]')


def shown_planes(values):
    return [[shown(v) for v in row] for row in np.asarray(values, dtype=float).reshape(-1, *np.shape(values)[-2:])[0]]


def test_the_default_chain_view_is_the_capstone_with_chain_traces_numbers(booted):
    page = open_chain(booted)
    expect(page.locator("#view")).to_have_value("chain")
    expect(page.locator("#chain-preset")).to_have_value("capstone")
    expect(page.locator("#stage")).to_be_hidden()
    native = poolgrad.chain_trace(CAPSTONE_X, CAPSTONE_W, target=CAPSTONE_T, pool="max", pool_kernel_size=2, loss="mse")
    for grid, key in [("chain-conv", "conv_output"), ("chain-pool", "pool_output"), ("chain-grad-pool", "grad_pool_output"),
                      ("chain-grad-conv", "grad_conv_output"), ("chain-grad-input", "grad_input")]:
        assert plane(page, grid) == shown_planes(native[key]), grid
    assert plane(page, "chain-grad-weight", "0/0") == shown_planes(native["grad_weight"])
    expect(page.locator("#chain-loss")).to_have_text(shown(native["loss"]))
    # The loss's formula is filled in with the live numbers.
    expect(page.locator("#chain-loss-formula")).to_contain_text(f"= {shown(native['loss'])}")
    # dL/dY1: the cells no window routed to are marked as having got nothing: 12 of 16.
    assert len(marked(page, "chain-grad-conv", "data-zero")) == 12
    expect(page.locator("#chain-lesson")).to_contain_text("4 of the 16 Y1 cells got gradient")
    # Every grid the contract names is drawn with its coordinates.
    for grid in ("chain-input", "chain-weight", "chain-conv", "chain-pool", "chain-target",
                 "chain-grad-pool", "chain-grad-conv", "chain-grad-weight", "chain-grad-input"):
        expect(page.locator(f'#chain [data-grid="{grid}"][data-row="0"][data-col="0"]').first).to_be_visible()


def test_the_lessons_conv_example_gives_the_lessons_y_and_the_ramps_gradients(booted):
    page = open_chain(booted)
    page.select_option("#chain-preset", "lesson-conv")
    settled(page)
    assert plane(page, "chain-conv") == [["-5", "-4", "0"], ["-10", "-2", "2"], ["0", "-2", "-4"]]
    assert plane(page, "chain-grad-conv") == [["1", "2", "3"], ["4", "5", "6"], ["7", "8", "9"]]
    # The lesson's formulas, written as loops: dL/dW = X ⋆ g, dL/dX = g spread back through W.
    x = np.array(LESSON_X, dtype=float)
    w = np.array(VERTICAL_EDGE, dtype=float)
    g = np.arange(1, 10, dtype=float).reshape(3, 3)
    grad_w = np.zeros((3, 3))
    grad_x = np.zeros((5, 5))
    for i in range(3):
        for j in range(3):
            grad_w += g[i, j] * x[i:i + 3, j:j + 3]
            grad_x[i:i + 3, j:j + 3] += g[i, j] * w
    assert plane(page, "chain-grad-weight", "0/0") == shown_planes(grad_w)
    assert plane(page, "chain-grad-input") == shown_planes(grad_x)
    assert "pool" not in [p.get_attribute("data-panel") for p in page.locator("#chain [data-panel]").all()]
    assert "&cpool=none&cup=ramp&" in booted.hash()


def test_an_input_tap_marks_its_region_p_and_explains_its_gradient_as_that_sum(booted):
    page = open_chain(booted, "#view=chain&cx=3,0,1,2,7;1,5,8,9,3;2,7,2,5,1;0,1,3,1,7;4,2,1,6,2&cw=1,0,-1;1,0,-1;1,0,-1&cpool=none&cup=ramp")
    cell(page, "chain-input", 0, 1).click()
    assert marked(page, "chain-conv", "data-fed") == [[0, 0], [0, 1]]
    expect(cell(page, "chain-input", 0, 1)).to_have_attribute("aria-selected", "true")
    # X (0,1) meets W (0,1) = 0 in Y1 (0,0) and W (0,0) = 1 in Y1 (0,1): 1 × 0 + 2 × 1 = 2.
    expect(page.locator("#chain-explanation")).to_contain_text("X (0,1) feeds 2 Y1 cells, (0,0) and (0,1) (its region P)")
    expect(page.locator("#chain-explanation")).to_contain_text("1 × 0 + 2 × 1 = 2.")
    assert plane(page, "chain-grad-input")[0][1] == "2"
    # The centre feeds all nine; the keyboard taps as a click does.
    cell(page, "chain-input", 2, 2).focus()
    page.keyboard.press("Enter")
    assert len(marked(page, "chain-conv", "data-fed")) == 9
    page.keyboard.press("ArrowRight")
    expect(cell(page, "chain-input", 2, 3)).to_be_focused()
    page.keyboard.press(" ")
    assert marked(page, "chain-conv", "data-fed") == [[0, 1], [0, 2], [1, 1], [1, 2], [2, 1], [2, 2]]


def test_a_pool_tap_marks_its_window_and_argmax_and_a_weight_tap_the_cells_it_multiplied(booted):
    page = open_chain(booted)
    cell(page, "chain-pool", 0, 1).click()
    assert sorted(marked(page, "chain-conv", "data-in-window")) == [[0, 2], [0, 3], [1, 2], [1, 3]]
    # Y1's window (rows 0-1, cols 2-3) holds -0.5, 1.5, 2, 1: the 2 at (1,2) wins.
    assert marked(page, "chain-conv", "data-argmax") == [[1, 2]]
    expect(page.locator("#chain-explanation")).to_contain_text("goes to Y1 (1,2) alone")
    cell(page, "chain-conv", 1, 2).click()
    cell(page, "chain-weight", 0, 0, "0/0").click()
    # W (0,0) multiplied X (1,2) for Y1 (1,2), and one X cell for each of the 16 Y1 cells.
    assert marked(page, "chain-input", "data-in-window") == [[1, 2]]
    assert len(marked(page, "chain-input", "data-touched")) == 16
    expect(page.locator("#chain-explanation")).to_contain_text("W (0,0) multiplied X (1,2)")
    expect(page.locator("#chain-explanation")).to_contain_text("collects gradient from all 16")


def test_the_hot_cell_sends_one_gradient_back_and_moves_on_a_tap(booted):
    page = open_chain(booted)
    page.select_option("#chain-upstream", "hot")
    settled(page)
    assert plane(page, "chain-grad-pool") == [["1", "0"], ["0", "0"]]
    cell(page, "chain-grad-pool", 1, 1).click()
    settled(page)
    assert plane(page, "chain-grad-pool") == [["0", "0"], ["0", "1"]]
    assert "&cup=hot&hot=1,1&" in booted.hash()
    # Y2 (1,1) is the maximum 3 of Y1 (3,3): the only Y1 cell with gradient.
    grad_conv = plane(page, "chain-grad-conv")
    assert [[r, c] for r, row in enumerate(grad_conv) for c, v in enumerate(row) if v != "0"] == [[3, 3]]
    expect(page.locator("#chain-loss")).to_have_text("none")


def test_twenty_steps_lower_the_capstones_mse_and_the_link_holds_them(booted):
    page = open_chain(booted)
    start = float(page.locator("#chain-loss").inner_text())
    for _ in range(20):
        page.click("#chain-step")
        settled(page)
    after = float(page.locator("#chain-loss").inner_text())
    assert after < start
    assert booted.hash().endswith("&lr=0.01&steps=20")
    native = poolgrad.chain_trace(CAPSTONE_X, CAPSTONE_W, target=CAPSTONE_T, learning_rate=0.01, steps=20)
    expect(page.locator("#chain-loss")).to_have_text(shown(native["loss"]))
    expect(page.locator("#chain-loss-plot polyline")).to_have_count(1)
    page.click("#chain-reset")
    settled(page)
    expect(page.locator("#chain-loss")).to_have_text(shown(start))


def test_a_step_redraws_the_grids_in_place_with_the_new_numbers(booted):
    """A change of the same shapes updates the drawn cells (render.js, planeTable's
    `previous`): no new nodes for the browser to style and lay out (bench_browser.py
    --chain-only measured the rebuild at most of a change's time)."""
    page = open_chain(booted)
    cell(page, "chain-input", 1, 1).click()
    keep = "() => { window.keptCells = [...document.querySelectorAll('#chain td[data-grid]')]; }"
    page.evaluate(keep)
    plane_before = plane(page, "chain-grad-input")
    page.click("#chain-step")
    settled(page)
    assert page.evaluate("() => window.keptCells.every((td, i) => td === document.querySelectorAll('#chain td[data-grid]')[i])")
    native = poolgrad.chain_trace(CAPSTONE_X, CAPSTONE_W, target=CAPSTONE_T, learning_rate=0.01, steps=1)
    # Shown to 4 decimals (a tie may round either way between the page and Python's format).
    np.testing.assert_allclose(np.array(plane(page, "chain-grad-input"), dtype=float), native["grad_input"][0], atol=1e-4)
    assert plane(page, "chain-grad-input") != plane_before
    # The tap's marks are redrawn too: X (1,1) feeds Y1 (0,0)-(1,1).
    assert marked(page, "chain-conv", "data-fed") == [[0, 0], [0, 1], [1, 0], [1, 1]]
    # Another shape (no pooling) builds what it lacks; the input keeps its cells.
    page.select_option("#chain-pool-mode", "none")
    settled(page)
    assert page.evaluate("() => window.keptCells[0] === document.querySelector('#chain td[data-grid=\"chain-input\"]')")
    expect(page.locator('#chain [data-grid="chain-pool"]')).to_have_count(0)
    booted.set_hash("#view=chain")
    settled(page)


def test_a_link_reopens_the_same_view_and_a_bad_one_says_what_to_fix(booted):
    link = ("#view=chain&cx=1,2,3,0;4,5,6,1;7,8,9,2;1,1,1,1|0,1,0,1;1,0,1,0;0,1,0,1;1,0,1,0"
            "&cw=1,0;0,-1|0.5,0.5;0.5,0.5/0,1;1,0|1,0;0,1&cb=0.5,-1&relu=1&cpool=avg&cup=loss-l1&ct=1|2&lr=0.1&steps=3")
    page = open_chain(booted, link)
    booted.expect_hash(link)
    assert plane(page, "chain-input", "1") == [["0", "1", "0", "1"], ["1", "0", "1", "0"], ["0", "1", "0", "1"], ["1", "0", "1", "0"]]
    expect(page.locator('#chain [data-grid="chain-weight"][data-filter="1"][data-channel="1"]')).to_have_count(4)
    expect(page.locator('#chain [data-grid="chain-conv"][data-channel="1"]')).to_have_count(9)
    expect(page.locator("#chain-pool-mode")).to_have_value("avg")
    expect(page.locator("#chain-upstream")).to_have_value("loss-l1")
    page.reload()
    settled(page)
    booted.expect_hash(link)
    # A weight whose slices do not match the input's channels.
    booted.set_hash("#view=chain&cw=1,0;0,1|1,1;1,1")
    expect(page.locator("#status")).to_have_attribute("data-state", "error")
    expect(page.locator("#status")).to_contain_text(
        "the chain's weight cw has 2 channel slices per filter but the input cx has 1 channel; give each filter one slice per input channel")
    # A filter larger than the input is Python's to refuse, as clearly.
    booted.set_hash("#view=chain&cx=1,2;3,4")
    expect(page.locator("#status")).to_have_attribute("data-state", "error")
    booted.set_hash("#view=chain")
    settled(page)


def test_editing_a_cell_restarts_learning_from_the_numbers_shown(booted):
    page = open_chain(booted)
    cell(page, "chain-target", 0, 0).click()
    editor = page.locator("#chain [data-editor]")
    editor.fill("4")
    editor.press("Enter")
    settled(page)
    assert "&ct=4,1;0,3&" in booted.hash()
    cell(page, "chain-input", 0, 0).focus()
    page.keyboard.press("7")
    page.keyboard.press("Enter")
    settled(page)
    assert booted.hash().split("&cx=")[1].startswith("7,2,0,3,1,0;")
    cell(page, "chain-target", 0, 1).click()
    page.locator("#chain [data-editor]").fill("two")
    page.locator("#chain [data-editor]").press("Enter")
    expect(page.locator("#status")).to_contain_text('T cell (0,1): "two" is not a number')


def test_the_pool_view_loads_no_chain_code_until_the_chain_opens(widget, site):
    since = len(site.requests)
    widget.open()
    assert [r for r in site.requests[since:] if "/chain/" in r] == []
    widget.page.select_option("#view", "chain")
    settled(widget.page)
    assert any(r.endswith("/chain/chain-view.js") for r in site.requests[since:])
    assert "#view=chain&" in widget.hash()
    widget.page.select_option("#view", "pool")
    widget.wait_settled()
    assert not widget.hash().startswith("#view") and "view=" not in widget.hash()


def test_the_chain_answers_its_presets_from_shipped_traces_while_python_is_held_back(widget, hold_back):
    """Issue 29: the chain answers at first paint, before Python, like the pool view: a
    view=chain link and each preset are drawn from the build's chain-traces.json, which
    only a page that opens the chain reads."""
    page = widget.page
    release = hold_back(PYTHON_RUNTIME)
    asked = []
    page.on("request", lambda request: asked.append(request.url.rsplit("/", 1)[-1]))
    widget.open("#view=chain", wait=False)
    status = page.locator("#status")
    expect(status).to_have_attribute("data-source", "precomputed")
    expect(status).to_contain_text("Ready (precomputed): the chain conv 3 × 3 → max pool 2 × 2 → MSE.")
    assert status.get_attribute("data-state") == "loading"
    native = poolgrad.chain_trace(CAPSTONE_X, CAPSTONE_W, target=CAPSTONE_T, pool="max", pool_kernel_size=2, loss="mse")
    for grid, key in [("chain-conv", "conv_output"), ("chain-pool", "pool_output"), ("chain-grad-conv", "grad_conv_output"),
                      ("chain-grad-input", "grad_input")]:
        assert plane(page, grid) == shown_planes(native[key]), grid
    assert plane(page, "chain-grad-weight", "0/0") == shown_planes(native["grad_weight"])
    expect(page.locator("#chain-loss")).to_have_text(shown(native["loss"]))
    # A tap answers from the same trace: Y2 (0,1)'s window and argmax.
    cell(page, "chain-pool", 0, 1).click()
    assert marked(page, "chain-conv", "data-argmax") == [[1, 2]]
    # A preset, and a named filter over the capstone's input, are answered the same way.
    page.select_option("#chain-preset", "lesson-conv")
    expect(status).to_contain_text("Ready (precomputed): the chain conv 3 × 3 → made-up gradient.")
    lesson = poolgrad.chain_trace(LESSON_X, VERTICAL_EDGE, pool=None, loss=None, grad_output=[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]])
    assert plane(page, "chain-grad-weight", "0/0") == shown_planes(lesson["grad_weight"])
    assert plane(page, "chain-grad-input") == shown_planes(lesson["grad_input"])
    page.select_option("#chain-preset", "capstone")
    page.select_option("#chain-preset", "sharpen")
    expect(status).to_have_attribute("data-source", "precomputed")
    sharpen = poolgrad.chain_trace(CAPSTONE_X, [[0, -1, 0], [-1, 5, -1], [0, -1, 0]], target=CAPSTONE_T)
    assert plane(page, "chain-grad-input") == shown_planes(sharpen["grad_input"])
    assert asked.count("chain-traces.json") == 1
    assert release() >= 1
    settled(page)
    assert status.get_attribute("data-source") is None
    assert plane(page, "chain-grad-input") == shown_planes(sharpen["grad_input"])


SVG = "{http://www.w3.org/2000/svg}"


def panel_texts(panel):
    return [node.text or "" for node in panel.iter(f"{SVG}text")]


def grid_values(grid, cols):
    """A drawn grid's cell texts by row: after its caption and column numbers, each row is
    its number then its cells (takeaway/svg-export.js drawGrid)."""
    texts = panel_texts(grid)[1 + cols:]
    return [texts[start + 1:start + 1 + cols] for start in range(0, len(texts), cols + 1)]


def test_save_picture_downloads_both_rows_with_their_captions_and_the_loss(booted):
    page = open_chain(booted, "#view=chain&relu=1&steps=2")
    page.locator("#chain-code").evaluate("(details) => { details.open = true; }")
    with page.expect_download() as saving:
        page.click("#chain-save-picture")
    download = saving.value
    assert download.suggested_filename == "poolgrad-chain-relu-max-pool-loss-mse-step2.svg"
    expect(page.locator("#chain-code-message")).to_have_text("Saved the picture as poolgrad-chain-relu-max-pool-loss-mse-step2.svg.")
    root = ElementTree.parse(download.path()).getroot()  # well-formed XML, or this raises
    assert root.find(f"{SVG}title").text == "poolgrad: the chain conv 3 × 3 → ReLU → max pool 2 × 2 → MSE, after 2 steps at learning rate 0.01"
    native = poolgrad.chain_trace(CAPSTONE_X, CAPSTONE_W, target=CAPSTONE_T, activation="relu", learning_rate=0.01, steps=2)
    loss = shown(native["loss"])
    assert root.find(f"{SVG}desc").text == (
        f"Forward: X, W, Y1, ReLU(Y1), Y2, T; the loss L = {loss}. Backward: dL/dY2, dL/dReLU(Y1), dL/dY1, dL/dW, dL/dX.")
    # The panels in the view's order, each headed by its title (and shape), then its caption.
    panels = root.findall(f"{SVG}g")
    assert [panel_texts(panel)[0] for panel in panels] == [
        "X  6 × 6", "W  1 × 1 × 3 × 3", "Y1  4 × 4", "ReLU(Y1)", "Y2  2 × 2", "T", f"Loss  L = {loss}",
        "dL/dY2", "dL/dReLU(Y1)", "dL/dY1", "dL/dW", "dL/dX"]
    by_title = {panel_texts(panel)[0].split("  ")[0]: panel for panel in panels}
    grad_input = by_title["dL/dX"]
    # A panel's own lines (its grids are groups of their own): the title, then the caption.
    caption = lambda panel: " ".join(node.text for node in panel.findall(f"{SVG}text")[1:])
    assert caption(grad_input) == "dL/dX = full correlation of dL/dY1 with W turned 180°"
    assert caption(by_title["Loss"]) == page.locator("#chain-loss-formula").inner_text()
    # Each grid holds the numbers the view shows, cell for cell: chain_trace's.
    assert plane(page, "chain-grad-input") == shown_planes(native["grad_input"])
    for title, grid in [("dL/dX", "chain-grad-input"), ("Y1", "chain-conv"), ("dL/dY1", "chain-grad-conv"), ("W", "chain-weight")]:
        shown_grid = plane(page, grid, "0/0" if grid == "chain-weight" else "0")
        assert grid_values(by_title[title].find(f"{SVG}g"), len(shown_grid[0])) == shown_grid, title
    # Nothing is cut off: every text starts inside the picture.
    width, height = int(root.get("width")), int(root.get("height"))
    assert root.get("viewBox") == f"0 0 {width} {height}"
    assert all(0 < float(node.get("x")) < width and 0 < float(node.get("y")) < height for node in root.iter(f"{SVG}text"))
    assert width > 1000 and height > 500


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_in_the_chain_view(widget, scheme):
    page = widget.page
    page.emulate_media(color_scheme=scheme)
    open_chain(widget)
    assert axe_violations(page) == [], "capstone"
    cell(page, "chain-pool", 0, 0).click()
    assert axe_violations(page) == [], "a window tapped"
    page.select_option("#chain-preset", "rgb-two-filters")
    settled(page)
    cell(page, "chain-input", 1, 1, "2").click()
    assert axe_violations(page) == [], "three channels, two filters"
    page.set_viewport_size({"width": 360, "height": 640})
    assert axe_violations(page) == [], "360 px"


ELEMENT_HOST = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>the chain element</title>
<script type="module" src="pool-grad.js"></script></head>
<body><main><h1>The chain</h1>
<pool-grad id="chain-element" view="chain" chain-pool="avg" chain-upstream="ramp" steps="2" learning-rate="0.1"></pool-grad>
</main></body></html>"""


def test_the_element_opens_the_chain_view_from_its_attributes(page, site):
    page.route(site.url + "chain-element.html", lambda route: route.fulfill(status=200, content_type="text/html", body=ELEMENT_HOST))
    page.goto(site.url + "chain-element.html")
    element = page.locator("pool-grad#chain-element")
    expect(element.locator("#chain")).to_have_attribute("data-busy", "false", timeout=BOOT_TIMEOUT_MS)
    native = poolgrad.chain_trace(CAPSTONE_X, CAPSTONE_W, pool="avg", loss=None, grad_output=[[[1, 2], [3, 4]]],
                                  learning_rate=0.1, steps=2)
    expected = [shown(v) for row in native["grad_weight"][0][0] for v in row]
    expect(element.locator('[data-grid="chain-grad-weight"]')).to_have_text(expected)
    expect(element.locator("#chain-pool-mode")).to_have_value("avg")
    element.evaluate("(element) => element.setAttribute('chain-pool', 'none')")
    expect(element.locator('[data-grid="chain-pool"]')).to_have_count(0)
    assert element.evaluate("(element) => element.state.view") == "chain"


@pytest.mark.parametrize("hash_", [
    "#view=chain&steps=3",
    "#view=chain&cx=3,0,1,2,7;1,5,8,9,3;2,7,2,5,1;0,1,3,1,7;4,2,1,6,2&cw=1,0,-1;1,0,-1;1,0,-1&cb=0.5&relu=1&cpool=avg&cup=ramp&lr=0.1&steps=2",
])
def test_the_code_panels_pytorch_rebuilds_the_chain_and_passes_its_own_checks(booted, hash_):
    torch = pytest.importorskip("torch")
    page = open_chain(booted, hash_)
    page.locator("#chain-code").evaluate("(details) => { details.open = true; }")
    code = page.locator("#chain-code-torch").inner_text()
    assert code.startswith("import torch")
    printed = []
    exec(compile(code, "chain_snippet", "exec"), {"print": printed.append, "torch": torch})
    assert printed == ["autograd agrees with the view"]
    assert "poolgrad.chain_trace(" in page.locator("#chain-code-poolgrad").inner_text()


def test_play_steps_until_the_loss_stops_falling(booted):
    page = open_chain(booted, "#view=chain&lr=0.058")
    page.click("#chain-play")
    expect(page.locator("#chain-play")).to_have_attribute("aria-pressed", "false", timeout=60_000)
    settled(page)
    steps = int(booted.hash().rsplit("&steps=", 1)[1])
    native = poolgrad.chain_trace(CAPSTONE_X, CAPSTONE_W, target=CAPSTONE_T, learning_rate=0.058, steps=steps)
    history = native["loss_history"]
    # Every step before the last lowered the loss; the last one did not.
    assert steps >= 2 and all(later < earlier for earlier, later in zip(history[:-2], history[1:-1]))
    assert history[-1] >= history[-2]
    expect(page.locator("#chain-announcer")).to_have_text(f"Stopped after step {steps}: the loss no longer falls ({shown(history[-1])}).")
