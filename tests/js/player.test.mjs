import assert from "node:assert/strict";
import { test } from "node:test";

import { frame, marksByCell, playerSteps } from "../../web/lesson/player.js";
import { withStepMark } from "../../web/widget/render.js";
import { recorded } from "./traces.mjs";

const marksOf = (marks, grid, key) => marks.filter(([g, , , changes]) => g === grid && changes[key]).map(([, r, c]) => [r, c]);

test("one step per output forward, then one per upstream gradient backward", () => {
  const { trace } = recorded("fixture_k2_grad");
  assert.equal(playerSteps(trace, false).length, 4);
  const steps = playerSteps(trace, true);
  assert.deepEqual(steps.map((s) => s.pass), ["forward", "forward", "forward", "forward", "backward", "backward", "backward", "backward"]);
  assert.deepEqual(steps[5].output, [0, 1]);
});

test("before any step every output is pending", () => {
  const { marks, caption } = frame(recorded("fixture_k2_nograd").trace, false, 0);
  assert.deepEqual(marksOf(marks, "output", "pending"), [[0, 0], [0, 1], [1, 0], [1, 1]]);
  assert.match(caption, /^Step 0 of 4: no output computed yet/);
});

test("a forward step highlights its window and its argmax", () => {
  const { marks, caption } = frame(recorded("fixture_k2_grad").trace, true, 2);
  assert.deepEqual(marksOf(marks, "output", "pending"), [[1, 0], [1, 1]]);
  assert.deepEqual(marks.filter(([g, , , m]) => g === "input" && m.step === "argmax").map(([, r, c]) => [r, c]), [[1, 2]]);
  assert.match(caption, /maximum 8, from cell \(1,2\), fills output \(0,1\)/);
});

test("backward steps add up where overlapping windows share a maximum", () => {
  const { trace } = recorded("fixture_k3s1_grad");
  // 4 forward steps, then output (0,0)'s gradient reaches (1,2): 1 so far of 1 + 1 = 2;
  // (3,1), the maximum of (1,0) and (1,1), holds 0 so far.
  const first = frame(trace, true, 5);
  const partial = first.marks.filter(([g, , , m]) => g === "grad-input" && m.partial);
  assert.deepEqual(partial.map(([, r, c, m]) => [r, c, m.text]), [[1, 2, "1"], [3, 1, "0"]]);
  const second = frame(trace, true, 6);
  assert.match(second.caption, /output \(0,1\) sends its upstream gradient 1 to cell \(1,2\), its maximum, which now holds 1 \+ 1 = 2\./);
});

test("average mode splits each gradient over the window's cells", () => {
  const { caption } = frame(recorded("average_k2_grad").trace, true, 8);
  assert.match(caption, /output \(1,1\) splits its upstream gradient 4 into 1 for each of the 4 cells of its window/);
});

test("a frame's marks become one change per cell: later marks win, notes add up", () => {
  const { trace } = recorded("fixture_k2_grad");
  const cells = marksByCell(frame(trace, true, 2).marks);
  // Step 2 highlights output (0,1)'s window, whose argmax (1,2) is marked twice.
  assert.equal(cells.get("input:1,2").step, "argmax");
  assert.equal(cells.get("input:0,2").step, "window");
  assert.deepEqual(cells.get("output:1,0"), { pending: true, text: "", notes: ["not computed yet in the step-through"] });
  assert.deepEqual(cells.get("grad-input:0,0").notes, ["backward pass not started yet"]);
  assert.equal(cells.has("output:0,0"), false); // done, and not the current step
});

test("render draws a step's change as part of the cell: attributes, text and accessible name", () => {
  const spec = { text: "8", attributes: { "aria-selected": "false" }, label: "Output row 1, col 0: 9" };
  assert.equal(withStepMark(spec, undefined), spec);
  const pending = withStepMark(spec, { pending: true, text: "", notes: ["not computed yet in the step-through"] });
  assert.deepEqual(pending, {
    text: "",
    attributes: { "aria-selected": "false", "data-pending": true, "data-partial": undefined, "data-step": undefined },
    label: "Output row 1, col 0: 9; not computed yet in the step-through",
  });
  assert.equal(withStepMark(spec, { step: "current", notes: [] }).text, "8");
});
