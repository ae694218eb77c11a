import assert from "node:assert/strict";
import { test } from "node:test";

import { GUIDE_STEPS } from "../../web/guide.js";
import { parseHash } from "../../web/state.js";
import { recorded } from "./traces.mjs";

const step = (id) => GUIDE_STEPS.find((s) => s.id === id);
const done = (id, hash, name, context = {}) => step(id).done(parseHash(hash), recorded(name).trace, context);

test("the steps are the four experiments, in order", () => {
  assert.deepEqual(GUIDE_STEPS.map((s) => s.id), ["shared", "routing", "spread", "tie"]);
});

test("shared: a 3 x 3 / stride 1 output whose maximum another output shares", () => {
  assert.equal(done("shared", "#k=3&s=1&sel=0,0", "fixture_k3s1_grad"), true);
  assert.equal(done("shared", "#k=3&s=1", "fixture_k3s1_grad"), false);
  assert.equal(done("shared", "#k=3&s=1", "fixture_k3s1_grad", { inspected: [1, 2] }), true);
  assert.equal(done("shared", "#k=3&s=1", "fixture_k3s1_grad", { inspected: [0, 0] }), false);
  assert.equal(done("shared", "#sel=0,0", "fixture_k2_grad"), false);
});

test("routing: 2 x 2 / stride 2 with the gradient on and an output selected", () => {
  assert.equal(done("routing", "#grad=1&sel=0,0", "fixture_k2_grad"), true);
  assert.equal(done("routing", "#grad=0&sel=0,0", "fixture_k2_grad"), false);
  assert.equal(done("routing", "#grad=1", "fixture_k2_grad"), false);
  assert.equal(done("routing", "#grad=1&sel=0,0", "fixture_k2_nograd"), false);
});

test("spread: average mode with the gradient shown", () => {
  assert.equal(done("spread", "#mode=avg&grad=1", "average_k2_grad"), true);
  assert.equal(done("spread", "#mode=avg&grad=0", "average_k2_grad"), false);
  assert.equal(done("spread", "#grad=1", "fixture_k2_grad"), false);
});

test("tie: an output whose window holds its maximum twice", () => {
  assert.equal(done("tie", "#sel=0,0", "ties_k2"), true);
  assert.equal(done("tie", "#sel=0,0", "fixture_k2_grad"), false);
  assert.equal(done("tie", "", "ties_k2"), false);
});
