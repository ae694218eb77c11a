// The teaching sentences about a view, each in one place: the title of the view (the
// status line, the Code panel, the picture and the embed code all name a view with it)
// and the sentence about the selected output (#explanation, the announcer, the picture).

import { cellName, decodeNumber, formatNumber, formatSum, listCells, pairText, sizeText } from "../widget/format.js";
import { MODE_NAMES } from "../widget/state.js";
import { selectedOutput, sharedCells, termFrom, windowCells, windowSize, windowText } from "../widget/trace-view.js";

// p as sentences write it: 2, 0.5, ∞.
export const normText = (p) => (Number.isFinite(p) ? String(p) : p > 0 ? "∞" : "−∞");

// "max pooling, 3 × 3 window, stride 1, padding 1": what the code (and the picture) shows.
// The adaptive modes name their output size instead of a window ("adaptive average
// pooling to 1 × 1"), LP pooling its p.
export function viewTitle(state) {
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
export function traceParameters(trace) {
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
export function explanationText(state, trace) {
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
export function totalsVerdict(trace, equal) {
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
export function unpoolText(trace) {
  const shared = sharedCells(trace);
  const lead = "Unpooling puts each output back on the cell its index names and 0 everywhere else: the gradient's routes, carrying the output's value instead of its gradient.";
  if (shared.length === 0) return `${lead} No two outputs chose the same cell here, so it matches the gradient's pattern cell for cell.`;
  const [r, c] = shared[0];
  const sources = trace.sources[r][c];
  let sentence = `${lead} They differ on a cell several outputs chose: cell ${cellName([r, c])}, chosen by outputs ${listCells(sources)}, holds one value, ${formatNumber(trace.unpooled[r][c])} (they all chose that very value; the last write wins), while the gradient adds their ${sources.length}`;
  sentence += trace.grad_terms ? `: ${formatSum(trace.grad_terms[r][c], trace.grad_input[r][c])}.` : ".";
  return sentence;
}
