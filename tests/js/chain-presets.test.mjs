// The chain view's presets (chain/presets.js) and words (chain/sentences.js): pure modules.
import assert from "node:assert/strict";
import { test } from "node:test";

import { FILTERS, VIEWS, fitTarget, presetChange, presetShowing } from "../../web/chain/presets.js";
import { chainTitle, flatCell, gradientCount, lossFormula } from "../../web/chain/sentences.js";
import { parseHash, serialiseState } from "../../web/widget/state.js";
import "../../web/chain/keys.js"; // the chain view's keys, as the view's module adds them

test("every preset makes a state whose link parses back to it, and is recognised as shown", () => {
  for (const name of [...Object.keys(VIEWS), ...Object.keys(FILTERS)]) {
    const state = parseHash("#view=chain&steps=4");
    presetChange(name, () => 0.75)(state);
    assert.equal(state.steps, 0, name);
    assert.equal(serialiseState(parseHash(serialiseState(state))), serialiseState(state), name);
    assert.equal(presetShowing(state, state.cw[0][0]), name);
  }
});

test("a filter over three channels repeats its slice per channel; the target follows the last output's shape", () => {
  const state = parseHash("#view=chain");
  presetChange("rgb-two-filters")(state);
  presetChange("blur")(state);
  assert.deepEqual([state.cw.length, state.cw[0].length, state.cb], [1, 3, null]);
  assert.deepEqual(state.ct, [[[2, 1], [0, 3]]]);
  state.cpool = "none";
  fitTarget(state);
  assert.deepEqual(state.ct, [[[2, 1, 0, 0], [0, 3, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]]);
});

test("the words read the trace: the title, the count of Y1 cells with gradient, the loss's formula", () => {
  const trace = {
    weight: [[[[1, 0], [0, 1]]]], activation: null, pool: "max", pool_kernel_size: [2, 2], upstream: "loss", loss_function: "mse",
    pool_receivers: [[[0, 1], [0, 0]]], pool_output: [[[4]]], target: [[[2]]], loss: 4,
  };
  assert.equal(chainTitle(trace), "the chain conv 2 × 2 → max pool 2 × 2 → MSE");
  assert.deepEqual(gradientCount(trace), { got: 1, total: 4 });
  assert.equal(lossFormula(trace), "L = mean (Y − T)² = 1/1 · [(4 − 2)²] = 4");
  assert.deepEqual(flatCell(5, 4), [1, 1]);
});

test("the chain's shipped views are the view=chain link's and each preset's but the random filter's, each once", async () => {
  const { chainFirstViewKeys } = await import("../../web/chain/first-views.js");
  const { chainRequestKey } = await import("../../web/chain/request.js");
  const keys = chainFirstViewKeys();
  const link = parseHash("#view=chain");
  assert.equal(keys[0], chainRequestKey(link));
  const lesson = parseHash("#view=chain");
  presetChange("lesson-conv")(lesson);
  assert.ok(keys.includes(chainRequestKey(lesson)));
  // The link's view is the capstone's: it and the other 3 views, and 5 named filters, make 9 keys.
  assert.equal(new Set(keys).size, keys.length);
  assert.equal(keys.length, Object.keys(VIEWS).length + Object.keys(FILTERS).length - 1);
  assert.equal(keys.length, 9);
  assert.ok(keys.every((key) => JSON.parse(key).kind === "chain"));
});
