// The grids' input: tapping or Enter on an output selects it, a hover previews a window,
// the arrow keys move a roving focus, and an input or upstream-gradient cell is edited in
// place. Every edit becomes a state change through the widget's change(); nothing here
// draws but the hover preview (render.js applyPreview) and the focus.

import { decodeNumber, encodeNumber } from "./format.js";
import { applyPreview } from "./render.js";
import { InputError, parseCellValue } from "./state.js";

// `w`: the mounted widget (mount.js): its stage, regions, state, view, drawn, guide,
// currentTrace(), change(mutator), render(), updateStatus(), gradientShape(),
// announceSelection() and controlError.
export function bindGridInput(w) {
  // The exact spelling of a cell's value, which its editor starts from ("0.123456", "1e-7",
  // "Infinity", "-0"), where the grid shows 4 decimals: committing it unchanged is a no-op.
  const exactText = (value) => encodeNumber(decodeNumber(value));

  // ---- grid interactions: tap, hover preview, keyboard, in-place editing ----

  function cellOf(target) {
    const cell = target.closest?.("[data-grid]");
    if (!cell || cell.dataset.pad === "true") return null;
    return { node: cell, grid: cell.dataset.grid, row: Number(cell.dataset.row), col: Number(cell.dataset.col) };
  }

  function select(row, col) {
    w.view.focus.output = [row, col];
    for (const cell of w.regions.outputGrid.querySelectorAll('[data-grid="output"][tabindex="0"]')) cell.tabIndex = -1;
    const target = w.regions.outputGrid.querySelector(`[data-grid="output"][data-row="${row}"][data-col="${col}"]`);
    if (target) target.tabIndex = 0;
    w.guide.note("pick");
    w.change((state) => {
      state.sel = [row, col];
      state.selImplicit = false;
    });
    w.announceSelection();
  }

  function startEditing(cell, draft) {
    let value;
    if (cell.grid === "input") value = w.state.x[cell.row]?.[cell.col];
    else if (w.currentTrace()?.grad_output) value = w.currentTrace().grad_output[cell.row]?.[cell.col];
    if (value === undefined) return;
    w.view.focus[cell.grid] = [cell.row, cell.col];
    const initial = exactText(value);
    w.view.editing = { grid: cell.grid, row: cell.row, col: cell.col, draft: draft ?? initial, initial };
    w.render();
    const editor = w.stage.querySelector("[data-editor]");
    if (editor && draft === undefined) editor.select();
  }

  function commitEdit(editor) {
    const editing = w.view.editing;
    if (!editing) return;
    const { grid, row, col } = editing;
    const [height, width] = grid === "input" ? [w.state.x.length, w.state.x[0].length] : w.gradientShape() ?? [0, 0];
    if (editor.value.trim() === editing.initial || row >= height || col >= width) {
      cancelEdit();
      return;
    }
    let value;
    try {
      value = parseCellValue(editor.value, `${editing.grid === "input" ? "Input" : "Upstream gradient"} cell (${editing.row},${editing.col})`);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      w.controlError = error.message;
      w.updateStatus();
      editor.setAttribute("aria-invalid", "true");
      return;
    }
    w.controlError = null;
    w.change((state) => {
      if (grid === "input") {
        state.x[row][col] = value;
      } else {
        state.g ??= Array.from({ length: height }, () => Array(width).fill(1));
        state.g[row][col] = value;
      }
    });
    w.stage.querySelector(`[data-grid="${grid}"][data-row="${row}"][data-col="${col}"]`)?.focus();
  }

  function cancelEdit() {
    const editing = w.view.editing;
    w.view.editing = null;
    w.controlError = null;
    w.render();
    if (editing) w.stage.querySelector(`[data-grid="${editing.grid}"][data-row="${editing.row}"][data-col="${editing.col}"]`)?.focus();
  }

  const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

  // The shape of a grid as drawn: the input's from the state, the others' from the trace
  // they were drawn from.
  function gridShape(grid) {
    if (grid === "input") return [w.state.x.length, w.state.x[0].length];
    return grid === "grad-input" ? w.drawn.trace.input_shape : w.drawn.trace.output_shape;
  }

  function moveFocus(cell, key) {
    const table = cell.node.closest("table");
    const [lastRow, lastCol] = gridShape(cell.grid).map((side) => side - 1);
    let [row, col] = [cell.row, cell.col];
    if (key in ARROWS) {
      row = Math.min(lastRow, Math.max(0, row + ARROWS[key][0]));
      col = Math.min(lastCol, Math.max(0, col + ARROWS[key][1]));
    } else if (key === "Home") col = 0;
    else if (key === "End") col = lastCol;
    const target = table.querySelector(`[data-grid="${cell.grid}"][data-row="${row}"][data-col="${col}"]`);
    cell.node.tabIndex = -1;
    target.tabIndex = 0;
    target.focus();
    w.view.focus[cell.grid] = [row, col];
    if (cell.grid === "output") applyPreview(w.stage, w.trace, [row, col], w.state.sel);
  }

  w.stage.addEventListener("click", (event) => {
    if (event.target.closest("[data-editor]")) return;
    const cell = cellOf(event.target);
    if (!cell) return;
    if (cell.grid === "output") select(cell.row, cell.col);
    else if (cell.grid === "input" || cell.grid === "grad-output") startEditing(cell);
  });

  w.stage.addEventListener("keydown", (event) => {
    const editor = event.target.closest("[data-editor]");
    if (editor) {
      if (event.key === "Enter") {
        event.preventDefault();
        commitEdit(editor);
      } else if (event.key === "Escape") {
        event.preventDefault();
        cancelEdit();
      }
      return;
    }
    const cell = cellOf(event.target);
    if (!cell) return;
    if (event.key in ARROWS || event.key === "Home" || event.key === "End") {
      event.preventDefault();
      moveFocus(cell, event.key);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      if (cell.grid === "output") select(cell.row, cell.col);
      else if (cell.grid === "input" || cell.grid === "grad-output") startEditing(cell);
    } else if (event.key === "Escape" && cell.grid === "output") {
      w.change((state) => {
        state.sel = null;
        state.selImplicit = false;
      });
      w.announceSelection();
    } else if ((cell.grid === "input" || cell.grid === "grad-output") && /^[-+.\d]$/.test(event.key)) {
      event.preventDefault();
      startEditing(cell, event.key);
    }
  });

  w.stage.addEventListener("focusout", (event) => {
    const editor = event.target.closest?.("[data-editor]");
    if (editor && w.view.editing && editor.isConnected) commitEdit(editor);
  });

  w.stage.addEventListener("mouseover", (event) => {
    const cell = cellOf(event.target);
    const hovered = cell?.grid === "output" ? [cell.row, cell.col] : null;
    applyPreview(w.stage, w.currentTrace(), hovered, w.state.sel);
  });
  w.stage.addEventListener("mouseleave", () => applyPreview(w.stage, null, null));

  // Focusing (or clicking) an input cell counts as inspecting it, for the w.guide.
  w.stage.addEventListener("focusin", (event) => {
    const cell = cellOf(event.target);
    if (cell?.grid !== "input") return;
    w.view.inspected = [cell.row, cell.col];
    w.guide.note("pick");
    w.guide.update(w.state, w.currentTrace(), { inspected: w.view.inspected });
  });
}
