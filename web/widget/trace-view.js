// Facts read off a trace, in one place: which output is selected, which input cells a
// window covers, who receives an output's gradient, which cells tie for a maximum, what
// one output sends to one cell. render.js, lesson.js, player.js and guide.js all ask here
// instead of re-deriving them. Pure functions of (trace, ...): no DOM, no state changes.

import { describeSpan } from "./format.js";

// The selected output, or null when there is none or it lies outside this trace's output
// (a selection survives a parameter change that shrinks the output).
export function selectedOutput(state, trace) {
  if (!trace || !state.sel) return null;
  return outputInRange(trace, state.sel) ? state.sel : null;
}

export function outputInRange(trace, [i, j]) {
  return i >= 0 && j >= 0 && i < trace.output_shape[0] && j < trace.output_shape[1];
}

// Every cell output (i, j)'s window samples, padding included (rows/cols < 0 or >= H/W),
// as [r, c] in row-major order.
export function windowSamples(trace, [i, j]) {
  return trace.window_rows[i].flatMap((r) => trace.window_cols[j].map((c) => [r, c]));
}

// "rows 0–2, cols 1–3": where output (i, j)'s window lies, as every sentence says it.
export function windowText(trace, [i, j]) {
  return `${describeSpan("row", trace.window_rows[i])}, ${describeSpan("col", trace.window_cols[j])}`;
}

// The input cells (inside the unpadded input) that output (i, j)'s window samples.
export function windowCells(trace, [i, j]) {
  const [height, width] = trace.input_shape;
  const rows = trace.window_rows[i].filter((r) => r >= 0 && r < height);
  const cols = trace.window_cols[j].filter((c) => c >= 0 && c < width);
  return rows.flatMap((r) => cols.map((c) => [r, c]));
}

// The input cells output (i, j)'s upstream gradient reaches: its argmax in the modes that
// keep one cell (max, adaptive max, LP with p = ±∞), every cell of its window otherwise.
export function gradientReceivers(trace, [i, j]) {
  return trace.argmax ? [trace.argmax[i][j]] : windowCells(trace, [i, j]);
}

// The adaptive modes: [rows, cols] of output (i, j)'s window (trace.window_size holds
// their product); the windows of the other modes are all the kernel's size.
export function windowSize(trace, [i, j]) {
  return [trace.window_rows[i].length, trace.window_cols[j].length];
}

// The adaptive modes' count of windows holding each input cell (H x W), or null for the
// other modes, whose windows all have the kernel's size.
export function windowShared(trace) {
  return trace.shared ?? null;
}

// Max mode: the window cells holding the output's value (trace() lists them), in
// row-major order: the first is the one that wins; a NaN maximum ties with nothing.
export function tiedCells(trace, [i, j]) {
  return trace.tied[i][j];
}

// The share output (i, j) sends to input cell (r, c) in the backward pass, or null.
export function termFrom(trace, [r, c], [i, j]) {
  const index = trace.sources[r][c].findIndex(([a, b]) => a === i && b === j);
  return index < 0 ? null : trace.grad_terms[r][c][index];
}

// Input cells that collect gradient from more than one output, row-major.
export function sharedCells(trace) {
  const shared = [];
  trace.sources.forEach((row, r) => row.forEach((sources, c) => {
    if (sources.length > 1) shared.push([r, c]);
  }));
  return shared;
}
