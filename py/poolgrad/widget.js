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
const WHITE_TEXT_LIMIT = 1.05 / 4.5 - 0.05;

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
// the ones whose rule says so (docs/design.md, "The URL hash"). Errors are InputError,
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

// How each kind of property reads its text and writes it back: parse(text, property,
// source) returns the value or throws InputError; write(value) is the canonical text.
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
      const match = /^(\d{1,2}),(\d{1,2})$/.exec(text);
      if (!match) throw new InputError(`${property.key} must be row,col of an output cell, like 0,1; got ${quote(text)}`, source);
      return [Number(match[1]), Number(match[2])];
    },
    write: ([row, col]) => `${row},${col}`,
  },
  norm: {
    parse(text, property, source) {
      const trimmed = text.trim();
      const word = { inf: Infinity, infinity: Infinity, "-inf": -Infinity, "-infinity": -Infinity }[trimmed.toLowerCase()];
      const value = word ?? (NUMBER_PATTERN.test(trimmed) ? Number(trimmed) : NaN);
      if (Number.isNaN(value) || (Number.isFinite(value) && Math.abs(value) > MAX_NORM)) {
        throw new InputError(`${property.name} must be a number such as 1, 2 or 3 (or Infinity), between -${MAX_NORM} and ${MAX_NORM}; got ${quote(text)}`, source);
      }
      if (value === 0) throw new InputError(`${property.name} must not be 0: the power mean (sum of x^p)^(1/p) needs p ≠ 0`, source);
      return value;
    },
    write: (value) => (Number.isFinite(value) ? String(value) : value > 0 ? "Infinity" : "-Infinity"),
  },
  matrix: {
    parse: (text, property) => parseMatrix(text, MATRIX_SPELLINGS.hash(property.name)),
    write: (matrix) => matrix.map((row) => row.map(encodeNumber).join(",")).join(";"),
  },
};

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
];
const PROPERTY = new Map(HASH_PROPERTIES.map((property) => [property.key, property]));

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
  fillInitial(state);
  for (const key of given.keys()) {
    if (PROPERTY.get(key).only && !applies(key, state)) {
      throw fail(`${key} does not apply to mode=${state.mode}; ${APPLIES_TEXT[key]}`);
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
  if (property.written === "always") return false;
  if (property.written === "unless-implicit") return state.selImplicit || value === null;
  const initial = property.initial(state);
  if (value === null || initial === null) return value === initial;
  const { write } = KINDS[property.kind];
  return write(value) === write(initial);
}

function serialiseState(state) {
  const parts = HASH_PROPERTIES
    .filter((property) => !leftOut(property, state[property.key], state))
    .map((property) => `${property.key}=${KINDS[property.kind].write(state[property.key])}`);
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
  const unshown = trace !== null && state.sel !== null && !outputInRange(trace, state.sel);
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
  };
}

// A model value as the hash spells it, or null when the model leaves it out.
function valueText(key, value) {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return value;
  const kind = PROPERTY.get(MODEL_KEYS[key]).kind;
  if (kind === "flag") return value ? "1" : "0";
  if (kind === "matrix") {
    const cell = (v) => (typeof v === "number" ? encodeNumber(v) : String(v));
    return Array.isArray(value) ? value.map((row) => (Array.isArray(row) ? row : [row]).map(cell).join(",")).join(";") : String(value);
  }
  return Array.isArray(value) ? value.join(",") : String(value);
}

// The state a model's values describe (`get(key)`, the model's own reader), refused as the
// hash would refuse it: InputError with the same message, naming the setting.
// A model holds every key at once, so a mode's own key (output_size, norm_type, unpool) is
// kept there while another mode shows: it is read only where it applies.
function stateFromModel(get) {
  const parts = [];
  const mode = valueText("mode", get("mode")) ?? "max";
  for (const [key, property] of Object.entries(MODEL_KEYS)) {
    const text = valueText(key, get(key));
    if (PROPERTY.get(property).only && !applies(property, { mode })) continue;
    if (text !== null) parts.push(`${property}=${encodeURIComponent(text)}`);
  }
  return parseHash(parts.join("&"));
}
return Object.freeze({ MAX_SIDE, MODE_NAMES, ADAPTIVE_MODES, MAX_MODES, InputError, quote, MATRIX_SPELLINGS, parseMatrix, parseCellValue, HASH_PROPERTIES, defaultState, parsePair, parseHash, serialiseState, gridsKey, hashFor, traceRequest, requestKey, applies, changedState, switchMode, presetChange, showsPreset, MODEL_KEYS, modelValues, stateFromModel, FIXTURE });
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
function gridTable({ name, rowIndices, colIndices, focus, describe: describeBase, stepMarks, mismatches }, previous) {
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
    "aria-label": `${GRID_TITLES[name]}, ${rowIndices.length} by ${colIndices.length}`,
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
return Object.freeze({ withStepMark, withMismatch, renderView, renderSelection, applyPreview, redrawPlan });
})();

// web/notebook.js
const { decodeNumber, formatNumber } = $widget_format;
const { renderSelection, renderView } = $widget_render;
const { InputError, defaultState, parsePair, switchMode } = $widget_state;
// The notebook host: anywidget's render({ model, el }) for poolgrad.Widget (py/poolgrad/
// widget.py). The kernel's own poolgrad computes every view and syncs it as the `trace`
// trait, so this host never asks a worker: it maps the traits to the page's state, draws
// with the page's render.js, and sends the learner's changes back as traits. Bundled into
// one module by sitebuild/widget_bundle.py (anywidget cannot resolve relative imports).
// The page's rules for a change (switchMode: average has no dilation, a change resets the
// custom gradient) are state.js's own.


const PAIRS = { kernel: ["k", "kernel_size"], stride: ["s", "stride"], padding: ["p", "padding"], dilation: ["d", "dilation"] };

const SKELETON = `
  <div class="controls"><div class="controls-body">
    <fieldset><legend>Window</legend>
      <label>Kernel <input data-field="kernel" type="text" autocomplete="off" spellcheck="false"></label>
      <label>Stride <input data-field="stride" type="text" autocomplete="off" spellcheck="false"></label>
      <label>Padding <input data-field="padding" type="text" autocomplete="off" spellcheck="false"></label>
      <label>Dilation <input data-field="dilation" type="text" autocomplete="off" spellcheck="false"></label>
    </fieldset>
    <fieldset><legend>Pooling</legend>
      <label>Mode <select data-field="mode"><option value="max">max</option><option value="avg">average</option></select></label>
      <label class="check"><input data-field="gradient" type="checkbox"> Gradient routing</label>
    </fieldset>
  </div></div>
  <p class="notebook-error" role="alert" hidden></p>
  <section class="stage" aria-label="Grids">
    <div class="column">
      <div class="panel panel-input"><h2>Input <span data-region="shapes" class="shape"></span></h2><div data-region="inputGrid" class="grid-box"></div></div>
      <div class="panel panel-grad-input" data-gradient-panel hidden><h2>Input gradient</h2><div data-region="gradInputGrid" class="grid-box"></div></div>
    </div>
    <div class="column">
      <div class="pair">
        <div class="panel panel-output"><h2>Output</h2><p class="hint">Tap a cell to see its window.</p><div data-region="outputGrid" class="grid-box"></div></div>
        <div class="panel panel-grad-output" data-gradient-panel hidden><h2>Upstream gradient</h2><div data-region="gradOutputGrid" class="grid-box"></div></div>
      </div>
      <div class="panel panel-explain">
        <p data-region="explanation" class="explanation"></p>
        <ul data-region="legend" class="legend" data-mode="max" aria-label="How cells are marked">
          <li><span class="swatch swatch-window" aria-hidden="true">5</span> in the selected output's window</li>
          <li data-only="max"><span class="swatch swatch-argmax" aria-hidden="true">8</span> its maximum (argmax)</li>
        </ul>
        <div data-region="formula"></div>
      </div>
    </div>
  </section>`;

const pairOf = (value, fallback) => (value === null || value === undefined ? fallback : Array.isArray(value) ? value : [value, value]);
const matrixOf = (rows) => rows.map((row) => row.map(decodeNumber));

// The page's state for the traits (the selection is implicit, the first output, until
// someone picks one, as on the page).
function stateOf(model) {
  const k = pairOf(model.get("kernel_size"), [2, 2]);
  const selection = model.get("selection");
  return Object.assign(defaultState(), {
    x: matrixOf(model.get("x")),
    k,
    s: pairOf(model.get("stride"), k.slice()),
    p: pairOf(model.get("padding"), [0, 0]),
    d: pairOf(model.get("dilation"), [1, 1]),
    mode: model.get("mode"),
    ceil: model.get("ceil_mode"),
    cip: model.get("count_include_pad"),
    grad: model.get("gradient"),
    g: model.get("grad_output") ? matrixOf(model.get("grad_output")) : null,
    sel: selection ?? [0, 0],
    selImplicit: selection === null,
  });
}

// render.js's marks of checked cells: "grid:row,col" -> {expected, got} as text.
function mismatchMarks(mismatches) {
  return new Map(mismatches.map((item) => [`${item.grid}:${item.row},${item.col}`,
    { expected: formatNumber(item.expected), got: formatNumber(item.got) }]));
}

function render({ model, el }) {
  el.classList.add("poolgrad-notebook");
  el.innerHTML = SKELETON;
  const regions = { gradPanels: [...el.querySelectorAll("[data-gradient-panel]")] };
  for (const region of el.querySelectorAll("[data-region]")) regions[region.dataset.region] = region;
  const field = (name) => el.querySelector(`[data-field="${name}"]`);
  const errorLine = el.querySelector(".notebook-error");
  const scheme = () => (document.body.dataset.jpThemeLight === "false" || matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
  // The grids' roving focus (render.js keeps each grid's focused cell here).
  const focus = {};
  const view = () => ({
    focus, editing: null, inspected: null, staleInput: false, traceError: null, stepMarks: null,
    scheme: scheme(), mismatches: mismatchMarks(model.get("mismatches")),
  });

  const showError = (text) => {
    errorLine.textContent = text;
    errorLine.hidden = text === "";
  };
  const syncFields = (state) => {
    for (const [name, [key]] of Object.entries(PAIRS)) {
      if (document.activeElement !== field(name)) field(name).value = state[key][0] === state[key][1] ? String(state[key][0]) : state[key].join(",");
    }
    field("dilation").disabled = state.mode === "avg";
    field("mode").value = state.mode;
    field("gradient").checked = state.grad;
  };
  // Each draw stamps its end and its length on the element (data-drawn, data-draw-ms),
  // which the notebook tests read to time a change from a cell to the redraw.
  const draw = () => {
    const started = performance.now();
    const state = stateOf(model);
    el.dataset.scheme = scheme();
    renderView(regions, state, model.get("trace"), view());
    syncFields(state);
    showError(model.get("error"));
    el.dataset.drawn = String(performance.now());
    el.dataset.drawMs = String(Number(el.dataset.drawn) - started);
  };
  // A change the learner makes: the page's state change, sent as the traits it touches.
  const send = (change) => {
    const before = stateOf(model);
    const after = structuredClone(before);
    change(after);
    const traits = { k: "kernel_size", s: "stride", p: "padding", d: "dilation", mode: "mode", grad: "gradient", g: "grad_output" };
    for (const [key, trait] of Object.entries(traits)) {
      if (JSON.stringify(after[key]) !== JSON.stringify(before[key])) model.set(trait, after[key]);
    }
    model.save_changes();
  };

  for (const [name, [key]] of Object.entries(PAIRS)) {
    field(name).addEventListener("change", () => {
      let value;
      try {
        value = parsePair(field(name).value.trim(), key, "field");
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        showError(error.message);
        return;
      }
      send((state) => {
        state[key] = value;
        state.g = null;
      });
    });
  }
  field("mode").addEventListener("change", () => send(switchMode(field("mode").value)));
  field("gradient").addEventListener("change", () => send((state) => { state.grad = field("gradient").checked; }));

  const pick = (target) => {
    const cell = target.closest?.('[data-grid="output"][data-row]');
    if (!cell) return;
    const selection = [Number(cell.dataset.row), Number(cell.dataset.col)];
    focus.output = selection;
    model.set("selection", selection);
    model.save_changes();
    renderSelection(regions, { ...stateOf(model), sel: selection, selImplicit: false }, model.get("trace"), view());
  };
  el.addEventListener("click", (event) => pick(event.target));
  el.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    pick(event.target);
  });

  const redraw = () => draw();
  const onError = () => showError(model.get("error"));
  const onSelection = () => renderSelection(regions, stateOf(model), model.get("trace"), view());
  // A trait may arrive after the trace it goes with (a batch of settings from a cell): each
  // redraws, so the fields never show a setting older than the grids.
  const REDRAWN = ["trace", "gradient", "mismatches", "kernel_size", "stride", "padding", "dilation", "mode"];
  for (const key of REDRAWN) model.on(`change:${key}`, redraw);
  model.on("change:selection", onSelection);
  model.on("change:error", onError);
  // JupyterLab and Notebook 7 switch themes by this attribute of the body: redraw in its scheme.
  const theme = new MutationObserver(() => { if (el.dataset.scheme !== scheme()) draw(); });
  theme.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
  draw();
  return () => {
    theme.disconnect();
    for (const key of REDRAWN) model.off(`change:${key}`, redraw);
    model.off("change:selection", onSelection);
    model.off("change:error", onError);
  };
}

export default { render };
