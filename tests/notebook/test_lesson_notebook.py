"""docs/notebook.ipynb, the notebook lesson, runs from top to bottom (natively, with
nbclient; PyTorch is optional: its cell says when it is missing), and its numbers are the
lesson's reference numbers."""

import json
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("anywidget")

LESSON = Path(__file__).resolve().parents[2] / "docs" / "notebook.ipynb"


def _texts(cell):
    return "".join(output.get("text", "") for output in cell.outputs if output.output_type == "stream")


def test_the_lesson_runs_and_shows_the_reference_numbers(tmp_path):
    notebook = nbformat.read(LESSON, as_version=4)
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert not [o for cell in code for o in cell.outputs if o.output_type == "error"]
    widgets = [o for cell in code for o in cell.outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert len(widgets) == 2  # the lesson's widget, and the check's failing case
    assert _texts(code[1]).split("\n")[:4] == ["[[ 4  8]", " [ 9 -2]]", "[[ 5  6]", " [13 11]]"]
    assert _texts(code[2]) in ("PyTorch agrees: output, indices and the input gradient\n",
                               "PyTorch is not installed: skipping the autograd check (pip install torch to run it)\n")
    assert _texts(code[3]).startswith("[[8 8]\n [9 9]]\n")
    assert _texts(code[4]).startswith("Case 2 of 13 fails on negatives")


def test_the_lesson_is_stored_without_outputs():
    # Saved clean, so a reader's first run is the one that draws.
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    assert all(cell.get("outputs", []) == [] for cell in cells if cell["cell_type"] == "code")
