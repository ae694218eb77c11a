import assert from "node:assert/strict";
import { test } from "node:test";

import { defaultState, FIXTURE, HashError, parseHash, requestKey, serialiseState, traceRequest } from "../../web/state.js";

const FIXTURE_TEXT = "1,2,5,6;3,4,8,7;0,-1,-3,-2;-4,9,-6,-5";
const CANONICAL = `#k=3&s=1&p=0&d=1&mode=max&grad=1&sel=0,1&x=${FIXTURE_TEXT}`;

test("an empty hash is the default view: the lesson's fixture, 2 x 2 max pooling, stride 2", () => {
  assert.deepEqual(parseHash(""), defaultState());
  assert.deepEqual(defaultState().x, FIXTURE);
  assert.equal(serialiseState(defaultState()), `#k=2&s=2&p=0&d=1&mode=max&grad=0&x=${FIXTURE_TEXT}`);
});

test("the canonical hash parses to its state and serialises back unchanged", () => {
  const state = parseHash(CANONICAL);
  assert.deepEqual(state.k, [3, 3]);
  assert.deepEqual(state.s, [1, 1]);
  assert.deepEqual(state.sel, [0, 1]);
  assert.equal(state.grad, true);
  assert.equal(serialiseState(state), CANONICAL);
});

test("a missing stride equals the kernel, as in PyTorch; pairs keep their order", () => {
  assert.deepEqual(parseHash("#k=3").s, [3, 3]);
  const state = parseHash("#k=3,2&p=1,0&ceil=1&cip=0&mode=avg");
  assert.deepEqual([state.k, state.s, state.p, state.ceil, state.cip], [[3, 2], [3, 2], [1, 0], true, false]);
  assert.match(serialiseState(state), /^#k=3,2&s=3,2&p=1,0&d=1&mode=avg&ceil=1&cip=0&grad=0&x=/);
});

test("non-finite values survive the hash and reach the worker spelled as JSON-safe words", () => {
  const state = parseHash("#x=NaN,Infinity;-Infinity,1.5&g=1");
  assert.ok(Number.isNaN(state.x[0][0]));
  assert.deepEqual(traceRequest(state).x, [["NaN", "Infinity"], ["-Infinity", 1.5]]);
  assert.deepEqual(traceRequest(state).grad_output, [[1]]);
  assert.equal(traceRequest(parseHash("")).grad_output, 1);
});

test("the request key ignores what only the view uses (selection, gradient toggle)", () => {
  assert.equal(requestKey(parseHash("#k=3&sel=0,0&grad=1")), requestKey(parseHash("#k=3")));
  assert.notEqual(requestKey(parseHash("#k=3")), requestKey(parseHash("#k=2")));
});

const REFUSED = [
  ["#k=0", /kernel \(k\) must be between 1 and 16; got 0/],
  ["#k=3,2,1", /kernel \(k\) takes one number or a pair like 3,2/],
  ["#s=two", /stride \(s\) must be a whole number or a pair like 3,2; got "two"/],
  ["#mode=min", /mode must be max or avg; got "min"/],
  ["#grad=yes", /grad must be 0 or 1/],
  ["#k=2&k=3", /k appears twice in the link/],
  ["#zoom=2", /unknown setting "zoom" in the link/],
  ["#sel=a", /sel must be row,col of an output cell, like 0,1/],
  ["#x=1,2;3", /the input x is ragged: row 1 has 1 values, row 0 has 2/],
  ["#x=1,abc", /the input x row 0, col 1: "abc" is not a number/],
  ["#x=1e16", /too large; values must lie between -1e15 and 1e15/],
  [`#x=${Array(17).fill("1").join(";")}`, /the input x has 17 rows; the limit is 16 x 16/],
  [`#x=${Array(17).fill("1").join(",")}`, /the input x has 17 columns; the limit is 16 x 16/],
  ["#mode=avg&d=2", /dilation applies to max pooling only/],
  ["#x=", /the input x is empty/],
];

for (const [hash, message] of REFUSED) {
  test(`refuses ${hash.slice(0, 30)} with a message saying what to fix`, () => {
    assert.throws(() => parseHash(hash), (error) => error instanceof HashError && message.test(error.message));
  });
}
