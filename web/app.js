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
import { localModel } from "./widget/model.js";
import { InputError, hashFor, modelValues, parseHash } from "./widget/state.js";
import { viewsFor } from "./widget/views.js";

// The hash into the model: a refused link sets `error`, and the values stay those of the
// last good one. A link to a view loaded when first opened (view=chain, view=picture) is
// read once that view's module is here.
async function readHash() {
  const hash = location.hash;
  try {
    await viewsFor(hash);
  } catch (problem) {
    model.update({ error: `its view could not load (${problem.message})` });
    return;
  }
  try {
    model.update({ ...modelValues(parseHash(hash)), error: null });
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    model.update({ error: error.message });
  }
}

const model = localModel();
await readHash();
const traces = pageTraces();
const widget = await mount(document.getElementById("widget"), model, {
  traces,
  status: document.getElementById("status"),
  invalid: (message) => `The link's state is not valid: ${message}. Fix the link or change any control to start from the view shown.`,
});

// The canonical link of the view shown: less a selection the output does not have.
function writeHash() {
  // A refused link stays in the address bar until a valid state replaces it: written over
  // with the view shown, the link fixed to that very view would change nothing, fire no
  // hashchange and leave the error up.
  if (model.get("error")) return;
  const canonical = hashFor(widget.state(), widget.trace());
  if (location.hash !== canonical) history.replaceState(null, "", canonical);
}
widget.on("change", writeHash);
widget.on("trace", writeHash);
writeHash();
// A link to the view already shown changes no state, so the widget says nothing: the
// canonical link is written here too (`#` on the default view becomes its full link).
window.addEventListener("hashchange", () => readHash().then(writeHash));
traces.subscribe({
  onReady: (message) => keepOffline(document.getElementById("update-notice"), message?.startup?.files ?? []),
});

window.poolgradWidget = {
  trace: (request) => widget.request(request),
  python: () => widget.python(),
  timings: widget.timings,
  exerciseTimings: widget.exerciseTimings,
};
