// Python's start-up snapshots, made at build time by scripts/pyodide_snapshot.mjs under
// Node, and how a runtime is started from them. Shared by web/python-runtime.js and by the build
// script (which restores what it made, as a check), so both sides do the same thing.
//
// Two snapshots, both memory images of Pyodide 0.27's interpreter:
// - the plain one (snapshot.bin.gz): CPython just started, nothing imported; it is
//   Pyodide's own format and loadPyodide({_loadSnapshot}) restores it by itself.
// - the NumPy one (numpy-snapshot.bin.gz): NumPy and micropip already imported. Pyodide
//   refuses to snapshot loaded extension modules, because their code (the .so side
//   modules) lives outside the memory image. Restoring it therefore also loads each
//   library again at the place in memory and in the function table that it had when the
//   image was taken, before Pyodide copies the image back (restoreNumpySnapshot below).
//   The file is a container: "PGNS", the manifest's length (uint32, little-endian), the
//   manifest (JSON), then Pyodide's own snapshot, then every file of the NumPy, micropip
//   and packaging wheels (the file system is not part of a memory image).

//
// The two magic numbers live here only; the build reads these two lines too
// (sitebuild/snapshot.py, snapshot_format), so keep each `export const NAME = <JSON>;`.
// Pyodide 0.27's own snapshot header starts with SNAPSHOT_MAGIC (uint32, little-endian),
// then the offset of the wasm heap; the NumPy snapshot's container with CONTAINER_MAGIC.
export const SNAPSHOT_MAGIC = 1886286592;
export const CONTAINER_MAGIC = "PGNS";

// Pyodide 0.27 chooses at start-up how Python calls C functions: through a wasm-gc
// trampoline, or through JavaScript when navigator.platform names an iOS device (Safari on
// iOS crashes on the first). iPads say "MacIntel", so 0.27 misses them (pyodide#5670).
// The choice is baked into a snapshot (it occupies a function-table slot and a word of the
// interpreter's state), so the build and every browser must make the same one: every
// engine takes the iOS path, which works everywhere.
const IOS_PLATFORM = "iPad";

// Makes Pyodide's check (`/iPad|iPhone|iPod/.test(navigator.platform)`) take the iOS path
// until the returned function is called. Returns {enginePlatform, pyodideSees, undo}.
export function takeTheIOSPath() {
  const nav = globalThis.navigator;
  if (!nav) {
    // Node 20 has no navigator; Python records the userAgent as sys._emscripten_info.runtime.
    const standIn = { platform: IOS_PLATFORM, userAgent: `Node.js ${globalThis.process?.version ?? ""}` };
    Object.defineProperty(globalThis, "navigator", { value: standIn, configurable: true, writable: true });
    return { enginePlatform: null, pyodideSees: IOS_PLATFORM, undo: () => delete globalThis.navigator };
  }
  const enginePlatform = nav.platform;
  try {
    Object.defineProperty(nav, "platform", { value: IOS_PLATFORM, configurable: true });
  } catch {
    // A navigator that cannot be changed: Pyodide decides by itself (pyodideSees says
    // what its check saw); the worker's fallbacks stay in place.
  }
  return { enginePlatform, pyodideSees: nav.platform, undo: () => delete nav.platform };
}

// Splits an unpacked NumPy snapshot into its manifest, Pyodide's snapshot and its files.
export function readNumpySnapshot(raw) {
  if (raw.byteLength < 8 || new TextDecoder().decode(raw.subarray(0, 4)) !== CONTAINER_MAGIC) {
    throw new Error("not a NumPy start-up snapshot");
  }
  const length = new DataView(raw.buffer, raw.byteOffset + 4, 4).getUint32(0, true);
  const manifest = JSON.parse(new TextDecoder().decode(raw.subarray(8, 8 + length)));
  const part = ({ offset, bytes }) => {
    if (offset + bytes > raw.byteLength) throw new Error("the NumPy snapshot is truncated");
    return raw.subarray(offset, offset + bytes);
  };
  // Pyodide reads its snapshot's header as uint32 words: it must start 4-byte aligned.
  const image = part(manifest.image);
  if (image.byteOffset % 4 !== 0) throw new Error("the NumPy snapshot's image is not aligned");
  return { manifest, image, part };
}

// Compiles the libraries the snapshot had loaded (asynchronously, while the runtime loads).
export function compileLibraries(snapshot) {
  const files = new Map(snapshot.manifest.files.map((file) => [file.path, file]));
  return Promise.all(snapshot.manifest.libs.map((lib) => {
    const file = files.get(lib.name);
    if (!file) throw new Error(`the NumPy snapshot has no file for ${lib.name}`);
    return WebAssembly.compile(snapshot.part(file));
  }));
}

// Right after the runtime is created: the image's memory goes in (the libraries' handles
// live there), the wheels' files go into the file system, and each library is instantiated
// again at its recorded handle, in the order of its table base, which puts its functions
// back in the table slots the image refers to. Its data segments and constructors write
// into memory again, so Pyodide's restoreSnapshot, which copies the image once more after
// this, has the last word.
function replayLibraries(module, snapshot, modules) {
  const { manifest, image } = snapshot;
  const heapOffset = new DataView(image.buffer, image.byteOffset, 8).getUint32(4, true);
  module.HEAPU8.set(image.subarray(heapOffset));
  for (const file of manifest.files) {
    module.FS.mkdirTree(file.path.slice(0, file.path.lastIndexOf("/")));
    module.FS.writeFile(file.path, snapshot.part(file));
  }
  const exportsOf = {};
  manifest.libs.forEach((lib, i) => {
    const flags = { loadAsync: false, allowUndefined: true, nodelete: true, global: false };
    const exports = module.loadWebAssemblyModule(modules[i], flags, lib.name, {}, lib.handle);
    module.newDSO(lib.name, lib.handle, exports).global = false;
    exportsOf[lib.name] = exports;
  });
  // The image calls functions through these slots: a runtime that filled the table
  // differently (another trampoline choice, another Pyodide) must not run it.
  if (module.wasmTable.length !== manifest.table_length) {
    throw new Error(`the function table has ${module.wasmTable.length} slots after the libraries, the NumPy snapshot expects ${manifest.table_length}`);
  }
  for (const { slot, lib, symbol } of manifest.table_slots) {
    if (module.wasmTable.get(slot) !== exportsOf[lib]?.[symbol]) {
      throw new Error(`function-table slot ${slot} does not hold ${symbol} of ${lib}`);
    }
  }
}

// The JavaScript objects Python held when the image was taken, saved as paths from
// Pyodide's public API (scripts/pyodide_snapshot.mjs) and looked up again here.
function followPath(root, path) {
  return path.reduce((object, key) => {
    if (object == null || !(key in Object(object))) throw new Error(`the NumPy snapshot refers to pyodide.${path.join(".")}, which this runtime lacks`);
    return object[key];
  }, root);
}

// loadPyodide from the NumPy snapshot; pyodide.asm.js must be loaded (its
// _createPyodideModule is wrapped for this one start) and `modules` compiled. Run
// AFTER_START in it next.
export async function restoreNumpySnapshot(loadPyodide, options, snapshot, modules) {
  const create = globalThis._createPyodideModule;
  if (typeof create !== "function") throw new Error("pyodide.asm.js is not loaded");
  let api = null;
  globalThis._createPyodideModule = async (settings) => {
    api = settings.API;
    const module = await create(settings);
    replayLibraries(module, snapshot, modules);
    return module;
  };
  try {
    const pyodide = await loadPyodide({
      ...options,
      _loadSnapshot: snapshot.image,
      _snapshotDeserializer: (path) => followPath(api.public_api, path),
    });
    return pyodide;
  } finally {
    globalThis._createPyodideModule = create;
  }
}

// Run after any start, from a snapshot or not. importlib.invalidate_caches() (micropip
// calls it when it installs a wheel) makes every zipimporter re-read its archive's
// directory, in Python, once per package imported from it: about a second for the
// standard library's zip, which never changes while the page runs, so it is not re-read.
// Then, for a restored image: it remembers the directories it had listed (the files were
// written again since), and it repeats its random state in every session.
export const AFTER_START = `
import importlib, random, sys, zipimport
if not hasattr(zipimport.zipimporter, "_reread_directory"):
    _stdlib_zip = f"/lib/python{sys.version_info.major}{sys.version_info.minor}.zip"
    zipimport.zipimporter._reread_directory = zipimport.zipimporter.invalidate_caches
    zipimport.zipimporter.invalidate_caches = (
        lambda self: None if self.archive == _stdlib_zip else self._reread_directory())
importlib.invalidate_caches()
random.seed()
if "numpy.random" in sys.modules:
    sys.modules["numpy.random"].seed()
`;
