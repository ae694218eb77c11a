// The lesson beside the widget: a pure function of (state, trace) -> text blocks, and
// their rendering (textContent only). Every number a sentence quotes comes from the
// current trace, so the text and the grids never disagree; without a trace (booting, or
// an invalid setup) the blocks say the same things without numbers.

import { cellName, formatNumber, formatSum, listCells, pairText, sizeText } from "../widget/format.js";
import { normText, unpoolText } from "./sentences.js";
import { decodeNumber } from "../widget/format.js";
import { gradientReceivers, selectedOutput, sharedCells, termFrom, tiedCells, windowCells, windowSize, windowText } from "../widget/trace-view.js";

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
export function lessonBlocks(state, trace) {
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

export function renderLesson(container, blocks) {
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
