// index.html's host: the widget (widget/mount.js) mounted with a model backed by the URL
// hash, served by the page's shared Python. What is the page's, not the widget's, lives
// here: the link (the hash is read into the model, and the canonical link is written from
// the state and its trace, state.js hashFor), the #status the page placed (disk-check.js
// writes into it before any module loads), and the service worker's update notice.
//
// Test hook: window.poolgradWidget.trace(request) sends a raw trace() request (keyword
// arguments of poolgrad.trace as JSON, non-finite values as "NaN"/"Infinity"/"-Infinity")
// to the same worker and resolves with {trace} or {error}; the browser tests use it for
// parity with native Python; .python() says which Python serves the page (bridge.js,
// describe). window.poolgradWidget.timings holds the last measured boot (with the start of
// each boot step), trace, round-trip and render times in ms; .exerciseTimings the exercise
// panel's last run (lastRunMs: from Run to the result, Python's start included on the first
// run; lastCheckMs: the check alone).

import { keepOffline } from "./offline/offline.js";
import { pageTraces } from "./runtime/page-traces.js";
import { mount } from "./widget/mount.js";
import { InputError, MODEL_KEYS, hashFor, modelValues, parseHash } from "./widget/state.js";

// A model in anywidget's shape whose values are the hash's: read() takes the hash in (a
// refused one sets `error`, the values stay those of the last good link).
function hashModel() {
  let values = {};
  const handlers = new Map();
  const fire = (keys) => {
    for (const key of keys) for (const handler of handlers.get(`change:${key}`) ?? []) handler();
    if (keys.length) for (const handler of handlers.get("change") ?? []) handler();
  };
  return {
    get: (key) => values[key],
    set(key, value) {
      values = { ...values, [key]: value };
      fire([key]);
    },
    save_changes() {},
    on(event, handler) {
      if (!handlers.has(event)) handlers.set(event, new Set());
      handlers.get(event).add(handler);
    },
    off(event, handler) {
      handlers.get(event)?.delete(handler);
    },
    read() {
      let next;
      try {
        next = { ...modelValues(parseHash(location.hash)), error: null };
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        next = { ...values, error: error.message };
      }
      const changed = [...Object.keys(MODEL_KEYS), "error"].filter((key) => JSON.stringify(next[key]) !== JSON.stringify(values[key]));
      values = next;
      // Back to the same link after a refused one: the view hears of it all the same.
      fire(changed.length ? changed : ["error"]);
    },
  };
}

const model = hashModel();
model.read();
const traces = pageTraces();
const widget = await mount(document.getElementById("widget"), model, {
  traces,
  status: document.getElementById("status"),
  invalid: (message) => `The link's state is not valid: ${message}. Fix the link or change any control to start from the view shown.`,
});

// The canonical link of the view shown: less a selection the output does not have.
function writeHash() {
  const canonical = hashFor(widget.state(), widget.trace());
  if (location.hash !== canonical) history.replaceState(null, "", canonical);
}
widget.on("change", writeHash);
widget.on("trace", writeHash);
if (!model.get("error")) writeHash();
window.addEventListener("hashchange", () => model.read());
traces.subscribe({ onReady: () => keepOffline(document.getElementById("update-notice")) });

window.poolgradWidget = {
  trace: (request) => widget.request(request),
  python: () => widget.python(),
  timings: widget.timings,
  exerciseTimings: widget.exerciseTimings,
};
