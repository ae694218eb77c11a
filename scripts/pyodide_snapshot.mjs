// Build-time helper for build.py: boots the vendored Pyodide core under Node and writes a
// memory snapshot of the freshly initialised interpreter (CPython started, stdlib mounted,
// nothing imported by us). The web worker passes it to loadPyodide as `_loadSnapshot`,
// which skips Python's start-up (about 2 s of a cold boot in the browser).
//
//   node scripts/pyodide_snapshot.mjs PYODIDE_DIR OUT_FILE
//
// PYODIDE_DIR holds pyodide.mjs, pyodide.asm.js, pyodide.asm.wasm, python_stdlib.zip and
// pyodide-lock.json; OUT_FILE receives the raw (uncompressed) snapshot. Prints one line
// of JSON ({bytes, ms, version}) on success; exits non-zero with a message otherwise.
//
// `_makeSnapshot` / `_loadSnapshot` / `makeMemorySnapshot` are private options of
// Pyodide 0.27: a snapshot only loads into the runtime with the same BUILD_ID (the worker
// falls back to a normal start when it does not). NumPy cannot be in the snapshot (it has
// dynamic libraries), so the worker still loads it, micropip and poolgrad's wheel itself.

import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, out] = process.argv.slice(2);
if (!dir || !out) {
  console.error("usage: node pyodide_snapshot.mjs PYODIDE_DIR OUT_FILE");
  process.exit(2);
}
const major = Number(process.versions.node.split(".")[0]);
if (major < 18) {
  console.error(`Node ${process.versions.node} is too old: Pyodide needs Node 18 or newer`);
  process.exit(3);
}

const started = performance.now();
const indexURL = resolve(dir) + "/";
const { loadPyodide } = await import(pathToFileURL(indexURL + "pyodide.mjs").href);
const pyodide = await loadPyodide({
  indexURL,
  _makeSnapshot: true,
  // What Python's start-up records (sys.executable, os.environ) is frozen into the
  // snapshot: give it the browser's values, not this machine's script path or variables.
  _sysExecutable: "./this.program",
  env: { HOME: "/home/pyodide" },
  stdout: () => {},
  stderr: (line) => console.error(line),
});
const snapshot = pyodide.makeMemorySnapshot();
writeFileSync(out, snapshot);
console.log(JSON.stringify({
  bytes: snapshot.length,
  ms: Math.round(performance.now() - started),
  version: pyodide.version,
}));
