// Input presets offered by #preset. Their keys are the option values of the DOM contract.

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
  random: {
    label: "Random integers (current size)",
    make: ([rows, cols]) => Array.from({ length: rows }, () =>
      Array.from({ length: cols }, () => Math.floor(Math.random() * 19) - 9)),
  },
};
