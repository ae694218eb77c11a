// The widget's whole state, its one serialisation (the URL hash), and every parse of the
// learner's text into it. One table, HASH_PROPERTIES, drives both directions: parseHash
// reads each property by its kind, serialiseState writes them in table order, leaving out
// the ones whose rule says so (docs/design.md, "The URL hash"). The views that load when
// first opened (web/chain/, web/picture/) add their own rows when their module loads
// (registerView); widget/views.js loads the ones a link or a model needs before it is
// read. Errors are InputError,
// carrying where the text came from (the hash, the paste box, a cell edit, a field) and a
// message that says what to fix.

import { NON_FINITE, encodeNumber, pairText, wireNumber } from "./format.js";
import { FIXTURE, PRESETS } from "./presets.js";
import { outputInRange } from "./trace-view.js";

export { FIXTURE };

export const MAX_SIDE = 16;
const MAX_HASH_LENGTH = 20000;
const MAX_MAGNITUDE = 1e15;
export const NUMBER_PATTERN = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const MAX_NORM = 1000;

// The pooling modes (poolgrad.trace()'s `mode`), as sentences name them.
export const MODE_NAMES = {
  max: "max pooling",
  avg: "average pooling",
  adaptive_max: "adaptive max pooling",
  adaptive_avg: "adaptive average pooling",
  lp: "LP pooling",
};
// The modes whose windows follow the output size, and those that keep one cell per
// window (its argmax: where unpooling applies).
export const ADAPTIVE_MODES = ["adaptive_max", "adaptive_avg"];
export const MAX_MODES = ["max", "adaptive_max"];

// A refusal of the learner's text. `source` says where the text came from: "hash",
// "paste", "cell" or "field"; status lines word the error after it.
export class InputError extends Error {
  constructor(message, source) {
    super(message);
    this.name = "InputError";
    this.source = source;
  }
}

// Quote user text in a message without letting a huge or odd token swamp it.
export function quote(text) {
  const clipped = text.length > 24 ? `${text.slice(0, 24)}…` : text;
  return `"${clipped}"`;
}

// The one number rule, for every matrix value and every cell edit: a decimal or
// exponent spelling, or one of the words NaN / Infinity / -Infinity, within ±1e15. A
// spelling of a non-zero number too small for a double (1e-400) is refused, not read as 0.
export function parseNumberToken(token, where, source) {
  const trimmed = token.trim();
  if (NON_FINITE.has(trimmed)) return NON_FINITE.get(trimmed);
  if (!NUMBER_PATTERN.test(trimmed)) {
    throw new InputError(`${where}: ${quote(trimmed)} is not a number (use digits like 3, -1.5, 2e-3, or NaN / Infinity)`, source);
  }
  const number = Number(trimmed);
  if (!(Math.abs(number) <= MAX_MAGNITUDE)) {
    throw new InputError(`${where}: ${quote(trimmed)} is too large; values must lie between -1e15 and 1e15`, source);
  }
  if (number === 0 && /[1-9]/.test(trimmed.split(/e/i)[0])) {
    throw new InputError(`${where}: ${quote(trimmed)} is too small for a double (it would become 0; the smallest is about 5e-324); write 0 if you mean 0`, source);
  }
  return number;
}

// NumPy's and PyTorch's printouts wrap the nested lists: array([[1, 2]], dtype=int8),
// tensor([[4., 8.]], dtype=torch.float64, requires_grad=True). The keywords after the
// last "]" say nothing about the values.
const PRINTOUT = /^\s*(?:np\.|numpy\.|torch\.)?(?:array|tensor)\(([\s\S]*)\)\s*$/;
const KEYWORD_ARGUMENTS = /^(\s*,\s*[A-Za-z_]\w*\s*=\s*[^,=]+?)*\s*,?\s*$/;

function unwrapPrintout(text) {
  const match = PRINTOUT.exec(text);
  if (!match) return text;
  const inner = match[1];
  const end = inner.lastIndexOf("]");
  return end >= 0 && KEYWORD_ARGUMENTS.test(inner.slice(end + 1)) ? inner.slice(0, end + 1) : inner;
}

// How deep the brackets nest: a matrix is [[...]] at most; unbalanced brackets are refused.
function bracketDepth(text) {
  let depth = 0;
  let deepest = 0;
  for (const char of text) {
    if (char === "[") deepest = Math.max(deepest, ++depth);
    else if (char === "]" && --depth < 0) break;
  }
  if (depth !== 0) {
    throw new InputError("The pasted matrix's brackets do not match; write every row in brackets, like [[1, 2], [3, 4]], or one row per line without brackets.", "paste");
  }
  return deepest;
}

// Rows on lines, numbers separated by spaces or commas (what a spreadsheet prints), or
// bracketed rows, whatever the line breaks ([[1, 2], [3, 4]], NumPy's [[1 2]\n [3 4]] and
// array([[...]]), PyTorch's tensor([[...]])): each innermost [...] is one row.
function pastedRows(pasted) {
  const text = unwrapPrintout(pasted);
  if (!text.includes("[") && !text.includes("]")) {
    return text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "");
  }
  const depth = bracketDepth(text);
  if (depth > 2) {
    throw new InputError(`The pasted matrix has ${depth} dimensions (brackets nested ${depth} deep); the widget shows one 2-D plane: paste a single matrix, like [[1, 2], [3, 4]].`, "paste");
  }
  const rows = [...text.matchAll(/\[([^[\]]*)\]/g)].map((match) => match[1].trim());
  const rest = text.replace(/\[([^[\]]*)\]/g, " ");
  if (/[^\s,[\]]/.test(rest)) {
    throw new InputError("The pasted matrix has numbers outside the brackets of its rows; write every row in brackets, like [[1, 2], [3, 4]], or one row per line without brackets.", "paste");
  }
  return rows;
}

// A comma between digits is the separator only in a row of comma-separated values
// ("1,2,3"). In a row whose values are also spaced ("1,5 2,5", "1, 2,5"), or before a
// value written with a leading zero ("1,000", "0,05"), it may as well be a decimal comma
// or a thousands separator: the paste is refused rather than guessed.
const DECIMAL_WORDS = new Map([["nan", "NaN"], ["inf", "Infinity"], ["infinity", "Infinity"]]);

function pastedValues(row, r) {
  const commaInNumber = /\d,\d/.test(row);
  const tokens = row.split(/[\s,]+/).filter((token) => token !== "");
  const ambiguous = commaInNumber && (/\s/.test(row) || tokens.some((token) => /^[+-]?0\d/.test(token)));
  if (ambiguous) {
    const example = row.match(/\S*\d,\d\S*/)[0];
    throw new InputError(`Row ${r}: the comma in ${quote(example)} could be a decimal comma (1,5 for 1.5) or a thousands separator (1,000 for 1000); write decimals with a point (1.5), thousands with no separator (1000), and separate values with spaces or ", ".`, "paste");
  }
  // Python prints nan, inf and -inf.
  return tokens.map((token) => {
    const word = /^([+-]?)([a-z]+)$/i.exec(token);
    const spelled = word && DECIMAL_WORDS.get(word[2].toLowerCase());
    if (!spelled) return token;
    return spelled === "Infinity" && word[1] === "-" ? "-Infinity" : spelled;
  });
}

// The spellings of a matrix parseMatrix reads: how text splits into rows and values,
// and how its refusals are worded. The rules (size limits, same count per row, the
// number rule) are parseMatrix's own and the same for both.
export const MATRIX_SPELLINGS = {
  // The hash's "r;r;r" with "v,v,v" rows; `label` names the matrix ("the input x").
  hash: (label) => ({
    source: "hash",
    rows: (text) => (text === "" ? [] : text.split(";")),
    values: (row) => row.split(","),
    empty: `${label} is empty; give rows separated by ";" and values by ","`,
    tooMany: (count, what) => `${label} has ${count} ${what}; the limit is ${MAX_SIDE} x ${MAX_SIDE}`,
    ragged: (r, count, width) => `${label} is ragged: row ${r} has ${count} values, row 0 has ${width}; every row needs the same count`,
    cell: (r, c) => `${label} row ${r}, col ${c}`,
  }),
  // The paste box: see pastedRows.
  paste: () => ({
    source: "paste",
    // An all-blank paste ("", "[]") is empty, not a matrix of no numbers.
    rows: (text) => {
      const rows = pastedRows(text);
      return rows.every((row) => row === "") ? [] : rows;
    },
    values: pastedValues,
    empty: "Paste some numbers first: one row per line, separated by spaces or commas.",
    tooMany: (count, what) => `The pasted matrix has ${count} ${what}; the limit is ${MAX_SIDE} x ${MAX_SIDE}.`,
    ragged: (r, count, width) => `Row ${r} has ${count} numbers but row 0 has ${width}; every row needs the same count.`,
    cell: (r, c) => `Row ${r}, col ${c}`,
  }),
};

// The one matrix parser: text in `spelling` (a MATRIX_SPELLINGS entry) to rows of
// numbers, refusing an oversized grid before touching its values.
export function parseMatrix(text, spelling) {
  const fail = (message) => new InputError(message, spelling.source);
  const rows = spelling.rows(text);
  if (rows.length === 0) throw fail(spelling.empty);
  if (rows.length > MAX_SIDE) throw fail(spelling.tooMany(rows.length, "rows"));
  const cells = rows.map(spelling.values);
  const width = cells[0].length;
  if (width > MAX_SIDE) throw fail(spelling.tooMany(width, "columns"));
  cells.forEach((row, r) => {
    if (row.length !== width) throw fail(spelling.ragged(r, row.length, width));
  });
  return cells.map((row, r) => row.map((token, c) => parseNumberToken(token, spelling.cell(r, c), spelling.source)));
}

// One edited cell: the number rule alone, the same as for a matrix value.
export function parseCellValue(text, where) {
  return parseNumberToken(text, where, "cell");
}

// The norm type's words for infinity: a Map, so "__proto__" or "constructor" is no word.
const NORM_WORDS = new Map([["inf", Infinity], ["infinity", Infinity], ["-inf", -Infinity], ["-infinity", -Infinity]]);

// How each kind of property reads its text and writes it back: parse(text, property,
// source) returns the value or throws InputError; write(value, property) is the canonical
// text; fromModel(value, property, key), where a model's JSON value is not spelled as
// String() spells it, is its text (a view's module may add kinds: registerView).
const KINDS = {
  pair: {
    parse(text, property, source) {
      const parts = pairParts(text, source);
      if (parts.length > 2) throw new InputError(`${property.name} takes one number or a pair like 3,2; got ${quote(text)}`, source);
      const values = parts.map((part) => wholeNumber(part.trim(), property, source));
      return values.length === 1 ? [values[0], values[0]] : values;
    },
    write: pairText,
  },
  flag: {
    parse(text, property, source) {
      if (text === "1") return true;
      if (text === "0") return false;
      throw new InputError(`${property.key} must be 0 or 1 (${property.meaning}); got ${quote(text)}`, source);
    },
    write: (value) => (value ? "1" : "0"),
    fromModel: (value) => (value ? "1" : "0"),
  },
  enum: {
    parse(text, property, source) {
      const names = `${property.values.slice(0, -1).join(", ")} or ${property.values.at(-1)}`;
      if (!property.values.includes(text)) throw new InputError(`${property.key} must be ${names}; got ${quote(text)}`, source);
      return text;
    },
    write: String,
  },
  selection: {
    parse(text, property, source) {
      const match = (property.digits === 3 ? /^(\d{1,3}),(\d{1,3})$/ : /^(\d{1,2}),(\d{1,2})$/).exec(text);
      if (!match) throw new InputError(`${property.key} must be row,col of an output cell, like 0,1; got ${quote(text)}`, source);
      return [Number(match[1]), Number(match[2])];
    },
    write: ([row, col]) => `${row},${col}`,
  },
  norm: {
    parse(text, property, source) {
      const trimmed = text.trim();
      // Only the words mean infinity: a spelling a double rounds to it (1e400) is out of range.
      const word = NORM_WORDS.get(trimmed.toLowerCase());
      const value = word ?? (NUMBER_PATTERN.test(trimmed) ? Number(trimmed) : NaN);
      if (word === undefined && !(Math.abs(value) <= MAX_NORM)) {
        throw new InputError(`${property.name} must be a number such as 1, 2 or 3 (or Infinity), between -${MAX_NORM} and ${MAX_NORM}; got ${quote(text)}`, source);
      }
      if (value === 0) throw new InputError(`${property.name} must not be 0: the power mean (sum of x^p)^(1/p) needs p ≠ 0`, source);
      return value;
    },
    write: (value) => (Number.isFinite(value) ? String(value) : value > 0 ? "Infinity" : "-Infinity"),
  },
  matrix: {
    parse: (text, property) => parseMatrix(text, MATRIX_SPELLINGS.hash(property.name)),
    write: (matrix) => matrixHashText(matrix),
    fromModel: (value, property, key) => matrixText(key, value),
  },
};

// A matrix as the hash spells it: rows separated by ";", values by ",".
export function matrixHashText(matrix) {
  return matrix.map((row) => row.map(encodeNumber).join(",")).join(";");
}

// The separators a parameter field takes between the two numbers of a pair: a phone's
// numeric keypad has no comma, so a space, ";", "x", "*" or "×" does as well ("3 2", "3x2").
// The hash is the page's own writing and keeps to the comma.
const FIELD_PAIR_SEPARATOR = /\s*[,;x*×]\s*|\s+/i;

function pairParts(text, source) {
  return source === "field" ? text.trim().split(FIELD_PAIR_SEPARATOR) : text.split(",");
}

function wholeNumber(text, property, source) {
  if (!/^\d{1,6}$/.test(text)) {
    const pairs = source === "field" ? "a pair like 3,2 (or 3 2, 3x2)" : "a pair like 3,2";
    throw new InputError(`${property.name} must be a whole number or ${pairs}; got ${quote(text)}`, source);
  }
  const value = Number(text);
  if (value < property.min || value > property.max) {
    throw new InputError(`${property.name} must be between ${property.min} and ${property.max}; got ${value}`, source);
  }
  return value;
}

// The state, property by property, in the hash's canonical order. `initial(state)` is
// the value when the hash leaves the key out (it may depend on properties above it);
// `written` says when serialiseState writes it: "always", "unless-initial" (left out
// while it equals its initial value) or, for the selection, "unless-implicit" (left out
// while state.selImplicit holds, or when nothing is selected). A property marked `only`
// belongs to some modes (APPLIES below): it is written only where it applies, and a link
// that gives it elsewhere is refused, so every link has one spelling. `check(state)`, run
// once every property is known, returns a message for a combination the hash may not ask for.
export const HASH_PROPERTIES = [
  { key: "k", kind: "pair", name: "kernel (k)", min: 1, max: MAX_SIDE, initial: () => [2, 2], written: "always" },
  // PyTorch's default: a missing stride equals the kernel.
  { key: "s", kind: "pair", name: "stride (s)", min: 1, max: MAX_SIDE, initial: (state) => state.k.slice(), written: "always" },
  {
    key: "p", kind: "pair", name: "padding (p)", min: 0, max: MAX_SIDE / 2, initial: () => [0, 0], written: "always",
    check: (state) => (!applies("p", state) && (state.p[0] !== 0 || state.p[1] !== 0)
      ? `padding does not apply to mode=${state.mode} (${MODE_NAMES[state.mode]} has none); use p=0` : null),
  },
  {
    key: "d", kind: "pair", name: "dilation (d)", min: 1, max: MAX_SIDE, initial: () => [1, 1], written: "always",
    check: (state) => (!applies("d", state) && (state.d[0] !== 1 || state.d[1] !== 1)
      ? `dilation applies to max pooling only; use d=1 with mode=${state.mode}` : null),
  },
  { key: "mode", kind: "enum", values: Object.keys(MODE_NAMES), initial: () => "max", written: "always" },
  // The adaptive modes' output size: their windows follow it (kernel and stride do not apply).
  { key: "o", kind: "pair", name: "output size (o)", min: 1, max: MAX_SIDE, initial: () => [2, 2], written: "always", only: true },
  // LP pooling's p (norm_type): any number but 0, or Infinity (max pooling of |x|).
  { key: "n", kind: "norm", name: "norm type (n)", initial: () => 2, written: "always", only: true },
  {
    key: "ceil", kind: "flag", meaning: "1 rounds the output size up", initial: () => false, written: "unless-initial",
    check: (state) => (!applies("ceil", state) && state.ceil ? `ceil does not apply to mode=${state.mode}: its windows follow the output size o; leave ceil out` : null),
  },
  { key: "cip", kind: "flag", meaning: "0 leaves padding out of the average's divisor", initial: () => true, written: "unless-initial" },
  { key: "grad", kind: "flag", meaning: "1 shows gradient routing", initial: () => false, written: "always" },
  // max_unpool2d(out, indices) beside the input gradient (the max modes).
  { key: "unpool", kind: "flag", meaning: "1 shows max_unpool2d(out, indices)", initial: () => false, written: "unless-initial", only: true },
  // With no sel in the link the first output is selected, so the main interaction shows at
  // once; that implicit selection (state.selImplicit) is never written: the link carries a
  // selection only when someone picked it.
  { key: "sel", kind: "selection", initial: () => [0, 0], written: "unless-implicit" },
  { key: "x", kind: "matrix", name: "the input x", initial: () => FIXTURE.map((row) => row.slice()), written: "always" },
  { key: "g", kind: "matrix", name: "the upstream gradient g", initial: () => null, written: "unless-initial" },
  // Which view shows: the pooling layer, the chain X -conv W-> Y1 -pool-> Y2 -loss-> L, or
  // a picture. The chain's and the picture's own keys are their modules' (registerView).
  { key: "view", kind: "enum", values: ["pool", "chain", "picture"], initial: () => "pool", written: "unless-initial" },
];
const PROPERTY = new Map(HASH_PROPERTIES.map((property) => [property.key, property]));
// Key -> the view whose module added it (registerView).
const VIEW_OF = new Map();

// A view's module adds its own rows to the table (in the table's shape, plus
// `appliesWhen(state)`: within its view, when the key applies, and `whyNot`: the link's
// refusal where it does not), its model keys ({model key: hash key}), its model values
// (modelValues(state), each null outside the view) and the kinds its rows use. Adding the
// same view again changes nothing.
export function registerView(view, { properties, modelKeys, modelValues: values, kinds = {} }) {
  if (VIEWS.has(view)) return;
  VIEWS.set(view, values);
  Object.assign(KINDS, kinds);
  for (const property of properties) {
    HASH_PROPERTIES.push(property);
    PROPERTY.set(property.key, property);
    VIEW_OF.set(property.key, view);
  }
  Object.assign(MODEL_KEYS, modelKeys);
}
// The views whose rows are in the table, with their model values.
const VIEWS = new Map();

// Whether the table knows `key`: a view's key is known once its module loaded.
export function knowsKey(key) {
  return PROPERTY.has(key);
}

// Whether the view's own rows are in the table (the pool view's always are).
export function knowsView(view) {
  return view === "pool" || VIEWS.has(view);
}

// Give every property `state` lacks its initial value, in table order. A selection the
// state lacks is the implicit one.
function fillInitial(state) {
  state.selImplicit ??= !("sel" in state);
  for (const property of HASH_PROPERTIES) {
    if (!(property.key in state)) state[property.key] = property.initial(state);
  }
  return state;
}

export function defaultState() {
  return fillInitial({});
}

// A pair parameter (k, s, p, d) as the hash and the parameter fields spell it.
export function parsePair(text, key, source = "hash") {
  const property = PROPERTY.get(key);
  return KINDS[property.kind].parse(text, property, source);
}

export function parseHash(hash) {
  const fail = (message) => new InputError(message, "hash");
  const body = hash.startsWith("#") ? hash.slice(1) : hash;
  if (body.length > MAX_HASH_LENGTH) {
    throw fail(`the link's state is ${body.length} characters long; the largest allowed grid is ${MAX_SIDE} x ${MAX_SIDE}`);
  }
  const given = new Map();
  for (const part of body.split("&")) {
    if (part === "") continue;
    const equals = part.indexOf("=");
    const key = equals < 0 ? part : part.slice(0, equals);
    if (!PROPERTY.has(key)) {
      throw fail(`unknown setting ${quote(key)} in the link; known settings: ${[...PROPERTY.keys()].join(", ")}`);
    }
    if (given.has(key)) throw fail(`${key} appears twice in the link`);
    try {
      given.set(key, decodeURIComponent(equals < 0 ? "" : part.slice(equals + 1)));
    } catch {
      throw fail(`${key} is not valid URL text`);
    }
  }
  // Parsed in the link's order, so the first bad setting is the one reported.
  const state = {};
  for (const [key, text] of given) {
    const property = PROPERTY.get(key);
    state[key] = KINDS[property.kind].parse(text, property, "hash");
  }
  // A host reads a link only once its view's module loaded (widget/views.js viewsFor).
  if (state.view && !knowsView(state.view)) throw new Error(`view=${state.view}: its module has not loaded its keys yet (widget/views.js)`);
  fillInitial(state);
  for (const key of given.keys()) {
    if (PROPERTY.get(key).only && !applies(key, state)) {
      const view = VIEW_OF.get(key);
      throw fail(view
        ? `${key} does not apply here; ${state.view === view ? PROPERTY.get(key).whyNot : `it is the ${view} view's (view=${view})`}`
        : `${key} does not apply to mode=${state.mode}; ${APPLIES_TEXT[key]}`);
    }
  }
  for (const property of HASH_PROPERTIES) {
    const refusal = property.check?.(state);
    if (refusal) throw fail(refusal);
  }
  return state;
}

function leftOut(property, value, state) {
  if (property.only && !applies(property.key, state)) return true;
  // A chain or picture link carries the pooling view's settings only where they differ from
  // the start.
  const poolKey = !VIEW_OF.has(property.key) && property.key !== "view";
  if (state.view !== "pool" && poolKey && property.written === "always") {
    const { write } = KINDS[property.kind];
    return write(value, property) === write(property.initial(state), property);
  }
  if (property.written === "always") return false;
  if (property.written === "unless-implicit") return state.selImplicit || value === null;
  const initial = property.initial(state);
  if (value === null || initial === null) return value === initial;
  const { write } = KINDS[property.kind];
  return write(value, property) === write(initial, property);
}

export function serialiseState(state) {
  const parts = HASH_PROPERTIES
    .filter((property) => !leftOut(property, state[property.key], state))
    .map((property) => `${property.key}=${KINDS[property.kind].write(state[property.key], property)}`);
  return `#${parts.join("&")}`;
}

// The state's link less its selection: two states with the same one draw the same grids
// but for the selection marks (render.js redrawPlan), and keep the exercise panel's marks.
export function gridsKey(state) {
  return serialiseState({ ...state, sel: null });
}

// The hash the page writes for `state`, given `trace`, the answer for this very state
// (null while there is none): the canonical form, less a selection the output does not
// have, whether it arrived in a link or the output shrank under it. This is the one place
// the trace bears on the link: the state itself keeps the selection as it was made (every
// view of it asks trace-view's selectedOutput, which ignores it), so nothing the worker
// answers is written back into the state.
export function hashFor(state, trace) {
  const unshown = trace !== null && trace.kind !== "chain" && state.sel !== null && !outputInRange(trace, state.sel);
  return serialiseState(unshown ? { ...state, sel: null } : state);
}

// What the worker needs: everything but the view-only parts (selection, grad toggle), and
// of the parameters only those the mode takes (trace() refuses a kernel in the adaptive
// modes). The max and average modes' requests are what they were before the other modes
// came: the build's shipped traces are filed under these keys.
export function traceRequest(state) {
  const encodeMatrix = (matrix) => matrix.map((row) => row.map(wireNumber));
  const request = { x: encodeMatrix(state.x) };
  if (ADAPTIVE_MODES.includes(state.mode)) {
    request.output_size = state.o;
  } else {
    request.kernel_size = state.k;
    request.stride = state.s;
    if (state.mode !== "lp") {
      request.padding = state.p;
      request.dilation = state.d;
    }
    request.ceil_mode = state.ceil;
    if (state.mode !== "lp") request.count_include_pad = state.cip;
  }
  request.mode = state.mode;
  if (state.mode === "lp") request.norm_type = wireNumber(state.n);
  request.grad_output = state.g ? encodeMatrix(state.g) : 1;
  if (state.unpool && applies("unpool", state)) request.unpool = true;
  return request;
}

export function requestKey(state) {
  return JSON.stringify(traceRequest(state));
}

// ---- state changes: the rules every host, the controls and the build share (no DOM) ----

// Which parameters apply in which mode: dilation to max pooling only (average pooling has
// no dilation, as in PyTorch's avg_pool2d), count_include_pad to average pooling only;
// the adaptive modes place their windows by the output size o alone, LP pooling (n) has
// no padding, and unpooling needs the indices of the max modes. A key not listed applies
// everywhere.
const WINDOWED = ["max", "avg", "lp"];
const APPLIES = {
  k: WINDOWED, s: WINDOWED, p: ["max", "avg"], d: ["max"], ceil: WINDOWED, cip: ["avg"],
  o: ADAPTIVE_MODES, n: ["lp"], unpool: MAX_MODES,
};
// Why a mode's own key does not apply elsewhere, as a link's refusal says it.
const APPLIES_TEXT = {
  o: "the output size is the adaptive modes' (mode=adaptive_max or adaptive_avg)",
  n: "the norm type is LP pooling's (mode=lp)",
  unpool: "unpooling puts back the maxima of the max modes (mode=max or adaptive_max)",
};
export function applies(key, state) {
  const view = VIEW_OF.get(key);
  if (view) return state.view === view && (PROPERTY.get(key).appliesWhen?.(state) ?? true);
  return !(key in APPLIES) || APPLIES[key].includes(state.mode);
}

// The properties whose change can change the output's shape: changing one resets a custom
// upstream gradient (state.g) to all ones, as its shape may no longer fit.
const RESETS_GRADIENT = new Set(["k", "s", "p", "d", "mode", "ceil", "o", "x"]);

// `state` with `changes` (state properties) applied under the rules above: a mode without
// dilation (padding, ceil_mode) sets it back to 1 (0, off), and a change of shape resets
// the custom gradient unless the changes give one. Returns a new state; `state` is left as it was.
export function changedState(state, changes) {
  const next = { ...structuredClone(state), ...structuredClone(changes) };
  const resets = Object.keys(changes).some((key) => RESETS_GRADIENT.has(key)
    && JSON.stringify(changes[key]) !== JSON.stringify(state[key]));
  if (resets && !("g" in changes)) next.g = null;
  if (!applies("d", next)) next.d = [1, 1];
  if (!applies("p", next)) next.p = [0, 0];
  if (!applies("ceil", next)) next.ceil = false;
  return next;
}

// The state change of opening `view` (#view): the view's own keys (its module must have
// added them) keep what they held, or start at their initial values.
export function switchView(view) {
  return (state) => fillInitial(Object.assign(state, { view }));
}

// The state change of picking a pooling mode, from #mode or the Max / Average buttons, as a
// mutator: the selection is kept (the next trace decides whether the output still has it).
export function switchMode(mode) {
  return (state) => Object.assign(state, changedState(state, { mode }), { g: null });
}

// The state change of loading the preset `name` (a PRESETS key) at the input's size, with
// the settings it comes with (a mode and its output size), as their controls set them.
export function presetChange(name) {
  const { make, settings = {} } = PRESETS[name];
  return (state) => Object.assign(state, changedState(state, { x: make([state.x.length, state.x[0].length]), ...structuredClone(settings) }), { g: null });
}

// Whether `state` shows preset `name`'s input and settings.
export function showsPreset(name, state) {
  const { make, settings = {} } = PRESETS[name];
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  return same(make([state.x.length, state.x[0].length]), state.x)
    && Object.entries(settings).every(([key, value]) => same(state[key], value));
}

// ---- the host model: the state as mount()'s model holds it (anywidget's shape) ----

// Model key -> state property. The keys are poolgrad.trace()'s argument names (and the
// notebook widget's traits); each value is JSON: a pair as a number or [h, w], a matrix as
// rows of numbers (non-finite ones as format.js's words), a flag as a boolean, the
// selection as [row, col] or null (none picked: the first output is shown selected).
// A host may also give any value as its text spelling, as the hash writes it ("3,2",
// "1,2;3,4", "0,1"): attributes are text.
export const MODEL_KEYS = {
  kernel_size: "k",
  stride: "s",
  padding: "p",
  dilation: "d",
  mode: "mode",
  ceil_mode: "ceil",
  count_include_pad: "cip",
  gradient: "grad",
  selection: "sel",
  x: "x",
  grad_output: "g",
  output_size: "o",
  norm_type: "n",
  unpool: "unpool",
  view: "view",
};

// The model's values for `state`.
export function modelValues(state) {
  const matrix = (rows) => rows.map((row) => row.map(wireNumber));
  return {
    kernel_size: state.k.slice(),
    stride: state.s.slice(),
    padding: state.p.slice(),
    dilation: state.d.slice(),
    mode: state.mode,
    ceil_mode: state.ceil,
    count_include_pad: state.cip,
    gradient: state.grad,
    selection: state.selImplicit || state.sel === null ? null : state.sel.slice(),
    x: matrix(state.x),
    grad_output: state.g ? matrix(state.g) : null,
    output_size: state.o.slice(),
    norm_type: wireNumber(state.n),
    unpool: state.unpool,
    view: state.view === "pool" ? null : state.view,
    ...Object.assign({}, ...[...VIEWS.values()].map((values) => values(state))),
  };
}

// A matrix given as rows (a model value, an element's property) as the link spells it,
// -0 kept. Anything but a 2-D grid (a 3-D array, a row that is a number, a cell holding
// separators) is refused, naming the setting (`key`, a model key): joined, it would read as
// another grid.
export function matrixText(key, rows) {
  const isCell = (v) => typeof v === "number" || (typeof v === "string" && !/[,;]/.test(v));
  if (!Array.isArray(rows) || !rows.every((row) => Array.isArray(row) && row.every(isCell))) {
    const given = JSON.stringify(rows) ?? String(rows);
    throw new InputError(`${PROPERTY.get(MODEL_KEYS[key]).name} must be a grid: rows of numbers, like [[1, 2], [3, 4]]; got ${quote(given)}`, "hash");
  }
  return rows.map((row) => row.map((v) => (typeof v === "number" ? encodeNumber(v) : v)).join(",")).join(";");
}

// A model value as the hash spells it, or null when the model leaves it out.
function valueText(key, value) {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return value;
  const property = PROPERTY.get(MODEL_KEYS[key]);
  const { fromModel } = KINDS[property.kind];
  if (fromModel) return fromModel(value, property, key);
  return Array.isArray(value) ? value.join(",") : String(value);
}

// The state a model's values describe (`get(key)`, the model's own reader), refused as the
// hash would refuse it: InputError with the same message, naming the setting.
// A model holds every key at once, so a mode's (or a view's) own key is kept there while
// another shows: it is read only where it applies, which the choices (the enum keys: the
// mode, the view, the chain's upstream) decide. The view's module must have loaded
// (widget/views.js): the model keys of a view whose rows are not in the table are not read.
export function stateFromModel(get) {
  const parts = [];
  const choices = {};
  for (const [key, property] of Object.entries(MODEL_KEYS)) {
    const row = PROPERTY.get(property);
    if (row.kind === "enum") choices[property] = valueText(key, get(key)) ?? row.initial(choices);
  }
  for (const [key, property] of Object.entries(MODEL_KEYS)) {
    const text = valueText(key, get(key));
    if (PROPERTY.get(property).only && !applies(property, choices)) continue;
    if (text !== null) parts.push(`${property}=${encodeURIComponent(text)}`);
  }
  return parseHash(parts.join("&"));
}
