// The code a learner takes away: Python that rebuilds the current view in PyTorch or in
// poolgrad, the link, and the iframe that embeds the view. Pure functions of the state:
// they write code text, they compute no pooling (Python does, when the code runs).
//
// Every number is written so that Python reads back the very float64 the widget holds:
// the shortest round-trip spelling (String()), with -0.0, float('nan'), float('inf')
// where JavaScript's spelling is not Python's. Both snippets build float64 arrays, the
// dtype the widget's gradients are computed in; an integer input pools to the same values.

import { escapeXml, pairText, sizeText } from "../widget/format.js";
import { viewTitle } from "../lesson/sentences.js";
import { sizePoolgradFrames } from "../embed-sizing.js";

// One float64 as a Python literal that evaluates to exactly that float.
export function pythonNumber(value) {
  if (Number.isNaN(value)) return "float('nan')";
  if (value === Infinity) return "float('inf')";
  if (value === -Infinity) return "-float('inf')";
  if (Object.is(value, -0)) return "-0.0";
  return String(value);
}

// A matrix as a Python list of rows, one row a line, indented under the call that holds it.
export function pythonMatrix(rows, indent = "    ") {
  const lines = rows.map((row) => `${indent}[${row.map(pythonNumber).join(", ")}],`);
  return `[\n${lines.join("\n")}\n]`;
}

// A kernel/stride/padding/dilation pair as both APIs take it: 3 when square, (3, 2) if not.
export function pythonPair([first, second]) {
  return first === second ? String(first) : `(${first}, ${second})`;
}

const pythonFlag = (flag) => (flag ? "True" : "False");

// The keyword arguments of the pooling call, in the order of the APIs' signatures: each
// API takes dilation in max mode only, count_include_pad in average mode only; the
// adaptive ones take the output size alone, LP pooling p first and no padding.
export function poolingArguments(state) {
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
export const FUNCTIONS = {
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
export function wrapArguments(head, args, width = 72) {
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
export function torchSnippet(state) {
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
export function poolgradSnippet(state) {
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
export function embedCode({ pageUrl, hash, lesson = true, code = true, id, state }) {
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
