// The first script to run: an async module with no imports, so it does not wait for the
// rest of the app. It applies the page's configuration (the query string; the hash stays
// the state) before the first paint, so an embedded view never flashes the page chrome,
// and it starts the Python worker at once: Pyodide downloads and compiles while the
// app's other modules are still loading. The bridge (bridge.js) adopts the worker and
// replays whatever it said before the bridge was listening.
//
// Query parameters: embed=1 gives the compact view for an iframe (no header, compact
// controls; when framed, the page posts {type: "poolgrad:size", height} to its parent
// whenever its height changes); lesson=0 hides the lesson panels (#lesson, #player, #guide).
// (id=name, read by guide.js, names the lesson the "Try it" progress belongs to.)

const params = new URLSearchParams(location.search);
const config = {
  embed: params.get("embed") === "1",
  lesson: params.get("lesson") !== "0",
};
const root = document.documentElement;
if (config.embed) root.dataset.embed = "1";
if (!config.lesson) root.dataset.lesson = "0";

// The page is at the site's root; the worker's script is in a content-hashed folder below
// it, so the page tells it where the root is (the worker's name).
const siteRoot = new URL("./", location.href).href;

// A new Python worker for this page; the bridge starts another one this way when a request
// has blocked the first for good.
export function startWorker() {
  return new Worker(new URL("./worker.js", import.meta.url), { type: "module", name: siteRoot });
}

const worker = startWorker();

// The precomputed traces of the views a learner lands on (shipped.js), fetched beside the
// worker's downloads: null when the file cannot be read (the views then wait for Python).
export const shippedTraces = fetch(new URL("./shipped-traces.json", import.meta.url))
  .then((response) => (response.ok ? response.json() : null))
  .catch(() => null);
const heard = [];
const keep = (event) => {
  // An error event is cancelled now (the bridge reports it); otherwise the console would
  // log it as uncaught before anyone could handle it.
  if (event.type === "error") event.preventDefault();
  heard.push(event);
};
worker.addEventListener("message", keep);
worker.addEventListener("error", keep);

// Hands the worker to `listener` (called with each message event and error event, first
// the ones already heard, then the live ones) and stops keeping events for later.
export function adoptWorker(listener) {
  worker.removeEventListener("message", keep);
  worker.removeEventListener("error", keep);
  worker.addEventListener("message", listener);
  worker.addEventListener("error", listener);
  for (const event of heard.splice(0)) listener(event);
  return worker;
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
