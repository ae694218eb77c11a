// The shipped traces: poolgrad's answers for the views a learner lands on (first-views.js),
// computed by build.py with the very package the worker runs and fetched by early.js at
// first paint, so those views answer while Python starts. Filed by request key
// (state.js requestKey); a browser test has Python recompute every one of them.

import { shippedTraces } from "./early.js";

let table = null;
let holdsTraces = false;

// Resolves, once the file has been read (or could not be), with whether it holds any trace.
export const shippedLoaded = shippedTraces.then((file) => {
  table = file && typeof file.traces === "object" ? file.traces : {};
  holdsTraces = Object.keys(table).length > 0;
  return holdsTraces;
});

// The shipped trace for the request `key`, or null (not shipped, or the file not read yet).
export function shippedTrace(key) {
  return table !== null && Object.hasOwn(table, key) ? table[key] : null;
}

// Whether the file has been read and holds traces: a view it lacks then needs Python.
export function shippedAvailable() {
  return holdsTraces;
}
