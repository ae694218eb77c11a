// The marks of wrong cells that render.js draws (data-mismatch), from exercise_check's
// mismatches ([{grid, row, col, expected, got}]): the exercise panel's, and a host's
// (the notebook's poolgrad.check), through mount's showMismatches.

import { decodeNumber, formatNumber } from "../widget/format.js";

// A wrong cell's two values as text: the grids' 4 decimals, or every digit when 4
// decimals would show the same number twice (an unrounded 0.66666… against 0.6667).
export function shownPair(expected, got) {
  const pair = { expected: formatNumber(expected), got: formatNumber(got) };
  if (pair.expected !== pair.got) return pair;
  return { expected: String(decodeNumber(expected)), got: String(decodeNumber(got)) };
}

// The marks render.js draws: "grid:row,col" -> {expected, got} as text.
export function mismatchMarks(mismatches) {
  return new Map(mismatches.map((item) => [`${item.grid}:${item.row},${item.col}`, shownPair(item.expected, item.got)]));
}
