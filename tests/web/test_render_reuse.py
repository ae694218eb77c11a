"""render.js updates a grid of unchanged shape in place; the result must be exactly what a
fresh render of the same state draws, and the step-through's marks must not leak into it."""

from playwright.sync_api import expect

from lesson_fixture import FIXTURE


# Every grid cell as (grid, row, col, text, sorted attributes including the inline style).
SNAPSHOT = """() => [...document.querySelectorAll("[data-grid]")].map((cell) => [
    cell.dataset.grid, cell.dataset.row, cell.dataset.col, cell.textContent,
    cell.getAttributeNames().sort().map((name) => `${name}=${cell.getAttribute(name)}`).join(" | "),
])"""


def snapshot_after_reload(widget):
    hash_ = widget.hash()
    widget.page.reload()
    widget.wait_settled()
    assert widget.hash() == hash_
    return widget.page.evaluate(SNAPSHOT)


def test_in_place_update_matches_a_fresh_render(widget):
    page = widget.page
    widget.open(f"#k=3&s=1&p=0&d=1&mode=max&grad=1&sel=0,1&x={FIXTURE}")
    # 3 x 3, stride 1: two outputs share (1,2) and two share (3,1), so those input cells
    # carry data-shared and the selection marks a window and an argmax.
    assert widget.marked("data-shared", "2") == [[1, 2], [3, 1]]
    page.evaluate("() => { window.keptInputGrid = document.querySelector('#input-grid > table'); }")
    page.fill("#kernel", "2")
    page.fill("#stride", "2")
    widget.wait_settled()
    assert widget.values("output") == [["4", "8"], ["9", "-2"]]
    # The 4 x 4 input kept its shape, so its table was updated, not replaced ...
    assert page.evaluate("() => document.querySelector('#input-grid > table') === window.keptInputGrid")
    # ... and no mark of the 3 x 3 windows survived: no cell is shared any more.
    assert widget.marked("data-shared", "2") == []
    updated = page.evaluate(SNAPSHOT)
    assert updated == snapshot_after_reload(widget)

    # Average pooling recolours the output and drops the argmax marks and tags.
    page.select_option("#mode", "avg")
    widget.wait_settled()
    assert widget.marked("data-argmax") == []
    updated = page.evaluate(SNAPSHOT)
    assert updated == snapshot_after_reload(widget)


def test_step_through_marks_do_not_survive_a_parameter_change(widget):
    page = widget.page
    widget.open(f"#k=2&s=2&p=0&d=1&mode=max&grad=0&x={FIXTURE}")
    page.click("#player-forward")
    page.click("#player-forward")
    expect(page.locator('[data-grid="input"][data-step]').first).to_be_visible()
    page.fill("#stride", "1")
    widget.wait_settled()
    assert page.locator("[data-step], [data-pending], [data-partial]").count() == 0
    assert widget.values("input") == [row.split(",") for row in FIXTURE.split(";")]
    assert page.evaluate(SNAPSHOT) == snapshot_after_reload(widget)


def test_the_step_through_draws_through_render_updating_cells_in_place(widget):
    page = widget.page
    widget.open(f"#k=2&s=2&p=0&d=1&mode=max&grad=1&sel=0,1&x={FIXTURE}")
    page.evaluate("() => { window.keptInputGrid = document.querySelector('#input-grid > table'); }")
    for _ in range(3):
        page.click("#player-forward")  # position 0, then steps 1 and 2
    assert widget.marked("data-step", "argmax") == [[1, 2]]
    assert sorted(widget.marked("data-pending", grid="output")) == [[1, 0], [1, 1]]
    assert widget.cell("output", 1, 0).text_content() == ""
    # A marked grid is updated in place like any other render, selection marks included.
    assert page.evaluate("() => document.querySelector('#input-grid > table') === window.keptInputGrid")
    assert widget.cell("output", 0, 1).get_attribute("aria-selected") == "true"
    assert widget.cell("output", 1, 0).get_attribute("aria-label") == (
        "Output row 1, col 0: 9; not computed yet in the step-through")
    page.click("#player-reset")
    assert page.locator("[data-step], [data-pending], [data-partial]").count() == 0
    assert page.evaluate("() => document.querySelector('#input-grid > table') === window.keptInputGrid")
    assert page.evaluate(SNAPSHOT) == snapshot_after_reload(widget)
