// The widget's whole state, and its one serialisation: the URL hash.
// parseHash validates everything and throws HashError with a message that says what to
// fix; serialiseState writes the canonical form (docs/design.md, "The URL hash").

import { encodeNumber, pairText } from "./format.js";

export const MAX_SIDE = 16;
const MAX_HASH_LENGTH = 20000;
const MAX_MAGNITUDE = 1e15;
const PARAMETER_LIMITS = {
  k: { name: "kernel (k)", min: 1, max: MAX_SIDE },
  s: { name: "stride (s)", min: 1, max: MAX_SIDE },
  p: { name: "padding (p)", min: 0, max: MAX_SIDE / 2 },
  d: { name: "dilation (d)", min: 1, max: MAX_SIDE },
};
const KNOWN_KEYS = ["k", "s", "p", "d", "mode", "ceil", "cip", "grad", "sel", "x", "g"];
const NUMBER_PATTERN = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const NON_FINITE_WORDS = new Set(["NaN", "Infinity", "-Infinity"]);

export const FIXTURE = [
  [1, 2, 5, 6],
  [3, 4, 8, 7],
  [0, -1, -3, -2],
  [-4, 9, -6, -5],
];

export class HashError extends Error {}

export function defaultState() {
  return {
    x: FIXTURE.map((row) => row.slice()),
    k: [2, 2],
    s: [2, 2],
    p: [0, 0],
    d: [1, 1],
    mode: "max",
    ceil: false,
    cip: true,
    grad: false,
    sel: null,
    g: null,
  };
}

// Quote user text in a message without letting a huge or odd token swamp it.
export function quote(text) {
  const clipped = text.length > 24 ? `${text.slice(0, 24)}…` : text;
  return `"${clipped}"`;
}

export function parseNumberToken(token, where) {
  const trimmed = token.trim();
  if (NON_FINITE_WORDS.has(trimmed)) return Number(trimmed);
  if (!NUMBER_PATTERN.test(trimmed)) {
    throw new HashError(`${where}: ${quote(trimmed)} is not a number (use digits like 3, -1.5, 2e-3, or NaN / Infinity)`);
  }
  const number = Number(trimmed);
  if (!(Math.abs(number) <= MAX_MAGNITUDE)) {
    throw new HashError(`${where}: ${quote(trimmed)} is too large; values must lie between -1e15 and 1e15`);
  }
  return number;
}

// Parse "r;r;r" with "v,v,v" rows, refusing oversized grids before touching their values.
function parseMatrix(text, label) {
  if (text === "") throw new HashError(`${label} is empty; give rows separated by ";" and values by ","`);
  const rows = text.split(";");
  if (rows.length > MAX_SIDE) {
    throw new HashError(`${label} has ${rows.length} rows; the limit is ${MAX_SIDE} x ${MAX_SIDE}`);
  }
  const cells = rows.map((row) => row.split(","));
  const width = cells[0].length;
  if (width > MAX_SIDE) {
    throw new HashError(`${label} has ${width} columns; the limit is ${MAX_SIDE} x ${MAX_SIDE}`);
  }
  cells.forEach((row, r) => {
    if (row.length !== width) {
      throw new HashError(`${label} is ragged: row ${r} has ${row.length} values, row 0 has ${width}; every row needs the same count`);
    }
  });
  return cells.map((row, r) => row.map((token, c) => parseNumberToken(token, `${label} row ${r}, col ${c}`)));
}

function parseWholeNumber(text, limits) {
  if (!/^\d{1,6}$/.test(text)) {
    throw new HashError(`${limits.name} must be a whole number or a pair like 3,2; got ${quote(text)}`);
  }
  const value = Number(text);
  if (value < limits.min || value > limits.max) {
    throw new HashError(`${limits.name} must be between ${limits.min} and ${limits.max}; got ${value}`);
  }
  return value;
}

export function parsePair(text, key) {
  const limits = PARAMETER_LIMITS[key];
  const parts = text.split(",");
  if (parts.length > 2) throw new HashError(`${limits.name} takes one number or a pair like 3,2; got ${quote(text)}`);
  const values = parts.map((part) => parseWholeNumber(part.trim(), limits));
  return values.length === 1 ? [values[0], values[0]] : values;
}

function parseFlag(text, key, meaning) {
  if (text === "1") return true;
  if (text === "0") return false;
  throw new HashError(`${key} must be 0 or 1 (${meaning}); got ${quote(text)}`);
}

function parseSelection(text) {
  const match = /^(\d{1,2}),(\d{1,2})$/.exec(text);
  if (!match) throw new HashError(`sel must be row,col of an output cell, like 0,1; got ${quote(text)}`);
  return [Number(match[1]), Number(match[2])];
}

export function parseHash(hash) {
  const body = hash.startsWith("#") ? hash.slice(1) : hash;
  if (body.length > MAX_HASH_LENGTH) {
    throw new HashError(`the link's state is ${body.length} characters long; the largest allowed grid is ${MAX_SIDE} x ${MAX_SIDE}`);
  }
  const state = defaultState();
  if (body === "") return state;
  const seen = new Map();
  for (const part of body.split("&")) {
    if (part === "") continue;
    const equals = part.indexOf("=");
    const key = equals < 0 ? part : part.slice(0, equals);
    if (!KNOWN_KEYS.includes(key)) {
      throw new HashError(`unknown setting ${quote(key)} in the link; known settings: ${KNOWN_KEYS.join(", ")}`);
    }
    if (seen.has(key)) throw new HashError(`${key} appears twice in the link`);
    let value;
    try {
      value = decodeURIComponent(equals < 0 ? "" : part.slice(equals + 1));
    } catch {
      throw new HashError(`${key} is not valid URL text`);
    }
    seen.set(key, value);
  }
  let strideGiven = false;
  for (const [key, value] of seen) {
    if (key in PARAMETER_LIMITS) {
      state[key] = parsePair(value, key);
      strideGiven ||= key === "s";
    } else if (key === "mode") {
      if (value !== "max" && value !== "avg") throw new HashError(`mode must be max or avg; got ${quote(value)}`);
      state.mode = value;
    } else if (key === "ceil") {
      state.ceil = parseFlag(value, "ceil", "1 rounds the output size up");
    } else if (key === "cip") {
      state.cip = parseFlag(value, "cip", "0 leaves padding out of the average's divisor");
    } else if (key === "grad") {
      state.grad = parseFlag(value, "grad", "1 shows gradient routing");
    } else if (key === "sel") {
      state.sel = parseSelection(value);
    } else if (key === "x") {
      state.x = parseMatrix(value, "the input x");
    } else if (key === "g") {
      state.g = parseMatrix(value, "the upstream gradient g");
    }
  }
  // PyTorch's default: a missing stride equals the kernel.
  if (!strideGiven) state.s = state.k.slice();
  if (state.mode === "avg" && (state.d[0] !== 1 || state.d[1] !== 1)) {
    throw new HashError("dilation applies to max pooling only; use d=1 with mode=avg");
  }
  return state;
}

function serialiseMatrix(matrix) {
  return matrix.map((row) => row.map(encodeNumber).join(",")).join(";");
}

export function serialiseState(state) {
  const parts = [
    `k=${pairText(state.k)}`,
    `s=${pairText(state.s)}`,
    `p=${pairText(state.p)}`,
    `d=${pairText(state.d)}`,
    `mode=${state.mode}`,
  ];
  if (state.ceil) parts.push("ceil=1");
  if (!state.cip) parts.push("cip=0");
  parts.push(`grad=${state.grad ? 1 : 0}`);
  if (state.sel) parts.push(`sel=${state.sel[0]},${state.sel[1]}`);
  parts.push(`x=${serialiseMatrix(state.x)}`);
  if (state.g) parts.push(`g=${serialiseMatrix(state.g)}`);
  return `#${parts.join("&")}`;
}

// What the worker needs: everything but the view-only parts (selection, grad toggle).
export function traceRequest(state) {
  // JSON writes -0 as 0 and has no NaN or infinities: those travel as strings.
  const encodeMatrix = (matrix) => matrix.map((row) => row.map((v) => (Number.isFinite(v) && !Object.is(v, -0) ? v : encodeNumber(v))));
  return {
    x: encodeMatrix(state.x),
    kernel_size: state.k,
    stride: state.s,
    padding: state.p,
    dilation: state.d,
    ceil_mode: state.ceil,
    count_include_pad: state.cip,
    mode: state.mode,
    grad_output: state.g ? encodeMatrix(state.g) : 1,
  };
}

export function requestKey(state) {
  return JSON.stringify(traceRequest(state));
}
