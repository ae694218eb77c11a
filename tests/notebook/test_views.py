"""poolgrad.Widget's chain view and picture view in a real JupyterLab 4, driven in headless
Chromium: the numbers the cell's widget draws against poolgrad run natively here, Step
and a tap from the widget read back in the next cell, a change from a cell redrawn."""

import numpy as np
import pytest
from playwright.sync_api import expect

import poolgrad
from poolgrad.picture import fit_picture, picture_rgba
from poolgrad.widget import chain_arguments, chain_start, compute_picture
from widget_driver import shown

pytestmark = pytest.mark.notebook

# A plane of a chain grid in the widget `el`: its cells' texts, row by row.
CHAIN_PLANE = """(el, [grid, plane]) => {
  const table = [...el.querySelectorAll(`#chain table[data-grid-name="${grid}"]`)].find((t) => t.dataset.plane === plane);
  if (!table) return null;
  return [...table.querySelectorAll("tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)).filter((row) => row.length);
}"""


def chain_widget(nb, index):
    found = nb.cell(index).locator(".poolgrad-notebook")
    expect(found.locator('#chain [data-grid="chain-conv"]').first).to_be_visible(timeout=60_000)
    expect(found.locator("#status")).to_have_attribute("data-state", "ready")
    return found


def plane(widget, grid, key="0"):
    return widget.evaluate(CHAIN_PLANE, [grid, key])


def shown_plane(values):
    return [[shown(v) for v in row] for row in np.asarray(values, dtype=float)[0]]


def native_chain(**settings):
    start = chain_start()
    return poolgrad.chain_trace(**chain_arguments(start["x"], start["weight"], chain_target=start["target"], **settings))


def test_the_chain_view_draws_chain_traces_numbers_and_steps_in_the_kernel(open_notebook):
    nb = open_notebook(["import poolgrad\nw = poolgrad.Widget(view='chain')\nw",
                        "print(w.steps, w.chain['loss'])",
                        "w.chain_upstream = 'ramp'"])
    nb.run(0)
    widget = chain_widget(nb, 0)
    expect(widget.locator("#view")).to_have_value("chain")
    native = native_chain()
    for grid, key in [("chain-input", "input"), ("chain-conv", "conv_output"), ("chain-pool", "pool_output"),
                      ("chain-target", "target"), ("chain-grad-pool", "grad_pool_output"),
                      ("chain-grad-conv", "grad_conv_output"), ("chain-grad-input", "grad_input")]:
        assert plane(widget, grid) == shown_plane(native[key]), grid
    assert plane(widget, "chain-grad-weight", "0/0") == shown_plane(native["grad_weight"][0])
    expect(widget.locator("#chain-loss")).to_have_text(shown(native["loss"]))
    # Step: the view asks the kernel for one more step, and the kernel's w.chain follows.
    stepped = native_chain(steps=1)
    assert stepped["loss"] < native["loss"]
    widget.locator("#chain-step").click()
    expect(widget.locator("#chain-loss")).to_have_text(shown(stepped["loss"]))
    assert plane(widget, "chain-weight", "0/0") == shown_plane(stepped["weight"][0])
    nb.run(1)
    assert nb.text(1).strip() == f"1 {stepped['loss']}"
    # A made-up gradient set from a cell: the kernel's ramp is the one the view draws.
    since = nb.run(2)
    nb.next_draw(0, since)
    ramp = native_chain(steps=1, chain_upstream="ramp")
    expect(widget.locator("#chain-upstream")).to_have_value("ramp")
    assert plane(widget, "chain-grad-pool") == shown_plane(ramp["grad_last_output"])
    assert plane(widget, "chain-grad-input") == shown_plane(ramp["grad_input"])
    assert nb.problems == []


# 4 x 4 colour pixels whose channels differ, and a grey picture larger than 128 on a side.
COLOUR = "np.arange(48, dtype=np.uint8).reshape(4, 4, 3) * 5"
GREY = "(np.arange(300 * 200) % 251).astype(np.uint8).reshape(300, 200)"


def canvas_sides(widget):
    return widget.evaluate("""(el) => Object.fromEntries([...el.querySelectorAll("canvas[data-picture]")]
        .map((c) => [c.dataset.picture, [c.height, c.width]]))""")


def picture_settled(widget):
    expect(widget.locator('#picture canvas[data-picture="output"]')).to_be_attached(timeout=60_000)
    expect(widget.locator("#picture-row")).to_have_attribute("aria-busy", "false")


def test_a_picture_is_pooled_by_the_kernel_and_its_zoom_reads_back(open_notebook):
    nb = open_notebook([f"import numpy as np, poolgrad\nw = poolgrad.Widget({COLOUR}, gradient=True, picture_selection=(0, 1))\nw",
                        "print(w.picture_selection, w.picture['zoom']['output'])",
                        f"g = poolgrad.Widget({GREY}, view='picture')\ng",
                        "w.picture_channel = 'g'"])
    nb.run(0)
    widget = nb.cell(0).locator(".poolgrad-notebook")
    picture_settled(widget)
    expect(widget.locator("#view")).to_have_value("picture")
    assert canvas_sides(widget) == {"input": [4, 4], "output": [2, 2], "grad-input": [4, 4]}
    # The learner's own picture and the samples are the page's: here the kernel's picture shows.
    expect(widget.locator("#picture-sample")).to_be_hidden()
    expect(widget.locator("#picture-file")).to_be_hidden()
    image = np.arange(48, dtype=np.uint8).reshape(4, 4, 3) * 5
    native = compute_picture(picture_rgba(image), gradient=True, picture_selection=(0, 1), kernel_size=2,
                             padding=0, dilation=1, ceil_mode=False, mode="max", count_include_pad=True)
    zoom = native["zoom"]
    expect(widget.locator('td[data-grid="zoom-output"]')).to_have_text(shown(zoom["output"][0][1]))
    argmax = widget.locator('td[data-grid="zoom-input"][data-argmax="true"]')
    assert [int(argmax.get_attribute("data-row")), int(argmax.get_attribute("data-col"))] == zoom["argmax"][0][1]
    assert argmax.inner_text() == shown(zoom["input"][zoom["argmax"][0][1][0]][zoom["argmax"][0][1][1]])
    expect(widget.locator("#picture-share")).to_contain_text(
        f"{native['gradient_share']['reached']} of the input's {native['gradient_share']['pixels']} pixels")
    # A tap on the output picture selects a pixel in the kernel too.
    output = widget.locator('canvas[data-picture="output"]')
    box = output.bounding_box()
    output.click(position={"x": box["width"] * 0.25, "y": box["height"] * 0.75})
    expect(widget.locator('td[data-grid="zoom-output"][data-row="1"][data-col="0"]')).to_have_count(1)
    expect(widget.locator("#picture-row")).to_have_attribute("aria-busy", "false")
    nb.run(1)
    tapped = compute_picture(picture_rgba(image), gradient=True, picture_selection=(1, 0), kernel_size=2,
                             padding=0, dilation=1, ceil_mode=False, mode="max", count_include_pad=True)
    assert nb.text(1).strip() == f"(1, 0) {tapped['zoom']['output']}"
    # A grey picture larger than the size: scaled down by the kernel to 128 on its longer side.
    nb.run(2)
    grey = nb.cell(2).locator(".poolgrad-notebook")
    picture_settled(grey)
    expect(grey.locator("#picture-channel")).to_have_value("grey")
    height, width = fit_picture(np.zeros((300, 200)), 128).shape
    assert canvas_sides(grey) == {"input": [height, width], "output": [height // 2, width // 2]}
    expect(grey.locator("#picture-note")).to_contain_text(f"scaled down from 300 × 200 to {height} × {width}")
    # A channel set from a cell: the zoom shows the green plane's numbers.
    nb.run(3)
    green = compute_picture(picture_rgba(image), picture_channel="g", gradient=True, picture_selection=(1, 0),
                            kernel_size=2, padding=0, dilation=1, ceil_mode=False, mode="max",
                            count_include_pad=True)
    expect(widget.locator("#picture-channel")).to_have_value("g")
    expect(widget.locator('td[data-grid="zoom-output"]')).to_have_text(shown(green["zoom"]["output"][1][0]))
    assert canvas_sides(widget) == {"input": [4, 4], "output": [2, 2], "grad-input": [4, 4]}
    assert nb.problems == []
