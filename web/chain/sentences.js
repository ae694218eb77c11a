// The chain view's words: its title, each grid's one-line caption, the loss's formula
// with the live numbers, the sentence about the tapped cell, and the lesson text. Pure
// functions of chain_trace's answer (and the tap); every number they quote is the trace's.

import { cellName, formatNumber, listCells } from "../widget/format.js";

const POOL_NAMES = { max: "max pool", avg: "average pool" };
const LOSS_NAMES = { mse: "MSE", l1: "L1" };
const UPSTREAM_NAMES = { ones: "all ones", ramp: "a ramp 1..n", hot: "one hot cell" };

// The Y1 cell at flat index `index` of a plane `width` wide (chain_trace's pool_indices).
export const flatCell = (index, width) => [Math.floor(index / width), index % width];

const shapeOf = (planes) => [planes.length, planes[0].length, planes[0][0].length];
// The last output of the forward pass: Y2, or Y1 (after the ReLU) without pooling.
export const lastOutput = (trace) => trace.pool_output ?? trace.activation_output ?? trace.conv_output;

export function chainTitle(trace) {
  const [, , kh, kw] = [trace.weight.length, trace.weight[0].length, trace.weight[0][0].length, trace.weight[0][0][0].length];
  const parts = [`conv ${kh} × ${kw}`];
  if (trace.activation) parts.push("ReLU");
  if (trace.pool) parts.push(`${POOL_NAMES[trace.pool]} ${trace.pool_kernel_size[0]} × ${trace.pool_kernel_size[1]}`);
  parts.push(trace.upstream === "loss" ? LOSS_NAMES[trace.loss_function] : "made-up gradient");
  return `the chain ${parts.join(" → ")}`;
}

// How many Y1 cells got gradient from the pooling (pool_receivers > 0), of how many.
export function gradientCount(trace) {
  if (!trace.pool_receivers) return null;
  const cells = trace.pool_receivers.flat(2);
  return { got: cells.filter((count) => count > 0).length, total: cells.length };
}

// Each grid's one-line caption: how it was computed.
export function captions(trace, upstream) {
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
export function lossFormula(trace) {
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
export function tapSentence(trace, tap, conv) {
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
export const lastBeforePool = (trace) => trace.activation_output ?? trace.conv_output;

// The lesson text: the two facts behind the derivation, the flipped filter, pooling's
// routing inside the chain (with the live count), learning.
export function chainLessonBlocks(trace) {
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
export const TRY_IT = [
  "An edge or blur filter: pick Filter: vertical edge, horizontal edge or blur, and watch Y1 and dL/dX change.",
  "A single hot pixel: set the gradient to start at one hot cell, tap cells of dL/dY2 to move it, and see which X cells receive it.",
  "A 3 × 3 block: pick the 3 × 3 pooling preset; only one Y1 cell in nine gets gradient.",
  "A bias: turn the bias on; dL/db is the sum of dL/dY1.",
  "L1 in place of MSE: its gradient is sign(Y − T)/n, the same size wherever Y misses T.",
];
