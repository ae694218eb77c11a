// The "Try it" path: each step is a pure predicate over (state, trace, context) that says
// whether the learner has done it; a step stays ticked once done, until reset. Progress
// is kept in localStorage when the browser allows it (iframes and private modes may not),
// never in the URL hash: it belongs to the learner, not to the view being linked.
// Each step's leadsTo(state) makes the change its task asks for: the views the steps lead
// to are among those the site precomputes (first-views.js).

import { presetChange, switchMode } from "./controls.js";
import { selectedOutput, tiedCells } from "./trace-view.js";

const STORAGE_KEY = "poolgrad-guide-v1";
const same = (pair, first, second) => pair[0] === first && pair[1] === second;
const isMax = (trace) => trace?.mode === "max";
const showsGradient = (state, trace) => state.grad && trace?.grad_input !== undefined;
const sharedBy = (trace, [r, c]) => trace.sources[r][c].length > 1;

export const GUIDE_STEPS = [
  {
    id: "shared",
    title: "Find the cell two outputs share",
    task: "Set the kernel to 3 and the stride to 1 in max mode. Neighbouring windows now overlap: select an output whose maximum is also another output's maximum, or click that input cell.",
    leadsTo(state) {
      switchMode("max")(state);
      Object.assign(state, { k: [3, 3], s: [1, 1] });
    },
    done(state, trace, context) {
      if (!isMax(trace) || !same(trace.kernel_size, 3, 3) || !same(trace.stride, 1, 1)) return false;
      const selected = selectedOutput(state, trace);
      const [height, width] = trace.input_shape;
      const inspected = context.inspected;
      const inspectedInside = inspected && inspected[0] < height && inspected[1] < width;
      return Boolean(selected && sharedBy(trace, trace.argmax[selected[0]][selected[1]])) || Boolean(inspectedInside && sharedBy(trace, inspected));
    },
  },
  {
    id: "routing",
    title: "Every gradient lands on a maximum",
    task: "Go back to a 2 × 2 window with stride 2, turn on Gradient routing and select an output: its gradient lands on the cell marked max, and every other cell gets 0.",
    leadsTo(state) {
      switchMode("max")(state);
      Object.assign(state, { k: [2, 2], s: [2, 2], grad: true });
    },
    done(state, trace) {
      return isMax(trace) && showsGradient(state, trace) && same(trace.kernel_size, 2, 2) && same(trace.stride, 2, 2)
        && selectedOutput(state, trace) !== null;
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
    title: "Make a tie and see which cell wins",
    task: "In max mode, give a window two equal maxima (edit a cell, or load the Ties preset) and select its output: the first of them in reading order wins.",
    leadsTo(state) {
      switchMode("max")(state);
      presetChange("ties")(state);
    },
    done(state, trace) {
      const selected = selectedOutput(state, trace);
      return isMax(trace) && selected !== null && tiedCells(trace, selected).length > 1;
    },
  },
];

function loadProgress() {
  try {
    const saved = JSON.parse(window.localStorage.getItem(STORAGE_KEY) ?? "[]");
    return new Set(Array.isArray(saved) ? saved.filter((id) => GUIDE_STEPS.some((step) => step.id === id)) : []);
  } catch {
    return new Set();
  }
}

function saveProgress(done) {
  try {
    if (done.size === 0) window.localStorage.removeItem(STORAGE_KEY);
    else window.localStorage.setItem(STORAGE_KEY, JSON.stringify([...done]));
  } catch {
    // Storage refused (private mode, a sandboxed iframe): progress lasts for this page.
  }
}

export class Guide {
  // elements: list (an <ol>), progress, reset. announce(text) speaks a newly ticked step.
  constructor(elements, announce) {
    this.elements = elements;
    this.announce = announce;
    this.done = loadProgress();
    this.items = new Map();
    for (const [index, step] of GUIDE_STEPS.entries()) {
      const item = document.createElement("li");
      item.dataset.guideStep = step.id;
      const badge = document.createElement("span");
      badge.className = "guide-badge";
      const title = document.createElement("strong");
      title.textContent = `${index + 1}. ${step.title}`;
      const task = document.createElement("p");
      task.textContent = step.task;
      item.append(badge, " ", title, task);
      elements.list.append(item);
      this.items.set(step.id, { item, badge });
    }
    elements.reset.addEventListener("click", () => {
      this.done.clear();
      saveProgress(this.done);
      this.draw();
      this.announce("Try it: progress reset.");
    });
    this.draw();
  }

  // Tick every step the current state and trace show as done.
  update(state, trace, context) {
    if (!trace) return;
    const fresh = GUIDE_STEPS.filter((step) => !this.done.has(step.id) && step.done(state, trace, context));
    if (fresh.length === 0) return;
    for (const step of fresh) this.done.add(step.id);
    saveProgress(this.done);
    this.draw();
    this.announce(`Try it: done, ${fresh.map((step) => step.title).join("; ")}. ${this.summary()}`);
  }

  summary() {
    return `${this.done.size} of ${GUIDE_STEPS.length} steps done.`;
  }

  draw() {
    for (const step of GUIDE_STEPS) {
      const { item, badge } = this.items.get(step.id);
      const done = this.done.has(step.id);
      item.dataset.done = String(done);
      badge.textContent = done ? "✓ Done" : "To do";
    }
    this.elements.progress.textContent = this.summary();
  }
}
