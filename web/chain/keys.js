// The chain view's own keys (view=chain): its rows of state.js's one table (the hash), its
// model keys and model values, and the kinds of value only the chain has. This module
// adds them to the table when it loads (registerView), which the chain view's module
// (chain-view.js) makes happen; widget/views.js loads it before a link or a model that
// opens the chain is read. Left out of a link, the keys are the capstone's.

import { encodeNumber, sizeText, wireNumber } from "../widget/format.js";
import {
  InputError, MATRIX_SPELLINGS, MAX_SIDE, NUMBER_PATTERN, matrixHashText, matrixText, parseMatrix, parseNumberToken,
  quote, registerView,
} from "../widget/state.js";

// The chain view's limits (poolgrad.chain_trace's): input channels, filters, steps.
export const CHAIN_LIMITS = { channels: 3, filters: 4, steps: 500 };
const MAX_LEARNING_RATE = 100;

// The chain view's default (the capstone: a 6 × 6 input, a 3 × 3 filter, a 2 × 2 max
// pool and a 2 × 2 target under MSE), as the hash's chain keys start. Its other presets
// are presets.js's.
export const CHAIN_CAPSTONE = {
  x: [[[1, 2, 0, 3, 1, 0], [0, 1, 3, 1, 2, 2], [2, 0, 1, 0, 1, 3], [1, 3, 2, 2, 0, 1], [0, 1, 1, 3, 2, 0], [2, 2, 0, 1, 1, 1]]],
  weight: [[[[0.5, -0.5, 0], [0, 1, 0], [0.5, 0, -0.5]]]],
  target: [[[2, 1], [0, 3]]],
};

const KINDS = {
  // The chain's stacks of planes: `levels` lists, outermost first, each level's separator
  // ("/" between filters, "|" between channels), its name and its limit; every plane is
  // a matrix in the hash's spelling, and all planes share one shape.
  stack: {
    parse(text, property, source) {
      const planes = [];
      const read = (part, depth, where) => {
        if (depth === property.levels.length) {
          const plane = parseMatrix(part, MATRIX_SPELLINGS.hash(`${property.name}${where}`));
          planes.push([where, plane]);
          return plane;
        }
        const { separator, noun, limit } = property.levels[depth];
        const pieces = part.split(separator);
        if (pieces.length > limit) {
          throw new InputError(`${property.name} has ${pieces.length} ${noun}s; the limit is ${limit} (separate ${noun}s by "${separator}")`, source);
        }
        return pieces.map((piece, i) => read(piece, depth + 1, `${where} ${noun} ${i}`));
      };
      const value = read(text, 0, "");
      const [firstWhere, first] = planes[0];
      for (const [where, plane] of planes) {
        if (plane.length !== first.length || plane[0].length !== first[0].length) {
          throw new InputError(`${property.name}${where} is ${sizeText([plane.length, plane[0].length])} but${firstWhere} is ${sizeText([first.length, first[0].length])}; every ${property.levels.at(-1).noun} needs the same shape`, source);
        }
      }
      return value;
    },
    write(value, property) {
      const join = (part, depth) => (depth === property.levels.length
        ? matrixHashText(part)
        : part.map((piece) => join(piece, depth + 1)).join(property.levels[depth].separator));
      return join(value, 0);
    },
    // A model's nested lists: each plane through matrixText's strict check, each level
    // above it a list.
    fromModel(value, property, key) {
      const join = (part, depth) => {
        if (depth === property.levels.length) return matrixText(key, part);
        if (!Array.isArray(part)) {
          throw new InputError(`${property.name} must be lists of ${property.levels[depth].noun}s, each a grid of numbers; got ${quote(JSON.stringify(part) ?? String(part))}`, "hash");
        }
        return part.map((piece) => join(piece, depth + 1)).join(property.levels[depth].separator);
      };
      return join(value, 0);
    },
  },
  // A list of numbers (the chain's bias, one per filter).
  numbers: {
    parse(text, property, source) {
      const tokens = text.split(",");
      if (tokens.length > property.limit) throw new InputError(`${property.name} has ${tokens.length} values; the limit is ${property.limit}`, source);
      return tokens.map((token, i) => parseNumberToken(token, `${property.name} value ${i}`, source));
    },
    write: (values) => values.map(encodeNumber).join(","),
  },
  // A positive number (the learning rate).
  rate: {
    parse(text, property, source) {
      const value = NUMBER_PATTERN.test(text.trim()) ? Number(text) : NaN;
      if (!(value > 0 && value <= MAX_LEARNING_RATE)) {
        throw new InputError(`${property.name} must be a number above 0 and at most ${MAX_LEARNING_RATE}, like 0.01; got ${quote(text)}`, source);
      }
      return value;
    },
    write: String,
  },
  // A count (the chain's steps).
  count: {
    parse(text, property, source) {
      if (!/^\d{1,6}$/.test(text.trim()) || Number(text) > property.max) {
        throw new InputError(`${property.name} must be a whole number from 0 to ${property.max}; got ${quote(text)}`, source);
      }
      return Number(text);
    },
    write: String,
  },
};

// In the table's order; each key belongs to view=chain: written there only, and a link that
// gives one elsewhere is refused.
const PROPERTIES = [
  {
    key: "cx", kind: "stack", name: "the chain's input cx", levels: [{ separator: "|", noun: "channel", limit: CHAIN_LIMITS.channels }],
    initial: () => structuredClone(CHAIN_CAPSTONE.x), written: "always", only: true,
  },
  {
    key: "cw", kind: "stack", name: "the chain's weight cw",
    levels: [{ separator: "/", noun: "filter", limit: CHAIN_LIMITS.filters }, { separator: "|", noun: "channel", limit: CHAIN_LIMITS.channels }],
    initial: () => structuredClone(CHAIN_CAPSTONE.weight), written: "always", only: true,
    check: (state) => (state.view === "chain" && state.cw[0].length !== state.cx.length
      ? `the chain's weight cw has ${state.cw[0].length} channel slice${state.cw[0].length > 1 ? "s" : ""} per filter but the input cx has ${state.cx.length} channel${state.cx.length > 1 ? "s" : ""}; give each filter one slice per input channel (slices separated by "|", filters by "/")` : null),
  },
  {
    key: "cb", kind: "numbers", name: "the chain's bias cb", limit: CHAIN_LIMITS.filters, initial: () => null, written: "unless-initial", only: true,
    check: (state) => (state.view === "chain" && state.cb && state.cb.length !== state.cw.length
      ? `the chain's bias cb has ${state.cb.length} values but the weight cw has ${state.cw.length} filter${state.cw.length > 1 ? "s" : ""}; give one bias per filter` : null),
  },
  { key: "relu", kind: "flag", meaning: "1 puts a ReLU after the convolution", initial: () => false, written: "unless-initial", only: true },
  { key: "cpool", kind: "enum", values: ["max", "avg", "none"], initial: () => "max", written: "always", only: true },
  { key: "cpk", kind: "pair", name: "the chain's pooling window (cpk)", min: 1, max: MAX_SIDE, initial: () => [2, 2], written: "unless-initial", only: true },
  { key: "cup", kind: "enum", values: ["loss-mse", "loss-l1", "ones", "ramp", "hot"], initial: () => "loss-mse", written: "always", only: true },
  // The hot cell of cup=hot: row,col of the last output (its first filter).
  {
    key: "hot", kind: "selection", initial: () => [0, 0], written: "always", only: true,
    appliesWhen: (state) => state.cup === "hot", whyNot: "the hot cell is the upstream's when cup=hot",
  },
  {
    key: "ct", kind: "stack", name: "the chain's target ct", levels: [{ separator: "|", noun: "filter", limit: CHAIN_LIMITS.filters }],
    initial: () => structuredClone(CHAIN_CAPSTONE.target), written: "always", only: true,
  },
  { key: "lr", kind: "rate", name: "the learning rate (lr)", initial: () => 0.01, written: "always", only: true },
  { key: "steps", kind: "count", name: "the step count (steps)", max: CHAIN_LIMITS.steps, initial: () => 0, written: "always", only: true },
];

// Model key -> hash key (the notebook's traits and the element's attributes name these).
const MODEL_KEYS = {
  chain_x: "cx",
  chain_weight: "cw",
  chain_bias: "cb",
  chain_relu: "relu",
  chain_pool: "cpool",
  chain_pool_kernel_size: "cpk",
  chain_upstream: "cup",
  chain_hot: "hot",
  chain_target: "ct",
  learning_rate: "lr",
  steps: "steps",
};

// The chain's model values: null outside the chain view (the keys are then left out).
function modelValues(state) {
  const chain = state.view === "chain";
  const planes = (value) => (Array.isArray(value) && Array.isArray(value[0]) ? value.map(planes) : value.map(wireNumber));
  return {
    chain_x: chain ? planes(state.cx) : null,
    chain_weight: chain ? planes(state.cw) : null,
    chain_bias: chain && state.cb ? state.cb.map(wireNumber) : null,
    chain_relu: chain ? state.relu : null,
    chain_pool: chain ? state.cpool : null,
    chain_pool_kernel_size: chain ? state.cpk.slice() : null,
    chain_upstream: chain ? state.cup : null,
    chain_hot: chain && state.cup === "hot" ? state.hot.slice() : null,
    chain_target: chain ? planes(state.ct) : null,
    learning_rate: chain ? state.lr : null,
    steps: chain ? state.steps : null,
  };
}

registerView("chain", { properties: PROPERTIES, modelKeys: MODEL_KEYS, modelValues, kinds: KINDS });
