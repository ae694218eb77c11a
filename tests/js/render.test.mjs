import assert from "node:assert/strict";
import { test } from "node:test";

import { redrawPlan, withMismatch } from "../../web/widget/render.js";
import { gridsKey, parseHash } from "../../web/widget/state.js";
import { recorded } from "./traces.mjs";

const { trace } = recorded("fixture_k2_grad");
const drawn = (hash, view = {}, extra = {}) => ({
  state: parseHash(hash),
  gridsKey: gridsKey(parseHash(hash)),
  trace,
  view: { editing: null, staleInput: false, traceError: null, stepMarks: null, ...view },
  awaitingTrace: false,
  ...extra,
});

test("the first render draws everything", () => {
  assert.equal(redrawPlan(null, drawn("#k=2")), "all");
});

test("a change of selection alone redraws the selection only", () => {
  assert.equal(redrawPlan(drawn("#k=2&sel=0,0"), drawn("#k=2&sel=1,1")), "selection");
  assert.equal(redrawPlan(drawn("#k=2&sel=0,0"), drawn("#k=2")), "selection");
});

test("anything else the grids draw redraws them all", () => {
  const before = drawn("#k=2&sel=0,0");
  assert.equal(redrawPlan(before, drawn("#k=2&sel=0,0&grad=1")), "all");
  assert.equal(redrawPlan(before, drawn("#k=2&sel=0,0", { editing: { grid: "input", row: 0, col: 0 } })), "all");
  assert.equal(redrawPlan(before, drawn("#k=2&sel=0,0", { stepMarks: new Map() })), "all");
  assert.equal(redrawPlan(before, drawn("#k=2&sel=0,0", { mismatches: new Map() })), "all");
  assert.equal(redrawPlan(before, drawn("#k=2&sel=0,0", {}, { trace: structuredClone(trace) })), "all");
  assert.equal(redrawPlan(before, drawn("#k=2&sel=0,0", { staleInput: true })), "all");
});

test("while the answer to a new state is on its way the grids wait for it, unless an edit starts or ends", () => {
  const before = drawn("#k=2&sel=0,0");
  assert.equal(redrawPlan(before, drawn("#k=3&sel=0,0", { staleInput: true }, { awaitingTrace: true })), "wait");
  const editing = { grid: "input", row: 1, col: 1 };
  assert.equal(redrawPlan(drawn("#k=2", { editing }), drawn("#k=2&x=1", { staleInput: true }, { awaitingTrace: true })), "all");
});

test("a cell the exercise checker found wrong carries data-mismatch and says expected and got", () => {
  const spec = { text: "1", attributes: { "data-zero": undefined }, label: "Input gradient row 0, col 0: 1" };
  assert.equal(withMismatch(spec, undefined), spec);
  assert.deepEqual(withMismatch(spec, { expected: "1", got: "0" }), {
    text: "1",
    attributes: { "data-zero": undefined, "data-mismatch": "true", title: "Your code: expected 1, got 0" },
    label: "Input gradient row 0, col 0: 1; wrong in your code: expected 1, got 0",
  });
});
