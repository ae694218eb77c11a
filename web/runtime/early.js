// The first script to run: an async module with no imports, so it does not wait for the
// rest of the app. It applies the page's configuration (the query string; the hash stays
// the state) before the first paint, so an embedded view never flashes the page chrome,
// and it starts the Python worker at once: Pyodide downloads and compiles while the
// app's other modules are still loading (or, where another widget of the site already
// started the shared one, it is ready at once). The bridge (bridge.js) adopts the worker
// and replays whatever it said before the bridge was listening.
//
// Query parameters: embed=1 gives the compact view for an iframe (no header, compact
// controls; when framed, the page posts {type: "poolgrad:size", height} to its parent
// whenever its height changes); lesson=0 hides the lesson panels (#lesson, #player, #guide,
// #exercise); code=0 hides the Code panel (#code) and the output-size formula;
// worker=dedicated gives the page a Python of its own (startPython below); id=name, read by
// guide.js, names the lesson the "Try it" progress belongs to.

const params = new URLSearchParams(location.search);
const config = {
  embed: params.get("embed") === "1",
  lesson: params.get("lesson") !== "0",
  code: params.get("code") !== "0",
};
const root = document.documentElement;
if (config.embed) root.dataset.embed = "1";
if (!config.lesson) root.dataset.lesson = "0";
if (!config.code) root.dataset.code = "0";

// The page is at the site's root; the workers' scripts are in a content-hashed folder below
// it, so the page tells them where the root is (the worker's name).
const siteRoot = new URL("./", location.href).href;

// Starts Python for this page and returns its connection {kind, post(message), close(),
// messages, errors} (the targets of its "message" and "error" events), or null when the
// browser cannot run this kind:
// - "shared": the site's shared worker (shared-worker.js), one Python for every widget of
//   this build open in the browser (the iframes of a lesson page share it). Null without a
//   SharedWorker, or when the browser would load it as a classic script (it reads no `type`
//   option: shared module workers came in Chrome 80, Firefox 114, Safari 16).
// - "dedicated": a Python of the page's own (worker.js); the bridge falls back to it.
export function startPython(kind) {
  if (kind === "shared") {
    if (typeof SharedWorker !== "function") return null;
    let modules = false;
    const options = { name: siteRoot, get type() { modules = true; return "module"; } };
    let shared;
    try {
      shared = new SharedWorker(new URL("./shared-worker.js", import.meta.url), options);
    } catch {
      return null;
    }
    if (!modules) {
      shared.port.close();
      return null;
    }
    shared.port.start();
    return {
      kind,
      messages: shared.port,
      errors: shared,
      post: (message) => shared.port.postMessage(message),
      // Nobody can stop a shared worker: the page only leaves it (the other widgets go on).
      close() {
        shared.port.postMessage({ type: "bye" });
        shared.port.close();
      },
    };
  }
  const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module", name: siteRoot });
  return {
    kind: "dedicated",
    messages: worker,
    errors: worker,
    post: (message) => worker.postMessage(message),
    close: () => worker.terminate(),
  };
}

// ?worker=dedicated: this page runs a Python of its own even where it could share one (to
// compare, or to keep one widget apart from the others).
const python = (params.get("worker") !== "dedicated" && startPython("shared")) || startPython("dedicated");

// The precomputed traces of the views a learner lands on (shipped.js), fetched beside the
// worker's downloads: null when the file cannot be read (the views then wait for Python).
export const shippedTraces = fetch(new URL("../shipped-traces.json", import.meta.url))
  .then((response) => (response.ok ? response.json() : null))
  .catch(() => null);
// The first minute's traces, which shipped.js fetches once the first view is drawn.
export const FIRST_MINUTE_TRACES = new URL("../first-minute-traces.json", import.meta.url);
const heard = [];
const keep = (event) => {
  // An error event is cancelled now (the bridge reports it); otherwise the console would
  // log it as uncaught before anyone could handle it.
  if (event.type === "error") event.preventDefault();
  heard.push(event);
};
python.messages.addEventListener("message", keep);
python.errors.addEventListener("error", keep);

// Hands the connection to `listener` (called with each message event and error event, first
// the ones already heard, then the live ones) and stops keeping events for later.
export function adoptPython(listener) {
  python.messages.removeEventListener("message", keep);
  python.errors.removeEventListener("error", keep);
  python.messages.addEventListener("message", listener);
  python.errors.addEventListener("error", listener);
  for (const event of heard.splice(0)) listener(event);
  return python;
}

// The host page sizes the iframe from these messages; the height is the document's
// own (the <html> box), so it shrinks as well as grows.
if (config.embed && window.parent !== window) {
  let posted = 0;
  new ResizeObserver(() => {
    const height = Math.ceil(root.getBoundingClientRect().height);
    if (height === posted) return;
    posted = height;
    window.parent.postMessage({ type: "poolgrad:size", height }, "*");
  }).observe(root);
}
