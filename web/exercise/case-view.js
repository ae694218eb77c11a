// The exercise panel's own grids (#exercise-case): a chain exercise's failing case, the
// function's arguments and the right answer, each wrong cell marked as the widget's grids
// mark one (render.js withMismatch: data-mismatch, a ≠ tag, "wrong in your code: expected …,
// got …" in its name). Each grid is one Tab stop; the arrow keys, Home and End move in it.

import { formatNumber } from "../widget/format.js";
import { planeTable, withMismatch } from "../widget/render.js";

const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

// Draws `grids` ([{name, title, values}], exercise.js caseGrids) into `box` with `marks`
// ("grid:row,col" -> {expected, got}, marks.js mismatchMarks) and shows it.
export function showCase(box, grids, marks) {
  box.replaceChildren(...grids.map(({ name, title, values }) => {
    const figure = document.createElement("figure");
    figure.className = "exercise-case-grid";
    const caption = document.createElement("figcaption");
    caption.textContent = title;
    figure.append(caption, planeTable({
      name,
      title,
      shape: [values.length, values[0].length],
      focus: [0, 0],
      describe: (r, c) => withMismatch({
        text: formatNumber(values[r][c]),
        attributes: {},
        label: `${title} row ${r}, col ${c}: ${formatNumber(values[r][c])}`,
      }, marks.get(`${name}:${r},${c}`)),
    }));
    return figure;
  }));
  box.hidden = false;
}

export function hideCase(box) {
  box.hidden = true;
  box.replaceChildren();
}

// The grids' keys: the roving tab stop follows the arrows, Home and End within a grid.
export function bindCaseKeys(box) {
  box.addEventListener("keydown", (event) => {
    const cell = event.target.closest?.("td[data-grid]");
    if (!cell || !(event.key in ARROWS || event.key === "Home" || event.key === "End")) return;
    event.preventDefault();
    const table = cell.closest("table");
    const lastRow = table.rows.length - 2;
    const lastCol = table.rows[0].cells.length - 2;
    let row = Number(cell.dataset.row);
    let col = Number(cell.dataset.col);
    if (event.key in ARROWS) {
      row = Math.min(lastRow, Math.max(0, row + ARROWS[event.key][0]));
      col = Math.min(lastCol, Math.max(0, col + ARROWS[event.key][1]));
    } else col = event.key === "Home" ? 0 : lastCol;
    const target = table.querySelector(`td[data-row="${row}"][data-col="${col}"]`);
    cell.tabIndex = -1;
    target.tabIndex = 0;
    target.focus();
  });
}
