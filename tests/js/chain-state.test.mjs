// The chain view's keys in the hash table (state.js) and its request (chain/request.js).
import test from "node:test";
import assert from "node:assert/strict";

import { chainRequest, lastOutputShape, madeUpGradient } from "../../web/chain/request.js";
import { InputError, modelValues, parseHash, serialiseState, stateFromModel } from "../../web/widget/state.js";
import "../../web/chain/keys.js"; // the chain view's keys, as the view's module adds them

const CAPSTONE_LINK = "#view=chain&cx=1,2,0,3,1,0;0,1,3,1,2,2;2,0,1,0,1,3;1,3,2,2,0,1;0,1,1,3,2,0;2,2,0,1,1,1"
  + "&cw=0.5,-0.5,0;0,1,0;0.5,0,-0.5&cpool=max&cup=loss-mse&ct=2,1;0,3&lr=0.01&steps=0";

test("view=chain alone is the capstone, written whole; the pooling view's keys are left out at their start", () => {
  assert.equal(serialiseState(parseHash("#view=chain")), CAPSTONE_LINK);
  assert.equal(serialiseState(parseHash(CAPSTONE_LINK)), CAPSTONE_LINK);
  // A pooling setting that differs from its start travels with the chain link.
  assert.equal(serialiseState(parseHash("#k=3&view=chain")), `#k=3&${CAPSTONE_LINK.slice(1)}`);
});

test("several channels and filters: | between channels, / between filters; bias, ReLU, hot cell, steps round-trip", () => {
  const link = "#view=chain&cx=1,2,3;4,5,6;7,8,9|0,0,0;0,-0,0;0,0,NaN&cw=1,0;0,1|1,1;1,1/2,2;2,2|3,3;3,3&cb=1,-2&relu=1"
    + "&cpool=avg&cpk=1&cup=hot&hot=0,1&ct=2,1;0,3&lr=0.5&steps=7";
  const state = parseHash(link);
  assert.deepEqual([state.cx.length, state.cw.length, state.cw[0].length, state.cb, state.hot, state.steps], [2, 2, 2, [1, -2], [0, 1], 7]);
  assert.equal(serialiseState(state), link);
  assert.equal(serialiseState(stateFromModel((key) => JSON.parse(JSON.stringify(modelValues(state)))[key])), link);
});

test("the pooling view's model values keep their keys' values; the chain's are null there", () => {
  const values = modelValues(parseHash("#k=3"));
  assert.equal(values.view, null);
  assert.equal(values.chain_x, null);
  assert.equal(serialiseState(stateFromModel((key) => values[key])), serialiseState(parseHash("#k=3")));
});

const REFUSED = [
  ["#view=chain&cw=1,2;3,4|1,1;1,1", /weight cw has 2 channel slices per filter but the input cx has 1 channel; give each filter one slice per input channel/],
  ["#view=chain&cw=1,2;3", /weight cw filter 0 channel 0 is ragged/],
  ["#view=chain&cx=1,2|1,2,3", /input cx channel 1 is 1 × 3 but channel 0 is 1 × 2; every channel needs the same shape/],
  ["#view=chain&cx=1|2|3|4", /input cx has 4 channels; the limit is 3/],
  ["#view=chain&cb=1,2", /bias cb has 2 values but the weight cw has 1 filter/],
  ["#cx=1", /cx does not apply here; it is the chain view's \(view=chain\)/],
  ["#view=chain&hot=1,1", /the hot cell is the upstream's when cup=hot/],
  ["#view=chain&steps=900", /step count \(steps\) must be a whole number from 0 to 500/],
  ["#view=chain&lr=-1", /learning rate \(lr\) must be a number above 0/],
  ["#view=chain&cpool=min", /cpool must be max, avg or none/],
];
for (const [hash, message] of REFUSED) {
  test(`the chain refuses ${hash} saying what to fix`, () => {
    assert.throws(() => parseHash(hash), (error) => error instanceof InputError && error.source === "hash" && message.test(error.message));
  });
}

test("the request: chain_trace's arguments; a made-up upstream sized by the last output's shape", () => {
  const state = parseHash("#view=chain");
  assert.deepEqual(lastOutputShape(state), [1, 2, 2]);
  assert.deepEqual(chainRequest(state), {
    kind: "chain", x: state.cx, weight: state.cw, target: [[[2, 1], [0, 3]]], bias: null, activation: null, pool: "max",
    pool_kernel_size: [2, 2], loss: "mse", grad_output: null, learning_rate: 0.01, steps: 0,
  });
  const lesson = parseHash("#view=chain&cx=3,0,1,2,7;1,5,8,9,3;2,7,2,5,1;0,1,3,1,7;4,2,1,6,2&cw=1,0,-1;1,0,-1;1,0,-1&cpool=none&cup=ramp");
  assert.deepEqual(madeUpGradient(lesson), [[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]);
  const hot = parseHash("#view=chain&cup=hot&hot=1,0");
  assert.deepEqual(chainRequest(hot).grad_output, [[[0, 0], [1, 0]]]);
  assert.equal(chainRequest(hot).loss, null);
  assert.equal(chainRequest(parseHash("#view=chain&cup=ones")).grad_output, 1);
});
