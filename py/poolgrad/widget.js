// poolgrad's notebook widget: web/notebook.js and the modules it imports,
// bundled by `python build.py widget-bundle` (sitebuild/widget_bundle.py). Do not edit.

// web/widget/format.js
const $widget_format = (() => {
// Number display shared by every grid and sentence; then XML escaping (the picture, the
// embed code) and the page's storage (the learner's code and progress).
// trace() sends non-finite floats as the strings "NaN", "Infinity", "-Infinity"
// (strict JSON has no literal for them); decodeNumber turns them back into numbers.

// The one JavaScript home of the non-finite spellings: the hash, the worker's requests,
// trace()'s answers and the checker's all use these words (py/poolgrad/wire.py is Python's).
const NON_FINITE = new Map([
  ["NaN", NaN],
  ["Infinity", Infinity],
  ["-Infinity", -Infinity],
]);

// A number as trace() and the checker send it: a finite number or one of those words.
const isSentNumber = (value) => (typeof value === "number" && Number.isFinite(value)) || NON_FINITE.has(value);

function decodeNumber(value) {
  if (typeof value === "number") return value;
  if (NON_FINITE.has(value)) return NON_FINITE.get(value);
  throw new TypeError(`not a number from trace(): ${String(value).slice(0, 40)}`);
}

// Up to 4 decimals, trailing zeros dropped, integers exact; a value that is -0 shows as
// "-0" (the input may hold it, and max pooling passes it on), one that merely rounds to
// zero (-0.00004) as "0".
function formatNumber(value) {
  const number = decodeNumber(value);
  if (Number.isNaN(number)) return "NaN";
  if (number === Infinity) return "∞";
  if (number === -Infinity) return "-∞";
  if (Number.isInteger(number)) return Object.is(number, -0) ? "-0" : String(number);
  const rounded = number.toFixed(4).replace(/\.?0+$/, "");
  return rounded === "-0" ? "0" : rounded;
}

// "(1,2)": how every sentence and label names a cell.
const cellName = ([row, col]) => `(${row},${col})`;

// A parameter pair as the hash and the fields spell it: "3" when square, else "3,2".
const pairText = ([first, second]) => (first === second ? String(first) : `${first},${second}`);

// A shape as sentences say it: "4 × 3".
const sizeText = ([height, width]) => `${height} × ${width}`;

// "(0,0), (0,1) and (1,1)": how every sentence and label lists cells.
function listCells(cells) {
  const names = cells.map(cellName);
  return names.length <= 2 ? names.join(" and ") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

// "1 + 2 = 3": the terms trace() lists for a cell and the total they add up to.
function formatSum(terms, total) {
  return `${terms.map(formatNumber).join(" + ")} = ${formatNumber(total)}`;
}

// The hash and the worker request need a lossless spelling (shortest round trip; String()
// would write -0 as "0").
function encodeNumber(number) {
  for (const [word, value] of NON_FINITE) if (Object.is(number, value)) return word;
  if (Object.is(number, -0)) return "-0";
  return String(number);
}

// A number as a JSON request carries it: itself where JSON keeps it, else encodeNumber's
// word (JSON writes -0 as 0 and has no NaN or infinities).
const wireNumber = (number) => (Number.isFinite(number) && !Object.is(number, -0) ? number : encodeNumber(number));

// "rows 0–2" for a contiguous run, "rows 0, 2, 4" for a dilated one.
function describeSpan(noun, indices) {
  if (indices.length === 1) return `${noun} ${indices[0]}`;
  const contiguous = indices.every((value, i) => i === 0 || value === indices[i - 1] + 1);
  const plural = `${noun}s`;
  const [first, last] = [indices[0], indices[indices.length - 1]];
  // An en dash after a minus sign ("-1–1") reads badly, so padded ranges say "to".
  if (contiguous) return `${plural} ${first}${first < 0 ? " to " : "–"}${last}`;
  return `${plural} ${indices.join(", ")}`;
}

// Text as an XML attribute value or element content (the SVG picture, the embed code).
const escapeXml = (text) => String(text)
  .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

// ---- the page's localStorage, where the browser allows it ----
// Sandboxed frames and private modes may refuse it, on any call: a refused read finds
// nothing and a refused write is dropped, so what the learner did lasts for this page.

function readStored(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

// Stores `text` under `key`; null removes the key.
function writeStored(key, text) {
  try {
    if (text === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, text);
  } catch {
    // Refused: see above.
  }
}
return Object.freeze({ NON_FINITE, isSentNumber, decodeNumber, formatNumber, cellName, pairText, sizeText, listCells, formatSum, encodeNumber, wireNumber, describeSpan, escapeXml, readStored, writeStored });
})();

// web/widget/presets.js
const $widget_presets = (() => {
// Presets offered by #preset. Their keys are the option values of the DOM contract. Most
// load an input; a preset with `settings` also sets the view's other properties (state.js
// names: a mode and its output size), so loading it shows one idea of the lesson.

// The lesson's 4 x 4 fixture (docs/design.md, "Reference facts"): the default input.
const FIXTURE = [
  [1, 2, 5, 6],
  [3, 4, 8, 7],
  [0, -1, -3, -2],
  [-4, 9, -6, -5],
];

const PRESETS = {
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
return Object.freeze({ FIXTURE, PRESETS });
})();

// web/widget/trace-view.js
const $widget_trace_view = (() => {
const { describeSpan } = $widget_format;
// Facts read off a trace, in one place: which output is selected, which input cells a
// window covers, who receives an output's gradient, which cells tie for a maximum, what
// one output sends to one cell. render.js, lesson.js, player.js and guide.js all ask here
// instead of re-deriving them. Pure functions of (trace, ...): no DOM, no state changes.


// The selected output, or null when there is none or it lies outside this trace's output
// (a selection survives a parameter change that shrinks the output).
function selectedOutput(state, trace) {
  if (!trace || !state.sel) return null;
  return outputInRange(trace, state.sel) ? state.sel : null;
}

function outputInRange(trace, [i, j]) {
  return i >= 0 && j >= 0 && i < trace.output_shape[0] && j < trace.output_shape[1];
}

// Every cell output (i, j)'s window samples, padding included (rows/cols < 0 or >= H/W),
// as [r, c] in row-major order.
function windowSamples(trace, [i, j]) {
  return trace.window_rows[i].flatMap((r) => trace.window_cols[j].map((c) => [r, c]));
}

// "rows 0–2, cols 1–3": where output (i, j)'s window lies, as every sentence says it.
function windowText(trace, [i, j]) {
  return `${describeSpan("row", trace.window_rows[i])}, ${describeSpan("col", trace.window_cols[j])}`;
}

// The input cells (inside the unpadded input) that output (i, j)'s window samples.
function windowCells(trace, [i, j]) {
  const [height, width] = trace.input_shape;
  const rows = trace.window_rows[i].filter((r) => r >= 0 && r < height);
  const cols = trace.window_cols[j].filter((c) => c >= 0 && c < width);
  return rows.flatMap((r) => cols.map((c) => [r, c]));
}

// The input cells output (i, j)'s upstream gradient reaches: its argmax in the modes that
// keep one cell (max, adaptive max, LP with p = ±∞), every cell of its window otherwise.
function gradientReceivers(trace, [i, j]) {
  return trace.argmax ? [trace.argmax[i][j]] : windowCells(trace, [i, j]);
}

// The adaptive modes: [rows, cols] of output (i, j)'s window (trace.window_size holds
// their product); the windows of the other modes are all the kernel's size.
function windowSize(trace, [i, j]) {
  return [trace.window_rows[i].length, trace.window_cols[j].length];
}

// The adaptive modes' count of windows holding each input cell (H x W), or null for the
// other modes, whose windows all have the kernel's size.
function windowShared(trace) {
  return trace.shared ?? null;
}

// Max mode: the window cells holding the output's value (trace() lists them), in
// row-major order: the first is the one that wins; a NaN maximum ties with nothing.
function tiedCells(trace, [i, j]) {
  return trace.tied[i][j];
}

// The share output (i, j) sends to input cell (r, c) in the backward pass, or null.
function termFrom(trace, [r, c], [i, j]) {
  const index = trace.sources[r][c].findIndex(([a, b]) => a === i && b === j);
  return index < 0 ? null : trace.grad_terms[r][c][index];
}

// Input cells that collect gradient from more than one output, row-major.
function sharedCells(trace) {
  const shared = [];
  trace.sources.forEach((row, r) => row.forEach((sources, c) => {
    if (sources.length > 1) shared.push([r, c]);
  }));
  return shared;
}
return Object.freeze({ selectedOutput, outputInRange, windowSamples, windowText, windowCells, gradientReceivers, windowSize, windowShared, tiedCells, termFrom, sharedCells });
})();

// web/widget/state.js
const $widget_state = (() => {
const { NON_FINITE, encodeNumber, pairText, wireNumber } = $widget_format;
const { FIXTURE, PRESETS } = $widget_presets;
const { outputInRange } = $widget_trace_view;
// The widget's whole state, its one serialisation (the URL hash), and every parse of the
// learner's text into it. One table, HASH_PROPERTIES, drives both directions: parseHash
// reads each property by its kind, serialiseState writes them in table order, leaving out
// the ones whose rule says so (docs/design.md, "The URL hash"). The views that load when
// first opened (web/chain/, web/picture/) add their own rows when their module loads
// (registerView); widget/views.js loads the ones a link or a model needs before it is
// read. Errors are InputError,
// carrying where the text came from (the hash, the paste box, a cell edit, a field) and a
// message that says what to fix.



const MAX_SIDE = 16;
const MAX_HASH_LENGTH = 20000;
const MAX_MAGNITUDE = 1e15;
const NUMBER_PATTERN = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const MAX_NORM = 1000;

// The pooling modes (poolgrad.trace()'s `mode`), as sentences name them.
const MODE_NAMES = {
  max: "max pooling",
  avg: "average pooling",
  adaptive_max: "adaptive max pooling",
  adaptive_avg: "adaptive average pooling",
  lp: "LP pooling",
};
// The modes whose windows follow the output size, and those that keep one cell per
// window (its argmax: where unpooling applies).
const ADAPTIVE_MODES = ["adaptive_max", "adaptive_avg"];
const MAX_MODES = ["max", "adaptive_max"];

// A refusal of the learner's text. `source` says where the text came from: "hash",
// "paste", "cell" or "field"; status lines word the error after it.
class InputError extends Error {
  constructor(message, source) {
    super(message);
    this.name = "InputError";
    this.source = source;
  }
}

// Quote user text in a message without letting a huge or odd token swamp it.
function quote(text) {
  const clipped = text.length > 24 ? `${text.slice(0, 24)}…` : text;
  return `"${clipped}"`;
}

// The one number rule, for every matrix value and every cell edit: a decimal or
// exponent spelling, or one of the words NaN / Infinity / -Infinity, within ±1e15. A
// spelling of a non-zero number too small for a double (1e-400) is refused, not read as 0.
function parseNumberToken(token, where, source) {
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
const MATRIX_SPELLINGS = {
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
function parseMatrix(text, spelling) {
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
function parseCellValue(text, where) {
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
function matrixHashText(matrix) {
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
const HASH_PROPERTIES = [
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
function registerView(view, { properties, modelKeys, modelValues: values, kinds = {} }) {
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
function knowsKey(key) {
  return PROPERTY.has(key);
}

// Whether the view's own rows are in the table (the pool view's always are).
function knowsView(view) {
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

function defaultState() {
  return fillInitial({});
}

// A pair parameter (k, s, p, d) as the hash and the parameter fields spell it.
function parsePair(text, key, source = "hash") {
  const property = PROPERTY.get(key);
  return KINDS[property.kind].parse(text, property, source);
}

function parseHash(hash) {
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

function serialiseState(state) {
  const parts = HASH_PROPERTIES
    .filter((property) => !leftOut(property, state[property.key], state))
    .map((property) => `${property.key}=${KINDS[property.kind].write(state[property.key], property)}`);
  return `#${parts.join("&")}`;
}

// The state's link less its selection: two states with the same one draw the same grids
// but for the selection marks (render.js redrawPlan), and keep the exercise panel's marks.
function gridsKey(state) {
  return serialiseState({ ...state, sel: null });
}

// The hash the page writes for `state`, given `trace`, the answer for this very state
// (null while there is none): the canonical form, less a selection the output does not
// have, whether it arrived in a link or the output shrank under it. This is the one place
// the trace bears on the link: the state itself keeps the selection as it was made (every
// view of it asks trace-view's selectedOutput, which ignores it), so nothing the worker
// answers is written back into the state.
function hashFor(state, trace) {
  const unshown = trace !== null && trace.kind !== "chain" && state.sel !== null && !outputInRange(trace, state.sel);
  return serialiseState(unshown ? { ...state, sel: null } : state);
}

// What the worker needs: everything but the view-only parts (selection, grad toggle), and
// of the parameters only those the mode takes (trace() refuses a kernel in the adaptive
// modes). The max and average modes' requests are what they were before the other modes
// came: the build's shipped traces are filed under these keys.
function traceRequest(state) {
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

function requestKey(state) {
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
function applies(key, state) {
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
function changedState(state, changes) {
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
function switchView(view) {
  return (state) => fillInitial(Object.assign(state, { view }));
}

// The state change of picking a pooling mode, from #mode or the Max / Average buttons, as a
// mutator: the selection is kept (the next trace decides whether the output still has it).
function switchMode(mode) {
  return (state) => Object.assign(state, changedState(state, { mode }), { g: null });
}

// The state change of loading the preset `name` (a PRESETS key) at the input's size, with
// the settings it comes with (a mode and its output size), as their controls set them.
function presetChange(name) {
  const { make, settings = {} } = PRESETS[name];
  return (state) => Object.assign(state, changedState(state, { x: make([state.x.length, state.x[0].length]), ...structuredClone(settings) }), { g: null });
}

// Whether `state` shows preset `name`'s input and settings.
function showsPreset(name, state) {
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
const MODEL_KEYS = {
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
function modelValues(state) {
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
function matrixText(key, rows) {
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
function stateFromModel(get) {
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
return Object.freeze({ MAX_SIDE, NUMBER_PATTERN, MODE_NAMES, ADAPTIVE_MODES, MAX_MODES, InputError, quote, parseNumberToken, MATRIX_SPELLINGS, parseMatrix, parseCellValue, matrixHashText, HASH_PROPERTIES, registerView, knowsKey, knowsView, defaultState, parsePair, parseHash, serialiseState, gridsKey, hashFor, traceRequest, requestKey, applies, changedState, switchView, switchMode, presetChange, showsPreset, MODEL_KEYS, modelValues, matrixText, stateFromModel, FIXTURE });
})();

// web/chain/keys.js
const $chain_keys = (() => {
const { encodeNumber, sizeText, wireNumber } = $widget_format;
const { InputError, MATRIX_SPELLINGS, MAX_SIDE, NUMBER_PATTERN, matrixHashText, matrixText, parseMatrix, parseNumberToken, quote, registerView } = $widget_state;
// The chain view's own keys (view=chain): its rows of state.js's one table (the hash), its
// model keys and model values, and the kinds of value only the chain has. This module
// adds them to the table when it loads (registerView), which the chain view's module
// (chain-view.js) makes happen; widget/views.js loads it before a link or a model that
// opens the chain is read. Left out of a link, the keys are the capstone's.


// The chain view's limits (poolgrad.chain_trace's): input channels, filters, steps.
const CHAIN_LIMITS = { channels: 3, filters: 4, steps: 500 };
const MAX_LEARNING_RATE = 100;

// The chain view's default (the capstone: a 6 × 6 input, a 3 × 3 filter, a 2 × 2 max
// pool and a 2 × 2 target under MSE), as the hash's chain keys start. Its other presets
// are presets.js's.
const CHAIN_CAPSTONE = {
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
return Object.freeze({ CHAIN_LIMITS, CHAIN_CAPSTONE });
})();

// web/picture/keys.js
const $picture_keys = (() => {
const { registerView } = $widget_state;
// The picture view's own keys (view=picture): its rows of state.js's one table (the hash),
// its model keys and model values. This module adds them to the table when it loads
// (registerView), which the picture view's module (picture-view.js) makes happen;
// widget/views.js loads it before a link or a model that opens the picture is read. The
// pooling settings (k, s, p, d, ceil, mode, grad, ...) are the pool view's keys, which apply
// to the picture too.


// The shipped samples (samples/NAME.png, pinned in sitebuild/pins.py, their sources in
// SOURCES.md beside them), the first one the view's start.
const PICTURE_SAMPLES = ["camera", "text", "chelsea", "coffee"];

const PROPERTIES = [
  // A shipped sample; a learner's own picture stays in the browser and out of the link,
  // which names the sample shown before it.
  { key: "pic", kind: "enum", values: PICTURE_SAMPLES, initial: () => PICTURE_SAMPLES[0], written: "always", only: true },
  { key: "psize", kind: "enum", values: ["32", "64", "128", "256"], initial: () => "128", written: "unless-initial", only: true },
  { key: "pch", kind: "enum", values: ["rgb", "grey", "r", "g", "b"], initial: () => "rgb", written: "unless-initial", only: true },
  { key: "prep", kind: "enum", values: ["1", "2", "3", "4"], initial: () => "1", written: "unless-initial", only: true },
  // The selected pixel of the picture's (last) output: row,col.
  { key: "psel", kind: "selection", digits: 3, initial: () => null, written: "unless-initial", only: true },
];

// Model key -> hash key (the element's attributes name these).
const MODEL_KEYS = {
  picture: "pic",
  picture_size: "psize",
  picture_channel: "pch",
  picture_repeat: "prep",
  picture_selection: "psel",
};

// The picture view's model values: null outside it (the keys are then left out).
function modelValues(state) {
  const picture = state.view === "picture";
  return {
    picture: picture ? state.pic : null,
    picture_size: picture ? Number(state.psize) : null,
    picture_channel: picture ? state.pch : null,
    picture_repeat: picture ? Number(state.prep) : null,
    picture_selection: picture && state.psel ? state.psel.slice() : null,
  };
}

registerView("picture", { properties: PROPERTIES, modelKeys: MODEL_KEYS, modelValues });
return Object.freeze({ PICTURE_SAMPLES });
})();

// web/chain/request.js
const $chain_request = (() => {
const { wireNumber } = $widget_format;
// The chain view's request to Python: the state's chain keys as poolgrad.chain_trace's
// keyword arguments ({"kind": "chain", ...}, docs/trace-contract.md). Pure; no DOM.


const planes = (value) => (Array.isArray(value[0]) ? value.map(planes) : value.map(wireNumber));

// The last output's shape, (filters, rows, cols), read off the state's shapes alone: the
// view offers a convolution of stride 1 without padding, and a pooling whose stride is its
// window. It only sizes the made-up upstream gradients (a ramp, a hot cell) and the target;
// every value is Python's. Sides below 1 come back as 0 (Python names the problem).
function lastOutputShape(state) {
  const [height, width] = [state.cx[0].length, state.cx[0][0].length];
  const [kh, kw] = [state.cw[0][0].length, state.cw[0][0][0].length];
  const conv = [Math.max(0, height - kh + 1), Math.max(0, width - kw + 1)];
  const pooled = state.cpool === "none" ? conv : conv.map((side, i) => Math.max(0, Math.floor((side - state.cpk[i]) / state.cpk[i]) + 1));
  return [state.cw.length, ...pooled];
}

// The made-up dL/d(last output) of the upstream choices that are not a loss: all ones, the
// ramp 1..n over each filter's plane, or 1 on the hot cell of the first filter.
function madeUpGradient(state) {
  if (state.cup === "ones") return 1;
  const [filters, rows, cols] = lastOutputShape(state);
  if (rows === 0 || cols === 0) return 1;
  return Array.from({ length: filters }, (_, f) => Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => {
    if (state.cup === "ramp") return r * cols + c + 1;
    return f === 0 && r === state.hot[0] && c === state.hot[1] ? 1 : 0;
  })));
}

// The loss an upstream choice names, or null for a made-up gradient.
const LOSSES = { "loss-mse": "mse", "loss-l1": "l1" };

function chainRequest(state) {
  const loss = LOSSES[state.cup] ?? null;
  return {
    kind: "chain",
    x: planes(state.cx),
    weight: planes(state.cw),
    target: loss ? planes(state.ct) : null,
    bias: state.cb ? state.cb.map(wireNumber) : null,
    activation: state.relu ? "relu" : null,
    pool: state.cpool === "none" ? null : state.cpool,
    pool_kernel_size: state.cpk,
    loss,
    grad_output: loss ? null : madeUpGradient(state),
    learning_rate: state.lr,
    steps: state.steps,
  };
}

function chainRequestKey(state) {
  return JSON.stringify(chainRequest(state));
}
return Object.freeze({ lastOutputShape, madeUpGradient, LOSSES, chainRequest, chainRequestKey });
})();

// web/lesson/sentences.js
const $lesson_sentences = (() => {
const { cellName, decodeNumber, formatNumber, formatSum, listCells, pairText, sizeText } = $widget_format;
const { MODE_NAMES } = $widget_state;
const { selectedOutput, sharedCells, termFrom, windowCells, windowSize, windowText } = $widget_trace_view;
// The teaching sentences about a view, each in one place: the title of the view (the
// status line, the Code panel, the picture and the embed code all name a view with it)
// and the sentence about the selected output (#explanation, the announcer, the picture).


// p as sentences write it: 2, 0.5, ∞.
const normText = (p) => (Number.isFinite(p) ? String(p) : p > 0 ? "∞" : "−∞");

// "max pooling, 3 × 3 window, stride 1, padding 1": what the code (and the picture) shows.
// The adaptive modes name their output size instead of a window ("adaptive average
// pooling to 1 × 1"), LP pooling its p.
function viewTitle(state) {
  if (state.mode === "adaptive_max" || state.mode === "adaptive_avg") {
    const parts = [`${MODE_NAMES[state.mode]} to ${sizeText(state.o)}`];
    if (state.unpool && state.mode === "adaptive_max") parts.push("unpooling");
    if (state.grad) parts.push("gradient routing");
    return parts.join(", ");
  }
  const name = state.mode === "lp" ? `LP pooling with p = ${normText(state.n)}` : `${state.mode === "max" ? "max" : "average"} pooling`;
  const parts = [name, `${sizeText(state.k)} window`, `stride ${pairText(state.s)}`];
  if (state.p.some((p) => p > 0)) parts.push(`padding ${pairText(state.p)}`);
  if (state.mode === "max" && state.d.some((d) => d > 1)) parts.push(`dilation ${pairText(state.d)}`);
  if (state.ceil) parts.push("ceil_mode");
  if (state.mode === "avg" && !state.cip) parts.push("count_include_pad=False");
  if (state.unpool && state.mode === "max") parts.push("unpooling");
  if (state.grad) parts.push("gradient routing");
  return parts.join(", ");
}

// The parameters a trace was computed with, as a state (viewTitle's argument), gradient off:
// the status line names what Python computed, not what is being asked.
function traceParameters(trace) {
  return { mode: trace.mode, k: trace.kernel_size, s: trace.stride, p: trace.padding, d: trace.dilation,
    ceil: trace.ceil_mode, cip: trace.count_include_pad, o: trace.output_size, n: decodeNumber(trace.norm_type ?? 2),
    unpool: false, grad: false };
}

const MAX_LISTED_TERMS = 12;

function averageSentence(trace, [i, j]) {
  const cells = windowCells(trace, [i, j]);
  const kernelCells = trace.window_rows[i].length * trace.window_cols[j].length;
  const divisor = trace.divisor[i][j];
  const value = formatNumber(trace.output[i][j]);
  const terms = cells.map(([r, c]) => formatNumber(trace.input[r][c]));
  const sum = terms.length <= MAX_LISTED_TERMS ? `(${terms.join(" + ")})` : `(the sum of its ${terms.length} cells)`;
  const size = trace.window_size ? ` (${sizeText(windowSize(trace, [i, j]))}, placed by the output size)` : "";
  let sentence = `Output ${cellName([i, j])} = ${value} is the mean of the window ${windowText(trace, [i, j])}${size}: ${sum} / ${divisor} = ${value}.`;
  if (cells.length < kernelCells) {
    sentence += trace.count_include_pad
      ? ` Padded cells add 0 but count in the divisor ${divisor}.`
      : ` Padded cells are left out, so the divisor is the ${divisor} cells inside the input.`;
  }
  return sentence;
}

// The sentence about the selected output (or how to select one), as #explanation shows it.
function explanationText(state, trace) {
  const output = trace && state.sel ? selectedOutput(state, trace) : null;
  if (!output) {
    return trace
      ? "Tap an output cell (or reach it with Tab and the arrow keys, then press Enter) to see its window."
      : "";
  }
  const [i, j] = output;
  const showGradient = state.grad && trace.grad_input !== undefined;
  const gradient = showGradient ? trace.grad_output[i][j] : null;
  if (trace.mode === "lp" && !trace.argmax) {
    let sentence = lpSentence(trace, output);
    if (showGradient) sentence += ` Backward, its upstream gradient ${formatNumber(gradient)} reaches every cell of the window, each in proportion to |x|^(p−1) there.`;
    return sentence;
  }
  if (trace.divisor) {
    let sentence = averageSentence(trace, output);
    if (showGradient) {
      const cells = windowCells(trace, output);
      sentence += ` Backward, its upstream gradient ${formatNumber(gradient)} is spread as ${formatNumber(gradient)} / ${trace.divisor[i][j]} = ${formatNumber(termFrom(trace, cells[0], output))} to each of those ${cells.length} input cells.`;
    }
    return sentence;
  }
  const [r, c] = trace.argmax[i][j];
  const size = trace.window_size ? ` (${sizeText(windowSize(trace, output))}, placed by the output size)` : "";
  const largest = trace.mode === "lp" ? `largest |x| (p = ${normText(decodeNumber(trace.norm_type))})` : "maximum";
  let sentence = `Output ${cellName([i, j])} = ${formatNumber(trace.output[i][j])} is the ${largest} of the window ${windowText(trace, output)}${size}, taken from input cell ${cellName([r, c])}.`;
  if (showGradient) {
    const sources = trace.sources[r][c];
    sentence += ` Backward, its upstream gradient ${formatNumber(gradient)} goes to input cell ${cellName([r, c])} alone`;
    sentence += sources.length > 1
      ? `, which is also the maximum of ${listCells(sources.filter(([a, b]) => a !== i || b !== j))}: ${formatSum(trace.grad_terms[r][c], trace.grad_input[r][c])}.`
      : ".";
  }
  return sentence;
}

// LP pooling's output: (sum of x^p over the window)^(1/p), the sum as trace() gives it
// (lp_sums: torch's average of x^p times the kernel's cell count).
function lpSentence(trace, [i, j]) {
  const p = normText(decodeNumber(trace.norm_type));
  const value = formatNumber(trace.output[i][j]);
  return `Output ${cellName([i, j])} = ${value} is the LP norm of the window ${windowText(trace, [i, j])} with p = ${p}: (the sum of x^${p} over it, ${formatNumber(trace.lp_sums[i][j])})^(1/${p}) = ${value}.`;
}

// The verdict under the two gradient totals (#totals), `equal` when they agree.
function totalsVerdict(trace, equal) {
  if (!equal) {
    return trace.mode === "lp"
      ? "Not equal: LP pooling's backward scales each share by |x|^(p−1) / out^(p−1), so the shares need not add back up to the gradient."
      : "Not equal: the shares that fall on padded cells have no input cell to land on.";
  }
  return trace.argmax
    ? "Equal: max pooling hands each gradient to exactly one input cell, so nothing is lost."
    : "Equal: each gradient is split into shares that add back up to it.";
}

// Where max_unpool2d(out, indices) and the gradient differ (#unpool-note, the lesson): on a
// cell several outputs chose, unpooling writes one value, the gradient adds theirs.
function unpoolText(trace) {
  const shared = sharedCells(trace);
  const lead = "Unpooling puts each output back on the cell its index names and 0 everywhere else: the gradient's routes, carrying the output's value instead of its gradient.";
  if (shared.length === 0) return `${lead} No two outputs chose the same cell here, so it matches the gradient's pattern cell for cell.`;
  const [r, c] = shared[0];
  const sources = trace.sources[r][c];
  let sentence = `${lead} They differ on a cell several outputs chose: cell ${cellName([r, c])}, chosen by outputs ${listCells(sources)}, holds one value, ${formatNumber(trace.unpooled[r][c])} (they all chose that very value; the last write wins), while the gradient adds their ${sources.length}`;
  sentence += trace.grad_terms ? `: ${formatSum(trace.grad_terms[r][c], trace.grad_input[r][c])}.` : ".";
  return sentence;
}
return Object.freeze({ normText, viewTitle, traceParameters, explanationText, totalsVerdict, unpoolText });
})();

// web/embed-sizing.js
const $embed_sizing = (() => {
// The host page's side of embedding: the one script that sizes every poolgrad frame on a
// page to its content. embed-demo.js runs it; the Code panel's "Copy embed code" writes its
// source (snippets.js takes it with Function.prototype.toString), so the script a host
// pastes is this very function. It must therefore stand alone: no imports, no names from
// outside it.
//
// A widget in an iframe posts {type: "poolgrad:size", height} to its parent, to any
// origin: the message carries only a height, nothing about the learner. The host accepts a
// message only from a frame it sizes (an iframe marked data-poolgrad, matched by
// event.source), never by origin, so a course site on one origin can frame widgets
// published on another. Run twice (pasted with every widget), it listens once.
function sizePoolgradFrames() {
  if (window.poolgradFramesSized) return;
  window.poolgradFramesSized = true;
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (!data || data.type !== "poolgrad:size") return;
    const height = Number(data.height);
    if (!(height > 0 && height < 100000)) return;
    for (const frame of document.querySelectorAll("iframe[data-poolgrad]")) {
      if (frame.contentWindow === event.source) {
        frame.style.height = Math.ceil(height) + "px";
        return;
      }
    }
  });
}
return Object.freeze({ sizePoolgradFrames });
})();

// web/takeaway/snippets.js
const $takeaway_snippets = (() => {
const { escapeXml, pairText, sizeText } = $widget_format;
const { viewTitle } = $lesson_sentences;
const { sizePoolgradFrames } = $embed_sizing;
// The code a learner takes away: Python that rebuilds the current view in PyTorch or in
// poolgrad, the link, and the iframe that embeds the view. Pure functions of the state:
// they write code text, they compute no pooling (Python does, when the code runs).
//
// Every number is written so that Python reads back the very float64 the widget holds:
// the shortest round-trip spelling (String()), with -0.0, float('nan'), float('inf')
// where JavaScript's spelling is not Python's. Both snippets build float64 arrays, the
// dtype the widget's gradients are computed in; an integer input pools to the same values.


// One float64 as a Python literal that evaluates to exactly that float.
function pythonNumber(value) {
  if (Number.isNaN(value)) return "float('nan')";
  if (value === Infinity) return "float('inf')";
  if (value === -Infinity) return "-float('inf')";
  if (Object.is(value, -0)) return "-0.0";
  return String(value);
}

// A matrix as a Python list of rows, one row a line, indented under the call that holds it.
function pythonMatrix(rows, indent = "    ") {
  const lines = rows.map((row) => `${indent}[${row.map(pythonNumber).join(", ")}],`);
  return `[\n${lines.join("\n")}\n]`;
}

// A kernel/stride/padding/dilation pair as both APIs take it: 3 when square, (3, 2) if not.
function pythonPair([first, second]) {
  return first === second ? String(first) : `(${first}, ${second})`;
}

const pythonFlag = (flag) => (flag ? "True" : "False");

// The keyword arguments of the pooling call, in the order of the APIs' signatures: each
// API takes dilation in max mode only, count_include_pad in average mode only; the
// adaptive ones take the output size alone, LP pooling p first and no padding.
function poolingArguments(state) {
  if (state.mode === "adaptive_max" || state.mode === "adaptive_avg") return [`output_size=${pythonPair(state.o)}`];
  if (state.mode === "lp") {
    return [`norm_type=${pythonNumber(state.n)}`, `kernel_size=${pythonPair(state.k)}`, `stride=${pythonPair(state.s)}`,
      `ceil_mode=${pythonFlag(state.ceil)}`];
  }
  const named = [`kernel_size=${pythonPair(state.k)}`, `stride=${pythonPair(state.s)}`, `padding=${pythonPair(state.p)}`];
  if (state.mode === "max") named.push(`dilation=${pythonPair(state.d)}`);
  named.push(`ceil_mode=${pythonFlag(state.ceil)}`);
  if (state.mode === "avg") named.push(`count_include_pad=${pythonFlag(state.cip)}`);
  return named;
}

// The function each mode calls, by API, and whether it returns indices.
const FUNCTIONS = {
  max: { name: "max_pool2d", indices: true },
  avg: { name: "avg_pool2d", indices: false },
  adaptive_max: { name: "adaptive_max_pool2d", indices: true },
  adaptive_avg: { name: "adaptive_avg_pool2d", indices: false },
  lp: { name: "lp_pool2d", indices: false },
};

// Unpooling as max_unpool2d computes it (each output written at its index into zeros),
// spelled as the scatter it is: max_unpool2d also asks for the pooling's kernel, which
// the adaptive modes do not have, and refuses output sizes dilation and ceil_mode give.
// Where several outputs chose one cell they all write its own value, so it is written once.
const UNPOOL_COMMENT = "# Unpooling: what max_unpool2d does, each output written at its index into zeros.";

// A call's arguments, wrapped after `width` characters so the snippet reads on a phone.
function wrapArguments(head, args, width = 72) {
  const lines = [];
  let line = `${head}(`;
  args.forEach((arg, index) => {
    const piece = `${arg}${index < args.length - 1 ? "," : ")"}`;
    if (line.length + piece.length + 1 > width && !line.endsWith("(")) {
      lines.push(line);
      line = `    ${piece}`;
    } else {
      line += line.endsWith("(") ? piece : ` ${piece}`;
    }
  });
  lines.push(line);
  return lines.join("\n");
}

function inputComment(state) {
  return `# The input: ${sizeText([state.x.length, state.x[0].length])}, float64 (exactly the widget's numbers).`;
}

function gradientComment(state) {
  return state.g ? "# The upstream gradient (the widget's, exactly)." : "# The upstream gradient: all ones, the widget's default.";
}

// Python that rebuilds the current view with torch.nn.functional and defines `out`,
// `indices` (max mode) and `grad_input` (gradient on), each of the widget's 2-D shape.
function torchSnippet(state) {
  const { name, indices: max } = FUNCTIONS[state.mode];
  const unpool = max && state.unpool;
  const lines = [
    `# poolgrad widget, in PyTorch: ${viewTitle(state)}.`,
    "import torch",
    "import torch.nn.functional as F",
    "",
    inputComment(state),
    `x = torch.tensor(${pythonMatrix(state.x)}, dtype=torch.float64${state.grad ? ", requires_grad=True" : ""})`,
    "",
    "# PyTorch pools (C, H, W) planes: x[None] is one channel, [0] takes it back.",
  ];
  const args = ["x[None]", ...poolingArguments(state)];
  if (max) {
    lines.push(`${wrapArguments(`out, indices = F.${name}`, [...args, "return_indices=True"])}`);
    lines.push("out, indices = out[0], indices[0]");
  } else {
    lines.push(`${wrapArguments(`out = F.${name}`, args)}`);
    lines.push("out = out[0]");
  }
  if (unpool) {
    lines.push("", UNPOOL_COMMENT);
    lines.push("unpooled = torch.zeros(x.shape, dtype=torch.float64)", "unpooled.view(-1)[indices.view(-1)] = out.detach().view(-1)");
  }
  if (state.grad) {
    lines.push("", gradientComment(state));
    lines.push(state.g ? `g = torch.tensor(${pythonMatrix(state.g)}, dtype=torch.float64)` : "g = torch.ones_like(out)");
    lines.push("out.backward(g)", "grad_input = x.grad");
  }
  lines.push("", "print(out)");
  if (max) lines.push("print(indices)");
  if (unpool) lines.push("print(unpooled)");
  if (state.grad) lines.push("print(grad_input)");
  return `${lines.join("\n")}\n`;
}

// The backward call of each mode in poolgrad: the gradient, then what it needs of the forward.
function poolgradBackward(state) {
  switch (state.mode) {
    case "max": return "grad_input = poolgrad.max_pool2d_backward(g, indices, x.shape)";
    case "adaptive_max": return "grad_input = poolgrad.adaptive_max_pool2d_backward(g, indices, x.shape)";
    case "adaptive_avg": return "grad_input = poolgrad.adaptive_avg_pool2d_backward(g, x.shape)";
    case "lp": return wrapArguments("grad_input = poolgrad.lp_pool2d_backward", ["g", "x", ...poolingArguments(state)]);
    default: return wrapArguments("grad_input = poolgrad.avg_pool2d_backward", ["g", "x.shape", ...poolingArguments(state)]);
  }
}

// The same view with poolgrad's own functions (NumPy in, NumPy out).
function poolgradSnippet(state) {
  const { name, indices: max } = FUNCTIONS[state.mode];
  const unpool = max && state.unpool;
  const lines = [
    `# poolgrad widget, in poolgrad: ${viewTitle(state)}.`,
    "import numpy as np",
    "import poolgrad",
    "",
    inputComment(state),
    `x = np.array(${pythonMatrix(state.x)}, dtype=np.float64)`,
    "",
  ];
  const args = ["x", ...poolingArguments(state)];
  if (max) lines.push(wrapArguments(`out, indices = poolgrad.${name}`, [...args, "return_indices=True"]));
  else lines.push(wrapArguments(`out = poolgrad.${name}`, args));
  if (unpool) {
    lines.push("", UNPOOL_COMMENT);
    lines.push("unpooled = np.zeros(x.shape)", "unpooled.flat[indices.ravel()] = out.ravel()");
  }
  if (state.grad) {
    lines.push("", gradientComment(state));
    lines.push(state.g ? `g = np.array(${pythonMatrix(state.g)}, dtype=np.float64)` : "g = np.ones_like(out)");
    lines.push(poolgradBackward(state));
  }
  lines.push("", "print(out)");
  if (max) lines.push("print(indices)");
  if (unpool) lines.push("print(unpooled)");
  if (state.grad) lines.push("print(grad_input)");
  return `${lines.join("\n")}\n`;
}

// What a host page needs to show this view (docs/embedding.md): the iframe and the sizing
// script. `pageUrl` is the page's address without query or hash, `hash` the view's (the
// page writes it), `lesson` / `code` false for a widget without the lesson panels
// (lesson=0) or the Code panel (code=0), `id` names this widget: the iframe's id and the
// query's id=, which keeps its "Try it" progress apart from the page's other widgets. The
// script is embed-sizing.js's function, its own source, marked as needed once per page.
function embedCode({ pageUrl, hash, lesson = true, code = true, id, state }) {
  const query = ["embed=1", ...(lesson ? [] : ["lesson=0"]), ...(code ? [] : ["code=0"]), `id=${encodeURIComponent(id)}`];
  const src = `${pageUrl}?${query.join("&")}${hash}`;
  const title = `poolgrad: ${viewTitle(state)}`;
  return [
    `<iframe id="poolgrad-${escapeXml(id)}" data-poolgrad src="${escapeXml(src)}"`,
    `        title="${escapeXml(title)}"`,
    '        style="width: 100%; height: 900px; border: 0" loading="lazy"',
    '        allow="clipboard-write"></iframe>',
    "<!-- poolgrad: sizes every poolgrad frame on the page to its content. Needed once per",
    "     page (a second copy does nothing); keep it when you paste more widgets. -->",
    `<script>(${sizePoolgradFrames})();</script>`,
  ].join("\n");
}
return Object.freeze({ pythonNumber, pythonMatrix, pythonPair, poolingArguments, FUNCTIONS, wrapArguments, torchSnippet, poolgradSnippet, embedCode });
})();

// web/takeaway/svg-export.js
const $takeaway_svg_export = (() => {
const { cellName, escapeXml, formatNumber, sizeText } = $widget_format;
const { explanationText, viewTitle } = $lesson_sentences;
const { gradientReceivers, selectedOutput, sharedCells, windowSamples, windowShared, windowSize } = $widget_trace_view;
// "Save picture": the current grids with their marks as one SVG file, for slides. A pure
// function of (state, trace): the marks come from the same facts the page's grids are
// marked from (trace-view.js), not from the DOM, so the picture is the view whatever the
// page's layout, theme or step-through position. Plain shapes and text, no script, no
// external fonts or images: the file opens anywhere, offline. Its pieces draw the chain's
// picture too (chain/picture.js).


const INK = "#1d1d1f";
const MUTED = "#5a5f6b";
const ACCENT = "#1d4ed8";
const ARGMAX = "#b42318";
const SHARED = "#7c2d12";
const LINE = "#9aa1ad";
const MARGIN = 24;
const GAP = 4;
const CELL_HEIGHT = 40;
const LABEL = 18; // room for the row and column numbers
const CAPTION = 26; // room for a grid's caption above it
const PANEL_GAP = 40;

const attributes = (named) => Object.entries(named).map(([name, value]) => `${name}="${escapeXml(value)}"`).join(" ");
const tag = (name, named, text) => (text === undefined
  ? `<${name} ${attributes(named)}/>`
  : `<${name} ${attributes(named)}>${escapeXml(text)}</${name}>`);
const range = (start, count) => Array.from({ length: count }, (_, i) => start + i);
const key = (r, c) => `${r},${c}`;

// The file name: what the view is, so a folder of pictures sorts and reads.
function pictureName(state) {
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
function cellWidth(grids) {
  let longest = 1;
  for (const grid of grids) {
    for (const r of grid.rows) for (const c of grid.cols) longest = Math.max(longest, [...grid.cell(r, c).text].length);
  }
  return Math.max(44, Math.ceil(longest * 9.5 + 16));
}

const gridSize = (grid, width) => ({
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

function drawGrid(grid, left, top, width) {
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
function pictureSvg(state, trace) {
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
const titleWidth = (title) => 2 * MARGIN + Math.ceil(title.length * 10.5);

// The file: `title` on top and, with `description`, for a screen reader; then `body`.
function svgDocument({ title, description, width, height, body }) {
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
return Object.freeze({ INK, MUTED, MARGIN, PANEL_GAP, tag, pictureName, cellWidth, gridSize, drawGrid, pictureSvg, titleWidth, svgDocument });
})();

// web/takeaway/code-view.js
const $takeaway_code_view = (() => {
const { embedCode, poolgradSnippet, torchSnippet } = $takeaway_snippets;
const { hashFor } = $widget_state;
const { pictureName, pictureSvg } = $takeaway_svg_export;
// The "Code" panel (#code): the current view as Python for PyTorch (#code-torch) and for
// poolgrad (#code-poolgrad), the link, the embed code, and "Save picture". What it shows is
// written by snippets.js and svg-export.js from the state alone (the picture also from the
// trace); this module only puts the text on the page, copies it and saves the file.
//
// Copying uses the asynchronous clipboard; where there is none (a page served over plain
// http from another machine) or the browser refuses it (an iframe without
// allow="clipboard-write"), the text is selected for the learner to copy, and the panel
// says so. Every outcome is announced through the panel's polite status line.


// Select a node's text, so the learner can copy it with the keyboard or a long press.
function selectText(node) {
  const range = document.createRange();
  range.selectNodeContents(node);
  const selection = getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

function pageAddress() {
  return location.href.split(/[?#]/)[0];
}

// A name for the next pasted widget: random, so two pastes on one page never share one.
function newEmbedId() {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

class CodeView {
  // elements: { panel (the <details>), torch, poolgrad, link, embed, message, picture,
  // copyButtons: [button with data-copy naming the element whose text it copies] };
  // current() returns { state, trace } with trace null while the output of this very state
  // is not known.
  constructor(elements, current) {
    this.elements = elements;
    this.current = current;
    this.filled = false;
    // The embed code's id, and the view (hash) it was made for: each view's code has its
    // own, so two views' codes selected by hand and pasted on one page never share one.
    this.embedId = null;
    this.embedView = null;
    for (const button of elements.copyButtons) {
      button.addEventListener("click", () => this.copy(elements[button.dataset.copy], button.dataset.what));
    }
    elements.picture.addEventListener("click", () => this.savePicture());
    elements.panel.addEventListener("toggle", () => {
      if (elements.panel.open) this.write();
    });
  }

  // Brings the panel up to date with the view shown (every render calls it). The texts are written
  // while the panel is open; a closed one is filled once, so that it is never empty (the
  // browser's find-in-page searches it and opens it on a match), and brought up to date
  // when it opens, or by a copy.
  update() {
    if (this.elements.panel.open || !this.filled) this.write();
  }

  // Writes the panel's texts for the view shown; only what changed is written. The link is
  // the view's own hash, not the address bar's: that still holds a link the page refused
  // (until a valid one replaces it) while the view shown is the last valid state.
  write() {
    const { state, trace } = this.current();
    this.filled = true;
    const hash = hashFor(state, trace);
    if (hash !== this.embedView) {
      this.embedId = newEmbedId();
      this.embedView = hash;
    }
    const texts = {
      torch: torchSnippet(state),
      poolgrad: poolgradSnippet(state),
      link: location.href.split("#")[0] + hash,
      // early.js marks a page with lesson=0 or code=0 in its query.
      embed: embedCode({
        pageUrl: pageAddress(), hash, id: this.embedId, state,
        lesson: document.documentElement.dataset.lesson !== "0",
        code: document.documentElement.dataset.code !== "0",
      }),
    };
    for (const [name, text] of Object.entries(texts)) {
      if (this.elements[name].textContent !== text) this.elements[name].textContent = text;
    }
  }

  say(text) {
    // Emptied first and filled a moment later, so that screen readers announce the same
    // words twice in a row too.
    this.elements.message.textContent = "";
    setTimeout(() => { this.elements.message.textContent = text; }, 50);
  }

  async copy(node, what) {
    this.write();
    const text = node.textContent;
    if (!navigator.clipboard?.writeText) {
      selectText(node);
      this.say(`This page cannot reach the clipboard here: the ${what} is selected; press Ctrl+C (⌘C on a Mac) to copy it.`);
      return;
    }
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      selectText(node);
      this.say(`The browser refused to copy to the clipboard: the ${what} is selected; press Ctrl+C (⌘C on a Mac) to copy it.`);
      return;
    }
    this.say(`Copied the ${what}.`);
    if (node === this.elements.embed) {
      // The next copy is another widget, even of this view: it gets a name of its own.
      this.embedView = null;
      this.write();
    }
  }

  // Downloads the picture through a link to a blob, which works offline and in a frame.
  savePicture() {
    const { state, trace } = this.current();
    if (!trace) {
      this.say("Nothing to save yet: the picture is saved once the output for these settings is shown.");
      return;
    }
    const name = pictureName(state);
    saveFile(name, pictureSvg(state, trace), "image/svg+xml");
    this.say(`Saved the picture as ${name}.`);
  }
}

// Downloads `text` as `name` through a link to a blob, which works offline and in a frame.
function saveFile(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked later: the download reads the blob after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
return Object.freeze({ CodeView, saveFile });
})();

// web/widget/controls.js
const $widget_controls = (() => {
const { pairText } = $widget_format;
const { PRESETS } = $widget_presets;
const { HASH_PROPERTIES, InputError, MATRIX_SPELLINGS, MAX_SIDE, applies, changedState, parseMatrix, parsePair, presetChange, quote, showsPreset, switchMode } = $widget_state;
// The parameter panel: reads the form controls into state changes and writes the state
// back into them. Controls stay usable while Python boots; their changes queue.


// The text fields, by control name: each holds one state property, read and written in
// the hash's spelling of its kind (a pair, or the norm type's number).
const PAIR_CONTROLS = { kernel: "k", stride: "s", padding: "p", dilation: "d", outputSize: "o", normType: "n" };
const PROPERTY_KINDS = new Map(HASH_PROPERTIES.map((property) => [property.key, property.kind]));
const fieldText = (key, value) => (PROPERTY_KINDS.get(key) === "norm" ? String(value) : pairText(value));
// The fields' names as the reason for a disabled one says them.
const FIELD_NAMES = { k: "kernel", s: "stride", p: "padding", d: "dilation" };

// Why the disabled window fields are disabled, shown under them (the output size and norm
// type fields say "adaptive only", "LP only" in their labels): "" when every one applies.
const WINDOW_REASONS = {
  avg: "average pooling has none (avg_pool2d takes no dilation)",
  lp: "LP pooling has neither (lp_pool2d takes no padding and no dilation)",
  adaptive_max: "the adaptive modes place their windows by the output size alone",
  adaptive_avg: "the adaptive modes place their windows by the output size alone",
};
function fieldReasons(state) {
  const names = ["k", "s", "p", "d"].filter((key) => !applies(key, state)).map((key) => FIELD_NAMES[key]);
  if (names.length === 0) return "";
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0];
  return `${list[0].toUpperCase()}${list.slice(1)} ${names.length > 1 ? "do" : "does"} not apply: ${WINDOW_REASONS[state.mode]}.`;
}

// The panel's elements inside `root` (the document, or a widget's shadow root).
function controlElements(root = document) {
  const byId = (id) => root.querySelector(`#${id}`);
  return {
    kernel: byId("kernel"),
    stride: byId("stride"),
    padding: byId("padding"),
    dilation: byId("dilation"),
    outputSize: byId("output-size"),
    normType: byId("norm-type"),
    windowReason: byId("window-reason"),
    unpool: byId("unpool"),
    mode: byId("mode"),
    ceil: byId("ceil"),
    cip: byId("cip"),
    gradient: byId("gradient"),
    preset: byId("preset"),
    presetReroll: byId("preset-reroll"),
    rows: byId("rows"),
    cols: byId("cols"),
    paste: byId("paste"),
    pasteApply: byId("paste-apply"),
    pasteMessage: byId("paste-message"),
    gradOnes: byId("grad-ones"),
    gradCount: byId("grad-count"),
    foldToggle: byId("controls-toggle"),
  };
}

function fillPresetOptions(select) {
  for (const [value, preset] of Object.entries(PRESETS)) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = preset.label;
    select.append(option);
  }
}

const matrixText = (matrix) => JSON.stringify(matrix);

// The last random input loaded, so #preset can keep saying "random" until it is edited.
let lastRandomInput = null;

// The preset on screen, or "" for an input of the learner's own: one with settings first
// (its input may be another preset's, as the global average's is the fixture).
function presetShowing(state) {
  if (matrixText(state.x) === lastRandomInput) return "random";
  const names = Object.keys(PRESETS).filter((name) => name !== "random")
    .sort((a, b) => Number(!PRESETS[a].settings) - Number(!PRESETS[b].settings));
  return names.find((name) => showsPreset(name, state)) ?? "";
}

// Reflect the state in the controls, leaving alone a field the user is typing in whose
// text already means the current value (so "3," mid-typing is not overwritten).
function syncControls(controls, state) {
  for (const [id, key] of Object.entries(PAIR_CONTROLS)) {
    const input = controls[id];
    let typedValue = null;
    try {
      typedValue = fieldText(key, parsePair(input.value, key, "field"));
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
    }
    input.disabled = !applies(key, state);
    if (input.getRootNode().activeElement === input && (typedValue === fieldText(key, state[key]) || typedValue === null)) continue;
    input.value = fieldText(key, state[key]);
  }
  controls.windowReason.textContent = fieldReasons(state);
  controls.ceil.disabled = !applies("ceil", state);
  controls.unpool.checked = state.unpool;
  controls.unpool.disabled = !applies("unpool", state);
  controls.mode.value = state.mode;
  controls.ceil.checked = state.ceil;
  controls.cip.checked = state.cip;
  controls.cip.disabled = !applies("cip", state);
  controls.gradient.checked = state.grad;
  const preset = presetShowing(state);
  if (preset) controls.preset.value = preset;
  else controls.preset.selectedIndex = -1;
  controls.presetReroll.hidden = preset !== "random";
  controls.rows.value = String(state.x.length);
  controls.cols.value = String(state.x[0].length);
}

function resized(matrix, rows, cols) {
  return Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => matrix[r]?.[c] ?? 0));
}

// `actions`: change(mutator) applies a state change; reportControlError(text|null).
// Every change goes through state.js's rules (changedState), which reset the gradient.
function bindControls(controls, { getState, change, reportControlError, gradientShape }) {
  const update = (changes) => change((state) => Object.assign(state, changedState(state, changes)));
  for (const [id, key] of Object.entries(PAIR_CONTROLS)) {
    const input = controls[id];
    const apply = (text) => {
      let value;
      try {
        value = parsePair(text.trim(), key, "field");
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        reportControlError(error.message);
        return;
      }
      reportControlError(null);
      if (fieldText(key, value) === fieldText(key, getState()[key])) return;
      update({ [key]: value });
    };
    // Typing fires "input"; a value set without typing (WebDriver's clear() then keys,
    // autofill, some mobile keyboards) may only fire "change" when the field is committed.
    input.addEventListener("input", () => apply(input.value));
    input.addEventListener("change", () => apply(input.value));
    // Arrow keys step a square value, like a number field, without losing pair support.
    // The stepped value goes to the state like a typed one; syncControls then shows it.
    input.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowUp" && event.key !== "ArrowDown") return;
      if (PROPERTY_KINDS.get(key) !== "pair") return;
      const [first, second] = getState()[key];
      if (first !== second) return;
      event.preventDefault();
      const stepped = String(Math.max(0, first + (event.key === "ArrowUp" ? 1 : -1)));
      input.value = stepped;
      apply(stepped);
    });
    input.addEventListener("blur", () => {
      reportControlError(null);
      syncControls(controls, getState());
    });
  }
  controls.mode.addEventListener("change", () => change(switchMode(controls.mode.value)));
  controls.ceil.addEventListener("change", () => update({ ceil: controls.ceil.checked }));
  controls.cip.addEventListener("change", () => update({ cip: controls.cip.checked }));
  controls.gradient.addEventListener("change", () => update({ grad: controls.gradient.checked }));
  controls.unpool.addEventListener("change", () => update({ unpool: controls.unpool.checked }));

  const loadPreset = () => change((state) => {
    const name = controls.preset.value || "fixture";
    presetChange(name)(state);
    if (name === "random") lastRandomInput = matrixText(state.x);
  });
  // Choosing a preset loads it. A keyboard's arrows on the closed list fire "change" at
  // each step (Chromium, Firefox, WebKitGTK and WPE; tests/engines), so arrowing through the
  // list loads each preset on the way: each is one quick trace, superseded by the next.
  controls.preset.addEventListener("change", loadPreset);
  controls.presetReroll.addEventListener("click", loadPreset);

  const resize = () => {
    const rows = Number(controls.rows.value);
    const cols = Number(controls.cols.value);
    const valid = (n) => Number.isInteger(n) && n >= 1 && n <= MAX_SIDE;
    if (!valid(rows) || !valid(cols)) {
      reportControlError(`Rows and columns must be whole numbers from 1 to ${MAX_SIDE}; got ${quote(controls.rows.value)} x ${quote(controls.cols.value)}.`);
      return;
    }
    reportControlError(null);
    update({ x: resized(getState().x, rows, cols) });
  };
  controls.rows.addEventListener("change", resize);
  controls.cols.addEventListener("change", resize);

  controls.pasteApply.addEventListener("click", () => {
    let matrix;
    try {
      matrix = parseMatrix(controls.paste.value, MATRIX_SPELLINGS.paste());
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      controls.pasteMessage.dataset.kind = "error";
      controls.pasteMessage.textContent = error.message;
      reportControlError(`The pasted matrix was not loaded: ${error.message}`);
      return;
    }
    reportControlError(null);
    controls.pasteMessage.dataset.kind = "ok";
    controls.pasteMessage.textContent = `Loaded a ${matrix.length} × ${matrix[0].length} matrix.`;
    update({ x: matrix });
  });

  // Narrow screens show the settings folded (style.css); the toggle opens and closes them.
  controls.foldToggle.addEventListener("click", () => {
    const open = controls.foldToggle.getAttribute("aria-expanded") === "true";
    controls.foldToggle.setAttribute("aria-expanded", String(!open));
  });

  controls.gradOnes.addEventListener("click", () => update({ g: null }));
  controls.gradCount.addEventListener("click", () => {
    const shape = gradientShape();
    if (!shape) return;
    change((state) => {
      state.g = Array.from({ length: shape[0] }, (_, i) => Array.from({ length: shape[1] }, (_, j) => i * shape[1] + j + 1));
    });
  });
}
return Object.freeze({ fieldReasons, controlElements, fillPresetOptions, syncControls, bindControls });
})();

// web/widget/colours.js
const $widget_colours = (() => {
const { decodeNumber } = $widget_format;
// The heat map's colour maths: a cell's background from its value, scaled over the
// grids it is compared with, and a text colour that keeps WCAG contrast on it, in the
// light or the dark scheme. Pure functions; render.js paints what they return.


// WCAG relative luminance of an HSL colour (h in degrees, s and l in percent).
function luminance(hue, saturation, lightness) {
  const s = saturation / 100;
  const l = lightness / 100;
  const channel = (n) => {
    const k = (n + hue / 30) % 12;
    const value = l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(8) + 0.0722 * channel(4);
}

const DARK_TEXT = { colour: "#1d1d1f", luminance: 0.0122 };
// White text reads at WCAG AA (4.5:1) on a background of at most this luminance.
// The browser paints the shade in 8-bit sRGB, and rounding each channel can lift its
// luminance by up to about 0.002 here: the limit keeps a margin for it.
const WHITE_TEXT_LIMIT = 1.05 / 4.5 - 0.05 - 0.004;

// Heat map: blue for negatives, orange for positives, neutral at zero, scaled by the
// largest finite magnitude so a grid reads at a glance. In the light scheme the shades
// darken from white; in the dark one (`scheme` "dark", prefers-color-scheme) they
// brighten from the panel's near-black, kept dark enough for white text. The text is dark
// or white, whichever contrasts more with the shade.
const VALUE_HUES = { negative: 215, positive: 24 };

function heatColours(value, scale, hues = VALUE_HUES, scheme = "light") {
  const number = decodeNumber(value);
  if (Number.isNaN(number)) return { background: "hsl(280 30% 88%)", color: DARK_TEXT.colour };
  const strength = scale > 0 ? Math.min(1, Math.abs(number) / scale) : 0;
  const clipped = Number.isFinite(number) ? strength : 1;
  const hue = number < 0 ? hues.negative : hues.positive;
  let saturation;
  let lightness;
  if (scheme === "dark") {
    saturation = 30 + clipped * 50;
    lightness = 16 + clipped * 30;
    while (luminance(hue, saturation, lightness) > WHITE_TEXT_LIMIT) lightness -= 1;
  } else {
    saturation = 40 + clipped * 45;
    lightness = 98 - clipped * 52;
  }
  const background = luminance(hue, saturation, lightness);
  const darkContrast = (background + 0.05) / (DARK_TEXT.luminance + 0.05);
  const whiteContrast = 1.05 / (background + 0.05);
  return {
    background: `hsl(${hue} ${saturation}% ${lightness}%)`,
    color: darkContrast >= whiteContrast ? DARK_TEXT.colour : "#ffffff",
  };
}

function magnitudeScale(matrices) {
  let scale = 0;
  for (const matrix of matrices) {
    for (const row of matrix) {
      for (const value of row) {
        const number = decodeNumber(value);
        if (Number.isFinite(number)) scale = Math.max(scale, Math.abs(number));
      }
    }
  }
  return scale;
}

// Each built grid's shape and cells in row-major order, so the next render can reuse it.

// The gradient grids' hues, apart from the values' so the two never read as one scale.
const GRADIENT_HUES = { negative: 300, positive: 160 };
return Object.freeze({ VALUE_HUES, heatColours, magnitudeScale, GRADIENT_HUES });
})();

// web/widget/render.js
const $widget_render = (() => {
const { GRADIENT_HUES, VALUE_HUES, heatColours, magnitudeScale } = $widget_colours;
const { cellName, formatNumber, formatSum, listCells, sizeText } = $widget_format;
const { explanationText, totalsVerdict, unpoolText } = $lesson_sentences;
const { gradientReceivers, selectedOutput, sharedCells, windowShared, windowSize } = $widget_trace_view;
// Rendering: (state, trace, view) -> the DOM of every region. No event handling, no
// worker calls. Not pure: to redraw cheaply it keeps, at module level, what the last
// render built — each grid table's shape and cells (builtGrids), the cells by grid and
// "row,col" (cellsByGrid), each cell's accessible name before selection roles
// (baseLabels), the colours written (writtenColours: the browser reads them back in
// another notation) and the cells the selection marked (markedCells). A grid whose rows
// and columns are unchanged is updated in place, writing only what differs; the result is
// the DOM a fresh build would give (tests/web/test_render_reuse.py). The step-through's
// marks (view.stepMarks, from player.js) are drawn as part of each cell, like any other
// attribute, and so are the exercise panel's marks of wrong cells (view.mismatches, from
// exercise.js: what poolgrad.exercise_check found, as text). Every user-derived string goes
// in through textContent or attribute values, never HTML.


const GRID_TITLES = {
  input: "Input",
  output: "Output",
  "grad-output": "Upstream gradient",
  "grad-input": "Input gradient",
  unpooled: "Unpooled",
};

// The attributes a node gets from a spec: absent when undefined, null or false.
function presentAttributes(attributes) {
  const present = new Map();
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null && value !== false) present.set(name, value === true ? "true" : String(value));
  }
  return present;
}

function element(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [name, value] of presentAttributes(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

// Built cells by grid and "row,col", and each cell's accessible name without selection
// roles, so a selection change updates a few cells in place instead of rebuilding. Each
// widget of a page has its own (drawnIn, keyed by its regions); renderView and
// renderSelection point cellsByGrid and markedCells at the widget they draw.
const drawnIn = new WeakMap();
let cellsByGrid = new Map();
let markedCells = [];
function drawing(regions) {
  if (!drawnIn.has(regions)) drawnIn.set(regions, { cellsByGrid: new Map(), markedCells: [] });
  const drawn = drawnIn.get(regions);
  cellsByGrid = drawn.cellsByGrid;
  markedCells = drawn.markedCells;
  return drawn;
}
const baseLabels = new WeakMap();
const cellKey = (row, col) => `${row},${col}`;
const range = (start, count) => Array.from({ length: count }, (_, i) => start + i);

const builtGrids = new WeakMap();
const writtenColours = new WeakMap();

// A cell's spec with the step-through's change for it (player.js, marksByCell) applied.
function withStepMark(spec, change) {
  if (!change) return spec;
  return {
    ...spec,
    text: change.text ?? spec.text,
    attributes: { ...spec.attributes, "data-pending": change.pending, "data-partial": change.partial, "data-step": change.step },
    label: [spec.label, ...change.notes].join("; "),
  };
}

// A cell's spec with the exercise checker's verdict on it: {expected, got} as text.
function withMismatch(spec, wrong) {
  if (!wrong) return spec;
  const verdict = `expected ${wrong.expected}, got ${wrong.got}`;
  return {
    ...spec,
    attributes: { ...spec.attributes, "data-mismatch": "true", title: `Your code: ${verdict}` },
    label: `${spec.label}; wrong in your code: ${verdict}`,
  };
}

// Brings a reused cell to exactly what a new one built from `spec` would be, writing only
// what differs: unchanged cells then cost the browser no restyle and no relayout.
function updateCell(td, attributes, spec) {
  for (const name of td.getAttributeNames()) {
    if (name !== "style" && !attributes.has(name)) td.removeAttribute(name);
  }
  for (const [name, value] of attributes) {
    if (td.getAttribute(name) !== value) td.setAttribute(name, value);
  }
  // Compared with what was written: the browser reads colours back in another notation.
  const colours = spec.colours ? `${spec.colours.background}|${spec.colours.color}` : null;
  if (writtenColours.get(td) !== colours) {
    writtenColours.set(td, colours);
    if (spec.colours) {
      td.style.backgroundColor = spec.colours.background;
      td.style.color = spec.colours.color;
    } else {
      td.removeAttribute("style");
    }
  }
  if (spec.editor) td.replaceChildren(spec.editor);
  else if (td.firstElementChild || td.textContent !== spec.text) td.textContent = spec.text;
}

// A table with role="grid": column and row headers give the coordinates learners read
// in the sentences; each cell's accessible name says where it is and what it is.
// `previous` is the grid of this name now on the page: when it has the same rows and
// columns (a kernel change keeps the input's), its cells are updated in place.
function gridTable({ name, title, rowIndices, colIndices, focus, describe: describeBase, stepMarks, mismatches }, previous) {
  const describe = (row, col) => withMismatch(
    withStepMark(describeBase(row, col), stepMarks?.get(`${name}:${row},${col}`)),
    mismatches?.get(`${name}:${row},${col}`),
  );
  const index = new Map();
  cellsByGrid.set(name, index);
  const shape = `${rowIndices[0]}:${rowIndices.length},${colIndices[0]}:${colIndices.length}`;
  const built = previous && builtGrids.get(previous);
  if (built && built.shape === shape) {
    let next = 0;
    for (const row of rowIndices) {
      for (const col of colIndices) {
        const td = built.cells[next++];
        const spec = describe(row, col);
        updateCell(td, cellAttributes(name, row, col, spec, focus), spec);
        baseLabels.set(td, spec.label);
        index.set(cellKey(row, col), td);
      }
    }
    return previous;
  }
  const cells = [];
  const table = element("table", {
    role: "grid",
    class: `grid grid-${name}`,
    "data-grid-name": name,
    "aria-label": `${title ?? GRID_TITLES[name]}, ${rowIndices.length} by ${colIndices.length}`,
  });
  const head = element("tr", { role: "row", class: "grid-head" });
  head.append(element("th", { role: "columnheader", "aria-hidden": "true" }));
  for (const col of colIndices) head.append(element("th", { role: "columnheader", scope: "col" }, String(col)));
  table.append(head);
  for (const row of rowIndices) {
    const tr = element("tr", { role: "row" });
    tr.append(element("th", { role: "rowheader", scope: "row" }, String(row)));
    for (const col of colIndices) {
      const spec = describe(row, col);
      const td = document.createElement("td");
      updateCell(td, cellAttributes(name, row, col, spec, focus), spec);
      baseLabels.set(td, spec.label);
      index.set(cellKey(row, col), td);
      cells.push(td);
      tr.append(td);
    }
    table.append(tr);
  }
  builtGrids.set(table, { shape, cells });
  return table;
}

function cellAttributes(name, row, col, spec, focus) {
  const isFocus = focus && focus[0] === row && focus[1] === col;
  return presentAttributes({
    role: "gridcell",
    class: "cell",
    "data-grid": name,
    "data-row": String(row),
    "data-col": String(col),
    tabindex: spec.pad ? undefined : isFocus ? "0" : "-1",
    ...spec.attributes,
    "aria-label": spec.label,
  });
}

function editorFor(view, name, row, col) {
  if (!view.editing || view.editing.grid !== name || view.editing.row !== row || view.editing.col !== col) return null;
  return element("input", {
    class: "cell-editor",
    type: "text",
    inputmode: "decimal",
    // grid-input.js starts the draft at the value's exact spelling, not its 4-decimal display.
    value: view.editing.draft,
    "aria-label": `New value for ${GRID_TITLES[name].toLowerCase()} row ${row}, col ${col}`,
    "data-editor": name,
  });
}

// The roving-tabindex cell of each grid: the remembered one, clamped into the grid.
function focusCell(view, name, rows, cols) {
  const remembered = view.focus[name] ?? [0, 0];
  return [Math.min(remembered[0], rows - 1), Math.min(remembered[1], cols - 1)];
}

// Which input cells the selected output's window covers, and its argmax.
function selectionOverlay(trace, selection) {
  const output = trace && selection ? selectedOutput({ sel: selection }, trace) : null;
  if (!output) return null;
  const [i, j] = output;
  return {
    output,
    rows: trace.window_rows[i],
    cols: trace.window_cols[j],
    argmax: trace.argmax ? trace.argmax[i][j] : null,
  };
}

function inputGrid(state, trace, view, previous) {
  const height = state.x.length;
  const width = state.x[0].length;
  const [padRows, padCols] = trace ? trace.padding ?? [0, 0] : state.p;
  const padValue = trace ? trace.pad_value : state.mode === "max" ? "-Infinity" : 0;
  const scale = magnitudeScale(trace ? [state.x, trace.output] : [state.x]);
  // ×n: in the adaptive modes the cells several windows share (trace.shared), in the
  // other modes that keep a maximum the cells several outputs chose.
  const windows = trace && windowShared(trace);
  const shared = (r, c) => (!trace ? 0 : windows ? windows[r][c] : trace.argmax ? trace.sources[r][c].length : 0);
  const sharedRole = (n) => (windows ? `in the windows of ${n} outputs` : `maximum of ${n} outputs`);
  return gridTable({
    name: "input",
    rowIndices: range(-padRows, height + 2 * padRows),
    colIndices: range(-padCols, width + 2 * padCols),
    focus: focusCell(view, "input", height, width),
    stepMarks: view.stepMarks,
    describe(r, c) {
      const pad = r < 0 || c < 0 || r >= height || c >= width;
      const value = pad ? padValue : state.x[r][c];
      const roles = [];
      if (pad) roles.push("padding");
      if (!pad && shared(r, c) > 1) roles.push(sharedRole(shared(r, c)));
      return {
        pad,
        text: formatNumber(value),
        colours: pad ? null : heatColours(value, scale, VALUE_HUES, view.scheme),
        attributes: {
          "data-pad": pad ? "true" : undefined,
          "data-shared": !pad && shared(r, c) > 1 ? String(shared(r, c)) : undefined,
        },
        label: `Input row ${r}, col ${c}: ${formatNumber(value)}${roles.length ? `; ${roles.join("; ")}` : ""}`,
        editor: pad ? null : editorFor(view, "input", r, c),
      };
    },
  }, previous);
}

// A grid of this kind for another view (web/chain/): a table over a whole plane of
// `shape`, named `title` for screen readers, each cell from describe(row, col) (a spec as
// above: text, colours, attributes, label, editor), `focus` the cell that takes Tab;
// `previous`, the table this one replaces, is updated in place when its shape is the same.
function planeTable({ name, title, shape: [height, width], focus, describe }, previous = null) {
  return gridTable({ name, title, rowIndices: range(0, height), colIndices: range(0, width), focus, describe }, previous);
}

// A grid over a whole plane: rows and columns from 0, keyboard focus where the view left it.
function planeGrid(name, [height, width], view, previous, describe) {
  return gridTable({
    name,
    rowIndices: range(0, height),
    colIndices: range(0, width),
    focus: focusCell(view, name, height, width),
    stepMarks: view.stepMarks,
    mismatches: view.mismatches,
    describe,
  }, previous);
}

function outputGrid(state, trace, view, previous) {
  const scale = magnitudeScale([state.x, trace.output]);
  // The adaptive modes' windows change size: each output cell says its own.
  const sizes = trace.window_size;
  return planeGrid("output", trace.output_shape, view, previous, (i, j) => {
    const value = trace.output[i][j];
    const size = sizes ? sizeText(windowSize(trace, [i, j])) : null;
    return {
      text: formatNumber(value),
      colours: heatColours(value, scale, VALUE_HUES, view.scheme),
      attributes: { "aria-selected": "false", "data-window-size": size ?? undefined },
      label: `Output row ${i}, col ${j}: ${formatNumber(value)}${size ? `; window ${size}` : ""}`,
    };
  });
}

// A grid over the input's plane of what the outputs routed back to each cell (the
// gradient, or unpooling's values): `values` and its hues, and `shared(sources, value)`,
// the label's words for a cell several outputs reach. ×n marks such a cell, and a cell
// none reaches is faint.
function routedGrid(name, trace, view, previous, { values, scale, hues, title, shared }) {
  return planeGrid(name, trace.input_shape, view, previous, (r, c) => {
    const value = values[r][c];
    const sources = trace.sources[r][c];
    let detail = "";
    if (sources.length > 1) detail = `; ${shared(sources, value, [r, c])}`;
    else if (sources.length === 1) detail = `; from output ${cellName(sources[0])}`;
    return {
      text: formatNumber(value),
      colours: heatColours(value, scale, hues, view.scheme),
      attributes: {
        "data-shared": sources.length > 1 ? String(sources.length) : undefined,
        "data-zero": sources.length === 0 ? "true" : undefined,
      },
      label: `${title} row ${r}, col ${c}: ${formatNumber(value)}${detail}`,
    };
  });
}

// max_unpool2d(out, indices): each output put back on its argmax, 0 elsewhere; a cell
// several outputs chose holds one value, where the gradient adds.
function unpooledGrid(trace, view, previous) {
  return routedGrid("unpooled", trace, view, previous, {
    values: trace.unpooled,
    scale: magnitudeScale([trace.input, trace.unpooled]),
    hues: VALUE_HUES,
    title: "Unpooled",
    shared: (sources) => `written once, though outputs ${listCells(sources)} all chose it`,
  });
}


function gradOutputGrid(trace, view, previous) {
  const values = trace.grad_output;
  const scale = magnitudeScale([values, trace.grad_input]);
  return planeGrid("grad-output", trace.output_shape, view, previous, (i, j) => {
    const value = values[i][j];
    return {
      text: formatNumber(value),
      colours: heatColours(value, scale, GRADIENT_HUES, view.scheme),
      label: `Upstream gradient row ${i}, col ${j}: ${formatNumber(value)}`,
      editor: editorFor(view, "grad-output", i, j),
    };
  });
}

function gradInputGrid(trace, view, previous) {
  return routedGrid("grad-input", trace, view, previous, {
    values: trace.grad_input,
    scale: magnitudeScale([trace.grad_output, trace.grad_input]),
    hues: GRADIENT_HUES,
    title: "Input gradient",
    shared: (sources, value, [r, c]) => `${formatSum(trace.grad_terms[r][c], value)} from outputs ${listCells(sources)}`,
  });
}


const MAX_LISTED_SHARED = 4;

function sharedSums(trace) {
  const list = element("ul", { class: "shared-sums", id: "shared-sums" });
  const shared = sharedCells(trace);
  if (shared.length === 0) {
    list.append(element("li", {}, "No input cell receives gradient from more than one output."));
    return list;
  }
  for (const [r, c] of shared.slice(0, MAX_LISTED_SHARED)) {
    const text = `Cell ${cellName([r, c])} collects from outputs ${listCells(trace.sources[r][c])}: ${formatSum(trace.grad_terms[r][c], trace.grad_input[r][c])}`;
    list.append(element("li", { "data-shared-cell": `${r},${c}` }, text));
  }
  if (shared.length > MAX_LISTED_SHARED) {
    list.append(element("li", {}, `… and ${shared.length - MAX_LISTED_SHARED} more cells marked ×n in the grid (each cell's label gives its sum).`));
  }
  return list;
}

function totals(trace) {
  const upstream = formatNumber(trace.grad_output_sum);
  const routed = formatNumber(trace.grad_input_sum);
  return element("p", { id: "totals" }, `Upstream total ${upstream}; input-gradient total ${routed}. ${totalsVerdict(trace, upstream === routed)}`);
}

function axisFormula(label, axis) {
  const [open, close] = axis.ceil ? ["⌈", "⌉"] : ["⌊", "⌋"];
  const filled = `${open}(${axis.n} + 2·${axis.p} − ${axis.d}·(${axis.k} − 1) − 1) / ${axis.s}${close} + 1`;
  const reduced = `${open}${axis.numerator} / ${axis.s}${close} + 1`;
  let text = `${label}: ${filled} = ${reduced} = ${axis.by_formula}`;
  if (axis.dropped_last) text += `, minus the last window, which would start in the padding: ${axis.size}`;
  return element("p", { class: "formula-line", "data-axis": label }, text);
}

// The adaptive modes: where each window starts and ends, per axis, from trace.window_bounds.
function adaptiveFormula(trace) {
  const box = element("div", { id: "formula", class: "formula" });
  box.append(element("h3", {}, "Window placement"));
  box.append(element("p", { class: "formula-general" },
    "window i of Out over In lines spans [⌊i·In/Out⌋, ⌈(i+1)·In/Out⌉), per axis: the output size is yours, the windows follow"));
  const [height, width] = trace.input_shape;
  const [outHeight, outWidth] = trace.output_shape;
  for (const [label, n, out, bounds] of [["rows", height, outHeight, trace.window_bounds.rows], ["cols", width, outWidth, trace.window_bounds.cols]]) {
    const spans = bounds.map(([start, end]) => `[${start}, ${end})`).join(", ");
    box.append(element("p", { class: "formula-line", "data-axis": label }, `${label}: ${n} into ${out}: ${spans}`));
  }
  return box;
}

function sizeFormula(trace) {
  if (!trace.size_formula) return adaptiveFormula(trace);
  const ceil = trace.size_formula.rows.ceil;
  const box = element("div", { id: "formula", class: "formula" });
  box.append(element("h3", {}, "Output size"));
  box.append(element("p", { class: "formula-general" },
    `out = ${ceil ? "⌈" : "⌊"}(n + 2p − d·(k − 1) − 1) / s${ceil ? "⌉" : "⌋"} + 1, per axis (n input side, k kernel, s stride, p padding, d dilation)`));
  box.append(axisFormula("rows", trace.size_formula.rows));
  box.append(axisFormula("cols", trace.size_formula.cols));
  return box;
}

// Puts `nodes` in `region`, leaving a reused first node where it is: taking it out and
// back in would make the browser lay the whole grid out again.
function show(region, ...nodes) {
  const current = [...region.childNodes];
  if (current[0] !== nodes[0]) {
    region.replaceChildren(...nodes);
    return;
  }
  for (const node of current.slice(1)) node.remove();
  region.append(...nodes.slice(1));
}

function placeholder(text) {
  return element("p", { class: "placeholder" }, text);
}

// Build every region of the view. `trace` is the latest answer, or null (booting, or
// Python refused the state; `view.traceError` then says why); `view.staleInput` says the
// trace belongs to an earlier state, so its windows are not drawn on the current input;
// `view.scheme` ("light" or "dark") picks the heat map's palette.
function renderView(regions, state, trace, view) {
  drawing(regions);
  cellsByGrid.clear();
  const shown = (region) => region.querySelector(":scope > table.grid");
  show(regions.inputGrid, inputGrid(state, view.staleInput ? null : trace, view, shown(regions.inputGrid)));
  const waitingText = view.traceError
    ? "No output: this combination is not valid (see the message above)."
    : "The output appears when Python is ready.";
  show(regions.outputGrid, trace ? outputGrid(state, trace, view, shown(regions.outputGrid)) : placeholder(waitingText));
  regions.gradPanels.forEach((panel) => { panel.hidden = !state.grad; });
  if (state.grad && trace?.grad_input) {
    show(regions.gradOutputGrid, gradOutputGrid(trace, view, shown(regions.gradOutputGrid)));
    show(regions.gradInputGrid, gradInputGrid(trace, view, shown(regions.gradInputGrid)), sharedSums(trace), totals(trace));
  } else {
    show(regions.gradOutputGrid, placeholder(waitingText));
    show(regions.gradInputGrid, placeholder(waitingText));
  }
  const unpooled = state.unpool && trace?.unpooled;
  regions.unpoolPanels.forEach((panel) => { panel.hidden = !unpooled; });
  if (unpooled) {
    show(regions.unpooledGrid, unpooledGrid(trace, view, shown(regions.unpooledGrid)));
    regions.unpoolNote.textContent = unpoolText(trace);
  } else {
    regions.unpooledGrid.replaceChildren();
    regions.unpoolNote.textContent = "";
  }
  // The legend's argmax mark belongs to the modes that keep one cell per window.
  regions.legend.dataset.mode = (trace ? trace.argmax : state.mode === "max" || state.mode === "adaptive_max") ? "max" : "avg";
  regions.formula.replaceChildren(trace ? sizeFormula(trace) : placeholder(""));
  regions.shapes.textContent = trace
    ? `${sizeText(trace.input_shape)} → ${sizeText(trace.output_shape)}`
    : sizeText([state.x.length, state.x[0].length]);
  renderSelection(regions, state, trace, view);
}

const SELECTION_ATTRIBUTES = ["data-in-window", "data-argmax", "data-for-selected", "data-from-selected"];

function mark(cell, attribute, role) {
  if (!cell) return;
  cell.setAttribute(attribute, "true");
  if (role) cell.setAttribute("aria-label", `${baseLabels.get(cell)}; ${role}`);
  markedCells.push(cell);
}

// The selection's marks, applied in place on the built grids: this is all a tap costs.
function renderSelection(regions, state, trace, view) {
  const drawn = drawing(regions);
  for (const cell of markedCells) {
    for (const attribute of SELECTION_ATTRIBUTES) cell.removeAttribute(attribute);
    if (cell.getAttribute("aria-selected") === "true") cell.setAttribute("aria-selected", "false");
    cell.setAttribute("aria-label", baseLabels.get(cell));
  }
  markedCells = drawn.markedCells = [];
  regions.explanation.textContent = explanationText(state, trace);
  const overlay = selectionOverlay(trace, state.sel);
  if (!overlay) return;
  const name = cellName(overlay.output);
  const selected = cellsByGrid.get("output")?.get(cellKey(...overlay.output));
  mark(selected, "aria-selected", "selected");
  mark(cellsByGrid.get("grad-output")?.get(cellKey(...overlay.output)), "data-for-selected", `upstream gradient of output ${name}`);
  if (view.staleInput) return;
  const inputCells = cellsByGrid.get("input");
  for (const r of overlay.rows) {
    for (const c of overlay.cols) {
      const isArgmax = overlay.argmax && overlay.argmax[0] === r && overlay.argmax[1] === c;
      const cell = inputCells.get(cellKey(r, c));
      mark(cell, "data-in-window", isArgmax ? null : `in the window of output ${name}`);
      if (isArgmax) mark(cell, "data-argmax", `argmax of output ${name}`);
    }
  }
  const gradInputCells = cellsByGrid.get("grad-input");
  if (!gradInputCells) return;
  for (const [r, c] of gradientReceivers(trace, overlay.output)) mark(gradInputCells.get(cellKey(r, c)), "data-from-selected", `receives gradient from output ${name}`);
}

// Hover preview: a lighter outline of another output's window, set in place so the
// pointer never sees its target replaced; it uses data-preview, never the selection's
// attributes, and stays off when the pointer is on the selected output itself.
function applyPreview(root, trace, output, selection) {
  for (const cell of root.querySelectorAll("[data-preview]")) cell.removeAttribute("data-preview");
  const isSelected = output && selection && output[0] === selection[0] && output[1] === selection[1];
  const overlay = isSelected ? null : selectionOverlay(trace, output);
  if (!overlay) return;
  root.querySelector(`[data-grid="output"][data-row="${output[0]}"][data-col="${output[1]}"]`)?.setAttribute("data-preview", "true");
  for (const cell of root.querySelectorAll('[data-grid="input"]')) {
    const r = Number(cell.dataset.row);
    const c = Number(cell.dataset.col);
    if (overlay.rows.includes(r) && overlay.cols.includes(c)) {
      const isArgmax = overlay.argmax && overlay.argmax[0] === r && overlay.argmax[1] === c;
      cell.setAttribute("data-preview", isArgmax ? "argmax" : "window");
    }
  }
}

// How much one render redraws, from what the grids show (`drawn`: the `next` of the
// render that last drew them, null before the first) and what they should show (`next`:
// { state, trace, view, awaitingTrace, gridsKey }, view as renderView takes it, gridsKey
// the state's state.js gridsKey):
// - "wait": nothing yet. The state changed what the worker computes and its answer, which
//   redraws everything, is milliseconds away; drawing the old trace now as well would
//   double the cost of every parameter change.
// - "selection": the grids already show this view but for the selection: only its marks
//   and the explanation change (renderSelection). This is the same render at lower cost:
//   renderView ends with the very same renderSelection call, and nothing else it draws
//   depends on the selection.
// - "all": renderView.
function redrawPlan(drawn, next) {
  if (drawn === null) return "all";
  const sameEdit = drawn.view.editing === next.view.editing;
  if (next.awaitingTrace && sameEdit) return "wait";
  const sameGrids = sameEdit
    && drawn.trace === next.trace
    && drawn.view.staleInput === next.view.staleInput
    && drawn.view.traceError === next.view.traceError
    && drawn.view.stepMarks === next.view.stepMarks
    && drawn.view.scheme === next.view.scheme
    && drawn.view.mismatches === next.view.mismatches
    && drawn.gridsKey === next.gridsKey;
  return sameGrids ? "selection" : "all";
}
return Object.freeze({ withStepMark, withMismatch, planeTable, renderView, renderSelection, applyPreview, redrawPlan });
})();

// web/widget/grid-input.js
const $widget_grid_input = (() => {
const { decodeNumber, encodeNumber } = $widget_format;
const { applyPreview } = $widget_render;
const { InputError, parseCellValue } = $widget_state;
// The grids' input: tapping or Enter on an output selects it, a hover previews a window,
// the arrow keys move a roving focus, and an input or upstream-gradient cell is edited in
// place. Every edit becomes a state change through the widget's change(); nothing here
// draws but the hover preview (render.js applyPreview) and the focus.


// The exact spelling of a cell's value, which its editor starts from ("0.123456", "1e-7",
// "Infinity", "-0"), where the grid shows 4 decimals: committing it unchanged is a no-op.
const exactText = (value) => encodeNumber(decodeNumber(value));

const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

// The grids' keys, the chain's too: an editor's Enter, Escape and leaving; the arrows, Home
// and End move the roving focus; Enter and Space activate; a digit, sign or point opens an
// editable cell's editor. `grids`: cellOf, lastCell, moved, activate, escape, editable,
// startEditing, commit, cancel.
function bindGridKeys(root, grids) {
  root.addEventListener("keydown", (event) => {
    const editor = event.target.closest?.("[data-editor]");
    if (editor) {
      if (event.key === "Enter") {
        event.preventDefault();
        grids.commit(editor);
      } else if (event.key === "Escape") {
        event.preventDefault();
        grids.cancel();
      }
      return;
    }
    const cell = grids.cellOf(event.target);
    if (!cell) return;
    const { key } = event;
    if (key in ARROWS || key === "Home" || key === "End") {
      event.preventDefault();
      const [lastRow, lastCol] = grids.lastCell(cell);
      let [row, col] = [cell.row, cell.col];
      if (key in ARROWS) {
        row = Math.min(lastRow, Math.max(0, row + ARROWS[key][0]));
        col = Math.min(lastCol, Math.max(0, col + ARROWS[key][1]));
      } else col = key === "Home" ? 0 : lastCol;
      const target = cell.node.closest("table").querySelector(`[data-row="${row}"][data-col="${col}"]`);
      cell.node.tabIndex = -1;
      target.tabIndex = 0;
      target.focus();
      grids.moved(cell, [row, col]);
    } else if (key === "Enter" || key === " ") {
      event.preventDefault();
      grids.activate(cell);
    } else if (key === "Escape") {
      grids.escape(cell);
    } else if (grids.editable(cell) && /^[-+.\d]$/.test(key)) {
      event.preventDefault();
      grids.startEditing(cell, key);
    }
  });
  root.addEventListener("focusout", (event) => {
    const editor = event.target.closest?.("[data-editor]");
    if (editor?.isConnected) grids.commit(editor);
  });
}

// `w`: the mounted widget (mount.js): its stage, regions, state, view, drawn, guide,
// currentTrace(), change(mutator), render(), updateStatus(), gradientShape(),
// announceSelection() and controlError.
function bindGridInput(w) {
  // ---- grid interactions: tap, hover preview, keyboard, in-place editing ----

  function cellOf(target) {
    const cell = target.closest?.("[data-grid]");
    if (!cell || cell.dataset.pad === "true") return null;
    return { node: cell, grid: cell.dataset.grid, row: Number(cell.dataset.row), col: Number(cell.dataset.col) };
  }

  function select(row, col) {
    w.view.focus.output = [row, col];
    for (const cell of w.regions.outputGrid.querySelectorAll('[data-grid="output"][tabindex="0"]')) cell.tabIndex = -1;
    const target = w.regions.outputGrid.querySelector(`[data-grid="output"][data-row="${row}"][data-col="${col}"]`);
    if (target) target.tabIndex = 0;
    w.guide.note("pick");
    w.change((state) => {
      state.sel = [row, col];
      state.selImplicit = false;
    });
    w.announceSelection();
  }

  function startEditing(cell, draft) {
    let value;
    if (cell.grid === "input") value = w.state.x[cell.row]?.[cell.col];
    else if (w.currentTrace()?.grad_output) value = w.currentTrace().grad_output[cell.row]?.[cell.col];
    if (value === undefined) return;
    w.view.focus[cell.grid] = [cell.row, cell.col];
    const initial = exactText(value);
    w.view.editing = { grid: cell.grid, row: cell.row, col: cell.col, draft: draft ?? initial, initial };
    w.render();
    const editor = w.stage.querySelector("[data-editor]");
    if (editor && draft === undefined) editor.select();
  }

  function commitEdit(editor) {
    const editing = w.view.editing;
    if (!editing) return;
    const { grid, row, col } = editing;
    const [height, width] = grid === "input" ? [w.state.x.length, w.state.x[0].length] : w.gradientShape() ?? [0, 0];
    if (editor.value.trim() === editing.initial || row >= height || col >= width) {
      cancelEdit();
      return;
    }
    let value;
    try {
      value = parseCellValue(editor.value, `${editing.grid === "input" ? "Input" : "Upstream gradient"} cell (${editing.row},${editing.col})`);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      w.controlError = error.message;
      w.updateStatus();
      editor.setAttribute("aria-invalid", "true");
      return;
    }
    w.controlError = null;
    w.change((state) => {
      if (grid === "input") {
        state.x[row][col] = value;
      } else {
        state.g ??= Array.from({ length: height }, () => Array(width).fill(1));
        state.g[row][col] = value;
      }
    });
    w.stage.querySelector(`[data-grid="${grid}"][data-row="${row}"][data-col="${col}"]`)?.focus();
  }

  function cancelEdit() {
    const editing = w.view.editing;
    w.view.editing = null;
    w.controlError = null;
    w.render();
    if (editing) w.stage.querySelector(`[data-grid="${editing.grid}"][data-row="${editing.row}"][data-col="${editing.col}"]`)?.focus();
  }

  // The shape of a grid as drawn: the input's from the state, the others' from the trace
  // they were drawn from.
  function gridShape(grid) {
    if (grid === "input") return [w.state.x.length, w.state.x[0].length];
    return grid === "grad-input" ? w.drawn.trace.input_shape : w.drawn.trace.output_shape;
  }

  const editable = (cell) => cell.grid === "input" || cell.grid === "grad-output";

  w.stage.addEventListener("click", (event) => {
    if (event.target.closest("[data-editor]")) return;
    const cell = cellOf(event.target);
    if (!cell) return;
    if (cell.grid === "output") select(cell.row, cell.col);
    else if (editable(cell)) startEditing(cell);
  });

  bindGridKeys(w.stage, {
    cellOf,
    lastCell: (cell) => gridShape(cell.grid).map((side) => side - 1),
    moved(cell, place) {
      w.view.focus[cell.grid] = place;
      if (cell.grid === "output") applyPreview(w.stage, w.trace, place, w.state.sel);
    },
    activate(cell) {
      if (cell.grid === "output") select(cell.row, cell.col);
      else if (editable(cell)) startEditing(cell);
    },
    escape(cell) {
      if (cell.grid !== "output") return;
      w.change((state) => {
        state.sel = null;
        state.selImplicit = false;
      });
      w.announceSelection();
    },
    editable,
    startEditing,
    commit: commitEdit,
    cancel: cancelEdit,
  });

  w.stage.addEventListener("mouseover", (event) => {
    const cell = cellOf(event.target);
    const hovered = cell?.grid === "output" ? [cell.row, cell.col] : null;
    applyPreview(w.stage, w.currentTrace(), hovered, w.state.sel);
  });
  w.stage.addEventListener("mouseleave", () => applyPreview(w.stage, null, null));

  // Focusing (or clicking) an input cell counts as inspecting it, for the w.guide.
  w.stage.addEventListener("focusin", (event) => {
    const cell = cellOf(event.target);
    if (cell?.grid !== "input") return;
    w.view.inspected = [cell.row, cell.col];
    w.guide.note("pick");
    w.guide.update(w.state, w.currentTrace(), { inspected: w.view.inspected });
  });
}
return Object.freeze({ exactText, bindGridKeys, bindGridInput });
})();

// web/lesson/guide-steps.js
const $lesson_guide_steps = (() => {
const { presetChange, switchMode } = $widget_state;
const { selectedOutput, tiedCells } = $widget_trace_view;
// The "Try it" steps and which of them a change ticks: pure functions of (state, trace,
// context), with no DOM, so the build (first-views.js) reads them without the panel
// (guide.js draws it and keeps the learner's progress).


const same = (pair, first, second) => pair[0] === first && pair[1] === second;
const isMax = (trace) => trace?.mode === "max";
const showsGradient = (state, trace) => state.grad && trace?.grad_input !== undefined;
const sharedBy = (trace, [r, c]) => trace.sources[r][c].length > 1;
// The output someone picked: the implicit first selection is the widget's, not a pick.
const pickedOutput = (state, trace) => (state.selImplicit ? null : selectedOutput(state, trace));

const GUIDE_STEPS = [
  {
    id: "shared",
    picks: true,
    title: "Find the cell two outputs share",
    task: "Set the kernel to 3 and the stride to 1 in max mode. Neighbouring windows now overlap: select an output whose maximum is also another output's maximum, or click that input cell.",
    leadsTo(state) {
      switchMode("max")(state);
      Object.assign(state, { k: [3, 3], s: [1, 1] });
    },
    done(state, trace, context) {
      if (!isMax(trace) || !same(trace.kernel_size, 3, 3) || !same(trace.stride, 1, 1)) return false;
      const selected = pickedOutput(state, trace);
      const [height, width] = trace.input_shape;
      const inspected = context.inspected;
      const inspectedInside = inspected && inspected[0] < height && inspected[1] < width;
      return Boolean(selected && sharedBy(trace, trace.argmax[selected[0]][selected[1]])) || Boolean(inspectedInside && sharedBy(trace, inspected));
    },
  },
  {
    id: "routing",
    picks: true,
    title: "Every gradient lands on a maximum",
    task: "Go back to a 2 × 2 window with stride 2, turn on Gradient routing and select an output: its gradient lands on the cell marked max, and every other cell gets 0.",
    leadsTo(state) {
      switchMode("max")(state);
      Object.assign(state, { k: [2, 2], s: [2, 2], grad: true });
    },
    done(state, trace) {
      return isMax(trace) && showsGradient(state, trace) && same(trace.kernel_size, 2, 2) && same(trace.stride, 2, 2)
        && pickedOutput(state, trace) !== null;
    },
  },
  {
    id: "spread",
    title: "Average pooling spreads the gradient",
    task: "Keep the gradient on and switch to Average: each upstream gradient is now shared equally by every cell of its window.",
    leadsTo(state) {
      switchMode("avg")(state);
      state.grad = true;
    },
    done(state, trace) {
      return trace?.mode === "avg" && showsGradient(state, trace);
    },
  },
  {
    id: "tie",
    picks: true,
    title: "Make a tie and see which cell wins",
    task: "In max mode, give a window two equal maxima (edit a cell, or load the Ties preset) and select its output: the first of them in reading order wins.",
    leadsTo(state) {
      switchMode("max")(state);
      presetChange("ties")(state);
    },
    done(state, trace) {
      const selected = pickedOutput(state, trace);
      return isMax(trace) && selected !== null && tiedCells(trace, selected).length > 1;
    },
  },
];

// The ids of the steps (state, trace, context) shows done.
function stepsShown(state, trace, context) {
  return new Set(GUIDE_STEPS.filter((step) => step.done(state, trace, context)).map((step) => step.id));
}

// Which steps a change ticks: `before` and `now` are stepsShown before and after it;
// `cause` is what made it: "learner" (a control, an edit, a preset), "pick" (the learner
// selected an output or inspected an input cell), or "outside" / null (a link, a hash
// change from elsewhere, a redraw): those tick nothing. A learner's change ticks the steps
// it makes hold; a pick also ticks a step about picking that already held (picking
// another shared maximum is doing step 1 again), never one that is not about picking.
function stepsTicked(before, now, cause) {
  if (cause !== "learner" && cause !== "pick") return [];
  return GUIDE_STEPS
    .filter((step) => now.has(step.id) && (!before.has(step.id) || (cause === "pick" && step.picks)))
    .map((step) => step.id);
}

// The cause of several changes the guide has not seen the trace of yet: a view from
// outside overrides the learner's changes before it (they were superseded); a pick
// outranks another change.
function combineCauses(pending, cause) {
  if (pending === "outside" || cause === "outside") return "outside";
  if (pending === "pick" || cause === "pick") return "pick";
  return cause ?? pending;
}
return Object.freeze({ GUIDE_STEPS, stepsShown, stepsTicked, combineCauses });
})();

// web/lesson/guide.js
const $lesson_guide = (() => {
const { readStored, writeStored } = $widget_format;
const { GUIDE_STEPS, combineCauses, stepsShown, stepsTicked } = $lesson_guide_steps;
// The "Try it" path: each step is a pure predicate over (state, trace, context) that says
// whether a view shows it done. A step ticks only for what the learner did: when one of
// their own actions makes it hold (it did not before), or, for a step that asks them to
// pick a cell, when they pick one that makes it hold. A view that arrives from outside (a
// link, Back, a host page changing the hash) ticks nothing, nor does the implicit first
// selection. A ticked step stays ticked until reset. Progress is kept in localStorage when
// the browser allows it (iframes and private modes may not), under a key of the widget's
// page and the lesson page around it (progressKey), never in the URL hash: it belongs to
// the learner, not to the view being linked.
// Each step's leadsTo(state) makes the change its task asks for: the views the steps lead
// to are among those the site precomputes (first-views.js).


const STORAGE_PREFIX = "poolgrad-guide-v2";
// The localStorage key of the progress of this widget in this lesson: the widget's own
// path (no query, no hash: the state is not the lesson), and the lesson page around it:
// the `id` query parameter when the host sets one (?embed=1&id=pooling-week-2), else, in
// a frame, the path of the page that framed it (document.referrer, without its query and
// hash; a host on another site shows only its origin under the default referrer policy,
// so several lessons there need ids), else the widget's page alone.
// location: { pathname, search }; framed: whether the page is in a frame.
function progressKey(location, framed, referrer) {
  const id = new URLSearchParams(location.search).get("id");
  let host = "page";
  if (id) host = `id:${id}`;
  else if (framed) {
    let url = null;
    try {
      url = new URL(referrer);
    } catch {
      // No referrer (a sandboxed frame, a no-referrer policy): every such frame shares one key.
    }
    host = url ? `in:${url.origin}${url.pathname}` : "in:unknown";
  }
  return `${STORAGE_PREFIX}|${location.pathname}|${host}`;
}

function loadProgress(key) {
  try {
    const saved = JSON.parse(readStored(key) ?? "[]");
    return new Set(Array.isArray(saved) ? saved.filter((id) => GUIDE_STEPS.some((step) => step.id === id)) : []);
  } catch {
    return new Set(); // stored text that is not JSON
  }
}

const saveProgress = (key, done) => writeStored(key, done.size === 0 ? null : JSON.stringify([...done]));

class Guide {
  // elements: list (an <ol>), progress, reset. announce(text) speaks a newly ticked step.
  // storageKey: progressKey(...) of this page.
  constructor(elements, announce, storageKey) {
    this.elements = elements;
    this.announce = announce;
    this.storageKey = storageKey;
    this.done = loadProgress(storageKey);
    // The steps the last view with a trace showed, and the cause of the changes since.
    this.shown = new Set();
    this.cause = null;
    this.items = new Map();
    for (const [index, step] of GUIDE_STEPS.entries()) {
      const item = document.createElement("li");
      item.dataset.guideStep = step.id;
      const badge = document.createElement("span");
      badge.className = "guide-badge";
      const title = document.createElement("strong");
      title.textContent = `${index + 1}. ${step.title}`;
      const task = document.createElement("p");
      task.textContent = step.task;
      item.append(badge, " ", title, task);
      elements.list.append(item);
      this.items.set(step.id, { item, badge });
    }
    elements.reset.addEventListener("click", () => {
      this.done.clear();
      saveProgress(this.storageKey, this.done);
      this.draw();
      this.announce("Try it: progress reset.");
    });
    this.draw();
  }

  // Say what made the next view: "learner", "pick" or "outside" (see stepsTicked). It
  // counts once the view's trace is there: the next update with a trace.
  note(cause) {
    this.cause = combineCauses(this.cause, cause);
  }

  // Tick the steps the learner's changes since the last update made hold.
  update(state, trace, context) {
    if (!trace) return;
    const now = stepsShown(state, trace, context);
    const fresh = stepsTicked(this.shown, now, this.cause).filter((id) => !this.done.has(id));
    this.shown = now;
    this.cause = null;
    if (fresh.length === 0) return;
    for (const id of fresh) this.done.add(id);
    saveProgress(this.storageKey, this.done);
    this.draw();
    const titles = GUIDE_STEPS.filter((step) => fresh.includes(step.id)).map((step) => step.title);
    this.announce(`Try it: done, ${titles.join("; ")}. ${this.summary()}`);
  }

  summary() {
    return `${this.done.size} of ${GUIDE_STEPS.length} steps done.`;
  }

  draw() {
    for (const step of GUIDE_STEPS) {
      const { item, badge } = this.items.get(step.id);
      const done = this.done.has(step.id);
      item.dataset.done = String(done);
      badge.textContent = done ? "✓ Done" : "To do";
    }
    this.elements.progress.textContent = this.summary();
  }
}
return Object.freeze({ progressKey, Guide });
})();

// web/lesson/lesson.js
const $lesson_lesson = (() => {
const { cellName, formatNumber, formatSum, listCells, pairText, sizeText } = $widget_format;
const { normText, unpoolText } = $lesson_sentences;
const { decodeNumber } = $widget_format;
const { gradientReceivers, selectedOutput, sharedCells, termFrom, tiedCells, windowCells, windowSize, windowText } = $widget_trace_view;
// The lesson beside the widget: a pure function of (state, trace) -> text blocks, and
// their rendering (textContent only). Every number a sentence quotes comes from the
// current trace, so the text and the grids never disagree; without a trace (booting, or
// an invalid setup) the blocks say the same things without numbers.


const isAdaptive = (trace) => trace.window_size !== undefined;


function keeps(trace, selected) {
  const sentences = ["Max pooling slides a window over the input and keeps only the largest value inside it; the rest of the window is dropped."];
  if (!trace) return sentences;
  if (!trace.argmax) {
    sentences.push("Switch to Max to see which value each window keeps.");
  } else if (selected) {
    const [i, j] = selected;
    const count = windowCells(trace, selected).length;
    sentences.push(`Output ${cellName(selected)} keeps ${formatNumber(trace.output[i][j])}, the largest of the ${count} input values in its window (${windowText(trace, selected)}); the other ${count - 1} are dropped.`);
  } else {
    sentences.push("Select an output cell to see which value its window kept.");
  }
  return sentences;
}

function remembers(trace, selected) {
  const sentences = ["It also remembers where that maximum sat (PyTorch's return_indices): the backward pass needs the position, not just the value."];
  if (!trace || !trace.argmax || !selected) return sentences;
  const [i, j] = selected;
  const [r, c] = trace.argmax[i][j];
  const width = trace.input_shape[1];
  sentences.push(`Output ${cellName(selected)} remembers input cell ${cellName([r, c])}, flat index ${r} × ${width} + ${c} = ${trace.indices[i][j]}.`);
  const tied = tiedCells(trace, selected);
  if (tied.length > 1) {
    sentences.push(`Its window holds ${tied.length} cells equal to ${formatNumber(trace.output[i][j])} (${listCells(tied)}): a tie, and the first in reading order, ${cellName([r, c])}, wins.`);
  }
  return sentences;
}

function gradient(state, trace, selected) {
  const sentences = ["Backward, each output's upstream gradient goes back to the cell it remembered, and only there: every other cell of its window gets 0 from it."];
  if (!trace || !selected) return sentences;
  const showGradient = state.grad && trace.grad_input !== undefined;
  if (!showGradient) {
    sentences.push("Turn on Gradient routing to see where the numbers go.");
    return sentences;
  }
  const [i, j] = selected;
  const g = formatNumber(trace.grad_output[i][j]);
  const count = windowCells(trace, selected).length;
  if (trace.argmax) {
    const [r, c] = trace.argmax[i][j];
    sentences.push(`Output ${cellName(selected)}'s upstream gradient ${g} goes to cell ${cellName([r, c])} alone; the other ${count - 1} cells of its window get 0 from it.`);
  } else if (trace.mode === "lp") {
    sentences.push(`In LP pooling every cell of the window gets a share of output ${cellName(selected)}'s gradient ${g}, the larger the larger its |x|: the share is g · (|x| / out)^(p−1).`);
  } else {
    const [first] = windowCells(trace, selected);
    sentences.push(`In average mode there is no winner: output ${cellName(selected)}'s gradient ${g} is split into ${g} / ${trace.divisor[i][j]} = ${formatNumber(termFrom(trace, first, selected))} for each of the ${count} cells of its window.`);
  }
  return sentences;
}

function average(state, trace, selected) {
  const sentences = ["Average pooling keeps the mean of the window instead of its maximum, remembers no position, and spreads each gradient equally over the whole window. The Max / Average toggle switches between the two and keeps your selection."];
  if (!trace || !selected) return sentences;
  const [i, j] = selected;
  const count = windowCells(trace, selected).length;
  if (trace.mode === "avg" || trace.mode === "adaptive_avg") {
    sentences.push(`Here output ${cellName(selected)} = ${formatNumber(trace.output[i][j])} is the sum of its ${count} window cells divided by ${trace.divisor[i][j]}; no cell is singled out.`);
  } else if (trace.argmax) {
    const [r, c] = trace.argmax[i][j];
    sentences.push(`With average pooling, all ${count} cells of output ${cellName(selected)}'s window would share its gradient, not only cell ${cellName([r, c])}.`);
  }
  return sentences;
}

function axisText(axis) {
  const [open, close] = axis.ceil ? ["⌈", "⌉"] : ["⌊", "⌋"];
  const text = `${open}${axis.numerator} / ${axis.s}${close} + 1 = ${axis.dropped_last ? axis.size + 1 : axis.size}`;
  return axis.dropped_last ? `${text}, less the window that would start in the padding: ${axis.size}` : text;
}

function shrinks(trace) {
  const sentences = ["Each output summarises a whole window, so a pooled feature map is smaller than its input: the next layer has fewer numbers to process, and each of its units sees a wider patch of the image."];
  if (!trace) return sentences;
  const [height, width] = trace.input_shape;
  const [outHeight, outWidth] = trace.output_shape;
  if (isAdaptive(trace)) {
    sentences.push(`Here the output size is asked for: the ${sizeText(trace.input_shape)} input becomes ${sizeText(trace.output_shape)}, and the windows are placed to fit (see how adaptive windows are placed).`);
    return sentences;
  }
  const { rows, cols } = trace.size_formula;
  sentences.push(`Here the ${sizeText(trace.input_shape)} input becomes a ${sizeText(trace.output_shape)} output: rows ${axisText(rows)}, cols ${axisText(cols)}.`);
  if (outHeight * outWidth < height * width) {
    sentences.push(`That is ${outHeight * outWidth} numbers instead of ${height * width}, each one standing for a ${sizeText(trace.kernel_size)} window.`);
  } else {
    sentences.push(`Nothing shrinks here: with stride ${pairText(trace.stride)} there are as many windows as input cells.`);
  }
  return sentences;
}

// Is some input cell covered by two windows? (A row in two windows' rows, or a column in
// two windows' columns.)
function windowsOverlap(trace) {
  const repeats = (lists) => {
    const seen = new Set();
    for (const list of lists) {
      if (list.some((index) => seen.has(index))) return true;
      list.forEach((index) => seen.add(index));
    }
    return false;
  };
  return repeats(trace.window_rows) || repeats(trace.window_cols);
}

// The cell to quote for an overlap: the selected output's receiving cell if several
// outputs send to it, else the first such cell in row-major order.
function sharedExample(trace, selected) {
  if (selected) {
    const candidates = gradientReceivers(trace, selected);
    const found = candidates.find(([r, c]) => trace.sources[r][c].length > 1);
    if (found) return found;
  }
  return sharedCells(trace)[0] ?? null;
}

function overlap(state, trace, selected) {
  const sentences = ["When the stride is smaller than the window, neighbouring windows overlap and one input cell can belong to several of them; its gradients from those outputs add up."];
  if (!trace) return sentences;
  const setting = isAdaptive(trace)
    ? `adaptive windows placing ${sizeText(trace.input_shape)} into ${sizeText(trace.output_shape)}`
    : `stride ${pairText(trace.stride)} and ${sizeText(trace.kernel_size)} windows`;
  if (!windowsOverlap(trace)) {
    sentences.push(`With ${setting} the windows do not overlap: each input cell lies in at most one window, so it receives at most one gradient.`);
    return sentences;
  }
  const example = sharedExample(trace, selected);
  if (!example) {
    sentences.push(`With ${setting} the windows overlap, but no two outputs picked the same cell, so no gradients add up here.`);
    return sentences;
  }
  const [r, c] = example;
  const sources = trace.sources[r][c];
  const relation = trace.argmax ? "the maximum of" : "in the windows of";
  let sentence = `With ${setting} the windows overlap: cell ${cellName([r, c])} is ${relation} outputs ${listCells(sources)}`;
  if (state.grad && trace.grad_input !== undefined) {
    sentence += `, so it collects ${formatSum(trace.grad_terms[r][c], trace.grad_input[r][c])}.`;
  } else {
    sentence += ", so with Gradient routing on it collects the sum of their gradients.";
  }
  sentences.push(sentence);
  return sentences;
}

// The lesson's blocks for this state and its current trace (null when there is none).
function lessonBlocks(state, trace) {
  const selected = selectedOutput(state, trace);
  return [
    { topic: "keeps", title: "What max pooling keeps", sentences: keeps(trace, selected) },
    { topic: "remembers", title: "Where it remembers taking it from", sentences: remembers(trace, selected) },
    { topic: "gradient", title: "Where the gradient goes", sentences: gradient(state, trace, selected) },
    { topic: "average", title: "How average pooling differs", sentences: average(state, trace, selected) },
    { topic: "shrink", title: "Why pooling shrinks feature maps", sentences: shrinks(trace) },
    { topic: "overlap", title: "Overlapping windows add gradients up", sentences: overlap(state, trace, selected) },
    { topic: "global", title: "Global average pooling: one number per channel", sentences: globalAverage(trace) },
    { topic: "adaptive", title: "How adaptive windows are placed", sentences: adaptivePlacement(trace, selected) },
    { topic: "unpool", title: "Unpooling is not the gradient", sentences: unpooling(state, trace) },
    { topic: "lp", title: "LP pooling: between average and max", sentences: lpPooling(trace, selected) },
  ];
}

function globalAverage(trace) {
  const sentences = ["Global average pooling (PyTorch's AdaptiveAvgPool2d(1)) averages each channel's whole feature map into one number. It has no weights, and it takes an input of any size: a network ending in it accepts images of any resolution. That is why it replaced the large fully connected heads of earlier networks (VGG's first such layer alone holds about 100 million weights): with one number per channel, a small final layer maps channels straight to classes, and there are far fewer weights to overfit."];
  if (!trace) return sentences;
  const [height, width] = trace.input_shape;
  if (trace.mode === "adaptive_avg" && trace.output_shape[0] === 1 && trace.output_shape[1] === 1) {
    sentences.push(`Here the ${height * width} values of the ${sizeText(trace.input_shape)} input become one, their mean ${formatNumber(trace.output[0][0])}; backward, each cell gets 1/${height * width} of the gradient.`);
  } else {
    sentences.push("Load the preset “Global average pooling (output 1 × 1)” to see it.");
  }
  return sentences;
}

function adaptivePlacement(trace, selected) {
  const sentences = ["Adaptive pooling is given the output size, not a window: along each axis, window i of Out over In lines spans lines ⌊i·In/Out⌋ up to (not including) ⌈(i+1)·In/Out⌉. When Out divides In the windows tile the input exactly; otherwise their sizes differ by one and neighbours share a line, so some cells lie in two windows (marked ×n)."];
  if (!trace || !isAdaptive(trace)) {
    sentences.push("Pick adaptive max or adaptive average (or the preset “Adaptive 5 × 5 → 3 × 3”) to see windows that change size.");
    return sentences;
  }
  const spans = (bounds) => bounds.map(([start, end]) => `[${start}, ${end})`).join(", ");
  sentences.push(`Here the rows go ${trace.input_shape[0]} into ${trace.output_shape[0]}: ${spans(trace.window_bounds.rows)}; the columns ${trace.input_shape[1]} into ${trace.output_shape[1]}: ${spans(trace.window_bounds.cols)}.`);
  if (selected) sentences.push(`Output ${cellName(selected)}'s window is ${sizeText(windowSize(trace, selected))} (${windowText(trace, selected)}).`);
  return sentences;
}

function unpooling(state, trace) {
  const sentences = ["MaxUnpool2d is max pooling's partial inverse: it puts each output value back at its saved index and fills the rest with zeros. It routes values the way the backward pass routes gradients, with one difference: where two outputs chose the same cell, unpooling writes one value there, while the gradient adds the two."];
  if (!trace) return sentences;
  if (!trace.unpooled) {
    sentences.push(trace.argmax && !(trace.mode === "lp")
      ? "Turn on Unpooling to see max_unpool2d(out, indices) beside the input gradient."
      : "Unpooling needs the indices of a max mode: pick max or adaptive max and turn on Unpooling.");
    return sentences;
  }
  sentences.push(unpoolText(trace));
  return sentences;
}

function lpPooling(trace, selected) {
  const sentences = ["LP pooling outputs (the sum over the window of x^p)^(1/p). With p = 1 it is the window's sum of x, the average times the window's cell count (so average pooling up to scale); as p grows the largest |x| dominates, and p = ∞ is max pooling of |x|. PyTorch computes it as an average pool of x^p, times the cell count, to the power 1/p."];
  if (!trace || trace.mode !== "lp") {
    sentences.push("Pick LP in the mode list and try p = 1, 2, 8 and Infinity on the same input.");
    return sentences;
  }
  const p = normText(decodeNumber(trace.norm_type));
  if (selected) {
    const [i, j] = selected;
    sentences.push(`Here with p = ${p}, output ${cellName(selected)} = ${formatNumber(trace.output[i][j])}, over the window ${windowText(trace, selected)}.`);
  }
  return sentences;
}

function renderLesson(container, blocks) {
  const sections = blocks.map(({ topic, title, sentences }) => {
    const section = document.createElement("section");
    section.className = "lesson-block";
    section.dataset.topic = topic;
    const heading = document.createElement("h3");
    heading.textContent = title;
    const text = document.createElement("p");
    text.textContent = sentences.join(" ");
    section.append(heading, text);
    return section;
  });
  container.replaceChildren(...sections);
}
return Object.freeze({ lessonBlocks, renderLesson });
})();

// web/widget/markup.js
const $widget_markup = (() => {
// The widget's markup: what mount() draws into its element, the same for every host
// (index.html, <pool-grad>). Its ids are the DOM contract (docs/design.md); they are unique
// within the tree the widget is drawn in (the page, or an element's shadow root); a widget
// drawn beside another in one tree (two notebook widgets) makes its own (separateIds). Each
// part a host may switch off carries data-part.

// #status, for a host that does not place its own (index.html does, so that disk-check.js
// can speak before any module loads).
const STATUS_MARKUP = `
<div id="status" role="status" data-state="loading">
  <span id="status-text">Loading Python in your browser…</span>
  <progress id="boot-progress" aria-label="Loading progress"></progress>
</div>
`;

const WIDGET_MARKUP = `
<div class="view-switch">
  <label for="view">View</label>
  <select id="view" name="view">
    <option value="pool">Pooling layer</option>
    <option value="chain">Chain: conv → pool → loss</option>
    <option value="picture">Picture</option>
  </select>
</div>
<!-- The chain view (view=chain): web/chain/ draws it here when it is first opened. -->
<section id="chain" class="chain" aria-label="The chain: convolution, pooling, loss" data-view-part="chain" hidden></section>
<section class="controls" aria-label="Pooling settings" data-part="controls" data-view-part="pool picture">
  <!-- Shown on narrow screens only (style.css), where the settings start folded. -->
  <button id="controls-toggle" class="controls-toggle" type="button" aria-expanded="false" aria-controls="controls-body">
    <span class="fold-icon" aria-hidden="true"></span> Settings <span class="hint">window, mode, input</span>
  </button>
  <div id="controls-body" class="controls-body">
  <fieldset>
    <legend>Window</legend>
    <label for="kernel">Kernel <span class="hint">k or h,w</span></label>
    <input id="kernel" name="kernel" type="text" inputmode="text" autocapitalize="off" autocomplete="off" spellcheck="false" value="2">
    <label for="stride">Stride</label>
    <input id="stride" name="stride" type="text" inputmode="text" autocapitalize="off" autocomplete="off" spellcheck="false" value="2">
    <label for="padding">Padding</label>
    <input id="padding" name="padding" type="text" inputmode="text" autocapitalize="off" autocomplete="off" spellcheck="false" value="0">
    <label for="dilation">Dilation <span class="hint">max only</span></label>
    <input id="dilation" name="dilation" type="text" inputmode="text" autocapitalize="off" autocomplete="off" spellcheck="false" value="1">
    <label for="output-size">Output size <span class="hint">adaptive only</span></label>
    <input id="output-size" name="output-size" type="text" inputmode="text" autocapitalize="off" autocomplete="off" spellcheck="false" value="2" aria-describedby="window-reason">
    <label for="norm-type">Norm type p <span class="hint">LP only</span></label>
    <input id="norm-type" name="norm-type" type="text" inputmode="decimal" autocapitalize="off" autocomplete="off" spellcheck="false" value="2" aria-describedby="window-reason">
    <p id="window-reason" class="hint window-reason"></p>
  </fieldset>
  <fieldset>
    <legend>Pooling</legend>
    <label for="mode">Mode</label>
    <select id="mode" name="mode">
      <option value="max">max</option>
      <option value="avg">average</option>
      <option value="adaptive_max">adaptive max</option>
      <option value="adaptive_avg">adaptive average</option>
      <option value="lp">LP (power average)</option>
    </select>
    <label class="check"><input id="ceil" name="ceil" type="checkbox"> ceil_mode <span class="hint">round the size up</span></label>
    <label class="check"><input id="cip" name="cip" type="checkbox" checked> count_include_pad <span class="hint">average only</span></label>
    <label class="check strong"><input id="gradient" name="gradient" type="checkbox"> Gradient routing</label>
    <label class="check"><input id="unpool" name="unpool" type="checkbox"> Unpooling <span class="hint">max_unpool2d, max modes only</span></label>
  </fieldset>
  <fieldset data-view-part="pool">
    <legend>Input</legend>
    <label for="preset">Preset</label>
    <span class="row">
      <select id="preset" name="preset"></select>
      <!-- Shown while the random preset shows: choosing it again fires no change. -->
      <button id="preset-reroll" type="button" hidden>New random numbers</button>
    </span>
    <span class="label" id="size-label">Size</span>
    <span class="row" role="group" aria-labelledby="size-label">
      <input id="rows" name="rows" type="number" min="1" max="16" step="1" aria-label="Rows (1 to 16)">
      <span aria-hidden="true">×</span>
      <input id="cols" name="cols" type="number" min="1" max="16" step="1" aria-label="Columns (1 to 16)">
      <span class="hint">up to 16 × 16</span>
    </span>
    <details class="paste">
      <summary>Paste a matrix</summary>
      <label for="paste">One row per line; numbers separated by spaces or commas.</label>
      <textarea id="paste" name="paste" rows="4" spellcheck="false" placeholder="1 2 5 6&#10;3 4 8 7"></textarea>
      <button id="paste-apply" type="button">Use this matrix</button>
      <p id="paste-message" role="alert"></p>
    </details>
  </fieldset>
  </div>
</section>
<!-- The picture view (view=picture): web/picture/ draws it here when it is first opened. -->
<section id="picture" class="picture" aria-label="Pooling a picture" data-view-part="picture" hidden></section>

<section id="player" data-part="player" data-view-part="pool" class="player" aria-labelledby="player-title" data-stepping="false">
  <h2 id="player-title">Step through the windows</h2>
  <div class="player-bar">
    <button id="player-back" type="button"><span aria-hidden="true">◀</span> Step back</button>
    <button id="player-play" type="button" aria-pressed="false"><span class="play-icon" aria-hidden="true"></span> Play</button>
    <button id="player-forward" type="button">Step forward <span aria-hidden="true">▶</span></button>
    <button id="player-reset" type="button">Show all</button>
    <span class="player-speed">
      <label for="player-speed">Speed</label>
      <select id="player-speed">
        <option value="1600">slow</option>
        <option value="800" selected>normal</option>
        <option value="400">fast</option>
        <option value="200">very fast</option>
      </select>
    </span>
    <span id="player-progress" class="player-progress"></span>
  </div>
  <p id="player-caption" class="player-caption"></p>
  <p id="player-motion" class="hint" hidden>Play is off because your system asks for reduced motion; the step buttons still work.</p>
</section>

<section id="stage" class="stage" data-view-part="pool" aria-label="Grids">
  <div class="column">
    <div class="panel panel-input">
      <h2>Input <span id="shapes" class="shape"></span></h2>
      <p class="hint">Click a cell (or press Enter on it) to edit it. Padding is the striped ring.</p>
      <div id="input-grid" class="grid-box"></div>
    </div>
    <div class="panel panel-grad-input" data-gradient-panel hidden>
      <h2>Input gradient <span class="shape">routed back to each input cell</span></h2>
      <div id="grad-input-grid" class="grid-box"></div>
    </div>
    <div class="panel panel-unpooled" data-unpool-panel hidden>
      <h2>Unpooled <span class="shape">max_unpool2d(out, indices)</span></h2>
      <p id="unpool-note" class="hint"></p>
      <div id="unpooled-grid" class="grid-box"></div>
    </div>
  </div>
  <div class="column">
    <div class="pair">
      <div class="panel panel-output">
        <h2>Output</h2>
        <p class="hint">Tap a cell to see its window.</p>
        <div id="output-grid" class="grid-box" aria-busy="true"></div>
      </div>
      <div class="panel panel-grad-output" data-gradient-panel hidden>
        <h2>Upstream gradient</h2>
        <p class="hint">Click a cell to edit. Presets:
          <button id="grad-ones" type="button">ones</button>
          <button id="grad-count" type="button">1..n</button>
        </p>
        <div id="grad-output-grid" class="grid-box"></div>
      </div>
    </div>
    <div class="panel panel-explain">
      <p id="explanation" class="explanation"></p>
      <p id="announcer" class="visually-hidden" aria-live="polite"></p>
      <ul id="legend" class="legend" data-mode="max" aria-label="How cells are marked">
        <li><span class="swatch swatch-window" aria-hidden="true">5</span> in the selected output's window</li>
        <li data-only="max"><span class="swatch swatch-argmax" aria-hidden="true">8</span> its maximum (argmax)</li>
        <li><span class="swatch swatch-shared" aria-hidden="true">3</span> <span data-only="max">chosen by several outputs (×n)</span><span data-only="avg">in several outputs' windows (×n)</span></li>
        <li><span class="swatch swatch-pad" aria-hidden="true"><span data-only="max">-∞</span><span data-only="avg">0</span></span> padding</li>
      </ul>
      <div id="formula-box"></div>
    </div>
  </div>
</section>

<div class="teach" data-part="lesson" data-view-part="pool">
  <section id="lesson" class="panel lesson" aria-labelledby="lesson-title">
    <h2 id="lesson-title">What the grids show</h2>
    <div class="mode-toggle" role="group" aria-label="Compare max and average pooling">
      <button id="mode-max" type="button" aria-pressed="true">Max</button>
      <button id="mode-avg" type="button" aria-pressed="false">Average</button>
    </div>
    <div id="lesson-text"></div>
  </section>
  <section id="guide" class="panel guide" aria-labelledby="guide-title">
    <h2 id="guide-title">Try it</h2>
    <p id="guide-progress" class="hint"></p>
    <ol id="guide-steps" class="guide-steps"></ol>
    <button id="guide-reset" type="button">Reset progress</button>
  </section>
</div>

<section id="exercise" data-part="exercise" data-view-part="pool chain" class="panel exercise" aria-labelledby="exercise-title">
  <h2 id="exercise-title">Write it yourself</h2>
  <p class="hint">Your code runs in a Python of its own in this page and is checked against poolgrad on the lesson's examples and on cases for every rule. The first case it gets wrong is shown with its wrong cells marked: a pooling exercise's in the pooling view's grids, a chain exercise's here, below the result.</p>
  <label for="exercise-pick">Exercise</label>
  <select id="exercise-pick" class="exercise-pick" name="exercise-pick">
    <option value="forward">max_pool2d: the forward pass (NumPy)</option>
    <option value="backward">max_pool2d_backward: the backward pass (lists)</option>
    <option value="conv2d_backward">conv2d_backward: dL/dW and dL/dX of one channel (NumPy)</option>
    <option value="mse_loss_backward">mse_loss_backward: where the chain's gradient starts (NumPy)</option>
  </select>
  <p id="exercise-task" class="exercise-task"></p>
  <label for="exercise-code">Your code</label>
  <p id="exercise-keys" class="hint">Tab indents and Shift+Tab unindents. To leave the editor with the keyboard, press Escape, then Tab. Your code is kept in this browser.</p>
  <textarea id="exercise-code" class="exercise-code" name="exercise-code" rows="16" spellcheck="false" autocapitalize="off" autocomplete="off" autocorrect="off" wrap="off" aria-describedby="exercise-task exercise-keys"></textarea>
  <div class="exercise-buttons">
    <button id="exercise-run" type="button" class="primary">Run</button>
    <button id="exercise-reset" type="button">Reset to the starter code</button>
  </div>
  <p id="exercise-result" class="exercise-result" role="status"></p>
  <div id="exercise-case" class="exercise-case" role="group" aria-label="The failing case: the arguments and the right answer" hidden></div>
</section>
<details id="code" data-part="code" data-view-part="pool" class="panel code-view">
  <summary>Code: take this view away</summary>
  <p class="hint">Python that rebuilds exactly this view: the input, the upstream gradient and the settings, in float64. It defines <code>out</code>, <code>indices</code> (the max modes), <code>unpooled</code> (with Unpooling on) and <code>grad_input</code> (with gradient routing on).</p>
  <div class="code-head">
    <h3>PyTorch</h3>
    <button id="copy-torch" type="button" data-copy="torch" data-what="PyTorch code" aria-label="Copy the PyTorch code">Copy</button>
  </div>
  <pre id="code-torch" class="code-text" tabindex="0"></pre>
  <div class="code-head">
    <h3>poolgrad</h3>
    <button id="copy-poolgrad" type="button" data-copy="poolgrad" data-what="poolgrad code" aria-label="Copy the poolgrad code">Copy</button>
  </div>
  <pre id="code-poolgrad" class="code-text" tabindex="0"></pre>
  <h3>Share and show</h3>
  <div class="code-actions">
    <button id="copy-link" type="button" data-copy="link" data-what="link">Copy link</button>
    <button id="copy-embed" type="button" data-copy="embed" data-what="embed code">Copy embed code</button>
    <button id="save-picture" type="button">Save picture (SVG)</button>
  </div>
  <p id="code-message" class="code-message" role="status"></p>
  <p class="hint">Link: <span id="code-link" class="code-inline"></span></p>
  <p class="hint">Embed code (an iframe for a lesson page):</p>
  <pre id="code-embed" class="code-text" tabindex="0"></pre>
</details>
`;

// The attributes that point at other elements by id.
const ID_REFERENCES = ["for", "aria-labelledby", "aria-describedby", "aria-controls"];

// A widget drawn in a tree that already holds one (two notebook widgets on a page): the ids
// its labels and descriptions point at get a suffix of their own ("kernel-2"), so that each
// points into its own widget rather than at the first widget's field. The first widget drawn
// in a tree keeps the contract's ids (#kernel, ...). Called once mount() holds every node it
// looks up by id; the ids nothing points at (the style sheet's) stay.
function separateIds(element) {
  const root = element.getRootNode();
  if (root.querySelectorAll("#kernel").length < 2) return;
  let n = 2;
  while (root.querySelector(`#kernel-${n}`)) n += 1;
  const renamed = new Map();
  for (const node of element.querySelectorAll(ID_REFERENCES.map((name) => `[${name}]`).join(","))) {
    for (const name of ID_REFERENCES.filter((name) => node.hasAttribute(name))) {
      const ids = node.getAttribute(name).trim().split(/\s+/);
      for (const id of ids) if (!renamed.has(id)) renamed.set(id, `${id}-${n}`);
      node.setAttribute(name, ids.map((id) => renamed.get(id)).join(" "));
    }
  }
  for (const [id, unique] of renamed) {
    const target = element.querySelector(`[id="${id}"]`);
    if (target) target.id = unique;
  }
}
return Object.freeze({ STATUS_MARKUP, WIDGET_MARKUP, separateIds });
})();

// web/lesson/player.js
const $lesson_player = (() => {
const { cellName, decodeNumber, formatNumber } = $widget_format;
const { gradientReceivers, termFrom, windowSamples, windowText } = $widget_trace_view;
// Step through the windows: the forward pass one output at a time, then (with the
// gradient on) the backward pass one upstream gradient at a time, all from the last trace
// (no Python call per step). The position is view state, not part of the URL hash.
//
// Positions: null = not stepping (the full view); 0 = nothing computed yet; p in 1..L =
// steps 1..p done, step p highlighted. frame() turns a position into marks; the Player
// never touches a grid cell: render.js draws the marks as part of each cell (their own
// attributes data-pending, data-partial and data-step, never the selection's), and the
// Player asks for a render whenever its position changes.


// One step per output in row-major order, forward; then the same order backward.
function playerSteps(trace, withGradient) {
  const [height, width] = trace.output_shape;
  const outputs = [];
  for (let i = 0; i < height; i += 1) for (let j = 0; j < width; j += 1) outputs.push([i, j]);
  const steps = outputs.map((output) => ({ pass: "forward", output }));
  if (withGradient) steps.push(...outputs.map((output) => ({ pass: "backward", output })));
  return steps;
}


// What the grids show after `done` backward steps: per input cell, the running sum of the
// gradients that have arrived (the final value once all have), and whether more will come.
function partialSums(trace, done) {
  const width = trace.output_shape[1];
  const arrived = ([i, j]) => i * width + j < done;
  return trace.sources.map((row, r) => row.map((sources, c) => {
    const count = sources.filter(arrived).length;
    if (count === sources.length) return { value: formatNumber(trace.grad_input[r][c]), partial: false, terms: trace.grad_terms[r][c] };
    const terms = trace.grad_terms[r][c].slice(0, count);
    const sum = terms.reduce((total, term) => total + decodeNumber(term), 0);
    return { value: formatNumber(sum), partial: true, terms };
  }));
}

// Pure: the marks and caption for one position. Marks are [grid, row, col, changes].
function frame(trace, withGradient, position) {
  const steps = playerSteps(trace, withGradient);
  const total = steps.length;
  const forwardCount = trace.output_shape[0] * trace.output_shape[1];
  const marks = [];
  const forwardDone = Math.min(position, forwardCount);
  steps.slice(forwardDone, forwardCount).forEach(({ output: [i, j] }) => {
    marks.push(["output", i, j, { pending: true, text: "", note: "not computed yet in the step-through" }]);
  });
  if (withGradient) {
    const backwardDone = Math.max(0, position - forwardCount);
    const sums = partialSums(trace, backwardDone);
    sums.forEach((row, r) => row.forEach((cell, c) => {
      if (position <= forwardCount) {
        marks.push(["grad-input", r, c, { pending: true, text: "", note: "backward pass not started yet" }]);
      } else if (cell.partial) {
        marks.push(["grad-input", r, c, { partial: true, text: cell.value, note: `${cell.value} so far in the step-through` }]);
      }
    }));
  }
  const counter = `Step ${position} of ${total}`;
  if (position === 0) return { marks, caption: `${counter}: no output computed yet. Step forward to slide the first window.` };
  const { pass, output } = steps[position - 1];
  const [i, j] = output;
  const name = cellName(output);
  if (pass === "forward") {
    marks.push(["output", i, j, { step: "current" }]);
    for (const [r, c] of windowSamples(trace, output)) marks.push(["input", r, c, { step: "window" }]);
    const where = windowText(trace, output);
    const value = formatNumber(trace.output[i][j]);
    let caption;
    if (trace.argmax) {
      const [r, c] = trace.argmax[i][j];
      marks.push(["input", r, c, { step: "argmax" }]);
      caption = `${counter}, forward: the window covers ${where}; its maximum ${value}, from cell ${cellName([r, c])}, fills output ${name}.`;
    } else if (trace.mode === "lp") {
      caption = `${counter}, forward: the window covers ${where}; (the sum of x^p)^(1/p) is ${value}, which fills output ${name}.`;
    } else {
      caption = `${counter}, forward: the window covers ${where}; its sum divided by ${trace.divisor[i][j]} is ${value}, which fills output ${name}.`;
    }
    return { marks, caption };
  }
  const backwardDone = position - forwardCount;
  const sums = partialSums(trace, backwardDone);
  marks.push(["output", i, j, { step: "current" }]);
  marks.push(["grad-output", i, j, { step: "source" }]);
  const targets = gradientReceivers(trace, output);
  for (const [r, c] of targets) marks.push(["grad-input", r, c, { step: "target" }]);
  const g = formatNumber(trace.grad_output[i][j]);
  const holding = ([r, c]) => {
    const { terms, value, partial } = sums[r][c];
    const text = terms.length > 1 ? `${terms.map(formatNumber).join(" + ")} = ${value}` : value;
    return partial ? `${text} so far` : text;
  };
  let caption;
  if (trace.argmax) {
    const [r, c] = targets[0];
    caption = `${counter}, backward: output ${name} sends its upstream gradient ${g} to cell ${cellName([r, c])}, its maximum, which now holds ${holding([r, c])}.`;
  } else {
    const share = formatNumber(termFrom(trace, targets[0], output));
    const overlapping = targets.filter(([r, c]) => sums[r][c].terms.length > 1);
    caption = trace.mode === "lp"
      ? `${counter}, backward: output ${name} sends shares of its upstream gradient ${g} to the ${targets.length} cells of its window (${share} to the first), each by its |x|^(p−1).`
      : `${counter}, backward: output ${name} splits its upstream gradient ${g} into ${share} for each of the ${targets.length} cells of its window.`;
    if (overlapping.length > 0) caption += ` Cell ${cellName(overlapping[0])} lies in an earlier window too and now holds ${holding(overlapping[0])}.`;
  }
  return { marks, caption };
}

const IDLE_CAPTION = "Press Play, or step forward, to compute the outputs one window at a time; with Gradient routing on, the backward pass follows.";

// A step-through position's marks as render.js draws them: per "grid:row,col", one change
// ({pending, partial, step, text, notes}), later marks on a cell overriding earlier ones
// and notes adding up, in the order frame() lists them.
function marksByCell(marks) {
  const cells = new Map();
  for (const [grid, row, col, { note, ...change }] of marks) {
    const key = `${grid}:${row},${col}`;
    const merged = { ...cells.get(key), ...change };
    merged.notes = [...(cells.get(key)?.notes ?? []), ...(note ? [note] : [])];
    cells.set(key, merged);
  }
  return cells;
}

class Player {
  // elements: box, play, back, forward, reset, speed, progress, caption, motionNote;
  // redraw(): render the page again (its grids draw this.marks()); announce(text) speaks
  // a step taken by hand.
  constructor(elements, redraw, announce) {
    this.elements = elements;
    this.redraw = redraw;
    this.announce = announce;
    this.trace = null;
    this.withGradient = false;
    this.total = 0;
    this.position = null;
    this.current = null;
    this.timer = null;
    this.reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
    this.reducedMotion.addEventListener("change", () => {
      if (this.reducedMotion.matches) this.pause();
      this.draw();
    });
    elements.play.addEventListener("click", () => (this.timer ? this.pause() : this.play()));
    // Back, forward and Show all use aria-disabled, not disabled, so the button keeps
    // the focus when it reaches an end.
    const usable = (button) => button.getAttribute("aria-disabled") !== "true";
    elements.back.addEventListener("click", () => usable(elements.back) && this.step(-1));
    elements.forward.addEventListener("click", () => usable(elements.forward) && this.step(1));
    elements.reset.addEventListener("click", () => {
      if (!usable(elements.reset)) return;
      this.pause();
      this.moveTo(null);
    });
    elements.speed.addEventListener("change", () => {
      if (this.timer) this.startTimer();
    });
  }

  // Called by every render before the grids are drawn, with the current trace (null if
  // there is none): a new trace or gradient setting starts over from the full view.
  sync(trace, withGradient) {
    const usable = Boolean(trace) && (!withGradient || trace.grad_input !== undefined);
    if (trace !== this.trace || (usable && withGradient !== this.withGradient)) {
      this.pause();
      this.trace = trace;
      this.withGradient = usable && withGradient;
      this.total = trace ? playerSteps(trace, this.withGradient).length : 0;
      this.position = null;
      this.current = null;
    }
  }

  // This position's marks for render.js (marksByCell), or null when not stepping; the
  // same object until the position or the trace changes.
  marks() {
    return this.current?.cells ?? null;
  }

  step(delta) {
    this.pause();
    this.moveBy(delta);
    this.announce(this.elements.caption.textContent);
  }

  moveBy(delta) {
    if (!this.trace) return;
    const from = this.position ?? (delta > 0 ? -1 : this.total + 1);
    this.moveTo(Math.max(0, Math.min(this.total, from + delta)));
  }

  moveTo(position) {
    this.position = position;
    if (position === null) {
      this.current = null;
    } else {
      const { marks, caption } = frame(this.trace, this.withGradient, position);
      this.current = { cells: marksByCell(marks), caption };
    }
    this.redraw();
  }

  play() {
    if (!this.trace || this.reducedMotion.matches) return;
    this.startTimer();
    if (this.position === null || this.position === this.total) this.moveTo(0);
    else this.draw();
  }

  startTimer() {
    clearInterval(this.timer);
    this.timer = setInterval(() => {
      this.moveBy(1);
      if (this.position === this.total) this.pause();
    }, Number(this.elements.speed.value));
  }

  pause() {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    this.draw();
  }

  // The player's own controls and caption (the grids are render.js's).
  draw() {
    const { elements } = this;
    const stepping = this.trace !== null && this.position !== null;
    elements.box.dataset.stepping = String(stepping);
    let caption = this.trace ? IDLE_CAPTION : "The step-through is available when the output is shown.";
    if (stepping) caption = this.current.caption;
    const playing = this.timer !== null;
    elements.play.setAttribute("aria-pressed", String(playing));
    elements.play.disabled = !this.trace || this.reducedMotion.matches;
    elements.back.setAttribute("aria-disabled", String(!this.trace || this.position === 0));
    elements.forward.setAttribute("aria-disabled", String(!this.trace || this.position === this.total));
    elements.reset.setAttribute("aria-disabled", String(!stepping));
    elements.motionNote.hidden = !this.reducedMotion.matches;
    elements.progress.textContent = stepping ? `Step ${this.position} of ${this.total}` : "";
    if (elements.caption.textContent !== caption) elements.caption.textContent = caption;
  }
}
return Object.freeze({ playerSteps, frame, marksByCell, Player });
})();

// web/exercise/exercise.js: left out
const $exercise_exercise = Object.freeze({ EXERCISES() { throw new Error("web/exercise/exercise.js is not in the notebook bundle (the exercise panel runs learner code in the site's workers: a notebook has poolgrad.check)"); }, parseAnswer() { throw new Error("web/exercise/exercise.js is not in the notebook bundle (the exercise panel runs learner code in the site's workers: a notebook has poolgrad.check)"); }, caseState() { throw new Error("web/exercise/exercise.js is not in the notebook bundle (the exercise panel runs learner code in the site's workers: a notebook has poolgrad.check)"); }, caseGrids() { throw new Error("web/exercise/exercise.js is not in the notebook bundle (the exercise panel runs learner code in the site's workers: a notebook has poolgrad.check)"); }, panelMarks() { throw new Error("web/exercise/exercise.js is not in the notebook bundle (the exercise panel runs learner code in the site's workers: a notebook has poolgrad.check)"); }, resultText() { throw new Error("web/exercise/exercise.js is not in the notebook bundle (the exercise panel runs learner code in the site's workers: a notebook has poolgrad.check)"); }, indent() { throw new Error("web/exercise/exercise.js is not in the notebook bundle (the exercise panel runs learner code in the site's workers: a notebook has poolgrad.check)"); }, dedent() { throw new Error("web/exercise/exercise.js is not in the notebook bundle (the exercise panel runs learner code in the site's workers: a notebook has poolgrad.check)"); }, newline() { throw new Error("web/exercise/exercise.js is not in the notebook bundle (the exercise panel runs learner code in the site's workers: a notebook has poolgrad.check)"); }, ExerciseRunner() { throw new Error("web/exercise/exercise.js is not in the notebook bundle (the exercise panel runs learner code in the site's workers: a notebook has poolgrad.check)"); }, storageKey() { throw new Error("web/exercise/exercise.js is not in the notebook bundle (the exercise panel runs learner code in the site's workers: a notebook has poolgrad.check)"); }, mountExercise() { throw new Error("web/exercise/exercise.js is not in the notebook bundle (the exercise panel runs learner code in the site's workers: a notebook has poolgrad.check)"); }, mismatchMarks() { throw new Error("web/exercise/exercise.js is not in the notebook bundle (the exercise panel runs learner code in the site's workers: a notebook has poolgrad.check)"); }, shownPair() { throw new Error("web/exercise/exercise.js is not in the notebook bundle (the exercise panel runs learner code in the site's workers: a notebook has poolgrad.check)"); } });

// web/exercise/marks.js
const $exercise_marks = (() => {
const { decodeNumber, formatNumber } = $widget_format;
// The marks of wrong cells that render.js draws (data-mismatch), from exercise_check's
// mismatches ([{grid, row, col, expected, got}]): the exercise panel's, and a host's
// (the notebook's poolgrad.check), through mount's showMismatches.


// A wrong cell's two values as text: the grids' 4 decimals, or every digit when 4
// decimals would show the same number twice (an unrounded 0.66666… against 0.6667).
function shownPair(expected, got) {
  const pair = { expected: formatNumber(expected), got: formatNumber(got) };
  if (pair.expected !== pair.got) return pair;
  return { expected: String(decodeNumber(expected)), got: String(decodeNumber(got)) };
}

// The marks render.js draws: "grid:row,col" -> {expected, got} as text.
function mismatchMarks(mismatches) {
  return new Map(mismatches.map((item) => [`${item.grid}:${item.row},${item.col}`, shownPair(item.expected, item.got)]));
}
return Object.freeze({ shownPair, mismatchMarks });
})();

// web/chain/presets.js
const $chain_presets = (() => {
const { CHAIN_CAPSTONE } = $chain_keys;
const { lastOutputShape } = $chain_request;
// The chain view's presets (#chain-preset): whole views of the lesson (its conv example,
// the capstone, a 3 × 3 pooling block, two filters over three channels) and the filters
// its exercises name, which replace W over the input shown. Pure; no DOM.


// The lesson's conv example (issue "The whole backward pass"): Y = [[-5,-4,0],[-10,-2,2],[0,-2,-4]].
const LESSON_X = [[3, 0, 1, 2, 7], [1, 5, 8, 9, 3], [2, 7, 2, 5, 1], [0, 1, 3, 1, 7], [4, 2, 1, 6, 2]];

const FILTERS = {
  "vertical-edge": { label: "Filter: vertical edge", filter: [[1, 0, -1], [1, 0, -1], [1, 0, -1]] },
  "horizontal-edge": { label: "Filter: horizontal edge", filter: [[1, 1, 1], [0, 0, 0], [-1, -1, -1]] },
  blur: { label: "Filter: blur", filter: [[0.0625, 0.125, 0.0625], [0.125, 0.25, 0.125], [0.0625, 0.125, 0.0625]] },
  sharpen: { label: "Filter: sharpen", filter: [[0, -1, 0], [-1, 5, -1], [0, -1, 0]] },
  identity: { label: "Filter: identity", filter: [[0, 0, 0], [0, 1, 0], [0, 0, 0]] },
  random: { label: "Filter: random", filter: null },
};

const rgbPlane = (shift) => CHAIN_CAPSTONE.x[0].map((row, r) => row.map((value, c) => (value + shift * (r + c)) % 4));

// Whole views: every chain key they set (the others keep their start).
const VIEWS = {
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

const PRESET_LABELS = Object.fromEntries([...Object.entries(VIEWS), ...Object.entries(FILTERS)].map(([key, { label }]) => [key, label]));

// A random 3 × 3 filter, one decimal in [-1, 1].
const randomFilter = (random) => Array.from({ length: 3 }, () => Array.from({ length: 3 }, () => Math.round(random() * 20 - 10) / 10));

// The target fitted to the last output's shape: the values it has where they still fit,
// 0 in the new cells (a pooling or filter change may change the shape).
function fitTarget(state) {
  const [filters, rows, cols] = lastOutputShape(state);
  const fitted = Array.from({ length: filters }, (_, f) => Array.from({ length: Math.max(rows, 1) }, (_, r) => Array.from({ length: Math.max(cols, 1) }, (_, c) => state.ct[f]?.[r]?.[c] ?? 0)));
  const same = JSON.stringify(fitted) === JSON.stringify(state.ct);
  if (!same) state.ct = fitted;
  return state;
}

// The state change of preset `name`, as a mutator: a view sets its keys, a filter replaces
// W (one filter, the same slice over every input channel) and drops the bias. Either way
// learning starts over (steps=0) and the hot cell goes back to (0,0).
function presetChange(name, random = Math.random) {
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
function presetShowing(state, lastRandom) {
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
return Object.freeze({ FILTERS, VIEWS, PRESET_LABELS, fitTarget, presetChange, presetShowing });
})();

// web/chain/sentences.js
const $chain_sentences = (() => {
const { cellName, formatNumber, listCells } = $widget_format;
// The chain view's words: its title, each grid's one-line caption, the loss's formula
// with the live numbers, the sentence about the tapped cell, and the lesson text. Pure
// functions of chain_trace's answer (and the tap); every number they quote is the trace's.


const POOL_NAMES = { max: "max pool", avg: "average pool" };
const LOSS_NAMES = { mse: "MSE", l1: "L1" };
const UPSTREAM_NAMES = { ones: "all ones", ramp: "a ramp 1..n", hot: "one hot cell" };

// The Y1 cell at flat index `index` of a plane `width` wide (chain_trace's pool_indices).
const flatCell = (index, width) => [Math.floor(index / width), index % width];

const shapeOf = (planes) => [planes.length, planes[0].length, planes[0][0].length];
// The last output of the forward pass: Y2, or Y1 (after the ReLU) without pooling.
const lastOutput = (trace) => trace.pool_output ?? trace.activation_output ?? trace.conv_output;

function chainTitle(trace) {
  const [, , kh, kw] = [trace.weight.length, trace.weight[0].length, trace.weight[0][0].length, trace.weight[0][0][0].length];
  const parts = [`conv ${kh} × ${kw}`];
  if (trace.activation) parts.push("ReLU");
  if (trace.pool) parts.push(`${POOL_NAMES[trace.pool]} ${trace.pool_kernel_size[0]} × ${trace.pool_kernel_size[1]}`);
  parts.push(trace.upstream === "loss" ? LOSS_NAMES[trace.loss_function] : "made-up gradient");
  return `the chain ${parts.join(" → ")}`;
}

// How many Y1 cells got gradient from the pooling (pool_receivers > 0), of how many.
function gradientCount(trace) {
  if (!trace.pool_receivers) return null;
  const cells = trace.pool_receivers.flat(2);
  return { got: cells.filter((count) => count > 0).length, total: cells.length };
}

// Each grid's one-line caption: how it was computed.
function captions(trace, upstream) {
  const l1 = trace.loss_function === "l1";
  const k = `${trace.pool_kernel_size[0]} × ${trace.pool_kernel_size[1]}`;
  const lastName = trace.pool ? "Y2" : "Y1";
  let gradLast;
  if (trace.upstream === "loss") {
    gradLast = l1 ? `dL/d${lastName} = sign(${lastName} − T) / n` : `dL/d${lastName} = 2/n · (${lastName} − T), from the loss`;
  } else {
    gradLast = `dL/d${lastName} is made up: ${UPSTREAM_NAMES[upstream] ?? "given"}${upstream === "hot" ? " (tap a cell to move it)" : ""}`;
  }
  const routed = {
    max: `dL/dY1: each window's gradient goes to its maximum; the other cells get 0 (dashed: got nothing)`,
    avg: `dL/dY1: each window's gradient is spread evenly over its ${k} cells`,
  }[trace.pool] ?? `dL/dY1 = dL/d${lastName}: no pooling`;
  return {
    input: "X: the input (tap a cell to see the Y1 cells it feeds)",
    weight: "W: the filter (tap a weight to see the X cells it multiplies)",
    bias: "b: one bias per filter, added to every Y1 cell",
    conv: `Y1 = X ⋆ W${trace.bias ? " + b" : ""}: each cell sums its window's products`,
    relu: "ReLU(Y1) = max(Y1, 0)",
    pool: `Y2 = ${trace.pool === "max" ? "the maximum" : "the mean"} of each ${k} window of Y1 (tap a cell to see its window)`,
    target: `T: the target ${lastName} should match`,
    gradPool: gradLast,
    gradRelu: "dL/dReLU(Y1), before the ReLU's gate",
    gradConv: trace.activation ? `${routed}, times 1 where Y1 > 0 (ReLU)` : routed,
    gradWeight: "dL/dW = X ⋆ dL/dY1: each weight collects from every Y1 cell",
    gradBias: "dL/db = the sum of dL/dY1",
    gradInput: "dL/dX = full correlation of dL/dY1 with W turned 180°",
  };
}

// The loss's formula with the live numbers: "L = 1/4 · [(y − t)² + …] = value".
function lossFormula(trace) {
  const l1 = trace.loss_function === "l1";
  if (trace.upstream !== "loss") return "No loss: the gradient starts from a made-up dL/d(last output).";
  const outputs = lastOutput(trace).flat(2);
  const targets = trace.target.flat(2);
  const terms = outputs.map((value, i) => (l1
    ? `|${formatNumber(value)} − ${formatNumber(targets[i])}|`
    : `(${formatNumber(value)} − ${formatNumber(targets[i])})²`));
  const shown = terms.length > 6 ? [...terms.slice(0, 5), "…"] : terms;
  const name = l1 ? "mean |Y − T|" : "mean (Y − T)²";
  return `L = ${name} = 1/${outputs.length} · [${shown.join(" + ")}] = ${formatNumber(trace.loss)}`;
}

// "a × b + c × d": the terms of a sum, as the pool view's sentences quote them.
const products = (pairs) => {
  const shown = pairs.length > 8 ? [...pairs.slice(0, 7), null] : pairs;
  return shown.map((pair) => (pair ? `${formatNumber(pair[0])} × ${formatNumber(pair[1])}` : "…")).join(" + ");
};

// The sentence about the tapped cell (`tap`: {grid, filter, channel, row, col}); `conv`
// is the selected Y1 cell [filter, row, col] a weight's tap refers to.
function tapSentence(trace, tap, conv) {
  if (!trace || !tap) return "Tap a cell of X, W, Y1 or Y2 to see how it is connected.";
  const { row, col } = tap;
  const here = cellName([row, col]);
  const feeds = trace.connections.feeds;
  const reads = trace.connections.reads;
  const kw = trace.weight[0][0][0].length;
  if (tap.grid === "chain-input") {
    const c = tap.channel;
    const region = feeds[row][col];
    if (region.length === 0) return `X ${here} feeds no Y1 cell: the filter never reaches it, so dL/dX ${here} = 0.`;
    const pairs = [];
    for (let f = 0; f < trace.weight.length; f += 1) {
      for (const [oh, ow, i, j] of region) pairs.push([trace.grad_conv_output[f][oh][ow], trace.weight[f][c][i][j]]);
    }
    const cells = listCells(region.map(([oh, ow]) => [oh, ow]));
    return `X ${here} feeds ${region.length} Y1 cell${region.length > 1 ? "s" : ""}, ${cells} (its region P), each through another weight. `
      + `Only those cells can pass gradient back to it, so dL/dX ${here} is the sum over exactly them of dL/dY1 × the weight that touched it: `
      + `${products(pairs)} = ${formatNumber(trace.grad_input[c][row][col])}.`;
  }
  if (tap.grid === "chain-pool") {
    const f = tap.channel;
    const window = trace.pool_windows[row][col];
    const values = window.map(([r, c]) => formatNumber(lastBeforePool(trace)[f][r][c]));
    const grad = formatNumber(trace.grad_pool_output[f][row][col]);
    if (trace.pool === "max") {
      const width = trace.conv_output[0][0].length;
      const argmax = flatCell(trace.pool_indices[f][row][col], width);
      return `Y2 ${here} = ${formatNumber(trace.pool_output[f][row][col])}, the largest of its window's Y1 cells ${listCells(window)} (${values.join(", ")}). `
        + `Its gradient dL/dY2 ${here} = ${grad} goes to Y1 ${cellName(argmax)} alone; the window's other ${window.length - 1} cells get nothing from it.`;
    }
    return `Y2 ${here} = ${formatNumber(trace.pool_output[f][row][col])}, the mean of its window's Y1 cells ${listCells(window)} (${values.join(", ")}). `
      + `Its gradient ${grad} is shared evenly among those ${window.length} cells.`;
  }
  if (tap.grid === "chain-conv") {
    const [f] = [tap.channel];
    const window = reads[row][col];
    const pairs = [];
    for (let c = 0; c < trace.input.length; c += 1) {
      window.forEach(([r, cc], t) => pairs.push([trace.weight[f][c][Math.floor(t / kw)][t % kw], trace.input[c][r]?.[cc] ?? 0]));
    }
    return `Y1 ${here} sums W × X over its window, X rows ${window[0][0]}–${window.at(-1)[0]}, cols ${window[0][1]}–${window.at(-1)[1]}: `
      + `${products(pairs)}${trace.bias ? ` + b ${formatNumber(trace.bias[f])}` : ""} = ${formatNumber(trace.conv_output[f][row][col])}. `
      + `Its gradient dL/dY1 ${here} = ${formatNumber(trace.grad_conv_output[f][row][col])}.`;
  }
  if (tap.grid === "chain-weight") {
    const { filter: f, channel: c } = tap;
    const t = row * kw + col;
    const [cf, oh, ow] = conv[0] === f ? conv : [f, 0, 0];
    const [r, cc] = reads[oh][ow][t];
    const pairs = reads.flat(1).map((cells, index) => {
      const [gr, gc] = [Math.floor(index / reads[0].length), index % reads[0].length];
      const [xr, xc] = cells[t];
      return [trace.grad_conv_output[cf][gr][gc], trace.input[c][xr]?.[xc] ?? 0];
    });
    return `W ${here} multiplied X ${cellName([r, cc])} (${formatNumber(trace.input[c][r]?.[cc] ?? 0)}) for Y1 ${cellName([oh, ow])}. `
      + `It touches every Y1 cell, one X cell each, so it collects gradient from all ${pairs.length}: dL/dW ${here} = ${products(pairs)} = ${formatNumber(trace.grad_weight[f][c][row][col])}.`;
  }
  return "";
}

// What the pooling reads: Y1, or ReLU(Y1).
const lastBeforePool = (trace) => trace.activation_output ?? trace.conv_output;

// The lesson text: the two facts behind the derivation, the flipped filter, pooling's
// routing inside the chain (with the live count), learning.
function chainLessonBlocks(trace) {
  const blocks = [
    {
      topic: "one-weight",
      title: "One weight touches every output",
      sentences: ["A filter slides over the input, so each weight multiplies one input cell for every Y1 cell.",
        "Its gradient therefore collects from every Y1 cell: dL/dW = X ⋆ dL/dY1, the input correlated with the gradient."],
    },
    {
      topic: "region-p",
      title: "One input feeds only its region P",
      sentences: ["An input cell reaches only the Y1 cells whose windows cover it (its region P), each through a different weight.",
        "Its gradient is the sum over exactly those: tap an X cell to see the sum with its numbers."],
    },
    {
      topic: "flipped",
      title: "The flipped filter",
      sentences: ["Written out for every input cell at once, those sums are a full correlation of dL/dY1 with W turned 180°: the cell at the window's top left met the filter's bottom-right weight last."],
    },
  ];
  const routing = ["Inside the chain, pooling decides which Y1 cells hear from the loss at all."];
  const count = trace ? gradientCount(trace) : null;
  if (trace?.pool === "max" && count) {
    routing.push(`With max pooling only each window's winner gets gradient: here ${count.got} of the ${count.total} Y1 cells got gradient, so only their windows of X teach the filter.`);
  } else if (trace?.pool === "avg" && count) {
    routing.push(`Average pooling spreads each window's gradient evenly: ${count.got} of the ${count.total} Y1 cells got some.`);
  } else {
    routing.push("Without pooling, every Y1 cell gets its gradient straight from the upstream: the view is the lesson's conv gradient explorer.");
  }
  blocks.push({ topic: "routing", title: "Pooling routes the gradient", sentences: routing });
  blocks.push({
    topic: "learning",
    title: "Learning",
    sentences: ["Step applies W ← W − lr · dL/dW (and b ← b − lr · dL/db) and runs the chain again; the plot shows the loss before each step.",
      trace && trace.loss_history ? `After ${trace.loss_history.length - 1} step${trace.loss_history.length === 2 ? "" : "s"} the loss is ${formatNumber(trace.loss)}, from ${formatNumber(trace.loss_history[0])} at the start.` : "With a made-up gradient there is no loss to lower: Step still moves W along it."],
  });
  return blocks;
}

// The lesson's exercises, as "Try it".
const TRY_IT = [
  "An edge or blur filter: pick Filter: vertical edge, horizontal edge or blur, and watch Y1 and dL/dX change.",
  "A single hot pixel: set the gradient to start at one hot cell, tap cells of dL/dY2 to move it, and see which X cells receive it.",
  "A 3 × 3 block: pick the 3 × 3 pooling preset; only one Y1 cell in nine gets gradient.",
  "A bias: turn the bias on; dL/db is the sum of dL/dY1.",
  "L1 in place of MSE: its gradient is sign(Y − T)/n, the same size wherever Y misses T.",
];
return Object.freeze({ flatCell, lastOutput, chainTitle, gradientCount, captions, lossFormula, tapSentence, lastBeforePool, chainLessonBlocks, TRY_IT });
})();

// web/chain/rows.js
const $chain_rows = (() => {
const { GRADIENT_HUES, VALUE_HUES, magnitudeScale } = $widget_colours;
const { captions } = $chain_sentences;
// The chain view's two rows as data, read off chain_trace's answer: each panel's key, title,
// one-line caption and shape, and its grid (the planes' values, each plane's place, the
// heat map's scale and hues, the cells that got no gradient). The view draws them as tables
// (chain-view.js), Save picture as one SVG (picture.js): both show the same panels in the
// same order with the same words. Pure; no DOM.


// A plane of the input channels, of the filters, or of the weights' (filter, channel):
// key (the table's data-plane), words (added to the grid's name), caption and attributes.
const channelPlane = (several) => (c) => ({
  key: String(c), words: several ? `, channel ${c}` : "", caption: `channel ${c}`, attributes: { "data-channel": String(c) },
});
const filterPlane = (several) => (f) => ({
  key: String(f), words: several ? `, filter ${f}` : "", caption: `filter ${f}`, attributes: { "data-channel": String(f) },
});
const onePlane = (caption) => () => ({ key: "0", words: "", caption, attributes: {} });

const shapeText = (planes, names) => `${planes.length > 1 ? `${planes.length} ${names} of ` : ""}${planes[0].length} × ${planes[0][0].length}`;

// {forward: [panel], backward: [panel]}, each panel {key, title, caption, shape (or
// undefined), grid: {grid, title, planes, scaleOf, hues, plane(index), editable, zero(plane,
// r, c) (or null), attributes(plane, r, c) (or null)}}.
function chainPanels(state, trace) {
  const words = captions(trace, state.cup);
  const channels = trace.input.length > 1;
  const filters = trace.weight.length > 1;
  const valueScale = magnitudeScale([...trace.input, ...trace.conv_output, ...(trace.pool_output ?? [])]);
  const weightPlanes = trace.weight.flatMap((slices, f) => slices.map((slice, c) => ({ slice, f, c })));
  const weightPlace = (index) => {
    const { f, c } = weightPlanes[index];
    const named = [filters ? `filter ${f}` : null, channels ? `channel ${c}` : null].filter(Boolean).join(", ");
    return { key: `${f}/${c}`, words: named ? `, ${named}` : "", caption: named || "W", attributes: { "data-filter": String(f), "data-channel": String(c) } };
  };
  const values = (grid) => ({ scaleOf: valueScale, hues: VALUE_HUES, ...grid });
  const forward = [
    {
      key: "input", title: "X", caption: words.input, shape: shapeText(trace.input, "channels"),
      grid: values({ grid: "chain-input", title: "Input X", planes: trace.input, plane: channelPlane(channels), editable: true }),
    },
    {
      key: "weight", title: "W", caption: words.weight,
      shape: `${trace.weight.length} × ${trace.weight[0].length} × ${trace.weight[0][0].length} × ${trace.weight[0][0][0].length}`,
      grid: values({
        grid: "chain-weight", title: "Weight W", planes: weightPlanes.map(({ slice }) => slice), scaleOf: magnitudeScale(trace.weight.flat(1)), plane: weightPlace, editable: true,
      }),
    },
  ];
  if (trace.bias) {
    forward.push({
      key: "bias", title: "b", caption: words.bias,
      grid: values({ grid: "chain-bias", title: "Bias b", planes: [[trace.bias]], scaleOf: magnitudeScale([[trace.bias]]), plane: onePlane("b"), editable: true }),
    });
  }
  forward.push({
    key: "conv", title: "Y1", caption: words.conv, shape: shapeText(trace.conv_output, "filters"),
    grid: values({ grid: "chain-conv", title: "Convolution output Y1", planes: trace.conv_output, plane: filterPlane(filters) }),
  });
  if (trace.activation_output) {
    forward.push({
      key: "relu", title: "ReLU(Y1)", caption: words.relu,
      grid: values({ grid: "chain-relu", title: "ReLU of Y1", planes: trace.activation_output, plane: filterPlane(filters) }),
    });
  }
  if (trace.pool_output) {
    forward.push({
      key: "pool", title: "Y2", caption: words.pool, shape: shapeText(trace.pool_output, "filters"),
      grid: values({ grid: "chain-pool", title: "Pooled output Y2", planes: trace.pool_output, plane: filterPlane(filters) }),
    });
  }
  forward.push({
    key: "target", title: "T", caption: trace.upstream === "loss" ? words.target : `${words.target} (unused: the gradient is made up)`,
    grid: values({ grid: "chain-target", title: "Target T", planes: trace.target ?? state.ct, plane: filterPlane(filters), editable: true }),
  });

  const gradScale = magnitudeScale([...trace.grad_conv_output, ...(trace.grad_pool_output ?? []), ...trace.grad_input]);
  const gradients = (grid) => ({ scaleOf: gradScale, hues: GRADIENT_HUES, ...grid });
  const hot = (f, r, c) => ({ "data-hot": state.cup === "hot" && f === 0 && r === state.hot[0] && c === state.hot[1] ? "true" : undefined });
  const backward = [];
  if (trace.grad_pool_output) {
    backward.push({
      key: "grad-pool", title: "dL/dY2", caption: words.gradPool,
      grid: gradients({ grid: "chain-grad-pool", title: "Gradient dL/dY2", planes: trace.grad_pool_output, plane: filterPlane(filters), attributes: hot }),
    });
  }
  if (trace.grad_activation_output) {
    backward.push({
      key: "grad-relu", title: "dL/dReLU(Y1)", caption: trace.pool ? words.gradRelu : words.gradPool,
      grid: gradients({ grid: "chain-grad-relu", title: "Gradient at ReLU's output", planes: trace.grad_activation_output, plane: filterPlane(filters) }),
    });
  }
  backward.push({
    key: "grad-conv", title: "dL/dY1", caption: trace.pool || trace.activation ? words.gradConv : words.gradPool,
    grid: gradients({
      grid: "chain-grad-conv", title: "Gradient dL/dY1", planes: trace.grad_conv_output, plane: filterPlane(filters),
      zero: trace.pool_receivers ? (f, r, c) => trace.pool_receivers[f][r][c] === 0 : null,
      attributes: !trace.pool && state.cup === "hot" ? hot : null,
    }),
  });
  backward.push({
    key: "grad-weight", title: "dL/dW", caption: words.gradWeight,
    grid: gradients({ grid: "chain-grad-weight", title: "Gradient dL/dW", planes: trace.grad_weight.flat(1), scaleOf: magnitudeScale(trace.grad_weight.flat(1)), plane: weightPlace }),
  });
  if (trace.grad_bias) {
    backward.push({
      key: "grad-bias", title: "dL/db", caption: words.gradBias,
      grid: gradients({ grid: "chain-grad-bias", title: "Gradient dL/db", planes: [[trace.grad_bias]], scaleOf: magnitudeScale([[trace.grad_bias]]), plane: onePlane("dL/db") }),
    });
  }
  backward.push({
    key: "grad-input", title: "dL/dX", caption: words.gradInput,
    grid: gradients({ grid: "chain-grad-input", title: "Gradient dL/dX", planes: trace.grad_input, plane: channelPlane(channels) }),
  });
  return { forward, backward };
}
return Object.freeze({ chainPanels });
})();

// web/chain/picture.js
const $chain_picture = (() => {
const { INK, MARGIN, MUTED, PANEL_GAP, cellWidth, drawGrid, gridSize, svgDocument, tag, titleWidth } = $takeaway_svg_export;
const { formatNumber } = $widget_format;
const { chainPanels } = $chain_rows;
const { chainTitle, lossFormula } = $chain_sentences;
// The chain view's "Save picture": its forward row (with the loss) and its backward row, each
// panel with its title, shape and one-line caption over its grids, as one SVG file for
// slides. A pure function of (state, trace): the panels are rows.js's, the very ones the
// view draws, and the drawing is the pool view's picture's (takeaway/svg-export.js).


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
function chainPictureName(state) {
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
function chainPictureSvg(state, trace) {
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
return Object.freeze({ chainPictureName, chainPictureSvg });
})();

// web/chain/snippet.js
const $chain_snippet = (() => {
const { pythonNumber, pythonPair } = $takeaway_snippets;
const { decodeNumber } = $widget_format;
const { LOSSES, madeUpGradient } = $chain_request;
// The chain's take-away code: PyTorch that builds the same chain, takes the same steps and
// checks with autograd the numbers the view shows (as the lesson's capstone does), and the
// poolgrad call that computed them. Pure functions of the state and its trace.


// Nested lists as a Python literal, exactly the float64 values held.
const pythonList = (value) => (Array.isArray(value) ? `[${value.map(pythonList).join(", ")}]` : pythonNumber(decodeNumber(value)));

function pythonUpstream(state) {
  const made = madeUpGradient(state);
  return typeof made === "number" ? "torch.ones_like(last)" : `torch.tensor(${pythonList(made)}, dtype=torch.float64)`;
}

function chainTorchSnippet(state, trace) {
  const loss = LOSSES[state.cup] ?? null;
  const lines = [
    "import torch",
    "import torch.nn.functional as F",
    "",
    `x = torch.tensor(${pythonList(state.cx)}, dtype=torch.float64)`,
    `weight = torch.tensor(${pythonList(state.cw)}, dtype=torch.float64, requires_grad=True)`,
    state.cb ? `bias = torch.tensor(${pythonList(state.cb)}, dtype=torch.float64, requires_grad=True)` : "bias = None",
    loss ? `target = torch.tensor(${pythonList(state.ct)}, dtype=torch.float64)` : `upstream = None  # made up: dL/d(last output)`,
    `learning_rate, steps = ${pythonNumber(state.lr)}, ${state.steps}`,
    "",
    "def chain(weight, bias):",
    "    y1 = F.conv2d(x, weight, bias)",
    "    y1.retain_grad()",
    `    last = ${state.relu ? "torch.relu(y1)" : "y1"}`,
  ];
  if (state.cpool !== "none") lines.push(`    last = F.${state.cpool}_pool2d(last, ${pythonPair(state.cpk)})`);
  lines.push("    return y1, last", "");
  const objective = loss
    ? `F.${loss === "mse" ? "mse_loss" : "l1_loss"}(last, target)`
    : `(last * ${pythonUpstream(state)}).sum()  # its gradient is the made-up upstream`;
  lines.push(
    "def objective(last):",
    `    return ${objective}`,
    "",
    "params = [weight] + ([bias] if bias is not None else [])",
    "for _ in range(steps):  # W <- W - lr * dL/dW (and b), as Step does",
    "    grads = torch.autograd.grad(objective(chain(weight, bias)[1]), params)",
    "    with torch.no_grad():",
    "        for param, grad in zip(params, grads):",
    "            param -= learning_rate * grad",
    "",
    "x.requires_grad_(True)",
    "y1, last = chain(weight, bias)",
    "L = objective(last)",
    "L.backward()",
    "",
    "# The view's numbers (poolgrad.chain_trace), checked against autograd:",
    "check = lambda got, shown: torch.testing.assert_close(got, torch.tensor(shown, dtype=torch.float64), rtol=1e-9, atol=1e-12)",
    `check(y1, ${pythonList(trace.conv_output)})`,
    `check(weight.grad, ${pythonList(trace.grad_weight)})`,
    `check(y1.grad, ${pythonList(trace.grad_conv_output)})`,
    `check(x.grad, ${pythonList(trace.grad_input)})`,
  );
  if (trace.grad_bias) lines.push(`check(bias.grad, ${pythonList(trace.grad_bias)})`);
  if (loss) lines.push(`check(L, ${pythonNumber(decodeNumber(trace.loss))})`);
  lines.push('print("autograd agrees with the view")');
  return `${lines.join("\n")}\n`;
}

function chainPoolgradSnippet(state) {
  const loss = LOSSES[state.cup] ?? null;
  const args = [
    `    ${pythonList(state.cx)},`,
    `    ${pythonList(state.cw)},`,
    loss ? `    target=${pythonList(state.ct)},` : null,
    state.cb ? `    bias=${pythonList(state.cb)},` : null,
    state.relu ? '    activation="relu",' : null,
    `    pool=${state.cpool === "none" ? "None" : `"${state.cpool}"`},`,
    state.cpool === "none" ? null : `    pool_kernel_size=${pythonPair(state.cpk)},`,
    `    loss=${loss ? `"${loss}"` : "None"},`,
    loss ? null : `    grad_output=${(() => { const made = madeUpGradient(state); return typeof made === "number" ? made : pythonList(made); })()},`,
    `    learning_rate=${pythonNumber(state.lr)},`,
    `    steps=${state.steps},`,
  ].filter(Boolean);
  return `import poolgrad\n\nchain = poolgrad.chain_trace(\n${args.join("\n")}\n)\nprint(chain["loss"], chain["grad_weight"])\n`;
}
return Object.freeze({ chainTorchSnippet, chainPoolgradSnippet });
})();

// web/chain/chain-view.js
const $chain_chain_view = (() => {
const { heatColours } = $widget_colours;
const { cellName, decodeNumber, formatNumber } = $widget_format;
const { bindGridKeys, exactText } = $widget_grid_input;
const { planeTable } = $widget_render;
const { renderLesson } = $lesson_lesson;
const { InputError, parseCellValue } = $widget_state;
const { CHAIN_LIMITS } = $chain_keys;
const { PRESET_LABELS, fitTarget, presetChange, presetShowing } = $chain_presets;
const { chainRequestKey } = $chain_request;
const { chainPanels } = $chain_rows;
const { chainPictureName, chainPictureSvg } = $chain_picture;
const { saveFile } = $takeaway_code_view;
const { chainPoolgradSnippet, chainTorchSnippet } = $chain_snippet;
const { TRY_IT, chainLessonBlocks, chainTitle, flatCell, lossFormula, tapSentence } = $chain_sentences;
// The chain view: X -conv W-> Y1 (-ReLU) -pool-> Y2 -loss vs T-> L and its backward pass, drawn from chain_trace's answer; mount.js loads it the first time view=chain opens.
//
// It draws and listens inside its own section; the state stays mount's (host.change), and
// the view's own marks (the tapped cell, the Y1 cell a weight's tap refers to, the cell
// being edited, Play) are view state, never in the hash. It does no arithmetic on the
// chain: Step, Play and Reset change `steps`, and Python redoes the descent.


// The view's stylesheet, beside it (null in the notebook bundle, whose widget.css holds it).
const STYLE = null;

const MARKUP = `
<div class="chain-bar panel">
  <span class="chain-field">
    <label for="chain-preset">Preset</label>
    <select id="chain-preset" name="chain-preset"></select>
  </span>
  <span class="chain-field">
    <label for="chain-pool-mode">Pooling</label>
    <select id="chain-pool-mode" name="chain-pool-mode">
      <option value="max">max</option>
      <option value="avg">average</option>
      <option value="none">none</option>
    </select>
  </span>
  <span class="chain-field">
    <label for="chain-upstream">Gradient starts from</label>
    <select id="chain-upstream" name="chain-upstream">
      <option value="loss-mse">the loss: MSE against T</option>
      <option value="loss-l1">the loss: L1 against T</option>
      <option value="ones">made up: all ones</option>
      <option value="ramp">made up: a ramp 1..n</option>
      <option value="hot">made up: one hot cell</option>
    </select>
  </span>
  <label class="check"><input id="chain-relu" name="chain-relu" type="checkbox"> ReLU after the convolution</label>
  <label class="check"><input id="chain-bias" name="chain-bias" type="checkbox"> Bias</label>
</div>
<div class="chain-learn panel">
  <h2>Learning</h2>
  <div class="chain-learn-controls">
    <span class="chain-field">
      <label for="chain-lr">Learning rate</label>
      <input id="chain-lr" name="chain-lr" type="text" inputmode="decimal" autocomplete="off" spellcheck="false" size="6">
    </span>
    <button id="chain-step" type="button">Step</button>
    <button id="chain-play" type="button" aria-pressed="false">Play</button>
    <button id="chain-reset" type="button">Reset</button>
    <span id="chain-steps" class="hint"></span>
  </div>
  <svg id="chain-loss-plot" class="chain-plot" viewBox="0 0 240 90" role="img" aria-label="The loss over the steps"></svg>
</div>
<div class="chain-row" role="group" aria-labelledby="chain-forward-title">
  <h2 id="chain-forward-title" class="chain-row-title">Forward</h2>
  <div class="chain-panels" data-row="forward"></div>
  <div class="panel chain-loss-panel">
    <h3>Loss</h3>
    <p>L = <output id="chain-loss">…</output></p>
    <p id="chain-loss-formula" class="caption"></p>
  </div>
</div>
<div class="chain-row" role="group" aria-labelledby="chain-backward-title">
  <h2 id="chain-backward-title" class="chain-row-title">Backward</h2>
  <div class="chain-panels" data-row="backward"></div>
</div>
<div class="panel chain-explain">
  <p id="chain-explanation" class="explanation"></p>
  <p id="chain-announcer" class="visually-hidden" aria-live="polite"></p>
</div>
<details id="chain-code" class="panel code-view">
  <summary>Code: this chain in PyTorch and poolgrad</summary>
  <p class="hint">PyTorch that builds the same chain in float64, takes the same steps and checks the numbers shown here with autograd; then the poolgrad call that computed them. Save picture writes both rows, with their captions and the loss, as one SVG.</p>
  <p><button id="chain-save-picture" type="button">Save picture (SVG)</button></p>
  <p id="chain-code-message" class="code-message" role="status"></p>
  <h3>PyTorch</h3>
  <pre id="chain-code-torch" class="code-text" tabindex="0"></pre>
  <h3>poolgrad</h3>
  <pre id="chain-code-poolgrad" class="code-text" tabindex="0"></pre>
</details>
<div class="teach">
  <section class="panel lesson" aria-labelledby="chain-lesson-title">
    <h2 id="chain-lesson-title">What the chain shows</h2>
    <div id="chain-lesson"></div>
  </section>
  <section class="panel guide" aria-labelledby="chain-try-title">
    <h2 id="chain-try-title">Try it</h2>
    <ul id="chain-try" class="chain-try"></ul>
  </section>
</div>
`;

// The grids that take edits, and what an edit changes (the state's key).
const EDIT_NAMES = { "chain-input": "X", "chain-weight": "W", "chain-target": "T", "chain-bias": "b" };
const TAPPABLE = new Set(["chain-input", "chain-weight", "chain-conv", "chain-pool"]);
const PLAY_DELAY_MS = 120;
const PLAY_WITHOUT_LOSS = 20;

const node = (tag, attributes = {}, text) => {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined && value !== null) made.setAttribute(name, value);
  if (text !== undefined) made.textContent = text;
  return made;
};

// A cell's place: its grid and its plane ("f/c" for the weights, the channel or filter else).
const placeKey = (grid, plane, row, col) => `${grid}|${plane}|${row},${col}`;

function mountChain(section, host) {
  section.innerHTML = MARKUP;
  if (STYLE) section.prepend(node("link", { rel: "stylesheet", href: STYLE }));
  const byId = (id) => section.querySelector(`#${id}`);
  const controls = {
    preset: byId("chain-preset"),
    pool: byId("chain-pool-mode"),
    upstream: byId("chain-upstream"),
    relu: byId("chain-relu"),
    bias: byId("chain-bias"),
    lr: byId("chain-lr"),
    step: byId("chain-step"),
    play: byId("chain-play"),
    reset: byId("chain-reset"),
    steps: byId("chain-steps"),
    plot: byId("chain-loss-plot"),
  };
  const rows = { forward: section.querySelector('[data-row="forward"]'), backward: section.querySelector('[data-row="backward"]') };
  const lossOutput = byId("chain-loss");
  const lossFormulaBox = byId("chain-loss-formula");
  const explanation = byId("chain-explanation");
  const announcer = byId("chain-announcer");
  for (const [value, label] of [...Object.entries(PRESET_LABELS), ["custom", "Your own numbers"]]) {
    controls.preset.append(node("option", { value, ...(value === "custom" ? { disabled: "" } : {}) }, label));
  }
  byId("chain-try").replaceChildren(...TRY_IT.map((text) => node("li", {}, text)));

  const view = {
    state: null,
    trace: null,
    // The tapped cell {grid, plane, filter, channel, row, col}, and the Y1 cell [f, r, c]
    // a weight's tap refers to.
    tap: null,
    conv: [0, 0, 0],
    focus: new Map(),
    editing: null,
    playing: false,
    playTimer: null,
    lastRandom: null,
    cells: new Map(),
  };

  const change = (mutator) => host.change(mutator);
  // A change of the start (the numbers, the settings) starts learning over.
  const restart = (mutator) => change((state) => {
    mutator(state);
    state.steps = 0;
  });

  // ---- controls ----

  controls.preset.addEventListener("change", () => {
    const name = controls.preset.value;
    stopPlay();
    view.tap = null;
    change((state) => {
      presetChange(name)(state);
      if (name === "random") view.lastRandom = state.cw[0][0];
    });
  });
  controls.pool.addEventListener("change", () => {
    view.tap = null;
    restart((state) => {
      state.cpool = controls.pool.value;
      fitTarget(state);
    });
  });
  controls.upstream.addEventListener("change", () => restart((state) => {
    state.cup = controls.upstream.value;
  }));
  controls.relu.addEventListener("change", () => restart((state) => {
    state.relu = controls.relu.checked;
  }));
  controls.bias.addEventListener("change", () => restart((state) => {
    state.cb = controls.bias.checked ? state.cw.map(() => 0) : null;
  }));
  controls.lr.addEventListener("change", () => {
    let value;
    try {
      value = Number(controls.lr.value.trim());
      if (!(value > 0 && value <= 100)) throw new InputError(`The learning rate must be a number above 0 and at most 100, like 0.01; got "${controls.lr.value.slice(0, 24)}"`, "field");
    } catch (problem) {
      controls.lr.setAttribute("aria-invalid", "true");
      host.reportError(problem.message);
      return;
    }
    controls.lr.removeAttribute("aria-invalid");
    host.reportError(null);
    change((state) => {
      state.lr = value;
    });
  });
  const stepOnce = () => change((state) => {
    state.steps = Math.min(CHAIN_LIMITS.steps, state.steps + 1);
  });
  controls.step.addEventListener("click", () => {
    stopPlay();
    stepOnce();
  });
  controls.reset.addEventListener("click", () => {
    stopPlay();
    change((state) => {
      state.steps = 0;
    });
  });
  controls.play.addEventListener("click", () => {
    if (view.playing) {
      stopPlay();
      return;
    }
    view.playing = true;
    view.playStart = view.state.steps;
    controls.play.setAttribute("aria-pressed", "true");
    controls.play.textContent = "Pause";
    continuePlay(view.trace);
  });

  // Save picture: the chain drawn now (the state and trace of the last drawing).
  byId("chain-save-picture").addEventListener("click", () => {
    const message = byId("chain-code-message");
    if (!drawnTrace || section.dataset.busy === "true") {
      message.textContent = "Nothing to save yet: the picture is saved once the chain for these settings is shown.";
      return;
    }
    const name = chainPictureName(drawnState);
    saveFile(name, chainPictureSvg(drawnState, drawnTrace), "image/svg+xml");
    message.textContent = `Saved the picture as ${name}.`;
  });

  function stopPlay() {
    view.playing = false;
    clearTimeout(view.playTimer);
    view.playTimer = null;
    controls.play.setAttribute("aria-pressed", "false");
    controls.play.textContent = "Play";
  }

  // Play takes the next step once the current one is drawn, while the loss falls (with a
  // made-up gradient: for a fixed count of steps).
  function continuePlay(trace) {
    if (!view.playing || view.playTimer !== null || !trace) return;
    const { state } = view;
    const history = trace.loss_history;
    const falling = history ? history.length < 2 || decodeNumber(history.at(-1)) < decodeNumber(history.at(-2)) : state.steps - view.playStart < PLAY_WITHOUT_LOSS;
    if (!falling || state.steps >= CHAIN_LIMITS.steps) {
      stopPlay();
      announce(history ? `Stopped after step ${state.steps}: the loss no longer falls (${formatNumber(trace.loss)}).` : `Stopped after ${state.steps} steps.`);
      return;
    }
    view.playTimer = setTimeout(() => {
      view.playTimer = null;
      if (view.playing) stepOnce();
    }, PLAY_DELAY_MS);
  }

  function announce(text) {
    announcer.textContent = text;
  }

  function syncControls(state) {
    controls.preset.value = presetShowing(state, view.lastRandom);
    controls.pool.value = state.cpool;
    controls.upstream.value = state.cup;
    controls.relu.checked = state.relu;
    controls.bias.checked = state.cb !== null;
    if (root().activeElement !== controls.lr) controls.lr.value = String(state.lr);
    controls.steps.textContent = `step ${state.steps}`;
    controls.reset.disabled = state.steps === 0;
    controls.step.disabled = state.steps >= CHAIN_LIMITS.steps;
  }

  const root = () => section.getRootNode();

  // ---- grids ----

  // The tables and panels the last drawing built, by grid and plane, and by panel: a
  // drawing of the same shapes updates them in place (render.js writes only the cells that
  // changed), so a Step or an edit costs the browser no new nodes to style and lay out.
  let drawnTables = new Map();
  let drawnPanels = new Map();
  let tables = new Map();
  let panels = new Map();

  function valueGrid({ grid, title, planes, scaleOf, hues, plane, attributes, label, editable, zero }) {
    return planes.map((values, index) => {
      const place = plane(index);
      const focus = view.focus.get(`${grid}|${place.key}`) ?? [0, 0];
      const clamped = [Math.min(focus[0], values.length - 1), Math.min(focus[1], values[0].length - 1)];
      // The title is the table's accessible name, which an update in place leaves as it was.
      const tableKey = `${grid}|${place.key}|${place.words}`;
      const table = planeTable({
        name: grid,
        title: `${title}${place.words}`,
        shape: [values.length, values[0].length],
        focus: clamped,
        describe(r, c) {
          const value = values[r][c];
          const editing = view.editing && view.editing.grid === grid && view.editing.plane === place.key && view.editing.row === r && view.editing.col === c;
          const nothing = zero?.(index, r, c);
          return {
            text: formatNumber(value),
            colours: heatColours(value, scaleOf, hues, view.scheme),
            attributes: { ...place.attributes, "data-zero": nothing ? "true" : undefined, ...attributes?.(index, r, c) },
            label: `${label ?? title}${place.words} row ${r}, col ${c}: ${formatNumber(value)}${nothing ? "; got no gradient" : ""}`,
            editor: editing ? editorFor(grid, place, r, c) : null,
          };
        },
      }, drawnTables.get(tableKey));
      tables.set(tableKey, table);
      table.dataset.plane = place.key;
      if (editable) table.dataset.editable = "true";
      return planes.length > 1 ? figure(table, place.caption) : table;
    });
  }

  const figures = new WeakMap();
  function figure(table, caption) {
    if (!figures.has(table)) {
      const box = node("figure", { class: "chain-plane" });
      box.append(node("figcaption", { class: "hint" }), table);
      figures.set(table, box);
    }
    const box = figures.get(table);
    setText(box.firstChild, caption);
    return box;
  }

  const setText = (target, text) => {
    if (target.textContent !== text) target.textContent = text;
  };
  // Puts `children` in `parent`, in order, unless they are there already.
  function placeChildren(parent, children) {
    const current = parent.children;
    if (current.length !== children.length || children.some((child, i) => current[i] !== child)) parent.replaceChildren(...children);
  }

  function editorFor(grid, place, r, c) {
    return node("input", {
      class: "cell-editor",
      type: "text",
      inputmode: "decimal",
      value: view.editing.draft,
      "aria-label": `New value for ${EDIT_NAMES[grid]}${place.words} row ${r}, col ${c}`,
      "data-editor": grid,
    });
  }

  function panel(key, title, caption, content, extra = {}) {
    if (!drawnPanels.has(key)) {
      const box = node("div", { class: "panel chain-panel", "data-panel": key });
      box.append(node("h3"), node("p", { class: "caption" }), node("div", { class: "chain-planes" }));
      drawnPanels.set(key, box);
    }
    const box = drawnPanels.get(key);
    panels.set(key, box);
    const [heading, captionBox, planes] = box.children;
    const shape = extra.shape ? node("span", { class: "shape" }, extra.shape) : null;
    if (heading.firstChild?.textContent !== title || (heading.lastElementChild?.textContent ?? null) !== (extra.shape ?? null)) {
      heading.replaceChildren(title, ...(shape ? [" ", shape] : []));
    }
    setText(captionBox, caption);
    placeChildren(planes, content);
    return box;
  }

  function drawGrids(state, trace) {
    tables = new Map();
    panels = new Map();
    const draw = ({ key, title, caption, shape, grid }) => panel(key, title, caption, valueGrid(grid), { shape });
    const { forward, backward } = chainPanels(state, trace);
    placeChildren(rows.forward, forward.map(draw));
    placeChildren(rows.backward, backward.map(draw));
    drawnTables = tables;
    drawnPanels = panels;

    view.cells = new Map();
    for (const cell of section.querySelectorAll("td[data-grid]")) {
      view.cells.set(placeKey(cell.dataset.grid, cell.closest("table").dataset.plane, cell.dataset.row, cell.dataset.col), cell);
    }
  }

  // ---- the tapped cell's marks and sentence ----

  function mark(grid, plane, row, col, attribute, note) {
    const cell = view.cells.get(placeKey(grid, plane, row, col));
    if (!cell) return;
    cell.setAttribute(attribute, "true");
    if (note) cell.setAttribute("aria-label", `${cell.getAttribute("aria-label")}; ${note}`);
  }

  function drawTap(trace) {
    const { tap } = view;
    if (!tap) return;
    mark(tap.grid, tap.plane, tap.row, tap.col, "aria-selected", "selected");
    const filters = trace.weight.length;
    const here = cellName([tap.row, tap.col]);
    if (tap.grid === "chain-input") {
      for (const [oh, ow] of trace.connections.feeds[tap.row][tap.col]) {
        for (let f = 0; f < filters; f += 1) {
          mark("chain-conv", String(f), oh, ow, "data-fed", `fed by X ${here}`);
          mark("chain-grad-conv", String(f), oh, ow, "data-fed", `sends gradient to X ${here}`);
        }
      }
      mark("chain-grad-input", tap.plane, tap.row, tap.col, "data-for-selected", `the sum for X ${here}`);
    } else if (tap.grid === "chain-pool") {
      const f = tap.channel;
      const width = trace.conv_output[0][0].length;
      const argmax = trace.pool_indices ? flatCell(trace.pool_indices[f][tap.row][tap.col], width) : null;
      for (const [r, c] of trace.pool_windows[tap.row][tap.col]) {
        const isArgmax = argmax && argmax[0] === r && argmax[1] === c;
        for (const grid of ["chain-conv", "chain-grad-conv"]) {
          mark(grid, String(f), r, c, "data-in-window", `in the window of Y2 ${here}`);
          if (isArgmax) mark(grid, String(f), r, c, "data-argmax", `maximum of Y2 ${here}`);
        }
      }
      mark("chain-grad-pool", String(f), tap.row, tap.col, "data-for-selected", `gradient of Y2 ${here}`);
    } else if (tap.grid === "chain-conv") {
      const channels = trace.input.length;
      for (const [r, c] of trace.connections.reads[tap.row][tap.col]) {
        for (let ch = 0; ch < channels; ch += 1) mark("chain-input", String(ch), r, c, "data-in-window", `read by Y1 ${here}`);
      }
      mark("chain-grad-conv", tap.plane, tap.row, tap.col, "data-for-selected", `gradient of Y1 ${here}`);
    } else if (tap.grid === "chain-weight") {
      const kw = trace.weight[0][0][0].length;
      const t = tap.row * kw + tap.col;
      const [f, oh, ow] = view.conv[0] === tap.filter ? view.conv : [tap.filter, 0, 0];
      const reads = trace.connections.reads;
      reads.forEach((line) => line.forEach((cells) => {
        const [r, c] = cells[t];
        mark("chain-input", String(tap.channel), r, c, "data-touched", `multiplied by W ${here}`);
      }));
      const [r, c] = reads[oh][ow][t];
      mark("chain-input", String(tap.channel), r, c, "data-in-window", `multiplied by W ${here} for Y1 ${cellName([oh, ow])}`);
      mark("chain-conv", String(f), oh, ow, "data-for-selected", "the selected Y1 cell");
      mark("chain-grad-weight", tap.plane, tap.row, tap.col, "data-for-selected", `the sum for W ${here}`);
    }
  }

  // ---- the loss, the plot, the lesson ----

  function drawLoss(state, trace) {
    lossOutput.textContent = trace.upstream === "loss" ? formatNumber(trace.loss) : "none";
    lossFormulaBox.textContent = lossFormula(trace);
    drawPlot(trace);
  }

  function drawPlot(trace) {
    const svg = controls.plot;
    const history = (trace.loss_history ?? []).map(decodeNumber).filter(Number.isFinite);
    const ns = "http://www.w3.org/2000/svg";
    const make = (tag, attributes) => {
      const made = document.createElementNS(ns, tag);
      for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, String(value));
      return made;
    };
    const [left, top, width, height] = [34, 8, 198, 66];
    const parts = [make("rect", { x: left, y: top, width, height, class: "plot-frame" })];
    if (history.length === 0) {
      const note = make("text", { x: left + 6, y: top + 36, class: "plot-text" });
      note.textContent = "no loss: the gradient is made up";
      parts.push(note);
      svg.setAttribute("aria-label", "No loss to plot: the gradient is made up.");
    } else {
      const high = Math.max(...history);
      const low = Math.min(0, ...history);
      const span = high - low || 1;
      const x = (i) => left + (history.length === 1 ? 0 : (i / (history.length - 1)) * width);
      const y = (v) => top + height - ((v - low) / span) * height;
      parts.push(make("polyline", { points: history.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "), class: "plot-line" }));
      parts.push(make("circle", { cx: x(history.length - 1).toFixed(1), cy: y(history.at(-1)).toFixed(1), r: 3, class: "plot-dot" }));
      for (const [value, where] of [[high, top + 4], [low, top + height]]) {
        const label = make("text", { x: left - 4, y: where, class: "plot-text", "text-anchor": "end" });
        label.textContent = formatNumber(Number(value.toPrecision(3)));
        parts.push(label);
      }
      const axis = make("text", { x: left + width, y: top + height + 13, class: "plot-text", "text-anchor": "end" });
      axis.textContent = `step ${history.length - 1}`;
      parts.push(axis);
      svg.setAttribute("aria-label", `The loss over ${history.length - 1} steps: from ${formatNumber(history[0])} to ${formatNumber(history.at(-1))}.`);
    }
    svg.replaceChildren(...parts);
  }

  // ---- taps, keys, edits ----

  function cellOf(target) {
    const cell = target.closest?.("td[data-grid]");
    if (!cell || !section.contains(cell)) return null;
    const plane = cell.closest("table").dataset.plane;
    return {
      node: cell,
      grid: cell.dataset.grid,
      plane,
      filter: cell.dataset.filter !== undefined ? Number(cell.dataset.filter) : null,
      channel: cell.dataset.channel !== undefined ? Number(cell.dataset.channel) : 0,
      row: Number(cell.dataset.row),
      col: Number(cell.dataset.col),
      editable: cell.closest("table").dataset.editable === "true",
    };
  }

  const sameCell = (a, b) => a && b && a.grid === b.grid && a.plane === b.plane && a.row === b.row && a.col === b.col;

  function tap(cell) {
    view.focus.set(`${cell.grid}|${cell.plane}`, [cell.row, cell.col]);
    if (cell.grid === "chain-grad-pool" || (cell.grid === "chain-grad-conv" && !view.trace?.pool)) {
      if (view.state.cup === "hot" && cell.channel === 0) {
        change((state) => {
          state.hot = [cell.row, cell.col];
        });
        return;
      }
    }
    if (!TAPPABLE.has(cell.grid)) {
      if (cell.editable) startEditing(cell);
      return;
    }
    if (cell.editable && sameCell(view.tap, cell)) {
      startEditing(cell);
      return;
    }
    if (cell.grid === "chain-conv") view.conv = [cell.channel, cell.row, cell.col];
    view.tap = { ...cell, node: null };
    redraw();
    const sentence = explanation.textContent;
    announce(sentence);
  }

  // The exact spelling of the value an editor starts from: the state's for X and T, the
  // trace's (after the steps) for W and b, which become the new start.
  function valueAt(cell) {
    const { state, trace } = view;
    if (cell.grid === "chain-input") return state.cx[cell.channel]?.[cell.row]?.[cell.col];
    if (cell.grid === "chain-target") return state.ct[cell.channel]?.[cell.row]?.[cell.col];
    if (cell.grid === "chain-weight") return trace?.weight[cell.filter]?.[cell.channel]?.[cell.row]?.[cell.col];
    if (cell.grid === "chain-bias") return trace?.bias?.[cell.col];
    return undefined;
  }

  function startEditing(cell, draft) {
    const value = valueAt(cell);
    if (value === undefined) return;
    const initial = exactText(value);
    view.editing = { grid: cell.grid, plane: cell.plane, filter: cell.filter, channel: cell.channel, row: cell.row, col: cell.col, draft: draft ?? initial, initial };
    redraw();
    const editor = section.querySelector("[data-editor]");
    editor?.focus();
    if (editor && draft === undefined) editor.select();
  }

  function commitEdit(editor) {
    const editing = view.editing;
    if (!editing) return;
    if (editor.value.trim() === editing.initial) {
      cancelEdit();
      return;
    }
    let value;
    try {
      value = parseCellValue(editor.value, `${EDIT_NAMES[editing.grid]} cell ${cellName([editing.row, editing.col])}`);
    } catch (problem) {
      if (!(problem instanceof InputError)) throw problem;
      host.reportError(problem.message);
      editor.setAttribute("aria-invalid", "true");
      return;
    }
    host.reportError(null);
    view.editing = null;
    const { trace } = view;
    stopPlay();
    restart((state) => {
      // W and b start over from what the steps made of them (the trace's), with the edit.
      if (editing.grid === "chain-weight" || editing.grid === "chain-bias") {
        state.cw = trace.weight.map((slices) => slices.map((slice) => slice.map((row) => row.map(decodeNumber))));
        state.cb = trace.bias ? trace.bias.map(decodeNumber) : null;
      }
      if (editing.grid === "chain-input") state.cx[editing.channel][editing.row][editing.col] = value;
      else if (editing.grid === "chain-target") state.ct[editing.channel][editing.row][editing.col] = value;
      else if (editing.grid === "chain-weight") state.cw[editing.filter][editing.channel][editing.row][editing.col] = value;
      else state.cb[editing.col] = value;
    });
    focusCell(editing);
  }

  function cancelEdit() {
    const editing = view.editing;
    view.editing = null;
    host.reportError(null);
    redraw();
    if (editing) focusCell(editing);
  }

  function focusCell({ grid, plane, row, col }) {
    const cell = view.cells.get(placeKey(grid, plane, row, col));
    // A cell redrawn in place keeps its focus: focusing it again would only cost a relayout.
    if (cell && root().activeElement !== cell) cell.focus();
  }

  section.addEventListener("click", (event) => {
    if (event.target.closest("[data-editor]")) return;
    const cell = cellOf(event.target);
    if (cell) tap(cell);
  });

  bindGridKeys(section, {
    cellOf,
    lastCell(cell) {
      const last = [...cell.node.closest("table").querySelectorAll("td[data-grid]")].at(-1);
      return [Number(last.dataset.row), Number(last.dataset.col)];
    },
    moved: (cell, place) => view.focus.set(`${cell.grid}|${cell.plane}`, place),
    activate(cell) {
      tap(cell);
      focusCell(cell);
    },
    escape(cell) {
      if (!view.tap) return;
      view.tap = null;
      redraw();
      focusCell(cell);
    },
    editable: (cell) => cell.editable,
    startEditing,
    commit: commitEdit,
    cancel: cancelEdit,
  });

  // ---- the one render ----

  let drawnTrace = null;
  let drawnState = null;
  let drawnScheme = null;

  function redraw() {
    const { state, trace } = view;
    if (!trace) return;
    const focused = cellOf(root().activeElement ?? document.body);
    drawGrids(state, trace);
    drawTap(trace);
    explanation.textContent = tapSentence(trace, view.tap, view.conv);
    if (focused && !view.editing) focusCell(focused);
  }

  function render(state, trace, info) {
    // Any other state ends an edit: the cell edited belonged to the state left.
    if (view.editing && drawnState && JSON.stringify(state) !== JSON.stringify(drawnState)) view.editing = null;
    view.state = state;
    view.scheme = info.scheme;
    syncControls(state);
    section.dataset.busy = String(info.awaiting);
    if (!trace) {
      if (info.error) stopPlay();
      if (!drawnTrace) {
        const waiting = node("p", { class: "placeholder" }, info.error ? "No chain: this combination is not valid (see the message above)." : "The chain appears when Python is ready.");
        rows.forward.replaceChildren(waiting);
        rows.backward.replaceChildren();
        lossOutput.textContent = "…";
      }
      return;
    }
    // A tap on a cell the new trace no longer has is dropped.
    if (view.tap && !(trace.connections && tapFits(view.tap, trace))) view.tap = null;
    const sameDrawing = drawnTrace === trace && drawnScheme === view.scheme && JSON.stringify(drawnState) === JSON.stringify(state) && !view.editing;
    view.trace = trace;
    if (!sameDrawing) {
      redraw();
      drawLoss(state, trace);
      renderLesson(byId("chain-lesson"), chainLessonBlocks(trace));
      byId("chain-code-torch").textContent = chainTorchSnippet(state, trace);
      byId("chain-code-poolgrad").textContent = chainPoolgradSnippet(state);
      drawnTrace = trace;
      drawnState = state;
      drawnScheme = view.scheme;
    }
    continuePlay(trace);
  }

  function tapFits(place, trace) {
    const planes = {
      "chain-input": trace.input,
      "chain-conv": trace.conv_output,
      "chain-pool": trace.pool_output,
      "chain-weight": trace.weight[place.filter ?? 0],
    }[place.grid];
    const plane = planes?.[place.channel];
    return Boolean(plane && place.row < plane.length && place.col < plane[0].length);
  }

  return {
    requestKey: chainRequestKey,
    title: chainTitle,
    render,
  };
}
return Object.freeze({ mountChain });
})();

// web/picture/decode.js
const $picture_decode = (() => {
// From a file, a paste, a drop or a URL to the RGBA bytes the picture view sends to Python.
// The browser decodes (createImageBitmap: off the page's main thread, and scaled while it
// decodes), so a huge picture never freezes the page; what a file is, and what the page
// must say about it, is read from its first bytes before anything is decoded. Every
// refusal is a PictureError with one sentence for #picture-error.

class PictureError extends Error {}

// Past this many pixels a picture is refused before it is decoded: the decoded bitmap alone
// would take 4 bytes a pixel (a 20000 × 20000 picture, 1.6 GB). Past SCALED_DECODE_PIXELS
// it is decoded straight to the size asked, off the page's thread.
const MAX_DECODED_PIXELS = 100e6;
const SCALED_DECODE_PIXELS = 16e6;
// Past this many bytes a file is refused unread.
const MAX_FILE_BYTES = 64e6;

const startsWith = (bytes, ...values) => values.every((value, i) => bytes[i] === value);
const ascii = (bytes, from, to) => String.fromCharCode(...bytes.subarray(from, to));
const u16be = (b, i) => (b[i] << 8) | b[i + 1];
const u32be = (b, i) => ((b[i] << 24) >>> 0) + (b[i + 1] << 16) + (b[i + 2] << 8) + b[i + 3];

// A JPEG's size and colour components, from its first frame header (SOFn).
function jpegFacts(bytes) {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1];
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01 || marker === 0xff) {
      at += marker === 0xff ? 1 : 2;
      continue;
    }
    const length = u16be(bytes, at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { height: u16be(bytes, at + 5), width: u16be(bytes, at + 7), components: bytes[at + 9] };
    }
    at += 2 + length;
  }
  return null;
}

// What the first bytes say: {format, width, height, notes} (width/height when the format
// says them up front), or a PictureError.
function sniff(bytes, type = "") {
  if (bytes.length === 0) throw new PictureError("The file is empty: it holds no picture.");
  const head = ascii(bytes, 0, Math.min(bytes.length, 256)).trimStart().toLowerCase();
  if (type === "image/svg+xml" || head.startsWith("<svg") || (head.startsWith("<?xml") && head.includes("<svg"))) {
    throw new PictureError("SVG is a drawing made of shapes, not pixels, so the picture view does not open it (an SVG can also run scripts); save it as PNG or JPEG and open that.");
  }
  const notes = [];
  if (startsWith(bytes, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) {
    if (bytes.length < 33 || ascii(bytes, 12, 16) !== "IHDR") throw new PictureError("The PNG file is cut short or damaged: its header is incomplete.");
    const depth = bytes[24];
    if (depth === 16) notes.push("It is a 16-bit PNG: the browser reduces its values to 8 bits (0–255).");
    return { format: "PNG", width: u32be(bytes, 16), height: u32be(bytes, 20), notes };
  }
  if (startsWith(bytes, 0xff, 0xd8, 0xff)) {
    const facts = jpegFacts(bytes);
    if (facts?.components === 4) notes.push("It is a CMYK JPEG: the browser converted its colours to RGB.");
    return { format: "JPEG", width: facts?.width, height: facts?.height, notes };
  }
  if (head.startsWith("gif87a") || head.startsWith("gif89a")) {
    if (bytes.length < 10) throw new PictureError("The GIF file is cut short or damaged: its header is incomplete.");
    const text = ascii(bytes, 0, bytes.length);
    if (text.includes("NETSCAPE2.0") || text.includes("ANIMEXTS1.0")) notes.push("It is an animated GIF: its first frame is shown.");
    return { format: "GIF", width: bytes[6] | (bytes[7] << 8), height: bytes[8] | (bytes[9] << 8), notes };
  }
  if (head.startsWith("riff") && ascii(bytes, 8, 12) === "WEBP") return { format: "WebP", notes };
  if (head.startsWith("bm")) return { format: "BMP", width: bytes[18] | (bytes[19] << 8) | (bytes[20] << 16), height: Math.abs(new DataView(bytes.buffer, bytes.byteOffset).getInt32(22, true)), notes };
  if (ascii(bytes, 4, 12) === "ftypavif") return { format: "AVIF", notes };
  throw new PictureError("This file is not a picture the page can read: open a PNG, JPEG, GIF, WebP or BMP image.");
}

// The side lengths a picture of `width` × `height` gets for a longer side of `size`: as it
// is when it fits, else scaled down keeping its aspect.
function fittedSize(width, height, size) {
  const longer = Math.max(width, height);
  if (longer <= size) return { width, height, scaled: false };
  const factor = size / longer;
  return { width: Math.max(1, Math.round(width * factor)), height: Math.max(1, Math.round(height * factor)), scaled: true };
}

// The decoded picture of a Blob: {bitmap, width, height, format, notes}. A picture larger than
// SCALED_DECODE_PIXELS (as its header says) is decoded straight to `size` (createImageBitmap's
// resize), one larger than MAX_DECODED_PIXELS refused unread.
async function decodePicture(blob, size) {
  if (blob.size === 0) throw new PictureError("The file is empty: it holds no picture.");
  if (blob.size > MAX_FILE_BYTES) throw new PictureError(`The file is ${(blob.size / 1e6).toFixed(0)} MB: the picture view opens files up to ${MAX_FILE_BYTES / 1e6} MB.`);
  const bytes = new Uint8Array(await blob.slice(0, 1 << 16).arrayBuffer());
  const facts = sniff(bytes, blob.type);
  const options = { colorSpaceConversion: "none", premultiplyAlpha: "none", imageOrientation: "from-image" };
  const pixels = facts.width && facts.height ? facts.width * facts.height : 0;
  if (pixels > MAX_DECODED_PIXELS) {
    throw new PictureError(`The picture is ${facts.width} × ${facts.height} pixels (${Math.round(pixels / 1e6)} megapixels): the picture view opens pictures up to ${MAX_DECODED_PIXELS / 1e6} megapixels; scale it down and open it again.`);
  }
  const huge = pixels > SCALED_DECODE_PIXELS;
  if (huge) {
    const fitted = fittedSize(facts.width, facts.height, size);
    Object.assign(options, { resizeWidth: fitted.width, resizeHeight: fitted.height, resizeQuality: "medium" });
  }
  let bitmap;
  try {
    bitmap = await bitmapOf(blob, options);
  } catch {
    if (huge) throw new PictureError(`The picture is ${facts.width} × ${facts.height} pixels (${Math.round(facts.width * facts.height / 1e6)} megapixels), more than this browser can decode; scale it down and open it again.`);
    throw new PictureError(`The ${facts.format} file could not be decoded: it is damaged or cut short.`);
  }
  const width = facts.width && huge ? facts.width : bitmap.width;
  const height = facts.height && huge ? facts.height : bitmap.height;
  return { bitmap, width, height, format: facts.format, notes: facts.notes };
}

// createImageBitmap(source, options). An engine that does not know imageOrientation
// "from-image" (Safari 16, WPE WebKit 2.38) refuses the options with a TypeError: it then
// decodes with its own default orientation rather than call every picture damaged.
async function bitmapOf(source, options) {
  try {
    return await createImageBitmap(source, options);
  } catch (error) {
    if (!(error instanceof TypeError) || options.imageOrientation === undefined) throw error;
    const { imageOrientation, ...known } = options;
    return createImageBitmap(source, known);
  }
}

// A 2D canvas of `width` × `height` that is not on the page: an OffscreenCanvas, or a
// detached <canvas> where the engine has none (Safari 16, WPE WebKit 2.38).
function scratchCanvas(width, height) {
  if (typeof OffscreenCanvas === "function") return new OffscreenCanvas(width, height);
  return Object.assign(document.createElement("canvas"), { width, height });
}

// The RGBA bytes of `bitmap` at its fitted size for `size`: {pixels, width, height, scaled,
// transparent}. Drawn with smoothing when scaled (area-like at high quality), pixel for
// pixel otherwise.
function pixelsOf(picture, size) {
  const fitted = fittedSize(picture.width, picture.height, size);
  const canvas = scratchCanvas(fitted.width, fitted.height);
  const context = canvas.getContext("2d", { willReadFrequently: true, colorSpace: "srgb" });
  context.imageSmoothingEnabled = fitted.scaled || picture.bitmap.width !== fitted.width;
  context.imageSmoothingQuality = "high";
  context.drawImage(picture.bitmap, 0, 0, fitted.width, fitted.height);
  const pixels = new Uint8Array(context.getImageData(0, 0, fitted.width, fitted.height).data.buffer);
  let transparent = false;
  for (let i = 3; i < pixels.length; i += 4) {
    if (pixels[i] !== 255) {
      transparent = true;
      break;
    }
  }
  return { pixels, width: fitted.width, height: fitted.height, scaled: fitted.scaled, transparent };
}

// A picture at `url` (the element's src): fetched with CORS, so a server that does not
// allow this site to read it is refused with a sentence (never a tainted canvas).
async function fetchPicture(url) {
  let response;
  try {
    response = await fetch(url, { mode: "cors", credentials: "omit" });
  } catch {
    throw new PictureError(`The picture at ${url} could not be fetched: the server does not let other sites read it (no CORS header), or it cannot be reached.`);
  }
  if (!response.ok) throw new PictureError(`The picture at ${url} could not be fetched: the server answered HTTP ${response.status}.`);
  return response.blob();
}
return Object.freeze({ PictureError, MAX_DECODED_PIXELS, SCALED_DECODE_PIXELS, MAX_FILE_BYTES, sniff, fittedSize, decodePicture, bitmapOf, scratchCanvas, pixelsOf, fetchPicture });
})();

// web/picture/snippet.js
const $picture_snippet = (() => {
const { viewTitle } = $lesson_sentences;
const { FUNCTIONS, poolingArguments, wrapArguments } = $takeaway_snippets;
// The picture view's Code panel: Python that loads the same picture file into an array of
// the same shape and pools it as the view does, in PyTorch and in poolgrad. The pooling
// call's arguments are the pool view's (takeaway/snippets.js), so both views spell a
// setting one way.


const LAYERS = { max: "MaxPool2d", avg: "AvgPool2d", lp: "LPPool2d", adaptive_max: "AdaptiveMaxPool2d", adaptive_avg: "AdaptiveAvgPool2d" };

// The lines that load `file` as the view does: RGBA laid over white, scaled so its longer
// side is at most `size` (Pillow's scaling may differ from the browser's by a level here
// and there), then the channel, as `x` of shape (C, H, W) in float64.
function loading(file, size, channel) {
  const pick = {
    rgb: "x = rgb.transpose(2, 0, 1)  # (3, H, W)",
    grey: "x = np.round(0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2])[None]  # (1, H, W)",
    r: "x = rgb[None, ..., 0]  # (1, H, W): red",
    g: "x = rgb[None, ..., 1]  # (1, H, W): green",
    b: "x = rgb[None, ..., 2]  # (1, H, W): blue",
  }[channel];
  return [
    `image = Image.open(${JSON.stringify(file)}).convert("RGBA")`,
    `image.thumbnail((${size}, ${size}))  # longer side at most ${size}, keeping the aspect`,
    'image = Image.alpha_composite(Image.new("RGBA", image.size, "white"), image)  # alpha over white',
    'rgb = np.asarray(image.convert("RGB"), dtype=np.float64)  # (H, W, 3), the file\'s 0-255 values',
    pick,
  ];
}

// {torch, poolgrad}: the two snippets for `state` (the hash's) and the picture's file name.
function pictureSnippets(state, file) {
  const repeat = Number(state.prep);
  const title = `${viewTitle(state)}, ${repeat === 1 ? "once" : `${repeat} times`}, channel ${state.pch}`;
  const args = poolingArguments(state);
  const torchCall = wrapArguments(`    out = F.${FUNCTIONS[state.mode].name}`, ["out", ...args]);
  const torch = [
    `# poolgrad's picture view, in PyTorch: ${title}.`,
    "import numpy as np",
    "import torch",
    "import torch.nn.functional as F",
    "from PIL import Image  # pip install pillow",
    "",
    ...loading(file, state.psize, state.pch),
    `x = torch.tensor(x, requires_grad=${state.grad ? "True" : "False"})`,
    "out = x",
    `for stage in range(${repeat}):`,
    torchCall,
    ...(state.grad ? ["out.backward(torch.ones_like(out))  # an upstream gradient of ones", "grad_input = x.grad"] : []),
  ].join("\n");
  const layer = wrapArguments(`layers = [poolgrad.${LAYERS[state.mode]}`, args).replace(/\)$/, `) for stage in range(${repeat})]`);
  const poolgrad = [
    `# poolgrad's picture view, in poolgrad: ${title}.`,
    "import numpy as np",
    "import poolgrad",
    "from PIL import Image  # pip install pillow",
    "",
    ...loading(file, state.psize, state.pch),
    layer,
    "out = x",
    "for layer in layers:",
    "    out = layer(out)",
    ...(state.grad ? ["grad = np.ones(out.shape)  # an upstream gradient of ones", "for layer in reversed(layers):",
      "    grad = layer.backward(grad)", "grad_input = grad"] : []),
  ].join("\n");
  return { torch, poolgrad };
}
return Object.freeze({ pictureSnippets });
})();

// web/picture/picture-view.js
const $picture_picture_view = (() => {
const { formatNumber, sizeText } = $widget_format;
const { explanationText, viewTitle } = $lesson_sentences;
const { traceRequest } = $widget_state;
const { PictureError, decodePicture, fetchPicture, pixelsOf } = $picture_decode;
const { PICTURE_SAMPLES } = $picture_keys;
const { pictureSnippets } = $picture_snippet;
// The picture view (view=picture): a picture pooled with the pool view's settings, 1 to 4
// times, its gradient of ones routed back, and one output pixel's window in numbers. It is
// loaded the first time the view opens (mount.js imports it), with its samples.
//
// Data flows one way, as in the pool view: state (the hash) + the picture's pixels ->
// Python (poolgrad.picture through the worker, run_trace's "picture" kind: the pixels go
// as bytes, the planes come back as bytes) -> draw. Nothing here computes pooling: the
// planes, the output sizes, the zoom's numbers and the gradient's share are Python's.
//
// mountPicture(section, host) draws into `section`; host: {latest(request) -> answer
// promise, change(mutator), announce(text), picture}. `picture` is optional: a picture
// the host holds (a notebook's kernel), {at(size) -> {name, width, height, original:
// [height, width], scaled} or {error}}, whose pixels the host's Python has; the request
// then goes without pixels, and the samples, the file picker, drop and paste are not
// offered. Returns {render(state), loadURL(url), destroy()}.


// Beside this module: its stylesheet and the samples' folder (both null in the notebook
// bundle, whose widget.css holds the stylesheet and whose pictures are the kernel's).
const STYLE = null;
const SAMPLES = null;

const SAMPLE_TEXT = { camera: "Camera (fine detail)", text: "Text (high contrast)", chelsea: "Chelsea the cat", coffee: "Coffee cup (colour)" };
const CHANNEL_TEXT = { rgb: "RGB, each channel pooled on its own", grey: "Grey: round(0.299 R + 0.587 G + 0.114 B)", r: "Red", g: "Green", b: "Blue" };
const CHANNEL_NAMES = { rgb: ["red", "green", "blue"], grey: ["grey"], r: ["red"], g: ["green"], b: ["blue"] };

const MARKUP = `
<h2 id="picture-title">Pooling a picture</h2>
<p class="hint picture-privacy" data-own-picture>The picture never leaves the browser: it is decoded and pooled on this device by the page's own Python, and nothing is uploaded.</p>
<div class="picture-controls">
  <div class="field" data-own-picture><label for="picture-sample">Sample</label>
    <select id="picture-sample">${PICTURE_SAMPLES.map((name) => `<option value="${name}">${SAMPLE_TEXT[name] ?? name}</option>`).join("")}<option value="own" hidden>Your picture</option></select></div>
  <div class="field" data-own-picture><label for="picture-file">Your own picture</label>
    <input id="picture-file" type="file" accept="image/*"></div>
  <div class="field"><label for="picture-size">Longer side</label>
    <select id="picture-size">${["32", "64", "128", "256"].map((n) => `<option value="${n}">${n} px</option>`).join("")}</select></div>
  <div class="field"><label for="picture-channel">Channel</label>
    <select id="picture-channel">${Object.entries(CHANNEL_TEXT).map(([value, text]) => `<option value="${value}">${text}</option>`).join("")}</select></div>
  <div class="field"><label for="picture-repeat">Repeat</label>
    <select id="picture-repeat">${[1, 2, 3, 4].map((n) => `<option value="${n}">${n} ×</option>`).join("")}</select></div>
</div>
<p class="hint"><span data-own-picture>Drop a picture on the pictures below, or paste one (Ctrl+V / ⌘V). </span>Tap the output (or focus it and use the arrow keys) to see one pixel's window in numbers.</p>
<p id="picture-error" class="picture-error" role="alert"></p>
<p id="picture-note" class="picture-note" aria-live="polite"></p>
<div id="picture-row" class="picture-row"></div>
<p id="picture-share" class="picture-share"></p>
<section class="picture-zoom panel" aria-labelledby="picture-zoom-title">
  <h3 id="picture-zoom-title">The selected pixel in numbers</h3>
  <div class="picture-zoom-grids">
    <div><h4>Its window, with a margin <span id="picture-zoom-where" class="shape"></span></h4><div id="picture-zoom-input" class="grid-box"></div></div>
    <div><h4>Output</h4><div id="picture-zoom-output" class="grid-box"></div></div>
  </div>
  <p id="picture-explanation" class="explanation"></p>
</section>
<details id="picture-code" class="panel code-view" data-own-picture>
  <summary>Code: this picture in PyTorch and poolgrad</summary>
  <p class="hint">Python that loads the same picture file into an array of the same shape and pools it as this view does (it needs Pillow to read the file). Save picture writes the input, the output and the gradient side by side as one PNG.</p>
  <p><button id="picture-save" type="button">Save picture</button></p>
  <h4>PyTorch</h4><pre><code id="picture-code-torch"></code></pre>
  <h4>poolgrad</h4><pre><code id="picture-code-poolgrad"></code></pre>
</details>
`;

// Each plane of the answer as a typed array over the transferred bytes.
function planesOf(answer) {
  const planes = {};
  for (const { name, shape, offset, dtype } of answer.picture.planes) {
    const count = shape[0] * shape[1] * shape[2];
    planes[name] = { shape, values: dtype === "uint8" ? new Uint8Array(answer.planes, offset, count) : new Float32Array(answer.planes, offset, count) };
  }
  return planes;
}

// A plane's RGBA pixels for a canvas: three channels as colour, one channel as grey (the
// colour channels tinted). The picture's own values are 0–255 already and drawn as they
// are; values beyond (LP pooling) and the gradient (`stretch`) are stretched from
// `[low, high]` to 0–255.
function imageOf({ shape: [channels, height, width], values }, channel, [low, high], stretch) {
  const image = new ImageData(width, height);
  const data = image.data;
  const plane = height * width;
  const span = high > low ? high - low : 1;
  const level = (v) => (!stretch && high <= 255 && low >= 0 ? v : ((v - low) / span) * 255);
  // One channel's gradient in the pool view's gradient green (GRADIENT_HUES, hue 160), so
  // it never reads as the picture's own values.
  const tint = stretch ? [0.2, 1, 0.75] : { r: [1, 0, 0], g: [0, 1, 0], b: [0, 0, 1] }[channel] ?? [1, 1, 1];
  for (let i = 0; i < plane; i += 1) {
    if (channels === 3) {
      data[4 * i] = level(values[i]);
      data[4 * i + 1] = level(values[plane + i]);
      data[4 * i + 2] = level(values[2 * plane + i]);
    } else {
      const v = level(values[i]);
      data[4 * i] = v * tint[0];
      data[4 * i + 1] = v * tint[1];
      data[4 * i + 2] = v * tint[2];
    }
    data[4 * i + 3] = 255;
  }
  return image;
}

function formulaText(formula) {
  if (!formula) return "placed by the output size";
  const axis = ({ n, k, s, p, d, numerator, size }) => `⌊(${n} + 2·${p} − ${d}·(${k}−1) − 1) / ${s}⌋ + 1 = ⌊${numerator}/${s}⌋ + 1 = ${size}`;
  return `rows ${axis(formula.rows)}; cols ${axis(formula.cols)}`;
}

function mountPicture(section, host) {
  section.innerHTML = MARKUP;
  if (STYLE) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = STYLE;
    section.prepend(link);
  }
  // A host's picture: nothing of the learner's own to open, no sample, no Code panel (the
  // host's own code made the picture).
  const hostPicture = host.picture ?? null;
  if (hostPicture) for (const part of section.querySelectorAll("[data-own-picture]")) part.hidden = true;
  const $ = (id) => section.querySelector(`#${id}`);
  const fields = { sample: $("picture-sample"), file: $("picture-file"), size: $("picture-size"), channel: $("picture-channel"), repeat: $("picture-repeat") };
  const errorBox = $("picture-error");
  const note = $("picture-note");
  const row = $("picture-row");
  const share = $("picture-share");
  const zoomInput = $("picture-zoom-input");
  const zoomOutput = $("picture-zoom-output");
  const zoomWhere = $("picture-zoom-where");
  const explanation = $("picture-explanation");
  const code = { torch: $("picture-code-torch"), poolgrad: $("picture-code-poolgrad") };

  // Save picture: the input, every stage and the gradient, side by side at one height,
  // each scaled by whole pixels (no smoothing), as one PNG.
  $("picture-save").addEventListener("click", () => {
    const shown = [...canvases.values()].map((entry) => entry.canvas);
    if (!shown.length) return;
    const height = Math.max(...shown.map((canvas) => canvas.height));
    const gap = 8;
    const widths = shown.map((canvas) => Math.round(canvas.width * (height / canvas.height)));
    const sheet = document.createElement("canvas");
    sheet.width = widths.reduce((sum, width) => sum + width, 0) + gap * (shown.length - 1);
    sheet.height = height;
    const context = sheet.getContext("2d");
    context.imageSmoothingEnabled = false;
    let x = 0;
    shown.forEach((canvas, index) => {
      context.drawImage(canvas, x, 0, widths[index], height);
      x += widths[index] + gap;
    });
    const link = document.createElement("a");
    link.download = "pooled-picture.png";
    link.href = sheet.toDataURL("image/png");
    link.click();
  });

  const view = {
    state: null,
    announced: null, // the selection whose sentence the screen reader last heard
    own: null, // the learner's own picture: {picture (decoded), name}
    decoded: new Map(), // sample name -> decoded picture (promise)
    pixels: null, // {key, pixels, width, height, scaled, transparent, from}
    answer: null,
    asked: null,
    destroyed: false,
    pending: 0, // work under way (a decode, a request): #picture-row is aria-busy meanwhile
  };

  // Runs `work` with #picture-row marked busy until it and every other piece of work ends
  // (the browser tests wait for that, as the learner sees the dimmed pictures).
  async function busy(work) {
    view.pending += 1;
    row.setAttribute("aria-busy", "true");
    try {
      return await work();
    } finally {
      view.pending -= 1;
      if (view.pending === 0) row.setAttribute("aria-busy", "false");
    }
  }

  // A refused file's sentence stays until the next file or sample; a refused pooling's
  // goes with the next good answer.
  function showError(text, from = "file") {
    errorBox.textContent = text;
    view.errorFrom = text ? from : null;
  }
  showError("");

  function sample(name) {
    if (!view.decoded.has(name)) {
      if (!SAMPLES) return Promise.reject(new PictureError(`The sample ${name} is not here: this view shows the picture its host gives.`));
      const url = new URL(`${name}.png`, SAMPLES);
      const loading = fetch(url).then((response) => {
        if (!response.ok) throw new PictureError(`The sample ${name} could not be loaded: the server answered HTTP ${response.status}.`);
        return response.blob();
      }).then((blob) => decodePicture(blob, 256));
      loading.catch(() => view.decoded.delete(name));
      view.decoded.set(name, loading);
    }
    return view.decoded.get(name);
  }

  // The learner's picture (a file, a drop, a paste, a URL): decoded, then shown; a refusal
  // keeps the last good picture.
  function open(blobPromise, name) {
    return busy(() => openNow(blobPromise, name));
  }

  async function openNow(blobPromise, name) {
    try {
      const blob = await blobPromise;
      const picture = await decodePicture(blob, Number(view.state?.psize ?? 128));
      view.own = { picture, name };
      showError("");
      fields.sample.value = "own";
      await refreshNow();
    } catch (error) {
      showError(error instanceof PictureError ? error.message : `The picture could not be opened: ${error.message ?? error}`);
    }
  }

  fields.file.addEventListener("change", () => {
    const [file] = fields.file.files;
    if (file) open(Promise.resolve(file), file.name);
  });
  fields.sample.addEventListener("change", () => {
    if (fields.sample.value === "own") return;
    view.own = null;
    showError("");
    host.change((state) => Object.assign(state, { pic: fields.sample.value, psel: null }));
  });
  const settingFields = [["size", "psize"], ["channel", "pch"], ["repeat", "prep"]];
  for (const [field, key] of settingFields) {
    fields[field].addEventListener("change", () => host.change((state) => Object.assign(state, { [key]: fields[field].value })));
  }
  const onDrop = (event) => {
    event.preventDefault();
    if (hostPicture) return;
    const [file] = event.dataTransfer?.files ?? [];
    if (file) open(Promise.resolve(file), file.name);
    else showError("Only a picture file can be dropped here.");
  };
  row.addEventListener("dragover", (event) => event.preventDefault());
  row.addEventListener("drop", onDrop);
  const onPaste = (event) => {
    if (section.hidden || hostPicture) return;
    const item = [...(event.clipboardData?.items ?? [])].find((entry) => entry.kind === "file");
    if (!item) return;
    event.preventDefault();
    open(Promise.resolve(item.getAsFile()), "pasted picture");
  };
  document.addEventListener("paste", onPaste);

  // The canvases: input, each stage (the last one is the output), the gradient.
  const canvases = new Map();
  function canvasFor(name, label) {
    if (!canvases.has(name)) {
      const figure = document.createElement("figure");
      figure.className = "picture-figure";
      const frame = document.createElement("div");
      frame.className = "picture-frame";
      const canvas = document.createElement("canvas");
      canvas.dataset.picture = name;
      canvas.setAttribute("role", "img");
      const outline = document.createElement("div");
      outline.className = "picture-outline";
      outline.hidden = true;
      const marker = document.createElement("div");
      marker.className = "picture-marker";
      marker.hidden = true;
      frame.append(canvas, outline, marker);
      const caption = document.createElement("figcaption");
      figure.append(frame, caption);
      canvases.set(name, { figure, canvas, caption, outline, marker });
      if (name === "output") bindOutput(canvas);
    }
    const entry = canvases.get(name);
    entry.label = label;
    return entry;
  }

  function bindOutput(canvas) {
    canvas.tabIndex = 0;
    const select = (pixel) => host.change((state) => Object.assign(state, { psel: pixel }));
    canvas.addEventListener("click", (event) => {
      const box = canvas.getBoundingClientRect();
      const col = Math.min(canvas.width - 1, Math.max(0, Math.floor(((event.clientX - box.left) / box.width) * canvas.width)));
      const r = Math.min(canvas.height - 1, Math.max(0, Math.floor(((event.clientY - box.top) / box.height) * canvas.height)));
      select([r, col]);
    });
    canvas.addEventListener("keydown", (event) => {
      const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
      const move = moves[event.key];
      if (!move) return;
      event.preventDefault();
      const [r, c] = view.state.psel ?? [0, 0];
      const start = view.state.psel === null;
      select([Math.min(canvas.height - 1, Math.max(0, r + (start ? 0 : move[0]))), Math.min(canvas.width - 1, Math.max(0, c + (start ? 0 : move[1])))]);
    });
  }

  // The pixels to send for the state: the learner's picture or the sample, at the size.
  const pixelsKey = (state) => `${hostPicture ? "host" : view.own ? `own:${view.own.name}` : `sample:${state.pic}`} ${state.psize}`;

  async function pixelsFor(state) {
    const size = Number(state.psize);
    if (hostPicture) return hostPixels(state, size);
    const from = view.own ? `own:${view.own.name}` : `sample:${state.pic}`;
    const key = pixelsKey(state);
    if (view.pixels?.key === key) return view.pixels;
    const picture = view.own ? view.own.picture : await sample(state.pic);
    view.pixels = { key, from, source: picture, ...pixelsOf(picture, size) };
    return view.pixels;
  }

  // The host's picture at the size: its sides, and no pixels (the host's Python has them).
  function hostPixels(state, size) {
    const key = pixelsKey(state);
    if (view.pixels?.key === key) return view.pixels;
    const given = hostPicture.at(size);
    if (given.error) throw new PictureError(given.error);
    const [originalHeight, originalWidth] = given.original;
    view.pixels = {
      key, from: "host", source: { width: originalWidth, height: originalHeight, name: given.name },
      pixels: null, width: given.width, height: given.height, scaled: given.scaled, transparent: false,
    };
    return view.pixels;
  }

  function requestFor(state, pixels) {
    const { x, grad_output: gradOutput, unpool, ...settings } = traceRequest({ ...state, x: [[0]], g: null });
    return {
      ...settings,
      kind: "picture",
      shape: [pixels.height, pixels.width, 4],
      channel: state.pch,
      repeat: Number(state.prep),
      gradient: state.grad,
      ...(state.psel ? { selection: state.psel } : {}),
    };
  }

  function refresh() {
    return busy(refreshNow);
  }

  async function refreshNow() {
    const state = view.state;
    if (!state || view.destroyed) return;
    let pixels;
    try {
      pixels = await pixelsFor(state);
    } catch (error) {
      showError(error instanceof PictureError ? error.message : `The picture could not be read: ${error.message ?? error}`);
      return;
    }
    // A picture opened (or a state changed) while these pixels were decoded: the newer
    // refresh asks for it.
    if (pixels.key !== pixelsKey(view.state) || state !== view.state) return;
    const request = requestFor(state, pixels);
    const json = JSON.stringify(request);
    const askKey = `${pixels.key} ${json}`;
    if (view.asked === askKey) return;
    view.asked = askKey;
    let answer;
    try {
      answer = await host.latest({ json, pixels: pixels.pixels });
    } catch {
      view.asked = null;
      return; // the page's #status says why Python is not there
    }
    if (answer.superseded || view.destroyed || view.asked !== askKey) return;
    if (answer.error) {
      showError(`Not a valid pooling of this picture: ${answer.error}`, "pooling");
      return;
    }
    view.answer = { ...answer, pixels, state, planes: planesOf(answer) };
    // How long Python took in the worker (bench_browser.py reads it beside its own clock).
    row.dataset.pythonMs = String(Math.round(answer.ms ?? 0));
    if (view.errorFrom === "pooling") showError("");
    draw();
  }

  function draw() {
    const { picture, planes, pixels, state } = view.answer;
    const settings = viewTitle(state);
    const stages = picture.stages;
    const shown = ["input", ...stages.map((_, i) => (i === stages.length - 1 ? "output" : `stage-${i + 1}`))];
    if (picture.gradient_share) shown.push("grad-input");
    const inputSide = sizeText([pixels.height, pixels.width]);
    const entries = shown.map((name, index) => {
      if (name === "input") return [name, "input", canvasFor(name, `Input, ${inputSide}`)];
      if (name === "grad-input") return [name, "grad-input", canvasFor(name, `Gradient at the input, ${inputSide}`)];
      const stage = stages[index - 1];
      const side = sizeText(stage.shape.slice(1));
      const title = stages.length === 1 ? "Output" : `${name === "output" ? "Output, stage" : "Stage"} ${index}`;
      return [name, `stage-${index}`, canvasFor(name, `${title}, ${side}`), stage];
    });
    for (const [name, entry] of canvases) {
      if (!shown.includes(name)) {
        entry.figure.remove();
        canvases.delete(name);
      }
    }
    for (const [name, plane, entry, stage] of entries) {
      const values = planes[plane];
      const [, height, width] = values.shape;
      if (entry.canvas.width !== width) entry.canvas.width = width;
      if (entry.canvas.height !== height) entry.canvas.height = height;
      entry.canvas.style.aspectRatio = `${width} / ${height}`;
      const range = picture.ranges[plane].map(Number);
      entry.canvas.getContext("2d").putImageData(imageOf(values, state.pch, name === "grad-input" ? [0, range[1]] : range, name === "grad-input"), 0, 0);
      const channels = CHANNEL_NAMES[state.pch].join(", ");
      let alt = `${entry.label} pixels, ${channels}`;
      if (stage) alt += `, after ${settings}; output size ${formulaText(stage.formula)}`;
      if (name === "grad-input") alt += `: an upstream gradient of ones routed back; the brighter, the more gradient`;
      entry.canvas.setAttribute("aria-label", alt);
      entry.caption.textContent = entry.label;
      if (stage) {
        const formula = document.createElement("small");
        formula.textContent = formulaText(stage.formula);
        entry.caption.append(document.createElement("br"), formula);
      }
      row.append(entry.figure);
    }
    const notes = [];
    const source = hostPicture ? pixels.source.name : view.own ? view.own.name : `${SAMPLE_TEXT[state.pic] ?? state.pic} (sample)`;
    const { width: originalWidth, height: originalHeight } = pixels.source;
    notes.push(pixels.scaled
      ? `${source}: scaled down from ${sizeText([originalHeight, originalWidth])} to ${inputSide} pixels (longer side ${state.psize}), keeping its aspect.`
      : `${source}: ${inputSide} pixels, used pixel for pixel.`);
    notes.push(...(pixels.source.notes ?? []));
    if (pixels.transparent) notes.push("Its transparent parts are laid over white before pooling.");
    note.textContent = notes.join(" ");
    fields.sample.value = view.own ? "own" : state.pic;
    fields.sample.querySelector('option[value="own"]').hidden = !view.own;
    fields.size.value = state.psize;
    fields.channel.value = state.pch;
    fields.repeat.value = state.prep;
    if (picture.gradient_share) {
      const { reached, pixels: total } = picture.gradient_share;
      share.textContent = `${reached} of the input's ${total} pixels (${formatNumber(Math.round((reached / total) * 1000) / 10)} %) got some gradient${state.mode === "max" ? ": the ones that won a window" : ""}.`;
      share.hidden = false;
    } else {
      share.hidden = true;
    }
    const snippets = pictureSnippets(state, view.own ? view.own.name.split("/").pop() : `${state.pic}.png`);
    code.torch.textContent = snippets.torch;
    code.poolgrad.textContent = snippets.poolgrad;
    drawZoom();
  }

  function gridTable(name, rows, cols, cell) {
    const table = document.createElement("table");
    table.className = "grid";
    table.dataset.grid = name;
    table.setAttribute("role", "grid");
    const head = document.createElement("tr");
    const corner = document.createElement("th");
    corner.setAttribute("aria-hidden", "true");
    head.append(corner);
    for (const c of cols) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = String(c);
      head.append(th);
    }
    table.append(head);
    for (const r of rows) {
      const tr = document.createElement("tr");
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = String(r);
      tr.append(th);
      for (const c of cols) {
        const td = document.createElement("td");
        td.className = "cell";
        td.setAttribute("role", "gridcell");
        td.dataset.grid = name;
        td.dataset.row = String(r);
        td.dataset.col = String(c);
        cell(td, r, c);
        tr.append(td);
      }
      table.append(tr);
    }
    return table;
  }

  function drawZoom() {
    const { picture, state } = view.answer;
    const zoom = picture.zoom;
    const last = picture.stages.length;
    const windowOn = last === 1 ? "input" : `stage-${last - 1}`;
    for (const entry of canvases.values()) {
      entry.outline.hidden = true;
      entry.marker.hidden = true;
    }
    if (!zoom) {
      zoomInput.replaceChildren();
      zoomOutput.replaceChildren();
      zoomWhere.textContent = "";
      explanation.textContent = "Tap a pixel of the output (or focus it and press an arrow key) to see its window in numbers.";
      return;
    }
    const [i, j] = zoom.selected;
    const rowsIn = zoom.window_rows[i];
    const colsIn = zoom.window_cols[j];
    const [height, width] = zoom.input_shape;
    const inside = (r, c) => r >= 0 && c >= 0 && r < height && c < width;
    const argmax = zoom.argmax?.[i]?.[j] ?? null;
    const span = (lines) => [Math.min(...lines), Math.max(...lines)];
    const [top, bottom] = span(rowsIn.filter((r) => r >= 0 && r < height));
    const [left, right] = span(colsIn.filter((c) => c >= 0 && c < width));
    const target = canvases.get(windowOn);
    if (target) {
      Object.assign(target.outline.style, {
        left: `${(left / width) * 100}%`, top: `${(top / height) * 100}%`,
        width: `${((right - left + 1) / width) * 100}%`, height: `${((bottom - top + 1) / height) * 100}%`,
      });
      target.outline.hidden = false;
    }
    const output = canvases.get("output");
    const [outH, outW] = zoom.output_shape;
    Object.assign(output.marker.style, { left: `${(j / outW) * 100}%`, top: `${(i / outH) * 100}%`, width: `${100 / outW}%`, height: `${100 / outH}%` });
    output.marker.hidden = false;
    const lines = (a, b) => Array.from({ length: b - a + 1 }, (_, k) => a + k);
    const boxRows = lines(...zoom.box.rows);
    const boxCols = lines(...zoom.box.cols);
    const windowSet = new Set(rowsIn.flatMap((r) => colsIn.map((c) => `${r},${c}`)));
    zoomInput.replaceChildren(gridTable("zoom-input", boxRows, boxCols, (td, r, c) => {
      const value = zoom.input[r][c];
      td.textContent = formatNumber(value);
      const roles = [];
      if (windowSet.has(`${r},${c}`) && inside(r, c)) {
        td.dataset.inWindow = "true";
        roles.push("in the window");
      }
      if (argmax && argmax[0] === r && argmax[1] === c) {
        td.dataset.argmax = "true";
        roles.push("the maximum");
      }
      td.setAttribute("aria-label", `Row ${r}, col ${c}: ${formatNumber(value)}${roles.length ? `; ${roles.join("; ")}` : ""}`);
    }));
    zoomOutput.replaceChildren(gridTable("zoom-output", [i], [j], (td) => {
      td.textContent = formatNumber(zoom.output[i][j]);
      td.setAttribute("aria-selected", "true");
      td.setAttribute("aria-label", `Output row ${i}, col ${j}: ${formatNumber(zoom.output[i][j])}`);
    }));
    const channel = CHANNEL_NAMES[state.pch][zoom.channel];
    zoomWhere.textContent = `(${channel} channel of ${last === 1 ? "the input" : `stage ${last - 1}`})`;
    explanation.textContent = explanationText({ sel: [i, j], grad: state.grad }, zoom);
    // A new selection is said, as the pool view says a tapped cell's sentence.
    const said = `${i},${j}`;
    if (view.announced !== said) {
      view.announced = said;
      host.announce(explanation.textContent);
    }
  }

  return {
    render(state) {
      view.state = state;
      fields.size.value = state.psize;
      fields.channel.value = state.pch;
      fields.repeat.value = state.prep;
      if (!view.own) fields.sample.value = state.pic;
      refresh();
    },
    loadURL(url) {
      open(fetchPicture(url), url);
    },
    destroy() {
      view.destroyed = true;
      document.removeEventListener("paste", onPaste);
    },
  };
}
return Object.freeze({ mountPicture });
})();

// web/widget/views.js
const $widget_views = (() => {
const { knowsKey, knowsView } = $widget_state;
// The views that load the first time they are opened (web/chain/, web/picture/): each one's
// module, which adds the view's keys to state.js's one table as it loads (its keys.js,
// registerView). A host reads a link or a model only once the views it names are here:
// viewsFor(hash) and viewOfModel(get) say which to wait for.


const MODULES = {
  chain: () => Promise.resolve($chain_chain_view),
  picture: () => Promise.resolve($picture_picture_view),
};
const loading = new Map();

// Whether `view` is one of the views loaded when first opened.
function isLoadedLater(view) {
  return Object.hasOwn(MODULES, view);
}

// The view's module (a promise), loaded once; a failed load is tried again next time. A
// module that added no keys (a host's stand-in for a view it lacks) is a failed load.
function loadView(view) {
  if (!loading.has(view)) {
    const module = MODULES[view]().then((loaded) => {
      if (!knowsView(view)) throw new Error(`its module did not add the ${view} view's keys`);
      return loaded;
    });
    loading.set(view, module);
    module.catch(() => loading.delete(view));
  }
  return loading.get(view);
}

// Loads what reading `hash` needs: the module of the view it names, then, when it still
// gives a key the table lacks, every view's (so the parse says whose view the key is, or
// that no view has it). Resolves once they are here; rejects when one could not load.
async function viewsFor(hash) {
  const body = hash.startsWith("#") ? hash.slice(1) : hash;
  const view = body.match(/(?:^|&)view=([^&]*)/)?.[1];
  if (isLoadedLater(view) && !knowsView(view)) await loadView(view);
  const keys = body.split("&").filter((part) => part !== "").map((part) => part.split("=", 1)[0]);
  if (keys.some((key) => !knowsKey(key))) await Promise.all(Object.keys(MODULES).map(loadView));
}

// The view a model's values open whose module has not loaded yet, or null.
function viewOfModel(get) {
  const view = get("view");
  return isLoadedLater(view) && !knowsView(view) ? view : null;
}
return Object.freeze({ isLoadedLater, loadView, viewsFor, viewOfModel });
})();

// web/runtime/page-traces.js: left out
const $runtime_page_traces = Object.freeze({ pageTraces() { throw new Error("web/runtime/page-traces.js is not in the notebook bundle (the page's Python in a worker: in a notebook the kernel computes every trace)"); } });

// web/widget/mount.js
const $widget_mount = (() => {
const { CodeView } = $takeaway_code_view;
const { bindControls, controlElements, fillPresetOptions, syncControls } = $widget_controls;
const { bindGridInput } = $widget_grid_input;
const { Guide, progressKey } = $lesson_guide;
const { lessonBlocks, renderLesson } = $lesson_lesson;
const { STATUS_MARKUP, WIDGET_MARKUP, separateIds } = $widget_markup;
const { Player } = $lesson_player;
const { mountExercise } = $exercise_exercise;
const { mismatchMarks } = $exercise_marks;
const { redrawPlan, renderSelection, renderView } = $widget_render;
const { explanationText, traceParameters, viewTitle } = $lesson_sentences;
const { InputError, MODEL_KEYS, defaultState, gridsKey, modelValues, requestKey, stateFromModel, switchMode, switchView } = $widget_state;
const { selectedOutput, windowCells } = $widget_trace_view;
const { isLoadedLater, loadView, viewOfModel } = $widget_views;
// mount(element, model, options): the front end's one entry. It draws the whole widget
// into `element` and keeps it in step with `model`, which owns the state, in anywidget's
// shape: get(key), set(key, value), save_changes(), on("change:key" | "change", cb), off().
// The model's keys are state.js MODEL_KEYS (poolgrad.trace()'s argument names), plus
// `error` (a host's readable refusal of what it was given: a bad link, a bad attribute).
// docs/design.md ("mount") is the contract: model keys, options, the trace source, parts.
//
// Data flows one way: model -> state (stateFromModel) -> trace source -> trace -> render.
// A learner's change makes a new state, which the view sets into the model and shows at
// once; the model's echo of it is recognised and ignored. A trace never changes the state:
// a selection the output lacks stays in the state, and every view asks trace-view's
// selectedOutput, which ignores it. A selection change never asks for a trace: the last
// one already holds every window and argmax, so a tap only re-marks a few cells. While
// Python starts, a state whose trace the build shipped is answered from that trace.
//
// Returns a handle: state(), trace() (the current one, or null), on(type, cb) for "change"
// (the state), "select" ({row, col, argmax, window}), "trace" ({state, trace}) and
// "ready"; python(), timings and exerciseTimings (test hooks); request(r) (a raw request
// to the same Python); showMismatches(mismatches) (a host's marks of wrong cells); destroy().


// The parts a host may switch off (options.parts); the grids are always there.
const PARTS = ["controls", "lesson", "player", "exercise", "code"];

let lanes = 0;

// options:
//   traces: the trace source (runtime/page-traces.js describes its shape); default the
//     page's shared Python, loaded on first use;
//   parts: {controls, lesson, player, exercise, code}, each true (default) or false;
//   status: an element holding #status-text and #boot-progress that the host placed
//     (index.html); default, the widget draws its own #status first;
//   invalid(message): the status text for a refused model (default "Not valid: …");
//   name: the widget's name among several on a page, added to its landmarks' labels;
//   scheme: the colour-scheme source, {current() -> "light" | "dark", subscribe(callback)
//     -> unsubscribe} (a notebook's theme); default, the system's (prefers-color-scheme);
//   picture: a picture the host's Python holds, for the picture view (picture-view.js
//     says its shape); default, the samples and the learner's own files.
async function mount(element, model, options = {}) {
  const traces = options.traces ?? (await Promise.resolve($runtime_page_traces)).pageTraces();
  return mountWith(element, model, { ...options, traces });
}

// The default colour-scheme source: the system's, which style.css follows too.
function systemScheme() {
  const query = window.matchMedia("(prefers-color-scheme: dark)");
  return {
    current: () => (query.matches ? "dark" : "light"),
    subscribe(callback) {
      query.addEventListener("change", callback);
      return () => query.removeEventListener("change", callback);
    },
  };
}

function mountWith(element, model, options) {
  const { traces } = options;
  const parts = Object.fromEntries(PARTS.map((part) => [part, options.parts?.[part] !== false]));
  const lane = `widget-${++lanes}`;
  element.innerHTML = (options.status ? "" : STATUS_MARKUP) + WIDGET_MARKUP;
  for (const node of element.querySelectorAll("[data-part]")) {
    if (!parts[node.dataset.part]) node.hidden = true;
  }
  // Each view's parts (data-view-part, the views it shows in): shown while one is (showView).
  const viewParts = [...element.querySelectorAll("[data-view-part]")];
  // Several widgets on a page: each one's landmarks say whose they are.
  if (options.name) {
    for (const section of element.querySelectorAll("section[aria-label]")) {
      section.setAttribute("aria-label", `${section.getAttribute("aria-label")}: ${options.name}`);
    }
    for (const section of element.querySelectorAll("section[aria-labelledby]")) {
      const title = element.querySelector(`#${section.getAttribute("aria-labelledby")}`);
      section.removeAttribute("aria-labelledby");
      section.setAttribute("aria-label", `${title.textContent}: ${options.name}`);
    }
  }
  const root = element.getRootNode();
  const byId = (id) => element.querySelector(`#${id}`) ?? options.status?.querySelector(`#${id}`)
    ?? (options.status?.id === id ? options.status : null);
  const regions = {
    inputGrid: byId("input-grid"),
    outputGrid: byId("output-grid"),
    gradOutputGrid: byId("grad-output-grid"),
    gradInputGrid: byId("grad-input-grid"),
    gradPanels: [...element.querySelectorAll("[data-gradient-panel]")],
    unpooledGrid: byId("unpooled-grid"),
    unpoolNote: byId("unpool-note"),
    unpoolPanels: [...element.querySelectorAll("[data-unpool-panel]")],
    explanation: byId("explanation"),
    legend: byId("legend"),
    formula: byId("formula-box"),
    shapes: byId("shapes"),
  };
  const stage = byId("stage");
  const viewSelect = byId("view");
  const announcer = byId("announcer");
  const statusBox = byId("status");
  const statusText = byId("status-text");
  const progressBar = byId("boot-progress");
  const controls = controlElements(element);
  const scheme = options.scheme ?? systemScheme();
  const listeners = new Map();
  const emit = (type, detail) => {
    for (const listener of listeners.get(type) ?? []) listener(detail);
  };

  const initialState = defaultState();
  const app = {
    state: initialState,
    // requestKey(state): the key of what Python computes for the state shown.
    stateKey: requestKey(initialState),
    // The last trace Python accepted (or the build shipped), its request key and the state
    // it was computed for: a state Python refuses keeps this view on screen.
    trace: null,
    traceKey: null,
    traceState: null,
    // The request key of the last answer, a trace or a refusal.
    answerKey: null,
    // "shipped" while the trace shown is the build's precomputed one, else "python".
    traceSource: null,
    traceError: null,
    modelError: null,
    controlError: null,
    // steps: null until the worker's first report says how many (the bar is indeterminate).
    boot: { ready: false, failure: null, step: 0, steps: null, message: "Starting the Python worker" },
    // mismatch: the exercise panel's marks of wrong cells, for the state it loaded.
    view: { focus: {}, editing: null, inspected: null, scheme: scheme.current(), mismatch: null },
    // What the grids show now: the `next` of the render that last drew them (redrawPlan).
    drawn: null,
    // The model's values of the state shown: the model's echo of them changes nothing.
    values: null,
    announcedReady: false,
    setting: false,
    timings: { bootMs: null, bootSteps: [], startup: null, lastTraceMs: null, lastRoundTripMs: null, lastRenderMs: null },
  };
  const mountStart = performance.now();

  // The heat map's palette follows the colour scheme (style.css does the rest).
  const unsubscribeScheme = scheme.subscribe(() => {
    if (app.view.scheme === scheme.current()) return;
    app.view.scheme = scheme.current();
    render();
  });

  const isCurrent = () => app.trace !== null && app.stateKey !== null && app.traceKey === app.stateKey;
  // Python refused the state shown: the grids keep the last view it accepted, the status
  // says why, and the grids' own edits and taps start from the view they show.
  const refused = () => app.traceError !== null && app.stateKey !== null && app.answerKey === app.stateKey && app.trace !== null;
  // The trace shown: the current one, or the kept one while the state is refused.
  const currentTrace = () => (isCurrent() || refused() ? app.trace : null);
  // The state the grids show: the kept view with the refused state's view-only parts (what
  // the request leaves out: the selection, the gradient switch).
  const shownState = () => (refused()
    ? { ...app.traceState, sel: app.state.sel, selImplicit: app.state.selImplicit, grad: app.state.grad }
    : app.state);

  // ---- the chain view (web/chain/): its module loads the first time it is opened ----
  let chain = null;
  let chainLoading = null;
  const chainHost = {
    change: (mutator) => change(mutator),
    announce: (text) => announce(text),
    reportError(text) {
      app.controlError = text;
      updateStatus();
    },
  };
  function openChain() {
    if (!chainLoading) traces.shippedFor?.("chain").then(shippedArrived);
    chainLoading ??= loadView("chain").then((module) => {
      if (destroyed) return;
      chain = module.mountChain(byId("chain"), chainHost);
      if (app.state.view === "chain") setState(app.state);
    }, (problem) => {
      app.boot.failure = `The chain view could not load: ${problem.message}`;
      render();
    });
  }
  // The request key of a state: the pooling view's (state.js), or the chain's once its
  // module is here (null until then).
  function keyFor(state) {
    if (state.view !== "chain") return requestKey(state);
    return chain ? chain.requestKey(state) : null;
  }
  const titleOf = (trace) => (trace.kind === "chain" ? chain.title(trace) : viewTitle(traceParameters(trace)));

  // ---- the picture view (web/picture/): its module and samples load when it is first opened ----
  let picture = null;
  let pictureLoading = null;
  function openPicture() {
    pictureLoading ??= loadView("picture").then((module) => {
      if (destroyed) return;
      picture = module.mountPicture(byId("picture"), {
        latest: (request) => traces.latest(request, `${lane}-picture`),
        change: (mutator) => change(mutator),
        announce: (text) => announce(text),
        picture: options.picture,
      });
      if (app.state.view === "picture") render();
    }, (problem) => {
      app.boot.failure = `The picture view could not load: ${problem.message}`;
      render();
    });
  }
  function showView(view) {
    for (const node of viewParts) {
      const hidden = !node.dataset.viewPart.split(" ").includes(view) || (node.dataset.part !== undefined && !parts[node.dataset.part]);
      if (node.hidden !== hidden) node.hidden = hidden;
    }
    if (viewSelect.value !== view) viewSelect.value = view;
  }

  function updateStatus() {
    let state;
    let text;
    let source = null;
    if (app.boot.failure) [state, text] = ["error", app.boot.failure];
    else if (app.modelError) [state, text] = ["error", app.modelError];
    else if (app.controlError) [state, text] = ["error", app.controlError];
    else if (app.traceError) [state, text] = ["error", refused() ? `${app.traceError.replace(/\.?$/, ".")} The grids show the last valid view.` : app.traceError];
    else if (!app.boot.ready) {
      const booting = app.boot.steps ? `step ${app.boot.step} of ${app.boot.steps}: ${app.boot.message}` : app.boot.message;
      // Before Python is up, a current trace is a shipped one.
      if (isCurrent()) {
        [state, text] = ["loading", `Ready (precomputed): ${titleOf(app.trace)}. Loading Python in your browser (${booting}) for any other view.`];
        source = "precomputed";
      } else if (traces.shippedAvailable?.()) [state, text] = ["loading", `This view needs Python, still loading (${booting}); it appears as soon as Python is ready.`];
      else [state, text] = ["loading", `Loading Python in your browser (${booting}). You can already edit the input; your changes apply when it is ready.`];
    }
    // The picture view draws what it asks for itself (#picture-row is aria-busy meanwhile).
    else if (app.state.view === "picture") [state, text] = ["ready", `Ready: the picture view, ${viewTitle(app.state)}.`];
    // Python is up but the first answer is still on its way: "ready" waits for a drawn output.
    else if (!app.trace) [state, text] = ["loading", "Python is ready; computing the first output."];
    else if (app.state.view === "chain" && !isCurrent()) [state, text] = ["loading", "Python is computing the chain."];
    else [state, text] = ["ready", `Ready: ${titleOf(app.trace)}.`];
    // Written only when they change: a rewrite would cost the next frame a relayout.
    if (statusBox.dataset.state !== state) statusBox.dataset.state = state;
    if (statusText.textContent !== text) statusText.textContent = text;
    // "ready" once: Python is up and the output is drawn (after the render in progress).
    if (state === "ready" && !app.announcedReady) {
      app.announcedReady = true;
      queueMicrotask(() => emit("ready", { state: app.state, trace: currentTrace() }));
    }
    if ((statusBox.dataset.source ?? null) !== source) {
      if (source) statusBox.dataset.source = source;
      else delete statusBox.dataset.source;
    }
    const bootOver = app.boot.ready || Boolean(app.boot.failure);
    if (progressBar.hidden !== bootOver) progressBar.hidden = bootOver;
    if (!bootOver && app.boot.steps) {
      progressBar.max = app.boot.steps;
      progressBar.value = app.boot.step;
    }
  }

  function focusedCell() {
    const active = root.activeElement;
    const cell = active?.closest?.("[data-grid]");
    return cell && element.contains(cell) ? { grid: cell.dataset.grid, row: cell.dataset.row, col: cell.dataset.col } : null;
  }

  // The one render: decides with redrawPlan how much of the view to redraw, then brings the
  // controls, #status and the teaching layer up to date. It reads app and writes the DOM only.
  function render() {
    const started = performance.now();
    showView(app.state.view);
    if (app.state.view === "picture") {
      openPicture();
      picture?.render(app.state);
      syncControls(controls, app.state);
      updateStatus();
      app.timings.lastRenderMs = performance.now() - started;
      return;
    }
    if (app.state.view === "chain") {
      const awaiting = app.stateKey === null || app.answerKey !== app.stateKey;
      // The chain keeps its own last drawing while a state is refused: it is given only the
      // current trace.
      chain?.render(app.state, isCurrent() ? app.trace : null, { scheme: app.view.scheme, awaiting, error: app.traceError, bootReady: app.boot.ready });
      syncControls(controls, app.state);
      updateStatus();
      app.timings.lastRenderMs = performance.now() - started;
      return;
    }
    const trace = currentTrace();
    const shown = shownState();
    const awaitingTrace = app.boot.ready && !app.boot.failure && app.answerKey !== app.stateKey;
    // A stale trace (the worker is computing the new state) still shows the output, but
    // its windows may not fit the new input, so the input grid is drawn without overlays.
    const shownKey = gridsKey(shown);
    const view = {
      ...app.view, staleInput: trace === null, traceError: app.traceError, stepMarks: player.marks(), mismatches: app.view.mismatch?.marks ?? null,
    };
    const next = { state: shown, trace: app.trace, view, awaitingTrace, gridsKey: shownKey };
    const plan = redrawPlan(app.drawn, next);
    if (plan === "all") {
      const focus = focusedCell();
      renderView(regions, shown, app.trace, view);
      stage.querySelector("[data-editor]")?.focus();
      if (focus && !app.view.editing) {
        stage.querySelector(`[data-grid="${focus.grid}"][data-row="${focus.row}"][data-col="${focus.col}"]`)?.focus({ preventScroll: true });
      }
    } else if (plan === "selection") {
      renderSelection(regions, shown, app.trace, view);
    }
    if (plan !== "wait") app.drawn = next;
    regions.outputGrid.setAttribute("aria-busy", String(awaitingTrace || (app.answerKey !== app.stateKey && !app.traceError)));
    syncControls(controls, app.state);
    updateStatus();
    codeView.update();
    if (plan !== "wait") renderTeaching(shown, trace);
    app.timings.lastRenderMs = performance.now() - started;
  }

  // The player follows the state and its trace (it starts over on a new one); a trace still
  // being computed leaves it where it is.
  function syncPlayer() {
    if (app.state.view !== "pool") return;
    const awaitingTrace = app.boot.ready && !app.boot.failure && app.answerKey !== app.stateKey;
    if (!awaitingTrace) player.sync(currentTrace(), shownState().grad);
  }

  // The one place the trace shown changes: `answer` ({trace} or {error}) for `key`, the
  // request key of `state`, from `source` ("python" or "shipped"). A refusal keeps the last
  // trace accepted. Python's answer to the view a shipped trace shows keeps that very object
  // on screen (the player keeps its place); the two are equal, as a browser test checks for
  // every one. The host hears of it (index.html writes the canonical link).
  function showTrace(key, state, answer, source) {
    app.answerKey = key;
    const setup = state.view === "chain" ? "chain" : "pooling setup";
    app.traceError = answer.error ? (answer.timedOut ? answer.error : `Not a valid ${setup}: ${answer.error}`) : null;
    if (!answer.error) {
      const same = app.traceSource === "shipped" && app.traceKey === key
        && JSON.stringify(answer.trace) === JSON.stringify(app.trace);
      app.traceKey = key;
      app.traceState = state;
      app.traceSource = source;
      if (!same) app.trace = answer.trace;
    }
    if (key === app.stateKey) {
      syncPlayer();
      emit("trace", { state: app.state, trace: currentTrace() });
    }
  }

  async function requestTrace() {
    const key = app.stateKey;
    const state = app.state;
    const sent = performance.now();
    let answer;
    try {
      // While Python starts, a view the shipped traces answer (answerFromShipped, next) is
      // on screen already: Python serves the views of other widgets that wait for it first.
      const shown = !app.boot.ready && (traces.shipped?.(key) ?? null) !== null;
      answer = await traces.latest(key, lane, { shown });
    } catch {
      return; // the source's onFailure has already put the reason in #status
    }
    if (answer.superseded || destroyed) return;
    app.timings.lastRoundTripMs = performance.now() - sent;
    app.timings.lastTraceMs = answer.ms ?? null;
    showTrace(key, state, answer, "python");
    render();
  }

  // While Python starts, the current state is answered from its shipped trace, if there is
  // one; Python is asked all the same (the latest state wins) and takes over once it is up.
  function answerFromShipped() {
    const key = app.stateKey;
    const trace = app.boot.ready || key === null ? null : traces.shipped?.(key) ?? null;
    if (trace === null || app.answerKey === key) return false;
    showTrace(key, app.state, { trace }, "shipped");
    return true;
  }

  function setState(next) {
    const nextKey = keyFor(next);
    if (nextKey === null) openChain();
    // Another view: nothing the last one drew or computed is shown in it.
    if (next.view !== app.state.view) {
      Object.assign(app, { trace: null, traceKey: null, traceState: null, answerKey: null, traceSource: null, traceError: null, drawn: null });
    }
    // The picture view asks Python itself (web/picture/), with its pixels.
    const needsTrace = nextKey !== null && next.view !== "picture" && (nextKey !== app.stateKey || app.answerKey === null);
    app.state = next;
    app.stateKey = nextKey;
    if (app.traceKey === nextKey) app.traceState = next;
    app.modelError = null;
    // The exercise panel's marks belong to the case it loaded; another view drops them (a
    // tap that selects another output keeps them).
    if (app.view.mismatch && app.view.mismatch.view !== gridsKey(next)) app.view.mismatch = null;
    // The worker starts computing before the main thread does anything else with the change.
    if (needsTrace) {
      requestTrace();
      answerFromShipped();
    }
    syncPlayer();
    render();
    emit("change", app.state);
  }

  // A state the view made (a learner's change, an exercise case): set into the model (whose
  // echo of it changes nothing) and shown at once.
  function adopt(next) {
    app.values = modelValues(next);
    const current = readModelValues();
    app.setting = true; // the model's events while it takes the values are the view's own
    try {
      for (const [key, value] of Object.entries(app.values)) {
        if (JSON.stringify(current[key]) !== JSON.stringify(value)) model.set(key, value);
      }
      if (model.get("error")) model.set("error", null);
      model.save_changes();
    } finally {
      app.setting = false;
    }
    setState(next);
  }

  // `from`: the state the change starts from (the grids' own: the state they show).
  function change(mutator, from = app.state) {
    guide.note("learner");
    const next = structuredClone(from);
    mutator(next);
    app.view.editing = null;
    adopt(next);
  }

  function readModelValues() {
    return Object.fromEntries(Object.keys(MODEL_KEYS).map((key) => [key, model.get(key) ?? null]));
  }

  // The model changed (the host, or the view's own set): a new state from outside, unless
  // it is the view's own. A refused model keeps the last good view and says what is wrong.
  function modelChanged() {
    if (app.setting) return;
    const error = model.get("error");
    if (error) {
      app.modelError = options.invalid ? options.invalid(error) : `Not valid: ${error}.`;
      render();
      return;
    }
    // A view loaded when first opened is read once its module (and its keys) are here.
    const later = viewOfModel((key) => model.get(key));
    if (later) {
      loadView(later).then(() => {
        if (!destroyed) modelChanged();
      }, (problem) => {
        app.boot.failure = `The ${later} view could not load: ${problem.message}`;
        render();
      });
      return;
    }
    const values = readModelValues();
    if (app.values && !app.modelError && JSON.stringify(values) === JSON.stringify(app.values)) return;
    let next;
    try {
      next = stateFromModel((key) => values[key]);
    } catch (problem) {
      if (!(problem instanceof InputError)) throw problem;
      app.modelError = options.invalid ? options.invalid(problem.message) : `Not valid: ${problem.message}.`;
      render();
      return;
    }
    // A new state from outside ends any edit: the edited cell belonged to the state that was
    // left, and may not even exist in this one.
    app.view.editing = null;
    app.controlError = null;
    guide.note("outside");
    app.values = values;
    setState(next);
  }

  // The upstream gradient's shape: the custom one's, or the current trace's output.
  function gradientShape() {
    const state = shownState();
    if (state.g) return [state.g.length, state.g[0].length];
    return currentTrace()?.output_shape ?? null;
  }

  // What pool-grad:select carries: the selected output, its argmax (max mode) and the
  // input cells its window samples.
  function selectionDetail() {
    const trace = currentTrace();
    const output = trace ? selectedOutput(shownState(), trace) : null;
    if (!output) return null;
    const [row, col] = output;
    return { row, col, argmax: trace.argmax ? trace.argmax[row][col].slice() : null, window: windowCells(trace, output) };
  }

  // A selection change is spoken through a polite live region that holds text only. The
  // explanation itself is not live, so parameter changes do not talk over the learner.
  function announceSelection() {
    const sel = app.state.sel;
    if (!sel) announcer.textContent = "No output cell selected.";
    else announcer.textContent = (currentTrace() && explanationText(shownState(), app.trace))
      || `Output (${sel[0]},${sel[1]}) selected; its window shows once the output is computed.`;
    const detail = selectionDetail();
    if (detail) emit("select", detail);
  }

  // ---- the teaching layer: lesson text, step-through player, "Try it" guide ----
  // All three read the current trace only (null while it is being recomputed or invalid).

  // Several announcements in one task (a selection and the guide step it ticks) are spoken
  // together: later ones are appended once the task's own announcements are written.
  let announcementBase = null;
  const pendingAnnouncements = [];
  function announce(text) {
    if (announcementBase === null) {
      announcementBase = announcer.textContent;
      queueMicrotask(() => {
        const earlier = announcer.textContent === announcementBase ? "" : `${announcer.textContent} `;
        announcer.textContent = earlier + pendingAnnouncements.splice(0).join(" ");
        announcementBase = null;
      });
    }
    pendingAnnouncements.push(text);
  }

  const lessonText = byId("lesson-text");
  const modeButtons = { max: byId("mode-max"), avg: byId("mode-avg") };
  // The player draws through render (its position is part of the grids); render reads its
  // marks and never calls it back.
  const player = new Player({
    box: byId("player"),
    play: byId("player-play"),
    back: byId("player-back"),
    forward: byId("player-forward"),
    reset: byId("player-reset"),
    speed: byId("player-speed"),
    progress: byId("player-progress"),
    caption: byId("player-caption"),
    motionNote: byId("player-motion"),
  }, () => render(), announce);
  const codeView = new CodeView({
    panel: byId("code"),
    torch: byId("code-torch"),
    poolgrad: byId("code-poolgrad"),
    link: byId("code-link"),
    embed: byId("code-embed"),
    message: byId("code-message"),
    picture: byId("save-picture"),
    copyButtons: [...element.querySelectorAll("#code [data-copy]")],
  }, () => ({ state: shownState(), trace: currentTrace() }));
  const guide = new Guide(
    { list: byId("guide-steps"), progress: byId("guide-progress"), reset: byId("guide-reset") },
    announce,
    progressKey(location, window.parent !== window, document.referrer),
  );

  function renderTeaching(state, trace) {
    if (parts.lesson) {
      renderLesson(lessonText, lessonBlocks(state, trace));
      for (const [mode, button] of Object.entries(modeButtons)) button.setAttribute("aria-pressed", String(app.state.mode === mode));
      guide.update(state, trace, { inspected: app.view.inspected });
    }
    if (parts.player) player.draw();
  }

  // The Max / Average toggle makes the very change #mode makes.
  for (const [mode, button] of Object.entries(modeButtons)) {
    button.addEventListener("click", () => {
      if (app.state.mode !== mode) change(switchMode(mode));
    });
  }

  // ---- the exercise panel: a failing case goes into the grids as a state of the view's own ----

  const exercise = parts.exercise ? mountExercise(byId("exercise"), {
    showCase(state, marks) {
      app.view.mismatch = { view: gridsKey(state), marks };
      guide.note("outside");
      app.view.editing = null;
      adopt(state);
    },
    clearMarks() {
      if (!app.view.mismatch) return;
      app.view.mismatch = null;
      render();
    },
  }) : { timings: {} };

  // ---- wiring ----

  // Another view: its module (and its keys) first, when it loads the first time it opens.
  viewSelect.addEventListener("change", () => {
    const view = viewSelect.value;
    if (!isLoadedLater(view)) {
      change(switchView(view));
      return;
    }
    loadView(view).then(() => change(switchView(view)), (problem) => {
      app.boot.failure = `The ${view} view could not load: ${problem.message}`;
      render();
    });
  });

  fillPresetOptions(controls.preset);
  bindControls(controls, {
    getState: () => app.state,
    change,
    reportControlError(text) {
      app.controlError = text;
      updateStatus();
    },
    gradientShape,
  });
  bindGridInput({
    stage,
    regions,
    guide,
    get state() { return shownState(); },
    get trace() { return app.trace; },
    get drawn() { return app.drawn; },
    get view() { return app.view; },
    set controlError(text) { app.controlError = text; },
    currentTrace,
    change: (mutator) => change(mutator, shownState()),
    render,
    updateStatus,
    gradientShape,
    announceSelection,
  });

  // Every node is found: a second widget in this tree may now rename what its labels name.
  separateIds(element);

  const unsubscribe = traces.subscribe({
    onProgress({ step, steps, message }) {
      Object.assign(app.boot, { step, steps, message });
      app.timings.bootSteps.push({ step, message, startedMs: performance.now() - mountStart });
      updateStatus();
    },
    onReady(message) {
      app.boot.ready = true;
      app.boot.step = app.boot.steps;
      app.timings.bootMs = performance.now() - mountStart;
      app.timings.startup = message?.startup ?? null; // how Python started: its path, and why
      updateStatus();
    },
    onFailure(text) {
      app.boot.failure = text;
      syncPlayer();
      render();
    },
  });

  let destroyed = false;
  model.on("change", modelChanged);
  modelChanged();
  if (app.modelError) {
    // Nothing good to show yet: the default view, with the error above it.
    requestTrace();
    render();
  }
  // The shipped traces arrive while Python starts (the landing views', then the first
  // minute's): they may answer the view shown.
  function shippedArrived() {
    if (destroyed) return;
    if (answerFromShipped()) render();
    else updateStatus();
  }
  traces.onShipped?.(shippedArrived);

  return {
    state: () => app.state,
    trace: currentTrace,
    on(type, listener) {
      if (!listeners.has(type)) listeners.set(type, new Set());
      listeners.get(type).add(listener);
    },
    off(type, listener) {
      listeners.get(type)?.delete(listener);
    },
    request: (request) => traces.request(request),
    // Opens the picture at `url` in the picture view (the element's src).
    loadPicture(url) {
      openPicture();
      pictureLoading.then(() => picture?.loadURL(url));
    },
    python: () => traces.describe?.() ?? null,
    timings: app.timings,
    exerciseTimings: exercise.timings,
    // A host's marks of wrong cells on the view shown (exercise_check's mismatches, e.g. the
    // notebook's poolgrad.check); like the exercise panel's, they go with the next view.
    showMismatches(mismatches) {
      app.view.mismatch = mismatches?.length ? { view: gridsKey(app.state), marks: mismatchMarks(mismatches) } : null;
      render();
    },
    destroy() {
      destroyed = true;
      picture?.destroy();
      model.off("change", modelChanged);
      unsubscribeScheme();
      unsubscribe();
      element.replaceChildren();
    },
  };
}
return Object.freeze({ PARTS, mount });
})();

// web/notebook.js
const { chainRequestKey } = $chain_request;
const { mount } = $widget_mount;
const { InputError, requestKey, stateFromModel } = $widget_state;
// The notebook host: anywidget's render({ model, el }) for poolgrad.Widget (py/poolgrad/
// widget.py). It is the page's mount (widget/mount.js), so the page and the notebook draw
// the same DOM; what is the notebook's own is here: the model's few differences from
// mount's, a trace source answered by the kernel's own poolgrad, and the notebook's colour
// scheme. Bundled into one module by sitebuild/widget_bundle.py (anywidget cannot resolve
// relative imports).

// A notebook holds every view at once: the chain's and the picture's keys are in the table
// before a model is read (on the page, widget/views.js loads them when a view opens).

// What a cell shows: the grids (always there) and the controls. Not the lesson text and
// its "Try it" guide (the notebook's own cells teach, and the guide keeps progress per
// page, here the notebook app's), nor the step-through player (a cell stays short; a tap
// or w.selection shows a window), nor the exercise panel (it runs learner code in the
// site's Pyodide workers; a notebook has poolgrad.check, in the kernel), nor the Code
// panel (the notebook is the code, and its link and embed code name the page's address).
const PARTS = { controls: true, lesson: false, player: false, exercise: false, code: false };

// How long a request waits for the kernel. None answers in a notebook opened from its
// saved state or in an HTML export: the view the state holds is drawn from it, any other
// says it needs the kernel.
export const KERNEL_TIMEOUT_MS = 15000;

// mount's model over anywidget's, which has its shape; what differs is adapted here:
// - `error` is a Unicode trait ("" for none) where mount reads and clears null;
// - `stride` None means the kernel in Python (and follows it); mount reads the stride it
//   means, and pins it when the view changes the kernel (the page keeps the stride);
// - the kernel refuses a change from the view by sending the good settings back with
//   `error`: mount sees the settings first, then the error over them, so the view goes
//   back to the last good one and says why (mount keeps its view when it reads an error).
export function notebookModel(model) {
  let errorHidden = false;
  const wrappers = new Map();
  return {
    get(key) {
      const value = model.get(key);
      if (key === "error") return errorHidden ? null : value || null;
      if (key === "stride") return value ?? model.get("kernel_size");
      return value;
    },
    set(key, value) {
      if (key === "error") {
        model.set("error", value ?? "");
        return;
      }
      if (key === "kernel_size" && model.get("stride") === null) model.set("stride", model.get("kernel_size"));
      model.set(key, value);
    },
    save_changes: () => model.save_changes(),
    on(event, callback) {
      if (event !== "change") {
        model.on(event, callback);
        return;
      }
      const wrapper = () => {
        if (model.get("error")) {
          errorHidden = true;
          try {
            callback();
          } finally {
            errorHidden = false;
          }
        }
        callback();
      };
      wrappers.set(callback, wrapper);
      model.on("change", wrapper);
    },
    off(event, callback) {
      model.off(event, wrappers.get(callback) ?? callback);
      wrappers.delete(callback);
    },
  };
}

// The request key of settings in the model's keys (state.js requestKey, the chain's
// chainRequestKey), or null for settings the page's rules refuse and for the picture view
// (whose requests carry their pixels' shape, answered by the kernel each time).
export function viewKey(settings) {
  if (!settings) return null;
  try {
    const state = stateFromModel((key) => settings[key] ?? null);
    if (state.view === "picture") return null;
    return state.view === "chain" ? chainRequestKey(state) : requestKey(state);
  } catch (problem) {
    if (problem instanceof InputError) return null;
    throw problem;
  }
}

// The trace source (docs/design.md, "mount"): each request goes to the kernel as a custom
// message {type: "trace", id, key}, which widget.py answers with poolgrad.wire.run_trace
// ({type: "trace", id, answer}). A picture's request ({json, pixels}, pixels null for the
// kernel's own picture) goes as {type: "picture", id, key: json} with its pixels, if any,
// as the message's one buffer, and its answer's planes come back as the answer's buffer. The kernel also syncs the trace of every view it computes
// (`trace`, which a saved notebook keeps) with the settings it computed it from
// (`trace_settings`): a request for that view is answered from it, with no round trip,
// and so is one still waiting when it arrives. No Python to boot: ready at once.
export function kernelTraces(model, timeoutMs = KERNEL_TIMEOUT_MS) {
  const source = Math.random().toString(36).slice(2, 10);
  let count = 0;
  const waiting = new Map();
  const lanes = new Map();
  let synced = { settings: undefined, key: null };
  const syncedKey = () => {
    const settings = model.get("trace_settings");
    if (settings !== synced.settings) synced = { settings, key: viewKey(settings) };
    return synced.key;
  };
  const settle = (id, answer) => {
    const request = waiting.get(id);
    if (!request) return;
    waiting.delete(id);
    clearTimeout(request.timer);
    if (lanes.get(request.lane) === id) lanes.delete(request.lane);
    request.resolve(answer);
  };
  const unanswered = () => ({
    error: `The kernel did not answer within ${timeoutMs / 1000} s: this view needs the notebook's kernel `
      + "(run the widget's cell again; a notebook opened from its saved state shows its last view only).",
    timedOut: true,
  });
  const ask = (key, lane, pixels = undefined) => {
    const id = `${source}:${++count}`;
    return new Promise((resolve) => {
      waiting.set(id, { key, lane, resolve, timer: setTimeout(() => settle(id, unanswered()), timeoutMs) });
      if (lane !== null) lanes.set(lane, id);
      try {
        if (pixels === undefined) model.send({ type: "trace", id, key });
        else model.send({ type: "picture", id, key }, undefined, pixels ? [pixels] : []);
      } catch {
        settle(id, unanswered());
      }
    });
  };
  const onMessage = (message, buffers) => {
    if ((message?.type !== "trace" && message?.type !== "picture") || !waiting.has(message.id)) return;
    let answer;
    try {
      answer = JSON.parse(message.answer);
    } catch {
      answer = { error: "the kernel's answer was not JSON" };
    }
    if (message.type === "picture" && answer.picture) {
      // The planes as an ArrayBuffer of their own, as the page's worker hands them over.
      const [planes] = buffers ?? [];
      answer.planes = planes ? planes.buffer.slice(planes.byteOffset, planes.byteOffset + planes.byteLength) : new ArrayBuffer(0);
    }
    settle(message.id, answer);
  };
  const onSynced = () => {
    const key = syncedKey();
    for (const [id, request] of waiting) if (request.key === key) settle(id, { trace: model.get("trace") });
  };
  model.on("msg:custom", onMessage);
  model.on("change:trace_settings", onSynced);
  return {
    latest(key, lane) {
      if (lanes.has(lane)) settle(lanes.get(lane), { superseded: true });
      if (typeof key === "object") return ask(key.json, lane, key.pixels ?? null);
      if (key === syncedKey()) return Promise.resolve({ trace: model.get("trace") });
      return ask(key, lane);
    },
    request: (request) => ask(typeof request === "string" ? request : JSON.stringify(request), null),
    subscribe({ onReady }) {
      onReady?.({});
      return () => {};
    },
    describe: () => "the notebook's kernel",
    close() {
      model.off("msg:custom", onMessage);
      model.off("change:trace_settings", onSynced);
      for (const id of [...waiting.keys()]) settle(id, { superseded: true });
    },
  };
}

// The picture view's picture: the kernel's (poolgrad.Widget(image)), described by the
// `picture_source` trait, {name, shape: [height, width], sizes: {size: [height, width]}}
// (the sides Python scales it to for each longer side the view offers); its pixels stay
// in the kernel. A widget made without a picture has none to offer.
export function kernelPicture(model) {
  return {
    at(size) {
      const source = model.get("picture_source") ?? {};
      const sides = source.sizes?.[String(size)];
      if (!sides) {
        return { error: "This widget has no picture: make one with poolgrad.Widget(image), image an (H, W), (H, W, 3) or (3, H, W) array." };
      }
      const [height, width] = sides;
      return { name: source.name, width, height, original: source.shape, scaled: height !== source.shape[0] || width !== source.shape[1] };
    },
  };
}

// The colour scheme: JupyterLab's and Notebook 7's theme (the body's data-jp-theme-light),
// else the system's. The host's element carries it as data-scheme, under which the bundled
// stylesheet puts the page's dark colours (style.css's own follow prefers-color-scheme).
export function notebookScheme() {
  const system = matchMedia("(prefers-color-scheme: dark)");
  const current = () => {
    const light = document.body.dataset.jpThemeLight;
    if (light === "true" || light === "false") return light === "true" ? "light" : "dark";
    return system.matches ? "dark" : "light";
  };
  return {
    current,
    subscribe(callback) {
      const theme = new MutationObserver(callback);
      theme.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
      system.addEventListener("change", callback);
      return () => {
        theme.disconnect();
        system.removeEventListener("change", callback);
      };
    },
  };
}

async function render({ model, el }) {
  el.classList.add("poolgrad-notebook");
  const scheme = notebookScheme();
  const showScheme = () => {
    el.dataset.scheme = scheme.current();
  };
  showScheme();
  const unsubscribe = scheme.subscribe(showScheme);
  // When a change from the kernel reached the view (data-changed, before mount hears of
  // it): the tests split a change's time into the kernel's and the front end's.
  const changed = () => {
    el.dataset.changed = String(performance.now());
  };
  model.on("change", changed);
  const traces = kernelTraces(model);
  const widget = await mount(el, notebookModel(model), {
    traces,
    parts: PARTS,
    scheme,
    picture: kernelPicture(model),
    invalid: (message) => `Not valid: ${message}. The widget keeps its last good view.`,
  });
  const showMismatches = () => widget.showMismatches(model.get("mismatches"));
  showMismatches();
  model.on("change:mismatches", showMismatches);
  // Each redraw for a new trace stamps its time and its render's length on the element
  // (data-drawn, data-draw-ms): the notebook tests time a change from a cell to the redraw.
  widget.on("trace", () => queueMicrotask(() => {
    el.dataset.drawn = String(performance.now());
    el.dataset.drawMs = String(widget.timings.lastRenderMs);
  }));
  return () => {
    model.off("change:mismatches", showMismatches);
    model.off("change", changed);
    unsubscribe();
    traces.close();
    widget.destroy();
  };
}

export default { render };
