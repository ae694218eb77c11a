// Build-time helper for build.py: boots the vendored Pyodide core under Node and writes
// Python's start-up snapshot (web/runtime/snapshot.js describes it and restores it):
//
//   node sitebuild/pyodide_snapshot.mjs PYODIDE_DIR OUT_DIR STDLIB_ZIP WHEEL...
//
// OUT_DIR/numpy-snapshot.bin: the NumPy snapshot, made with STDLIB_ZIP mounted as the
// standard library (the zip the site's starts mount: the image holds zipimport's
// directory of it). The WHEELs (NumPy's and poolgrad's) are
// unpacked into site-packages with Python's zipfile (not loadPackage:
// then Python's own dlopen loads NumPy's libraries, so each gets a handle that records
// where it lives), NumPy and poolgrad's wire are imported, and each loaded library is
// recorded (name, handle, memory base, table base) in the order of its table base.
// The NumPy snapshot is then restored in a fresh runtime, the way the worker does it, and
// used (NumPy, a library loaded after the restore, a trace): a snapshot that does not
// restore fails the build here, not in a browser.
//
// Prints one line of JSON on success; exits non-zero with a message otherwise.
// `_makeSnapshot`, `_loadSnapshot`, `makeMemorySnapshot` and the dynamic-linking internals
// used here are private to Pyodide 0.27: a snapshot only loads into the same build.

import { readFileSync, writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, outDir, stdlib, ...wheels] = process.argv.slice(2);
if (!dir || !outDir || !stdlib || wheels.length === 0) {
  console.error("usage: node pyodide_snapshot.mjs PYODIDE_DIR OUT_DIR STDLIB_ZIP WHEEL...");
  process.exit(2);
}
const major = Number(process.versions.node.split(".")[0]);
if (major < 18) {
  console.error(`Node ${process.versions.node} is too old: Pyodide needs Node 18 or newer`);
  process.exit(3);
}

const here = new URL(".", import.meta.url);
const restore = await import(new URL("../web/runtime/snapshot.js", here).href);
const started = performance.now();
const ms = {};
const indexURL = resolve(dir) + "/";
const platform = restore.takeTheIOSPath();
const { loadPyodide } = await import(pathToFileURL(indexURL + "pyodide.mjs").href);
const options = {
  indexURL,
  stdLibURL: resolve(stdlib),
  // What Python's start-up records (sys.executable, os.environ) is frozen into a
  // snapshot: give it the browser's values, not this machine's script path or variables.
  _sysExecutable: "./this.program",
  env: { HOME: "/home/pyodide" },
  stdout: () => {},
  stderr: (line) => console.error(line),
};

function fail(message) {
  console.error(message);
  process.exit(1);
}

const pyodide = await loadPyodide({ ...options, _makeSnapshot: true });
const module = pyodide._module;
if (module._PyEM_CountArgsPtr !== 0) fail("Pyodide did not take the iOS path (JavaScript trampolines)");
const tableBefore = module.wasmTable.length;
pyodide.FS.mkdirTree("/tmp/wheels");
for (const wheel of wheels) pyodide.FS.writeFile(`/tmp/wheels/${basename(wheel)}`, readFileSync(wheel));
const listed = pyodide.runPython(`
import os, sys, zipfile
site_packages = next(p for p in sys.path if p.endswith("site-packages"))
files = []
# (os.listdir, not glob: the standard library's subset holds only what the site uses)
for wheel in sorted(os.path.join("/tmp/wheels", name) for name in os.listdir("/tmp/wheels")):
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site_packages)
        files += [f"{site_packages}/{name}" for name in archive.namelist() if not name.endswith("/")]
    os.remove(wheel)
import importlib
importlib.invalidate_caches()
# What the worker imports: NumPy, and poolgrad's wire with everything it imports.
import numpy
from poolgrad.wire import run_trace
del run_trace
import gc
gc.collect()
files
`);
const files = listed.toJs();
listed.destroy();

const libs = Object.entries(module.LDSO.loadedLibsByHandle)
  .filter(([handle]) => Number(handle) !== 0)
  .map(([handle, dso]) => ({
    name: dso.name,
    handle: Number(handle),
    memory_base: module.HEAPU32[(Number(handle) + 12) >> 2],
    table_base: module.HEAPU32[(Number(handle) + 20) >> 2],
    table_size: module.HEAP32[(Number(handle) + 24) >> 2],
  }))
  .sort((a, b) => a.table_base - b.table_base);
if (libs.length === 0) fail("importing NumPy loaded no library");
for (const lib of libs) {
  if (!files.includes(lib.name)) fail(`${lib.name} is loaded but is not a file of the wheels`);
}
if (libs[0].table_base !== tableBefore) fail(`the first library's table base is ${libs[0].table_base}, not ${tableBefore}`);

// Slots past the libraries' own ranges (functions the loader added, such as PyInit_*):
// the worker checks that its restore puts the same functions there.
const covered = new Set(libs.flatMap((lib) => Array.from({ length: lib.table_size }, (_, i) => lib.table_base + i)));
const tableSlots = [];
for (let slot = tableBefore; slot < module.wasmTable.length; slot++) {
  if (covered.has(slot)) continue;
  const held = module.wasmTable.get(slot);
  const owner = libs.find((lib) => Object.entries(module.LDSO.loadedLibsByName[lib.name].exports).some(([, f]) => f === held));
  const symbol = owner && Object.entries(module.LDSO.loadedLibsByName[owner.name].exports).find(([, f]) => f === held)[0];
  if (!owner) fail(`function-table slot ${slot} holds a function of no NumPy library`);
  tableSlots.push({ slot, lib: owner.name, symbol });
}

// JavaScript objects Python holds (micropip keeps a few of Pyodide's API): saved as their
// path from the public API, which the worker follows again.
function pathTo(target) {
  if (target === pyodide) return [];
  for (const key of Object.getOwnPropertyNames(pyodide)) {
    let value;
    try { value = pyodide[key]; } catch { continue; }
    if (value === target) return [key];
    if (!value || (typeof value !== "object" && typeof value !== "function")) continue;
    for (const inner of Object.getOwnPropertyNames(value)) {
      try { if (value[inner] === target) return [key, inner]; } catch { /* a throwing getter */ }
    }
  }
  fail(`Python holds a JavaScript object that is not part of Pyodide's API: ${String(target).slice(0, 80)}`);
}
// The allocator's free space still holds what freed objects left there: zeroed, the image
// compresses better. Every free block is taken (largest first) and zeroed, then given
// back; the memory may not grow meanwhile, so malloc fails once the free space is used up.
function zeroFreeMemory() {
  const grow = WebAssembly.Memory.prototype.grow;
  WebAssembly.Memory.prototype.grow = () => { throw new RangeError("the memory does not grow while it is zeroed"); };
  const taken = [];
  let zeroed = 0;
  try {
    for (let size = 1 << 24; size >= 16; size >>= 1) {
      for (let block = module._emscripten_builtin_malloc(size); block; block = module._emscripten_builtin_malloc(size)) {
        module.HEAPU8.fill(0, block, block + size);
        taken.push(block);
        zeroed += size;
      }
    }
  } finally {
    WebAssembly.Memory.prototype.grow = grow;
    for (const block of taken) module._emscripten_builtin_free(block);
  }
  return zeroed;
}
const heapBefore = module.HEAPU8.length;
const zeroed = zeroFreeMemory();
if (module.HEAPU8.length !== heapBefore) fail("the memory grew while its free space was zeroed");
const image = pyodide.makeMemorySnapshot({ serializer: pathTo });
ms.numpy = Math.round(performance.now() - started);

// The container (web/runtime/snapshot.js, readNumpySnapshot).
const fileBytes = files.map((path) => pyodide.FS.readFile(path));
const manifest = {
  format: 1,
  pyodide_version: pyodide.version,
  image: { offset: 0, bytes: image.length },
  libs,
  table_length: module.wasmTable.length,
  table_slots: tableSlots,
  files: files.map((path, i) => ({ path, offset: 0, bytes: fileBytes[i].length })),
};
// Offsets depend on the manifest's length, which depends on the offsets: settle them.
let text = "";
for (let pass = 0; pass < 3; pass++) {
  text = JSON.stringify(manifest);
  const headerBytes = 8 + Buffer.byteLength(text);
  let offset = Math.ceil((headerBytes + 64) / 16) * 16;
  manifest.image.offset = offset;
  offset += image.length;
  for (const file of manifest.files) {
    file.offset = offset;
    offset += file.bytes;
  }
}
text = JSON.stringify(manifest);
if (8 + Buffer.byteLength(text) > manifest.image.offset) fail("the manifest outgrew its room");
const total = manifest.files.at(-1).offset + manifest.files.at(-1).bytes;
const container = new Uint8Array(total);
container.set(new TextEncoder().encode(restore.CONTAINER_MAGIC), 0);
new DataView(container.buffer).setUint32(4, Buffer.byteLength(text), true);
container.set(new TextEncoder().encode(text), 8);
container.set(image, manifest.image.offset);
manifest.files.forEach((file, i) => container.set(fileBytes[i], file.offset));

// The check: restore it as the worker does and use it.
const snapshot = restore.readNumpySnapshot(container);
const restored = await restore.restoreNumpySnapshot(loadPyodide, options, snapshot, await restore.compileLibraries(snapshot));
restored.runPython(restore.AFTER_START);
const checked = restored.runPython(`
import json, sys
import numpy
from poolgrad.wire import run_trace
answer = json.loads(run_trace(json.dumps({"x": [[1, 2], [3, 4]], "kernel_size": [2, 2], "stride": [2, 2]})))
assert "error" not in answer, answer
x = numpy.arange(16.0).reshape(4, 4)
windows = numpy.lib.stride_tricks.sliding_window_view(x, (2, 2))[::2, ::2]
assert windows.max(axis=(-1, -2)).tolist() == [[5.0, 7.0], [13.0, 15.0]], windows
import poolgrad.exercise_check  # the exercise checker: everything it imports is in the subset
import poolgrad
numpy.__version__, poolgrad.__version__
`).toJs();
writeFileSync(`${outDir}/numpy-snapshot.bin`, container);
ms.total = Math.round(performance.now() - started);
platform.undo();

console.log(JSON.stringify({
  version: pyodide.version,
  numpy_bytes: container.length,
  libs: libs.length,
  zeroed_bytes: zeroed,
  numpy: checked[0],
  poolgrad: checked[1],
  ms,
}));
