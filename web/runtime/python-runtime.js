// Python under Pyodide, started once per worker: the code that web/worker.js (a dedicated
// worker, one per page) and web/shared-worker.js (one for every widget of the site in this
// browser) share. bootPython(siteRoot, progress) starts it and resolves with run(request);
// trace-service.js queues the widgets' requests in front of it. Every path is resolved against the
// site's root (the worker's name, set by the page), so the site works under any sub-path;
// build-info.json (written by build.py) names the Pyodide folder, the wheel and (when the
// build could make them) Python's start-up snapshots, restored by snapshot.js.

import {
  AFTER_START, SNAPSHOT_MAGIC, compileLibraries, readNumpySnapshot, restoreNumpySnapshot, takeTheIOSPath,
} from "./snapshot.js";

const STEPS = 5;

// Python's side of the protocol lives in the package (poolgrad.wire.run_trace: JSON in,
// JSON out, every user error a clear message); snapshot.js's AFTER_START reseeds random.
const PYTHON_GLUE = `
from poolgrad.wire import run_trace
`;

// Warm every path a real request takes (validation, forward, the default gradient, backward).
const WARM_UP_REQUEST = {
  x: [[1, 2], [3, 4]],
  kernel_size: [2, 2],
  stride: [1, 1],
  padding: [1, 1],
  dilation: [1, 1],
  ceil_mode: false,
  count_include_pad: true,
  mode: "max",
  grad_output: 1,
};

// Where boot progress goes (bootPython's `report`): {type: "progress", step, steps, message}.
let report = () => {};

function progress(step, message) {
  report({ type: "progress", step, steps: STEPS, message });
}

// Starting Python sends no news of its own (the runtime compiles, CPython and NumPy
// initialise), and an old or loaded engine can take over a minute there with two widgets on
// the page. While that step runs, the worker says every 10 s that it still does, whenever it
// is free to (its own busy stretches stay silent), so the page's stall timeout (bridge.js)
// fails only a start that stopped; after 4 minutes it stops saying so, and a start that
// still has not finished counts as stalled.
const STARTING_BEAT_MS = 10000;
const STARTING_BEATS = 24;

async function whileStarting(message, start) {
  progress(3, message);
  const began = performance.now();
  let beats = 0;
  const timer = setInterval(() => {
    beats += 1;
    if (beats > STARTING_BEATS) clearInterval(timer);
    else progress(3, `${message} (${Math.round((performance.now() - began) / 1000)} s so far)`);
  }, STARTING_BEAT_MS);
  try {
    return await start();
  } finally {
    clearInterval(timer);
  }
}

// How Python started, sent with "ready" (the browser tests read it). snapshot: "numpy"
// (NumPy and micropip already imported), "plain" (CPython started) or "none" (a normal
// start); rejected: each snapshot tried and not used, with the reason; platform: what
// Pyodide's iOS check saw (snapshot.js) and what the engine says; trampolines: "js" when
// Pyodide took its iOS path.
const startup = { snapshot: "none", rejected: [], platform: null, enginePlatform: null, trampolines: null };

// loadPyodide sizes the runtime's memory from the file before it checks anything, and a
// runtime whose memory is too small never starts (the wasm error is only logged), so a
// wrong file would hang: check it first.
function checkPlainSnapshot(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 64 || view.getUint32(0, true) !== SNAPSHOT_MAGIC) throw new Error("not a Pyodide memory snapshot");
  const heap = bytes.byteLength - view.getUint32(4, true);
  if (heap <= 0 || heap % 65536 !== 0) throw new Error("the snapshot's heap is not whole wasm pages");
}

const MB = (bytes) => (bytes / 1e6).toFixed(1);

// Downloads a gzipped snapshot and unpacks it while it arrives, into a buffer of the size
// build-info.json gives, reporting progress (the page's boot timeout waits for a stalled
// step, not for a slow one). A server that sent it with Content-Encoding: gzip has already
// unpacked it: then the gzip magic number is gone.
async function downloadSnapshot(url, unpackedBytes, step, what) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname} answered HTTP ${response.status}`);
  const packedBytes = Number(response.headers.get("content-length")) || 0;
  const reader = response.body.getReader();
  let received = 0;
  let reported = 0;
  const count = (chunk) => {
    received += chunk.byteLength;
    if (performance.now() - reported > 250) {
      reported = performance.now();
      progress(step, `Downloading ${what} (${MB(received)}${packedBytes ? ` of ${MB(packedBytes)}` : ""} MB)`);
    }
  };
  const first = await reader.read();
  if (first.done) throw new Error(`${url.pathname} is empty`);
  count(first.value);
  const packed = new ReadableStream({
    start(controller) { controller.enqueue(first.value); },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else {
        count(value);
        controller.enqueue(value);
      }
    },
  });
  const gzipped = first.value[0] === 0x1f && first.value[1] === 0x8b;
  const unpacked = (gzipped ? packed.pipeThrough(new DecompressionStream("gzip")) : packed).getReader();
  const bytes = new Uint8Array(unpackedBytes);
  let filled = 0;
  for (;;) {
    const { done, value } = await unpacked.read();
    if (done) break;
    if (filled + value.byteLength > bytes.byteLength) throw new Error(`${url.pathname} is larger than build-info.json says`);
    bytes.set(value, filled);
    filled += value.byteLength;
  }
  if (filled !== bytes.byteLength) throw new Error(`${url.pathname} has ${filled} bytes, build-info.json says ${unpackedBytes}`);
  return bytes;
}

// Each runtime file is fetched once, however many starts it takes: a start that fails
// after loadPyodide fetched them hands the next one copies; and a file fetched ahead of
// time is handed to whoever asks for it later. Returns the undo.
function fetchEachFileOnce(prefixes) {
  const nativeFetch = self.fetch;
  const responses = new Map();
  self.fetch = function (resource, init) {
    const url = new URL(resource instanceof Request ? resource.url : String(resource), self.location.href).href;
    if (!prefixes.some((prefix) => url.startsWith(prefix))) return nativeFetch.call(this, resource, init);
    if (!responses.has(url)) responses.set(url, nativeFetch.call(this, resource, init));
    return responses.get(url).then((response) => response.clone());
  };
  return () => {
    self.fetch = nativeFetch;
    responses.clear();
  };
}

function noteRejected(snapshot, error) {
  const reason = String(error?.message ?? error).split("\n")[0];
  startup.rejected.push({ snapshot, reason });
  console.warn(`poolgrad: Python's ${snapshot} start-up snapshot was not used (${reason})`);
}

// NumPy snapshot -> plain snapshot -> a normal start, each in this same worker.
async function startInterpreter(info, siteRoot, indexURL) {
  const unpack = typeof DecompressionStream === "function";
  const wanted = (name) => {
    if (!info[name]) return null;
    // Safari before 16.4: a snapshot it cannot unpack is not downloaded at all.
    if (!unpack) {
      noteRejected(name === "numpy_snapshot" ? "numpy" : "plain", "this browser cannot unpack gzip (no DecompressionStream)");
      return null;
    }
    return new URL(info[name], siteRoot);
  };
  const numpyURL = wanted("numpy_snapshot");
  const plainURL = wanted("snapshot");
  // The snapshot downloads, unpacks and its libraries compile while the runtime's
  // scripts load and run.
  const numpySnapshot = numpyURL && downloadSnapshot(numpyURL, info.numpy_snapshot_bytes, 2, "Python with NumPy")
    .then(async (raw) => {
      const snapshot = readNumpySnapshot(raw);
      return { snapshot, modules: await compileLibraries(snapshot) };
    });
  numpySnapshot?.catch(() => {}); // a failure is handled where it is awaited
  const [{ loadPyodide }] = await Promise.all([
    import(new URL("pyodide.mjs", indexURL).href),
    import(new URL("pyodide.asm.js", indexURL).href), // defines _createPyodideModule, which snapshot.js wraps
  ]);

  if (numpySnapshot) {
    try {
      const { snapshot, modules } = await numpySnapshot;
      const pyodide = await whileStarting("Starting Python with NumPy from its snapshot",
        () => restoreNumpySnapshot(loadPyodide, { indexURL }, snapshot, modules));
      startup.snapshot = "numpy";
      return pyodide;
    } catch (error) {
      noteRejected("numpy", error);
    }
  }
  if (plainURL) {
    try {
      progress(2, "Downloading Python");
      const bytes = await downloadSnapshot(plainURL, info.snapshot_bytes, 2, "Python");
      checkPlainSnapshot(bytes);
      const pyodide = await whileStarting("Starting Python from its snapshot and loading NumPy",
        () => loadPyodide({ indexURL, packages: info.packages, _loadSnapshot: bytes }));
      startup.snapshot = "plain";
      return pyodide;
    } catch (error) {
      noteRejected("plain", error);
    }
  }
  return whileStarting(`Starting Python${startup.rejected.length ? " (without a start-up snapshot)" : ""} and loading NumPy`,
    () => loadPyodide({ indexURL, packages: info.packages }));
}

async function boot(siteRoot, install) {
  progress(1, "Reading the build description");
  const infoResponse = await fetch(new URL("build-info.json", siteRoot));
  if (!infoResponse.ok) throw new Error(`build-info.json answered HTTP ${infoResponse.status}; serve the built dist/ folder`);
  const info = await infoResponse.json();
  const indexURL = new URL(info.pyodide, siteRoot).href;
  const wheelURL = new URL(info.poolgrad_wheel, siteRoot).href;

  progress(2, "Downloading Python");
  const fetchedOnce = fetchEachFileOnce([indexURL, wheelURL]);
  try {
    // The runtime's files and poolgrad's wheel download alongside the snapshot instead of
    // after it; a failure surfaces where loadPyodide or the install fetches the file.
    for (const url of ["pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"].map((name) => new URL(name, indexURL))) {
      fetch(url).catch(() => {});
    }
    fetch(wheelURL).catch(() => {});
    const platform = takeTheIOSPath();
    let pyodide;
    try {
      pyodide = await startInterpreter(info, siteRoot, indexURL);
    } finally {
      platform.undo();
    }
    pyodide.runPython(AFTER_START);
    Object.assign(startup, {
      platform: platform.pyodideSees,
      enginePlatform: platform.enginePlatform,
      trampolines: pyodide._module._PyEM_CountArgsPtr === 0 ? "js" : "wasm-gc",
    });
    return await install(pyodide, wheelURL);
  } finally {
    fetchedOnce();
  }
}

// The widgets' Python: poolgrad installed from its wheel by micropip, and warmed up.
async function installTraceService(pyodide, wheelURL) {
  progress(4, "Installing poolgrad");
  const micropip = pyodide.pyimport("micropip");
  // An absolute URL (micropip resolves relative ones against an index, not this site) and
  // deps=False (NumPy, the one dependency, is loaded; resolving would ask an index, which
  // fails offline).
  await micropip.install.callKwargs(wheelURL, { deps: false });

  progress(5, "Warming up");
  pyodide.runPython(PYTHON_GLUE);
  const runTrace = pyodide.globals.get("run_trace");
  runTrace(JSON.stringify(WARM_UP_REQUEST));
  return runTrace;
}

// Starts Python with NumPy the way every worker of the site does (the NumPy snapshot, else
// the plain one, else a normal start) and hands it to `install(pyodide, wheelURL)`, whose
// result it resolves with; `reportProgress` gets each {type: "progress"} message. The
// exercise worker (exercise-worker.js) starts its Python this way.
export function startPythonWith(siteRoot, reportProgress, install) {
  report = reportProgress;
  return boot(new URL(siteRoot || "./", self.location.href), install);
}

// Starts Python; `reportProgress` gets each {type: "progress"} message. Resolves with
// run(request) -> the answer message's fields ({trace, ms} or {error}), and `startup`.
// `siteRoot` is the site's root URL (the page names it: early.js passes it as the worker's
// name); build-info.json gives every path below it.
export async function bootPython(siteRoot, reportProgress) {
  const runTrace = await startPythonWith(siteRoot, reportProgress, installTraceService);
  const run = (request) => {
    const started = performance.now();
    try {
      const answer = JSON.parse(runTrace(JSON.stringify(request)));
      return { ...answer, ms: performance.now() - started };
    } catch (error) {
      return { error: `Python failed: ${error.message ?? error}` };
    }
  };
  return { run, startup };
}

// A policy that forbids WebAssembly makes Pyodide's boot hang rather than fail, so say so
// at once (`fail` gets the message) instead of waiting for the page's boot timeout.
export function reportPolicyViolations(fail) {
  self.addEventListener("securitypolicyviolation", (event) => {
    fail(`the Content-Security-Policy blocked ${event.violatedDirective} in the Python worker; it needs script-src 'self' 'wasm-unsafe-eval'`);
  });
}
