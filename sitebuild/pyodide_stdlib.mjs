// Build-time helper for build.py (sitebuild/stdlib.py): which files of the standard
// library's zip the site's Python reads, found by running it, not guessed:
//
//   node sitebuild/pyodide_stdlib.mjs PYODIDE_DIR OUT_JSON NUMPY_ZIP POOLGRAD_WHEEL
//
// Boots the vendored Pyodide under Node with the official python_stdlib.zip, records every
// read of that zip from Python's very start (the file system's reads: a zip entry is read
// when a read starts at its local header), and does what the site's Pythons do: the
// worker's boot (NumPy and poolgrad unpacked with zipfile, AFTER_START, the finder of
// modules outside the subsets), every module of poolgrad, traces (valid and refused), the
// exercise judge and a learner's Run (right, wrong, raising inside NumPy, warning, printing,
// a syntax error, sys.exit, an endless recursion), and the exercise worker's lock-down's
// Python. Writes {"files": [entry names read]} to OUT_JSON and prints one line of JSON.

import { readFileSync, writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, outJson, numpyZip, poolgradWheel] = process.argv.slice(2);
if (!dir || !outJson || !numpyZip || !poolgradWheel) {
  console.error("usage: node pyodide_stdlib.mjs PYODIDE_DIR OUT_JSON NUMPY_ZIP POOLGRAD_WHEEL");
  process.exit(2);
}

const here = new URL(".", import.meta.url);
const restore = await import(new URL("../web/runtime/snapshot.js", here).href);
const runtime = await import(new URL("../web/runtime/python-runtime.js", here).href);
const indexURL = resolve(dir) + "/";
const platform = restore.takeTheIOSPath();
await import(pathToFileURL(indexURL + "pyodide.asm.js").href);
const { loadPyodide } = await import(pathToFileURL(indexURL + "pyodide.mjs").href);

// Reads of the standard library's zip: the position each one starts at.
const starts = new Set();
let recording = true;
let archive = null;
const create = globalThis._createPyodideModule;
globalThis._createPyodideModule = (settings) => create({
  ...settings,
  preRun: [(module) => {
    const read = module.FS.read;
    module.FS.read = function (stream, buffer, offset, length, position) {
      if (recording && archive !== null && stream.path === archive) starts.add(position ?? stream.position);
      return read.call(this, stream, buffer, offset, length, position);
    };
  }, ...settings.preRun],
});
const version = JSON.parse(readFileSync(indexURL + "pyodide-lock.json", "utf8")).info.python.split(".");
archive = `/lib/python${version[0]}${version[1]}.zip`;

const pyodide = await loadPyodide({ indexURL, stdout: () => {}, stderr: () => {} });
globalThis._createPyodideModule = create;

// The worker's boot, as python-runtime.js does it (the wheels' path; the snapshot's
// starts from an image of the same steps).
runtime.unpackWheel(pyodide, readFileSync(numpyZip), basename(numpyZip));
pyodide.runPython("import numpy");
runtime.unpackWheel(pyodide, readFileSync(poolgradWheel), "poolgrad.whl");
pyodide.runPython(restore.AFTER_START);
runtime.fetchWhenImported(pyodide, {}, { numpy_subset: true, stdlib_subset: true, stdlib_left_out: [] });
pyodide.runPython(runtime.PYTHON_GLUE);
const runTrace = pyodide.globals.get("run_trace");
runTrace(JSON.stringify(runtime.WARM_UP_REQUEST));

const checked = pyodide.runPython(`
import gc, importlib, json, sys
import numpy
# The snapshot's steps after the imports; the exercise worker's lock-down uses these.
gc.collect()
from pyodide.ffi import JsProxy
# Every module of poolgrad (poolgrad.widget is Jupyter's, never loaded in a browser).
import poolgrad
site_packages = next(p for p in sys.path if p.endswith("site-packages"))
import os
for name in sorted(os.listdir(os.path.join(site_packages, "poolgrad"))):
    if name.endswith(".py") and name not in ("__init__.py", "widget.py"):
        importlib.import_module("poolgrad." + name[:-3])
from poolgrad.wire import run_trace
requests = [
    {"x": [[1, 2, 3], [4, 5, 6], [7, 8, 9]], "kernel_size": [2, 2], "stride": [1, 1], "padding": [1, 1],
     "dilation": [2, 2], "ceil_mode": True, "mode": "max", "grad_output": 1},
    {"x": [[1.5, -2], [3, 4e300]], "kernel_size": [2, 2], "stride": [2, 2], "mode": "avg",
     "count_include_pad": False, "grad_output": [[1]]},
    {"x": [[1, 2], [3, 4]], "kernel_size": [5, 5], "stride": [1, 1], "mode": "max"},
    {"x": "not a grid"},
    "{not json",
]
answers = [json.loads(run_trace(r if isinstance(r, str) else json.dumps(r))) for r in requests]
assert "error" not in answers[0] and "error" in answers[3], answers

# The exercise judge and a learner's Run (exercise-judge.js, exercise-worker.js).
from poolgrad.exercise_check import case_inputs_json, run_check
from poolgrad.exercise_run import guard, run_request
guard()
sources = {
    "forward": [
        "import numpy as np\\n"
        "def max_pool2d(image, pool_size=2):\\n"
        "    image = np.asarray(image)\\n"
        "    h, w = image.shape[0] // pool_size, image.shape[1] // pool_size\\n"
        "    out = np.empty((h, w), dtype=image.dtype)\\n"
        "    for i in range(h):\\n"
        "        for j in range(w):\\n"
        "            out[i, j] = image[i*pool_size:(i+1)*pool_size, j*pool_size:(j+1)*pool_size].max()\\n"
        "    return out\\n",
        "def max_pool2d(image, pool_size=2):\\n    raise NotImplementedError\\n",
        "import numpy as np\\ndef max_pool2d(image, pool_size=2):\\n    return np.reshape(image, (7, 3, 5))\\n",
        "import numpy as np\\ndef max_pool2d(image, pool_size=2):\\n    print('hello', image)\\n"
        "    return np.asarray(image, dtype=float) / 0\\n",
        "def max_pool2d(image, pool_size=2):\\n    return max_pool2d(image, pool_size)\\n",
        "def max_pool2d(image pool_size=2):\\n    return image\\n",
        "import sys\\nsys.exit(3)\\n",
        "x = 1\\n",
    ],
    "backward": [
        "from poolgrad.exercises import max_pool2d_backward\\n",
        "def max_pool2d_backward(input_map, grad_output, pool_size=2, stride=2):\\n    return [[1, 2], [3]]\\n",
        "def max_pool2d_backward(input_map, grad_output, pool_size=2, stride=2):\\n    return {'a': 1}\\n",
    ],
}
states = []
for exercise, texts in sources.items():
    cases = case_inputs_json(exercise)
    for source in texts:
        reports = list(run_request(json.dumps({"exercise": exercise, "source": source, "cases": cases})))
        answer = json.loads(run_check(json.dumps({"exercise": exercise, "reports": reports})))
        states.append(answer["state"])
run_check("{not json")
states
`).toJs();
recording = false;

pyodide.globals.set("_starts", pyodide.toPy([...starts]));
const files = pyodide.runPython(`
import zipfile
with zipfile.ZipFile(${JSON.stringify(archive)}) as stdlib:
    read = [entry.filename for entry in stdlib.infolist() if entry.header_offset in set(_starts)]
read
`).toJs();
platform.undo();
if (files.length === 0) {
  console.error("no read of the standard library's zip was seen");
  process.exit(1);
}
writeFileSync(outJson, JSON.stringify({ files }, null, 1) + "\n");
console.log(JSON.stringify({ files: files.length, exercise_states: checked }));
