// Module worker that runs the learner's exercise code for one Run, then is terminated
// (exercise.js starts the next one in the background as soon as a Run ends, so a Run never
// waits for a boot, and nothing a Run leaves behind, timers or callbacks, outlives it). It
// knows no expected answer: poolgrad.exercise_run calls the learner's function on the cases'
// inputs the page sends and reports what it returned as plain data, and the judge, another
// worker (exercise-judge.js), compares it. Never the widget's worker (worker.js), so an
// endless loop here leaves the grids answering.
//
// Before any learner code runs the worker locks itself down (lockDown), on any server,
// with or without the Content-Security-Policy that _headers gives this script: of the
// worker's global object and its whole prototype chain only KEPT stays (the language's own
// objects and the few things Pyodide needs: no request, storage, font or worker API), code
// from strings is unreachable (eval deleted; Function and the constructors behind
// `.constructor` of functions, async functions and generators throw; timers take
// functions only), and every reference Python holds to what was removed is dropped.
//
// Protocol: it posts {type: "ready", locked: [names still reachable, normally none]} or
// {type: "boot-error", error}; the page posts one {id, exercise, source, cases} (cases:
// exercise_check's JSON text of the inputs) and gets {type: "report", id, report} per case
// (exercise_run's JSON), then {type: "done", id}, or {type: "crashed", id, error} when
// Python itself stopped under the learner's code (os._exit, a stack overflow).

import { startExercisePython } from "./exercise-python.js";

// Kept before lockDown removes them: learner code cannot post to the page at all.
const post = self.postMessage.bind(self);
const now = performance.now.bind(performance);

// What stays on the global object and its prototypes: the language's own objects (less
// eval; Function is replaced by one that refuses code) and what Pyodide uses while it runs
// (text coding, the clock, random bytes, WebAssembly to load NumPy's libraries, timers).
const KEPT = new Set([
  "globalThis", "Infinity", "NaN", "undefined", "Object", "Function", "Array", "Number", "parseFloat", "parseInt",
  "Boolean", "String", "Symbol", "Date", "Promise", "RegExp", "Error", "AggregateError", "EvalError", "RangeError",
  "ReferenceError", "SyntaxError", "TypeError", "URIError", "JSON", "Math", "Intl", "ArrayBuffer", "Atomics",
  "Uint8Array", "Int8Array", "Uint16Array", "Int16Array", "Uint32Array", "Int32Array", "Float16Array", "Float32Array",
  "Float64Array", "Uint8ClampedArray", "BigUint64Array", "BigInt64Array", "DataView", "Map", "BigInt", "Set",
  "WeakMap", "WeakSet", "Proxy", "Reflect", "FinalizationRegistry", "WeakRef", "Iterator", "decodeURI",
  "decodeURIComponent", "encodeURI", "encodeURIComponent", "escape", "unescape", "isFinite", "isNaN",
  "SharedArrayBuffer", "WebAssembly", "console", "self", "performance", "crypto", "TextDecoder", "TextEncoder",
  "DOMException", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "queueMicrotask",
]);

// WebAssembly compiles bytes, never JavaScript; its two streaming calls take responses,
// which nothing here can fetch any more, and go too.
const WASM_REMOVED = ["compileStreaming", "instantiateStreaming"];

function refuseCode() {
  throw new EvalError("the exercise worker runs no JavaScript made from strings");
}

// Redefines `name` on `object`, fixed: learner code cannot put the original back.
function fix(object, name, value) {
  Object.defineProperty(object, name, { value, writable: false, configurable: false, enumerable: false });
}

// Returns the replacements ({name: value} for the global object) and a Map from each
// original to its replacement, for Python's side.
function shutCodeFromStrings() {
  Object.defineProperty(refuseCode, "name", { value: "Function" });
  refuseCode.prototype = Function.prototype;
  const prototypes = [
    Function.prototype,
    Object.getPrototypeOf(async function () {}),
    Object.getPrototypeOf(function* () {}),
    Object.getPrototypeOf(async function* () {}),
  ];
  const originals = new Map(prototypes.map((prototype) => [prototype.constructor, refuseCode]));
  for (const prototype of prototypes) fix(prototype, "constructor", refuseCode);
  const timer = (set) => function (callback, ...rest) {
    if (typeof callback !== "function") throw new TypeError("timers in the exercise worker take a function, not code in a string");
    return set.call(self, callback, ...rest);
  };
  const replacements = { Function: refuseCode, setTimeout: timer(self.setTimeout), setInterval: timer(self.setInterval) };
  originals.set(self.setTimeout, replacements.setTimeout).set(self.setInterval, replacements.setInterval);
  return { replacements, originals };
}

// The values of an object's own properties and those of its prototypes (getters called).
function valuesAlong(object) {
  const values = [];
  for (let level = object; level && level !== Object.prototype; level = Object.getPrototypeOf(level)) {
    for (const name of Reflect.ownKeys(level)) {
      if (object === self && typeof name === "string" && KEPT.has(name)) continue;
      const descriptor = Object.getOwnPropertyDescriptor(level, name);
      let value = descriptor.value;
      if (descriptor.get) {
        try { value = descriptor.get.call(object); } catch { value = undefined; }
      }
      if (value !== null && (typeof value === "object" || typeof value === "function")) values.push(value);
    }
  }
  return values;
}

// Everything removed (the navigator's objects too), for Python's side of the lock-down.
function removedObjects(startupFetch) {
  const removed = new Set([...valuesAlong(self), ...(self.navigator ? valuesAlong(self.navigator) : [])]);
  if (startupFetch) removed.add(startupFetch);
  for (const name of WASM_REMOVED) removed.add(WebAssembly[name]);
  removed.add(self.eval);
  return removed;
}

// Python may already hold some of them: Pyodide's own pyodide.http keeps `fetch` as
// _jsfetch (and XMLHttpRequest) from its import, pyodide.webloop the timers. Every
// reference to a removed object in a module's namespace, or in any dict or list, is
// dropped, one to a replaced object (a timer) swapped for its replacement; anything else
// that still holds one is reported.
const FORGET = `
def _forget(removed, replaced):
    import gc
    from pyodide.ffi import JsProxy
    def is_removed(value):
        return isinstance(value, JsProxy) and (removed.has(value) or replaced.has(value))
    def kept(value):
        return replaced.get(value) if isinstance(value, JsProxy) and replaced.has(value) else value
    held = []
    for holder in gc.get_objects():
        if isinstance(holder, dict):
            for key in [key for key, value in holder.items() if is_removed(value)]:
                if replaced.has(holder[key]):
                    holder[key] = kept(holder[key])
                else:
                    del holder[key]
        elif isinstance(holder, list):
            if any(is_removed(value) for value in holder):
                holder[:] = [kept(value) for value in holder if not (isinstance(value, JsProxy) and removed.has(value))]
        elif any(is_removed(value) for value in gc.get_referents(holder)):
            held.append(type(holder).__name__)
    return held
`;

// Returns what is still reachable afterwards (nothing, in the browsers tested).
function lockDown(pyodide, startupFetch) {
  const removed = removedObjects(startupFetch);
  const { replacements, originals } = shutCodeFromStrings();
  pyodide.runPython(FORGET);
  const forget = pyodide.globals.get("_forget");
  const held = forget(removed, originals).toJs();
  forget.destroy();
  pyodide.runPython("del _forget");
  const left = [];
  for (let level = self; level && level !== Object.prototype; level = Object.getPrototypeOf(level)) {
    for (const name of Reflect.ownKeys(level)) {
      if (typeof name === "string" && KEPT.has(name) && !Object.hasOwn(replacements, name)) continue;
      if (Reflect.deleteProperty(level, name)) continue;
      // A fixed constant (Chromium's TEMPORARY and PERSISTENT are numbers) reaches nothing.
      const { value, get } = Object.getOwnPropertyDescriptor(level, name);
      if (!get && (value === null || (typeof value !== "object" && typeof value !== "function"))) continue;
      try { fix(level, name, undefined); } catch { left.push(String(name)); }
    }
  }
  for (const [name, value] of Object.entries(replacements)) fix(self, name, value);
  for (const name of WASM_REMOVED) delete WebAssembly[name];
  return [...left, ...WASM_REMOVED.filter((name) => name in WebAssembly).map((name) => `WebAssembly.${name}`),
    ...("eval" in self ? ["eval"] : []), ...held.map((type) => `a Python ${type} holding one`)];
}

// The Run's request arrives once; it waits for the start, and only one is ever served.
let request = null;
const requested = new Promise((resolve) => { request = resolve; });
self.addEventListener("message", (event) => request(event.data ?? {}), { once: true });

const booted = startExercisePython(self.name, "from poolgrad.exercise_run import guard, run_request\nguard()\n")
  .then(({ pyodide, startupFetch }) => {
    const runRequest = pyodide.globals.get("run_request");
    post({ type: "ready", locked: lockDown(pyodide, startupFetch) });
    return runRequest;
  });
booted.catch((error) => post({ type: "boot-error", error: String(error?.message ?? error) }));

Promise.all([booted, requested]).then(([runRequest, { id, exercise, source, cases }]) => {
  const started = now();
  try {
    for (const report of runRequest(JSON.stringify({ exercise, source, cases }))) post({ type: "report", id, report });
    post({ type: "done", id, ms: now() - started });
  } catch (error) {
    post({ type: "crashed", id, error: `${error?.name ?? "Error"}: ${String(error?.message ?? error).split("\n").slice(-2).join(" ").slice(0, 300)}` });
  }
}, () => {});
