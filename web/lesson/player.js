// Step through the windows: the forward pass one output at a time, then (with the
// gradient on) the backward pass one upstream gradient at a time, all from the last trace
// (no Python call per step). The position is view state, not part of the URL hash.
//
// Positions: null = not stepping (the full view); 0 = nothing computed yet; p in 1..L =
// steps 1..p done, step p highlighted. frame() turns a position into marks; the Player
// never touches a grid cell: render.js draws the marks as part of each cell (their own
// attributes data-pending, data-partial and data-step, never the selection's), and the
// Player asks for a render whenever its position changes.

import { cellName, decodeNumber, formatNumber } from "../widget/format.js";
import { gradientReceivers, termFrom, windowSamples, windowText } from "../widget/trace-view.js";

// One step per output in row-major order, forward; then the same order backward.
export function playerSteps(trace, withGradient) {
  const [height, width] = trace.output_shape;
  const outputs = [];
  for (let i = 0; i < height; i += 1) for (let j = 0; j < width; j += 1) outputs.push([i, j]);
  const steps = outputs.map((output) => ({ pass: "forward", output }));
  if (withGradient) steps.push(...outputs.map((output) => ({ pass: "backward", output })));
  return steps;
}


// What the grids show after `done` backward steps: per input cell, the running sum of the
// gradients that have arrived (the final value once all have), and whether more will come.
function partialSums(trace, done) {
  const width = trace.output_shape[1];
  const arrived = ([i, j]) => i * width + j < done;
  return trace.sources.map((row, r) => row.map((sources, c) => {
    const count = sources.filter(arrived).length;
    if (count === sources.length) return { value: formatNumber(trace.grad_input[r][c]), partial: false, terms: trace.grad_terms[r][c] };
    const terms = trace.grad_terms[r][c].slice(0, count);
    const sum = terms.reduce((total, term) => total + decodeNumber(term), 0);
    return { value: formatNumber(sum), partial: true, terms };
  }));
}

// Pure: the marks and caption for one position. Marks are [grid, row, col, changes].
export function frame(trace, withGradient, position) {
  const steps = playerSteps(trace, withGradient);
  const total = steps.length;
  const forwardCount = trace.output_shape[0] * trace.output_shape[1];
  const marks = [];
  const forwardDone = Math.min(position, forwardCount);
  steps.slice(forwardDone, forwardCount).forEach(({ output: [i, j] }) => {
    marks.push(["output", i, j, { pending: true, text: "", note: "not computed yet in the step-through" }]);
  });
  if (withGradient) {
    const backwardDone = Math.max(0, position - forwardCount);
    const sums = partialSums(trace, backwardDone);
    sums.forEach((row, r) => row.forEach((cell, c) => {
      if (position <= forwardCount) {
        marks.push(["grad-input", r, c, { pending: true, text: "", note: "backward pass not started yet" }]);
      } else if (cell.partial) {
        marks.push(["grad-input", r, c, { partial: true, text: cell.value, note: `${cell.value} so far in the step-through` }]);
      }
    }));
  }
  const counter = `Step ${position} of ${total}`;
  if (position === 0) return { marks, caption: `${counter}: no output computed yet. Step forward to slide the first window.` };
  const { pass, output } = steps[position - 1];
  const [i, j] = output;
  const name = cellName(output);
  if (pass === "forward") {
    marks.push(["output", i, j, { step: "current" }]);
    for (const [r, c] of windowSamples(trace, output)) marks.push(["input", r, c, { step: "window" }]);
    const where = windowText(trace, output);
    const value = formatNumber(trace.output[i][j]);
    let caption;
    if (trace.argmax) {
      const [r, c] = trace.argmax[i][j];
      marks.push(["input", r, c, { step: "argmax" }]);
      caption = `${counter}, forward: the window covers ${where}; its maximum ${value}, from cell ${cellName([r, c])}, fills output ${name}.`;
    } else if (trace.mode === "lp") {
      caption = `${counter}, forward: the window covers ${where}; (the sum of x^p)^(1/p) is ${value}, which fills output ${name}.`;
    } else {
      caption = `${counter}, forward: the window covers ${where}; its sum divided by ${trace.divisor[i][j]} is ${value}, which fills output ${name}.`;
    }
    return { marks, caption };
  }
  const backwardDone = position - forwardCount;
  const sums = partialSums(trace, backwardDone);
  marks.push(["output", i, j, { step: "current" }]);
  marks.push(["grad-output", i, j, { step: "source" }]);
  const targets = gradientReceivers(trace, output);
  for (const [r, c] of targets) marks.push(["grad-input", r, c, { step: "target" }]);
  const g = formatNumber(trace.grad_output[i][j]);
  const holding = ([r, c]) => {
    const { terms, value, partial } = sums[r][c];
    const text = terms.length > 1 ? `${terms.map(formatNumber).join(" + ")} = ${value}` : value;
    return partial ? `${text} so far` : text;
  };
  let caption;
  if (trace.argmax) {
    const [r, c] = targets[0];
    caption = `${counter}, backward: output ${name} sends its upstream gradient ${g} to cell ${cellName([r, c])}, its maximum, which now holds ${holding([r, c])}.`;
  } else {
    const share = formatNumber(termFrom(trace, targets[0], output));
    const overlapping = targets.filter(([r, c]) => sums[r][c].terms.length > 1);
    caption = trace.mode === "lp"
      ? `${counter}, backward: output ${name} sends shares of its upstream gradient ${g} to the ${targets.length} cells of its window (${share} to the first), each by its |x|^(p−1).`
      : `${counter}, backward: output ${name} splits its upstream gradient ${g} into ${share} for each of the ${targets.length} cells of its window.`;
    if (overlapping.length > 0) caption += ` Cell ${cellName(overlapping[0])} lies in an earlier window too and now holds ${holding(overlapping[0])}.`;
  }
  return { marks, caption };
}

const IDLE_CAPTION = "Press Play, or step forward, to compute the outputs one window at a time; with Gradient routing on, the backward pass follows.";

// A step-through position's marks as render.js draws them: per "grid:row,col", one change
// ({pending, partial, step, text, notes}), later marks on a cell overriding earlier ones
// and notes adding up, in the order frame() lists them.
export function marksByCell(marks) {
  const cells = new Map();
  for (const [grid, row, col, { note, ...change }] of marks) {
    const key = `${grid}:${row},${col}`;
    const merged = { ...cells.get(key), ...change };
    merged.notes = [...(cells.get(key)?.notes ?? []), ...(note ? [note] : [])];
    cells.set(key, merged);
  }
  return cells;
}

export class Player {
  // elements: box, play, back, forward, reset, speed, progress, caption, motionNote;
  // redraw(): render the page again (its grids draw this.marks()); announce(text) speaks
  // a step taken by hand.
  constructor(elements, redraw, announce) {
    this.elements = elements;
    this.redraw = redraw;
    this.announce = announce;
    this.trace = null;
    this.withGradient = false;
    this.total = 0;
    this.position = null;
    this.current = null;
    this.timer = null;
    this.reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
    this.reducedMotion.addEventListener("change", () => {
      if (this.reducedMotion.matches) this.pause();
      this.draw();
    });
    elements.play.addEventListener("click", () => (this.timer ? this.pause() : this.play()));
    // Back, forward and Show all use aria-disabled, not disabled, so the button keeps
    // the focus when it reaches an end.
    const usable = (button) => button.getAttribute("aria-disabled") !== "true";
    elements.back.addEventListener("click", () => usable(elements.back) && this.step(-1));
    elements.forward.addEventListener("click", () => usable(elements.forward) && this.step(1));
    elements.reset.addEventListener("click", () => {
      if (!usable(elements.reset)) return;
      this.pause();
      this.moveTo(null);
    });
    elements.speed.addEventListener("change", () => {
      if (this.timer) this.startTimer();
    });
  }

  // Called by every render before the grids are drawn, with the current trace (null if
  // there is none): a new trace or gradient setting starts over from the full view.
  sync(trace, withGradient) {
    const usable = Boolean(trace) && (!withGradient || trace.grad_input !== undefined);
    if (trace !== this.trace || (usable && withGradient !== this.withGradient)) {
      this.pause();
      this.trace = trace;
      this.withGradient = usable && withGradient;
      this.total = trace ? playerSteps(trace, this.withGradient).length : 0;
      this.position = null;
      this.current = null;
    }
  }

  // This position's marks for render.js (marksByCell), or null when not stepping; the
  // same object until the position or the trace changes.
  marks() {
    return this.current?.cells ?? null;
  }

  step(delta) {
    this.pause();
    this.moveBy(delta);
    this.announce(this.elements.caption.textContent);
  }

  moveBy(delta) {
    if (!this.trace) return;
    const from = this.position ?? (delta > 0 ? -1 : this.total + 1);
    this.moveTo(Math.max(0, Math.min(this.total, from + delta)));
  }

  moveTo(position) {
    this.position = position;
    if (position === null) {
      this.current = null;
    } else {
      const { marks, caption } = frame(this.trace, this.withGradient, position);
      this.current = { cells: marksByCell(marks), caption };
    }
    this.redraw();
  }

  play() {
    if (!this.trace || this.reducedMotion.matches) return;
    this.startTimer();
    if (this.position === null || this.position === this.total) this.moveTo(0);
    else this.draw();
  }

  startTimer() {
    clearInterval(this.timer);
    this.timer = setInterval(() => {
      this.moveBy(1);
      if (this.position === this.total) this.pause();
    }, Number(this.elements.speed.value));
  }

  pause() {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    this.draw();
  }

  // The player's own controls and caption (the grids are render.js's).
  draw() {
    const { elements } = this;
    const stepping = this.trace !== null && this.position !== null;
    elements.box.dataset.stepping = String(stepping);
    let caption = this.trace ? IDLE_CAPTION : "The step-through is available when the output is shown.";
    if (stepping) caption = this.current.caption;
    const playing = this.timer !== null;
    elements.play.setAttribute("aria-pressed", String(playing));
    elements.play.disabled = !this.trace || this.reducedMotion.matches;
    elements.back.setAttribute("aria-disabled", String(!this.trace || this.position === 0));
    elements.forward.setAttribute("aria-disabled", String(!this.trace || this.position === this.total));
    elements.reset.setAttribute("aria-disabled", String(!stepping));
    elements.motionNote.hidden = !this.reducedMotion.matches;
    elements.progress.textContent = stepping ? `Step ${this.position} of ${this.total}` : "";
    if (elements.caption.textContent !== caption) elements.caption.textContent = caption;
  }
}
