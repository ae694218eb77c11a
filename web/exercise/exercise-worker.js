// Module worker that runs the learner's exercise code, with its own Python: never the
// widget's worker (worker.js), so an endless loop here leaves the grids answering, and the
// page can terminate and replace this one (exercise.js). Started by the exercise panel
// when it is first used, with the site's root as its name, like worker.js.
//
// Python starts the way the widgets' worker starts it (python-runtime.js: the NumPy
// snapshot when the build made one, else a normal start with NumPy); poolgrad's wheel is
// unpacked into site-packages with zipfile (no micropip, so Python never reaches for
// fetch). Then,
// before any learner code runs, everything that reaches storage or the network is
// deleted from this worker's global scope and its prototypes (lockDown), so Python's `js`
// module cannot find it: a worker has no DOM, and the page's localStorage does not exist
// here. The page accepts only well-formed answers to the run it asked for.
//
// Protocol: the page posts {id, exercise, source}; this worker posts {type: "ready",
// locked: [names still present, normally none]}, {type: "boot-error", error} and
// {type: "result", id, answer} (poolgrad.exercise_check's JSON) or {type: "result", id,
// failure} when the checker itself broke. It sends no start-up progress: the panel shows
// one "Starting Python" line until the first answer.

import { startPythonWith } from "../runtime/python-runtime.js";

// Kept before lockDown removes postMessage: learner code cannot post to the page at all.
const post = self.postMessage.bind(self);

// Everything in a dedicated worker's scope that reaches storage, the network or another
// context. Interfaces are deleted with their instances' getters, so no path leads back.
const LOCKED_GLOBALS = [
  "fetch", "XMLHttpRequest", "WebSocket", "WebSocketStream", "WebTransport", "EventSource",
  "BroadcastChannel", "importScripts", "Worker", "SharedWorker", "postMessage",
  "indexedDB", "IDBFactory", "caches", "CacheStorage", "Cache", "cookieStore", "CookieStore",
  "StorageManager", "FileSystemHandle", "FileSystemDirectoryHandle", "FileSystemFileHandle",
  "FileSystemSyncAccessHandle", "webkitRequestFileSystem", "webkitRequestFileSystemSync",
  "webkitResolveLocalFileSystemURL", "webkitResolveLocalFileSystemSyncURL", "ServiceWorkerRegistration",
];
const LOCKED_NAVIGATOR = ["storage", "storageBuckets", "locks", "serviceWorker", "usb", "serial", "hid", "bluetooth"];

// Deletes `name` from `object` and every prototype above it (up to Object.prototype).
function deleteAlongChain(object, name) {
  for (let level = object; level && level !== Object.prototype; level = Object.getPrototypeOf(level)) {
    if (Object.prototype.hasOwnProperty.call(level, name)) delete level[name];
  }
}

// Python may already hold some of them: Pyodide's own pyodide.http keeps `fetch` as
// _jsfetch (and XMLHttpRequest) from its import. Every reference to a locked object in a
// module's namespace, or in any dict or list, is dropped; anything else that still holds
// one is reported.
const FORGET = `
def _forget(locked):
    import gc, sys
    from pyodide.ffi import JsProxy
    locked = list(locked)
    def is_locked(value):
        return isinstance(value, JsProxy) and any(value == item for item in locked)
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if isinstance(namespace, dict):
            for name in [name for name, value in namespace.items() if is_locked(value)]:
                del namespace[name]
    held = []
    for holder in gc.get_objects():
        if isinstance(holder, dict):
            for key in [key for key, value in holder.items() if is_locked(value)]:
                del holder[key]
        elif isinstance(holder, list):
            holder[:] = [value for value in holder if not is_locked(value)]
        elif any(is_locked(value) for value in gc.get_referents(holder)):
            held.append(type(holder).__name__)
    return held
`;

// Returns what is still reachable afterwards (nothing, in the browsers tested).
function lockDown(pyodide, alsoLocked) {
  const objects = [
    ...alsoLocked,
    ...LOCKED_GLOBALS.map((name) => self[name]),
    ...LOCKED_NAVIGATOR.map((name) => self.navigator[name]),
  ].filter((value) => value !== null && (typeof value === "object" || typeof value === "function"));
  pyodide.runPython(FORGET);
  const forget = pyodide.globals.get("_forget");
  const held = forget(objects).toJs();
  forget.destroy();
  pyodide.runPython("del _forget");
  for (const name of LOCKED_NAVIGATOR) deleteAlongChain(self.navigator, name);
  for (const name of LOCKED_GLOBALS) deleteAlongChain(self, name);
  return [
    ...LOCKED_GLOBALS.filter((name) => name in self),
    ...LOCKED_NAVIGATOR.filter((name) => name in self.navigator).map((name) => `navigator.${name}`),
    ...held.map((type) => `a Python ${type} holding one`),
  ];
}

// Unpacks poolgrad's wheel (a zip) into site-packages and loads the checker; the expected
// answers are computed on import, before any learner code runs.
const INSTALL = `
import importlib, sys, zipfile
with zipfile.ZipFile("/tmp/poolgrad.whl") as wheel:
    wheel.extractall(next(path for path in sys.path if path.endswith("site-packages")))
importlib.invalidate_caches()
from poolgrad.exercise_check import run_check
`;

// Python starts as the widgets' does (python-runtime.js); the checker is then installed
// from poolgrad's wheel, and the worker locked down before any learner code runs.
async function boot() {
  // The runtime wraps fetch while Python starts (so that each file downloads once), and
  // Python may keep the wrapper (pyodide.http's _jsfetch): it is locked away too.
  let startupFetch = null;
  const { pyodide, runCheck } = await startPythonWith(self.name, () => {}, async (pyodide, wheelURL) => {
    startupFetch = self.fetch;
    const response = await fetch(wheelURL);
    if (!response.ok) throw new Error(`${new URL(wheelURL).pathname} answered HTTP ${response.status}`);
    pyodide.FS.writeFile("/tmp/poolgrad.whl", new Uint8Array(await response.arrayBuffer()));
    pyodide.runPython(INSTALL);
    return { pyodide, runCheck: pyodide.globals.get("run_check") };
  });
  // After the start: it restores the fetch that the runtime wrapped while it started.
  return { runCheck, locked: lockDown(pyodide, [startupFetch]) };
}

const booted = boot().then(({ runCheck, locked }) => {
  post({ type: "ready", locked });
  return runCheck;
});
booted.catch((error) => post({ type: "boot-error", error: String(error?.message ?? error) }));

self.addEventListener("message", async (event) => {
  const { id, exercise, source } = event.data ?? {};
  const runCheck = await booted;
  const started = performance.now();
  try {
    const answer = runCheck(JSON.stringify({ exercise, source }));
    post({ type: "result", id, answer, ms: performance.now() - started });
  } catch (error) {
    post({ type: "result", id, failure: String(error?.message ?? error).split("\n").slice(-2).join(" ").slice(0, 300) });
  }
});
