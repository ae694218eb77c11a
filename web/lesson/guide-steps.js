// The "Try it" steps and which of them a change ticks: pure functions of (state, trace,
// context), with no DOM, so the build (first-views.js) reads them without the panel
// (guide.js draws it and keeps the learner's progress).

import { presetChange, switchMode } from "../widget/state.js";
import { selectedOutput, tiedCells } from "../widget/trace-view.js";

const same = (pair, first, second) => pair[0] === first && pair[1] === second;
const isMax = (trace) => trace?.mode === "max";
const showsGradient = (state, trace) => state.grad && trace?.grad_input !== undefined;
const sharedBy = (trace, [r, c]) => trace.sources[r][c].length > 1;
// The output someone picked: the implicit first selection is the widget's, not a pick.
const pickedOutput = (state, trace) => (state.selImplicit ? null : selectedOutput(state, trace));

export const GUIDE_STEPS = [
  {
    id: "shared",
    picks: true,
    title: "Find the cell two outputs share",
    task: "Set the kernel to 3 and the stride to 1 in max mode. Neighbouring windows now overlap: select an output whose maximum is also another output's maximum, or click that input cell.",
    leadsTo(state) {
      switchMode("max")(state);
      Object.assign(state, { k: [3, 3], s: [1, 1] });
    },
    done(state, trace, context) {
      if (!isMax(trace) || !same(trace.kernel_size, 3, 3) || !same(trace.stride, 1, 1)) return false;
      const selected = pickedOutput(state, trace);
      const [height, width] = trace.input_shape;
      const inspected = context.inspected;
      const inspectedInside = inspected && inspected[0] < height && inspected[1] < width;
      return Boolean(selected && sharedBy(trace, trace.argmax[selected[0]][selected[1]])) || Boolean(inspectedInside && sharedBy(trace, inspected));
    },
  },
  {
    id: "routing",
    picks: true,
    title: "Every gradient lands on a maximum",
    task: "Go back to a 2 × 2 window with stride 2, turn on Gradient routing and select an output: its gradient lands on the cell marked max, and every other cell gets 0.",
    leadsTo(state) {
      switchMode("max")(state);
      Object.assign(state, { k: [2, 2], s: [2, 2], grad: true });
    },
    done(state, trace) {
      return isMax(trace) && showsGradient(state, trace) && same(trace.kernel_size, 2, 2) && same(trace.stride, 2, 2)
        && pickedOutput(state, trace) !== null;
    },
  },
  {
    id: "spread",
    title: "Average pooling spreads the gradient",
    task: "Keep the gradient on and switch to Average: each upstream gradient is now shared equally by every cell of its window.",
    leadsTo(state) {
      switchMode("avg")(state);
      state.grad = true;
    },
    done(state, trace) {
      return trace?.mode === "avg" && showsGradient(state, trace);
    },
  },
  {
    id: "tie",
    picks: true,
    title: "Make a tie and see which cell wins",
    task: "In max mode, give a window two equal maxima (edit a cell, or load the Ties preset) and select its output: the first of them in reading order wins.",
    leadsTo(state) {
      switchMode("max")(state);
      presetChange("ties")(state);
    },
    done(state, trace) {
      const selected = pickedOutput(state, trace);
      return isMax(trace) && selected !== null && tiedCells(trace, selected).length > 1;
    },
  },
];

// The ids of the steps (state, trace, context) shows done.
export function stepsShown(state, trace, context) {
  return new Set(GUIDE_STEPS.filter((step) => step.done(state, trace, context)).map((step) => step.id));
}

// Which steps a change ticks: `before` and `now` are stepsShown before and after it;
// `cause` is what made it: "learner" (a control, an edit, a preset), "pick" (the learner
// selected an output or inspected an input cell), or "outside" / null (a link, a hash
// change from elsewhere, a redraw): those tick nothing. A learner's change ticks the steps
// it makes hold; a pick also ticks a step about picking that already held (picking
// another shared maximum is doing step 1 again), never one that is not about picking.
export function stepsTicked(before, now, cause) {
  if (cause !== "learner" && cause !== "pick") return [];
  return GUIDE_STEPS
    .filter((step) => now.has(step.id) && (!before.has(step.id) || (cause === "pick" && step.picks)))
    .map((step) => step.id);
}

// The cause of several changes the guide has not seen the trace of yet: a view from
// outside overrides the learner's changes before it (they were superseded); a pick
// outranks another change.
export function combineCauses(pending, cause) {
  if (pending === "outside" || cause === "outside") return "outside";
  if (pending === "pick" || cause === "pick") return "pick";
  return cause ?? pending;
}
