// Python under Pyodide, started once per worker: the code that web/worker.js (a dedicated
// worker, one per page) and web/shared-worker.js (one for every widget of the site in this
// browser) share. bootPython(siteRoot, progress) starts it and resolves with run(request);
// trace-service.js queues the widgets' requests in front of it. Every path is resolved against the
// site's root (the worker's name, set by the page), so the site works under any sub-path;
// build-info.json (written by build.py) names the Pyodide folder, the wheels, the NumPy
// subset and (when the build could make it) Python's start-up snapshot, restored by
// snapshot.js. docs/startup.md describes what a start downloads and why.

import { AFTER_START, compileLibraries, readNumpySnapshot, restoreNumpySnapshot, takeTheIOSPath } from "./snapshot.js";


// Python's side of the protocol lives in the package (poolgrad.wire.run_trace: JSON in,
// JSON out, every user error a clear message); snapshot.js's AFTER_START reseeds random.
export const PYTHON_GLUE = `
from poolgrad.wire import run_trace
`;

// Warm every path a real request takes (validation, forward, the default gradient, backward).
export const WARM_UP_REQUEST = {
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

// How many steps Python's start has: each report says it, so the page learns it from the
// first one. The page imports nothing of the worker's: a module both loaded would be
// fetched twice in WebKit, whose HTTP cache keeps one copy of a URL and swaps the page's
// (a script with Origin) for the worker's (a sharedworker or worker request) and back.
const BOOT_STEPS = 5;

// Where boot progress goes (bootPython's `report`): {type: "progress", step, steps, message}.
let report = () => {};

function progress(step, message) {
  report({ type: "progress", step, steps: BOOT_STEPS, message });
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
    return await Promise.race([start(), runtimeFailed.catch((error) => {
      error.fromRuntime = true;
      throw error;
    })]);
  } finally {
    clearInterval(timer);
  }
}

// How Python started, sent with "ready" (the browser tests read it). snapshot: "numpy"
// (NumPy and poolgrad already imported) or "none" (a normal start); rejected: the snapshot
// when it was tried and not used, with the reason; platform: what
// Pyodide's iOS check saw (snapshot.js) and what the engine says; trampolines: "js" when
// Pyodide took its iOS path.
// path: "snapshot" or "wheels", and why (chosen); wasm: "streamed", or how it was compiled
// instead; files: the on-demand files of the build it used (the service worker keeps them).
const startup = {
  snapshot: "none", path: null, chosen: null, wasm: null, files: [], rejected: [], platform: null, enginePlatform: null,
  trampolines: null,
};

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

async function download(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname} answered HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// The runtime's wasm, fetched at once and compiled while it streams. A server that sends it
// with another MIME type (application/octet-stream, common on LMS file servers) makes
// compileStreaming refuse it: it is then compiled from its bytes, and startup.wasm says
// what to fix. `measured({bytesPerSecond, why})` gets the link's rate (the first call
// decides: a promise keeps its first value). Early when the runtime's first 2 MB or more
// already show the link fast enough for the snapshot: counted from the request and as the
// best compression sends them (LEAST_SHARE), that rate is at most the link's, so a slow
// link never passes, and on a fast one the snapshot starts without waiting for the
// runtime's last byte. Else
// once the last byte has arrived (linkRate; 0 when the download failed); `arrived()` is
// called then.
const EARLY_SAMPLE_BYTES = 2e6;

function compileRuntime(url, measured, arrived) {
  const requested = performance.now();
  const compiled = fetch(url).then(async (response) => {
    if (!response.ok) throw new Error(`${url.pathname} answered HTTP ${response.status}`);
    const type = (response.headers.get("content-type") ?? "").split(";")[0].trim();
    const counter = response.clone().body.getReader();
    (async () => {
      let received = 0;
      for (;;) {
        const { done, value } = await counter.read();
        if (done) break;
        received += value.byteLength;
        if (received >= EARLY_SAMPLE_BYTES) {
          const soFar = received * LEAST_SHARE / Math.max(1e-3, (performance.now() - requested) / 1000);
          if (soFar >= snapshotRate()) measured({ bytesPerSecond: soFar, why: `the runtime's first ${MB(received)} MB came at ${MB(soFar)} MB/s or more` });
        }
      }
      const bytesPerSecond = linkRate(await resourceEntries(url), url.href, { received, requested, lastByte: performance.now() });
      measured({ bytesPerSecond, why: `the link brought the runtime at ${MB(bytesPerSecond)} MB/s` });
    })().catch(() => measured({ bytesPerSecond: 0, why: "the runtime's download failed" })).finally(arrived);
    if (type === "application/wasm" && typeof WebAssembly.compileStreaming === "function") {
      startup.wasm = "streamed";
      return WebAssembly.compileStreaming(response);
    }
    startup.wasm = `compiled from its bytes: the server sent ${url.pathname.split("/").pop()} as ${type || "no type"}; `
      + "serve .wasm files as application/wasm for a faster start";
    console.warn(`poolgrad: ${startup.wasm}`);
    return WebAssembly.compile(await response.arrayBuffer());
  });
  compiled.catch(() => { // a failure is handled where it is awaited
    measured({ bytesPerSecond: 0, why: "the runtime's download failed" });
    arrived();
  });
  return compiled;
}

// This worker's Resource Timing entries once the runtime's own is among them: an engine
// adds it a moment after the body's last byte is read, so a few turns are waited for
// (at most about 100 ms); an engine without Resource Timing in workers gives [].
async function resourceEntries(url) {
  if (typeof performance.getEntriesByType !== "function") return [];
  for (let turn = 0; turn < 20; turn += 1) {
    const entries = performance.getEntriesByType("resource");
    if (entries.some((entry) => entry.name === url.href)) return entries;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return performance.getEntriesByType("resource");
}

// What a host sends of the wasm's bytes: about a third when it gzips them (docs/startup.md);
// never less than a fifth (brotli at its best level sends 0.22).
const GZIPPED_SHARE = 1 / 3;
const LEAST_SHARE = 1 / 5;

/**
 * The link's rate in bytes per second as the runtime's download saw it: every byte that
 * crossed for this worker (Resource Timing's encodedBodySize: as sent, gzipped or not)
 * while the runtime came, from its request to its last byte. The runtime shares the link
 * with the standard library, the lock file and poolgrad's wheel, so all of them count.
 * Without its entry (an engine without Resource Timing in workers, a cross-origin runtime
 * that hides its sizes) the bytes the page read count, as a gzipping host would have sent them.
 * (The first megabyte's rate, a chunk or two on loopback, swung fivefold between visits.)
 *
 *   linkRate([{ name: "r", startTime: 0, responseEnd: 1000, encodedBodySize: 3e6 },
 *             { name: "s", startTime: 0, responseEnd: 400, encodedBodySize: 1e6 }], "r", {})
 *   // -> 4e6 (4 MB in a second)
 */
export function linkRate(entries, runtimeHref, { received = 0, requested = 0, lastByte = 0 }) {
  const runtime = entries.find((entry) => entry.name === runtimeHref && entry.encodedBodySize > 0);
  if (!runtime) return received * GZIPPED_SHARE / Math.max(1e-3, (lastByte - requested) / 1000);
  const during = entries.filter((entry) => entry.startTime <= runtime.responseEnd && entry.responseEnd >= runtime.startTime);
  const bytes = during.reduce((sum, entry) => sum + (entry.responseEnd <= runtime.responseEnd
    ? entry.encodedBodySize
    : entry.encodedBodySize * (runtime.responseEnd - Math.max(entry.startTime, runtime.startTime)) / Math.max(1e-3, entry.responseEnd - entry.startTime)), 0);
  return bytes / Math.max(1e-3, (runtime.responseEnd - runtime.startTime) / 1000);
}

// Anything that goes wrong inside the runtime while it starts fails the start at once, with
// its message: Pyodide only logs a failed wasm instantiation (and then waits for ever), and
// the "still starting" heartbeat below must never hide an error.
let runtimeFailed = null;
let failRuntime = () => {};

function watchRuntime() {
  runtimeFailed = new Promise((_, reject) => {
    failRuntime = (error) => reject(error instanceof Error ? error : new Error(String(error)));
  });
  runtimeFailed.catch(() => {});
  const onError = (event) => failRuntime(event.error ?? event.message ?? "an error in the runtime");
  const onRejection = (event) => failRuntime(event.reason ?? "an unhandled rejection in the runtime");
  self.addEventListener("error", onError);
  self.addEventListener("unhandledrejection", onRejection);
  return () => {
    self.removeEventListener("error", onError);
    self.removeEventListener("unhandledrejection", onRejection);
  };
}

// Every runtime this worker creates gets the wasm compiled above, and reports an abort.
function useCompiledRuntime(compiled) {
  const create = globalThis._createPyodideModule;
  if (typeof create !== "function") throw new Error("pyodide.asm.js is not loaded");
  globalThis._createPyodideModule = (settings) => create({
    ...settings,
    instantiateWasm(imports, receive) {
      compiled.then((module) => WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module)))
        .catch((error) => failRuntime(new Error(`the Python runtime (pyodide.asm.wasm) did not load: ${error?.message ?? error}`)));
      return {};
    },
    onAbort(what) {
      failRuntime(new Error(`the Python runtime aborted: ${what}`));
    },
  });
  return () => { globalThis._createPyodideModule = create; };
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

// The NumPy snapshot pays where the link is fast: it is 8 MB more on the wire than the
// wheels' path but skips NumPy's import and CPython's start (two seconds or more). Below
// this rate of the link (bytes as sent, 40 Mbit/s) the wheels' path is quicker;
// docs/startup.md has the figures. The browser tests set their own
// (globalThis.poolgradSnapshotRate, a test hook, like the page's poolgradBootStallMs).
const SNAPSHOT_RATE = 5e6;
const snapshotRate = () => globalThis.poolgradSnapshotRate ?? SNAPSHOT_RATE;

// Which path this start takes: "snapshot" (the NumPy snapshot) or "wheels" (a normal start,
// then NumPy unpacked from its wheel). A path whose files are saved offline (the service
// worker keeps the path the browser took) wins, so a repeat visit downloads nothing; else the
// link decides.
async function choosePath(info, siteRoot, rate) {
  if (!info.numpy_snapshot) return { path: "wheels", why: "the build has no snapshot" };
  // Safari before 16.4, WPE 2.38: a snapshot it cannot unpack is not downloaded at all.
  if (typeof DecompressionStream !== "function") {
    noteRejected("numpy", "this browser cannot unpack gzip (no DecompressionStream)");
    return { path: "wheels", why: "no DecompressionStream" };
  }
  const saved = async (name) => Boolean(self.caches && await self.caches.match(new URL(info[name], siteRoot).href).catch(() => null));
  const [snapshotSaved, wheelSaved] = await Promise.all([saved("numpy_snapshot"), saved(info.numpy_subset ? "numpy_subset" : "numpy_wheel")]);
  if (snapshotSaved) return { path: "snapshot", why: "saved offline" };
  if (wheelSaved) return { path: "wheels", why: "saved offline" };
  const { bytesPerSecond, why } = await rate;
  return bytesPerSecond >= snapshotRate() ? { path: "snapshot", why } : { path: "wheels", why };
}

// Unpacks a wheel (a zip) into site-packages with Python's zipfile: no micropip, no index.
const UNPACK = `
import importlib, sys, zipfile
with zipfile.ZipFile(_wheel) as _archive:
    _archive.extractall(next(path for path in sys.path if path.endswith("site-packages")))
importlib.invalidate_caches()
del _archive
`;

export function unpackWheel(pyodide, bytes, name) {
  const path = `/tmp/${name}`;
  pyodide.FS.writeFile(path, bytes);
  pyodide.globals.set("_wheel", path);
  pyodide.runPython(UNPACK);
  pyodide.runPython("del _wheel");
  pyodide.FS.unlink(path);
}

// Code may import a module that a subset a start downloads left out: of NumPy's
// (sitebuild/subset.py: numpy.fft, numpy.polynomial, ...) or of the standard library's
// (asyncio, email, most of encodings, ...). The first such import fetches the official
// file once (synchronously: an import cannot wait), puts in what the subset lacks and
// looks again. Learner code in the exercise panel can import anything. One finder at the
// end of sys.meta_path serves both; `_fetch_on_import(source)` is the request (fixed here).
const FETCH_ON_IMPORT = `
import importlib, importlib.machinery, io, os, sys, zipfile, zipimport

class _FetchOnImport:
    """The official files behind the subsets, each fetched the first time an import needs it."""

    def __init__(self, fetch, numpy_subset, left_out):
        self._fetch = fetch
        # source: (does it hold this module?, what it is, what is fetched, how it is put
        # in), until it was fetched
        self._sources = {}
        if numpy_subset:
            self._sources["numpy"] = (lambda name: name.startswith("numpy."), "NumPy", "NumPy's full wheel",
                                      self._unpack_numpy)
        if left_out is not None:
            self._stdlib_left_out = frozenset(left_out)
            self._sources["stdlib"] = (self._stdlib_lacks, "Python's standard library",
                                       "the full standard library", self._mount_stdlib)

    def _stdlib_lacks(self, name):
        parts = name.split(".")
        return any(".".join(parts[:end]) in self._stdlib_left_out for end in range(1, len(parts) + 1))

    @staticmethod
    def _unpack_numpy(data):
        site_packages = next(p for p in sys.path if p.endswith("site-packages"))
        with zipfile.ZipFile(io.BytesIO(data)) as wheel:
            for entry in wheel.infolist():
                if not os.path.exists(os.path.join(site_packages, entry.filename)):
                    wheel.extract(entry, site_packages)

    @staticmethod
    def _mount_stdlib(data):
        # The official zip holds every file of the subset, unchanged: it replaces the subset
        # under the same name, and every importer of that zip (one per package folder, each
        # with its own copy of the directory once caches were invalidated) gets its directory.
        archive = f"/lib/python{sys.version_info.major}{sys.version_info.minor}.zip"
        with open(archive, "wb") as f:
            f.write(data)
        files = zipimport._read_directory(archive)
        zipimport._zip_directory_cache[archive] = files
        for importer in list(sys.path_importer_cache.values()):
            if isinstance(importer, zipimport.zipimporter) and importer.archive == archive:
                importer._files = files

    def find_spec(self, name, path=None, target=None):
        for source, (holds, part, whole, put_in) in list(self._sources.items()):
            if not holds(name):
                continue
            try:
                data = self._fetch(source).to_bytes()
            except Exception as e:
                raise ModuleNotFoundError(
                    f"{name} is not in the part of {part} this page loads at start, and {whole} "
                    f"could not be fetched: {e}", name=name) from None
            put_in(data)
            del self._sources[source]
            importlib.invalidate_caches()
            return importlib.machinery.PathFinder.find_spec(name, path)
        return None

sys.meta_path.append(_FetchOnImport(_fetch_on_import, _numpy_subset, _stdlib_left_out))
del _FetchOnImport, _fetch_on_import, _numpy_subset, _stdlib_left_out
`;

// The files it fetches are fixed here (`urls`, {source: URL}); the constructor is taken
// now, because the exercise worker deletes XMLHttpRequest from its scope before learner
// code runs. What the start used decides what is fetched: `info.numpy_subset` (else the
// official wheel was unpacked) and `info.stdlib_subset` with the standard library's modules
// it lacks, `info.stdlib_left_out` (else the official zip is mounted).
export function fetchWhenImported(pyodide, urls, info) {
  const Request = globalThis.XMLHttpRequest;
  pyodide.globals.set("_fetch_on_import", (source) => {
    const url = urls[source];
    if (!Request) throw new Error("this worker cannot fetch");
    const request = new Request();
    request.open("GET", url.href, false);
    request.responseType = "arraybuffer";
    request.send();
    if (request.status !== 200) throw new Error(`${url.pathname} answered HTTP ${request.status}`);
    return new Uint8Array(request.response);
  });
  pyodide.globals.set("_numpy_subset", Boolean(info.numpy_subset));
  pyodide.globals.set("_stdlib_left_out", info.stdlib_subset ? pyodide.toPy(info.stdlib_left_out) : null);
  pyodide.runPython(FETCH_ON_IMPORT);
}

// The standard library a start mounts: the subset (sitebuild/stdlib.py) when the build made one.
function stdlibURL(info, siteRoot) {
  return info.stdlib_subset ? new URL(info.stdlib_subset, siteRoot) : new URL("python_stdlib.zip", new URL(info.pyodide, siteRoot));
}

// The chosen path, and the wheels' path when the snapshot fails, each in this same worker.
async function startInterpreter(info, siteRoot, indexURL, compiled, rate, runtimeArrived) {
  // The standard library's subset when the build made one: the NumPy snapshot was made
  // with it mounted (its image holds zipimport's directory of that very zip).
  const options = { indexURL, stdLibURL: stdlibURL(info, siteRoot).href };
  // The choice waits for the runtime's last byte (or, on a fast link, its first megabytes),
  // which a slow link holds up (the snapshot would share that link, so starting it earlier
  // gains nothing there): the "still starting" messages cover it.
  const choice = await whileStarting("Starting Python", () => choosePath(info, siteRoot, rate));
  startup.path = choice.path;
  startup.chosen = choice.why;
  const numpyWheel = new URL(info.numpy_subset ?? info.numpy_wheel, siteRoot);
  const snapshotURL = new URL(info.numpy_snapshot ?? "", siteRoot);
  // The snapshot downloads, unpacks and its libraries compile while the runtime's
  // scripts load and run.
  if (choice.path === "snapshot") progress(2, "Downloading Python with NumPy");
  const numpySnapshot = choice.path === "snapshot"
    ? downloadSnapshot(snapshotURL, info.numpy_snapshot_bytes, 2, "Python with NumPy").then(async (raw) => {
      const snapshot = readNumpySnapshot(raw);
      return { snapshot, modules: await compileLibraries(snapshot) };
    })
    : null;
  numpySnapshot?.catch(() => {});
  // On the wheels' path NumPy's zip waits for the runtime's last byte: every download shares
  // the link, Python's start needs the runtime (and the standard library, smaller, begun
  // with it) first and NumPy only after that start, whose second or two of processor time
  // the NumPy download then fills (docs/startup.md has the figures).
  const wheel = () => {
    const bytes = runtimeArrived.then(() => download(numpyWheel));
    bytes.catch(() => {});
    return bytes;
  };
  let numpyBytes = choice.path === "wheels" ? wheel() : null;
  const [{ loadPyodide }] = await Promise.all([
    import(new URL("pyodide.mjs", indexURL).href),
    import(new URL("pyodide.asm.js", indexURL).href), // defines _createPyodideModule, wrapped here and in snapshot.js
  ]);
  const undo = useCompiledRuntime(compiled);
  try {
    if (numpySnapshot) {
      try {
        const { snapshot, modules } = await numpySnapshot;
        const pyodide = await whileStarting("Starting Python with NumPy from its snapshot",
          () => restoreNumpySnapshot(loadPyodide, options, snapshot, modules));
        startup.snapshot = "numpy";
        startup.files.push(snapshotURL.href);
        return pyodide;
      } catch (error) {
        if (error?.fromRuntime) throw error;
        noteRejected("numpy", error);
        startup.path = "wheels";
        numpyBytes = wheel();
      }
    }
    const pyodide = await whileStarting(`Starting Python${startup.rejected.length ? " (without a start-up snapshot)" : ""}`,
      () => loadPyodide(options));
    progress(4, "Loading NumPy");
    unpackWheel(pyodide, await numpyBytes, numpyWheel.pathname.split("/").pop());
    startup.files.push(numpyWheel.href);
    pyodide.runPython("import numpy");
    return pyodide;
  } finally {
    undo();
  }
}

async function boot(siteRoot, install) {
  progress(1, "Reading the build description");
  const infoResponse = await fetch(new URL("build-info.json", siteRoot));
  if (!infoResponse.ok) throw new Error(`build-info.json answered HTTP ${infoResponse.status}; serve the built dist/ folder`);
  const info = await infoResponse.json();
  const indexURL = new URL(info.pyodide, siteRoot).href;
  // What a start installs of poolgrad: its wheel less the notebook widget's files.
  const wheelURL = new URL(info.poolgrad_subset, siteRoot).href;

  progress(2, "Downloading Python");
  const fetchedOnce = fetchEachFileOnce([indexURL, wheelURL]);
  const unwatch = watchRuntime();
  try {
    // Every download the start needs begins now: the runtime (compiled while it streams),
    // the standard library, the lock file and poolgrad's wheel; a failure surfaces where
    // the file is used.
    let measured;
    let arrived;
    const rate = new Promise((resolve) => { measured = resolve; });
    const runtimeArrived = new Promise((resolve) => { arrived = resolve; });
    const compiled = compileRuntime(new URL("pyodide.asm.wasm", indexURL), measured, arrived);
    for (const url of [stdlibURL(info, siteRoot), new URL("pyodide-lock.json", indexURL)]) {
      fetch(url).catch(() => {});
    }
    fetch(wheelURL).catch(() => {});
    const platform = takeTheIOSPath();
    let pyodide;
    try {
      pyodide = await startInterpreter(info, siteRoot, indexURL, compiled, rate, runtimeArrived);
    } finally {
      platform.undo();
    }
    pyodide.runPython(AFTER_START);
    fetchWhenImported(pyodide, { numpy: new URL(info.numpy_wheel, siteRoot), stdlib: new URL("python_stdlib.zip", indexURL) }, info);
    Object.assign(startup, {
      platform: platform.pyodideSees,
      enginePlatform: platform.enginePlatform,
      trampolines: pyodide._module._PyEM_CountArgsPtr === 0 ? "js" : "wasm-gc",
    });
    return await install(pyodide, wheelURL);
  } finally {
    unwatch();
    fetchedOnce();
  }
}

// The widgets' Python: poolgrad unpacked from its wheel, and warmed up.
async function installTraceService(pyodide, wheelURL) {
  // The NumPy snapshot has poolgrad installed already.
  if (startup.snapshot !== "numpy") {
    progress(4, "Installing poolgrad");
    unpackWheel(pyodide, await download(new URL(wheelURL)), "poolgrad.whl");
  }

  progress(5, "Warming up");
  pyodide.runPython(PYTHON_GLUE);
  const runTrace = pyodide.globals.get("run_trace");
  runTrace(JSON.stringify(WARM_UP_REQUEST));
  return runTrace;
}

// Starts Python with NumPy the way every worker of the site does (the NumPy snapshot on a
// fast link, else a normal start with the NumPy subset) and hands it to `install(pyodide, wheelURL)`, whose
// result it resolves with; `reportProgress` gets each {type: "progress"} message. The
// exercise worker (exercise-worker.js) starts its Python this way.
export function startPythonWith(siteRoot, reportProgress, install) {
  report = reportProgress;
  return boot(new URL(siteRoot || "./", self.location.href), install);
}

// A picture's request ({json, pixels}: the request's JSON and its RGBA bytes, a Uint8Array)
// reaches run_trace as two arguments, so the pixels enter NumPy through one copy
// (numpy.frombuffer) and never as a list of numbers. Its answer is a pair: the JSON, and the
// planes' bytes, copied out of Python's memory into an ArrayBuffer of their own.
function runPicture(runTrace, { json, pixels }) {
  const pair = runTrace(json, pixels);
  const [text, planes] = [pair.get(0), pair.get(1)];
  pair.destroy();
  const buffer = planes.getBuffer("u8");
  planes.destroy();
  try {
    return { ...JSON.parse(text), planes: buffer.data.slice().buffer };
  } finally {
    buffer.release();
  }
}

// Starts Python; `reportProgress` gets each {type: "progress"} message. Resolves with
// run(request) -> the answer message's fields ({trace, ms}, {picture, planes, ms} or {error}),
// and `startup`.
// `siteRoot` is the site's root URL (the page names it: early.js passes it as the worker's
// name); build-info.json gives every path below it.
export async function bootPython(siteRoot, reportProgress) {
  const runTrace = await startPythonWith(siteRoot, reportProgress, installTraceService);
  const run = (request) => {
    const started = performance.now();
    try {
      // The page sends its request key, the request's own JSON text, as it is (state.js
      // requestKey); a raw request (the test hook) may be an object; a picture's carries
      // its pixels.
      const answer = request?.pixels instanceof Uint8Array ? runPicture(runTrace, request)
        : JSON.parse(runTrace(typeof request === "string" ? request : JSON.stringify(request)));
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
