import assert from "node:assert/strict";
import { test } from "node:test";

import { progressKey } from "../../web/lesson/guide.js";
import { combineCauses, GUIDE_STEPS, stepsShown, stepsTicked } from "../../web/lesson/guide-steps.js";
import { parseHash } from "../../web/widget/state.js";
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

test("the implicit first selection is nobody's pick: steps that ask for one stay undone", () => {
  // Output (0,0) of the Ties preset holds a tie, and is selected when the link has no sel.
  assert.equal(done("tie", "#k=2", "ties_k2"), false);
  assert.equal(done("routing", "#grad=1", "fixture_k2_grad"), false);
  assert.equal(done("shared", "#k=3&s=1", "fixture_k3s1_grad"), false);
  assert.equal(done("tie", "#k=2&sel=0,0", "ties_k2"), true);
});

const shown = (hash, name, context = {}) => stepsShown(parseHash(hash), recorded(name).trace, context);

test("a view from outside ticks nothing, however many steps it shows", () => {
  const linked = shown("#k=3&s=1&sel=0,0", "fixture_k3s1_grad");
  assert.deepEqual([...linked], ["shared"]);
  assert.deepEqual(stepsTicked(new Set(), linked, "outside"), []);
  assert.deepEqual(stepsTicked(new Set(), linked, null), []);
});

test("a learner's change ticks the steps it makes hold, not the ones that held before", () => {
  const before = shown("#k=2&s=2&grad=0&sel=0,0", "fixture_k2_nograd");
  const after = shown("#k=2&s=2&grad=1&sel=0,0", "fixture_k2_grad");
  assert.deepEqual(stepsTicked(before, after, "learner"), ["routing"]);
  // Turning the gradient on again while the step already held ticks nothing new.
  assert.deepEqual(stepsTicked(after, after, "learner"), []);
});

test("a pick ticks a picking step that held already, and no step that is not about picking", () => {
  const linked = shown("#k=3&s=1&mode=max&grad=1&sel=0,0", "fixture_k3s1_grad");
  const picked = shown("#k=3&s=1&mode=max&grad=1&sel=0,1", "fixture_k3s1_grad");
  assert.deepEqual(stepsTicked(linked, picked, "pick"), ["shared"]);
  const average = shown("#mode=avg&grad=1&sel=0,1", "average_k2_grad");
  assert.deepEqual([...average], ["spread"]);
  assert.deepEqual(stepsTicked(average, average, "pick"), []);
});

test("causes combine: a view from outside supersedes the learner's changes before it; a pick outranks a change", () => {
  assert.equal(combineCauses(null, "learner"), "learner");
  assert.equal(combineCauses("learner", "pick"), "pick");
  assert.equal(combineCauses("pick", "learner"), "pick");
  assert.equal(combineCauses("learner", "outside"), "outside");
  assert.equal(combineCauses("outside", "pick"), "outside");
  assert.equal(combineCauses(null, null), null);
});

test("progress is kept per widget page and lesson page: the host's id, else the framing page's path", () => {
  const widget = { pathname: "/lessons/poolgrad/index.html", search: "?embed=1" };
  assert.equal(progressKey(widget, false, ""), "poolgrad-guide-v2|/lessons/poolgrad/index.html|page");
  // The widget opened on its own ignores where the learner came from.
  assert.equal(progressKey(widget, false, "https://example.org/week-1.html"), progressKey(widget, false, ""));
  assert.equal(progressKey(widget, true, "https://example.org/course/week-1.html?tab=2#top"),
    "poolgrad-guide-v2|/lessons/poolgrad/index.html|in:https://example.org/course/week-1.html");
  assert.notEqual(progressKey(widget, true, "https://example.org/course/week-1.html"),
    progressKey(widget, true, "https://example.org/course/week-2.html"));
  // The teacher's id wins over the referrer: two widgets on one page keep apart.
  const withId = (id) => ({ ...widget, search: `?embed=1&id=${id}` });
  assert.equal(progressKey(withId("max-a"), true, "https://example.org/w1.html"), "poolgrad-guide-v2|/lessons/poolgrad/index.html|id:max-a");
  assert.notEqual(progressKey(withId("max-a"), true, ""), progressKey(withId("max-b"), true, ""));
  // Another copy of the widget on the site is another widget.
  assert.notEqual(progressKey({ ...widget, pathname: "/other/index.html" }, false, ""), progressKey(widget, false, ""));
  assert.equal(progressKey(widget, true, ""), "poolgrad-guide-v2|/lessons/poolgrad/index.html|in:unknown");
});
