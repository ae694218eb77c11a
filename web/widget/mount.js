// mount(element, model, options): the front end's one entry. It draws the whole widget
// into `element` and keeps it in step with `model`, which owns the state, in anywidget's
// shape: get(key), set(key, value), save_changes(), on("change:key" | "change", cb), off().
// The model's keys are state.js MODEL_KEYS (poolgrad.trace()'s argument names), plus
// `error` (a host's readable refusal of what it was given: a bad link, a bad attribute).
// docs/design.md ("mount") is the contract: model keys, options, the trace source, parts.
//
// Data flows one way: model -> state (stateFromModel) -> trace source -> trace -> render.
// A learner's change makes a new state, which the view sets into the model and shows at
// once; the model's echo of it is recognised and ignored. A trace never changes the state:
// a selection the output lacks stays in the state, and every view asks trace-view's
// selectedOutput, which ignores it. A selection change never asks for a trace: the last
// one already holds every window and argmax, so a tap only re-marks a few cells. While
// Python starts, a state whose trace the build shipped is answered from that trace.
//
// Returns a handle: state(), trace() (the current one, or null), on(type, cb) for "change"
// (the state), "select" ({row, col, argmax, window}), "trace" ({state, trace}) and
// "ready"; python(), timings and exerciseTimings (test hooks); request(r) (a raw request
// to the same Python); showMismatches(mismatches) (a host's marks of wrong cells); destroy().

import { CodeView } from "../takeaway/code-view.js";
import { bindControls, controlElements, fillPresetOptions, syncControls } from "./controls.js";
import { bindGridInput } from "./grid-input.js";
import { Guide, progressKey } from "../lesson/guide.js";
import { lessonBlocks, renderLesson } from "../lesson/lesson.js";
import { STATUS_MARKUP, WIDGET_MARKUP, separateIds } from "./markup.js";
import { Player } from "../lesson/player.js";
import { mountExercise } from "../exercise/exercise.js";
import { mismatchMarks } from "../exercise/marks.js";
import { redrawPlan, renderSelection, renderView } from "./render.js";
import { explanationText, traceParameters, viewTitle } from "../lesson/sentences.js";
import {
  InputError, MODEL_KEYS, defaultState, gridsKey, modelValues, requestKey, stateFromModel, switchMode, switchView,
} from "./state.js";
import { selectedOutput, windowCells } from "./trace-view.js";
import { isLoadedLater, loadView, viewOfModel } from "./views.js";

// The parts a host may switch off (options.parts); the grids are always there.
export const PARTS = ["controls", "lesson", "player", "exercise", "code"];

let lanes = 0;

// options:
//   traces: the trace source (runtime/page-traces.js describes its shape); default the
//     page's shared Python, loaded on first use;
//   parts: {controls, lesson, player, exercise, code}, each true (default) or false;
//   status: an element holding #status-text and #boot-progress that the host placed
//     (index.html); default, the widget draws its own #status first;
//   invalid(message): the status text for a refused model (default "Not valid: …");
//   name: the widget's name among several on a page, added to its landmarks' labels;
//   scheme: the colour-scheme source, {current() -> "light" | "dark", subscribe(callback)
//     -> unsubscribe} (a notebook's theme); default, the system's (prefers-color-scheme);
//   picture: a picture the host's Python holds, for the picture view (picture-view.js
//     says its shape); default, the samples and the learner's own files.
export async function mount(element, model, options = {}) {
  const traces = options.traces ?? (await import("../runtime/page-traces.js")).pageTraces();
  return mountWith(element, model, { ...options, traces });
}

// The default colour-scheme source: the system's, which style.css follows too.
function systemScheme() {
  const query = window.matchMedia("(prefers-color-scheme: dark)");
  return {
    current: () => (query.matches ? "dark" : "light"),
    subscribe(callback) {
      query.addEventListener("change", callback);
      return () => query.removeEventListener("change", callback);
    },
  };
}

function mountWith(element, model, options) {
  const { traces } = options;
  const parts = Object.fromEntries(PARTS.map((part) => [part, options.parts?.[part] !== false]));
  const lane = `widget-${++lanes}`;
  element.innerHTML = (options.status ? "" : STATUS_MARKUP) + WIDGET_MARKUP;
  for (const node of element.querySelectorAll("[data-part]")) {
    if (!parts[node.dataset.part]) node.hidden = true;
  }
  // Each view's parts (data-view-part, the views it shows in): shown while one is (showView).
  const viewParts = [...element.querySelectorAll("[data-view-part]")];
  // Several widgets on a page: each one's landmarks say whose they are.
  if (options.name) {
    for (const section of element.querySelectorAll("section[aria-label]")) {
      section.setAttribute("aria-label", `${section.getAttribute("aria-label")}: ${options.name}`);
    }
    for (const section of element.querySelectorAll("section[aria-labelledby]")) {
      const title = element.querySelector(`#${section.getAttribute("aria-labelledby")}`);
      section.removeAttribute("aria-labelledby");
      section.setAttribute("aria-label", `${title.textContent}: ${options.name}`);
    }
  }
  const root = element.getRootNode();
  const byId = (id) => element.querySelector(`#${id}`) ?? options.status?.querySelector(`#${id}`)
    ?? (options.status?.id === id ? options.status : null);
  const regions = {
    inputGrid: byId("input-grid"),
    outputGrid: byId("output-grid"),
    gradOutputGrid: byId("grad-output-grid"),
    gradInputGrid: byId("grad-input-grid"),
    gradPanels: [...element.querySelectorAll("[data-gradient-panel]")],
    unpooledGrid: byId("unpooled-grid"),
    unpoolNote: byId("unpool-note"),
    unpoolPanels: [...element.querySelectorAll("[data-unpool-panel]")],
    explanation: byId("explanation"),
    legend: byId("legend"),
    formula: byId("formula-box"),
    shapes: byId("shapes"),
  };
  const stage = byId("stage");
  const viewSelect = byId("view");
  const announcer = byId("announcer");
  const statusBox = byId("status");
  const statusText = byId("status-text");
  const progressBar = byId("boot-progress");
  const controls = controlElements(element);
  const scheme = options.scheme ?? systemScheme();
  const listeners = new Map();
  const emit = (type, detail) => {
    for (const listener of listeners.get(type) ?? []) listener(detail);
  };

  const initialState = defaultState();
  const app = {
    state: initialState,
    // requestKey(state): the key of what Python computes for the state shown.
    stateKey: requestKey(initialState),
    // The last trace Python accepted (or the build shipped), its request key and the state
    // it was computed for: a state Python refuses keeps this view on screen.
    trace: null,
    traceKey: null,
    traceState: null,
    // The request key of the last answer, a trace or a refusal.
    answerKey: null,
    // "shipped" while the trace shown is the build's precomputed one, else "python".
    traceSource: null,
    traceError: null,
    modelError: null,
    controlError: null,
    // steps: null until the worker's first report says how many (the bar is indeterminate).
    boot: { ready: false, failure: null, step: 0, steps: null, message: "Starting the Python worker" },
    // mismatch: the exercise panel's marks of wrong cells, for the state it loaded.
    view: { focus: {}, editing: null, inspected: null, scheme: scheme.current(), mismatch: null },
    // What the grids show now: the `next` of the render that last drew them (redrawPlan).
    drawn: null,
    // The model's values of the state shown: the model's echo of them changes nothing.
    values: null,
    announcedReady: false,
    setting: false,
    timings: { bootMs: null, bootSteps: [], startup: null, lastTraceMs: null, lastRoundTripMs: null, lastRenderMs: null },
  };
  const mountStart = performance.now();

  // The heat map's palette follows the colour scheme (style.css does the rest).
  const unsubscribeScheme = scheme.subscribe(() => {
    if (app.view.scheme === scheme.current()) return;
    app.view.scheme = scheme.current();
    render();
  });

  const isCurrent = () => app.trace !== null && app.stateKey !== null && app.traceKey === app.stateKey;
  // Python refused the state shown: the grids keep the last view it accepted, the status
  // says why, and the grids' own edits and taps start from the view they show.
  const refused = () => app.traceError !== null && app.stateKey !== null && app.answerKey === app.stateKey && app.trace !== null;
  // The trace shown: the current one, or the kept one while the state is refused.
  const currentTrace = () => (isCurrent() || refused() ? app.trace : null);
  // The state the grids show: the kept view with the refused state's view-only parts (what
  // the request leaves out: the selection, the gradient switch).
  const shownState = () => (refused()
    ? { ...app.traceState, sel: app.state.sel, selImplicit: app.state.selImplicit, grad: app.state.grad }
    : app.state);

  // ---- the chain view (web/chain/): its module loads the first time it is opened ----
  let chain = null;
  let chainLoading = null;
  const chainHost = {
    change: (mutator) => change(mutator),
    announce: (text) => announce(text),
    reportError(text) {
      app.controlError = text;
      updateStatus();
    },
  };
  function openChain() {
    if (!chainLoading) traces.shippedFor?.("chain").then(shippedArrived);
    chainLoading ??= loadView("chain").then((module) => {
      if (destroyed) return;
      chain = module.mountChain(byId("chain"), chainHost);
      if (app.state.view === "chain") setState(app.state);
    }, (problem) => {
      app.boot.failure = `The chain view could not load: ${problem.message}`;
      render();
    });
  }
  // The request key of a state: the pooling view's (state.js), or the chain's once its
  // module is here (null until then).
  function keyFor(state) {
    if (state.view !== "chain") return requestKey(state);
    return chain ? chain.requestKey(state) : null;
  }
  const titleOf = (trace) => (trace.kind === "chain" ? chain.title(trace) : viewTitle(traceParameters(trace)));

  // ---- the picture view (web/picture/): its module and samples load when it is first opened ----
  let picture = null;
  let pictureLoading = null;
  function openPicture() {
    pictureLoading ??= loadView("picture").then((module) => {
      if (destroyed) return;
      picture = module.mountPicture(byId("picture"), {
        latest: (request) => traces.latest(request, `${lane}-picture`),
        change: (mutator) => change(mutator),
        announce: (text) => announce(text),
        picture: options.picture,
      });
      if (app.state.view === "picture") render();
    }, (problem) => {
      app.boot.failure = `The picture view could not load: ${problem.message}`;
      render();
    });
  }
  function showView(view) {
    for (const node of viewParts) {
      const hidden = !node.dataset.viewPart.split(" ").includes(view) || (node.dataset.part !== undefined && !parts[node.dataset.part]);
      if (node.hidden !== hidden) node.hidden = hidden;
    }
    if (viewSelect.value !== view) viewSelect.value = view;
  }

  function updateStatus() {
    let state;
    let text;
    let source = null;
    if (app.boot.failure) [state, text] = ["error", app.boot.failure];
    else if (app.modelError) [state, text] = ["error", app.modelError];
    else if (app.controlError) [state, text] = ["error", app.controlError];
    else if (app.traceError) [state, text] = ["error", refused() ? `${app.traceError.replace(/\.?$/, ".")} The grids show the last valid view.` : app.traceError];
    else if (!app.boot.ready) {
      const booting = app.boot.steps ? `step ${app.boot.step} of ${app.boot.steps}: ${app.boot.message}` : app.boot.message;
      // Before Python is up, a current trace is a shipped one.
      if (isCurrent()) {
        [state, text] = ["loading", `Ready (precomputed): ${titleOf(app.trace)}. Loading Python in your browser (${booting}) for any other view.`];
        source = "precomputed";
      } else if (traces.shippedAvailable?.()) [state, text] = ["loading", `This view needs Python, still loading (${booting}); it appears as soon as Python is ready.`];
      else [state, text] = ["loading", `Loading Python in your browser (${booting}). You can already edit the input; your changes apply when it is ready.`];
    }
    // The picture view draws what it asks for itself (#picture-row is aria-busy meanwhile).
    else if (app.state.view === "picture") [state, text] = ["ready", `Ready: the picture view, ${viewTitle(app.state)}.`];
    // Python is up but the first answer is still on its way: "ready" waits for a drawn output.
    else if (!app.trace) [state, text] = ["loading", "Python is ready; computing the first output."];
    else if (app.state.view === "chain" && !isCurrent()) [state, text] = ["loading", "Python is computing the chain."];
    else [state, text] = ["ready", `Ready: ${titleOf(app.trace)}.`];
    // Written only when they change: a rewrite would cost the next frame a relayout.
    if (statusBox.dataset.state !== state) statusBox.dataset.state = state;
    if (statusText.textContent !== text) statusText.textContent = text;
    // "ready" once: Python is up and the output is drawn (after the render in progress).
    if (state === "ready" && !app.announcedReady) {
      app.announcedReady = true;
      queueMicrotask(() => emit("ready", { state: app.state, trace: currentTrace() }));
    }
    if ((statusBox.dataset.source ?? null) !== source) {
      if (source) statusBox.dataset.source = source;
      else delete statusBox.dataset.source;
    }
    const bootOver = app.boot.ready || Boolean(app.boot.failure);
    if (progressBar.hidden !== bootOver) progressBar.hidden = bootOver;
    if (!bootOver && app.boot.steps) {
      progressBar.max = app.boot.steps;
      progressBar.value = app.boot.step;
    }
  }

  function focusedCell() {
    const active = root.activeElement;
    const cell = active?.closest?.("[data-grid]");
    return cell && element.contains(cell) ? { grid: cell.dataset.grid, row: cell.dataset.row, col: cell.dataset.col } : null;
  }

  // The one render: decides with redrawPlan how much of the view to redraw, then brings the
  // controls, #status and the teaching layer up to date. It reads app and writes the DOM only.
  function render() {
    const started = performance.now();
    showView(app.state.view);
    if (app.state.view === "picture") {
      openPicture();
      picture?.render(app.state);
      syncControls(controls, app.state);
      updateStatus();
      app.timings.lastRenderMs = performance.now() - started;
      return;
    }
    if (app.state.view === "chain") {
      const awaiting = app.stateKey === null || app.answerKey !== app.stateKey;
      // The chain keeps its own last drawing while a state is refused: it is given only the
      // current trace.
      chain?.render(app.state, isCurrent() ? app.trace : null, { scheme: app.view.scheme, awaiting, error: app.traceError, bootReady: app.boot.ready });
      syncControls(controls, app.state);
      updateStatus();
      app.timings.lastRenderMs = performance.now() - started;
      return;
    }
    const trace = currentTrace();
    const shown = shownState();
    const awaitingTrace = app.boot.ready && !app.boot.failure && app.answerKey !== app.stateKey;
    // A stale trace (the worker is computing the new state) still shows the output, but
    // its windows may not fit the new input, so the input grid is drawn without overlays.
    const shownKey = gridsKey(shown);
    const view = {
      ...app.view, staleInput: trace === null, traceError: app.traceError, stepMarks: player.marks(), mismatches: app.view.mismatch?.marks ?? null,
    };
    const next = { state: shown, trace: app.trace, view, awaitingTrace, gridsKey: shownKey };
    const plan = redrawPlan(app.drawn, next);
    if (plan === "all") {
      const focus = focusedCell();
      renderView(regions, shown, app.trace, view);
      stage.querySelector("[data-editor]")?.focus();
      if (focus && !app.view.editing) {
        stage.querySelector(`[data-grid="${focus.grid}"][data-row="${focus.row}"][data-col="${focus.col}"]`)?.focus({ preventScroll: true });
      }
    } else if (plan === "selection") {
      renderSelection(regions, shown, app.trace, view);
    }
    if (plan !== "wait") app.drawn = next;
    regions.outputGrid.setAttribute("aria-busy", String(awaitingTrace || (app.answerKey !== app.stateKey && !app.traceError)));
    syncControls(controls, app.state);
    updateStatus();
    codeView.update();
    if (plan !== "wait") renderTeaching(shown, trace);
    app.timings.lastRenderMs = performance.now() - started;
  }

  // The player follows the state and its trace (it starts over on a new one); a trace still
  // being computed leaves it where it is.
  function syncPlayer() {
    if (app.state.view !== "pool") return;
    const awaitingTrace = app.boot.ready && !app.boot.failure && app.answerKey !== app.stateKey;
    if (!awaitingTrace) player.sync(currentTrace(), shownState().grad);
  }

  // The one place the trace shown changes: `answer` ({trace} or {error}) for `key`, the
  // request key of `state`, from `source` ("python" or "shipped"). A refusal keeps the last
  // trace accepted. Python's answer to the view a shipped trace shows keeps that very object
  // on screen (the player keeps its place); the two are equal, as a browser test checks for
  // every one. The host hears of it (index.html writes the canonical link).
  function showTrace(key, state, answer, source) {
    app.answerKey = key;
    const setup = state.view === "chain" ? "chain" : "pooling setup";
    app.traceError = answer.error ? (answer.timedOut ? answer.error : `Not a valid ${setup}: ${answer.error}`) : null;
    if (!answer.error) {
      const same = app.traceSource === "shipped" && app.traceKey === key
        && JSON.stringify(answer.trace) === JSON.stringify(app.trace);
      app.traceKey = key;
      app.traceState = state;
      app.traceSource = source;
      if (!same) app.trace = answer.trace;
    }
    if (key === app.stateKey) {
      syncPlayer();
      emit("trace", { state: app.state, trace: currentTrace() });
    }
  }

  async function requestTrace() {
    const key = app.stateKey;
    const state = app.state;
    const sent = performance.now();
    let answer;
    try {
      // While Python starts, a view the shipped traces answer (answerFromShipped, next) is
      // on screen already: Python serves the views of other widgets that wait for it first.
      const shown = !app.boot.ready && (traces.shipped?.(key) ?? null) !== null;
      answer = await traces.latest(key, lane, { shown });
    } catch {
      return; // the source's onFailure has already put the reason in #status
    }
    if (answer.superseded || destroyed) return;
    app.timings.lastRoundTripMs = performance.now() - sent;
    app.timings.lastTraceMs = answer.ms ?? null;
    showTrace(key, state, answer, "python");
    render();
  }

  // While Python starts, the current state is answered from its shipped trace, if there is
  // one; Python is asked all the same (the latest state wins) and takes over once it is up.
  function answerFromShipped() {
    const key = app.stateKey;
    const trace = app.boot.ready || key === null ? null : traces.shipped?.(key) ?? null;
    if (trace === null || app.answerKey === key) return false;
    showTrace(key, app.state, { trace }, "shipped");
    return true;
  }

  function setState(next) {
    const nextKey = keyFor(next);
    if (nextKey === null) openChain();
    // Another view: nothing the last one drew or computed is shown in it.
    if (next.view !== app.state.view) {
      Object.assign(app, { trace: null, traceKey: null, traceState: null, answerKey: null, traceSource: null, traceError: null, drawn: null });
    }
    // The picture view asks Python itself (web/picture/), with its pixels.
    const needsTrace = nextKey !== null && next.view !== "picture" && (nextKey !== app.stateKey || app.answerKey === null);
    app.state = next;
    app.stateKey = nextKey;
    if (app.traceKey === nextKey) app.traceState = next;
    app.modelError = null;
    // The exercise panel's marks belong to the case it loaded; another view drops them (a
    // tap that selects another output keeps them).
    if (app.view.mismatch && app.view.mismatch.view !== gridsKey(next)) app.view.mismatch = null;
    // The worker starts computing before the main thread does anything else with the change.
    if (needsTrace) {
      requestTrace();
      answerFromShipped();
    }
    syncPlayer();
    render();
    emit("change", app.state);
  }

  // A state the view made (a learner's change, an exercise case): set into the model (whose
  // echo of it changes nothing) and shown at once.
  function adopt(next) {
    app.values = modelValues(next);
    const current = readModelValues();
    app.setting = true; // the model's events while it takes the values are the view's own
    try {
      for (const [key, value] of Object.entries(app.values)) {
        if (JSON.stringify(current[key]) !== JSON.stringify(value)) model.set(key, value);
      }
      if (model.get("error")) model.set("error", null);
      model.save_changes();
    } finally {
      app.setting = false;
    }
    setState(next);
  }

  // `from`: the state the change starts from (the grids' own: the state they show).
  function change(mutator, from = app.state) {
    guide.note("learner");
    const next = structuredClone(from);
    mutator(next);
    app.view.editing = null;
    adopt(next);
  }

  function readModelValues() {
    return Object.fromEntries(Object.keys(MODEL_KEYS).map((key) => [key, model.get(key) ?? null]));
  }

  // The model changed (the host, or the view's own set): a new state from outside, unless
  // it is the view's own. A refused model keeps the last good view and says what is wrong.
  function modelChanged() {
    if (app.setting) return;
    const error = model.get("error");
    if (error) {
      app.modelError = options.invalid ? options.invalid(error) : `Not valid: ${error}.`;
      render();
      return;
    }
    // A view loaded when first opened is read once its module (and its keys) are here.
    const later = viewOfModel((key) => model.get(key));
    if (later) {
      loadView(later).then(() => {
        if (!destroyed) modelChanged();
      }, (problem) => {
        app.boot.failure = `The ${later} view could not load: ${problem.message}`;
        render();
      });
      return;
    }
    const values = readModelValues();
    if (app.values && !app.modelError && JSON.stringify(values) === JSON.stringify(app.values)) return;
    let next;
    try {
      next = stateFromModel((key) => values[key]);
    } catch (problem) {
      if (!(problem instanceof InputError)) throw problem;
      app.modelError = options.invalid ? options.invalid(problem.message) : `Not valid: ${problem.message}.`;
      render();
      return;
    }
    // A new state from outside ends any edit: the edited cell belonged to the state that was
    // left, and may not even exist in this one.
    app.view.editing = null;
    app.controlError = null;
    guide.note("outside");
    app.values = values;
    setState(next);
  }

  // The upstream gradient's shape: the custom one's, or the current trace's output.
  function gradientShape() {
    const state = shownState();
    if (state.g) return [state.g.length, state.g[0].length];
    return currentTrace()?.output_shape ?? null;
  }

  // What pool-grad:select carries: the selected output, its argmax (max mode) and the
  // input cells its window samples.
  function selectionDetail() {
    const trace = currentTrace();
    const output = trace ? selectedOutput(shownState(), trace) : null;
    if (!output) return null;
    const [row, col] = output;
    return { row, col, argmax: trace.argmax ? trace.argmax[row][col].slice() : null, window: windowCells(trace, output) };
  }

  // A selection change is spoken through a polite live region that holds text only. The
  // explanation itself is not live, so parameter changes do not talk over the learner.
  function announceSelection() {
    const sel = app.state.sel;
    if (!sel) announcer.textContent = "No output cell selected.";
    else announcer.textContent = (currentTrace() && explanationText(shownState(), app.trace))
      || `Output (${sel[0]},${sel[1]}) selected; its window shows once the output is computed.`;
    const detail = selectionDetail();
    if (detail) emit("select", detail);
  }

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
  // The player draws through render (its position is part of the grids); render reads its
  // marks and never calls it back.
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
    copyButtons: [...element.querySelectorAll("#code [data-copy]")],
  }, () => ({ state: shownState(), trace: currentTrace() }));
  const guide = new Guide(
    { list: byId("guide-steps"), progress: byId("guide-progress"), reset: byId("guide-reset") },
    announce,
    progressKey(location, window.parent !== window, document.referrer),
  );

  function renderTeaching(state, trace) {
    if (parts.lesson) {
      renderLesson(lessonText, lessonBlocks(state, trace));
      for (const [mode, button] of Object.entries(modeButtons)) button.setAttribute("aria-pressed", String(app.state.mode === mode));
      guide.update(state, trace, { inspected: app.view.inspected });
    }
    if (parts.player) player.draw();
  }

  // The Max / Average toggle makes the very change #mode makes.
  for (const [mode, button] of Object.entries(modeButtons)) {
    button.addEventListener("click", () => {
      if (app.state.mode !== mode) change(switchMode(mode));
    });
  }

  // ---- the exercise panel: a failing case goes into the grids as a state of the view's own ----

  const exercise = parts.exercise ? mountExercise(byId("exercise"), {
    showCase(state, marks) {
      app.view.mismatch = { view: gridsKey(state), marks };
      guide.note("outside");
      app.view.editing = null;
      adopt(state);
    },
    clearMarks() {
      if (!app.view.mismatch) return;
      app.view.mismatch = null;
      render();
    },
  }) : { timings: {} };

  // ---- wiring ----

  // Another view: its module (and its keys) first, when it loads the first time it opens.
  viewSelect.addEventListener("change", () => {
    const view = viewSelect.value;
    if (!isLoadedLater(view)) {
      change(switchView(view));
      return;
    }
    loadView(view).then(() => change(switchView(view)), (problem) => {
      app.boot.failure = `The ${view} view could not load: ${problem.message}`;
      render();
    });
  });

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
  bindGridInput({
    stage,
    regions,
    guide,
    get state() { return shownState(); },
    get trace() { return app.trace; },
    get drawn() { return app.drawn; },
    get view() { return app.view; },
    set controlError(text) { app.controlError = text; },
    currentTrace,
    change: (mutator) => change(mutator, shownState()),
    render,
    updateStatus,
    gradientShape,
    announceSelection,
  });

  // Every node is found: a second widget in this tree may now rename what its labels name.
  separateIds(element);

  const unsubscribe = traces.subscribe({
    onProgress({ step, steps, message }) {
      Object.assign(app.boot, { step, steps, message });
      app.timings.bootSteps.push({ step, message, startedMs: performance.now() - mountStart });
      updateStatus();
    },
    onReady(message) {
      app.boot.ready = true;
      app.boot.step = app.boot.steps;
      app.timings.bootMs = performance.now() - mountStart;
      app.timings.startup = message?.startup ?? null; // how Python started: its path, and why
      updateStatus();
    },
    onFailure(text) {
      app.boot.failure = text;
      syncPlayer();
      render();
    },
  });

  let destroyed = false;
  model.on("change", modelChanged);
  modelChanged();
  if (app.modelError) {
    // Nothing good to show yet: the default view, with the error above it.
    requestTrace();
    render();
  }
  // The shipped traces arrive while Python starts (the landing views', then the first
  // minute's): they may answer the view shown.
  function shippedArrived() {
    if (destroyed) return;
    if (answerFromShipped()) render();
    else updateStatus();
  }
  traces.onShipped?.(shippedArrived);

  return {
    state: () => app.state,
    trace: currentTrace,
    on(type, listener) {
      if (!listeners.has(type)) listeners.set(type, new Set());
      listeners.get(type).add(listener);
    },
    off(type, listener) {
      listeners.get(type)?.delete(listener);
    },
    request: (request) => traces.request(request),
    // Opens the picture at `url` in the picture view (the element's src).
    loadPicture(url) {
      openPicture();
      pictureLoading.then(() => picture?.loadURL(url));
    },
    python: () => traces.describe?.() ?? null,
    timings: app.timings,
    exerciseTimings: exercise.timings,
    // A host's marks of wrong cells on the view shown (exercise_check's mismatches, e.g. the
    // notebook's poolgrad.check); like the exercise panel's, they go with the next view.
    showMismatches(mismatches) {
      app.view.mismatch = mismatches?.length ? { view: gridsKey(app.state), marks: mismatchMarks(mismatches) } : null;
      render();
    },
    destroy() {
      destroyed = true;
      picture?.destroy();
      model.off("change", modelChanged);
      unsubscribeScheme();
      unsubscribe();
      element.replaceChildren();
    },
  };
}
