// Rendering: (state, trace, view) -> the DOM of every region. No event handling, no
// worker calls. Not pure: to redraw cheaply it keeps, at module level, what the last
// render built — each grid table's shape and cells (builtGrids), the cells by grid and
// "row,col" (cellsByGrid), each cell's accessible name before selection roles
// (baseLabels), the colours written (writtenColours: the browser reads them back in
// another notation) and the cells the selection marked (markedCells). A grid whose rows
// and columns are unchanged is updated in place, writing only what differs; the result is
// the DOM a fresh build would give (tests/web/test_render_reuse.py). The step-through's
// marks (view.stepMarks, from player.js) are drawn as part of each cell, like any other
// attribute, and so are the exercise panel's marks of wrong cells (view.mismatches, from
// exercise.js: what poolgrad.exercise_check found, as text). Every user-derived string goes
// in through textContent or attribute values, never HTML.

import { GRADIENT_HUES, VALUE_HUES, heatColours, magnitudeScale } from "./colours.js";
import { cellName, formatNumber, formatSum, listCells, sizeText } from "./format.js";
import { explanationText, totalsVerdict, unpoolText } from "../lesson/sentences.js";
import { gradientReceivers, selectedOutput, sharedCells, windowShared, windowSize } from "./trace-view.js";

const GRID_TITLES = {
  input: "Input",
  output: "Output",
  "grad-output": "Upstream gradient",
  "grad-input": "Input gradient",
  unpooled: "Unpooled",
};

// The attributes a node gets from a spec: absent when undefined, null or false.
function presentAttributes(attributes) {
  const present = new Map();
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null && value !== false) present.set(name, value === true ? "true" : String(value));
  }
  return present;
}

function element(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [name, value] of presentAttributes(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

// Built cells by grid and "row,col", and each cell's accessible name without selection
// roles, so a selection change updates a few cells in place instead of rebuilding. Each
// widget of a page has its own (drawnIn, keyed by its regions); renderView and
// renderSelection point cellsByGrid and markedCells at the widget they draw.
const drawnIn = new WeakMap();
let cellsByGrid = new Map();
let markedCells = [];
function drawing(regions) {
  if (!drawnIn.has(regions)) drawnIn.set(regions, { cellsByGrid: new Map(), markedCells: [] });
  const drawn = drawnIn.get(regions);
  cellsByGrid = drawn.cellsByGrid;
  markedCells = drawn.markedCells;
  return drawn;
}
const baseLabels = new WeakMap();
const cellKey = (row, col) => `${row},${col}`;
const range = (start, count) => Array.from({ length: count }, (_, i) => start + i);

const builtGrids = new WeakMap();
const writtenColours = new WeakMap();

// A cell's spec with the step-through's change for it (player.js, marksByCell) applied.
export function withStepMark(spec, change) {
  if (!change) return spec;
  return {
    ...spec,
    text: change.text ?? spec.text,
    attributes: { ...spec.attributes, "data-pending": change.pending, "data-partial": change.partial, "data-step": change.step },
    label: [spec.label, ...change.notes].join("; "),
  };
}

// A cell's spec with the exercise checker's verdict on it: {expected, got} as text.
export function withMismatch(spec, wrong) {
  if (!wrong) return spec;
  const verdict = `expected ${wrong.expected}, got ${wrong.got}`;
  return {
    ...spec,
    attributes: { ...spec.attributes, "data-mismatch": "true", title: `Your code: ${verdict}` },
    label: `${spec.label}; wrong in your code: ${verdict}`,
  };
}

// Brings a reused cell to exactly what a new one built from `spec` would be, writing only
// what differs: unchanged cells then cost the browser no restyle and no relayout.
function updateCell(td, attributes, spec) {
  for (const name of td.getAttributeNames()) {
    if (name !== "style" && !attributes.has(name)) td.removeAttribute(name);
  }
  for (const [name, value] of attributes) {
    if (td.getAttribute(name) !== value) td.setAttribute(name, value);
  }
  // Compared with what was written: the browser reads colours back in another notation.
  const colours = spec.colours ? `${spec.colours.background}|${spec.colours.color}` : null;
  if (writtenColours.get(td) !== colours) {
    writtenColours.set(td, colours);
    if (spec.colours) {
      td.style.backgroundColor = spec.colours.background;
      td.style.color = spec.colours.color;
    } else {
      td.removeAttribute("style");
    }
  }
  if (spec.editor) td.replaceChildren(spec.editor);
  else if (td.firstElementChild || td.textContent !== spec.text) td.textContent = spec.text;
}

// A table with role="grid": column and row headers give the coordinates learners read
// in the sentences; each cell's accessible name says where it is and what it is.
// `previous` is the grid of this name now on the page: when it has the same rows and
// columns (a kernel change keeps the input's), its cells are updated in place.
function gridTable({ name, title, rowIndices, colIndices, focus, describe: describeBase, stepMarks, mismatches }, previous) {
  const describe = (row, col) => withMismatch(
    withStepMark(describeBase(row, col), stepMarks?.get(`${name}:${row},${col}`)),
    mismatches?.get(`${name}:${row},${col}`),
  );
  const index = new Map();
  cellsByGrid.set(name, index);
  const shape = `${rowIndices[0]}:${rowIndices.length},${colIndices[0]}:${colIndices.length}`;
  const built = previous && builtGrids.get(previous);
  if (built && built.shape === shape) {
    let next = 0;
    for (const row of rowIndices) {
      for (const col of colIndices) {
        const td = built.cells[next++];
        const spec = describe(row, col);
        updateCell(td, cellAttributes(name, row, col, spec, focus), spec);
        baseLabels.set(td, spec.label);
        index.set(cellKey(row, col), td);
      }
    }
    return previous;
  }
  const cells = [];
  const table = element("table", {
    role: "grid",
    class: `grid grid-${name}`,
    "data-grid-name": name,
    "aria-label": `${title ?? GRID_TITLES[name]}, ${rowIndices.length} by ${colIndices.length}`,
  });
  const head = element("tr", { role: "row", class: "grid-head" });
  head.append(element("th", { role: "columnheader", "aria-hidden": "true" }));
  for (const col of colIndices) head.append(element("th", { role: "columnheader", scope: "col" }, String(col)));
  table.append(head);
  for (const row of rowIndices) {
    const tr = element("tr", { role: "row" });
    tr.append(element("th", { role: "rowheader", scope: "row" }, String(row)));
    for (const col of colIndices) {
      const spec = describe(row, col);
      const td = document.createElement("td");
      updateCell(td, cellAttributes(name, row, col, spec, focus), spec);
      baseLabels.set(td, spec.label);
      index.set(cellKey(row, col), td);
      cells.push(td);
      tr.append(td);
    }
    table.append(tr);
  }
  builtGrids.set(table, { shape, cells });
  return table;
}

function cellAttributes(name, row, col, spec, focus) {
  const isFocus = focus && focus[0] === row && focus[1] === col;
  return presentAttributes({
    role: "gridcell",
    class: "cell",
    "data-grid": name,
    "data-row": String(row),
    "data-col": String(col),
    tabindex: spec.pad ? undefined : isFocus ? "0" : "-1",
    ...spec.attributes,
    "aria-label": spec.label,
  });
}

function editorFor(view, name, row, col) {
  if (!view.editing || view.editing.grid !== name || view.editing.row !== row || view.editing.col !== col) return null;
  return element("input", {
    class: "cell-editor",
    type: "text",
    inputmode: "decimal",
    // grid-input.js starts the draft at the value's exact spelling, not its 4-decimal display.
    value: view.editing.draft,
    "aria-label": `New value for ${GRID_TITLES[name].toLowerCase()} row ${row}, col ${col}`,
    "data-editor": name,
  });
}

// The roving-tabindex cell of each grid: the remembered one, clamped into the grid.
function focusCell(view, name, rows, cols) {
  const remembered = view.focus[name] ?? [0, 0];
  return [Math.min(remembered[0], rows - 1), Math.min(remembered[1], cols - 1)];
}

// Which input cells the selected output's window covers, and its argmax.
function selectionOverlay(trace, selection) {
  const output = trace && selection ? selectedOutput({ sel: selection }, trace) : null;
  if (!output) return null;
  const [i, j] = output;
  return {
    output,
    rows: trace.window_rows[i],
    cols: trace.window_cols[j],
    argmax: trace.argmax ? trace.argmax[i][j] : null,
  };
}

function inputGrid(state, trace, view, previous) {
  const height = state.x.length;
  const width = state.x[0].length;
  const [padRows, padCols] = trace ? trace.padding ?? [0, 0] : state.p;
  const padValue = trace ? trace.pad_value : state.mode === "max" ? "-Infinity" : 0;
  const scale = magnitudeScale(trace ? [state.x, trace.output] : [state.x]);
  // ×n: in the adaptive modes the cells several windows share (trace.shared), in the
  // other modes that keep a maximum the cells several outputs chose.
  const windows = trace && windowShared(trace);
  const shared = (r, c) => (!trace ? 0 : windows ? windows[r][c] : trace.argmax ? trace.sources[r][c].length : 0);
  const sharedRole = (n) => (windows ? `in the windows of ${n} outputs` : `maximum of ${n} outputs`);
  return gridTable({
    name: "input",
    rowIndices: range(-padRows, height + 2 * padRows),
    colIndices: range(-padCols, width + 2 * padCols),
    focus: focusCell(view, "input", height, width),
    stepMarks: view.stepMarks,
    describe(r, c) {
      const pad = r < 0 || c < 0 || r >= height || c >= width;
      const value = pad ? padValue : state.x[r][c];
      const roles = [];
      if (pad) roles.push("padding");
      if (!pad && shared(r, c) > 1) roles.push(sharedRole(shared(r, c)));
      return {
        pad,
        text: formatNumber(value),
        colours: pad ? null : heatColours(value, scale, VALUE_HUES, view.scheme),
        attributes: {
          "data-pad": pad ? "true" : undefined,
          "data-shared": !pad && shared(r, c) > 1 ? String(shared(r, c)) : undefined,
        },
        label: `Input row ${r}, col ${c}: ${formatNumber(value)}${roles.length ? `; ${roles.join("; ")}` : ""}`,
        editor: pad ? null : editorFor(view, "input", r, c),
      };
    },
  }, previous);
}

// A grid of this kind for another view (web/chain/): a table over a whole plane of
// `shape`, named `title` for screen readers, each cell from describe(row, col) (a spec as
// above: text, colours, attributes, label, editor), `focus` the cell that takes Tab;
// `previous`, the table this one replaces, is updated in place when its shape is the same.
export function planeTable({ name, title, shape: [height, width], focus, describe }, previous = null) {
  return gridTable({ name, title, rowIndices: range(0, height), colIndices: range(0, width), focus, describe }, previous);
}

// A grid over a whole plane: rows and columns from 0, keyboard focus where the view left it.
function planeGrid(name, [height, width], view, previous, describe) {
  return gridTable({
    name,
    rowIndices: range(0, height),
    colIndices: range(0, width),
    focus: focusCell(view, name, height, width),
    stepMarks: view.stepMarks,
    mismatches: view.mismatches,
    describe,
  }, previous);
}

function outputGrid(state, trace, view, previous) {
  const scale = magnitudeScale([state.x, trace.output]);
  // The adaptive modes' windows change size: each output cell says its own.
  const sizes = trace.window_size;
  return planeGrid("output", trace.output_shape, view, previous, (i, j) => {
    const value = trace.output[i][j];
    const size = sizes ? sizeText(windowSize(trace, [i, j])) : null;
    return {
      text: formatNumber(value),
      colours: heatColours(value, scale, VALUE_HUES, view.scheme),
      attributes: { "aria-selected": "false", "data-window-size": size ?? undefined },
      label: `Output row ${i}, col ${j}: ${formatNumber(value)}${size ? `; window ${size}` : ""}`,
    };
  });
}

// A grid over the input's plane of what the outputs routed back to each cell (the
// gradient, or unpooling's values): `values` and its hues, and `shared(sources, value)`,
// the label's words for a cell several outputs reach. ×n marks such a cell, and a cell
// none reaches is faint.
function routedGrid(name, trace, view, previous, { values, scale, hues, title, shared }) {
  return planeGrid(name, trace.input_shape, view, previous, (r, c) => {
    const value = values[r][c];
    const sources = trace.sources[r][c];
    let detail = "";
    if (sources.length > 1) detail = `; ${shared(sources, value, [r, c])}`;
    else if (sources.length === 1) detail = `; from output ${cellName(sources[0])}`;
    return {
      text: formatNumber(value),
      colours: heatColours(value, scale, hues, view.scheme),
      attributes: {
        "data-shared": sources.length > 1 ? String(sources.length) : undefined,
        "data-zero": sources.length === 0 ? "true" : undefined,
      },
      label: `${title} row ${r}, col ${c}: ${formatNumber(value)}${detail}`,
    };
  });
}

// max_unpool2d(out, indices): each output put back on its argmax, 0 elsewhere; a cell
// several outputs chose holds one value, where the gradient adds.
function unpooledGrid(trace, view, previous) {
  return routedGrid("unpooled", trace, view, previous, {
    values: trace.unpooled,
    scale: magnitudeScale([trace.input, trace.unpooled]),
    hues: VALUE_HUES,
    title: "Unpooled",
    shared: (sources) => `written once, though outputs ${listCells(sources)} all chose it`,
  });
}


function gradOutputGrid(trace, view, previous) {
  const values = trace.grad_output;
  const scale = magnitudeScale([values, trace.grad_input]);
  return planeGrid("grad-output", trace.output_shape, view, previous, (i, j) => {
    const value = values[i][j];
    return {
      text: formatNumber(value),
      colours: heatColours(value, scale, GRADIENT_HUES, view.scheme),
      label: `Upstream gradient row ${i}, col ${j}: ${formatNumber(value)}`,
      editor: editorFor(view, "grad-output", i, j),
    };
  });
}

function gradInputGrid(trace, view, previous) {
  return routedGrid("grad-input", trace, view, previous, {
    values: trace.grad_input,
    scale: magnitudeScale([trace.grad_output, trace.grad_input]),
    hues: GRADIENT_HUES,
    title: "Input gradient",
    shared: (sources, value, [r, c]) => `${formatSum(trace.grad_terms[r][c], value)} from outputs ${listCells(sources)}`,
  });
}


const MAX_LISTED_SHARED = 4;

function sharedSums(trace) {
  const list = element("ul", { class: "shared-sums", id: "shared-sums" });
  const shared = sharedCells(trace);
  if (shared.length === 0) {
    list.append(element("li", {}, "No input cell receives gradient from more than one output."));
    return list;
  }
  for (const [r, c] of shared.slice(0, MAX_LISTED_SHARED)) {
    const text = `Cell ${cellName([r, c])} collects from outputs ${listCells(trace.sources[r][c])}: ${formatSum(trace.grad_terms[r][c], trace.grad_input[r][c])}`;
    list.append(element("li", { "data-shared-cell": `${r},${c}` }, text));
  }
  if (shared.length > MAX_LISTED_SHARED) {
    list.append(element("li", {}, `… and ${shared.length - MAX_LISTED_SHARED} more cells marked ×n in the grid (each cell's label gives its sum).`));
  }
  return list;
}

function totals(trace) {
  const upstream = formatNumber(trace.grad_output_sum);
  const routed = formatNumber(trace.grad_input_sum);
  return element("p", { id: "totals" }, `Upstream total ${upstream}; input-gradient total ${routed}. ${totalsVerdict(trace, upstream === routed)}`);
}

function axisFormula(label, axis) {
  const [open, close] = axis.ceil ? ["⌈", "⌉"] : ["⌊", "⌋"];
  const filled = `${open}(${axis.n} + 2·${axis.p} − ${axis.d}·(${axis.k} − 1) − 1) / ${axis.s}${close} + 1`;
  const reduced = `${open}${axis.numerator} / ${axis.s}${close} + 1`;
  let text = `${label}: ${filled} = ${reduced} = ${axis.by_formula}`;
  if (axis.dropped_last) text += `, minus the last window, which would start in the padding: ${axis.size}`;
  return element("p", { class: "formula-line", "data-axis": label }, text);
}

// The adaptive modes: where each window starts and ends, per axis, from trace.window_bounds.
function adaptiveFormula(trace) {
  const box = element("div", { id: "formula", class: "formula" });
  box.append(element("h3", {}, "Window placement"));
  box.append(element("p", { class: "formula-general" },
    "window i of Out over In lines spans [⌊i·In/Out⌋, ⌈(i+1)·In/Out⌉), per axis: the output size is yours, the windows follow"));
  const [height, width] = trace.input_shape;
  const [outHeight, outWidth] = trace.output_shape;
  for (const [label, n, out, bounds] of [["rows", height, outHeight, trace.window_bounds.rows], ["cols", width, outWidth, trace.window_bounds.cols]]) {
    const spans = bounds.map(([start, end]) => `[${start}, ${end})`).join(", ");
    box.append(element("p", { class: "formula-line", "data-axis": label }, `${label}: ${n} into ${out}: ${spans}`));
  }
  return box;
}

function sizeFormula(trace) {
  if (!trace.size_formula) return adaptiveFormula(trace);
  const ceil = trace.size_formula.rows.ceil;
  const box = element("div", { id: "formula", class: "formula" });
  box.append(element("h3", {}, "Output size"));
  box.append(element("p", { class: "formula-general" },
    `out = ${ceil ? "⌈" : "⌊"}(n + 2p − d·(k − 1) − 1) / s${ceil ? "⌉" : "⌋"} + 1, per axis (n input side, k kernel, s stride, p padding, d dilation)`));
  box.append(axisFormula("rows", trace.size_formula.rows));
  box.append(axisFormula("cols", trace.size_formula.cols));
  return box;
}

// Puts `nodes` in `region`, leaving a reused first node where it is: taking it out and
// back in would make the browser lay the whole grid out again.
function show(region, ...nodes) {
  const current = [...region.childNodes];
  if (current[0] !== nodes[0]) {
    region.replaceChildren(...nodes);
    return;
  }
  for (const node of current.slice(1)) node.remove();
  region.append(...nodes.slice(1));
}

function placeholder(text) {
  return element("p", { class: "placeholder" }, text);
}

// Build every region of the view. `trace` is the latest answer, or null (booting, or
// Python refused the state; `view.traceError` then says why); `view.staleInput` says the
// trace belongs to an earlier state, so its windows are not drawn on the current input;
// `view.scheme` ("light" or "dark") picks the heat map's palette.
export function renderView(regions, state, trace, view) {
  drawing(regions);
  cellsByGrid.clear();
  const shown = (region) => region.querySelector(":scope > table.grid");
  show(regions.inputGrid, inputGrid(state, view.staleInput ? null : trace, view, shown(regions.inputGrid)));
  const waitingText = view.traceError
    ? "No output: this combination is not valid (see the message above)."
    : "The output appears when Python is ready.";
  show(regions.outputGrid, trace ? outputGrid(state, trace, view, shown(regions.outputGrid)) : placeholder(waitingText));
  regions.gradPanels.forEach((panel) => { panel.hidden = !state.grad; });
  if (state.grad && trace?.grad_input) {
    show(regions.gradOutputGrid, gradOutputGrid(trace, view, shown(regions.gradOutputGrid)));
    show(regions.gradInputGrid, gradInputGrid(trace, view, shown(regions.gradInputGrid)), sharedSums(trace), totals(trace));
  } else {
    show(regions.gradOutputGrid, placeholder(waitingText));
    show(regions.gradInputGrid, placeholder(waitingText));
  }
  const unpooled = state.unpool && trace?.unpooled;
  regions.unpoolPanels.forEach((panel) => { panel.hidden = !unpooled; });
  if (unpooled) {
    show(regions.unpooledGrid, unpooledGrid(trace, view, shown(regions.unpooledGrid)));
    regions.unpoolNote.textContent = unpoolText(trace);
  } else {
    regions.unpooledGrid.replaceChildren();
    regions.unpoolNote.textContent = "";
  }
  // The legend's argmax mark belongs to the modes that keep one cell per window.
  regions.legend.dataset.mode = (trace ? trace.argmax : state.mode === "max" || state.mode === "adaptive_max") ? "max" : "avg";
  regions.formula.replaceChildren(trace ? sizeFormula(trace) : placeholder(""));
  regions.shapes.textContent = trace
    ? `${sizeText(trace.input_shape)} → ${sizeText(trace.output_shape)}`
    : sizeText([state.x.length, state.x[0].length]);
  renderSelection(regions, state, trace, view);
}

const SELECTION_ATTRIBUTES = ["data-in-window", "data-argmax", "data-for-selected", "data-from-selected"];

function mark(cell, attribute, role) {
  if (!cell) return;
  cell.setAttribute(attribute, "true");
  if (role) cell.setAttribute("aria-label", `${baseLabels.get(cell)}; ${role}`);
  markedCells.push(cell);
}

// The selection's marks, applied in place on the built grids: this is all a tap costs.
export function renderSelection(regions, state, trace, view) {
  const drawn = drawing(regions);
  for (const cell of markedCells) {
    for (const attribute of SELECTION_ATTRIBUTES) cell.removeAttribute(attribute);
    if (cell.getAttribute("aria-selected") === "true") cell.setAttribute("aria-selected", "false");
    cell.setAttribute("aria-label", baseLabels.get(cell));
  }
  markedCells = drawn.markedCells = [];
  regions.explanation.textContent = explanationText(state, trace);
  const overlay = selectionOverlay(trace, state.sel);
  if (!overlay) return;
  const name = cellName(overlay.output);
  const selected = cellsByGrid.get("output")?.get(cellKey(...overlay.output));
  mark(selected, "aria-selected", "selected");
  mark(cellsByGrid.get("grad-output")?.get(cellKey(...overlay.output)), "data-for-selected", `upstream gradient of output ${name}`);
  if (view.staleInput) return;
  const inputCells = cellsByGrid.get("input");
  for (const r of overlay.rows) {
    for (const c of overlay.cols) {
      const isArgmax = overlay.argmax && overlay.argmax[0] === r && overlay.argmax[1] === c;
      const cell = inputCells.get(cellKey(r, c));
      mark(cell, "data-in-window", isArgmax ? null : `in the window of output ${name}`);
      if (isArgmax) mark(cell, "data-argmax", `argmax of output ${name}`);
    }
  }
  const gradInputCells = cellsByGrid.get("grad-input");
  if (!gradInputCells) return;
  for (const [r, c] of gradientReceivers(trace, overlay.output)) mark(gradInputCells.get(cellKey(r, c)), "data-from-selected", `receives gradient from output ${name}`);
}

// Hover preview: a lighter outline of another output's window, set in place so the
// pointer never sees its target replaced; it uses data-preview, never the selection's
// attributes, and stays off when the pointer is on the selected output itself.
export function applyPreview(root, trace, output, selection) {
  for (const cell of root.querySelectorAll("[data-preview]")) cell.removeAttribute("data-preview");
  const isSelected = output && selection && output[0] === selection[0] && output[1] === selection[1];
  const overlay = isSelected ? null : selectionOverlay(trace, output);
  if (!overlay) return;
  root.querySelector(`[data-grid="output"][data-row="${output[0]}"][data-col="${output[1]}"]`)?.setAttribute("data-preview", "true");
  for (const cell of root.querySelectorAll('[data-grid="input"]')) {
    const r = Number(cell.dataset.row);
    const c = Number(cell.dataset.col);
    if (overlay.rows.includes(r) && overlay.cols.includes(c)) {
      const isArgmax = overlay.argmax && overlay.argmax[0] === r && overlay.argmax[1] === c;
      cell.setAttribute("data-preview", isArgmax ? "argmax" : "window");
    }
  }
}

// How much one render redraws, from what the grids show (`drawn`: the `next` of the
// render that last drew them, null before the first) and what they should show (`next`:
// { state, trace, view, awaitingTrace, gridsKey }, view as renderView takes it, gridsKey
// the state's state.js gridsKey):
// - "wait": nothing yet. The state changed what the worker computes and its answer, which
//   redraws everything, is milliseconds away; drawing the old trace now as well would
//   double the cost of every parameter change.
// - "selection": the grids already show this view but for the selection: only its marks
//   and the explanation change (renderSelection). This is the same render at lower cost:
//   renderView ends with the very same renderSelection call, and nothing else it draws
//   depends on the selection.
// - "all": renderView.
export function redrawPlan(drawn, next) {
  if (drawn === null) return "all";
  const sameEdit = drawn.view.editing === next.view.editing;
  if (next.awaitingTrace && sameEdit) return "wait";
  const sameGrids = sameEdit
    && drawn.trace === next.trace
    && drawn.view.staleInput === next.view.staleInput
    && drawn.view.traceError === next.view.traceError
    && drawn.view.stepMarks === next.view.stepMarks
    && drawn.view.scheme === next.view.scheme
    && drawn.view.mismatches === next.view.mismatches
    && drawn.gridsKey === next.gridsKey;
  return sameGrids ? "selection" : "all";
}
