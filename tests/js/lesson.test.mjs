import assert from "node:assert/strict";
import { test } from "node:test";

import { lessonBlocks, selectedOutput, termFrom, tiedCells, windowCells } from "../../web/lesson.js";
import { parseHash } from "../../web/state.js";
import { recorded } from "./traces.mjs";

const numbersIn = (text) => (text.match(/-?\d+(\.\d+)?/g) ?? []).map(Number);

test("a selection outside the current output is no selection", () => {
  const { trace } = recorded("fixture_k2_grad");
  assert.deepEqual(selectedOutput(parseHash("#sel=1,1"), trace), [1, 1]);
  assert.equal(selectedOutput(parseHash("#sel=2,0"), trace), null);
  assert.equal(selectedOutput(parseHash(""), trace), null);
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

test("the lesson quotes the selection's own numbers", () => {
  const { trace } = recorded("fixture_k2_grad");
  const blocks = lessonBlocks(parseHash("#grad=1&sel=1,0&g=1,2;3,4"), trace);
  assert.deepEqual(blocks.map((block) => block.topic), ["keeps", "remembers", "gradient", "average", "shrink", "overlap"]);
  const keeps = blocks[0].sentences.join(" ");
  // Output (1,0) keeps 9, the largest of the 4 values of rows 2-3, cols 0-1; 3 are dropped.
  assert.ok(keeps.includes("(1,0)") && numbersIn(keeps).includes(9) && numbersIn(keeps).includes(4), keeps);
  const gradient = blocks[2].sentences.join(" ");
  assert.ok(gradient.includes("(3,1)") && numbersIn(gradient).includes(3), gradient);
});

test("without a trace the lesson says the same things without numbers", () => {
  for (const block of lessonBlocks(parseHash("#sel=0,0"), null)) {
    assert.ok(block.sentences.length > 0, block.topic);
    assert.ok(!/\(\d+,\d+\)/.test(block.sentences.join(" ")), block.topic);
  }
});
