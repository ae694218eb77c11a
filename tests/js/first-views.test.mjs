import assert from "node:assert/strict";
import { test } from "node:test";

import { firstViewKeys, firstViewStates } from "../../web/lesson/first-views.js";
import { GUIDE_STEPS } from "../../web/lesson/guide.js";
import { PRESETS } from "../../web/widget/presets.js";
import { defaultState, FIXTURE, requestKey, traceRequest } from "../../web/widget/state.js";
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
        && r.kernel_size.join() === "2,2"), `${name} ${mode}`);
    }
  }
  for (const step of GUIDE_STEPS) assert.ok(keys.includes(requestKey(leadsTo(step.id))), step.id);
  // The random preset has no view to precompute.
  assert.equal(keys.length, 10);
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
