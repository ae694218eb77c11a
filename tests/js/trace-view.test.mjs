import assert from "node:assert/strict";
import { test } from "node:test";

import { parseHash } from "../../web/widget/state.js";
import {
  gradientReceivers, outputInRange, selectedOutput, sharedCells, termFrom, tiedCells, windowCells, windowSamples, windowText,
} from "../../web/widget/trace-view.js";
import { recorded } from "./traces.mjs";

test("a selection outside the current output is no selection", () => {
  const { trace } = recorded("fixture_k2_grad");
  assert.deepEqual(selectedOutput(parseHash("#sel=1,1"), trace), [1, 1]);
  assert.equal(selectedOutput(parseHash("#sel=2,0"), trace), null);
  assert.deepEqual(selectedOutput(parseHash(""), trace), [0, 0]); // the implicit selection
  assert.equal(selectedOutput({ ...parseHash(""), sel: null }, trace), null);
  assert.equal(selectedOutput(parseHash("#sel=0,0"), null), null);
});

test("window cells: the k x k cells an output samples, padding left out, dilation skipping", () => {
  assert.deepEqual(windowCells(recorded("fixture_k3s1_grad").trace, [0, 1]),
    [[0, 1], [0, 2], [0, 3], [1, 1], [1, 2], [1, 3], [2, 1], [2, 2], [2, 3]]);
  assert.deepEqual(windowCells(recorded("fixture_k3s1p1").trace, [0, 0]), [[0, 0], [0, 1], [1, 0], [1, 1]]);
  assert.deepEqual(windowCells(recorded("fixture_k2s1d2").trace, [1, 1]), [[1, 1], [1, 3], [3, 1], [3, 3]]);
});

test("ties list every cell holding the maximum, the winner first", () => {
  const { trace } = recorded("ties_k2");
  assert.deepEqual(tiedCells(trace, [0, 0]), [[0, 0], [0, 1], [1, 1]]);
  assert.deepEqual(trace.argmax[0][0], [0, 0]);
  assert.deepEqual(tiedCells(recorded("fixture_k2_grad").trace, [0, 0]), [[1, 1]]);
});

test("terms: what one output sends to one cell", () => {
  const average = recorded("average_k2_grad").trace;
  assert.equal(termFrom(average, [3, 3], [1, 1]), 1);
  assert.equal(termFrom(average, [0, 0], [0, 0]), 0.25);
  assert.equal(termFrom(average, [0, 0], [1, 1]), null);
  const overlap = recorded("fixture_k3s1_grad").trace;
  assert.deepEqual(overlap.sources[1][2], [[0, 0], [0, 1]]);
  assert.equal(termFrom(overlap, [1, 2], [0, 1]), 1);
});

test("window samples include padding; the text names rows and columns as sentences do", () => {
  const { trace } = recorded("fixture_k3s1p1");
  assert.deepEqual(windowSamples(trace, [0, 0]).slice(0, 4), [[-1, -1], [-1, 0], [-1, 1], [0, -1]]);
  assert.equal(windowSamples(trace, [0, 0]).length, 9);
  assert.equal(windowText(trace, [0, 0]), "rows -1 to 1, cols -1 to 1");
  assert.equal(windowText(recorded("fixture_k2s1d2").trace, [0, 1]), "rows 0, 2, cols 1, 3");
});

test("gradient receivers: the argmax in max mode, the whole window in average mode", () => {
  assert.deepEqual(gradientReceivers(recorded("fixture_k2_grad").trace, [1, 1]), [[2, 3]]);
  assert.deepEqual(gradientReceivers(recorded("average_k2_grad").trace, [0, 1]), [[0, 2], [0, 3], [1, 2], [1, 3]]);
});

test("shared cells: the inputs that collect from several outputs", () => {
  assert.deepEqual(sharedCells(recorded("fixture_k3s1_grad").trace), [[1, 2], [3, 1]]);
  assert.deepEqual(sharedCells(recorded("fixture_k2_grad").trace), []);
});

test("an output is in range only inside the output grid", () => {
  const { trace } = recorded("fixture_k3s1_grad");
  assert.deepEqual([[1, 1], [2, 0], [0, 2], [-1, 0]].map((cell) => outputInRange(trace, cell)), [true, false, false, false]);
});
