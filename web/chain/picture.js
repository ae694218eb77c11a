// The chain view's "Save picture": its forward row (with the loss) and its backward row, each
// panel with its title, shape and one-line caption over its grids, as one SVG file for
// slides. A pure function of (state, trace): the panels are rows.js's, the very ones the
// view draws, and the drawing is the pool view's picture's (takeaway/svg-export.js).

import {
  INK, MARGIN, MUTED, PANEL_GAP, cellWidth, drawGrid, gridSize, svgDocument, tag, titleWidth,
} from "../takeaway/svg-export.js";
import { formatNumber } from "../widget/format.js";
import { chainPanels } from "./rows.js";
import { chainTitle, lossFormula } from "./sentences.js";

const HEADING = 22; // a panel's title line
const LINE = 16; // a caption's line (12 px text)
const CHARACTER = 6.4; // about the width of a 12 px character
const PLANE_GAP = 8;
const ROW_TITLE = 30;
const LOSS_WIDTH = 280;
const range = (count) => Array.from({ length: count }, (_, i) => i);

// `text` broken at spaces into lines of about `width` px.
function wrap(text, width) {
  const most = Math.max(12, Math.floor(width / CHARACTER));
  const lines = [];
  for (const word of text.split(" ")) {
    const last = lines.at(-1);
    if (last !== undefined && `${last} ${word}`.length <= most) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

// The file name: the chain's settings, so a folder of pictures sorts and reads.
export function chainPictureName(state) {
  const parts = ["poolgrad", "chain", state.relu ? "relu" : null, state.cpool === "none" ? "no-pool" : `${state.cpool}-pool`, state.cup, `step${state.steps}`];
  return `${parts.filter(Boolean).join("-")}.svg`;
}

// A panel's grids as svg-export.js draws them: each plane's values, a cell that got no
// gradient faint; a plane's caption only where the panel has several.
function panelGrids({ grid }) {
  return grid.planes.map((values, index) => ({
    caption: grid.planes.length > 1 ? grid.plane(index).caption : "",
    rows: range(values.length),
    cols: range(values[0].length),
    cell: (r, c) => ({ text: formatNumber(values[r][c]), faint: Boolean(grid.zero?.(index, r, c)) }),
  }));
}

// One panel at (left, top): its parts and its size.
function drawPanel(panel, left, top, width) {
  const grids = panelGrids(panel);
  const gridWidth = Math.max(...grids.map((grid) => gridSize(grid, width).width));
  const panelWidth = Math.max(gridWidth, 180);
  const lines = wrap(panel.caption, panelWidth);
  const parts = [tag("text", { x: left, y: top + 16, "font-size": 16, "font-weight": 700, fill: INK }, panel.shape ? `${panel.title}  ${panel.shape}` : panel.title)];
  lines.forEach((line, n) => parts.push(tag("text", { x: left, y: top + HEADING + LINE * n + 12, "font-size": 12, fill: MUTED }, line)));
  let y = top + HEADING + LINE * lines.length + 4;
  for (const grid of grids) {
    parts.push(drawGrid(grid, left, y, width));
    y += gridSize(grid, width).height + PLANE_GAP;
  }
  return { parts, width: panelWidth, height: y - top };
}

// The loss: its value and its formula with the live numbers.
function drawLoss(trace, left, top) {
  const value = trace.upstream === "loss" ? formatNumber(trace.loss) : "none";
  const lines = wrap(lossFormula(trace), LOSS_WIDTH);
  const parts = [tag("text", { x: left, y: top + 16, "font-size": 16, "font-weight": 700, fill: INK }, `Loss  L = ${value}`)];
  lines.forEach((line, n) => parts.push(tag("text", { x: left, y: top + HEADING + LINE * n + 12, "font-size": 12, fill: MUTED }, line)));
  return { parts, width: LOSS_WIDTH, height: HEADING + LINE * lines.length };
}

// A row of drawn panels from (MARGIN, top), under its title: its parts, right edge and height.
function drawRow(title, drawn, top) {
  const parts = [tag("text", { x: MARGIN, y: top + 18, "font-size": 17, "font-weight": 700, fill: INK }, title)];
  let left = MARGIN;
  let height = 0;
  for (const draw of drawn) {
    const panel = draw(left, top + ROW_TITLE);
    parts.push(`<g>${panel.parts.join("")}</g>`);
    left += panel.width + PANEL_GAP;
    height = Math.max(height, panel.height);
  }
  return { parts, right: left - PANEL_GAP, height: ROW_TITLE + height };
}

// The whole picture as SVG text; `trace` must be chain_trace's answer for this very state.
export function chainPictureSvg(state, trace) {
  const { forward, backward } = chainPanels(state, trace);
  const width = cellWidth([...forward, ...backward].flatMap(panelGrids));
  const panelDrawing = (panel) => (left, top) => drawPanel(panel, left, top, width);
  const firstTop = MARGIN + 34;
  const first = drawRow("Forward", [...forward.map(panelDrawing), (left, top) => drawLoss(trace, left, top)], firstTop);
  const secondTop = firstTop + first.height + PANEL_GAP;
  const second = drawRow("Backward", backward.map(panelDrawing), secondTop);
  const steps = state.steps > 0 ? `, after ${state.steps} step${state.steps > 1 ? "s" : ""} at learning rate ${state.lr}` : "";
  const title = `poolgrad: ${chainTitle(trace)}${steps}`;
  const description = [
    `Forward: ${forward.map((panel) => panel.title).join(", ")}; the loss L = ${trace.upstream === "loss" ? formatNumber(trace.loss) : "none (the gradient is made up)"}.`,
    `Backward: ${backward.map((panel) => panel.title).join(", ")}.`,
  ].join(" ");
  return svgDocument({
    title,
    description,
    width: Math.max(first.right + MARGIN, second.right + MARGIN, titleWidth(title)),
    height: secondTop + second.height + MARGIN,
    body: [...first.parts, ...second.parts],
  });
}
