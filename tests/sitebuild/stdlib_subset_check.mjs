// tests/sitebuild/test_stdlib_subset.py runs this under Node against a built site:
//
//   node stdlib_subset_check.mjs DIST
//
// The worker's Python with the standard library's subset alone mounted (as
// python-runtime.js mounts it), NumPy's subset and poolgrad unpacked, and its finder of
// modules outside the subsets (fetchWhenImported) reaching the site's files through a
// synchronous XMLHttpRequest stand-in that counts requests. Prints one line of JSON.

import { readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const dist = pathToFileURL(process.argv[2].replace(/\/?$/, "/"));
const info = JSON.parse(readFileSync(new URL("build-info.json", dist), "utf8"));
const runtime = await import(new URL("../../web/runtime/python-runtime.js", import.meta.url).href);
const restore = await import(new URL("../../web/runtime/snapshot.js", import.meta.url).href);
const indexURL = fileURLToPath(new URL(info.pyodide, dist));

const requests = [];
let offline = false;
globalThis.XMLHttpRequest = class {
  open(method, url) { this.url = url; }
  send() {
    requests.push(this.url.split("/").pop());
    if (offline) throw new Error("NetworkError: the network is off");
    this.status = 200;
    this.response = new Uint8Array(readFileSync(fileURLToPath(this.url))).buffer;
  }
};

const platform = restore.takeTheIOSPath();
const { loadPyodide } = await import(pathToFileURL(indexURL + "pyodide.mjs").href);
const pyodide = await loadPyodide({ indexURL, stdLibURL: fileURLToPath(new URL(info.stdlib_subset, dist)), stdout: () => {}, stderr: () => {} });
runtime.unpackWheel(pyodide, readFileSync(new URL(info.numpy_subset, dist)), "numpy-subset.zip");
pyodide.runPython("import numpy");
runtime.unpackWheel(pyodide, readFileSync(new URL(info.poolgrad_subset, dist)), "poolgrad-subset.zip");
pyodide.runPython(restore.AFTER_START);
const urls = { numpy: new URL(info.numpy_wheel, dist), stdlib: new URL(`${info.pyodide}python_stdlib.zip`, dist) };
runtime.fetchWhenImported(pyodide, urls, info);

const inSubset = pyodide.runPython(`
import json
from poolgrad.wire import run_trace
from poolgrad.exercise_check import case_inputs_json, run_check
from poolgrad.exercise_run import guard, run_request
trace = json.loads(run_trace(json.dumps({"x": [[1, 2], [3, 4]], "kernel_size": [2, 2], "stride": [1, 1], "padding": [1, 1], "mode": "max", "grad_output": 1})))
guard()
states = []
for source in ["from poolgrad.exercises import max_pool2d",
               "import numpy as np\\ndef max_pool2d(image, pool_size=2):\\n    return np.reshape(image, (7, 3, 5))"]:
    reports = list(run_request(json.dumps({"exercise": "forward", "source": source, "cases": case_inputs_json("forward")})))
    states.append(json.loads(run_check(json.dumps({"exercise": "forward", "reports": reports})))["state"])
[trace["trace"]["output"], states]
`).toJs();
const requestsInSubset = [...requests];

offline = true;
const offlineMessage = pyodide.runPython(`
try:
    import unittest
except ModuleNotFoundError as e:
    message = str(e)
message
`);
offline = false;
const outside = pyodide.runPython(`
import unittest, xml.dom.minidom
import numpy.fft
[xml.dom.minidom.parseString("<a>7</a>").documentElement.firstChild.data, list("\\u20ac".encode("cp1252")),
 numpy.fft.fft([1, 0, 0, 0]).real.tolist(), unittest.TestCase.__name__]
`).toJs();
platform.undo();
console.log(JSON.stringify({ inSubset, requestsInSubset, offlineMessage, outside, requests }));
