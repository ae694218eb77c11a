// Presets offered by #preset. Their keys are the option values of the DOM contract. Most
// load an input; a preset with `settings` also sets the view's other properties (state.js
// names: a mode and its output size), so loading it shows one idea of the lesson.

// The lesson's 4 x 4 fixture (docs/design.md, "Reference facts"): the default input.
export const FIXTURE = [
  [1, 2, 5, 6],
  [3, 4, 8, 7],
  [0, -1, -3, -2],
  [-4, 9, -6, -5],
];

export const PRESETS = {
  fixture: {
    label: "Lesson fixture (4 × 4)",
    make: () => FIXTURE.map((row) => row.slice()),
  },
  distinct: {
    label: "Distinct values 1–16",
    make: () => [
      [1, 2, 3, 4],
      [5, 6, 7, 8],
      [9, 10, 11, 12],
      [13, 14, 15, 16],
    ],
  },
  ties: {
    // Every 2 x 2 block holds a tie for its maximum: the first in row-major order wins.
    label: "Ties (first maximum wins)",
    make: () => [
      [3, 3, 1, 2],
      [3, 1, 2, 2],
      [0, 5, 4, 4],
      [5, 5, 4, 1],
    ],
  },
  negatives: {
    label: "All negative",
    make: () => [
      [-3, -1, -4, -1],
      [-5, -9, -2, -6],
      [-5, -3, -5, -8],
      [-9, -7, -9, -3],
    ],
  },
  global_avg: {
    // AdaptiveAvgPool2d(1): one number per channel, whatever the input's size.
    label: "Global average pooling (output 1 × 1)",
    make: () => FIXTURE.map((row) => row.slice()),
    settings: { mode: "adaptive_avg", o: [1, 1] },
  },
  adaptive_overlap: {
    // 5 into 3: the windows [0, 2), [1, 4), [3, 5) on each axis, so rows and columns 1
    // and 3 lie in two windows each (divisors 2, 3, 2).
    label: "Adaptive 5 × 5 → 3 × 3 (windows overlap)",
    make: () => Array.from({ length: 5 }, (_, r) => Array.from({ length: 5 }, (_, c) => 5 * r + c + 1)),
    settings: { mode: "adaptive_avg", o: [3, 3] },
  },
  random: {
    label: "Random integers (current size)",
    make: ([rows, cols]) => Array.from({ length: rows }, () =>
      Array.from({ length: cols }, () => Math.floor(Math.random() * 19) - 9)),
  },
};
