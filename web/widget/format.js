// Number display shared by every grid and sentence; then XML escaping (the picture, the
// embed code) and the page's storage (the learner's code and progress).
// trace() sends non-finite floats as the strings "NaN", "Infinity", "-Infinity"
// (strict JSON has no literal for them); decodeNumber turns them back into numbers.

// The one JavaScript home of the non-finite spellings: the hash, the worker's requests,
// trace()'s answers and the checker's all use these words (py/poolgrad/wire.py is Python's).
export const NON_FINITE = new Map([
  ["NaN", NaN],
  ["Infinity", Infinity],
  ["-Infinity", -Infinity],
]);

// A number as trace() and the checker send it: a finite number or one of those words.
export const isSentNumber = (value) => (typeof value === "number" && Number.isFinite(value)) || NON_FINITE.has(value);

export function decodeNumber(value) {
  if (typeof value === "number") return value;
  if (NON_FINITE.has(value)) return NON_FINITE.get(value);
  throw new TypeError(`not a number from trace(): ${String(value).slice(0, 40)}`);
}

// Up to 4 decimals, trailing zeros dropped, integers exact; a value that is -0 shows as
// "-0" (the input may hold it, and max pooling passes it on), one that merely rounds to
// zero (-0.00004) as "0".
export function formatNumber(value) {
  const number = decodeNumber(value);
  if (Number.isNaN(number)) return "NaN";
  if (number === Infinity) return "∞";
  if (number === -Infinity) return "-∞";
  if (Number.isInteger(number)) return Object.is(number, -0) ? "-0" : String(number);
  const rounded = number.toFixed(4).replace(/\.?0+$/, "");
  return rounded === "-0" ? "0" : rounded;
}

// "(1,2)": how every sentence and label names a cell.
export const cellName = ([row, col]) => `(${row},${col})`;

// A parameter pair as the hash and the fields spell it: "3" when square, else "3,2".
export const pairText = ([first, second]) => (first === second ? String(first) : `${first},${second}`);

// A shape as sentences say it: "4 × 3".
export const sizeText = ([height, width]) => `${height} × ${width}`;

// "(0,0), (0,1) and (1,1)": how every sentence and label lists cells.
export function listCells(cells) {
  const names = cells.map(cellName);
  return names.length <= 2 ? names.join(" and ") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

// "1 + 2 = 3": the terms trace() lists for a cell and the total they add up to.
export function formatSum(terms, total) {
  return `${terms.map(formatNumber).join(" + ")} = ${formatNumber(total)}`;
}

// The hash and the worker request need a lossless spelling (shortest round trip; String()
// would write -0 as "0").
export function encodeNumber(number) {
  for (const [word, value] of NON_FINITE) if (Object.is(number, value)) return word;
  if (Object.is(number, -0)) return "-0";
  return String(number);
}

// A number as a JSON request carries it: itself where JSON keeps it, else encodeNumber's
// word (JSON writes -0 as 0 and has no NaN or infinities).
export const wireNumber = (number) => (Number.isFinite(number) && !Object.is(number, -0) ? number : encodeNumber(number));

// "rows 0–2" for a contiguous run, "rows 0, 2, 4" for a dilated one.
export function describeSpan(noun, indices) {
  if (indices.length === 1) return `${noun} ${indices[0]}`;
  const contiguous = indices.every((value, i) => i === 0 || value === indices[i - 1] + 1);
  const plural = `${noun}s`;
  const [first, last] = [indices[0], indices[indices.length - 1]];
  // An en dash after a minus sign ("-1–1") reads badly, so padded ranges say "to".
  if (contiguous) return `${plural} ${first}${first < 0 ? " to " : "–"}${last}`;
  return `${plural} ${indices.join(", ")}`;
}

// Text as an XML attribute value or element content (the SVG picture, the embed code).
export const escapeXml = (text) => String(text)
  .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

// ---- the page's localStorage, where the browser allows it ----
// Sandboxed frames and private modes may refuse it, on any call: a refused read finds
// nothing and a refused write is dropped, so what the learner did lasts for this page.

export function readStored(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

// Stores `text` under `key`; null removes the key.
export function writeStored(key, text) {
  try {
    if (text === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, text);
  } catch {
    // Refused: see above.
  }
}
