"""The lesson's reference numbers (docs/design.md, "Reference numbers") as the widget shows them, and selection."""

from playwright.sync_api import expect

from lesson_fixture import FIXTURE


AVERAGE_EXAMPLE = "12,10,9,6;11,8,13,5;2,14,15,0;4,3,7,1"


def flat(cells, width=4):
    return sorted(row * width + col for row, col in cells)


def test_two_by_two_stride_two_argmax_and_gradient(booted):
    widget = booted
    widget.open(f"#k=2&s=2&p=0&d=1&mode=max&grad=1&x={FIXTURE}&g=1,2;3,4")
    assert widget.values("output") == [["4", "8"], ["9", "-2"]]
    expected_argmax = {(0, 0): 5, (0, 1): 6, (1, 0): 13, (1, 1): 11}
    for (i, j), flat_index in expected_argmax.items():
        widget.cell("output", i, j).click()
        expect(widget.cell("output", i, j)).to_have_attribute("aria-selected", "true")
        assert flat(widget.marked("data-argmax")) == [flat_index]
        window = flat(widget.marked("data-in-window"))
        assert len(window) == 4 and flat_index in window
        assert len(widget.marked("aria-selected", grid="output")) == 1
    # Gradients 1, 2, 3, 4 land on cells 5, 6, 13, 11; every other cell gets 0.
    grad_input = [value for row in widget.values("grad-input") for value in row]
    assert {i: v for i, v in enumerate(grad_input) if v != "0"} == {5: "1", 6: "2", 13: "3", 11: "4"}
    assert widget.values("grad-output") == [["1", "2"], ["3", "4"]]
    expect(widget.page.locator("#totals")).to_contain_text("Upstream total 10; input-gradient total 10. Equal")
    expect(widget.page.locator("[data-axis=rows]")).to_contain_text("⌊(4 + 2·0 − 1·(2 − 1) − 1) / 2⌋ + 1 = ⌊2 / 2⌋ + 1 = 2")


def test_three_by_three_shared_cell_then_average_mode(booted):
    widget = booted
    """One page load: the 3 x 3 overlap, then average pooling through a hash change."""
    widget.open(f"#k=3&s=1&p=0&d=1&mode=max&grad=1&x={FIXTURE}")
    assert widget.values("output") == [["8", "8"], ["9", "9"]]
    widget.cell("output", 0, 1).click()
    expect(widget.page.locator("#explanation")).to_contain_text(
        "Output (0,1) = 8 is the maximum of the window rows 0–2, cols 1–3, taken from input cell (1,2)."
    )
    assert widget.marked("data-argmax") == [[1, 2]]
    assert len(widget.marked("data-in-window")) == 9
    # The two shared cells are marked (not by colour alone) and their sums explained.
    assert sorted(widget.marked("data-shared", "2", grid="grad-input")) == [[1, 2], [3, 1]]
    assert widget.cell("grad-input", 1, 2).inner_text() == "2"
    shared = widget.page.locator("#shared-sums")
    expect(shared).to_contain_text("Cell (1,2) collects from outputs (0,0) and (0,1): 1 + 1 = 2")
    expect(shared).to_contain_text("Cell (3,1) collects from outputs (1,0) and (1,1): 1 + 1 = 2")
    # A 1..n upstream gradient gives the overlap sum from the lesson's exercise: 1 + 2 = 3.
    widget.page.click("#grad-count")
    expect(widget.cell("grad-input", 1, 2)).to_have_text("3")
    expect(shared).to_contain_text("1 + 2 = 3")
    expect(widget.page.locator("#explanation")).to_contain_text("1 + 2 = 3")
    assert "g=1,2;3,4" in widget.hash()
    legend = widget.page.locator("#legend")
    # inner_text, not text content: what is hidden for the other mode is not read.
    assert "its maximum (argmax)" in legend.inner_text()
    assert legend.locator(".swatch-pad").inner_text() == "-∞"

    widget.set_hash(f"#k=2&s=2&p=0&d=1&mode=avg&grad=1&x={AVERAGE_EXAMPLE}&g=1,2;3,4")
    widget.wait_settled()
    assert widget.values("output") == [["10.25", "8.25"], ["5.75", "5.75"]]
    assert widget.values("grad-input") == [
        ["0.25", "0.25", "0.5", "0.5"],
        ["0.25", "0.25", "0.5", "0.5"],
        ["0.75", "0.75", "1", "1"],
        ["0.75", "0.75", "1", "1"],
    ]
    widget.cell("output", 0, 0).click()
    explanation = widget.page.locator("#explanation")
    expect(explanation).to_contain_text("Output (0,0) = 10.25 is the mean of the window rows 0–1, cols 0–1: (12 + 10 + 11 + 8) / 4 = 10.25.")
    expect(explanation).to_contain_text("1 / 4 = 0.25")
    assert widget.marked("data-argmax") == []
    assert len(widget.marked("data-in-window")) == 4
    assert widget.page.locator("#dilation").is_disabled()
    # The legend speaks of average pooling: no argmax, padding counted as 0.
    assert "argmax" not in legend.inner_text()
    assert "in several outputs' windows (×n)" in legend.inner_text()
    assert legend.locator(".swatch-pad").inner_text() == "0"


def test_keyboard_padding_dilation_and_preview(booted):
    widget = booted
    page = widget.page
    widget.open(f"#k=3&s=1&p=1&d=1&mode=max&grad=0&x={FIXTURE}")
    # A ring of padded cells with coordinates -1 and 4 around the 4 x 4 input.
    pads = widget.marked("data-pad")
    assert len(pads) == 6 * 6 - 16
    assert {r for r, _ in pads} == {-1, 0, 1, 2, 3, 4}
    assert widget.cell("input", -1, -1).inner_text() == "-∞"
    # Keyboard: arrows move the roving focus, Enter and Space select.
    widget.cell("output", 0, 0).focus()
    page.keyboard.press("ArrowRight")
    expect(widget.cell("output", 0, 1)).to_be_focused()
    page.keyboard.press("Enter")
    expect(widget.cell("output", 0, 1)).to_have_attribute("aria-selected", "true")
    expect(widget.cell("output", 0, 1)).to_be_focused()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press(" ")
    expect(widget.cell("output", 1, 0)).to_have_attribute("aria-selected", "true")
    expect(widget.cell("output", 0, 1)).to_have_attribute("aria-selected", "false")
    assert widget.cell("output", 1, 0).get_attribute("tabindex") == "0"
    assert "sel=1,0" in widget.hash()
    # Output (0,0)'s window covers padding; a padded cell is never the argmax.
    widget.cell("output", 0, 0).click()
    window = widget.marked("data-in-window")
    assert [-1, -1] in window and len(window) == 9
    assert widget.marked("data-argmax") == [[1, 1]]
    for row, col in widget.marked("data-argmax"):
        assert widget.cell("input", row, col).get_attribute("data-pad") is None
    # Hover previews another window without touching the selection's attributes.
    widget.cell("output", 3, 3).hover()
    assert widget.cell("output", 3, 3).get_attribute("data-preview") == "true"
    assert [4, 4] in widget.marked("data-preview", "window")
    assert widget.cell("output", 0, 0).get_attribute("aria-selected") == "true"
    assert len(widget.marked("data-in-window")) == 9 and [-1, -1] in widget.marked("data-in-window")
    # Dilation: the window samples only its k x k cells, spread d apart.
    widget.set_hash(f"#k=2&s=1&p=0&d=2&mode=max&grad=0&sel=0,0&x={FIXTURE}")
    widget.wait_settled()
    assert widget.values("output") == [["5", "6"], ["8", "9"]]
    assert sorted(widget.marked("data-in-window")) == [[0, 0], [0, 2], [2, 0], [2, 2]]
    assert widget.marked("data-argmax") == [[0, 2]]
    expect(page.locator("#explanation")).to_contain_text("the window rows 0, 2, cols 0, 2")
