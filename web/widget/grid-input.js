// The grids' input: tapping or Enter on an output selects it, a hover previews a window,
// the arrow keys move a roving focus, and an input or upstream-gradient cell is edited in
// place. Every edit becomes a state change through the widget's change(); nothing here
// draws but the hover preview (render.js applyPreview) and the focus.

import { decodeNumber, encodeNumber } from "./format.js";
import { applyPreview } from "./render.js";
import { InputError, parseCellValue } from "./state.js";

// The exact spelling of a cell's value, which its editor starts from ("0.123456", "1e-7",
// "Infinity", "-0"), where the grid shows 4 decimals: committing it unchanged is a no-op.
export const exactText = (value) => encodeNumber(decodeNumber(value));

const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

// The grids' keys, the chain's too: an editor's Enter, Escape and leaving; the arrows, Home
// and End move the roving focus; Enter and Space activate; a digit, sign or point opens an
// editable cell's editor. `grids`: cellOf, lastCell, moved, activate, escape, editable,
// startEditing, commit, cancel.
export function bindGridKeys(root, grids) {
  root.addEventListener("keydown", (event) => {
    const editor = event.target.closest?.("[data-editor]");
    if (editor) {
      if (event.key === "Enter") {
        event.preventDefault();
        grids.commit(editor);
      } else if (event.key === "Escape") {
        event.preventDefault();
        grids.cancel();
      }
      return;
    }
    const cell = grids.cellOf(event.target);
    if (!cell) return;
    const { key } = event;
    if (key in ARROWS || key === "Home" || key === "End") {
      event.preventDefault();
      const [lastRow, lastCol] = grids.lastCell(cell);
      let [row, col] = [cell.row, cell.col];
      if (key in ARROWS) {
        row = Math.min(lastRow, Math.max(0, row + ARROWS[key][0]));
        col = Math.min(lastCol, Math.max(0, col + ARROWS[key][1]));
      } else col = key === "Home" ? 0 : lastCol;
      const target = cell.node.closest("table").querySelector(`[data-row="${row}"][data-col="${col}"]`);
      cell.node.tabIndex = -1;
      target.tabIndex = 0;
      target.focus();
      grids.moved(cell, [row, col]);
    } else if (key === "Enter" || key === " ") {
      event.preventDefault();
      grids.activate(cell);
    } else if (key === "Escape") {
      grids.escape(cell);
    } else if (grids.editable(cell) && /^[-+.\d]$/.test(key)) {
      event.preventDefault();
      grids.startEditing(cell, key);
    }
  });
  root.addEventListener("focusout", (event) => {
    const editor = event.target.closest?.("[data-editor]");
    if (editor?.isConnected) grids.commit(editor);
  });
}

// `w`: the mounted widget (mount.js): its stage, regions, state, view, drawn, guide,
// currentTrace(), change(mutator), render(), updateStatus(), gradientShape(),
// announceSelection() and controlError.
export function bindGridInput(w) {
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

  // The shape of a grid as drawn: the input's from the state, the others' from the trace
  // they were drawn from.
  function gridShape(grid) {
    if (grid === "input") return [w.state.x.length, w.state.x[0].length];
    return grid === "grad-input" ? w.drawn.trace.input_shape : w.drawn.trace.output_shape;
  }

  const editable = (cell) => cell.grid === "input" || cell.grid === "grad-output";

  w.stage.addEventListener("click", (event) => {
    if (event.target.closest("[data-editor]")) return;
    const cell = cellOf(event.target);
    if (!cell) return;
    if (cell.grid === "output") select(cell.row, cell.col);
    else if (editable(cell)) startEditing(cell);
  });

  bindGridKeys(w.stage, {
    cellOf,
    lastCell: (cell) => gridShape(cell.grid).map((side) => side - 1),
    moved(cell, place) {
      w.view.focus[cell.grid] = place;
      if (cell.grid === "output") applyPreview(w.stage, w.trace, place, w.state.sel);
    },
    activate(cell) {
      if (cell.grid === "output") select(cell.row, cell.col);
      else if (editable(cell)) startEditing(cell);
    },
    escape(cell) {
      if (cell.grid !== "output") return;
      w.change((state) => {
        state.sel = null;
        state.selImplicit = false;
      });
      w.announceSelection();
    },
    editable,
    startEditing,
    commit: commitEdit,
    cancel: cancelEdit,
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
