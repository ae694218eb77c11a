// Module worker that runs poolgrad under Pyodide, off the page's main thread.
// Every path is resolved against this script's URL, so the site works under any
// sub-path; build-info.json (written by build.py) names the Pyodide folder and the wheel.

const STEPS = 4;

// Python's side of the protocol: JSON in, JSON out. Non-finite inputs arrive as the
// strings "NaN" / "Infinity" / "-Infinity" because JSON cannot carry them as numbers.
// grad_output "ones" asks for an all-ones upstream gradient of the output's shape, which
// only Python knows; trace() returns the gradient fields only when given a gradient.
const PYTHON_GLUE = `
import json
import poolgrad

def _decode(value):
    if isinstance(value, list):
        return [_decode(item) for item in value]
    if isinstance(value, str):
        return float(value)
    return value

def _unit_gradient(request):
    """All ones, sized like the output: the widget's default upstream gradient."""
    sides = (len(request["x"]), len(request["x"][0]))
    try:
        rows, cols = (
            poolgrad.output_size(side, request["kernel_size"][axis], request["stride"][axis],
                                 request["padding"][axis], request["dilation"][axis], request["ceil_mode"])
            for axis, side in enumerate(sides)
        )
    except (ValueError, TypeError):
        return None  # trace() itself then explains what is wrong
    return [[1] * cols for _ in range(rows)] if rows > 0 and cols > 0 else None

def run_trace(request_json):
    request = json.loads(request_json)
    for key in ("x", "grad_output"):
        if isinstance(request.get(key), list):
            request[key] = _decode(request[key])
    if request.get("grad_output") == "ones":
        request["grad_output"] = _unit_gradient(request)
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
  grad_output: "ones",
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
  // poolgrad's wheel downloads while the runtime boots. The no-op catch keeps an early
  // network failure from being reported as unhandled; awaiting the promise still throws.
  const wheelURL = new URL(info.poolgrad_wheel, siteRoot);
  const wheelResponse = fetch(wheelURL);
  wheelResponse.catch(() => {});

  progress(2, "Starting Python and loading NumPy");
  const { loadPyodide } = await import(new URL("pyodide.mjs", indexURL).href);
  const pyodide = await loadPyodide({ indexURL, packages: info.packages ?? ["numpy"] });

  progress(3, "Installing poolgrad");
  const wheel = await wheelResponse;
  if (!wheel.ok) throw new Error(`${info.poolgrad_wheel} answered HTTP ${wheel.status}`);
  // The wheel is pure Python and NumPy, its one dependency, is loaded: unpacking it into
  // site-packages is the whole install. Going through micropip did the same but cost
  // 0.6-0.8 s more on a 2-core machine, mostly importing micropip and packaging.
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  pyodide.unpackArchive(await wheel.arrayBuffer(), "wheel", { extractDir: sitePackages });

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
