// The chain view's presets (#chain-preset): whole views of the lesson (its conv example,
// the capstone, a 3 × 3 pooling block, two filters over three channels) and the filters
// its exercises name, which replace W over the input shown. Pure; no DOM.

import { CHAIN_CAPSTONE } from "./keys.js";
import { lastOutputShape } from "./request.js";

// The lesson's conv example (issue "The whole backward pass"): Y = [[-5,-4,0],[-10,-2,2],[0,-2,-4]].
const LESSON_X = [[3, 0, 1, 2, 7], [1, 5, 8, 9, 3], [2, 7, 2, 5, 1], [0, 1, 3, 1, 7], [4, 2, 1, 6, 2]];

export const FILTERS = {
  "vertical-edge": { label: "Filter: vertical edge", filter: [[1, 0, -1], [1, 0, -1], [1, 0, -1]] },
  "horizontal-edge": { label: "Filter: horizontal edge", filter: [[1, 1, 1], [0, 0, 0], [-1, -1, -1]] },
  blur: { label: "Filter: blur", filter: [[0.0625, 0.125, 0.0625], [0.125, 0.25, 0.125], [0.0625, 0.125, 0.0625]] },
  sharpen: { label: "Filter: sharpen", filter: [[0, -1, 0], [-1, 5, -1], [0, -1, 0]] },
  identity: { label: "Filter: identity", filter: [[0, 0, 0], [0, 1, 0], [0, 0, 0]] },
  random: { label: "Filter: random", filter: null },
};

const rgbPlane = (shift) => CHAIN_CAPSTONE.x[0].map((row, r) => row.map((value, c) => (value + shift * (r + c)) % 4));

// Whole views: every chain key they set (the others keep their start).
export const VIEWS = {
  "lesson-conv": {
    label: "Lesson: conv example (5 × 5, vertical edge)",
    settings: { cx: [LESSON_X], cw: [[FILTERS["vertical-edge"].filter]], cb: null, relu: false, cpool: "none", cpk: [2, 2], cup: "ramp", ct: [[[0, 0, 0], [0, 0, 0], [0, 0, 0]]] },
  },
  capstone: {
    label: "Capstone: conv, 2 × 2 max pool, MSE",
    settings: { cx: CHAIN_CAPSTONE.x, cw: CHAIN_CAPSTONE.weight, cb: null, relu: false, cpool: "max", cpk: [2, 2], cup: "loss-mse", ct: CHAIN_CAPSTONE.target },
  },
  "pool-3x3": {
    label: "A 3 × 3 pooling block on 6 × 6",
    settings: { cx: CHAIN_CAPSTONE.x, cw: [[[[1]]]], cb: null, relu: false, cpool: "max", cpk: [3, 3], cup: "loss-mse", ct: [[[3, 2], [1, 3]]] },
  },
  "rgb-two-filters": {
    label: "Two filters over three channels (RGB-like)",
    settings: {
      cx: [rgbPlane(0), rgbPlane(1), rgbPlane(2)],
      cw: [
        [[[1, 0, -1], [1, 0, -1], [1, 0, -1]], [[0, 0, 0], [0, 1, 0], [0, 0, 0]], [[0, 0, 0], [0, 0, 0], [0, 0, 0]]],
        [[[0, 0, 0], [0, 0, 0], [0, 0, 0]], [[1, 1, 1], [0, 0, 0], [-1, -1, -1]], [[0.25, 0, 0], [0, 0.25, 0], [0, 0, 0.25]]],
      ],
      cb: [0, 0], relu: false, cpool: "max", cpk: [2, 2], cup: "loss-mse", ct: [[[2, 1], [0, 3]], [[1, 0], [2, 1]]],
    },
  },
};

export const PRESET_LABELS = Object.fromEntries([...Object.entries(VIEWS), ...Object.entries(FILTERS)].map(([key, { label }]) => [key, label]));

// A random 3 × 3 filter, one decimal in [-1, 1].
const randomFilter = (random) => Array.from({ length: 3 }, () => Array.from({ length: 3 }, () => Math.round(random() * 20 - 10) / 10));

// The target fitted to the last output's shape: the values it has where they still fit,
// 0 in the new cells (a pooling or filter change may change the shape).
export function fitTarget(state) {
  const [filters, rows, cols] = lastOutputShape(state);
  const fitted = Array.from({ length: filters }, (_, f) => Array.from({ length: Math.max(rows, 1) }, (_, r) => Array.from({ length: Math.max(cols, 1) }, (_, c) => state.ct[f]?.[r]?.[c] ?? 0)));
  const same = JSON.stringify(fitted) === JSON.stringify(state.ct);
  if (!same) state.ct = fitted;
  return state;
}

// The state change of preset `name`, as a mutator: a view sets its keys, a filter replaces
// W (one filter, the same slice over every input channel) and drops the bias. Either way
// learning starts over (steps=0) and the hot cell goes back to (0,0).
export function presetChange(name, random = Math.random) {
  return (state) => {
    if (VIEWS[name]) Object.assign(state, structuredClone(VIEWS[name].settings));
    else {
      const filter = FILTERS[name].filter ?? randomFilter(random);
      state.cw = [state.cx.map(() => structuredClone(filter))];
      state.cb = null;
    }
    state.steps = 0;
    state.hot = [0, 0];
    fitTarget(state);
  };
}

// The preset the state shows, or "custom".
export function presetShowing(state, lastRandom) {
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  for (const [name, { settings }] of Object.entries(VIEWS)) {
    if (Object.entries(settings).every(([key, value]) => same(state[key], value))) return name;
  }
  for (const [name, { filter }] of Object.entries(FILTERS)) {
    const shown = filter ?? lastRandom;
    if (shown && state.cw.length === 1 && state.cw[0].every((slice) => same(slice, shown))) return name;
  }
  return "custom";
}
