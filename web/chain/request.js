// The chain view's request to Python: the state's chain keys as poolgrad.chain_trace's
// keyword arguments ({"kind": "chain", ...}, docs/trace-contract.md). Pure; no DOM.

import { wireNumber } from "../widget/format.js";

const planes = (value) => (Array.isArray(value[0]) ? value.map(planes) : value.map(wireNumber));

// The last output's shape, (filters, rows, cols), read off the state's shapes alone: the
// view offers a convolution of stride 1 without padding, and a pooling whose stride is its
// window. It only sizes the made-up upstream gradients (a ramp, a hot cell) and the target;
// every value is Python's. Sides below 1 come back as 0 (Python names the problem).
export function lastOutputShape(state) {
  const [height, width] = [state.cx[0].length, state.cx[0][0].length];
  const [kh, kw] = [state.cw[0][0].length, state.cw[0][0][0].length];
  const conv = [Math.max(0, height - kh + 1), Math.max(0, width - kw + 1)];
  const pooled = state.cpool === "none" ? conv : conv.map((side, i) => Math.max(0, Math.floor((side - state.cpk[i]) / state.cpk[i]) + 1));
  return [state.cw.length, ...pooled];
}

// The made-up dL/d(last output) of the upstream choices that are not a loss: all ones, the
// ramp 1..n over each filter's plane, or 1 on the hot cell of the first filter.
export function madeUpGradient(state) {
  if (state.cup === "ones") return 1;
  const [filters, rows, cols] = lastOutputShape(state);
  if (rows === 0 || cols === 0) return 1;
  return Array.from({ length: filters }, (_, f) => Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => {
    if (state.cup === "ramp") return r * cols + c + 1;
    return f === 0 && r === state.hot[0] && c === state.hot[1] ? 1 : 0;
  })));
}

// The loss an upstream choice names, or null for a made-up gradient.
export const LOSSES = { "loss-mse": "mse", "loss-l1": "l1" };

export function chainRequest(state) {
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

export function chainRequestKey(state) {
  return JSON.stringify(chainRequest(state));
}
