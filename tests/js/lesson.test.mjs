import assert from "node:assert/strict";
import { test } from "node:test";

import { lessonBlocks } from "../../web/lesson/lesson.js";
import { parseHash } from "../../web/widget/state.js";
import { recorded } from "./traces.mjs";

const numbersIn = (text) => (text.match(/-?\d+(\.\d+)?/g) ?? []).map(Number);

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

test("overlap: the shared cell's sum is quoted term by term, in max and in average mode", () => {
  const overlap = lessonBlocks(parseHash("#k=3&s=1&grad=1&sel=0,1"), recorded("fixture_k3s1_grad").trace)[5].sentences.join(" ");
  assert.match(overlap, /With stride 1 and 3 × 3 windows the windows overlap: cell \(1,2\) is the maximum of outputs \(0,0\) and \(0,1\), so it collects 1 \+ 1 = 2\./);
  const average = lessonBlocks(parseHash("#k=3&s=1&p=1&mode=avg&grad=1&sel=0,0"), recorded("fixture_avg_k3s1p1_grad").trace);
  const spread = average[2].sentences.join(" ");
  assert.match(spread, /output \(0,0\)'s gradient 1 is split into 1 \/ 9 = 0\.1111 for each of the 4 cells of its window/);
  assert.ok(numbersIn(average[3].sentences.join(" ")).includes(9), "the average block quotes the divisor 9");
});
