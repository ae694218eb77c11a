import assert from "node:assert/strict";
import { test } from "node:test";

import { firstMinuteKeys, firstViewKeys, firstViewStates } from "../../web/lesson/first-views.js";
import { GUIDE_STEPS } from "../../web/lesson/guide-steps.js";
import { PRESETS } from "../../web/widget/presets.js";
import { defaultState, FIXTURE, presetChange, requestKey, traceRequest } from "../../web/widget/state.js";
import { recorded } from "./traces.mjs";

const leadsTo = (id) => {
  const state = defaultState();
  GUIDE_STEPS.find((step) => step.id === id).leadsTo(state);
  return state;
};

test("the landing views: the default view first, each preset's view and each step's, in max and average", () => {
  const keys = firstViewKeys();
  assert.equal(keys[0], requestKey(defaultState()));
  assert.equal(new Set(keys).size, keys.length);
  const requests = keys.map((key) => JSON.parse(key));
  for (const name of ["fixture", "distinct", "ties", "negatives"]) {
    for (const mode of ["max", "avg"]) {
      assert.ok(requests.some((r) => r.mode === mode && JSON.stringify(r.x) === JSON.stringify(PRESETS[name].make([4, 4]))
        && r.kernel_size?.join() === "2,2"), `${name} ${mode}`);
    }
  }
  for (const step of GUIDE_STEPS) assert.ok(keys.includes(requestKey(leadsTo(step.id))), step.id);
  // The random preset has no view to precompute; the global and adaptive presets are shown
  // in both adaptive modes.
  assert.equal(keys.length, 14);
  for (const [name, size] of [["global_avg", [1, 1]], ["adaptive_overlap", [3, 3]]]) {
    for (const mode of ["adaptive_avg", "adaptive_max"]) {
      assert.ok(requests.some((r) => r.mode === mode && JSON.stringify(r.x) === JSON.stringify(PRESETS[name].make([4, 4]))
        && r.output_size.join() === size.join()), `${name} ${mode}`);
    }
  }
});

test("a key is the page's request text, the very JSON the worker is sent", () => {
  for (const state of firstViewStates()) {
    assert.equal(requestKey(state), JSON.stringify(traceRequest(state)));
    assert.deepEqual(JSON.parse(requestKey(state)), traceRequest(state));
  }
  assert.equal(
    firstViewKeys()[0],
    `{"x":${JSON.stringify(FIXTURE)},"kernel_size":[2,2],"stride":[2,2],"padding":[0,0],"dilation":[1,1],`
      + `"ceil_mode":false,"count_include_pad":true,"mode":"max","grad_output":1}`,
  );
});

test("each Try-it step leads to a view that, with an output selected, does the step", () => {
  const cases = { shared: "fixture_k3s1_grad", routing: "fixture_k2_grad", spread: "average_k2_grad", tie: "ties_k2" };
  for (const step of GUIDE_STEPS) {
    const state = { ...leadsTo(step.id), sel: [0, 0], selImplicit: false };
    assert.equal(step.done(state, recorded(cases[step.id]).trace, {}), true, step.id);
  }
  assert.deepEqual([leadsTo("shared").k, leadsTo("shared").s, leadsTo("shared").mode], [[3, 3], [1, 1], "max"]);
  assert.deepEqual(leadsTo("tie").x, PRESETS.ties.make([4, 4]));
});

test("the first minute: every single control change from every landing view, each key once, no landing view again", () => {
  const landing = new Set(firstViewKeys());
  const keys = firstMinuteKeys();
  assert.equal(new Set(keys).size, keys.length);
  assert.ok(keys.every((key) => !landing.has(key)));
  const has = (change) => keys.includes(requestKey(change(defaultState())));
  const withParam = (key, value, extra = {}) => (state) => Object.assign(state, { [key]: value, ...extra });
  // From the default view (max pooling, 2 x 2, stride 2): each value of each field.
  for (const n of [1, 3, 4, 5]) assert.ok(has(withParam("k", [n, n])), `kernel ${n}`);
  for (const n of [1, 3, 4]) assert.ok(has(withParam("s", [n, n])), `stride ${n}`);
  assert.ok(has(withParam("p", [1, 1])) && has(withParam("p", [2, 2])));
  for (const n of [2, 3]) assert.ok(has(withParam("d", [n, n])), `dilation ${n}`);
  assert.ok(has(withParam("ceil", true)));
  // From the average view: count_include_pad off; no dilation there (the field is disabled).
  const average = (change) => (state) => change(Object.assign(state, { mode: "avg" }));
  assert.ok(has(average(withParam("cip", false))));
  assert.ok(!has(average(withParam("d", [2, 2]))));
  // From the 3 x 3, stride 1 step: stride 2, padding 1, kernel 5.
  const step = leadsTo("shared");
  for (const change of [{ s: [2, 2] }, { p: [1, 1] }, { k: [5, 5] }]) {
    assert.ok(keys.includes(requestKey({ ...structuredClone(step), ...change })), JSON.stringify(change));
  }
  // The gradient toggle and the selection are not part of a request: no view of their own.
  assert.equal(requestKey({ ...defaultState(), grad: true, sel: [1, 1] }), requestKey(defaultState()));
  // The family: each mode from the default view, unpooling in max mode, and from the
  // global average preset each output size 2-4.
  for (const mode of ["adaptive_max", "adaptive_avg", "lp"]) assert.ok(has(withParam("mode", mode, { g: null })), mode);
  assert.ok(has(withParam("unpool", true)));
  const global = defaultState();
  presetChange("global_avg")(global);
  for (const n of [2, 3, 4]) assert.ok(keys.includes(requestKey({ ...structuredClone(global), o: [n, n] })), `output size ${n}`);
  assert.equal(keys.length, 144);
});
