// The chain's take-away code: PyTorch that builds the same chain, takes the same steps and
// checks with autograd the numbers the view shows (as the lesson's capstone does), and the
// poolgrad call that computed them. Pure functions of the state and its trace.

import { pythonNumber, pythonPair } from "../takeaway/snippets.js";
import { decodeNumber } from "../widget/format.js";
import { LOSSES, madeUpGradient } from "./request.js";

// Nested lists as a Python literal, exactly the float64 values held.
const pythonList = (value) => (Array.isArray(value) ? `[${value.map(pythonList).join(", ")}]` : pythonNumber(decodeNumber(value)));

function pythonUpstream(state) {
  const made = madeUpGradient(state);
  return typeof made === "number" ? "torch.ones_like(last)" : `torch.tensor(${pythonList(made)}, dtype=torch.float64)`;
}

export function chainTorchSnippet(state, trace) {
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

export function chainPoolgradSnippet(state) {
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
