// Module worker that runs poolgrad under Pyodide, off the page's main thread.
// Every path is resolved against the site's root (the worker's name, set by the page), so
// the site works under any sub-path; build-info.json (written by build.py) names the
// Pyodide folder, the wheel and (when the build could make one) Python's start-up snapshot.

const STEPS = 4;

// Python's side of the protocol: JSON in, JSON out. Non-finite inputs arrive as the
// strings "NaN" / "Infinity" / "-Infinity" because JSON cannot carry them as numbers.
// grad_output 1 is the default all-ones upstream gradient (trace() broadcasts a number to
// the output's shape, which only Python knows); the gradient fields need a gradient.
// random.seed(): a memory snapshot (below) freezes the random module's state, which would
// otherwise repeat in every session.
const PYTHON_GLUE = `
import json
import random
import poolgrad

random.seed()

def _decode(rows):
    # One flat pass over the page's 2D grid: a recursive walk costs more than the trace.
    return [[float(v) if type(v) is str else v for v in row] if type(row) is list else row
            for row in rows]

def run_trace(request_json):
    request = json.loads(request_json)
    for key in ("x", "grad_output"):
        if isinstance(request.get(key), list):
            request[key] = _decode(request[key])
    try:
        result = poolgrad.trace(**request)
    except (ValueError, TypeError) as refused:
        return json.dumps({"error": str(refused)})
    return json.dumps({"trace": result}, allow_nan=False)
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

function progress(step, message) {
  postMessage({ type: "progress", step, steps: STEPS, message });
}

// How Python started, sent with "ready" (the browser tests read it): snapshot is
// "used", "none" (build-info names none) or "rejected" (with the reason, then a normal start).
const startup = { snapshot: "none", reason: null };

// Python's start-up state, saved at build time (build.py runs scripts/pyodide_snapshot.mjs
// under Node): restoring it skips CPython's initialisation, about 2 s of a cold boot.
// Resolves to the raw snapshot bytes, checked first: loadPyodide sizes the runtime's
// memory from the file before it checks anything, and a runtime whose memory is too small
// never starts (the wasm instantiation error is only logged), so a wrong file would hang.
const SNAPSHOT_MAGIC = 1886286592; // Pyodide 0.27's header: magic, offset of the wasm heap

function checkSnapshot(bytes, expectedBytes) {
  if (bytes.byteLength !== expectedBytes) {
    throw new Error(`the snapshot has ${bytes.byteLength} bytes, build-info.json says ${expectedBytes}`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 64 || view.getUint32(0, true) !== SNAPSHOT_MAGIC) throw new Error("not a Pyodide memory snapshot");
  const heap = bytes.byteLength - view.getUint32(4, true);
  if (heap <= 0 || heap % 65536 !== 0) throw new Error("the snapshot's heap is not whole wasm pages");
}

async function fetchSnapshot(url, expectedBytes) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname} answered HTTP ${response.status}`);
  let bytes = new Uint8Array(await response.arrayBuffer());
  // Gunzip here, unless the server sent the file with Content-Encoding: gzip and the
  // browser has already done it (then the gzip magic number is gone).
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    const unzipped = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    bytes = new Uint8Array(await new Response(unzipped).arrayBuffer());
  }
  checkSnapshot(bytes, expectedBytes);
  return bytes;
}

async function startPython(loadPyodide, indexURL, packages, snapshot) {
  if (snapshot) {
    try {
      const pyodide = await loadPyodide({ indexURL, packages, _loadSnapshot: snapshot });
      startup.snapshot = "used";
      return pyodide;
    } catch (error) {
      // A failed download, a damaged file, or a snapshot of another Pyodide build (its
      // BUILD_ID is checked): start the normal way, in this same worker.
      startup.snapshot = "rejected";
      startup.reason = String(error?.message ?? error).split("\n")[0];
      console.warn(`poolgrad: Python's start-up snapshot was not used (${startup.reason}); starting without it`);
      progress(2, "Starting Python (without its start-up snapshot) and loading NumPy");
    }
  }
  return loadPyodide({ indexURL, packages });
}

async function boot() {
  // The page names the site's root (early.js); build-info.json gives every path below it.
  const siteRoot = new URL(self.name || "./", self.location.href);
  progress(1, "Reading the build description");
  const infoResponse = await fetch(new URL("build-info.json", siteRoot));
  if (!infoResponse.ok) throw new Error(`build-info.json answered HTTP ${infoResponse.status}; serve the built dist/ folder`);
  const info = await infoResponse.json();
  const indexURL = new URL(info.pyodide, siteRoot).href;
  // The snapshot downloads while pyodide.mjs and the runtime load; loadPyodide awaits it.
  const snapshot = info.snapshot ? fetchSnapshot(new URL(info.snapshot, siteRoot), info.snapshot_bytes) : null;
  snapshot?.catch(() => {}); // a failure is handled where loadPyodide awaits it

  progress(2, "Starting Python and loading NumPy");
  const { loadPyodide } = await import(new URL("pyodide.mjs", indexURL).href);
  const pyodide = await startPython(loadPyodide, indexURL, info.packages, snapshot);

  progress(3, "Installing poolgrad");
  const micropip = pyodide.pyimport("micropip");
  // An absolute URL (micropip resolves relative ones against an index, not this site) and
  // deps=False (NumPy, the one dependency, is loaded; resolving would ask an index, which
  // fails offline).
  await micropip.install.callKwargs(new URL(info.poolgrad_wheel, siteRoot).href, { deps: false });

  progress(4, "Warming up");
  pyodide.runPython(PYTHON_GLUE);
  const runTrace = pyodide.globals.get("run_trace");
  runTrace(JSON.stringify(WARM_UP_REQUEST));
  return runTrace;
}

// A policy that forbids WebAssembly makes Pyodide's boot hang rather than fail, so say so
// at once instead of waiting for the page's boot timeout.
self.addEventListener("securitypolicyviolation", (event) => {
  postMessage({ type: "boot-error", error: `the Content-Security-Policy blocked ${event.violatedDirective} in the Python worker; it needs script-src 'self' 'wasm-unsafe-eval'` });
});

const booted = boot();
booted.then(
  () => postMessage({ type: "ready", startup }),
  (error) => postMessage({ type: "boot-error", error: `Python could not start: ${error.message ?? error}` }),
);

self.addEventListener("message", async (event) => {
  const { id, request } = event.data;
  const runTrace = await booted;
  const started = performance.now();
  try {
    const answer = JSON.parse(runTrace(JSON.stringify(request)));
    postMessage({ type: "result", id, ...answer, ms: performance.now() - started });
  } catch (error) {
    postMessage({ type: "result", id, error: `Python failed: ${error.message ?? error}` });
  }
});
