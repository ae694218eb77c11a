"""poolgrad.Widget in a real JupyterLab 4 and Notebook 7, driven in headless Chromium:
the grids of a cell's widget, a tap read back in the next cell, a change from a cell
redrawn, the errors, the time from a change to the redraw, and the static HTML export."""

import pytest

from lesson_fixture import FIXTURE_ROWS

pytestmark = pytest.mark.notebook

MAKE = f"import numpy as np, poolgrad\nw = poolgrad.Widget({FIXTURE_ROWS}, kernel_size=2, gradient=True)\nw"


@pytest.mark.parametrize("app", ["lab", "notebook7"])
def test_a_widget_draws_taps_and_redraws(open_notebook, app):
    nb = open_notebook([MAKE, "print(w.selection)", "w.kernel_size = 3; w.stride = 1", "w.padding = 5"], app=app)
    nb.run(0)
    assert nb.grid(0, "output") == [["4", "8"], ["9", "-2"]]
    assert nb.grid(0, "grad-input") == [["0", "0", "0", "0"], ["0", "1", "1", "0"], ["0", "0", "0", "1"], ["0", "1", "0", "0"]]
    widget = nb.widget(0)
    widget.locator('[data-grid="output"][data-row="0"][data-col="1"]').click()
    assert widget.locator('[aria-selected="true"]').evaluate("(c) => [c.dataset.row, c.dataset.col]") == ["0", "1"]
    assert widget.locator('[data-grid="input"][data-argmax="true"]').evaluate("(c) => [c.dataset.row, c.dataset.col]") == ["1", "2"]
    nb.run(1)
    assert nb.text(1).strip() == "(0, 1)"
    since = nb.run(2)
    nb.next_draw(0, since)
    assert nb.grid(0, "output") == [["8", "8"], ["9", "9"]]
    nb.run(3)
    assert "ValueError" in nb.text(3) and "padding" in nb.text(3)
    assert nb.grid(0, "output") == [["8", "8"], ["9", "9"]]
    assert nb.problems == []
