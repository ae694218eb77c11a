// "Save picture": the current grids with their marks as one SVG file, for slides. A pure
// function of (state, trace): the marks come from the same facts the page's grids are
// marked from (trace-view.js), not from the DOM, so the picture is the view whatever the
// page's layout, theme or step-through position. Plain shapes and text, no script, no
// external fonts or images: the file opens anywhere, offline. Its pieces draw the chain's
// picture too (chain/picture.js).

import { cellName, escapeXml, formatNumber, sizeText } from "../widget/format.js";
import { explanationText, viewTitle } from "../lesson/sentences.js";
import { gradientReceivers, selectedOutput, sharedCells, windowSamples, windowShared, windowSize } from "../widget/trace-view.js";

export const INK = "#1d1d1f";
export const MUTED = "#5a5f6b";
const ACCENT = "#1d4ed8";
const ARGMAX = "#b42318";
const SHARED = "#7c2d12";
const LINE = "#9aa1ad";
export const MARGIN = 24;
const GAP = 4;
const CELL_HEIGHT = 40;
const LABEL = 18; // room for the row and column numbers
const CAPTION = 26; // room for a grid's caption above it
export const PANEL_GAP = 40;

const attributes = (named) => Object.entries(named).map(([name, value]) => `${name}="${escapeXml(value)}"`).join(" ");
export const tag = (name, named, text) => (text === undefined
  ? `<${name} ${attributes(named)}/>`
  : `<${name} ${attributes(named)}>${escapeXml(text)}</${name}>`);
const range = (start, count) => Array.from({ length: count }, (_, i) => start + i);
const key = (r, c) => `${r},${c}`;

// The file name: what the view is, so a folder of pictures sorts and reads.
export function pictureName(state) {
  const pair = ([a, b]) => (a === b ? String(a) : `${a}x${b}`);
  const adaptive = state.mode === "adaptive_max" || state.mode === "adaptive_avg";
  const parts = ["poolgrad", state.mode.replace("_", "-"), ...(adaptive ? [`o${pair(state.o)}`] : [`k${pair(state.k)}`, `s${pair(state.s)}`])];
  if (state.mode === "lp") parts.push(`n${Number.isFinite(state.n) ? state.n : state.n > 0 ? "inf" : "-inf"}`);
  if (state.p.some((p) => p > 0)) parts.push(`p${pair(state.p)}`);
  if (state.mode === "max" && state.d.some((d) => d > 1)) parts.push(`d${pair(state.d)}`);
  if (state.unpool && (state.mode === "max" || state.mode === "adaptive_max")) parts.push("unpool");
  if (state.grad) parts.push("grad");
  return `${parts.join("-")}.svg`;
}

// The grids the picture shows, each as rows/cols (padding included for the input) and a
// `cell(r, c)` giving the text and the marks the page's grid gives that cell.
function gridsOf(state, trace) {
  const [height, width] = trace.input_shape;
  const [padRows, padCols] = trace.padding ?? [0, 0];
  const selected = selectedOutput(state, trace);
  const inWindow = new Set(selected ? windowSamples(trace, selected).map(([r, c]) => key(r, c)) : []);
  const argmax = selected && trace.argmax ? key(...trace.argmax[selected[0]][selected[1]]) : null;
  const shared = new Map(sharedCells(trace).map(([r, c]) => [key(r, c), trace.sources[r][c].length]));
  // The input's ×n, as the page marks it: the adaptive windows' shared cells, else the
  // cells several maxima chose.
  const windows = windowShared(trace);
  const inputShared = (r, c) => (windows ? (windows[r][c] > 1 ? windows[r][c] : null) : trace.argmax ? shared.get(key(r, c)) ?? null : null);
  const showGradient = state.grad && trace.grad_input !== undefined;
  const receivers = new Set(selected && showGradient ? gradientReceivers(trace, selected).map(([r, c]) => key(r, c)) : []);
  const isSelected = (i, j) => selected !== null && selected[0] === i && selected[1] === j;

  const grids = {
    input: {
      caption: `Input ${sizeText(trace.input_shape)}`,
      rows: range(-padRows, height + 2 * padRows),
      cols: range(-padCols, width + 2 * padCols),
      cell(r, c) {
        const pad = r < 0 || c < 0 || r >= height || c >= width;
        const here = key(r, c);
        return {
          text: formatNumber(pad ? trace.pad_value : trace.input[r][c]),
          pad,
          frame: here === argmax ? "argmax" : inWindow.has(here) ? "window" : null,
          badge: here === argmax ? "max" : !pad && inputShared(r, c) ? `×${inputShared(r, c)}` : null,
        };
      },
    },
    output: {
      caption: `Output ${sizeText(trace.output_shape)}`,
      rows: range(0, trace.output_shape[0]),
      cols: range(0, trace.output_shape[1]),
      cell: (i, j) => ({
        text: formatNumber(trace.output[i][j]),
        frame: isSelected(i, j) ? "selected" : null,
        badge: isSelected(i, j) ? "●" : trace.window_size ? sizeText(windowSize(trace, [i, j])).replaceAll(" ", "") : null,
      }),
    },
  };
  if (state.unpool && trace.unpooled) {
    grids.unpooled = {
      caption: "Unpooled: max_unpool2d(out, indices)",
      rows: range(0, height),
      cols: range(0, width),
      cell: (r, c) => ({
        text: formatNumber(trace.unpooled[r][c]),
        faint: trace.sources[r][c].length === 0,
        badge: shared.has(key(r, c)) ? `×${shared.get(key(r, c))}` : null,
      }),
    };
  }
  if (showGradient) {
    grids.gradOutput = {
      caption: "Upstream gradient",
      rows: grids.output.rows,
      cols: grids.output.cols,
      cell: (i, j) => ({ text: formatNumber(trace.grad_output[i][j]), frame: isSelected(i, j) ? "window" : null }),
    };
    grids.gradInput = {
      caption: "Input gradient",
      rows: range(0, height),
      cols: range(0, width),
      cell: (r, c) => ({
        text: formatNumber(trace.grad_input[r][c]),
        faint: trace.sources[r][c].length === 0,
        frame: receivers.has(key(r, c)) ? "window" : null,
        badge: shared.has(key(r, c)) ? `×${shared.get(key(r, c))}` : null,
      }),
    };
  }
  return grids;
}

// A cell's width: room for the longest number shown (tabular figures, about 0.6 em each).
export function cellWidth(grids) {
  let longest = 1;
  for (const grid of grids) {
    for (const r of grid.rows) for (const c of grid.cols) longest = Math.max(longest, [...grid.cell(r, c).text].length);
  }
  return Math.max(44, Math.ceil(longest * 9.5 + 16));
}

export const gridSize = (grid, width) => ({
  width: LABEL + grid.cols.length * (width + GAP),
  height: CAPTION + LABEL + grid.rows.length * (CELL_HEIGHT + GAP),
});

function drawCell(x, y, width, spec) {
  const parts = [];
  const box = { x, y, width, height: CELL_HEIGHT, rx: 6 };
  parts.push(tag("rect", spec.pad
    ? { ...box, fill: "url(#pad)", stroke: LINE, "stroke-dasharray": "4 3" }
    : { ...box, fill: "#ffffff", stroke: LINE }));
  const inset = (by, colour, stroke) => tag("rect", {
    x: x + by, y: y + by, width: width - 2 * by, height: CELL_HEIGHT - 2 * by, rx: Math.max(1, 6 - by), fill: "none", stroke: colour, "stroke-width": stroke,
  });
  if (spec.frame === "window") parts.push(inset(1.5, ACCENT, 3));
  if (spec.frame === "selected") parts.push(inset(1.5, ACCENT, 3), tag("rect", { ...box, x: x - 2, y: y - 2, width: width + 4, height: CELL_HEIGHT + 4, rx: 8, fill: "none", stroke: ACCENT, "stroke-width": 2 }));
  if (spec.frame === "argmax") parts.push(inset(1.5, ARGMAX, 3), inset(5.5, ARGMAX, 1));
  const colour = spec.pad || spec.faint ? MUTED : INK;
  parts.push(tag("text", {
    x: x + width / 2, y: y + CELL_HEIGHT / 2 + 5, "text-anchor": "middle", "font-size": 15, "font-weight": spec.pad || spec.faint ? 400 : 600, fill: colour,
  }, spec.text));
  if (spec.badge) {
    const badgeWidth = 8 + 7 * [...spec.badge].length;
    const background = spec.badge === "max" ? ARGMAX : spec.badge === "●" ? ACCENT : SHARED;
    parts.push(
      tag("rect", { x: x + width - badgeWidth + 4, y: y - 7, width: badgeWidth, height: 14, rx: 7, fill: background }),
      tag("text", { x: x + width - badgeWidth / 2 + 4, y: y + 3.5, "text-anchor": "middle", "font-size": 10, "font-weight": 700, fill: "#ffffff" }, spec.badge),
    );
  }
  return parts.join("");
}

export function drawGrid(grid, left, top, width) {
  const parts = [tag("text", { x: left, y: top + 16, "font-size": 15, "font-weight": 700, fill: INK }, grid.caption)];
  const cellsTop = top + CAPTION + LABEL;
  const cellsLeft = left + LABEL;
  grid.cols.forEach((c, n) => parts.push(tag("text", {
    x: cellsLeft + n * (width + GAP) + width / 2, y: cellsTop - 6, "text-anchor": "middle", "font-size": 11, fill: MUTED,
  }, String(c))));
  grid.rows.forEach((r, m) => {
    const y = cellsTop + m * (CELL_HEIGHT + GAP);
    parts.push(tag("text", { x: cellsLeft - 6, y: y + CELL_HEIGHT / 2 + 4, "text-anchor": "end", "font-size": 11, fill: MUTED }, String(r)));
    grid.cols.forEach((c, n) => parts.push(drawCell(cellsLeft + n * (width + GAP), y, width, grid.cell(r, c))));
  });
  return `<g>${parts.join("")}</g>`;
}

// The legend lists the marks this picture uses, each drawn as in the grids.
function legendItems(state, trace, grids) {
  const selected = selectedOutput(state, trace);
  const items = [];
  if (selected) {
    items.push({ spec: { text: "5", frame: "selected", badge: "●" }, text: `the selected output ${cellName(selected)}` });
    items.push({ spec: { text: "5", frame: "window" }, text: state.grad ? "its window; its gradient and where it goes" : "its window" });
    if (trace.argmax) items.push({ spec: { text: "8", frame: "argmax", badge: "max" }, text: "its maximum (argmax)" });
  }
  const windows = windowShared(trace);
  const hasShared = (windows && windows.some((row) => row.some((n) => n > 1)))
    || (sharedCells(trace).length > 0 && (trace.argmax || grids.gradInput));
  const sharedText = windows ? "in several outputs' windows (×n)" : trace.argmax ? "chosen by several outputs (×n)" : "in several outputs' windows (×n)";
  if (hasShared) items.push({ spec: { text: "3", badge: "×2" }, text: sharedText });
  if (trace.window_size) items.push({ spec: { text: "4", badge: "2×3" }, text: "an output's window size (adaptive)" });
  if ((trace.padding ?? []).some((p) => p > 0)) items.push({ spec: { text: formatNumber(trace.pad_value), pad: true }, text: `padding (${trace.argmax ? "never chosen" : "counts as 0"})` });
  return items;
}

// The whole picture as SVG text: a title, the grids side by side (input and output; with
// the gradient on, the input gradient under the input and the upstream gradient under the
// output), a legend; <title> and <desc> say the same for a screen reader. `trace` must be
// the answer for this very state.
export function pictureSvg(state, trace) {
  const grids = gridsOf(state, trace);
  const width = cellWidth(Object.values(grids));
  const input = gridSize(grids.input, width);
  const output = gridSize(grids.output, width);
  const titleHeight = 34;
  const top = MARGIN + titleHeight;
  const rightLeft = MARGIN + input.width + PANEL_GAP;
  const parts = [drawGrid(grids.input, MARGIN, top, width), drawGrid(grids.output, rightLeft, top, width)];
  let bottom = top + Math.max(input.height, output.height);
  let right = rightLeft + output.width;
  if (grids.gradInput) {
    const gradTop = bottom + PANEL_GAP / 2;
    parts.push(drawGrid(grids.gradInput, MARGIN, gradTop, width), drawGrid(grids.gradOutput, rightLeft, gradTop, width));
    bottom = gradTop + Math.max(gridSize(grids.gradInput, width).height, gridSize(grids.gradOutput, width).height);
    right = Math.max(right, rightLeft + gridSize(grids.gradOutput, width).width);
  }
  // The unpooled grid under the input (gradient), beside which the lesson compares them.
  if (grids.unpooled) {
    const unpoolTop = bottom + PANEL_GAP / 2;
    parts.push(drawGrid(grids.unpooled, MARGIN, unpoolTop, width));
    bottom = unpoolTop + gridSize(grids.unpooled, width).height;
  }
  const legend = legendItems(state, trace, grids);
  const legendTop = bottom + 24;
  legend.forEach((item, n) => {
    const y = legendTop + n * (CELL_HEIGHT + 10);
    parts.push(drawCell(MARGIN, y, 44, item.spec));
    parts.push(tag("text", { x: MARGIN + 56, y: y + CELL_HEIGHT / 2 + 5, "font-size": 14, fill: INK }, item.text));
  });
  const height = legendTop + legend.length * (CELL_HEIGHT + 10) + MARGIN - 10;
  const title = `poolgrad: ${viewTitle(state)}`;
  // Wide enough for the title, so it is never cut off.
  const totalWidth = Math.max(right + MARGIN, titleWidth(title));
  const description = [
    `Input ${sizeText(trace.input_shape)}, output ${sizeText(trace.output_shape)}.`,
    explanationText(state, trace),
  ].filter(Boolean).join(" ");
  return svgDocument({ title, description, width: totalWidth, height, body: parts });
}

// About 10.5 px per character of the 18 px bold title.
export const titleWidth = (title) => 2 * MARGIN + Math.ceil(title.length * 10.5);

// The file: `title` on top and, with `description`, for a screen reader; then `body`.
export function svgDocument({ title, description, width, height, body }) {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" ${attributes({ width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-labelledby": "picture-title picture-desc" })} font-family="system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif">`,
    tag("title", { id: "picture-title" }, title),
    tag("desc", { id: "picture-desc" }, description),
    '<defs><pattern id="pad" width="10" height="10" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="10" height="10" fill="#f7f8fa"/><rect width="5" height="10" fill="#eceef2"/></pattern></defs>',
    tag("rect", { width, height, fill: "#ffffff" }),
    tag("text", { x: MARGIN, y: MARGIN + 14, "font-size": 18, "font-weight": 700, fill: INK }, title),
    ...body,
    "</svg>",
    "",
  ].join("\n");
}
