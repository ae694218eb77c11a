// The exercise panel's two Pythons start the same way: as the widgets' worker starts its
// own (python-runtime.js: the NumPy snapshot when the build made one, else a normal start
// with NumPy), then poolgrad's wheel is unpacked into site-packages with zipfile (no
// micropip, so Python never reaches for fetch) and `entry` (Python source) imports what the
// worker serves. Used by exercise-judge.js (the judge) and exercise-worker.js (the learner's
// code, one worker per Run).

import { startPythonWith } from "../runtime/python-runtime.js";

const INSTALL = `
import importlib, sys, zipfile
with zipfile.ZipFile("/tmp/poolgrad.whl") as wheel:
    wheel.extractall(next(path for path in sys.path if path.endswith("site-packages")))
importlib.invalidate_caches()
`;

// Resolves with {pyodide, startupFetch}: the runtime wraps fetch while Python starts (so
// that each file downloads once), and Python may keep the wrapper (pyodide.http's
// _jsfetch), so the learner's worker locks it away too.
export async function startExercisePython(siteRoot, entry) {
  let startupFetch = null;
  const pyodide = await startPythonWith(siteRoot, () => {}, async (started, wheelURL) => {
    startupFetch = self.fetch;
    const response = await fetch(wheelURL);
    if (!response.ok) throw new Error(`${new URL(wheelURL).pathname} answered HTTP ${response.status}`);
    started.FS.writeFile("/tmp/poolgrad.whl", new Uint8Array(await response.arrayBuffer()));
    started.runPython(INSTALL + entry);
    return started;
  });
  return { pyodide, startupFetch };
}
