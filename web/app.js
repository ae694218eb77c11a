// Wiring: URL hash <-> state, controls, grid interactions, the worker, and #status.
// Data flows one way, through one loop: an event or a hash change makes a new state
// (setState); the worker is asked for its trace when the state changes what Python
// computes; the hash is written from (state, trace) by hashFor; render() draws
// (state, trace, view). An answer from the worker enters the same loop (writeHash, then
// render) and never changes the state. A selection change never goes to the worker: the
// last trace already holds every window and argmax, so a tap only re-marks a few cells.
// While Python starts, a state whose trace the build shipped (shipped.js) is answered from
// that trace, through the same render; Python is asked all the same and takes over.
//
// Test hook: window.poolgradWidget.trace(request) sends a raw trace() request (keyword
// arguments of poolgrad.trace as JSON, non-finite values as "NaN"/"Infinity"/"-Infinity")
// to the same worker and resolves with {trace} or {error}; the browser tests use it for
// parity with native Python; .python() says which Python serves the page (bridge.js,
// describe). window.poolgradWidget.timings holds the last measured
// boot (with the start of each boot step), trace, round-trip and render times in ms;
// window.poolgradWidget.exerciseTimings the exercise panel's last run (lastRunMs: from Run
// to the result, Python's start included on the first run; lastCheckMs: the check alone).

import { WorkerBridge } from "./runtime/bridge.js";
import { CodeView } from "./takeaway/code-view.js";
import { bindControls, controlElements, fillPresetOptions, switchMode, syncControls } from "./widget/controls.js";
import { decodeNumber, encodeNumber, pairText, sizeText } from "./widget/format.js";
import { Guide, progressKey } from "./lesson/guide.js";
import { lessonBlocks, renderLesson } from "./lesson/lesson.js";
import { keepOffline } from "./offline/offline.js";
import { Player } from "./lesson/player.js";
import { mountExercise } from "./exercise/exercise.js";
import { applyPreview, explanationText, redrawPlan, renderSelection, renderView } from "./widget/render.js";
import { firstMinuteLoaded, shippedAvailable, shippedLoaded, shippedTrace } from "./runtime/shipped.js";
import {
  InputError, defaultState, gridsKey, hashFor, parseCellValue, parseHash, requestKey, serialiseState, traceRequest,
} from "./widget/state.js";

const byId = (id) => document.getElementById(id);
const regions = {
  inputGrid: byId("input-grid"),
  outputGrid: byId("output-grid"),
  gradOutputGrid: byId("grad-output-grid"),
  gradInputGrid: byId("grad-input-grid"),
  gradPanels: [...document.querySelectorAll("[data-gradient-panel]")],
  explanation: byId("explanation"),
  legend: byId("legend"),
  formula: byId("formula-box"),
  shapes: byId("shapes"),
};
const stage = byId("stage");
const announcer = byId("announcer");
const statusBox = byId("status");
const statusText = byId("status-text");
const progressBar = byId("boot-progress");
const controls = controlElements();
const darkScheme = window.matchMedia("(prefers-color-scheme: dark)");

const initialState = defaultState();
const app = {
  state: initialState,
  // requestKey(state), kept by setState: the key of what Python computes for the state shown.
  stateKey: requestKey(initialState),
  trace: null,
  traceKey: null,
  // "shipped" while the trace shown is the build's precomputed one (shipped.js), else "python".
  traceSource: null,
  traceError: null,
  hashError: null,
  controlError: null,
  boot: { ready: false, failure: null, step: 0, steps: 4, message: "Starting the Python worker" },
  // mismatch: the exercise panel's wrong cells, for the state it loaded (currentMismatches).
  view: { focus: {}, editing: null, inspected: null, scheme: colourScheme(), mismatch: null },
  // What the grids show now: the `next` of the render that last drew them (redrawPlan).
  drawn: null,
  timings: { bootMs: null, bootSteps: [], lastTraceMs: null, lastRoundTripMs: null, lastRenderMs: null },
};
const pageStart = performance.now();

// The heat map's palette follows the system's colour scheme (style.css does the rest);
// a switch while the page is open redraws the grids.
function colourScheme() {
  return darkScheme.matches ? "dark" : "light";
}
darkScheme.addEventListener("change", () => {
  app.view.scheme = colourScheme();
  render();
});

const cloneState = (state) => structuredClone(state);
const isCurrent = () => app.trace !== null && app.traceKey === app.stateKey;

function describeParameters(trace) {
  const parts = [`${trace.mode === "max" ? "max" : "average"} pooling`, `${sizeText(trace.kernel_size)} window`, `stride ${pairText(trace.stride)}`];
  if (trace.padding.some((p) => p > 0)) parts.push(`padding ${pairText(trace.padding)}`);
  if (trace.dilation.some((d) => d > 1)) parts.push(`dilation ${pairText(trace.dilation)}`);
  if (trace.ceil_mode) parts.push("ceil mode");
  return parts.join(", ");
}

function updateStatus() {
  let state;
  let text;
  let source = null;
  if (app.boot.failure) [state, text] = ["error", app.boot.failure];
  else if (app.hashError) [state, text] = ["error", `The link's state is not valid: ${app.hashError}. Fix the link or change any control to start from the view shown.`];
  else if (app.controlError) [state, text] = ["error", app.controlError];
  else if (app.traceError) [state, text] = ["error", app.traceError];
  else if (!app.boot.ready) {
    const booting = `step ${app.boot.step} of ${app.boot.steps}: ${app.boot.message}`;
    // Before Python is up, a current trace is a shipped one.
    if (isCurrent()) {
      [state, text] = ["loading", `Ready (precomputed): ${describeParameters(app.trace)}. Loading Python in your browser (${booting}) for any other view.`];
      source = "precomputed";
    } else if (shippedAvailable()) [state, text] = ["loading", `This view needs Python, still loading (${booting}); it appears as soon as Python is ready.`];
    else [state, text] = ["loading", `Loading Python in your browser (${booting}). You can already edit the input; your changes apply when it is ready.`];
  }
  // Python is up but the first answer is still on its way: "ready" waits for a drawn output.
  else if (!app.trace) [state, text] = ["loading", "Python is ready; computing the first output."];
  else [state, text] = ["ready", `Ready: ${describeParameters(app.trace)}.`];
  // Written only when they change: a rewrite would cost the next frame a relayout.
  if (statusBox.dataset.state !== state) statusBox.dataset.state = state;
  if (statusText.textContent !== text) statusText.textContent = text;
  if ((statusBox.dataset.source ?? null) !== source) {
    if (source) statusBox.dataset.source = source;
    else delete statusBox.dataset.source;
  }
  const bootOver = app.boot.ready || Boolean(app.boot.failure);
  if (progressBar.hidden !== bootOver) progressBar.hidden = bootOver;
  if (!bootOver) {
    progressBar.max = app.boot.steps;
    progressBar.value = app.boot.step;
  }
}

function focusedCell() {
  const active = document.activeElement;
  if (!active) return null;
  const cell = active.closest?.("[data-grid]");
  return cell ? { grid: cell.dataset.grid, row: cell.dataset.row, col: cell.dataset.col } : null;
}

// The one render: decides with redrawPlan how much of the view to redraw, then brings the
// controls, #status and the teaching layer up to date.
function render() {
  const started = performance.now();
  const trace = isCurrent() ? app.trace : null;
  const awaitingTrace = app.boot.ready && !app.boot.failure && app.traceKey !== app.stateKey;
  // The player starts over on a new trace; its position is drawn as part of the grids.
  if (!awaitingTrace) player.sync(trace, app.state.grad);
  // A stale trace (the worker is computing the new state) still shows the output, but
  // its windows may not fit the new input, so the input grid is drawn without overlays.
  const shownKey = gridsKey(app.state);
  const view = {
    ...app.view, staleInput: !isCurrent(), traceError: app.traceError, stepMarks: player.marks(), mismatches: currentMismatches(shownKey),
  };
  const next = { state: app.state, trace: app.trace, view, awaitingTrace, gridsKey: shownKey };
  const plan = redrawPlan(app.drawn, next);
  if (plan === "all") {
    const focus = focusedCell();
    renderView(regions, app.state, app.trace, view);
    stage.querySelector("[data-editor]")?.focus();
    if (focus && !app.view.editing) {
      stage.querySelector(`[data-grid="${focus.grid}"][data-row="${focus.row}"][data-col="${focus.col}"]`)?.focus({ preventScroll: true });
    }
  } else if (plan === "selection") {
    renderSelection(regions, app.state, app.trace, view);
  }
  if (plan !== "wait") app.drawn = next;
  regions.outputGrid.setAttribute("aria-busy", String(awaitingTrace || (app.traceKey !== app.stateKey && !app.traceError)));
  syncControls(controls, app.state);
  updateStatus();
  codeView.update();
  if (plan !== "wait") renderTeaching(trace);
  app.timings.lastRenderMs = performance.now() - started;
}

function writeHash() {
  // A refused link stays in the address bar until a valid state replaces it: written over
  // with the view shown, the link fixed to that very view would change nothing, fire no
  // hashchange and leave the error up.
  if (app.hashError) return;
  const canonical = hashFor(app.state, isCurrent() ? app.trace : null);
  if (location.hash !== canonical) history.replaceState(null, "", canonical);
}

async function requestTrace() {
  const key = app.stateKey;
  const sent = performance.now();
  let answer;
  try {
    answer = await bridge.latest(traceRequest(app.state));
  } catch {
    return; // the bridge's onFailure has already put the reason in #status
  }
  if (answer.superseded) return;
  app.timings.lastRoundTripMs = performance.now() - sent;
  app.timings.lastTraceMs = answer.ms ?? null;
  // Python's answer to the view a shipped trace shows keeps that very object on screen (the
  // player keeps its place); the two are equal, as a browser test checks for every one.
  const shown = app.traceSource === "shipped" && app.traceKey === key && !answer.error
    && JSON.stringify(answer.trace) === JSON.stringify(app.trace);
  app.traceKey = key;
  app.traceSource = "python";
  if (answer.error) {
    app.trace = null;
    app.traceError = answer.timedOut ? answer.error : `Not a valid pooling setup: ${answer.error}`;
  } else {
    if (!shown) app.trace = answer.trace;
    app.traceError = null;
  }
  // The answer may show that the selection lies outside the output: the link drops it.
  writeHash();
  render();
}

// While Python starts, the current state is answered from its shipped trace, if there is
// one; Python is asked all the same (the latest state wins) and takes over once it is up.
function answerFromShipped() {
  const key = app.stateKey;
  const trace = app.boot.ready ? null : shippedTrace(key);
  if (trace === null || app.traceKey === key) return false;
  Object.assign(app, { trace, traceKey: key, traceError: null, traceSource: "shipped" });
  return true;
}

function setState(next) {
  const nextKey = requestKey(next);
  const needsTrace = nextKey !== app.stateKey || app.traceKey === null;
  app.state = next;
  app.stateKey = nextKey;
  app.hashError = null;
  // The worker starts computing before the main thread does anything else with the change.
  if (needsTrace) {
    requestTrace();
    answerFromShipped();
  }
  writeHash();
  render();
}

function change(mutator) {
  guide.note("learner");
  const next = cloneState(app.state);
  mutator(next);
  app.view.editing = null;
  setState(next);
}

function loadHash() {
  // A new state from outside (Back, a pasted link) ends any edit: the edited cell belonged
  // to the state that was left, and may not even exist in this one.
  app.view.editing = null;
  guide.note("outside");
  try {
    const parsed = parseHash(location.hash);
    app.controlError = null;
    setState(parsed);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    app.hashError = error.message;
    render();
  }
}

// The exact spelling of a cell's value, which its editor starts from ("0.123456", "1e-7",
// "Infinity", "-0"), where the grid shows 4 decimals: committing it unchanged is a no-op.
const exactText = (value) => encodeNumber(decodeNumber(value));

// The upstream gradient's shape: the custom one's, or the current trace's output.
function gradientShape() {
  if (app.state.g) return [app.state.g.length, app.state.g[0].length];
  return isCurrent() ? app.trace.output_shape : null;
}

// ---- grid interactions: tap, hover preview, keyboard, in-place editing ----

function cellOf(target) {
  const cell = target.closest?.("[data-grid]");
  if (!cell || cell.dataset.pad === "true") return null;
  return { node: cell, grid: cell.dataset.grid, row: Number(cell.dataset.row), col: Number(cell.dataset.col) };
}

// A selection change is spoken through a polite live region that holds text only. The
// explanation itself is not live, so parameter changes do not talk over the learner.
function announceSelection() {
  const sel = app.state.sel;
  if (!sel) announcer.textContent = "No output cell selected.";
  else announcer.textContent = (isCurrent() && explanationText(app.state, app.trace))
    || `Output (${sel[0]},${sel[1]}) selected; its window shows once the output is computed.`;
}

function select(row, col) {
  app.view.focus.output = [row, col];
  for (const cell of regions.outputGrid.querySelectorAll('[data-grid="output"][tabindex="0"]')) cell.tabIndex = -1;
  const target = regions.outputGrid.querySelector(`[data-grid="output"][data-row="${row}"][data-col="${col}"]`);
  if (target) target.tabIndex = 0;
  guide.note("pick");
  change((state) => {
    state.sel = [row, col];
    state.selImplicit = false;
  });
  announceSelection();
}

function startEditing(cell, draft) {
  let value;
  if (cell.grid === "input") value = app.state.x[cell.row]?.[cell.col];
  else if (isCurrent() && app.trace.grad_output) value = app.trace.grad_output[cell.row]?.[cell.col];
  if (value === undefined) return;
  app.view.focus[cell.grid] = [cell.row, cell.col];
  const initial = exactText(value);
  app.view.editing = { grid: cell.grid, row: cell.row, col: cell.col, draft: draft ?? initial, initial };
  render();
  const editor = stage.querySelector("[data-editor]");
  if (editor && draft === undefined) editor.select();
}

function commitEdit(editor) {
  const editing = app.view.editing;
  if (!editing) return;
  const { grid, row, col } = editing;
  const [height, width] = grid === "input" ? [app.state.x.length, app.state.x[0].length] : gradientShape() ?? [0, 0];
  if (editor.value.trim() === editing.initial || row >= height || col >= width) {
    cancelEdit();
    return;
  }
  let value;
  try {
    value = parseCellValue(editor.value, `${editing.grid === "input" ? "Input" : "Upstream gradient"} cell (${editing.row},${editing.col})`);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    app.controlError = error.message;
    updateStatus();
    editor.setAttribute("aria-invalid", "true");
    return;
  }
  app.controlError = null;
  change((state) => {
    if (grid === "input") {
      state.x[row][col] = value;
    } else {
      state.g ??= Array.from({ length: height }, () => Array(width).fill(1));
      state.g[row][col] = value;
    }
  });
  stage.querySelector(`[data-grid="${grid}"][data-row="${row}"][data-col="${col}"]`)?.focus();
}

function cancelEdit() {
  const editing = app.view.editing;
  app.view.editing = null;
  app.controlError = null;
  render();
  if (editing) stage.querySelector(`[data-grid="${editing.grid}"][data-row="${editing.row}"][data-col="${editing.col}"]`)?.focus();
}

const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

// The shape of a grid as drawn: the input's from the state, the others' from the trace
// they were drawn from.
function gridShape(grid) {
  if (grid === "input") return [app.state.x.length, app.state.x[0].length];
  return grid === "grad-input" ? app.drawn.trace.input_shape : app.drawn.trace.output_shape;
}

function moveFocus(cell, key) {
  const table = cell.node.closest("table");
  const [lastRow, lastCol] = gridShape(cell.grid).map((side) => side - 1);
  let [row, col] = [cell.row, cell.col];
  if (key in ARROWS) {
    row = Math.min(lastRow, Math.max(0, row + ARROWS[key][0]));
    col = Math.min(lastCol, Math.max(0, col + ARROWS[key][1]));
  } else if (key === "Home") col = 0;
  else if (key === "End") col = lastCol;
  const target = table.querySelector(`[data-grid="${cell.grid}"][data-row="${row}"][data-col="${col}"]`);
  cell.node.tabIndex = -1;
  target.tabIndex = 0;
  target.focus();
  app.view.focus[cell.grid] = [row, col];
  if (cell.grid === "output") applyPreview(stage, app.trace, [row, col], app.state.sel);
}

stage.addEventListener("click", (event) => {
  if (event.target.closest("[data-editor]")) return;
  const cell = cellOf(event.target);
  if (!cell) return;
  if (cell.grid === "output") select(cell.row, cell.col);
  else if (cell.grid === "input" || cell.grid === "grad-output") startEditing(cell);
});

stage.addEventListener("keydown", (event) => {
  const editor = event.target.closest("[data-editor]");
  if (editor) {
    if (event.key === "Enter") {
      event.preventDefault();
      commitEdit(editor);
    } else if (event.key === "Escape") {
      event.preventDefault();
      cancelEdit();
    }
    return;
  }
  const cell = cellOf(event.target);
  if (!cell) return;
  if (event.key in ARROWS || event.key === "Home" || event.key === "End") {
    event.preventDefault();
    moveFocus(cell, event.key);
  } else if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    if (cell.grid === "output") select(cell.row, cell.col);
    else if (cell.grid === "input" || cell.grid === "grad-output") startEditing(cell);
  } else if (event.key === "Escape" && cell.grid === "output") {
    change((state) => {
      state.sel = null;
      state.selImplicit = false;
    });
    announceSelection();
  } else if ((cell.grid === "input" || cell.grid === "grad-output") && /^[-+.\d]$/.test(event.key)) {
    event.preventDefault();
    startEditing(cell, event.key);
  }
});

stage.addEventListener("focusout", (event) => {
  const editor = event.target.closest?.("[data-editor]");
  if (editor && app.view.editing && editor.isConnected) commitEdit(editor);
});

stage.addEventListener("mouseover", (event) => {
  const cell = cellOf(event.target);
  const hovered = cell?.grid === "output" ? [cell.row, cell.col] : null;
  applyPreview(stage, isCurrent() ? app.trace : null, hovered, app.state.sel);
});
stage.addEventListener("mouseleave", () => applyPreview(stage, null, null));

// ---- the teaching layer: lesson text, step-through player, "Try it" guide ----
// All three read the current trace only (null while it is being recomputed or invalid).

// Several announcements in one task (a selection and the guide step it ticks) are spoken
// together: later ones are appended once the task's own announcements are written.
let announcementBase = null;
const pendingAnnouncements = [];
function announce(text) {
  if (announcementBase === null) {
    announcementBase = announcer.textContent;
    queueMicrotask(() => {
      const earlier = announcer.textContent === announcementBase ? "" : `${announcer.textContent} `;
      announcer.textContent = earlier + pendingAnnouncements.splice(0).join(" ");
      announcementBase = null;
    });
  }
  pendingAnnouncements.push(text);
}

const lessonText = byId("lesson-text");
const modeButtons = { max: byId("mode-max"), avg: byId("mode-avg") };
const player = new Player({
  box: byId("player"),
  play: byId("player-play"),
  back: byId("player-back"),
  forward: byId("player-forward"),
  reset: byId("player-reset"),
  speed: byId("player-speed"),
  progress: byId("player-progress"),
  caption: byId("player-caption"),
  motionNote: byId("player-motion"),
}, () => render(), announce);
const codeView = new CodeView({
  panel: byId("code"),
  torch: byId("code-torch"),
  poolgrad: byId("code-poolgrad"),
  link: byId("code-link"),
  embed: byId("code-embed"),
  message: byId("code-message"),
  picture: byId("save-picture"),
  copyButtons: [...document.querySelectorAll("#code [data-copy]")],
}, () => ({ state: app.state, trace: isCurrent() ? app.trace : null }));
const guide = new Guide(
  { list: byId("guide-steps"), progress: byId("guide-progress"), reset: byId("guide-reset") },
  announce,
  progressKey(location, window.parent !== window, document.referrer),
);

function renderTeaching(trace) {
  renderLesson(lessonText, lessonBlocks(app.state, trace));
  for (const [mode, button] of Object.entries(modeButtons)) button.setAttribute("aria-pressed", String(app.state.mode === mode));
  player.draw();
  guide.update(app.state, trace, { inspected: app.view.inspected });
}

// The Max / Average toggle makes the very change #mode makes.
for (const [mode, button] of Object.entries(modeButtons)) {
  button.addEventListener("click", () => {
    if (app.state.mode !== mode) change(switchMode(mode));
  });
}

// Focusing (or clicking) an input cell counts as inspecting it, for the guide.
stage.addEventListener("focusin", (event) => {
  const cell = cellOf(event.target);
  if (cell?.grid !== "input") return;
  app.view.inspected = [cell.row, cell.col];
  guide.note("pick");
  guide.update(app.state, isCurrent() ? app.trace : null, { inspected: app.view.inspected });
});

// ---- the exercise panel: a failing case comes in through the hash, like a link ----

// The marks of the case the panel loaded while the grids show that case (a tap that selects
// another output keeps them); gone for good once anything else changes. `shownKey` is
// gridsKey(app.state).
function currentMismatches(shownKey) {
  const mismatch = app.view.mismatch;
  if (mismatch && mismatch.view !== shownKey) app.view.mismatch = null;
  return app.view.mismatch?.marks ?? null;
}

const exercise = mountExercise(byId("exercise"), {
  showCase(state, marks) {
    app.view.mismatch = { view: gridsKey(state), marks };
    const hash = serialiseState(state);
    if (location.hash !== hash) history.pushState(null, "", hash);
    loadHash();
  },
  clearMarks() {
    if (!app.view.mismatch) return;
    app.view.mismatch = null;
    render();
  },
});

// ---- boot ----

fillPresetOptions(controls.preset);
bindControls(controls, {
  getState: () => app.state,
  change,
  reportControlError(text) {
    app.controlError = text;
    updateStatus();
  },
  gradientShape,
});

const bridge = new WorkerBridge({
  onProgress({ step, steps, message }) {
    Object.assign(app.boot, { step, steps, message });
    app.timings.bootSteps.push({ step, message, startedMs: performance.now() - pageStart });
    updateStatus();
  },
  onReady() {
    app.boot.ready = true;
    app.boot.step = app.boot.steps;
    app.timings.bootMs = performance.now() - pageStart;
    updateStatus();
    keepOffline(byId("update-notice"));
  },
  onFailure(text) {
    app.boot.failure = text;
    render();
  },
});

window.addEventListener("hashchange", loadHash);
window.poolgradWidget = {
  trace: (request) => bridge.request(request),
  python: () => bridge.describe(),
  timings: app.timings,
  exerciseTimings: exercise.timings,
};
loadHash();
if (app.hashError) requestTrace();
// The shipped traces arrive while Python starts: they may answer the view already shown.
shippedLoaded.then(() => {
  if (answerFromShipped()) writeHash();
  render();
});
// Then the first minute's: a view changed to meanwhile may be one of them.
firstMinuteLoaded.then(() => {
  if (!answerFromShipped()) return;
  writeHash();
  render();
});
