// The shipped traces: poolgrad's answers for the views a learner lands on and for the first
// minute's views (first-views.js), computed by build.py with the very package the worker
// runs, so those views answer while Python starts. The landing views' file is fetched by
// early.js at first paint; the first minute's, about ten times larger, only once the
// first view has been drawn (a frame after the first file was read), so it never delays
// it. The chain's (chain/first-views.js) are read when it first opens (viewTracesLoaded).
// All are filed by request key; a browser test has Python recompute every trace.

import { FIRST_MINUTE_TRACES, shippedTraces } from "./early.js";

const tables = [];
const VIEW_TRACES = { chain: new URL("../chain-traces.json", import.meta.url) };
const viewLoads = new Map();

function tableOf(file) {
  return file && typeof file.traces === "object" && file.traces !== null ? file.traces : {};
}

// Resolves, once the file has been read (or could not be), with whether it holds any trace.
export const shippedLoaded = shippedTraces.then((file) => {
  tables.push(tableOf(file));
  return Object.keys(tables[0]).length > 0;
});

// A frame after the first file was read: the first view is on screen by then. A page
// that paints no frames (hidden, a frame scrolled away) reads the file all the same.
const firstViewDrawn = shippedLoaded.then(() => new Promise((resolve) => {
  requestAnimationFrame(() => setTimeout(resolve, 0));
  setTimeout(resolve, 1000);
}));

// Resolves, once the first minute's file has been read (or could not be), with whether it
// holds any trace.
export const firstMinuteLoaded = firstViewDrawn.then(() => readTable(FIRST_MINUTE_TRACES));

// Adds the file at `url` after the landing views' table (shippedAvailable reads that one).
async function readTable(url) {
  const file = await fetch(url).then((response) => (response.ok ? response.json() : null)).catch(() => null);
  await shippedLoaded;
  const table = tableOf(file);
  tables.push(table);
  return Object.keys(table).length > 0;
}

// The same for the traces of `view` ("chain"), fetched on the first call.
export function viewTracesLoaded(view) {
  if (!viewLoads.has(view)) viewLoads.set(view, readTable(VIEW_TRACES[view]));
  return viewLoads.get(view);
}

// The shipped trace for the request `key`, or null (not shipped, or its file not read yet).
export function shippedTrace(key) {
  const table = tables.find((candidate) => Object.hasOwn(candidate, key));
  return table ? table[key] : null;
}

// Whether the landing views' file has been read and holds traces: a view the files lack
// then needs Python.
export function shippedAvailable() {
  return tables.length > 0 && Object.keys(tables[0]).length > 0;
}
