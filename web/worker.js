// Module worker that runs poolgrad under Pyodide, off the page's main thread.
// Every path is resolved against this script's URL, so the site works under any
// sub-path; build-info.json (written by build.py) names the Pyodide folder and the wheel.

const STEPS = 4;

// Python's side of the protocol: JSON in, JSON out. Non-finite inputs arrive as the
// strings "NaN" / "Infinity" / "-Infinity" because JSON cannot carry them as numbers.
// grad_output 1 is the default all-ones upstream gradient (trace() broadcasts a number to
// the output's shape, which only Python knows); the gradient fields need a gradient.
const PYTHON_GLUE = `
import json
import poolgrad

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

async function boot() {
  const siteRoot = new URL("./", self.location.href);
  progress(1, "Reading the build description");
  const infoResponse = await fetch(new URL("build-info.json", siteRoot));
  if (!infoResponse.ok) throw new Error(`build-info.json answered HTTP ${infoResponse.status}; serve the built dist/ folder`);
  const info = await infoResponse.json();
  const indexURL = new URL(info.pyodide, siteRoot).href;

  progress(2, "Starting Python and loading NumPy");
  const { loadPyodide } = await import(new URL("pyodide.mjs", indexURL).href);
  const pyodide = await loadPyodide({ indexURL, packages: info.packages });

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
  () => postMessage({ type: "ready" }),
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
