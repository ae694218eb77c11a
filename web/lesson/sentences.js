// The teaching sentences about a view, each in one place: the title of the view (the
// status line, the Code panel, the picture and the embed code all name a view with it)
// and the sentence about the selected output (#explanation, the announcer, the picture).

import { cellName, formatNumber, formatSum, listCells, pairText, sizeText } from "../widget/format.js";
import { selectedOutput, termFrom, windowCells, windowText } from "../widget/trace-view.js";

// "max pooling, 3 × 3 window, stride 1, padding 1": what the code (and the picture) shows.
export function viewTitle(state) {
  const parts = [`${state.mode === "max" ? "max" : "average"} pooling`, `${sizeText(state.k)} window`, `stride ${pairText(state.s)}`];
  if (state.p.some((p) => p > 0)) parts.push(`padding ${pairText(state.p)}`);
  if (state.mode === "max" && state.d.some((d) => d > 1)) parts.push(`dilation ${pairText(state.d)}`);
  if (state.ceil) parts.push("ceil_mode");
  if (state.mode === "avg" && !state.cip) parts.push("count_include_pad=False");
  if (state.grad) parts.push("gradient routing");
  return parts.join(", ");
}

// The parameters a trace was computed with, as a state (viewTitle's argument), gradient off:
// the status line names what Python computed, not what is being asked.
export function traceParameters(trace) {
  return { mode: trace.mode, k: trace.kernel_size, s: trace.stride, p: trace.padding, d: trace.dilation,
    ceil: trace.ceil_mode, cip: trace.count_include_pad, grad: false };
}

const MAX_LISTED_TERMS = 12;

function averageSentence(trace, [i, j]) {
  const cells = windowCells(trace, [i, j]);
  const kernelCells = trace.window_rows[i].length * trace.window_cols[j].length;
  const divisor = trace.divisor[i][j];
  const value = formatNumber(trace.output[i][j]);
  const terms = cells.map(([r, c]) => formatNumber(trace.input[r][c]));
  const sum = terms.length <= MAX_LISTED_TERMS ? `(${terms.join(" + ")})` : `(the sum of its ${terms.length} cells)`;
  let sentence = `Output ${cellName([i, j])} = ${value} is the mean of the window ${windowText(trace, [i, j])}: ${sum} / ${divisor} = ${value}.`;
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
  if (trace.mode === "avg") {
    let sentence = averageSentence(trace, output);
    if (showGradient) {
      const cells = windowCells(trace, output);
      sentence += ` Backward, its upstream gradient ${formatNumber(gradient)} is spread as ${formatNumber(gradient)} / ${trace.divisor[i][j]} = ${formatNumber(termFrom(trace, cells[0], output))} to each of those ${cells.length} input cells.`;
    }
    return sentence;
  }
  const [r, c] = trace.argmax[i][j];
  let sentence = `Output ${cellName([i, j])} = ${formatNumber(trace.output[i][j])} is the maximum of the window ${windowText(trace, output)}, taken from input cell ${cellName([r, c])}.`;
  if (showGradient) {
    const sources = trace.sources[r][c];
    sentence += ` Backward, its upstream gradient ${formatNumber(gradient)} goes to input cell ${cellName([r, c])} alone`;
    sentence += sources.length > 1
      ? `, which is also the maximum of ${listCells(sources.filter(([a, b]) => a !== i || b !== j))}: ${formatSum(trace.grad_terms[r][c], trace.grad_input[r][c])}.`
      : ".";
  }
  return sentence;
}
