// The notebook host: anywidget's render({ model, el }) for poolgrad.Widget (py/poolgrad/
// widget.py). It is the page's mount (widget/mount.js), so the page and the notebook draw
// the same DOM; what is the notebook's own is here: the model's few differences from
// mount's, a trace source answered by the kernel's own poolgrad, and the notebook's colour
// scheme. Bundled into one module by sitebuild/widget_bundle.py (anywidget cannot resolve
// relative imports).

// A notebook holds every view at once: the chain's and the picture's keys are in the table
// before a model is read (on the page, widget/views.js loads them when a view opens).
import "./chain/keys.js";
import "./picture/keys.js";
import { chainRequestKey } from "./chain/request.js";
import { mount } from "./widget/mount.js";
import { InputError, requestKey, stateFromModel } from "./widget/state.js";

// What a cell shows: the grids (always there) and the controls. Not the lesson text and
// its "Try it" guide (the notebook's own cells teach, and the guide keeps progress per
// page, here the notebook app's), nor the step-through player (a cell stays short; a tap
// or w.selection shows a window), nor the exercise panel (it runs learner code in the
// site's Pyodide workers; a notebook has poolgrad.check, in the kernel), nor the Code
// panel (the notebook is the code, and its link and embed code name the page's address).
const PARTS = { controls: true, lesson: false, player: false, exercise: false, code: false };

// How long a request waits for the kernel. None answers in a notebook opened from its
// saved state or in an HTML export: the view the state holds is drawn from it, any other
// says it needs the kernel.
export const KERNEL_TIMEOUT_MS = 15000;

// mount's model over anywidget's, which has its shape; what differs is adapted here:
// - `error` is a Unicode trait ("" for none) where mount reads and clears null;
// - `stride` None means the kernel in Python (and follows it); mount reads the stride it
//   means, and pins it when the view changes the kernel (the page keeps the stride);
// - the kernel refuses a change from the view by sending the good settings back with
//   `error`: mount sees the settings first, then the error over them, so the view goes
//   back to the last good one and says why (mount keeps its view when it reads an error).
export function notebookModel(model) {
  let errorHidden = false;
  const wrappers = new Map();
  return {
    get(key) {
      const value = model.get(key);
      if (key === "error") return errorHidden ? null : value || null;
      if (key === "stride") return value ?? model.get("kernel_size");
      return value;
    },
    set(key, value) {
      if (key === "error") {
        model.set("error", value ?? "");
        return;
      }
      if (key === "kernel_size" && model.get("stride") === null) model.set("stride", model.get("kernel_size"));
      model.set(key, value);
    },
    save_changes: () => model.save_changes(),
    on(event, callback) {
      if (event !== "change") {
        model.on(event, callback);
        return;
      }
      const wrapper = () => {
        if (model.get("error")) {
          errorHidden = true;
          try {
            callback();
          } finally {
            errorHidden = false;
          }
        }
        callback();
      };
      wrappers.set(callback, wrapper);
      model.on("change", wrapper);
    },
    off(event, callback) {
      model.off(event, wrappers.get(callback) ?? callback);
      wrappers.delete(callback);
    },
  };
}

// The request key of settings in the model's keys (state.js requestKey, the chain's
// chainRequestKey), or null for settings the page's rules refuse and for the picture view
// (whose requests carry their pixels' shape, answered by the kernel each time).
export function viewKey(settings) {
  if (!settings) return null;
  try {
    const state = stateFromModel((key) => settings[key] ?? null);
    if (state.view === "picture") return null;
    return state.view === "chain" ? chainRequestKey(state) : requestKey(state);
  } catch (problem) {
    if (problem instanceof InputError) return null;
    throw problem;
  }
}

// The trace source (docs/design.md, "mount"): each request goes to the kernel as a custom
// message {type: "trace", id, key}, which widget.py answers with poolgrad.wire.run_trace
// ({type: "trace", id, answer}). A picture's request ({json, pixels}, pixels null for the
// kernel's own picture) goes as {type: "picture", id, key: json} with its pixels, if any,
// as the message's one buffer, and its answer's planes come back as the answer's buffer. The kernel also syncs the trace of every view it computes
// (`trace`, which a saved notebook keeps) with the settings it computed it from
// (`trace_settings`): a request for that view is answered from it, with no round trip,
// and so is one still waiting when it arrives. No Python to boot: ready at once.
export function kernelTraces(model, timeoutMs = KERNEL_TIMEOUT_MS) {
  const source = Math.random().toString(36).slice(2, 10);
  let count = 0;
  const waiting = new Map();
  const lanes = new Map();
  let synced = { settings: undefined, key: null };
  const syncedKey = () => {
    const settings = model.get("trace_settings");
    if (settings !== synced.settings) synced = { settings, key: viewKey(settings) };
    return synced.key;
  };
  const settle = (id, answer) => {
    const request = waiting.get(id);
    if (!request) return;
    waiting.delete(id);
    clearTimeout(request.timer);
    if (lanes.get(request.lane) === id) lanes.delete(request.lane);
    request.resolve(answer);
  };
  const unanswered = () => ({
    error: `The kernel did not answer within ${timeoutMs / 1000} s: this view needs the notebook's kernel `
      + "(run the widget's cell again; a notebook opened from its saved state shows its last view only).",
    timedOut: true,
  });
  const ask = (key, lane, pixels = undefined) => {
    const id = `${source}:${++count}`;
    return new Promise((resolve) => {
      waiting.set(id, { key, lane, resolve, timer: setTimeout(() => settle(id, unanswered()), timeoutMs) });
      if (lane !== null) lanes.set(lane, id);
      try {
        if (pixels === undefined) model.send({ type: "trace", id, key });
        else model.send({ type: "picture", id, key }, undefined, pixels ? [pixels] : []);
      } catch {
        settle(id, unanswered());
      }
    });
  };
  const onMessage = (message, buffers) => {
    if ((message?.type !== "trace" && message?.type !== "picture") || !waiting.has(message.id)) return;
    let answer;
    try {
      answer = JSON.parse(message.answer);
    } catch {
      answer = { error: "the kernel's answer was not JSON" };
    }
    if (message.type === "picture" && answer.picture) {
      // The planes as an ArrayBuffer of their own, as the page's worker hands them over.
      const [planes] = buffers ?? [];
      answer.planes = planes ? planes.buffer.slice(planes.byteOffset, planes.byteOffset + planes.byteLength) : new ArrayBuffer(0);
    }
    settle(message.id, answer);
  };
  const onSynced = () => {
    const key = syncedKey();
    for (const [id, request] of waiting) if (request.key === key) settle(id, { trace: model.get("trace") });
  };
  model.on("msg:custom", onMessage);
  model.on("change:trace_settings", onSynced);
  return {
    latest(key, lane) {
      if (lanes.has(lane)) settle(lanes.get(lane), { superseded: true });
      if (typeof key === "object") return ask(key.json, lane, key.pixels ?? null);
      if (key === syncedKey()) return Promise.resolve({ trace: model.get("trace") });
      return ask(key, lane);
    },
    request: (request) => ask(typeof request === "string" ? request : JSON.stringify(request), null),
    subscribe({ onReady }) {
      onReady?.({});
      return () => {};
    },
    describe: () => "the notebook's kernel",
    close() {
      model.off("msg:custom", onMessage);
      model.off("change:trace_settings", onSynced);
      for (const id of [...waiting.keys()]) settle(id, { superseded: true });
    },
  };
}

// The picture view's picture: the kernel's (poolgrad.Widget(image)), described by the
// `picture_source` trait, {name, shape: [height, width], sizes: {size: [height, width]}}
// (the sides Python scales it to for each longer side the view offers); its pixels stay
// in the kernel. A widget made without a picture has none to offer.
export function kernelPicture(model) {
  return {
    at(size) {
      const source = model.get("picture_source") ?? {};
      const sides = source.sizes?.[String(size)];
      if (!sides) {
        return { error: "This widget has no picture: make one with poolgrad.Widget(image), image an (H, W), (H, W, 3) or (3, H, W) array." };
      }
      const [height, width] = sides;
      return { name: source.name, width, height, original: source.shape, scaled: height !== source.shape[0] || width !== source.shape[1] };
    },
  };
}

// The colour scheme: JupyterLab's and Notebook 7's theme (the body's data-jp-theme-light),
// else the system's. The host's element carries it as data-scheme, under which the bundled
// stylesheet puts the page's dark colours (style.css's own follow prefers-color-scheme).
export function notebookScheme() {
  const system = matchMedia("(prefers-color-scheme: dark)");
  const current = () => {
    const light = document.body.dataset.jpThemeLight;
    if (light === "true" || light === "false") return light === "true" ? "light" : "dark";
    return system.matches ? "dark" : "light";
  };
  return {
    current,
    subscribe(callback) {
      const theme = new MutationObserver(callback);
      theme.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
      system.addEventListener("change", callback);
      return () => {
        theme.disconnect();
        system.removeEventListener("change", callback);
      };
    },
  };
}

async function render({ model, el }) {
  el.classList.add("poolgrad-notebook");
  const scheme = notebookScheme();
  const showScheme = () => {
    el.dataset.scheme = scheme.current();
  };
  showScheme();
  const unsubscribe = scheme.subscribe(showScheme);
  // When a change from the kernel reached the view (data-changed, before mount hears of
  // it): the tests split a change's time into the kernel's and the front end's.
  const changed = () => {
    el.dataset.changed = String(performance.now());
  };
  model.on("change", changed);
  const traces = kernelTraces(model);
  const widget = await mount(el, notebookModel(model), {
    traces,
    parts: PARTS,
    scheme,
    picture: kernelPicture(model),
    invalid: (message) => `Not valid: ${message}. The widget keeps its last good view.`,
  });
  const showMismatches = () => widget.showMismatches(model.get("mismatches"));
  showMismatches();
  model.on("change:mismatches", showMismatches);
  // Each redraw for a new trace stamps its time and its render's length on the element
  // (data-drawn, data-draw-ms): the notebook tests time a change from a cell to the redraw.
  widget.on("trace", () => queueMicrotask(() => {
    el.dataset.drawn = String(performance.now());
    el.dataset.drawMs = String(widget.timings.lastRenderMs);
  }));
  return () => {
    model.off("change:mismatches", showMismatches);
    model.off("change", changed);
    unsubscribe();
    traces.close();
    widget.destroy();
  };
}

export default { render };
