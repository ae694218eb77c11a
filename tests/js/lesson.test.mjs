import assert from "node:assert/strict";
import { test } from "node:test";

import { lessonBlocks } from "../../web/lesson/lesson.js";
import { defaultState, parseHash } from "../../web/widget/state.js";
import { recorded } from "./traces.mjs";

const numbersIn = (text) => (text.match(/-?\d+(\.\d+)?/g) ?? []).map(Number);

test("the lesson quotes the selection's own numbers", () => {
  const { trace } = recorded("fixture_k2_grad");
  const blocks = lessonBlocks(parseHash("#grad=1&sel=1,0&g=1,2;3,4"), trace);
  assert.deepEqual(blocks.map((block) => block.topic), ["keeps", "remembers", "gradient", "average", "shrink", "overlap", "global", "adaptive", "unpool", "lp"]);
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

// ---- the rest of the family: the lesson's sections on the recorded traces ----

const familyText = (name, state = {}) => {
  const trace = recorded(name).trace;
  const blocks = lessonBlocks({ ...defaultState(), sel: [0, 0], selImplicit: false, grad: true, unpool: true, ...state }, trace);
  return Object.fromEntries(blocks.map((block) => [block.topic, block.sentences.join(" ")]));
};

test("global average pooling: one number per channel, the mean, 1/(H·W) of the gradient each", () => {
  const text = familyText("global_avg_fixture", { mode: "adaptive_avg", o: [1, 1] });
  assert.match(text.global, /no weights, and it takes an input of any size/);
  assert.match(text.global, /fully connected heads/);
  assert.match(text.global, /the 16 values of the 4 × 4 input become one, their mean 1\.5; backward, each cell gets 1\/16/);
});

test("adaptive windows: the lesson quotes the trace's window bounds and the selected window's size", () => {
  const text = familyText("adaptive_avg_5to3_grad", { mode: "adaptive_avg", o: [3, 3], sel: [1, 1] });
  assert.match(text.adaptive, /rows go 5 into 3: \[0, 2\), \[1, 4\), \[3, 5\)/);
  assert.match(text.adaptive, /Output \(1,1\)'s window is 3 × 3 \(rows 1–3, cols 1–3\)/);
  assert.match(text.shrink, /the 5 × 5 input becomes 3 × 3/);
});

test("unpooling is compared with the gradient on a cell two outputs chose", () => {
  const text = familyText("fixture_k3s1_unpool", { k: [3, 3], s: [1, 1] });
  assert.match(text.unpool, /cell \(1,2\), chosen by outputs \(0,0\) and \(0,1\), holds one value, 8 .* while the gradient adds their 2: 1 \+ 1 = 2/);
  assert.match(familyText("fixture_k2_grad").unpool, /Turn on Unpooling/);
});

test("LP pooling sits between average (p = 1) and max (p = ∞)", () => {
  const text = familyText("lp2_fixture_k2", { mode: "lp", n: 2 });
  assert.match(text.lp, /p = 1 it is the window's sum/);
  assert.match(text.lp, /Here with p = 2, output \(0,0\) = 5\.4772/);
  assert.match(text.gradient, /In LP pooling every cell of the window gets a share/);
});
