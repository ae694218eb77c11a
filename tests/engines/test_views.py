"""The chain view (view=chain) and the picture view (view=picture) in Firefox ESR, WebKitGTK
and WPE WebKit: their numbers against poolgrad run natively, a tap on each, a learning step,
a shipped sample and an uploaded PNG of known pixels. Each engine boots one page for these
scenarios (conftest.py), apart from the pool view's in test_engines.py."""

from pathlib import Path

import numpy as np
import pytest

import poolgrad
from chain_fixture import CAPSTONE_T, CAPSTONE_W, CAPSTONE_X, CHAIN_PLANE_ROWS
from picture_files import KNOWN_RGBA, png
from poolgrad.picture import picture_planes, pool_picture
from widget_driver import shown

SAMPLES = Path(__file__).resolve().parents[2] / "web" / "picture" / "samples"


def chain_settled(widget, state="ready"):
    """Wait until the chain's module is loaded and Python has answered the state shown;
    return #status's message, which must be in `state`."""
    try:
        got = widget.wait("""
            const status = document.getElementById("status");
            const chain = document.getElementById("chain");
            if (!status || !chain || status.dataset.state === "loading" || chain.dataset.busy !== "false") return null;
            return [status.dataset.state, document.getElementById("status-text").textContent];
        """, timeout=widget.BOOT_TIMEOUT_S, what="the chain view to be drawn")
    except AssertionError as timed_out:
        raise AssertionError(f"{timed_out}; #status says {widget.status()}, problems {widget.problems()}") from None
    assert got[0] == state, f"#status is {got[0]!r} ({got[1]!r}), expected {state!r}"
    return got[1]


def chain_plane(widget, grid, plane="0"):
    return widget.driver.execute_script(f"return ({CHAIN_PLANE_ROWS})(arguments[0]);", [grid, plane])


def chain_marked(widget, grid, attribute):
    return widget.driver.execute_script("""
        return [...document.querySelectorAll(`#chain [data-grid="${arguments[0]}"][${arguments[1]}="true"]`)]
            .map((cell) => [Number(cell.dataset.row), Number(cell.dataset.col)]);
    """, grid, attribute)


def chain_cell(widget, grid, row, col, plane="0"):
    from selenium.webdriver.common.by import By
    return widget.driver.find_element(
        By.CSS_SELECTOR, f'#chain table[data-plane="{plane}"] [data-grid="{grid}"][data-row="{row}"][data-col="{col}"]')


def shown_plane(values):
    """The first plane of `values` (any depth of leading axes) as the grids write it."""
    array = np.asarray(values, dtype=float)
    return [[shown(v) for v in row] for row in array.reshape(-1, *array.shape[-2:])[0]]


def test_the_chain_view_shows_chain_traces_numbers_marks_region_p_and_learns_a_step(widget):
    widget.set_hash("#view=chain")
    chain_settled(widget)
    native = poolgrad.chain_trace(CAPSTONE_X, CAPSTONE_W, target=CAPSTONE_T, pool="max", pool_kernel_size=2, loss="mse")
    assert chain_plane(widget, "chain-input") == shown_plane(CAPSTONE_X)
    for grid, key in [("chain-conv", "conv_output"), ("chain-pool", "pool_output"), ("chain-grad-pool", "grad_pool_output"),
                      ("chain-grad-conv", "grad_conv_output"), ("chain-grad-input", "grad_input")]:
        assert chain_plane(widget, grid) == shown_plane(native[key]), grid
    assert chain_plane(widget, "chain-grad-weight", "0/0") == shown_plane(native["grad_weight"])
    start = widget.control("chain-loss").text
    assert start == shown(native["loss"])

    # A tap on X (2,3) marks the Y1 cells it feeds: its region P.
    widget.click(chain_cell(widget, "chain-input", 2, 3))
    fed = sorted([oh, ow] for oh, ow, *_ in native["connections"]["feeds"][2][3])
    assert fed == [[r, c] for r in range(3) for c in range(1, 4)]
    widget.wait("return arguments[0].getAttribute('aria-selected') === 'true'", chain_cell(widget, "chain-input", 2, 3),
                what="X (2,3) selected")
    assert sorted(chain_marked(widget, "chain-conv", "data-fed")) == fed

    # One step of gradient descent at the view's learning rate lowers the loss to chain_trace's.
    widget.click(widget.control("chain-step"))
    widget.wait("return location.hash.endsWith('&steps=1')", what="the step in the link")
    chain_settled(widget)
    rate = float(widget.driver.execute_script("return location.hash").split("&lr=")[1].split("&")[0])
    stepped = poolgrad.chain_trace(CAPSTONE_X, CAPSTONE_W, target=CAPSTONE_T, learning_rate=rate, steps=1)
    widget.wait("return document.getElementById('chain-loss').textContent === arguments[0]", shown(stepped["loss"]),
                what=f"#chain-loss to read {shown(stepped['loss'])}")
    assert stepped["loss"] < native["loss"]
    assert chain_plane(widget, "chain-weight", "0/0") == shown_plane(stepped["weight"])


def picture_settled(widget):
    """Wait until the picture view drew the state shown (no decode, no request under way)."""
    try:
        widget.wait("""
            const row = document.getElementById("picture-row");
            return Boolean(row && row.getAttribute("aria-busy") === "false"
                && document.querySelectorAll('canvas[data-picture="output"]').length === 1);
        """, timeout=widget.BOOT_TIMEOUT_S, what="the picture view to be drawn")
    except AssertionError as timed_out:
        raise AssertionError(f"{timed_out}; #status says {widget.status()}, problems {widget.problems()}") from None


def picture_sides(widget):
    return widget.driver.execute_script("""return Object.fromEntries([...document.querySelectorAll('canvas[data-picture]')]
        .map((c) => [c.dataset.picture, [c.height, c.width]]))""")


def zoom_cells(widget):
    """The zoom panel's input cells: {(row, col): (text, is the argmax)}."""
    cells = widget.driver.execute_script("""return [...document.querySelectorAll('td[data-grid="zoom-input"]')]
        .map((c) => [Number(c.dataset.row), Number(c.dataset.col), c.textContent, c.dataset.argmax === "true"])""")
    return {(r, c): (text, argmax) for r, c, text, argmax in cells}


def expected_zoom(planes, pooled, selected, margin=1):
    """The zoom the page should show for output `selected` of max pooling `planes`: the
    window's cells (from the max pooling's geometry) with a margin, in the first channel."""
    height, width = planes.shape[1:]
    (k, s, p) = (pooled["settings"][key] for key in ("kernel_size", "stride", "padding"))
    i, j = selected
    rows = [r for r in range(i * s - p - margin, i * s - p + k + margin) if 0 <= r < height]
    cols = [c for c in range(j * s - p - margin, j * s - p + k + margin) if 0 <= c < width]
    argmax = divmod(int(pooled["indices"][0][0, i, j]), width)
    return {(r, c): (str(planes[0, r, c]), (r, c) == argmax) for r in rows for c in cols}


def test_a_sample_is_drawn_at_the_formulas_sides_and_a_tap_zooms_on_poolgrads_numbers(widget):
    from PIL import Image
    from selenium.webdriver.common.action_chains import ActionChains

    widget.set_hash("#view=picture&pic=camera&psize=256&k=8&s=8")
    picture_settled(widget)
    grey = np.asarray(Image.open(SAMPLES / "camera.png").convert("L"))
    rgba = np.stack([grey, grey, grey, np.full_like(grey, 255)], axis=2)
    planes = picture_planes(rgba)
    pooled = pool_picture(planes, 8, 8)
    assert picture_sides(widget) == {"input": [256, 256], "output": list(pooled["stages"][0].shape[1:])}
    # A tap at the middle of output pixel (20, 9), wherever the canvas is drawn on screen.
    canvas = widget.driver.find_element("css selector", 'canvas[data-picture="output"]')
    widget.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", canvas)
    box = canvas.rect
    height, width = pooled["stages"][0].shape[1:]
    ActionChains(widget.driver).move_to_element_with_offset(
        canvas, round((9.5 / width - 0.5) * box["width"]), round((20.5 / height - 0.5) * box["height"])).click().perform()
    widget.wait("return location.hash.includes('&psel=20,9')", what="output pixel (20,9) selected")
    picture_settled(widget)
    output = widget.driver.find_element("css selector", 'td[data-grid="zoom-output"]')
    assert output.text == str(pooled["stages"][0][0, 20, 9])
    assert zoom_cells(widget) == expected_zoom(planes, pooled, (20, 9))


def test_an_uploaded_png_of_known_pixels_is_pooled_as_poolgrad_pools_it(widget, tmp_path):
    widget.set_hash("#view=picture&k=3&s=2&p=1&psel=1,2")
    picture_settled(widget)
    path = tmp_path / "known.png"
    path.write_bytes(png(KNOWN_RGBA[..., :3]))
    widget.control("picture-file").send_keys(str(path))
    widget.wait("return document.getElementById('picture-note').textContent.includes('known.png')",
                what="the uploaded picture's note")
    picture_settled(widget)
    planes = picture_planes(KNOWN_RGBA)
    pooled = pool_picture(planes, 3, 2, 1)
    assert picture_sides(widget) == {"input": [6, 7], "output": [3, 4]}
    assert widget.driver.find_element("css selector", 'td[data-grid="zoom-output"]').text == str(pooled["stages"][0][0, 1, 2])
    assert zoom_cells(widget) == expected_zoom(planes, pooled, (1, 2))
    assert widget.control("picture-error").text == ""
